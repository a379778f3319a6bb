/*
 * modelio-t.c -- a model as bytes and back: the round trip, and damage
 * (a flipped bit anywhere, a cut) that must read as no model.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag/model.h"
#include "base/util.h"
#include "tap.h"

static char **
strings(size_t n, const char *first)
{
	char **v = xcalloc(n + 1, sizeof *v);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = xasprintf("%s %zu", first, i);
	return v;
}

/* A small model with something in every array the views read. */
static struct model *
sample(void)
{
	struct model *m = xcalloc(1, sizeof *m);
	size_t i;

	m->name = xstrdup("job-1");
	m->root = xstrdup("/jobs/job-1");
	m->failure_iter = 41;
	m->last_healthy_iter = 40;
	m->slow_iter = -1;
	m->first_ts = 1.7e9;
	m->last_ts = 1.7e9 + 600;
	m->nnodes = m->nreal = 2;
	m->nodes = xcalloc(2, sizeof *m->nodes);
	for (i = 0; i < 2; i++) {
		m->nodes[i].name = xasprintf("node-%zu", i);
		m->nodes[i].score = 0.5 + 0.25 * (double)i;
		m->nodes[i].reasons = strings(2, "reason");
		m->nodes[i].nreasons = 2;
		m->nodes[i].last_ts = NAN;
	}
	m->suspects = xcalloc(2, sizeof *m->suspects);
	m->suspects[0] = 1;
	m->nsuspects = 2;
	m->nevents = 1;
	m->events = xcalloc(1, sizeof *m->events);
	m->events[0].id = 9;
	m->events[0].text = xstrdup("NVRM: Xid <*>");
	m->events[0].score = 0.86;
	m->events[0].count = 3;
	m->events[0].category = xstrdup("xid");
	m->events[0].nodes = xcalloc(1, sizeof *m->events[0].nodes);
	m->events[0].nnodes = 1;
	m->events[0].path = xstrdup("host/node-1.log");
	m->events[0].line = 8;
	m->events[0].ts = 1.7e9 + 90;
	m->events[0].iteration = 41;
	m->events[0].reasons = strings(1, "only on");
	m->events[0].nreasons = 1;
	m->niters = 2;
	m->iters = xcalloc(2, sizeof *m->iters);
	m->iters[0].iteration = 40;
	m->iters[0].ms = 812.5;
	m->iters[1].iteration = 41;
	m->iters[1].ms = 9000;
	m->nmarks = 1;
	m->marks = xcalloc(1, sizeof *m->marks);
	m->marks[0].event = UINT32_MAX;
	m->marks[0].level = 3;
	m->nnotes = 1;
	m->notes = strings(1, "note");
	return m;
}

int
main(void)
{
	struct model *m = sample(), *back;
	unsigned char *bytes, *again;
	size_t len, n, bit, served = 0, cut = 0;

	model_encode(m, &bytes, &len);
	back = model_decode(bytes, len);
	ok(back != NULL, "a model reads back");
	if (back != NULL) {
		model_encode(back, &again, &n);
		ok(n == len && memcmp(again, bytes, len) == 0,
		    "and writes the same bytes again");
		is_str(back->events[0].text, "NVRM: Xid <*>", "its strings");
		ok(back->iters[1].ms == 9000 && back->nodes[1].score == 0.75,
		    "its numbers");
		free(again);
		model_free(back);
	}
	for (bit = 0; bit < len * 8; bit++) {
		bytes[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		if ((back = model_decode(bytes, len)) != NULL) {
			served++;
			model_free(back);
		}
		bytes[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	printf("# %zu bit flips tried\n", len * 8);
	is_int((long)served, 0, "no bit flipped anywhere in the bytes gives a "
	    "model (numbers included: the checksum)");
	for (n = 0; n < len; n++)
		if ((back = model_decode(bytes, n)) != NULL) {
			cut++;
			model_free(back);
		}
	is_int((long)cut, 0, "no cut of the bytes gives a model");
	memcpy(bytes, "TSMODEL2", 8);
	ok(model_decode(bytes, len) == NULL, "the encoding before the checksum "
	    "is no model: computed again");
	free(bytes);
	model_free(m);
	return done_testing();
}
