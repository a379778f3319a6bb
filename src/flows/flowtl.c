/*
 * flowtl.c -- iteration timeline, pipeline order and diagnosis of one job
 * (after LLMPrism, phases 3 and 4).
 *
 * Timeline.  Each DP group's significant DP messages, each paced transfer
 * one (flowan_paced(): a throttled link lets a transfer through in
 * pieces), are split into bursts by the step gap (flowan_span_gap()).
 * Every training step ends with
 * such a burst, so bursts of all groups are clustered by their start (a
 * burst joins while it starts within half the median burst period of the
 * cluster's first, or while a burst of the cluster still runs: a slow link
 * stretches one group's burst far past the others') and a cluster seen by
 * more than half of the groups is a step boundary.  Iteration k
 * runs from the first group's burst end at boundary k-1 to the last
 * group's burst end at boundary k: the job's iteration starts when the
 * earliest rank is free and ends when the last one is done.  The first
 * boundary (often the initial parameter broadcast) only opens iteration 1.
 *
 * Pipelines.  After a boundary the first transfer on a PP pair carries
 * activations from the earlier stage; before a boundary the last one
 * carries gradients back to it.  Votes over all boundaries orient each PP
 * edge, and a pipeline is its hosts in topological order.
 *
 * Links: per iteration, a pair's bytes over the time its transfers take
 * (messages, and paced transfers as wholes) is the rate its link moves
 * at; a pair below half the median rate of the other pairs of its type
 * (DP or PP) for >= 3 iterations in a row is a slow link; a host all of
 * whose pairs slow down together, against their peers and their own
 * earlier rates, is a slow NIC, unless one of its links was slow on its
 * own for most of that link's iterations.  A DP group whose step-end
 * collective drags because of a slow link or NIC inside it is said in
 * that finding (one fault, one finding).
 *
 * Diagnosis.  Per host and iteration, `compute` is the idle time that ends
 * in one of its own sends: since it was last done with a message of any
 * size (a message still arriving when it sends, the next micro-batch's,
 * is not what it waited for), each idle stretch counted once; a host
 * without pipeline pairs computes until it enters the step's collective.
 * A stage that waits for a slow neighbour's activations waits for a
 * message, so only the slow host's compute grows.  DP peers run the same
 * stage, so a host whose sustained compute (the median of three
 * consecutive iterations) and whose compute in the iteration itself
 * exceed its peers' median by >= 25 %, by four times the group's noise
 * (and >= 1 % of the iteration baseline) and by four of the peers' MADs,
 * in >= 3 consecutive iterations, is a straggler; a host without DP peers
 * on the wire (or whose DP group joins the rings of several stages) is
 * held against its own earlier iterations instead.  A host that holds
 * ranks of several pipelines mixes their computes; where the wire tells
 * its ranks apart (their own ports), each rank is read and held against
 * its own history apart (struct rank_end).
 * Iterations are slow
 * against the fastest half of the job's own history (median/MAD; robust z
 * > 3.5 and >= 1.5x).  Groups and links are compared leave-one-out against
 * their peers by ratio, since with <= 10 points plain 3-sigma cannot fire
 * (Samuelson's bound); the paper's sigma is printed as a mean deviation,
 * which is identically 0, so the scale used here is MAD * 1.4826.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flows/flowan.h"
#include "base/stats.h"
#include "base/util.h"

struct burst {
	double start, end;
	double bytes;
	size_t g;
};

struct cluster {
	double first_start, first_end, last_end, comm;
	size_t ngroups;
	unsigned char *seen;
	double *gdur;		/* per group: burst duration, NAN if none */
	double *gbytes;		/* per group: its bytes, 0 if none */
	double *gend;		/* per group: its burst's end, NAN if none */
};

static int
in_group(const struct flowan_group *g, uint32_t h)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->hosts[i] == h)
			return 1;
	return 0;
}

static int
cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int
cmp_span(const void *a, const void *b)
{
	const struct flowan_span *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

static int
cmp_burst_start(const void *a, const void *b)
{
	const struct burst *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* All significant messages of pairs of `type` inside group g, by start. */
static size_t *
group_msgs(const struct flowan_job *job, const struct flowan_group *g,
    enum flowan_type type, size_t *n)
{
	size_t *m = NULL, cap = 0, i, k;

	*n = 0;
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type != type || p->msgs == NULL ||
		    !in_group(g, p->a) || !in_group(g, p->b))
			continue;
		for (k = 0; k < p->nsig; k++) {
			m = xgrow(m, &cap, *n + 1, sizeof *m);
			m[(*n)++] = p->msgs[k];
		}
	}
	if (*n > 1)
		ts_qsort(m, *n, sizeof *m, cmp_size);
	return m;
}

/*
 * The groups whose bursts end a step: the DP groups; in a job without
 * data-parallel traffic on the wire (pure pipeline, or DP rings inside
 * hosts), the pipelines, whose last gradients back to stage 0 end it.
 */
struct stepgroups {
	const struct flowan_group *g;
	size_t n;
	enum flowan_type type;
};

static void
step_groups(const struct flowan_job *job, struct stepgroups *sg)
{
	if (job->ndp > 0) {
		sg->g = job->dp;
		sg->n = job->ndp;
		sg->type = FLOWAN_DP;
	} else {
		sg->g = job->pp;
		sg->n = job->npp;
		sg->type = FLOWAN_PP;
	}
}

/*
 * A pipeline's iteration period: on each of its pairs, the time from one
 * run of messages going one way (a micro-batch train of activations, or
 * of gradients) to the next such run.  A straggler or a slow link changes
 * it part-way, so it is read locally: the median of the intervals within
 * two (overall median) periods of a time.
 */
struct period {
	double *t, *iv;		/* interval middles (sorted) and lengths */
	size_t n;
	double all;		/* the median of all; NAN when none */
};

static int
cmp_double_pair(const void *a, const void *b)
{
	const double *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

static void
pipeline_period(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_group *g, struct period *pd)
{
	const struct flow_set *s = fa->set;
	double *tv = NULL, last;
	size_t cap = 0, n = 0, i, k;
	int dir, prev;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type != FLOWAN_PP || p->msgs == NULL ||
		    !in_group(g, p->a) || !in_group(g, p->b))
			continue;
		last = NAN;
		prev = -1;
		for (k = 0; k < p->nsig; k++) {
			const struct flow_msg *m = &s->msgs[p->msgs[k]];

			dir = m->src == p->a;
			if (dir == prev)
				continue;
			prev = dir;
			if (!dir)
				continue;
			if (isfinite(last)) {
				tv = xgrow(tv, &cap, 2 * n + 2, sizeof *tv);
				tv[2 * n] = (m->start + last) / 2;
				tv[2 * n++ + 1] = m->start - last;
			}
			last = m->start;
		}
	}
	if (n > 1)
		ts_qsort(tv, n, 2 * sizeof *tv, cmp_double_pair);
	pd->n = n;
	pd->t = xcalloc(n + 1, sizeof *pd->t);
	pd->iv = xcalloc(n + 1, sizeof *pd->iv);
	for (i = 0; i < n; i++) {
		pd->t[i] = tv[2 * i];
		pd->iv[i] = tv[2 * i + 1];
	}
	free(tv);
	pd->all = n ? stats_median(pd->iv, n) : NAN;
}

/*
 * The period at time t (see struct period): the median length of the
 * intervals that span t, one per pair and direction, so a period that
 * grows part-way is read as it is; without three of those, of the
 * intervals whose middles are within two (overall median) periods.
 */
static double
local_period(const struct period *pd, double t, double *tmp)
{
	size_t lo = 0, hi = pd->n, a, k, ns = 0;

	while (lo < hi) {	/* first middle >= t - 2 periods */
		size_t mid = lo + (hi - lo) / 2;

		if (pd->t[mid] < t - 2 * pd->all)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (a = lo, k = 0; a < pd->n && pd->t[a] <= t + 2 * pd->all; a++)
		tmp[k++] = pd->iv[a];
	for (a = lo; a < pd->n && pd->t[a] <= t + 2 * pd->all; a++)
		if (fabs(pd->t[a] - t) <= pd->iv[a] / 2)
			tmp[k + ns++] = pd->iv[a];
	if (ns >= 3)
		return stats_median(tmp + k, ns);
	return k >= 3 ? stats_median(tmp, k) : pd->all;
}

struct cut {
	double from, to;	/* the pause */
	size_t at;		/* the message after it */
	int kept, edge;
	uint32_t turn;		/* the host that got the message before it
				   and sends the one after, or UINT32_MAX */
};

/*
 * The median length of the (up to) three pauses nearest time t among
 * pz[0..n) (time and length pairs, by time); NAN when there are none.
 */
static double
near_pauses(const double *pz, size_t n, double t)
{
	size_t lo = 0, hi = n, a, b, k = 0;
	double len[3];

	while (lo < hi) {	/* first time >= t */
		size_t mid = lo + (hi - lo) / 2;

		if (pz[2 * mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (a = b = lo; k < 3 && (a > 0 || b < n); k++) {
		if (b >= n || (a > 0 && t - pz[2 * (a - 1)] < pz[2 * b] - t))
			len[k] = pz[2 * --a + 1];
		else
			len[k] = pz[2 * b++ + 1];
	}
	return k ? stats_median(len, k) : NAN;
}

static int
cmp_cut_gap(const void *a, const void *b)
{
	const struct cut *x = a, *y = b;
	double gx = x->to - x->from, gy = y->to - y->from;

	if (gx != gy)
		return gx < gy ? 1 : -1;
	return (x->at > y->at) - (x->at < y->at);
}

/* How many pipeline peers host h has in group g. */
static size_t
pp_degree(const struct flowan_job *job, const struct flowan_group *g,
    uint32_t h)
{
	size_t i, n = 0;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		n += p->type == FLOWAN_PP && in_group(g, p->a) &&
		    in_group(g, p->b) && (p->a == h || p->b == h);
	}
	return n;
}

/*
 * The ends of pipeline group g when it is a chain (each host with one or
 * two pipeline peers in it, two with one): e[0] and e[1]; 0 when not.
 */
static int
chain_ends(const struct flowan_job *job, const struct flowan_group *g,
    uint32_t *e)
{
	size_t k, deg, ne = 0;

	for (k = 0; k < g->n; k++) {
		deg = pp_degree(job, g, g->hosts[k]);
		if (deg == 0 || deg > 2 || (deg == 1 && ne == 2))
			return 0;
		if (deg == 1)
			e[ne++] = g->hosts[k];
	}
	return ne == 2;
}

/*
 * Which end of a chain of pipeline hosts is stage 0, from the pauses
 * c[0..nc) (by time) where an end turns round (gets a message, then
 * sends the next).  A step starts at stage 0 and turns at the last
 * stage; backward takes about twice as long as forward, so the time
 * from a turn at stage 0 to the next at the other end is the shorter.
 * Returns that end, or UINT32_MAX when the chain's ends do not say
 * (too few turns, or times within HEAD_RATIO of each other).
 */
#define HEAD_RATIO	1.3
static uint32_t
pipeline_head(const struct flowan_job *job, const struct flowan_group *g,
    const struct cut *c, size_t nc)
{
	uint32_t e[2];
	double *d[2], med[2];
	size_t nd[2] = { 0, 0 }, i, last = SIZE_MAX;
	uint32_t head = UINT32_MAX;
	int j;

	if (!chain_ends(job, g, e))
		return UINT32_MAX;
	d[0] = xcalloc(nc + 1, sizeof *d[0]);
	d[1] = xcalloc(nc + 1, sizeof *d[1]);
	for (i = 0; i < nc; i++) {
		if (c[i].turn != e[0] && c[i].turn != e[1])
			continue;
		if (last != SIZE_MAX && c[last].turn != c[i].turn) {
			j = c[last].turn == e[1];
			d[j][nd[j]++] = c[i].to - c[last].to;
		}
		last = i;
	}
	for (j = 0; j < 2; j++)
		med[j] = nd[j] >= 3 ? stats_median(d[j], nd[j]) : NAN;
	if (med[0] * HEAD_RATIO < med[1])
		head = e[0];
	else if (med[1] * HEAD_RATIO < med[0])
		head = e[1];
	free(d[0]);
	free(d[1]);
	return head;
}

/*
 * Where a pipeline's iterations meet, among its messages m[0..n) (by
 * start): a pipeline keeps its links busy through an iteration, forward
 * then backward, and all of it idles at the step's end (optimizer step,
 * collectives inside the hosts).  That pause need not be much longer than
 * the turn from forward to backward, so no gap threshold separates them;
 * but it is usually the longest pause within each period.  So: the
 * pauses, longest first (in a chain whose stage 0 pipeline_head()
 * finds, only those where stage 0 turns round: a straggling last stage
 * turns round slower than a step ends), each kept unless its middle
 * lies within half a (local) period of a kept one (bins of half the
 * overall period hold the kept ones: a pause within an iteration is that
 * close to one of its ends);
 * then those within a period of either end of the capture dropped
 * unless they last EDGE_SHARE of the kept pauses nearest them (a partial
 * iteration at an end has no step-end pause to rule out the turn from
 * forward to backward; a slowdown lengthens the later pauses, so they
 * are compared near where they are).  cut[i] != 0: a new iteration
 * starts at m[i].
 */
#define EDGE_SHARE	0.9
static unsigned char *
pipeline_cuts(const struct flow_set *s, const size_t *m, size_t n,
    const struct period *pd, const struct flowan_job *job,
    const struct flowan_group *g)
{
	unsigned char *cut = xcalloc(n + 1, 1);
	struct cut *c = xcalloc(n + 1, sizeof *c);
	double end, t0, w = 0.5 * pd->all, wl, *gk, med;
	double *tmp = xcalloc(2 * pd->n + 1, sizeof *tmp);
	size_t nc = 0, i, nb, b, b0, b1, nk = 0, *kept, before = 0;
	uint32_t head;

	end = n ? s->msgs[m[0]].end : 0;
	for (i = 1; i < n; i++) {
		const struct flow_msg *x = &s->msgs[m[i]];

		if (x->start > end) {
			c[nc].from = end;
			c[nc].to = x->start;
			c[nc].turn = s->msgs[m[before]].dst == x->src ?
			    x->src : UINT32_MAX;
			c[nc++].at = i;
		}
		if (x->end > end) {
			end = x->end;
			before = i;
		}
	}
	if (nc == 0 || !(w > 0)) {
		free(c);
		free(tmp);
		return cut;
	}
	head = pipeline_head(job, g, c, nc);
	t0 = s->msgs[m[0]].start;
	nb = (size_t)((end - t0) / w) + 3;
	kept = xcalloc(nb, sizeof *kept);	/* index + 1 of a kept cut */
	gk = xcalloc(2 * nc + 2, sizeof *gk);
	ts_qsort(c, nc, sizeof *c, cmp_cut_gap);
	for (i = 0; i < nc; i++) {
		double mid = (c[i].from + c[i].to) / 2;
		int near = 0;

		if (head != UINT32_MAX && c[i].turn != head)
			continue;	/* not where a step starts */
		wl = 0.5 * local_period(pd, mid, tmp);
		b0 = (size_t)fmax(0, (mid - wl - t0) / w) + 1;
		b1 = (size_t)fmax(0, (mid + wl - t0) / w) + 1;
		for (b = b0 - 1; b <= b1 && b < nb && !near; b++) {
			const struct cut *k = kept[b] ? &c[kept[b] - 1] : NULL;

			near = k != NULL && mid > k->from - wl &&
			    mid < k->to + wl;
		}
		if (near)
			continue;
		b0 = (size_t)((c[i].from - t0) / w) + 1;
		b1 = (size_t)((c[i].to - t0) / w) + 1;
		for (b = b0; b <= b1 && b < nb; b++)
			kept[b] = i + 1;
		c[i].kept = 1;
	}
	for (i = 0; i < nc; i++) {	/* kept away from the ends */
		double lp = local_period(pd, c[i].from, tmp);

		c[i].edge = c[i].from - t0 < lp || end - c[i].to < lp;
		if (c[i].kept && !c[i].edge)
			cut[c[i].at] = 1;
	}
	for (i = nk = 0; i < nc; i++)	/* as time and length, by time */
		if (c[i].kept && !c[i].edge) {
			gk[2 * nk] = c[i].to;
			gk[2 * nk++ + 1] = c[i].to - c[i].from;
		}
	ts_qsort(gk, nk, 2 * sizeof *gk, cmp_double_pair);
	for (i = 0; i < nc; i++) {
		if (!c[i].kept || !c[i].edge)
			continue;
		med = near_pauses(gk, nk, c[i].to);
		if (!isfinite(med) || c[i].to - c[i].from >= EDGE_SHARE * med)
			cut[c[i].at] = 1;
	}
	free(kept);
	free(gk);
	free(c);
	free(tmp);
	return cut;
}

static double
msg_bytes(const struct flow_msg *x)
{
	return (double)(x->payload ? x->payload : x->bytes);
}

/*
 * A group's step-end collective is one burst a step.  When one member is
 * late, the others go ahead with the first steps of the ring, among
 * themselves, and wait: a fragment with a small share of the step's
 * bytes, then a pause, then the rest.  A fragment joins the burst after
 * it (see flowan_join_small(); the usual burst is the byte-weighted
 * median, not the median burst: when every step has a fragment, or two,
 * fragments are half the bursts or more).  Returns the number of bursts
 * left in b[0..n).
 */
static size_t
join_fragments(struct burst *b, size_t n)
{
	double *v = xcalloc(n + 1, sizeof *v), usual;
	size_t i, k;

	for (i = 0; i < n; i++)
		v[i] = b[i].bytes;
	usual = flowan_usual_burst(v, n);
	free(v);
	for (i = k = 0; i < n; i++) {
		if (i + 1 < n && b[i].bytes < FLOWAN_FRAG_SHARE * usual) {
			b[i + 1].start = b[i].start;
			b[i + 1].bytes += b[i].bytes;
			continue;
		}
		b[k++] = b[i];
	}
	return k;
}

/*
 * The spans of group g's DP pairs, by start: their significant messages,
 * each paced transfer one span (flowan_paced(): a throttled link's
 * pieces are one transfer, not as many bursts).
 */
static struct flowan_span *
dp_spans(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_group *g, size_t *n)
{
	struct flowan_span *all = NULL, *sp;
	size_t cap = 0, i, k, ns;

	*n = 0;
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type != FLOWAN_DP || p->msgs == NULL ||
		    !in_group(g, p->a) || !in_group(g, p->b))
			continue;
		ns = flowan_paced(fa->set, p->msgs, p->nsig, 0, p->gap, &sp);
		all = xgrow(all, &cap, *n + ns + 1, sizeof *all);
		for (k = 0; k < ns; k++)
			all[(*n)++] = sp[k];
		free(sp);
	}
	if (*n > 1)
		ts_qsort(all, *n, sizeof *all, cmp_span);
	return all;
}

/*
 * The spans of pipeline group g: one a message (by start), and in *cut
 * where pipeline_cuts() starts an iteration (NULL with a fixed gap).
 */
static struct flowan_span *
pp_spans(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_group *g, const struct flowan_params *prm,
    size_t *n, unsigned char **cut)
{
	const struct flow_set *s = fa->set;
	size_t *m = group_msgs(job, g, FLOWAN_PP, n), i;
	struct flowan_span *sp = xcalloc(*n + 1, sizeof *sp);
	struct period pd;

	for (i = 0; i < *n; i++) {
		sp[i].start = s->msgs[m[i]].start;
		sp[i].end = s->msgs[m[i]].end;
		sp[i].bytes = msg_bytes(&s->msgs[m[i]]);
		sp[i].n = 1;
	}
	*cut = NULL;
	if (prm->gap <= 0) {
		pipeline_period(fa, job, g, &pd);
		if (isfinite(pd.all))
			*cut = pipeline_cuts(s, m, *n, &pd, job, g);
		free(pd.t);
		free(pd.iv);
	}
	free(m);
	return sp;
}

/* Append group g's bursts to *b; return its short (10 %) burst period. */
static double
group_bursts(const struct flowan *fa, const struct flowan_job *job,
    const struct stepgroups *sg, size_t g, const struct flowan_params *prm,
    struct burst **b, size_t *nb, size_t *cap)
{
	size_t n, i, first = *nb;
	unsigned char *cut = NULL;
	struct flowan_span *sp = sg->type == FLOWAN_PP ?
	    pp_spans(fa, job, &sg->g[g], prm, &n, &cut) :
	    dp_spans(fa, job, &sg->g[g], &n);
	double thr = flowan_span_gap(sp, n, prm->gap), *d, per;


	for (i = 0; i < n; i++) {
		const struct flowan_span *x = &sp[i];
		int joins = *nb > first && (cut != NULL ? !cut[i] :
		    x->start - (*b)[*nb - 1].end <= thr);

		if (joins) {
			if (x->end > (*b)[*nb - 1].end)
				(*b)[*nb - 1].end = x->end;
			(*b)[*nb - 1].bytes += x->bytes;
			continue;
		}
		*b = xgrow(*b, cap, *nb + 1, sizeof **b);
		(*b)[*nb].start = x->start;
		(*b)[*nb].end = x->end;
		(*b)[*nb].bytes = x->bytes;
		(*b)[(*nb)++].g = g;
	}
	free(cut);
	free(sp);
	*nb = first + join_fragments(*b + first, *nb - first);
	if (*nb - first < 2)
		return NAN;
	d = xcalloc(*nb - first, sizeof *d);
	for (i = first + 1; i < *nb; i++)
		d[i - first - 1] = (*b)[i].end - (*b)[i - 1].end;
	per = stats_quantile(d, *nb - first - 1, 0.1);
	free(d);
	return per;
}

/*
 * Cluster bursts into step boundaries seen by enough groups.  Bursts are
 * taken by start; a cluster holds at most one burst per group, and a
 * burst joins it when it starts within half of `per`, a short burst
 * period, of the cluster's first start (so fast early steps are not
 * merged even when most steps are slow), or while one of the cluster's
 * bursts still runs: the groups' step-end collectives start together, and
 * one held up by a slow link ends long after the others.
 */
static struct cluster *
boundaries(size_t ng, struct burst *b, size_t nb, double per, size_t *ncl)
{
	struct cluster *cl = NULL;
	size_t cap = 0, n = 0, i, k;

	if (nb > 1)
		ts_qsort(b, nb, sizeof *b, cmp_burst_start);
	for (i = 0; i < nb; i++) {
		struct cluster *c = n ? &cl[n - 1] : NULL;

		if (c == NULL || c->seen[b[i].g] ||
		    (b[i].start - c->first_start > per / 2 &&
		    b[i].start > c->last_end)) {
			cl = xgrow(cl, &cap, n + 1, sizeof *cl);
			c = &cl[n++];
			memset(c, 0, sizeof *c);
			c->seen = xcalloc(ng, 1);
			c->gdur = xcalloc(ng, sizeof *c->gdur);
			c->gbytes = xcalloc(ng, sizeof *c->gbytes);
			c->gend = xcalloc(ng, sizeof *c->gend);
			for (k = 0; k < ng; k++)
				c->gdur[k] = c->gend[k] = NAN;
			c->first_start = b[i].start;
			c->first_end = b[i].end;
		}
		c->gdur[b[i].g] = b[i].end - b[i].start;
		c->gbytes[b[i].g] = b[i].bytes;
		c->gend[b[i].g] = b[i].end;
		if (b[i].end < c->first_end)
			c->first_end = b[i].end;
		if (b[i].end > c->last_end)
			c->last_end = b[i].end;
		if (b[i].end - b[i].start > c->comm)
			c->comm = b[i].end - b[i].start;
		if (!c->seen[b[i].g]++)
			c->ngroups++;
	}
	for (i = k = 0; i < n; i++) {
		if (cl[i].ngroups * 2 > ng)
			cl[k++] = cl[i];
		else {
			free(cl[i].seen);
			free(cl[i].gdur);
			free(cl[i].gbytes);
			free(cl[i].gend);
		}
	}
	*ncl = k;
	return cl;
}

static void
free_clusters(struct cluster *cl, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(cl[i].seen);
		free(cl[i].gdur);
		free(cl[i].gbytes);
		free(cl[i].gend);
	}
	free(cl);
}

/*
 * head[i] for iteration i (0-based): where the DP group of the
 * pipelines' stage 0 ended its burst at the boundary that starts it
 * (the latest, if stage 0 hosts are in several); NAN when unknown (no DP
 * group holds a stage 0, or it has no burst there).
 */
static double *
stage0_ends(const struct flowan_job *job, const struct cluster *cl, size_t ncl)
{
	double *head = xcalloc(job->niters + 1, sizeof *head);
	size_t i, g, p;

	for (i = 0; i < job->niters; i++) {
		head[i] = NAN;
		for (g = 0; g < job->ndp && i < ncl; g++)
			for (p = 0; p < job->npp; p++)
				if (job->pp[p].n >= 2 &&
				    in_group(&job->dp[g], job->pp[p].hosts[0]) &&
				    !(cl[i].gend[g] <= head[i]))
					head[i] = cl[i].gend[g];
	}
	return head;
}

static void
make_iterations(struct flowan_job *job, const struct cluster *cl, size_t n)
{
	size_t i;
	double *d;

	job->niters = n > 1 ? n - 1 : 0;
	job->iters = xcalloc(job->niters + 1, sizeof *job->iters);
	job->gcomm = xcalloc(job->niters * job->ndp + 1, sizeof *job->gcomm);
	job->gbytes = xcalloc(job->niters * job->ndp + 1,
	    sizeof *job->gbytes);
	for (i = 1; i < n; i++) {
		if (job->ndp > 0) {
			memcpy(job->gcomm + (i - 1) * job->ndp, cl[i].gdur,
			    job->ndp * sizeof *job->gcomm);
			memcpy(job->gbytes + (i - 1) * job->ndp, cl[i].gbytes,
			    job->ndp * sizeof *job->gbytes);
		}
		job->iters[i - 1].index = (int)i;
		job->iters[i - 1].start = cl[i - 1].first_end;
		job->iters[i - 1].end = cl[i].last_end;
		job->iters[i - 1].comm = job->ndp > 0 ? cl[i].comm : 0;
	}
	d = xcalloc(job->niters + 1, sizeof *d);
	for (i = 0; i < job->niters; i++)
		d[i] = job->iters[i].end - job->iters[i].start;
	job->period = stats_median(d, job->niters);
	free(d);
}

/*
 * The start of pair p's first significant message that starts after t,
 * INFINITY when none does (its messages are sorted by start).
 */
static double
first_after(const struct flow_set *s, const struct flowan_pair *p, double t)
{
	size_t lo = 0, hi = p->nsig, mid;

	if (p->msgs == NULL)
		return INFINITY;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->msgs[p->msgs[mid]].start > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < p->nsig ? s->msgs[p->msgs[lo]].start : INFINITY;
}

/*
 * Each iteration's end_max: the first significant message of any of the
 * job's pairs that starts after its end.  What happens between (the
 * optimizer step, collectives inside the hosts) leaves no trace, so the
 * step ended somewhere in [end, end_max].
 */
static void
end_bounds(const struct flowan *fa, struct flowan_job *job)
{
	size_t i, k;
	double t;

	for (k = 0; k < job->niters; k++)
		job->iters[k].end_max = INFINITY;
	for (i = 0; i < job->npairs; i++)
		for (k = 0; k < job->niters; k++)
			if ((t = first_after(fa->set, &job->pairs[i],
			    job->iters[k].end)) < job->iters[k].end_max)
				job->iters[k].end_max = t;
	for (k = 0; k < job->niters; k++)
		if (isinf(job->iters[k].end_max))
			job->iters[k].end_max = NAN;
}

/* Orient PP pair p: +1 when a is the earlier stage, -1 when b is. */
static int
pp_direction(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_pair *p)
{
	const struct flow_set *s = fa->set;
	size_t i, k = 0;
	int vote = 0;

	if (p->nsig == 0)
		return 0;
	for (i = 0; i < job->niters; i++) {
		double t = job->iters[i].start;

		while (k < p->nsig && s->msgs[p->msgs[k]].start < t)
			k++;
		if (k > 0)	/* the last one before: a gradient, backward */
			vote += s->msgs[p->msgs[k - 1]].dst == p->a ? 1 : -1;
		if (k < p->nsig)	/* the first one after: forward */
			vote += s->msgs[p->msgs[k]].src == p->a ? 1 : -1;
	}
	if (vote == 0)
		vote = s->msgs[p->msgs[0]].src == p->a ? 1 : -1;
	return vote > 0 ? 1 : -1;
}

/* Reorder each pipeline's hosts so that stage 0 comes first. */
static void
order_pipelines(const struct flowan *fa, struct flowan_job *job)
{
	size_t i, j, k;

	for (i = 0; i < job->npp; i++) {
		struct flowan_group *g = &job->pp[i];
		int *indeg = xcalloc(g->n, sizeof *indeg);
		uint32_t *out = xcalloc(g->n, sizeof *out);
		int **adj = xcalloc(g->n, sizeof *adj);
		size_t nout = 0;

		for (j = 0; j < g->n; j++)
			adj[j] = xcalloc(g->n, sizeof **adj);
		for (k = 0; k < job->npairs; k++) {
			const struct flowan_pair *p = &job->pairs[k];
			size_t ia = g->n, ib = g->n;

			if (p->type != FLOWAN_PP)
				continue;
			for (j = 0; j < g->n; j++) {
				if (g->hosts[j] == p->a) ia = j;
				if (g->hosts[j] == p->b) ib = j;
			}
			if (ia == g->n || ib == g->n)
				continue;
			if (pp_direction(fa, job, p) < 0) {
				j = ia; ia = ib; ib = j;
			}
			adj[ia][ib] = 1;
			indeg[ib]++;
		}
		while (nout < g->n) {	/* Kahn; cycles broken by index */
			for (j = 0; j < g->n && indeg[j] != 0; j++)
				;
			if (j == g->n)
				for (j = 0; indeg[j] < 0; j++)
					;
			indeg[j] = -1;
			out[nout++] = g->hosts[j];
			for (k = 0; k < g->n; k++)
				if (adj[j][k] && indeg[k] > 0)
					indeg[k]--;
		}
		memcpy(g->hosts, out, g->n * sizeof *out);
		for (j = 0; j < g->n; j++)
			free(adj[j]);
		free(adj);
		free(indeg);
		free(out);
	}
}

/*
 * Rank pipelines where hosts hold ranks of several stages.  A pipeline
 * of hosts is a chain when each host passes on what it got; when a host
 * holds ranks of two stages, pipelines that interleave over the hosts
 * make one component of PP pairs that is no chain.  The wire tells them
 * apart where a rank listens on a port of its own: the activations into
 * a rank and the gradients back into it reach the same port, so a hop
 * into host v continues as the hop out of v whose gradients come back to
 * a port that the first hop's activations reach.  Every path along
 * those links from a hop that continues none is a pipeline.
 */
struct hop {
	const struct flowan_pair *p;
	uint32_t from, to;	/* activations from -> to */
};

/* Whether sorted sets x[0..nx) and y[0..ny) share an element. */
static int
meet(const uint32_t *x, size_t nx, const uint32_t *y, size_t ny)
{
	size_t i = 0, j = 0;

	while (i < nx && j < ny) {
		if (x[i] == y[j])
			return 1;
		if (x[i] < y[j])
			i++;
		else
			j++;
	}
	return 0;
}

/* Whether hop b continues hop a (see struct hop). */
static int
continues(const struct hop *a, const struct hop *b)
{
	int ka = a->to == a->p->b, kb = b->from == b->p->b;

	return a->to == b->from && meet(a->p->end[ka], a->p->nend[ka],
	    b->p->end[kb], b->p->nend[kb]);
}

/* Append the paths from hop h (hosts so far in *path) as pipelines. */
static void
follow(const struct hop *hop, size_t nh, size_t h, uint32_t *path, size_t n,
    struct flowan_group **out, size_t *nout)
{
	size_t i, k;
	int more = 0;

	path[n++] = hop[h].to;
	for (i = 0; i < nh && n <= nh; i++)
		if (continues(&hop[h], &hop[i])) {
			more = 1;
			follow(hop, nh, i, path, n, out, nout);
		}
	if (more)
		return;
	for (k = 0; k < *nout; k++)	/* distinct host sequences */
		if ((*out)[k].n == n && memcmp((*out)[k].hosts, path,
		    n * sizeof *path) == 0)
			return;
	*out = xreallocarray(*out, *nout + 1, sizeof **out);
	(*out)[*nout].hosts = xcalloc(n, sizeof *path);
	memcpy((*out)[*nout].hosts, path, n * sizeof *path);
	(*out)[(*nout)++].n = n;
}

/*
 * The rank pipelines of pipeline group g (its hosts, PP pairs among
 * them), or 0 when its ports cannot tell them (QPs; no link found).
 */
static size_t
rank_pipelines(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_group *g, struct flowan_group **out)
{
	struct hop *hop = xcalloc(job->npairs + 1, sizeof *hop);
	uint32_t *path = xcalloc(job->npairs + 2, sizeof *path);
	size_t nh = 0, i, j, nout = 0, linked = 0;

	*out = NULL;
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type != FLOWAN_PP || !in_group(g, p->a) ||
		    !in_group(g, p->b) || p->end_qp)
			continue;
		hop[nh].p = p;
		hop[nh].from = pp_direction(fa, job, p) > 0 ? p->a : p->b;
		hop[nh].to = hop[nh].from == p->a ? p->b : p->a;
		nh++;
	}
	for (i = 0; i < nh; i++)
		for (j = 0; j < nh; j++)
			linked += continues(&hop[i], &hop[j]);
	for (i = 0; i < nh && linked > 0; i++) {
		for (j = 0; j < nh && !continues(&hop[j], &hop[i]); j++)
			;
		if (j < nh)
			continue;	/* not where a pipeline starts */
		path[0] = hop[i].from;
		follow(hop, nh, i, path, 1, out, &nout);
	}
	free(hop);
	free(path);
	return nout;
}

int
flowan_pp_chain(const struct flowan_job *job, const struct flowan_group *g)
{
	size_t k;

	for (k = 0; k < g->n; k++)
		if (pp_degree(job, g, g->hosts[k]) > 2)
			return 0;
	return 1;
}

/* Split each pipeline group that is no chain into its rank pipelines. */
static void
split_pipelines(const struct flowan *fa, struct flowan_job *job)
{
	struct flowan_group *all = NULL, *rp;
	size_t n = 0, i, k, nr;

	for (i = 0; i < job->npp; i++) {
		nr = flowan_pp_chain(job, &job->pp[i]) ? 0 :
		    rank_pipelines(fa, job, &job->pp[i], &rp);
		all = xreallocarray(all, n + (nr ? nr : 1), sizeof *all);
		if (nr == 0) {
			all[n++] = job->pp[i];
			continue;
		}
		for (k = 0; k < nr; k++)
			all[n++] = rp[k];
		free(rp);
		free(job->pp[i].hosts);
	}
	free(job->pp);
	job->pp = all;
	job->npp = n;
}

/* Whether host h has a pipeline pair: then its compute is read there. */
static int
has_pp(const struct flowan_job *job, uint32_t h)
{
	size_t i;

	for (i = 0; i < job->npairs; i++)
		if (job->pairs[i].type == FLOWAN_PP &&
		    (job->pairs[i].a == h || job->pairs[i].b == h))
			return 1;
	return 0;
}

/*
 * Host h's messages (indices shifted left by 2), by start; bit 0 marks
 * significant ones, bit 1 those whose idle time before counts as compute
 * when it has pipeline pairs: its pipeline sends (idle before a
 * collective is mostly waiting for the group).
 */
static size_t *
host_msgs(const struct flowan *fa, const struct flowan_job *job, uint32_t h,
    size_t *np)
{
	const struct flow_set *s = fa->set;
	int pp = has_pp(job, h);
	size_t *m = NULL, cap = 0, i, k, n = 0;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];
		int counts = !pp || p->type == FLOWAN_PP;

		if (p->all == NULL || (p->a != h && p->b != h))
			continue;
		for (k = 0; k < p->nall; k++) {
			const struct flow_msg *x = &s->msgs[p->all[k]];
			uint64_t sz = x->payload ? x->payload : x->bytes;
			int sig = p->msgs != NULL && sz >= p->sig_min;

			m = xgrow(m, &cap, n + 1, sizeof *m);
			m[n++] = p->all[k] << 2 | (size_t)(sig | (sig &&
			    counts && x->src == h) << 1);
		}
	}
	if (n > 1)
		ts_qsort(m, n, sizeof *m, cmp_size);
	*np = n;
	return m;
}

/*
 * When the host was last done with a message before m[i] starts: the
 * latest end, at or before that start, of the (up to IDLE_LOOKBACK)
 * messages before it; `last`, the latest end of all of them, when none
 * has ended.  A message still arriving when the host starts to send (the
 * next micro-batch's activations, say) is not what it waited for.
 */
#define IDLE_LOOKBACK	64
static double
done_before(const struct flow_set *s, const size_t *m, size_t i, double last)
{
	double at = s->msgs[m[i] >> 2].start, best = -INFINITY, e;
	size_t j;

	for (j = i; j > 0 && i - j < IDLE_LOOKBACK; j--) {
		e = s->msgs[m[j - 1] >> 2].end;
		if (e <= at && e > best)
			best = e;
	}
	return best > -INFINITY ? best : last;
}

/*
 * A middle stage's inputs: host h has pipeline peers on both sides, an
 * earlier stage's and a later one's (pp_direction()), so what it sends
 * to one side was computed from what the other side sent it.  The n-th
 * significant message to one side in an iteration is made from the
 * n-th significant one received from the other (activations forward,
 * gradients back), and work on it began when that input had arrived and
 * the host's previous send was done.  A host that holds ranks of
 * several pipelines has several peers a side; their messages, in time
 * order, pair the same way, since its ranks take turns.  Stages at the
 * ends have no such pairing and fall back to done_before().
 */
struct mid_stage {
	uint32_t *peer;		/* its pipeline peers */
	unsigned char *side;	/* per peer: 0 an earlier stage, 1 a later */
	size_t npeer;
	size_t sent[2];		/* significant sends to side j this iteration */
	double *got[2];		/* ends of significant messages from side j */
	size_t ngot[2], cap[2];
	double sent_end;	/* end of the host's last counted send */
};

/* Add peer o on `side` to ms. */
static void
mid_stage_peer(struct mid_stage *ms, uint32_t o, int side)
{
	ms->peer = xreallocarray(ms->peer, ms->npeer + 1, sizeof *ms->peer);
	ms->side = xreallocarray(ms->side, ms->npeer + 1, 1);
	ms->peer[ms->npeer] = o;
	ms->side[ms->npeer++] = (unsigned char)side;
}

/*
 * Fill ms with host h's pipeline peers.  Returns whether h is a middle
 * stage (peers on both sides).
 */
static int
mid_stage_init(const struct flowan *fa, const struct flowan_job *job,
    uint32_t h, struct mid_stage *ms)
{
	size_t i, n[2] = { 0, 0 };
	int side;

	memset(ms, 0, sizeof *ms);
	ms->sent_end = -INFINITY;
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type != FLOWAN_PP || (p->a != h && p->b != h))
			continue;
		side = (pp_direction(fa, job, p) > 0) == (p->a == h);
		mid_stage_peer(ms, p->a == h ? p->b : p->a, side);
		n[side]++;
	}
	return n[0] > 0 && n[1] > 0;
}

static void
mid_stage_free(struct mid_stage *ms)
{
	free(ms->peer);
	free(ms->side);
	free(ms->got[0]);
	free(ms->got[1]);
}

static void
mid_stage_reset(struct mid_stage *ms)
{
	ms->sent[0] = ms->sent[1] = ms->ngot[0] = ms->ngot[1] = 0;
}

/* The side of peer o (see struct mid_stage), or -1 when o is none. */
static int
mid_stage_side(const struct mid_stage *ms, uint32_t o)
{
	size_t i;

	for (i = 0; i < ms->npeer; i++)
		if (ms->peer[i] == o)
			return ms->side[i];
	return -1;
}

/* Record significant message x of the current iteration. */
static void
mid_stage_note(struct mid_stage *ms, const struct flow_msg *x, uint32_t h)
{
	int j = x->dst == h ? mid_stage_side(ms, x->src) : -1;

	if (j < 0)
		return;
	ms->got[j] = xgrow(ms->got[j], &ms->cap[j], ms->ngot[j] + 1,
	    sizeof *ms->got[j]);
	ms->got[j][ms->ngot[j]++] = x->end;
}

/*
 * When work on send x (from h) began: after its input from the other
 * side and the host's previous send; -INFINITY when x goes to no peer or
 * its input is not there (yet), so the caller falls back.
 */
static double
mid_stage_ready(struct mid_stage *ms, const struct flow_msg *x)
{
	int j = mid_stage_side(ms, x->dst);
	size_t n;
	double in;

	if (j < 0)
		return -INFINITY;
	n = ms->sent[j]++;
	if (n >= ms->ngot[!j] || (in = ms->got[!j][n]) > x->start)
		return -INFINITY;
	return fmax(in, ms->sent_end);
}

/*
 * comp[h * niters + k] and comm[...]: per host and iteration, the idle
 * time that ends in one of its significant sends (see host_msgs(); for a
 * middle stage, since its input arrived, see struct mid_stage; else since
 * it was last done with a message of any size, see done_before(): a
 * receiver's small ready notice ends the idle time of a sender that was
 * only waiting), and the time in significant messages (overlapping ones,
 * on several connections, once).  A host without
 * pipeline pairs computes until it enters the step's collective: its
 * first significant message of the step, either way (a ring sends a
 * member its first chunk once it is there too); what it idles inside
 * the collective is waiting for the ring.  steady[...]: comp without the
 * idle before a pipeline host's first send of each step, which for stage
 * 0 holds the end of the step before (collectives inside the hosts, the
 * optimizer): a slower step end is no slower GPU.
 */
/* What host_times() keeps of one host as it walks its messages. */
struct host_walk {
	uint32_t h;
	int mid, coll;		/* a middle stage; no pipeline pair */
	double last;		/* latest end of its messages so far */
	double busy;		/* ... of its significant ones */
	double counted;		/* end of the idle time counted last */
	size_t kin, kc, ks;	/* iterations: mid-stage state, ring entered,
				   an idle counted */
	struct mid_stage ms;
};

/*
 * When the idle time that message m[i] (in iteration k) ends began, if
 * it counts as compute; INFINITY when it does not.  A host without
 * pipeline pairs enters the step's collective with its first message of
 * the step, of any size either way (a ready notice, or the ring's first
 * chunk, sent once it is there too).
 */
static double
idle_from(const struct flow_set *s, const size_t *m, size_t i, size_t k,
    struct host_walk *w)
{
	const struct flow_msg *x = &s->msgs[m[i] >> 2];
	double done = INFINITY;

	if (w->coll) {
		if (w->kc == k)
			return INFINITY;	/* waiting for the ring */
		w->kc = k;
		return done_before(s, m, i, w->last);
	}
	if (!(m[i] & 1))
		return INFINITY;
	if (w->mid && w->kin != k) {
		mid_stage_reset(&w->ms);
		w->kin = k;
	}
	if (m[i] & 2) {
		done = w->mid ? mid_stage_ready(&w->ms, x) : -INFINITY;
		if (done == -INFINITY)
			done = done_before(s, m, i, w->last);
		if (w->mid)
			w->ms.sent_end = x->end;
	}
	if (w->mid)
		mid_stage_note(&w->ms, x, w->h);
	return done;
}

/*
 * Walk messages m[0..n) (see host_msgs()) of w->h, whose walk state is
 * set up, adding per iteration k its compute, communication and steady
 * compute to comp[k], comm[k] and steady[k] (see above).
 */
static void
walk_times(const struct flowan *fa, const struct flowan_job *job,
    struct host_walk *w, const size_t *m, size_t n, double *comp,
    double *comm, double *steady)
{
	const struct flow_set *s = fa->set;
	size_t i, k;
	double done;

	w->last = w->counted = w->busy = -INFINITY;
	w->kin = w->kc = w->ks = (size_t)-1;
	for (i = 0, k = 0; i < n; i++) {
		const struct flow_msg *x = &s->msgs[m[i] >> 2];

		while (k < job->niters && x->start >= job->iters[k].end)
			k++;
		if (k == job->niters)
			break;
		if (x->start >= job->iters[k].start) {
			if ((m[i] & 1) && x->end > w->busy) {
				comm[k] += x->end - fmax(x->start, w->busy);
				w->busy = x->end;
			}
			done = fmax(idle_from(s, m, i, k, w), w->counted);
			if (done > -INFINITY && x->start > done) {
				comp[k] += x->start - done;
				if (w->coll || w->ks == k)
					steady[k] += x->start - done;
				w->ks = k;
				w->counted = x->start;
			}
		}
		if (x->end > w->last)
			w->last = x->end;
	}
	mid_stage_free(&w->ms);
}

static void
host_times(const struct flowan *fa, const struct flowan_job *job,
    double *comp, double *comm, double *steady)
{
	size_t hi, n, *m, ni = job->niters;
	struct host_walk w;

	for (hi = 0; hi < job->nhosts; hi++) {
		memset(&w, 0, sizeof w);
		w.h = job->hosts[hi];
		w.mid = mid_stage_init(fa, job, w.h, &w.ms);
		w.coll = !has_pp(job, w.h);
		m = host_msgs(fa, job, w.h, &n);
		walk_times(fa, job, &w, m, n, comp + hi * ni, comm + hi * ni,
		    steady + hi * ni);
		free(m);
	}
}

/*
 * Rank endpoints.  Where rank pipelines interleave over hosts and the
 * wire tells their ranks apart (a rank's own port, see rank_pipelines()),
 * a host's compute mixes its ranks: the input of one, arriving while the
 * other computes, ends the idle time host_times() measures for both, so
 * a slow GPU there hardly shows.  A rank endpoint is the place of one
 * rank pipeline on a host: its stage, the ports its inputs reach (its
 * activations in and its gradients back reach the same one), and its
 * neighbours' endpoints, whose ports its outputs reach.  Its compute is
 * walked over those messages alone, as a middle stage's when it has two
 * neighbours.  A host is read by its endpoints only when it holds two
 * or more and their ports are apart; otherwise as a whole.
 */
struct rank_end {
	uint32_t host;
	size_t pipe, stage;
	const struct flowan_pair *hop[2];	/* to the stage before, after */
	size_t nb[2];		/* the neighbours' endpoints (SIZE_MAX: none) */
	uint32_t *port;		/* where its inputs arrive, sorted */
	size_t nport;
	int use;		/* its host is read by endpoints */
};

/* The pipeline pair of hosts x and y, or NULL. */
static const struct flowan_pair *
pp_pair(const struct flowan_job *job, uint32_t x, uint32_t y)
{
	size_t i;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type == FLOWAN_PP && ((p->a == x && p->b == y) ||
		    (p->a == y && p->b == x)))
			return p;
	}
	return NULL;
}

/*
 * Set e->port to the ports at e->host that its hops' messages reach
 * (both hops: the ports they share).  Returns how many.
 */
static size_t
end_ports(struct rank_end *e)
{
	size_t j, i, k, n = 0;

	for (j = 0; j < 2; j++) {
		const struct flowan_pair *p = e->hop[j];
		const uint32_t *v;
		size_t nv;

		if (p == NULL)
			continue;
		v = p->end[e->host == p->b];
		nv = p->nend[e->host == p->b];
		if (e->port == NULL) {
			e->port = xcalloc(nv + 1, sizeof *e->port);
			memcpy(e->port, v, nv * sizeof *v);
			n = nv;
			continue;
		}
		for (i = k = 0; i < n; i++)
			if (bsearch(&e->port[i], v, nv, sizeof *v, cmp_u32))
				e->port[k++] = e->port[i];
		n = k;
	}
	return e->nport = n;
}

/*
 * Mark the endpoints of hosts that hold two or more, all with ports of
 * their own, for use.
 */
static void
ends_usable(struct rank_end *e, size_t n)
{
	size_t i, j, cnt;
	int ok;

	for (i = 0; i < n; i++) {
		for (j = cnt = 0, ok = 1; j < n && ok; j++) {
			if (e[j].host != e[i].host)
				continue;
			cnt++;
			ok = e[j].nport > 0 && (j == i ||
			    !meet(e[i].port, e[i].nport, e[j].port,
			    e[j].nport));
		}
		e[i].use = ok && cnt >= 2;
	}
}

/* The rank endpoints of the job's pipelines (*n of them). */
static struct rank_end *
rank_ends(const struct flowan_job *job, size_t *n)
{
	struct rank_end *e = NULL;
	size_t g, i, first, k;

	*n = 0;
	for (g = 0; g < job->npp; g++) {
		const struct flowan_group *pp = &job->pp[g];

		first = *n;
		e = xreallocarray(e, *n + pp->n + 1, sizeof *e);
		for (i = 0; i < pp->n; i++) {
			struct rank_end *x = &e[(*n)++];

			memset(x, 0, sizeof *x);
			x->host = pp->hosts[i];
			x->pipe = g;
			x->stage = i;
			x->nb[0] = i > 0 ? *n - 2 : SIZE_MAX;
			x->nb[1] = i + 1 < pp->n ? *n : SIZE_MAX;
			x->hop[0] = i > 0 ? pp_pair(job, pp->hosts[i - 1],
			    x->host) : NULL;
			x->hop[1] = i + 1 < pp->n ? pp_pair(job, x->host,
			    pp->hosts[i + 1]) : NULL;
			if ((i > 0 && x->hop[0] == NULL) || (i + 1 < pp->n &&
			    x->hop[1] == NULL) || (x->hop[0] != NULL &&
			    x->hop[0]->end_qp) || (x->hop[1] != NULL &&
			    x->hop[1]->end_qp) || end_ports(x) == 0)
				break;
		}
		if (i < pp->n) {	/* not told apart: none of its ends */
			for (k = first; k < *n; k++)
				free(e[k].port);
			*n = first;
		}
	}
	ends_usable(e, *n);
	return e;
}

static void
rank_ends_free(struct rank_end *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(e[i].port);
	free(e);
}

/* Whether message x belongs to endpoint e (see struct rank_end). */
static int
end_msg(const struct rank_end *ends, const struct rank_end *e, int j,
    const struct flow_msg *x)
{
	const struct rank_end *o = &ends[e->nb[j]];
	uint32_t port = x->dport;

	if (x->dst == e->host)
		return bsearch(&port, e->port, e->nport, sizeof port,
		    cmp_u32) != NULL;
	return bsearch(&port, o->port, o->nport, sizeof port, cmp_u32) != NULL;
}

/* Endpoint e's messages, as host_msgs() gives a host's. */
static size_t *
end_msgs(const struct flowan *fa, const struct rank_end *ends,
    const struct rank_end *e, size_t *np)
{
	const struct flow_set *s = fa->set;
	size_t *m = NULL, cap = 0, k, n = 0;
	int j;

	for (j = 0; j < 2; j++) {
		const struct flowan_pair *p = e->hop[j];

		for (k = 0; p != NULL && k < p->nall; k++) {
			const struct flow_msg *x = &s->msgs[p->all[k]];
			uint64_t sz = x->payload ? x->payload : x->bytes;
			int sig = p->msgs != NULL && sz >= p->sig_min;

			if (!end_msg(ends, e, j, x))
				continue;
			m = xgrow(m, &cap, n + 1, sizeof *m);
			m[n++] = p->all[k] << 2 | (size_t)(sig | (sig &&
			    x->src == e->host) << 1);
		}
	}
	if (n > 1)
		ts_qsort(m, n, sizeof *m, cmp_size);
	*np = n;
	return m;
}

/*
 * comp, comm and steady ([i * niters + k]) of the usable endpoints
 * ends[i], as host_times() of hosts; rows of the others stay 0.
 */
static void
end_times(const struct flowan *fa, const struct flowan_job *job,
    const struct rank_end *ends, size_t ne, double *comp, double *comm,
    double *steady)
{
	size_t i, n, *m, ni = job->niters;
	struct host_walk w;

	for (i = 0; i < ne; i++) {
		const struct rank_end *e = &ends[i];

		if (!e->use)
			continue;
		memset(&w, 0, sizeof w);
		w.h = e->host;
		w.mid = e->hop[0] != NULL && e->hop[1] != NULL;
		w.ms.sent_end = -INFINITY;
		if (w.mid) {
			mid_stage_peer(&w.ms, ends[e->nb[0]].host, 0);
			mid_stage_peer(&w.ms, ends[e->nb[1]].host, 1);
		}
		m = end_msgs(fa, ends, e, &n);
		walk_times(fa, job, &w, m, n, comp + i * ni, comm + i * ni,
		    steady + i * ni);
		free(m);
	}
}

static struct flowan_finding *
add_finding(struct flowan_job *job, enum flowan_kind kind, char *subject,
    double magnitude)
{
	struct flowan_finding *f;

	job->findings = xreallocarray(job->findings, job->nfindings + 1,
	    sizeof *job->findings);
	f = &job->findings[job->nfindings++];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->subject = subject;
	f->magnitude = magnitude;
	return f;
}

static void
add_reason(struct flowan_finding *f, char *r)
{
	f->reasons = xreallocarray(f->reasons, f->nreasons + 1,
	    sizeof *f->reasons);
	f->reasons[f->nreasons++] = r;
}

/* The longest run of consecutive iterations in f; its start in f->from. */
static size_t
longest_run(struct flowan_finding *f)
{
	size_t i, run = 0, best = 0;

	for (i = 0; i < f->niters; i++) {
		run = i > 0 && f->iters[i] == f->iters[i - 1] + 1 ? run + 1 : 1;
		if (run > best) {
			best = run;
			f->from = f->iters[i + 1 - run];
		}
	}
	return best;
}

/* Drop the job's newest finding. */
static void
drop_newest(struct flowan_job *job)
{
	struct flowan_finding *f = &job->findings[--job->nfindings];
	size_t i;

	for (i = 0; i < f->nreasons; i++)
		free(f->reasons[i]);
	free(f->reasons);
	free(f->subject);
	free(f->iters);
}

/*
 * Keep `f`, the job's newest finding, only when it lasted three iterations
 * in a row; otherwise drop it.  Returns 1 when kept (NULL is never kept).
 */
static int
keep_lasting(struct flowan_job *job, struct flowan_finding *f)
{
	if (f == NULL)
		return 0;
	if (longest_run(f) >= 3)
		return 1;
	drop_newest(job);
	return 0;
}

static void
add_iter(struct flowan_finding *f, int index)
{
	f->iters = xreallocarray(f->iters, f->niters + 1, sizeof *f->iters);
	f->iters[f->niters++] = index;
}

/* Drop the job's finding i. */
static void
drop_finding(struct flowan_job *job, size_t i)
{
	struct flowan_finding f = job->findings[i];

	memmove(&job->findings[i], &job->findings[i + 1],
	    (job->nfindings - i - 1) * sizeof f);
	job->findings[job->nfindings - 1] = f;
	drop_newest(job);
}

/* The index of the job's finding of `kind` about `subject`, or -1. */
static long
finding_of(const struct flowan_job *job, enum flowan_kind kind,
    const char *subject)
{
	size_t i;

	for (i = 0; i < job->nfindings; i++)
		if (job->findings[i].kind == kind &&
		    strcmp(job->findings[i].subject, subject) == 0)
			return (long)i;
	return -1;
}

/* How many of f's iterations e has too. */
static size_t
shared_iters(const struct flowan_finding *f, const struct flowan_finding *e)
{
	size_t i, j, n = 0;

	for (i = 0; i < f->niters; i++)
		for (j = 0; j < e->niters; j++)
			n += f->iters[i] == e->iters[j];
	return n;
}

/* The median of the fastest half of the iterations: the healthy baseline. */
static double
baseline(const struct flowan_job *job, double *mad)
{
	size_t n = job->niters, i, h;
	double *d = xcalloc(n + 1, sizeof *d), med;

	for (i = 0; i < n; i++)
		d[i] = job->iters[i].end - job->iters[i].start;
	ts_qsort(d, n, sizeof *d, stats_cmp_double);
	h = n > 1 ? (n + 1) / 2 : n;
	med = stats_median(d, h);
	*mad = stats_mad(d, h);
	free(d);
	return med;
}

/*
 * Bytes the job's hosts send out of the job (to storage, mostly) during
 * each iteration, by the start of the message: out[i] for iteration i.
 */
static void
bytes_out(const struct flowan *fa, const struct flowan_job *job,
    double *out)
{
	const struct flow_set *s = fa->set;
	unsigned char *in = xcalloc(s->nhosts + 1, 1);
	size_t i, lo, hi, mid;

	for (i = 0; i < job->nhosts; i++)
		in[job->hosts[i]] = 1;
	for (i = 0; i < s->nmsgs; i++) {
		const struct flow_msg *m = &s->msgs[i];

		if (!in[m->src] || in[m->dst])
			continue;
		for (lo = 0, hi = job->niters; lo < hi; ) {
			mid = (lo + hi) / 2;
			if (job->iters[mid].start <= m->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0 && m->start < job->iters[lo - 1].end)
			out[lo - 1] += (double)(m->payload > m->bytes ?
			    m->payload : m->bytes);
	}
	free(in);
}

/*
 * Checkpoint saves among the slow iterations (slow[i] set): the pause of
 * a save is the job's own doing, not a fault.  An iteration is one when
 * the job writes out of itself in it (to storage) ten times what it does
 * in a usual iteration, and at least 1 MB; without such writes (a save to
 * local disk), when the slow iterations are three or more at a fixed
 * cadence and nothing else is slow.  Marks them in iters[].ckpt and
 * clears them from slow[].
 */
static void
checkpoints(const struct flowan *fa, struct flowan_job *job,
    unsigned char *slow)
{
	size_t n = job->niters, i, nslow = 0, nw = 0, prev = 0;
	double *out = xcalloc(n + 1, sizeof *out);
	double *v = xcalloc(n + 1, sizeof *v), usual, thr;
	long gap = 0;
	int cadence = 1;

	bytes_out(fa, job, out);
	memcpy(v, out, n * sizeof *v);
	ts_qsort(v, n, sizeof *v, stats_cmp_double);
	usual = stats_median(v, n);
	thr = 10 * usual > 1e6 ? 10 * usual : 1e6;
	for (i = 0; i < n; i++) {
		if (!slow[i])
			continue;
		if (out[i] >= thr) {
			job->iters[i].ckpt = FLOWAN_CKPT_WRITES;
			v[nw++] = out[i];
			slow[i] = 0;
			continue;
		}
		if (nslow > 0 && gap == 0)
			gap = job->iters[i].index - job->iters[prev].index;
		else if (nslow > 0 &&
		    job->iters[i].index - job->iters[prev].index != gap)
			cadence = 0;
		prev = i;
		nslow++;
	}
	if (nw > 0) {
		ts_qsort(v, nw, sizeof *v, stats_cmp_double);
		job->ckpt_bytes = stats_median(v, nw);
	}
	if (nslow >= 3 && cadence && gap >= 2)
		for (i = 0; i < n; i++)
			if (slow[i]) {
				job->iters[i].ckpt = FLOWAN_CKPT_CADENCE;
				slow[i] = 0;
			}
	free(out);
	free(v);
}

static void
slow_iterations(const struct flowan *fa, struct flowan_job *job)
{
	double mad, base = baseline(job, &mad), worst = 0, scale;
	struct flowan_finding *f = NULL;
	unsigned char *slow;
	size_t i;

	if (job->niters < 3 || !(base > 0))
		return;
	scale = mad > 0.02 * base ? mad : 0.02 * base;
	slow = xcalloc(job->niters, 1);
	for (i = 0; i < job->niters; i++) {
		double d = job->iters[i].end - job->iters[i].start;

		slow[i] = (d - base) / scale > 3.5 && d >= 1.5 * base;
	}
	checkpoints(fa, job, slow);
	for (i = 0; i < job->niters; i++) {
		double d = job->iters[i].end - job->iters[i].start;

		if (!slow[i])
			continue;
		if (f == NULL)
			f = add_finding(job, FLOWAN_SLOW_ITERATION,
			    xstrdup("job"), 0);
		add_iter(f, job->iters[i].index);
		if (d / base > worst)
			worst = d / base;
	}
	free(slow);
	if (f == NULL)
		return;
	f->magnitude = worst;
	longest_run(f);
	add_reason(f, xasprintf("%zu of %zu iterations take >= 1.5x the "
	    "baseline of %.1f ms (median of the fastest half, robust z > 3.5)",
	    f->niters, job->niters, base * 1e3));
	add_reason(f, xasprintf("the slowest takes %.2fx the baseline", worst));
}

/*
 * A host's sustained compute at iteration k: the median of iterations
 * k..k+2, so that neither a peer that waits now and then nor a message
 * that hides an idle gap makes one iteration count.
 */
static double
level(const double *v, size_t n, size_t k)
{
	double w[3];
	size_t i;

	for (i = 0; i < 3 && k + i < n; i++)
		w[i] = v[k + i];
	return stats_median(w, i);
}

/*
 * Straggler: a host whose sustained compute exceeds its DP peers' median
 * by STRAG_RATIO, by a floor and by four robust standard deviations of
 * the peers, in >= 3 consecutive steps.  A GPU 30 % slower than its peers
 * is worth naming; a stage's compute (forward and backward of every
 * micro-batch; stage 0 shows only its forward) is a fraction of the
 * step, so the floor is not a share of the step but the noise of the
 * group: four times the spread of its members' compute against their
 * peers from one step to the next (excess_noise()), and at least
 * STRAG_FLOOR of the step.  The ratio is taken of the group's usual
 * compute when the peers' is higher: a pause that idles the whole group
 * (a checkpoint save) adds the same time to every member and would
 * otherwise hide a straggler in that step and break its run.
 */
#define STRAG_RATIO	1.25
#define STRAG_FLOOR	0.01

/*
 * Whether compute `own` is a straggler's against peers' median and MAD,
 * the group's usual compute `usual` and the floor (seconds).
 */
static int
slower(double own, double pm, double mad, double usual, double floor)
{
	return own - pm > (STRAG_RATIO - 1) * fmin(pm, usual) &&
	    own - pm > floor && own - pm > 4 * mad;
}

/* The index in job->hosts of host h (which is one of them). */
static size_t
host_slot(const struct flowan_job *job, uint32_t h)
{
	size_t i = 0;

	while (job->hosts[i] != h)
		i++;
	return i;
}
/*
 * The median over the peers of member j (all of group members but j) of
 * v[i * ni + k]: a level when v holds levels, a compute when v holds
 * computes; their MAD in *mad.  NAN values (hosts not judged in that
 * iteration) are left out.
 */
static double
peers_median(const double *v, size_t n, size_t ni, size_t j, size_t k,
    double *peer, double *mad)
{
	size_t i, np = 0;

	for (i = 0; i < n; i++)
		if (i != j && !isnan(v[i * ni + k]))
			peer[np++] = v[i * ni + k];
	*mad = stats_mad(peer, np);
	return stats_median(peer, np);
}

/*
 * How much a member's compute moves against its peers' median from one
 * step to the next, in a group of n members whose computes are cv[i *
 * ni + k]: per member, the robust standard deviation of the changes of
 * that excess, over sqrt(2) (a change is a difference of two noisy
 * values); the median over the members.  A straggler's onset is one
 * change among many, and a pause that idles the whole group moves no
 * excess.  0 when there is too little to tell.
 */
static double
excess_noise(const double *cv, size_t n, size_t ni, double *peer)
{
	double *d = xcalloc(ni + 1, sizeof *d), *sig = xcalloc(n + 1, sizeof *sig);
	double prev, e, pm, unused, r;
	size_t i, k, nd, ns = 0;

	for (i = 0; i < n; i++) {
		prev = NAN;
		for (k = nd = 0; k < ni; k++) {
			pm = peers_median(cv, n, ni, i, k, peer, &unused);
			e = cv[i * ni + k] - pm;
			if (!isnan(e) && !isnan(prev))
				d[nd++] = e - prev;
			prev = e;
		}
		if (nd >= 3)
			sig[ns++] = stats_mad(d, nd) / M_SQRT2;
	}
	r = ns ? stats_median(sig, ns) : 0;
	free(d);
	free(sig);
	return r;
}

/*
 * The stragglers of DP group g (see slower()).  skip[host slot * niters
 * + k] marks computes that cannot be read in iteration k (a slow NIC
 * stretches the messages they are measured between): those hosts are
 * neither judged nor peers then.
 */
static void
group_stragglers(const struct flowan *fa, struct flowan_job *job, size_t g,
    const double *comp, const unsigned char *skip, double base)
{
	const struct flowan_group *grp = &job->dp[g];
	size_t n = grp->n, ni = job->niters, i, j, k, nex;
	double *lv = xcalloc(n * ni + 1, sizeof *lv);
	double *cv = xcalloc(n * ni + 1, sizeof *cv);
	double *peer = xcalloc(n + 1, sizeof *peer);
	double *ex = xcalloc(ni + 1, sizeof *ex), pm, mad, unused, usual;
	double floor;

	for (i = 0; i < n; i++) {	/* members' levels and computes */
		const double *c = comp + host_slot(job, grp->hosts[i]) * ni;

		for (k = 0; k < ni; k++) {
			lv[i * ni + k] = level(c, ni, k);
			cv[i * ni + k] = c[k];
		}
	}
	usual = stats_median(cv, n * ni);
	for (i = 0; i < n; i++)
		for (k = 0; k < ni; k++)
			if (skip[host_slot(job, grp->hosts[i]) * ni + k])
				lv[i * ni + k] = cv[i * ni + k] = NAN;
	floor = fmax(STRAG_FLOOR * base, 4 * excess_noise(cv, n, ni, peer));
	for (j = 0; j < n; j++) {
		struct flowan_finding *f = NULL;

		for (k = nex = 0; k < ni; k++) {
			pm = peers_median(lv, n, ni, j, k, peer, &mad);
			if (!slower(lv[j * ni + k], pm, mad, usual, floor) ||
			    !slower(cv[j * ni + k], peers_median(cv, n, ni, j,
			    k, peer, &unused), 0, usual, floor))
				continue;
			if (f == NULL)
				f = add_finding(job, FLOWAN_STRAGGLER,
				    xstrdup(flowan_host_name(fa,
				    grp->hosts[j])), 0);
			add_iter(f, job->iters[k].index);
			ex[nex++] = lv[j * ni + k] - pm;
		}
		if (keep_lasting(job, f)) {
			f->magnitude = stats_median(ex, nex);
			add_reason(f, xasprintf("computes %.1f ms longer than "
			    "its DP peers (median over %zu of %zu iterations, "
			    "steadily from iteration %d)", f->magnitude * 1e3,
			    f->niters, ni, f->from));
			add_reason(f, xasprintf("its DP group waits: peers' "
			    "idle time before their sends is shorter while the "
			    "iteration grows"));
		}
	}
	free(lv);
	free(cv);
	free(peer);
	free(ex);
}

/*
 * The median of the sorted row[0..n) without one element equal to x (the
 * pair's own rate), or NAN when nothing is left.
 */
static double
median_without(const double *row, size_t n, double x)
{
	size_t p = 0, m, q0, q1;

	if (n < 2)
		return NAN;
	while (p < n && row[p] != x)
		p++;
	m = n - 1;			/* elements left, indices q -> q + (q >= p) */
	q0 = (m - 1) / 2;
	q1 = m / 2;
	q0 += q0 >= p;
	q1 += q1 >= p;
	return (row[q0] + row[q1]) / 2;
}

/*
 * Whether DP group g runs one stage: it holds no pair split into DP and
 * pipeline traffic (a stage straddling hosts joins the DP rings of two
 * stages into one component, whose members then compute different
 * stages and compare with nobody).
 */
static int
one_stage(const struct flowan_job *job, const struct flowan_group *g)
{
	size_t i;

	for (i = 0; i < job->npairs; i++)
		if (job->pairs[i].split && in_group(g, job->pairs[i].a) &&
		    in_group(g, job->pairs[i].b))
			return 0;
	return 1;
}

/* Whether host h is in one of the job's DP groups of one stage. */
static int
in_dp(const struct flowan_job *job, uint32_t h)
{
	size_t g;

	for (g = 0; g < job->ndp; g++)
		if (in_group(&job->dp[g], h) && one_stage(job, &job->dp[g]))
			return 1;
	return 0;
}

/*
 * What history_stragglers() judges: rows of steady compute ([r * niters
 * + k]), each a whole host or one of its rank endpoints, with the
 * iterations where it cannot be read (skip) and its host.
 */
struct rows {
	size_t n;
	double *comp;
	unsigned char *skip;
	uint32_t *host;
	const struct rank_end **end;	/* NULL: the whole host */
};

/*
 * The rows of the job: each host read as a whole by `steady` (one row a
 * host slot), or by its usable endpoints ends[i] (esteady).
 */
/* Append a row of host h (endpoint e, or NULL: all of it). */
static void
rows_add(struct rows *r, size_t ni, uint32_t h, const struct rank_end *e,
    const double *comp, const unsigned char *skip)
{
	r->host[r->n] = h;
	r->end[r->n] = e;
	memcpy(r->comp + r->n * ni, comp, ni * sizeof *comp);
	memcpy(r->skip + r->n * ni, skip, ni);
	r->n++;
}

static void
rows_make(const struct flowan_job *job, const double *steady,
    const unsigned char *skip, const struct rank_end *ends, size_t ne,
    const double *esteady, struct rows *r)
{
	size_t ni = job->niters, cap = job->nhosts + ne + 1, h, i, n;

	r->n = 0;
	r->comp = xcalloc(cap * ni + 1, sizeof *r->comp);
	r->skip = xcalloc(cap * ni + 1, 1);
	r->host = xcalloc(cap, sizeof *r->host);
	r->end = xcalloc(cap, sizeof *r->end);
	for (h = 0; h < job->nhosts; h++) {
		for (i = n = 0; i < ne; i++)
			if (ends[i].use && ends[i].host == job->hosts[h]) {
				rows_add(r, ni, job->hosts[h], &ends[i],
				    esteady + i * ni, skip + h * ni);
				n++;
			}
		if (n == 0)
			rows_add(r, ni, job->hosts[h], NULL, steady + h * ni,
			    skip + h * ni);
	}
}

static void
rows_free(struct rows *r)
{
	free(r->comp);
	free(r->skip);
	free(r->host);
	free(r->end);
}

/*
 * x[r * ni + k] := row r's compute in step k over its usual one before
 * (in usual[r * ni + k]: the median of the fastest half of its last
 * HIST_STEPS steps, NAN with fewer than 3), less the median of the other
 * rows' at step k; NAN where skipped or without a history.
 */
#define HIST_STEPS	32
static void
history_excess(const struct flowan_job *job, const struct rows *r, double *x,
    double *usual)
{
	size_t nh = r->n, ni = job->niters, h, k, j, n;
	const double *comp = r->comp;
	const unsigned char *skip = r->skip;
	double *v = xcalloc(nh + ni + 1, sizeof *v), pm;

	for (h = 0; h < nh; h++)
		for (k = 0; k < ni; k++) {
			for (j = k > HIST_STEPS ? k - HIST_STEPS : 0, n = 0;
			    j < k; j++)
				if (!skip[h * ni + j])
					v[n++] = comp[h * ni + j];
			ts_qsort(v, n, sizeof *v, stats_cmp_double);
			usual[h * ni + k] = n >= 3 ?
			    stats_median(v, (n + 1) / 2) : NAN;
			x[h * ni + k] = skip[h * ni + k] ? NAN :
			    comp[h * ni + k] - usual[h * ni + k];
		}
	for (k = 0; k < ni; k++) {
		for (h = n = 0; h < nh; h++)
			if (!isnan(x[h * ni + k]))
				v[n++] = x[h * ni + k];
		ts_qsort(v, n, sizeof *v, stats_cmp_double);
		for (h = 0; h < nh; h++)
			if (!isnan(x[h * ni + k]) && isfinite(pm =
			    median_without(v, n, x[h * ni + k])))
				x[h * ni + k] -= pm;
			else
				x[h * ni + k] = NAN;
	}
	free(v);
}

/* Whether host h is in one of the job's DP groups. */
static int
in_any_dp(const struct flowan_job *job, uint32_t h)
{
	size_t g;

	for (g = 0; g < job->ndp; g++)
		if (in_group(&job->dp[g], h))
			return 1;
	return 0;
}

/* Whether the job has a finding of `kind` about `subject` already. */
static int
has_finding(const struct flowan_job *job, enum flowan_kind kind,
    const char *subject)
{
	size_t i;

	for (i = 0; i < job->nfindings; i++)
		if (job->findings[i].kind == kind &&
		    strcmp(job->findings[i].subject, subject) == 0)
			return 1;
	return 0;
}

/* The reasons of a straggler found by history_stragglers() in row e. */
static void
history_reasons(struct flowan_finding *f, const struct rank_end *e, int dp,
    double usual, size_t ni)
{
	char *who = e == NULL ? xstrdup("") : xasprintf("its rank at port%s "
	    "%u%s (stage %zu of pipeline %zu) ", e->nport > 1 ? "s" : "",
	    e->port[0], e->nport > 1 ? " and more" : "", e->stage,
	    e->pipe + 1);

	add_reason(f, xasprintf("%scomputes %.1f ms longer than %s usual "
	    "%.1f ms before iteration %d (median over %zu of %zu "
	    "iterations) while the other %s compute stays", who,
	    f->magnitude * 1e3, e == NULL ? "its" : "the rank's", usual * 1e3,
	    f->from, f->niters, ni, e == NULL ? "hosts'" : "ranks'"));
	if (e == NULL && !dp)
		add_reason(f, xasprintf("it has no DP peers on the wire to "
		    "compare with: its stage's other ranks, if any, are "
		    "inside its host"));
	else if (e == NULL)
		add_reason(f, xasprintf("its DP group joins the rings of "
		    "several stages (hosts that hold ranks of two), whose "
		    "members compute different stages: none to compare with"));
	else
		add_reason(f, xasprintf("the host holds ranks of several "
		    "pipelines, whose computes mix in its own; each rank's is "
		    "read from the messages that reach its port and its "
		    "neighbours' ports"));
	free(who);
}

/*
 * A host without DP peers on the wire (a pure pipeline, or DP rings
 * inside the hosts) has nobody running its stage to be compared with;
 * a GPU that slows down part-way is seen against its own earlier steps.
 * So is a rank endpoint (see struct rank_end), whose DP peers the wire
 * does not name.  Its extra compute over its usual before
 * (history_excess(): less the other rows' at the same step, since a
 * pause that idles the job adds to all alike) must exceed STRAG_RATIO -
 * 1 of that usual compute and the floor (as in slower(), the noise from
 * the rows' step-to-step changes), sustained (the median of three
 * steps) and in the step itself, in >= 3 consecutive steps.  A row slow
 * from the capture's start shows nothing.  One finding a host.
 */
static void
history_stragglers(const struct flowan *fa, struct flowan_job *job,
    const struct rows *r, double base)
{
	size_t nh = r->n, ni = job->niters, h, k, nd, ns, nex;
	double *x = xcalloc(nh * ni + 1, sizeof *x), lv, floor;
	double *usual = xcalloc(nh * ni + 1, sizeof *usual);
	double *d = xcalloc(ni + 1, sizeof *d), *sig = xcalloc(nh + 1, sizeof *sig);

	history_excess(job, r, x, usual);
	for (h = ns = 0; h < nh; h++) {
		for (k = 1, nd = 0; k < ni; k++)
			if (!isnan(x[h * ni + k]) && !isnan(x[h * ni + k - 1]))
				d[nd++] = x[h * ni + k] - x[h * ni + k - 1];
		if (nd >= 3)
			sig[ns++] = stats_mad(d, nd) / M_SQRT2;
	}
	floor = fmax(STRAG_FLOOR * base, 4 * (ns ? stats_median(sig, ns) : 0));
	for (h = 0; h < nh; h++) {
		struct flowan_finding *f = NULL;
		const double *xh = x + h * ni;
		const char *name = flowan_host_name(fa, r->host[h]);
		double u = NAN;

		if ((r->end[h] == NULL && in_dp(job, r->host[h])) ||
		    has_finding(job, FLOWAN_STRAGGLER, name))
			continue;
		for (k = nex = 0; k < ni; k++) {
			double lim = fmax((STRAG_RATIO - 1) *
			    usual[h * ni + k], floor);

			if (isnan(xh[k]) || (k + 1 < ni && isnan(xh[k + 1])) ||
			    (k + 2 < ni && isnan(xh[k + 2])))
				continue;
			lv = level(xh, ni, k);
			if (!(lv > lim && xh[k] > lim))
				continue;
			if (f == NULL) {
				f = add_finding(job, FLOWAN_STRAGGLER,
				    xstrdup(name), 0);
				u = usual[h * ni + k];
			}
			add_iter(f, job->iters[k].index);
			d[nex++] = lv;
		}
		if (keep_lasting(job, f)) {
			f->magnitude = stats_median(d, nex);
			history_reasons(f, r->end[h], in_any_dp(job,
			    r->host[h]), u, ni);
		}
	}
	free(x);
	free(usual);
	free(d);
	free(sig);
}

/*
 * Stragglers: by DP group where a group runs one stage, else against
 * their own history, hosts or, where they hold ranks of several
 * pipelines the wire tells apart, their rank endpoints (ends[0..ne),
 * esteady their steady computes).
 */
static void
stragglers(const struct flowan *fa, struct flowan_job *job, const double *comp,
    const double *steady, const unsigned char *skip,
    const struct rank_end *ends, size_t ne, const double *esteady)
{
	double mad, base = baseline(job, &mad);
	struct rows r;
	size_t g;

	for (g = 0; g < job->ndp; g++)
		if (one_stage(job, &job->dp[g]))
			group_stragglers(fa, job, g, comp, skip, base);
	rows_make(job, steady, skip, ends, ne, esteady, &r);
	history_stragglers(fa, job, &r, base);
	rows_free(&r);
}

/* Whether finding f (a slow NIC or a slow link) holds host h up. */
static int
slows_host(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_finding *f, uint32_t h)
{
	const char *name = flowan_host_name(fa, h);
	size_t n = strlen(name), p;

	if (f->kind == FLOWAN_SLOW_LINK)	/* "a-b": either end */
		return (strncmp(f->subject, name, n) == 0 &&
		    f->subject[n] == '-') || (strlen(f->subject) > n &&
		    strcmp(f->subject + strlen(f->subject) - n, name) == 0 &&
		    f->subject[strlen(f->subject) - n - 1] == '-');
	if (f->kind != FLOWAN_SLOW_NIC)
		return 0;
	if (strcmp(f->subject, name) == 0)
		return 1;
	for (p = 0; p < job->npairs; p++) {	/* or a pipeline neighbour */
		const struct flowan_pair *q = &job->pairs[p];
		uint32_t o = q->a == h ? q->b : q->b == h ? q->a : UINT32_MAX;

		if (q->type == FLOWAN_PP && o != UINT32_MAX &&
		    strcmp(f->subject, flowan_host_name(fa, o)) == 0)
			return 1;
	}
	return 0;
}

/*
 * skip[host slot * niters + k] (see group_stragglers()): the slow NICs
 * of the job's findings and their pipeline neighbours, and both ends of
 * its slow links, in the iterations of those findings: their messages
 * stretch, so their computes cannot be read.
 */
static unsigned char *
slow_skip(const struct flowan *fa, const struct flowan_job *job)
{
	size_t ni = job->niters, i, k, h;
	unsigned char *skip = xcalloc(job->nhosts * ni + 1, 1);

	for (i = 0; i < job->nfindings; i++) {
		const struct flowan_finding *f = &job->findings[i];

		for (h = 0; h < job->nhosts; h++) {
			if (!slows_host(fa, job, f, job->hosts[h]))
				continue;
			for (k = 0; k < f->niters; k++)
				if (f->iters[k] >= 1 && (size_t)f->iters[k] <= ni)
					skip[h * ni + (size_t)f->iters[k] - 1] = 1;
		}
	}
	return skip;
}

/*
 * The bytes group g's DP pairs move in a step: their significant bytes
 * within the job's iterations over the number of iterations.
 */
static double
step_bytes(const struct flowan *fa, const struct flowan_job *job, size_t g)
{
	const struct flowan_group *grp = &job->dp[g];
	double t0 = job->iters[0].start, t1 = job->iters[job->niters - 1].end;
	double bytes = 0;
	size_t i, k;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		if (p->type != FLOWAN_DP || p->msgs == NULL ||
		    !in_group(grp, p->a) || !in_group(grp, p->b))
			continue;
		for (k = 0; k < p->nsig; k++) {
			const struct flow_msg *x = &fa->set->msgs[p->msgs[k]];

			if (x->start >= t0 && x->start < t1)
				bytes += msg_bytes(x);
		}
	}
	return bytes / (double)job->niters;
}

/*
 * byg[g * niters + k]: group g's step-end burst in step k, seconds; NAN
 * where the burst moved under half the group's step bytes: a fragment
 * of its collective (the rest ran on in another burst), whose length
 * says nothing of the step's.
 */
static double *
group_bursts_by_step(const struct flowan *fa, const struct flowan_job *job)
{
	size_t ng = job->ndp, ni = job->niters, g, k;
	double *byg = xcalloc(ng * ni + 1, sizeof *byg), sb;

	for (g = 0; g < ng; g++) {
		sb = step_bytes(fa, job, g);
		for (k = 0; k < ni; k++)
			byg[g * ni + k] = job->gbytes[k * ng + g] >= 0.5 * sb ?
			    job->gcomm[k * ng + g] : NAN;
	}
	return byg;
}

/*
 * Whether finding e (a slow link or NIC) lies in DP group grp: both ends
 * of the link, or the NIC's host.
 */
static int
in_group_finding(const struct flowan *fa, const struct flowan_group *grp,
    const struct flowan_finding *e)
{
	size_t i, n = 0, len;
	const char *name;

	if (e->kind != FLOWAN_SLOW_LINK && e->kind != FLOWAN_SLOW_NIC)
		return 0;
	for (i = 0; i < grp->n; i++) {
		name = flowan_host_name(fa, grp->hosts[i]);
		len = strlen(name);
		if (e->kind == FLOWAN_SLOW_NIC)
			n += strcmp(e->subject, name) == 0 ? 2 : 0;
		else
			n += (strncmp(e->subject, name, len) == 0 &&
			    e->subject[len] == '-') ||
			    (strlen(e->subject) > len && strcmp(e->subject +
			    strlen(e->subject) - len, name) == 0 &&
			    e->subject[strlen(e->subject) - len - 1] == '-');
	}
	return n >= 2;
}

/*
 * Slow group f, the job's newest finding, about DP group grp: a slow
 * link or NIC inside the group over half of its iterations or more is
 * why its collective drags; the group's slowdown is said there and f is
 * dropped.  One fault, one finding.
 */
static void
group_explained(const struct flowan *fa, struct flowan_job *job,
    const struct flowan_group *grp)
{
	struct flowan_finding *f = &job->findings[job->nfindings - 1], *e;
	size_t i;

	for (i = 0; i + 1 < job->nfindings; i++) {
		e = &job->findings[i];
		if (!in_group_finding(fa, grp, e) ||
		    2 * shared_iters(f, e) < f->niters)
			continue;
		add_reason(e, xasprintf("its DP group's step-end collective "
		    "lasts %.1fx as long as the other groups' (%s, median "
		    "over %zu iterations)", f->magnitude, f->subject,
		    f->niters));
		drop_newest(job);
		return;
	}
}

/*
 * Slow group: a DP group whose step-end burst lasts >= 2x the median of
 * the other groups' bursts in the same step (and >= 5 % of the baseline
 * iteration longer, and more than four times the groups' step-to-step
 * noise, see excess_noise()), in >= 3 consecutive steps.  Bursts are
 * compared only when each holds its step's collective (see
 * group_bursts_by_step()); a slow link or NIC inside the group takes its
 * slowdown as a reason (group_explained()).
 */
static void
slow_groups(const struct flowan *fa, struct flowan_job *job)
{
	double mad, base = baseline(job, &mad);
	double *v = xcalloc(job->ndp + 1, sizeof *v);
	double *ex = xcalloc(job->niters + 1, sizeof *ex), noise;
	double *byg;
	size_t g, k, o, n, nex, ni = job->niters;

	if (job->ndp < 2 || ni == 0) {
		free(v);
		free(ex);
		return;
	}
	byg = group_bursts_by_step(fa, job);
	noise = excess_noise(byg, job->ndp, ni, v);
	for (g = 0; g < job->ndp; g++) {
		struct flowan_finding *f = NULL;

		for (k = nex = 0; k < ni; k++) {
			double own = byg[g * ni + k], pm;

			for (o = n = 0; o < job->ndp; o++)
				if (o != g && isfinite(byg[o * ni + k]))
					v[n++] = byg[o * ni + k];
			if (n == 0 || !isfinite(own) || !(own >=
			    2 * (pm = stats_median(v, n)) &&
			    own - pm >= 0.05 * base && own - pm > 4 * noise))
				continue;
			if (f == NULL)
				f = add_finding(job, FLOWAN_SLOW_GROUP,
				    xasprintf("dp group %zu", g + 1), 0);
			add_iter(f, job->iters[k].index);
			ex[nex++] = own / pm;
		}
		if (keep_lasting(job, f)) {
			f->magnitude = stats_median(ex, nex);
			add_reason(f, xasprintf("its step-end collective lasts "
			    "%.1fx as long as the other groups' (median over "
			    "%zu iterations, steadily from iteration %d)",
			    f->magnitude, f->niters, f->from));
			group_explained(fa, job, &job->dp[g]);
		}
	}
	free(v);
	free(ex);
	free(byg);
}

/*
 * rate[i * niters + k]: how fast pair i's link moves its bytes in
 * iteration k: the bytes of its transfers of >= 16 KiB that start in it
 * over the time they take (NAN without one that lasts).  A transfer is a
 * message or a paced train (flowan_paced(): a rate limiter lets a
 * transfer through in pieces, each as fast as a healthy message; only
 * the train shows the link's rate).  Not only its significant messages:
 * a slow link merges a pair's transfers into a few long messages, which
 * raise the size it calls significant, and its healthy steps would be
 * measured on fewer, longer messages than the other pairs'.  Bytes over
 * time summed, not a median of rates: a pair whose one way is throttled
 * and whose other way, held by it, sends in short bursts takes the
 * throttled way's time.  The span of all its messages would not do: in a
 * ring every link works through every step, so a slow one stretches all
 * spans alike.
 */
#define RATE_MIN	16384
static double *
pair_rates(const struct flowan *fa, const struct flowan_job *job,
    unsigned char **paced)
{
	size_t ni = job->niters, i, k, j, n;
	double *rate = xcalloc(job->npairs * ni + 1, sizeof *rate), b, t;
	struct flowan_span *sp;

	*paced = xcalloc(job->npairs * ni + 1, 1);
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		n = p->msgs != NULL ? flowan_paced(fa->set, p->all, p->nall,
		    1024, p->gap, &sp) : 0;
		for (k = 0, j = 0; k < ni; k++) {
			for (b = t = 0; j < n && sp[j].start < job->iters[k].end;
			    j++)
				if (sp[j].start >= job->iters[k].start &&
				    sp[j].end > sp[j].start &&
				    sp[j].bytes >= RATE_MIN) {
					b += sp[j].bytes;
					t += sp[j].end - sp[j].start;
					(*paced)[i * ni + k] |= sp[j].n > 1;
				}
			rate[i * ni + k] = t > 0 ? b / t : NAN;
		}
		if (p->msgs != NULL)
			free(sp);
	}
	return rate;
}

/*
 * sorted[k * npairs ...]: per iteration, the finite rates of the pairs of `type`
 * in ascending order, their count in cnt[k].
 */
static double *
rates_sorted(const struct flowan_job *job, const double *rate,
    enum flowan_type type, size_t *cnt)
{
	size_t ni = job->niters, np = job->npairs, i, k;
	double *sorted = xcalloc(np * ni + 1, sizeof *sorted), *row;

	for (k = 0; k < ni; k++) {
		row = sorted + k * np;
		for (i = cnt[k] = 0; i < np; i++)
			if (job->pairs[i].type == type &&
			    isfinite(rate[i * ni + k]))
				row[cnt[k]++] = rate[i * ni + k];
		ts_qsort(row, cnt[k], sizeof *row, stats_cmp_double);
	}
	return sorted;
}

/*
 * When an end of pair p has no other pair, its NIC slowing down would
 * look just like the link: say so in finding f.
 */
static void
lone_end(const struct flowan *fa, const struct flowan_job *job,
    const struct flowan_pair *p, struct flowan_finding *f)
{
	size_t i, n[2] = { 0, 0 };
	int j;

	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *q = &job->pairs[i];

		if (q->type == FLOWAN_OTHER)
			continue;
		n[0] += q->a == p->a || q->b == p->a;
		n[1] += q->a == p->b || q->b == p->b;
	}
	for (j = 0; j < 2; j++)
		if (n[j] == 1)
			add_reason(f, xasprintf("%s has no other pair on the "
			    "wire: its NIC slowing down would look the same",
			    flowan_host_name(fa, j ? p->b : p->a)));
}

/*
 * When slow link f, the job's newest finding, is of a host pair that has
 * one already (its pipeline and DP connections, split), its reasons go
 * to that one and f is dropped.
 */
static void
same_link(struct flowan_job *job, struct flowan_finding *f)
{
	size_t i, k;

	for (i = 0; i + 1 < job->nfindings; i++) {
		struct flowan_finding *e = &job->findings[i];

		if (e->kind != FLOWAN_SLOW_LINK ||
		    strcmp(e->subject, f->subject) != 0)
			continue;
		for (k = 0; k < f->nreasons; k++)
			add_reason(e, f->reasons[k]);
		f->nreasons = 0;
		drop_newest(job);
		return;
	}
}

/*
 * Slow link f, the job's newest finding, of pair p, one of whose ends is
 * a slow NIC (nic[slot]): when the NIC's iterations hold half of the
 * link's or more, the NIC says it and f is dropped (returns 1).  Else
 * the link was slow on its own, long before or after the host's other
 * links joined it: the link is the finding, and the NIC's is dropped,
 * said in the link's reasons (returns 0).
 */
static int
nic_explains(const struct flowan *fa, struct flowan_job *job,
    const struct flowan_pair *p, unsigned char *nic)
{
	struct flowan_finding *f = &job->findings[job->nfindings - 1];
	uint32_t end[2] = { p->a, p->b };
	long e;
	size_t in;
	int j;

	for (j = 0; j < 2; j++) {
		if (!nic[host_slot(job, end[j])] || (e = finding_of(job,
		    FLOWAN_SLOW_NIC, flowan_host_name(fa, end[j]))) < 0)
			continue;
		in = shared_iters(f, &job->findings[e]);
		if (2 * in >= f->niters) {
			drop_newest(job);
			return 1;
		}
		add_reason(f, xasprintf("the other links of %s slow down "
		    "with it in %zu of its %zu iterations only: this link, "
		    "not the host's NIC", flowan_host_name(fa, end[j]), in,
		    f->niters));
		nic[host_slot(job, end[j])] = 0;
		drop_finding(job, (size_t)e);
	}
	return 0;
}

/*
 * The reasons of slow link f of pair p: its rate (own[0..n), its
 * slowdown f->magnitude), and, when most of its iterations moved paced
 * transfers (npaced of n), that a rate limiter holds it.
 */
static void
link_reasons(const struct flowan *fa, struct flowan_job *job,
    const struct flowan_pair *p, struct flowan_finding *f, double *own,
    size_t n, size_t npaced)
{
	int dp = p->type == FLOWAN_DP;

	add_reason(f, xasprintf("its %s messages move at %.1f MB/s, %.1fx "
	    "slower than the other %s pairs' (median over %zu iterations, "
	    "steadily from iteration %d)", dp ? "collective" : "pipeline",
	    stats_median(own, n) / 1e6, f->magnitude, dp ? "DP" : "PP",
	    f->niters, f->from));
	if (2 * npaced >= n)
		add_reason(f, xasprintf("its transfers cross the wire in "
		    "pieces at one steady rate, each as fast as a healthy "
		    "message (in %zu of those iterations): a rate limiter "
		    "lets them through, a shaped or policed link", npaced));
	lone_end(fa, job, p, f);
}

/*
 * Slow link: a pair whose messages move at < half the median rate of
 * the other pairs of its type (DP against DP, PP against PP) in the same
 * iterations, >= 3 in a row.  Message sizes differ little between the
 * pairs of a ring, or of a pipeline, and a rate is size over duration
 * (of a paced transfer's train, see pair_rates()), so pairs of all
 * groups compare.  paced[i * niters + k]: pair i moved a paced transfer
 * in iteration k.
 */
static void
slow_links(const struct flowan *fa, struct flowan_job *job, const double *rate,
    const unsigned char *paced, unsigned char *nic)
{
	size_t ni = job->niters, np = job->npairs, i, k, nex, npaced;
	size_t *cdp = xcalloc(ni + 1, sizeof *cdp);
	size_t *cpp = xcalloc(ni + 1, sizeof *cpp);
	double *sdp = rates_sorted(job, rate, FLOWAN_DP, cdp);
	double *spp = rates_sorted(job, rate, FLOWAN_PP, cpp);
	double *ex = xcalloc(ni + 1, sizeof *ex), *own = xcalloc(ni + 1, sizeof *own);

	for (i = 0; i < np; i++) {
		const struct flowan_pair *p = &job->pairs[i];
		struct flowan_finding *f = NULL;
		int dp = p->type == FLOWAN_DP;

		if (p->type == FLOWAN_OTHER)
			continue;	/* nothing to compare */
		for (k = nex = npaced = 0; k < ni; k++) {
			double r = rate[i * ni + k], pm;

			if (!isfinite(r))
				continue;
			pm = dp ? median_without(sdp + k * np, cdp[k], r) :
			    median_without(spp + k * np, cpp[k], r);
			if (!(r < 0.5 * pm))
				continue;
			if (f == NULL)
				f = add_finding(job, FLOWAN_SLOW_LINK,
				    xasprintf("%s-%s", flowan_host_name(fa, p->a),
				    flowan_host_name(fa, p->b)), 0);
			add_iter(f, job->iters[k].index);
			npaced += paced[i * ni + k];
			own[nex] = r;
			ex[nex++] = pm / r;
		}
		if (keep_lasting(job, f)) {
			f->magnitude = stats_median(ex, nex);
			link_reasons(fa, job, p, f, own, nex, npaced);
			if (!nic_explains(fa, job, p, nic))
				same_link(job, &job->findings[job->nfindings - 1]);
		}
	}
	free(cdp);
	free(cpp);
	free(sdp);
	free(spp);
	free(ex);
	free(own);
}

/*
 * Slow NIC: a host all of whose links slow down together, pipeline and
 * data-parallel alike: in >= 3 consecutive iterations, its pairs to >= 2
 * peers, and to >= 2/3 of those with a rate, move their messages at <
 * 1/1.5 of the median rate of the other pairs of their type (DP against
 * DP, PP against PP); the pipeline and DP pairs of one host pair are
 * one link.  A slow link slows one pair of each of its two hosts, and a
 * straggler's messages move as fast as ever.  The pairs' own slow-link
 * findings are then left out: the host says it.  nic[slot] is set for
 * the hosts named.
 */
#define NIC_SLOWED	1.5
/* Per iteration, the sorted rates of the DP and of the PP pairs. */
struct typed_rates {
	double *sdp, *spp;
	size_t *cdp, *cpp;
};

/*
 * A pair's usual rate before iteration k, from its rates row[0..k): the
 * median of the fastest half of the last HIST_STEPS finite ones; NAN
 * with fewer than 3.
 */
static double
usual_rate(const double *row, size_t k)
{
	double v[HIST_STEPS];
	size_t j, n = 0;

	for (j = k > HIST_STEPS ? k - HIST_STEPS : 0; j < k; j++)
		if (isfinite(row[j]))
			v[n++] = row[j];
	if (n < 3)
		return NAN;
	ts_qsort(v, n, sizeof *v, stats_cmp_double);
	return stats_median(v + n / 2, n - n / 2);
}

/*
 * In iteration k, how many peers of host h its pairs with a rate reach
 * (*npeer) and how many of those are slowed (the return): a pair below
 * 1/NIC_SLOWED of the median rate of the other pairs of its type.  The
 * two pairs of a split host pair (pipeline and DP connections) are one
 * link, slowed when either is.  v[0..*nv): each pair's slowdown.
 */
static size_t
peers_slowed(const struct flowan_job *job, uint32_t h, size_t k,
    const double *rate, const struct typed_rates *tr, uint32_t *peer,
    unsigned char *slow, size_t *npeer, double *v, size_t *nv)
{
	size_t ni = job->niters, np = job->npairs, i, j, ns = 0;
	double own;

	*npeer = *nv = 0;
	for (i = 0; i < np; i++) {
		const struct flowan_pair *p = &job->pairs[i];
		double r = rate[i * ni + k], pm;
		uint32_t o = p->a == h ? p->b : p->a;

		if ((p->a != h && p->b != h) || p->type == FLOWAN_OTHER ||
		    !isfinite(r))
			continue;
		pm = p->type == FLOWAN_DP ?
		    median_without(tr->sdp + k * np, tr->cdp[k], r) :
		    median_without(tr->spp + k * np, tr->cpp[k], r);
		if (!isfinite(pm))
			continue;
		v[(*nv)++] = pm / r;
		for (j = 0; j < *npeer && peer[j] != o; j++)
			;
		if (j == *npeer) {
			peer[(*npeer)++] = o;
			slow[j] = 0;
		}
		own = usual_rate(rate + i * ni, k);
		if (r * NIC_SLOWED < pm && !(r * NIC_SLOWED >= own) && !slow[j]) {
			slow[j] = 1;
			ns++;
		}
	}
	return ns;
}

static void
slow_nics(const struct flowan *fa, struct flowan_job *job, const double *rate,
    unsigned char *nic)
{
	size_t ni = job->niters, np = job->npairs, h, k, nr, nslow, nex, nv;
	struct typed_rates tr;
	double *ex = xcalloc(ni + 1, sizeof *ex), *v = xcalloc(np + 1, sizeof *v);
	uint32_t *peer = xcalloc(np + 1, sizeof *peer);
	unsigned char *slow = xcalloc(np + 1, 1);

	tr.cdp = xcalloc(ni + 1, sizeof *tr.cdp);
	tr.cpp = xcalloc(ni + 1, sizeof *tr.cpp);
	tr.sdp = rates_sorted(job, rate, FLOWAN_DP, tr.cdp);
	tr.spp = rates_sorted(job, rate, FLOWAN_PP, tr.cpp);
	for (h = 0; h < job->nhosts; h++) {
		uint32_t host = job->hosts[h];
		struct flowan_finding *f = NULL;

		for (k = nex = 0; k < ni; k++) {
			nslow = peers_slowed(job, host, k, rate, &tr, peer,
			    slow, &nr, v, &nv);
			if (nslow < 2 || 3 * nslow < 2 * nr)
				continue;
			if (f == NULL)
				f = add_finding(job, FLOWAN_SLOW_NIC,
				    xstrdup(flowan_host_name(fa, host)), 0);
			add_iter(f, job->iters[k].index);
			ex[nex++] = stats_median(v, nv);
		}
		if (keep_lasting(job, f)) {
			nic[h] = 1;
			f->magnitude = stats_median(ex, nex);
			add_reason(f, xasprintf("its links slow down together from "
			    "iteration %d: its pairs move their messages %.1fx "
			    "slower than the other pairs of their type (median "
			    "over %zu iterations)", f->from, f->magnitude,
			    f->niters));
			add_reason(f, xasprintf("pipeline and data-parallel "
			    "pairs alike: its NIC or its switch port, not one "
			    "link"));
		}
	}
	free(tr.cdp);
	free(tr.cpp);
	free(tr.sdp);
	free(tr.spp);
	free(ex);
	free(v);
	free(peer);
	free(slow);
}

/* The share of pair p's recorded packets that are CE-marked or CNPs. */
static double
marked_share(const struct flow_set *s, const struct flowan_pair *p)
{
	uint64_t pkts = 0;
	size_t k;

	for (k = 0; p->all != NULL && k < p->nall; k++)
		pkts += s->msgs[p->all[k]].pkts;
	return pkts ? (double)(p->ce + p->cnp) / (double)pkts : 0;
}

/*
 * Congestion: a pair whose share of CE-marked packets and CNPs is at
 * least CONG_SHARE and CONG_RATIO times the job's median pair.  ECN-
 * capable fabrics mark a little all the time (DCQCN keeps queues short
 * that way), so a mark alone says nothing.
 */
#define CONG_SHARE	0.01
#define CONG_RATIO	3
static void
congestion(const struct flowan *fa, struct flowan_job *job)
{
	double *share = xcalloc(job->npairs + 1, sizeof *share), *v, med;
	size_t i;

	for (i = 0; i < job->npairs; i++)
		share[i] = marked_share(fa->set, &job->pairs[i]);
	v = xcalloc(job->npairs + 1, sizeof *v);
	memcpy(v, share, job->npairs * sizeof *v);
	med = stats_median(v, job->npairs);
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];
		struct flowan_finding *f;

		if (share[i] < CONG_SHARE || share[i] < CONG_RATIO * med)
			continue;
		f = add_finding(job, FLOWAN_CONGESTION, xasprintf("%s-%s",
		    flowan_host_name(fa, p->a), flowan_host_name(fa, p->b)),
		    share[i]);
		add_reason(f, xasprintf("%.1f %% of its packets are marked ECN "
		    "CE or are RoCE CNPs (%u and %u), against %.2f %% on the "
		    "job's median pair", share[i] * 100, p->ce, p->cnp,
		    med * 100));
	}
	free(share);
	free(v);
}

/*
 * Stall: the job's hosts still exchange messages long after the last
 * step-ending collective (> 10 periods and > 2 s): a hang, or a failure
 * the ranks are timing out on.
 */
static void
stall(const struct flowan *fa, struct flowan_job *job)
{
	const struct flow_set *s = fa->set;
	const struct flowan_iter *last;
	struct flowan_finding *f;
	double end = -INFINITY, quiet;
	uint64_t bytes = 0;
	size_t i, k;

	if (job->niters == 0)
		return;
	last = &job->iters[job->niters - 1];
	for (i = 0; i < job->npairs; i++) {
		const struct flowan_pair *p = &job->pairs[i];

		for (k = 0; p->all != NULL && k < p->nall; k++) {
			const struct flow_msg *m = &s->msgs[p->all[k]];

			if (m->end > end)
				end = m->end;
			if (m->start > last->end)
				bytes += m->bytes;
		}
	}
	quiet = end - last->end;
	if (!(quiet > 10 * job->period && quiet > 2))
		return;
	f = add_finding(job, FLOWAN_STALL, xstrdup("job"), quiet);
	add_iter(f, last->index + 1);
	f->from = last->index + 1;
	add_reason(f, xasprintf("no step-ending collective after iteration %d "
	    "(%.1f ms per iteration until then)", last->index,
	    job->period * 1e3));
	add_reason(f, xasprintf("the job's hosts go on for %.1f s with %.1f kB "
	    "of messages: a hang or a failure they time out on", quiet,
	    (double)bytes / 1e3));
}

static void
host_stats(const struct flowan *fa, struct flowan_job *job,
    const double *comp, const double *comm)
{
	size_t h, ni = job->niters;

	(void)fa;
	job->hstat = xcalloc(job->nhosts + 1, sizeof *job->hstat);
	for (h = 0; h < job->nhosts; h++) {
		job->hstat[h].host = job->hosts[h];
		job->hstat[h].comm = stats_median(comm + h * ni, ni);
		job->hstat[h].compute = stats_median(comp + h * ni, ni);
	}
}

/*
 * The start of the first significant message from host h on pair p that
 * starts after t, INFINITY when none does.
 */
static double
first_from(const struct flow_set *s, const struct flowan_pair *p, uint32_t h,
    double t)
{
	size_t lo = 0, hi = p->nsig, mid;

	if (p->msgs == NULL)
		return INFINITY;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->msgs[p->msgs[mid]].start > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	while (lo < p->nsig && s->msgs[p->msgs[lo]].src != h)
		lo++;
	return lo < p->nsig ? s->msgs[p->msgs[lo]].start : INFINITY;
}

/*
 * The first activations of a step after t: the first significant
 * message a pipeline's stage 0 sends to its stage 1.  Not any pipeline
 * message: a gradient that a slowed link held back can still be on its
 * way when the groups done first end their step.
 */
static double
next_pp_send(const struct flowan *fa, const struct flowan_job *job, double t)
{
	const struct flowan_pair *p;
	double best = INFINITY;
	size_t g;

	for (g = 0; g < job->npp; g++)
		if (job->pp[g].n >= 2 && (p = pp_pair(job, job->pp[g].hosts[0],
		    job->pp[g].hosts[1])) != NULL)
			best = fmin(best, first_from(fa->set, p,
			    job->pp[g].hosts[0], t));
	return best;
}

/*
 * Where the DP groups end a step apart (one of them slowed, or the
 * stages of a pipeline done one after the other), the groups done first
 * may wait for the others before their next step (a job-wide reduction
 * of the gradient norm or the loss scale) or may go on.  The wire tells
 * which from stage 0's first activations of a step (next_pp_send()), two
 * ways:
 *
 *  - they come a usual time (the lead) after the first group's burst
 *    end; a step whose lead grows by more than six times the noise of
 *    the leads and a fifth of the period waited: it began at them less
 *    the usual lead (a slowdown that begins in the capture);
 *  - where another group ends further after stage 0's (head[i], see
 *    stage0_ends()) than the usual time from the last group's burst end
 *    to them (in the steps where they come after it), a stage 0 that
 *    went on would send before that group is done: a step whose first
 *    activations come after the last group's burst end waited, and began
 *    at them less that usual time (a slowdown from the capture's start,
 *    with no step to compare the lead with).
 *
 * A step that waited began no earlier than the first group's burst end
 * and no later than the last's; else when the first group was done.
 * Done after the detectors, which read the hosts from the first burst
 * end on; what changes is the iterations' start and duration.
 */
struct starts {
	double *send;		/* stage 0's first activations, NAN none */
	double base, room;	/* the usual lead and how far it may grow */
	double tail;		/* the usual time from the last burst end */
};

/* Fill st for the job's steps; returns 0, or -1 when too few say. */
static int
starts_measure(const struct flowan *fa, const struct flowan_job *job,
    struct starts *st)
{
	size_t n = job->niters, i, m = 0, nt = 0;
	double *lead = xcalloc(n + 1, sizeof *lead), *tail, mad;

	tail = xcalloc(n + 1, sizeof *tail);
	st->send = xcalloc(n + 1, sizeof *st->send);
	for (i = 1; i < n; i++) {
		st->send[i] = next_pp_send(fa, job, job->iters[i].start);
		if (!(st->send[i] < job->iters[i].end)) {
			st->send[i] = NAN;
			continue;
		}
		lead[m++] = st->send[i] - job->iters[i].start;
		if (st->send[i] > job->iters[i - 1].end)
			tail[nt++] = st->send[i] - job->iters[i - 1].end;
	}
	ts_qsort(lead, m, sizeof *lead, stats_cmp_double);
	st->base = stats_median(lead, (m + 1) / 2);
	mad = stats_mad(lead, (m + 1) / 2);
	st->room = fmax(6 * 1.4826 * mad, 0.2 * job->period);
	st->tail = nt >= 3 ? stats_median(tail, nt) : NAN;
	free(lead);
	free(tail);
	return m >= 3 ? 0 : -1;
}

static void
late_starts(const struct flowan *fa, struct flowan_job *job,
    const double *head)
{
	size_t n = job->niters, i;
	double was, last, at, lead;
	struct starts st;

	if (n < 4)
		return;
	if (starts_measure(fa, job, &st) == 0) {
		for (i = 1; i < n; i++) {
			was = job->iters[i].start;
			last = job->iters[i - 1].end;
			if (isnan(st.send[i]) || last <= was)
				continue;
			lead = st.send[i] - was;
			at = lead - st.base > st.room ? was + lead - st.base : was;
			if (st.send[i] > last && last - head[i] > st.tail)
				at = fmax(at, st.send[i] - st.tail);
			job->iters[i].start = fmin(at, last);
		}
		for (i = 0; i < n; i++)
			st.send[i] = job->iters[i].end - job->iters[i].start;
		job->period = stats_median(st.send, n);
	}
	free(st.send);
}

void
flowan_timeline(const struct flowan *fa, struct flowan_job *job,
    const struct flowan_params *prm)
{
	struct burst *b = NULL;
	struct cluster *cl;
	size_t nb = 0, cap = 0, g, ncl = 0, i;
	struct stepgroups sg;
	double *per, *comp, *comm, *rate, *steady, *ecomp, *ecomm, *esteady;
	double *head;
	unsigned char *nic, *skip, *paced;
	struct rank_end *ends;
	size_t ne;

	step_groups(job, &sg);
	per = xcalloc(sg.n + 1, sizeof *per);
	for (g = 0, i = 0; g < sg.n; g++) {
		per[i] = group_bursts(fa, job, &sg, g, prm, &b, &nb, &cap);
		if (isfinite(per[i]))
			i++;
	}
	cl = boundaries(sg.n, b, nb, i ? stats_median(per, i) : INFINITY,
	    &ncl);
	make_iterations(job, cl, ncl);
	end_bounds(fa, job);
	order_pipelines(fa, job);
	split_pipelines(fa, job);
	head = stage0_ends(job, cl, ncl);
	free_clusters(cl, ncl);
	free(b);
	free(per);
	comp = xcalloc(job->nhosts * job->niters + 1, sizeof *comp);
	comm = xcalloc(job->nhosts * job->niters + 1, sizeof *comm);
	steady = xcalloc(job->nhosts * job->niters + 1, sizeof *steady);
	host_times(fa, job, comp, comm, steady);
	host_stats(fa, job, comp, comm);
	slow_iterations(fa, job);
	rate = pair_rates(fa, job, &paced);
	nic = xcalloc(job->nhosts + 1, 1);
	slow_nics(fa, job, rate, nic);
	slow_links(fa, job, rate, paced, nic);
	free(paced);
	skip = slow_skip(fa, job);
	ends = rank_ends(job, &ne);
	ecomp = xcalloc(ne * job->niters + 1, sizeof *ecomp);
	ecomm = xcalloc(ne * job->niters + 1, sizeof *ecomm);
	esteady = xcalloc(ne * job->niters + 1, sizeof *esteady);
	end_times(fa, job, ends, ne, ecomp, ecomm, esteady);
	stragglers(fa, job, comp, steady, skip, ends, ne, esteady);
	rank_ends_free(ends, ne);
	free(ecomp);
	free(ecomm);
	free(esteady);
	slow_groups(fa, job);
	free(rate);
	free(nic);
	free(skip);
	free(steady);
	congestion(fa, job);
	stall(fa, job);
	late_starts(fa, job, head);
	free(head);
	job->hcomp = comp;
	job->hcomm = comm;
}
