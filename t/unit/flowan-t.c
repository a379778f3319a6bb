/*
 * flowan-t.c -- flow analysis on synthetic captures: two jobs (DP2 x PP2
 * with GPipe, and a three-host ring), rendezvous and storage traffic, a
 * straggler from a known iteration; the step-gap split and the lagged BOCD.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows/flowan.h"
#include "base/rng.h"
#include "tap.h"
#include "base/util.h"

#define NHOSTS 8
#define NITER 20
#define SLOW_FROM 10	/* host 4 computes longer from this step (0-based) */

struct gen {
	struct flow_set set;
	size_t cap;
	struct rng r;
	int slow_from;		/* host 3 computes longer from this step */
	double stretch;		/* DP pair 2-3 transfers take this much longer */
	double lo[NITER + 1];	/* first DP group done, per step (0: sync) */
	double hi[NITER + 1];	/* last DP group done */
};

static void
msg(struct gen *g, uint32_t src, uint32_t dst, double t, double dur,
    uint64_t size, uint16_t dport)
{
	struct flow_msg *m;

	g->set.msgs = xgrow(g->set.msgs, &g->cap, g->set.nmsgs + 1,
	    sizeof *g->set.msgs);
	m = &g->set.msgs[g->set.nmsgs++];
	memset(m, 0, sizeof *m);
	m->src = src;
	m->dst = dst;
	m->start = t;
	m->end = t + dur;
	m->payload = size;
	m->bytes = size + 66 * (size / 8948 + 1);
	m->pkts = size / 8948 + 1;
	m->sport = (uint16_t)(40000 + src);
	m->dport = dport ? dport : (uint16_t)(50000 + dst);
	m->proto = 6;
}

/* A collective exchange between a and b cut in two pieces of random sizes. */
static double
dp_pair(struct gen *g, uint32_t a, uint32_t b, double t)
{
	uint64_t total = 1300000, cut = 200000 + rng_below(&g->r, 900000);
	double x = a == 2 ? g->stretch : 1;

	msg(g, a, b, t - 0.002, 0.0001, 48, 0);
	msg(g, a, b, t, 0.002 * x, cut, 0);
	msg(g, b, a, t + 0.0001, 0.002 * x, total - cut, 0);
	msg(g, a, b, t + 0.0025 * x, 0.002 * x, total - cut, 0);
	msg(g, b, a, t + 0.0026 * x, 0.002 * x, cut, 0);
	return t + 0.0046 * x;	/* the last byte */
}

/* Job A: hosts 0,1 (stage 0) and 2,3 (stage 1); pipelines 0-2 and 1-3. */
static double
job_a_step(struct gen *g, int k, double t0, double *lo)
{
	double slow = k >= g->slow_from ? 0.03 : 0, jit, bwd, end;
	int mb, p;

	jit = 0.004 * rng_unit(&g->r);
	for (mb = 0; mb < 4; mb++)
		for (p = 0; p < 2; p++) {
			msg(g, (uint32_t)p + 2, (uint32_t)p, t0 + 0.010 * mb,
			    0.0001, 48, 0);
			msg(g, (uint32_t)p, (uint32_t)p + 2, t0 + 0.010 *
			    (mb + 1) + jit, 0.0005, 98400, 0);
		}
	bwd = t0 + 0.05 + jit;
	for (mb = 0; mb < 4; mb++) {
		msg(g, 2, 0, bwd + 0.012 * (mb + 1), 0.0005, 98400, 0);
		msg(g, 3, 1, bwd + (0.012 + slow) * (mb + 1), 0.0005, 98400, 0);
	}
	end = bwd + (0.012 + slow) * 4 + 0.012;
	*lo = dp_pair(g, 2, 3, bwd + 0.05 + slow * 4 - 0.005);
	end = dp_pair(g, 0, 1, end > *lo ? end : *lo + 0.002);
	return end;
}

/* Job B: a ring 4 -> 5 -> 6 -> 4, equal pieces, one way per pair. */
static void
job_b_step(struct gen *g, double t0)
{
	uint32_t h;

	for (h = 4; h < 7; h++) {
		uint32_t next = h == 6 ? 4 : h + 1;
		uint64_t cut = 300000;	/* one size: only direction tells */

		msg(g, h, next, t0, 0.001, cut, 0);
		msg(g, h, next, t0 + 0.0015, 0.001, 600000 - cut, 0);
	}
}

static int
cmp_start(const void *a, const void *b)
{
	const struct flow_msg *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static void
generate(struct gen *g, int slow_from, double stretch)
{
	double t = 1000, tb = 1000.003;
	uint32_t h;
	int k;
	char ip[32];

	memset(g, 0, sizeof *g);
	g->slow_from = slow_from;
	g->stretch = stretch;
	rng_seed(&g->r, 7);
	g->set.hosts = xcalloc(NHOSTS, sizeof *g->set.hosts);
	g->set.nhosts = NHOSTS;
	for (h = 0; h < NHOSTS; h++) {
		snprintf(ip, sizeof ip, "10.0.0.%u", h + 1);
		flow_addr_parse(ip, &g->set.hosts[h]);
	}
	g->hi[0] = dp_pair(g, 0, 1, t - 0.05);	/* initial sync */
	g->lo[0] = dp_pair(g, 2, 3, t - 0.05);
	if (g->hi[0] < g->lo[0])
		g->lo[0] = g->hi[0];
	for (k = 0; k < NITER; k++) {
		g->hi[k + 1] = job_a_step(g, k, t, &g->lo[k + 1]);
		t = g->hi[k + 1] + 0.001;
	}
	for (k = 0; k < 2 * NITER; k++, tb += 0.07 + 0.01 * rng_unit(&g->r))
		job_b_step(g, tb);
	for (h = 1; h < 7; h++) {	/* rendezvous and storage */
		msg(g, h, 0, 999.5 + h * 0.01, 0.001, 300000, 29500);
		for (k = 0; k < 4; k++)
			msg(g, h, 7, 1000.1 + k * 0.5 + h * 0.01, 0.01,
			    4000000, 2050);
	}
	qsort(g->set.msgs, g->set.nmsgs, sizeof *g->set.msgs, cmp_start);
}

static const struct flowan_job *
job_with(const struct flowan *fa, uint32_t host)
{
	size_t i, j;

	for (i = 0; i < fa->njobs; i++)
		for (j = 0; j < fa->jobs[i].nhosts; j++)
			if (fa->jobs[i].hosts[j] == host)
				return &fa->jobs[i];
	return NULL;
}

static enum flowan_type
type_of(const struct flowan_job *job, uint32_t a, uint32_t b)
{
	size_t i;

	for (i = 0; i < job->npairs; i++)
		if ((job->pairs[i].a == a && job->pairs[i].b == b) ||
		    (job->pairs[i].a == b && job->pairs[i].b == a))
			return job->pairs[i].type;
	return FLOWAN_OTHER;
}

static int
group_is(const struct flowan_group *g, uint32_t x, uint32_t y)
{
	return g->n == 2 && g->hosts[0] == x && g->hosts[1] == y;
}

static void
test_jobs(const struct gen *g, const struct flowan *fa)
{
	const struct flowan_job *a = job_with(fa, 0), *b = job_with(fa, 4);

	is_int((long)fa->njobs, 2, "two jobs, storage and rendezvous aside");
	ok(a != NULL && a->nhosts == 4, "job A has its four hosts");
	ok(b != NULL && b->nhosts == 3, "job B has its three hosts");
	ok(job_with(fa, 7) == NULL, "the storage server is in no job");
	if (a == NULL || b == NULL)
		return;
	ok(strcmp(a->id, b->id) != 0, "jobs have distinct ids");
	ok(type_of(a, 0, 1) == FLOWAN_DP && type_of(a, 2, 3) == FLOWAN_DP,
	    "collective pairs are dp");
	ok(type_of(a, 0, 2) == FLOWAN_PP && type_of(a, 1, 3) == FLOWAN_PP,
	    "pipeline pairs are pp");
	ok(type_of(a, 0, 3) == FLOWAN_OTHER, "no pair between unrelated ranks");
	ok(a->ndp == 2 && ((group_is(&a->dp[0], 0, 1) &&
	    group_is(&a->dp[1], 2, 3)) || (group_is(&a->dp[1], 0, 1) &&
	    group_is(&a->dp[0], 2, 3))), "dp groups {0,1} and {2,3}");
	ok(a->npp == 2 && ((group_is(&a->pp[0], 0, 2) &&
	    group_is(&a->pp[1], 1, 3)) || (group_is(&a->pp[1], 0, 2) &&
	    group_is(&a->pp[0], 1, 3))), "pipelines in stage order");
	ok(b->ndp == 1 && b->dp[0].n == 3 && b->npp == 0,
	    "the ring is one dp group, no pipeline");
	(void)g;
}

static void
test_timeline(const struct gen *g, const struct flowan *fa)
{
	const struct flowan_job *a = job_with(fa, 0);
	size_t i, f, bad = 0;
	int found = 0;

	if (a == NULL)
		return;
	is_int((long)a->niters, NITER, "one iteration per step");
	for (i = 0; i < a->niters && i < NITER; i++) {
		double d = a->iters[i].end - a->iters[i].start;
		double t = g->hi[i + 1] - g->lo[i];

		bad += fabs(d - t) > 0.001 * t;
	}
	is_int((long)bad, 0, "iterations: first group done to last group done");
	for (f = 0; f < a->nfindings; f++) {
		const struct flowan_finding *x = &a->findings[f];

		if (x->kind == FLOWAN_STRAGGLER) {
			found++;
			ok(strcmp(x->subject, "10.0.0.4") == 0,
			    "the straggler is host 4");
			ok(x->from == SLOW_FROM + 1, "from the slow step");
		} else if (x->kind != FLOWAN_SLOW_ITERATION) {
			printf("# unexpected: %s %s\n",
			    flowan_kind_name(x->kind), x->subject);
			found += 100;
		}
	}
	is_int(found, 1, "one straggler, nothing else but slow iterations");
}

static void
test_gaps(void)
{
	double bi[40], uni[40], out[40], pause[60], t;
	size_t i, hits = 0, quiet = 0;

	for (i = 0; i < 60; i++)	/* 4 gaps a step, 3 checkpoint pauses */
		pause[i] = i % 4 == 3 ? (i == 23 || i == 43 || i == 59 ?
		    3.0 : 0.25) : 0.002 * (double)(1 + i % 3);
	t = flowan_gap_threshold(pause, 60);
	ok(t > 0.006 && t < 0.25, "checkpoint pauses do not hide the steps");

	for (i = 0; i < 40; i++) {
		bi[i] = i % 8 == 7 ? 0.1 + 0.001 * (double)i : 0.002;
		uni[i] = 0.01 * (1 + 0.1 * (double)(i % 3));
	}
	ok(flowan_gap_threshold(bi, 40) > 0.002 &&
	    flowan_gap_threshold(bi, 40) < 0.1, "bimodal gaps split between");
	ok(flowan_gap_threshold(uni, 40) == 0, "unimodal gaps do not split");
	ok(flowan_gap_threshold(bi, 2) == 0, "too few gaps do not split");
	flowan_bocd(bi, 40, 1.0 / 8, 0, out);
	for (i = 1; i < 40; i++) {
		if (i % 8 == 7)
			hits += out[i] > 0.9;
		else
			quiet += out[i] < 0.5;
	}
	is_int((long)hits, 5, "prior-scored BOCD fires at each long gap");
	is_int((long)quiet, 34, "and stays quiet inside steps");
	flowan_bocd(bi, 40, 1.0 / 8, 2, out);
	ok(out[8] > 0.5 && out[10] < 0.1, "lagged: a run starts after the gap");
}

/*
 * DP pair 2-3 moves its bytes 4x slower: a slow link, and its group's
 * slowdown said in that finding, not in a second one.
 */
static void
test_slow_link(void)
{
	struct flowan_params p;
	const struct flowan_job *a;
	struct flowan fa;
	struct gen g;
	size_t f, r;
	int group = 0, link = 0, other = 0;

	generate(&g, NITER + 1, 4);
	flowan_params_default(&p);
	flowan_analyse(&fa, &g.set, &p, NULL);
	if ((a = job_with(&fa, 0)) != NULL) {
		for (f = 0; f < a->nfindings; f++) {
			const struct flowan_finding *x = &a->findings[f];

			if (x->kind == FLOWAN_SLOW_LINK &&
			    strcmp(x->subject, "10.0.0.3-10.0.0.4") == 0) {
				link++;
				for (r = 0; r < x->nreasons; r++)
					group += strstr(x->reasons[r],
					    "(dp group 2,") != NULL;
			} else
				other++;
		}
	}
	is_int(link, 1, "the slow pair is a slow link");
	is_int(group, 1, "its group's slowdown is one of its reasons");
	is_int(other, 0, "nothing else is flagged");
	flowan_free(&fa);
	free(g.set.msgs);
	free(g.set.hosts);
}

int
main(void)
{
	struct flowan_params p;
	struct flowan fa, fb;
	struct gen g;

	test_gaps();
	test_slow_link();
	generate(&g, SLOW_FROM, 1);
	flowan_params_default(&p);
	ok(flowan_analyse(&fa, &g.set, &p, NULL) == 0, "analysis runs");
	test_jobs(&g, &fa);
	test_timeline(&g, &fa);
	flowan_analyse(&fb, &g.set, &p, NULL);
	ok(fb.njobs == fa.njobs && strcmp(fb.jobs[0].id, fa.jobs[0].id) == 0,
	    "job ids are stable");
	flowan_free(&fa);
	flowan_free(&fb);
	free(g.set.msgs);
	free(g.set.hosts);
	return done_testing();
}
