/*
 * flowan-fuzz.c -- the flow analysis over arbitrary messages.  Each 12
 * bytes of input are one message: source and destination host (of 8),
 * start delta and duration in 0.1 ms, size, port choice and flags; the
 * analysis and all printers must run without fault on any of them.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows/flowan.h"
#include "base/util.h"

#define FZ_HOSTS 8

static void
fill(struct flow_msg *m, const uint8_t *d, double *t)
{
	static const uint16_t ports[] = { 29500, 2049, 4791, 50000 };

	memset(m, 0, sizeof *m);
	m->src = d[0] % FZ_HOSTS;
	m->dst = d[1] % FZ_HOSTS;
	*t += (double)(d[2] | d[3] << 8) * 1e-4;
	m->start = *t;
	m->end = *t + (double)d[4] * 1e-4;
	m->payload = (uint64_t)(d[5] | d[6] << 8 | d[7] << 16) << (d[8] & 7);
	m->bytes = m->payload + 66;
	m->pkts = 1 + m->payload / 9000;
	m->sport = ports[d[9] & 3];
	m->dport = 50000;
	m->ce = d[10] & 1;
	m->cnp = d[11] & 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct flow_set set;
	struct flowan_params p;
	struct flowan fa;
	double t = 1000;
	size_t i;
	char ip[32];
	FILE *null = fopen("/dev/null", "w");

	memset(&set, 0, sizeof set);
	set.nhosts = FZ_HOSTS;
	set.hosts = xcalloc(FZ_HOSTS, sizeof *set.hosts);
	for (i = 0; i < FZ_HOSTS; i++) {
		snprintf(ip, sizeof ip, "10.1.0.%zu", i + 1);
		flow_addr_parse(ip, &set.hosts[i]);
	}
	set.nmsgs = size / 12;
	set.msgs = xcalloc(set.nmsgs + 1, sizeof *set.msgs);
	for (i = 0; i < set.nmsgs; i++)
		fill(&set.msgs[i], data + 12 * i, &t);
	flowan_params_default(&p);
	if (size > 0 && (data[0] & 0x80))
		p.gap = 0.002;
	if (flowan_analyse(&fa, &set, &p, NULL) == 0 && null != NULL) {
		flowan_print_text(&fa, null);
		flowan_print_tsv(&fa, null);
		flowan_print_json(&fa, null);
		flowan_free(&fa);
	}
	if (null != NULL)
		fclose(null);
	free(set.msgs);
	free(set.hosts);
	return 0;
}
