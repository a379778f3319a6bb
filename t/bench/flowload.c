/*
 * flowload.c -- run flow ingest alone: read captures with flow_set_load()
 * and print what came out, for the ingest benchmark and for looking at a
 * capture by hand.
 *
 *	flowload [-m] FILE...	(-m also lists every message)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows/flowasm.h"
#include "base/util.h"

static void
warn(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "flowload: %s\n", msg);
}

static void
list_msgs(const struct flow_set *set)
{
	char a[64], b[64];
	size_t i;

	for (i = 0; i < set->nmsgs; i++) {
		const struct flow_msg *m = &set->msgs[i];

		printf("%.6f %.6f %s:%u > %s:%u p%u qp%u bytes=%llu "
		    "payload=%llu pkts=%llu ce=%u cnp=%u flags=0x%02x\n",
		    m->start, m->end,
		    flow_addr_str(&set->hosts[m->src], a, sizeof a), m->sport,
		    flow_addr_str(&set->hosts[m->dst], b, sizeof b), m->dport,
		    m->proto, m->qp, (unsigned long long)m->bytes,
		    (unsigned long long)m->payload, (unsigned long long)m->pkts,
		    m->ce, m->cnp, m->flags);
	}
}

int
main(int argc, char **argv)
{
	struct flow_set set;
	struct flow_params p;
	char *cause = NULL;
	int msgs = 0;
	double t0;

	if (argc > 1 && strcmp(argv[1], "-m") == 0) {
		msgs = 1;
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: flowload [-m] FILE...\n");
		return 2;
	}
	flow_params_default(&p);
	t0 = ts_now();
	if (flow_set_load(&set, (const char *const *)argv + 1,
	    (size_t)argc - 1, &p, warn, NULL, &cause) != 0) {
		fprintf(stderr, "flowload: %s\n", cause);
		free(cause);
		return 1;
	}
	printf("records %llu bytes %llu pkts %llu hosts %zu flows %llu "
	    "messages %zu acks %llu warnings %llu seconds %.3f\n",
	    (unsigned long long)set.nrecs, (unsigned long long)set.bytes,
	    (unsigned long long)set.pkts, set.nhosts,
	    (unsigned long long)set.nflows, set.nmsgs,
	    (unsigned long long)set.ack_pkts,
	    (unsigned long long)set.nwarn, ts_now() - t0);
	if (msgs)
		list_msgs(&set);
	flow_set_free(&set);
	return 0;
}
