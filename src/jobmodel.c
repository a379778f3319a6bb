/*
 * jobmodel.c -- the model of a job, from the cache (see jobmodel.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "diag.h"
#include "faults.h"
#include "flowjoin.h"
#include "jobload.h"
#include "jobmodel.h"
#include "model.h"
#include "util.h"

static void
warn(FILE *err, const char *fmt, const char *what)
{
	if (err != NULL) {
		fputs("trainscope: ", err);
		fprintf(err, fmt, what);
		fputc('\n', err);
	}
}

int
job_model(struct cache *c, const char *name, const char *const *baselines,
    size_t nbase, int flags, FILE *err, struct model **out, char **cause)
{
	struct diag_opts o = { 1, NULL };
	struct model_flows mf;
	struct diag_job *job = NULL;
	struct diag_result *r;
	char *why = NULL;
	size_t i;

	*out = NULL;
	memset(&mf, 0, sizeof mf);
	if (jobload(c, name, baselines, nbase, &job, cause) != 0)
		return -1;
	o.faults = faults_default();
	for (i = 0; i < faults_nerrors(o.faults); i++)
		warn(err, "%s", faults_error(o.faults, i));
	if (!(flags & JOBMODEL_NO_FLOWS) &&
	    flowjoin_evidence(job, c, err, &mf, &why) < 0) {
		warn(err, "captures left out: %s", why);
		free(why);
		why = NULL;
	}
	r = diag_run(job, &o);
	*out = model_build(job, r, &mf);
	if (jobload_store(c, job, r, &why) != 0) {
		warn(err, "the outcome was not saved: %s", why);
		free(why);
	}
	diag_result_free(r);
	diag_job_free(job);
	faults_free((struct faults *)o.faults);
	model_flows_release(&mf);
	return 0;
}
