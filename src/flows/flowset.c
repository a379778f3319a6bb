/*
 * flowset.c -- the flow set's defaults and its release (see flowset.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "flows/flowset.h"

void
flow_params_default(struct flow_params *p)
{
	p->idle_timeout = 2.0;
	p->msg_gap = 0.001;
}

void
flow_set_free(struct flow_set *set)
{
	size_t i;

	if (set == NULL)
		return;
	for (i = 0; i < set->ncaps; i++)
		free(set->caps[i].path);
	free(set->caps);
	free(set->hosts);
	free(set->msgs);
	memset(set, 0, sizeof *set);
}
