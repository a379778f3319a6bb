/*
 * flowan.c -- job recognition and pair typing over the messages of a
 * capture (after LLMPrism, phases 1 and 2).
 *
 * Recognition.  Messages to or from well-known control ports (torch
 * rendezvous 29500, etcd, ssh, DNS, NTP) and storage ports (NFS, SMB,
 * iSCSI, Ceph) are control.  Of the rest, a message is significant when it
 * carries at least 2 % of its host pair's large message size (see
 * large_size()) and at least 1 KiB: this drops handshakes, acks and
 * collective headers.  A pair is a
 * training candidate when it has >= 4 significant messages, >= min_bytes of
 * them.  Never because another pair of its hosts is larger: activations
 * can be a small fraction of what a ring all-reduce moves, and a sampled
 * capture shrinks either.  Storage: a hub
 * host whose candidate neighbours include >= 2 hosts that talk to nobody
 * else is a storage server, and those spokes are dropped; so are the
 * one-way pairs (>= 95 % of the bytes one way) of a hub that has more
 * neighbours than any of them and whose pairs are mostly one-way.
 * Union-find over the remaining pairs gives clusters; clusters whose sets
 * of servers (node name when known, else address) are equal are merged.
 * A job id is the FNV-1a hash of its sorted host addresses.
 *
 * Typing.  Each pair's significant messages (both directions) are split
 * into steps where the gap to the next message exceeds the step gap.
 *
 * The paper finds step boundaries with BOCD and "P(r_t = 0) > 0.95"; as
 * printed that cannot fire: in the textbook recursion with a constant
 * hazard the filtered P(r_t = 0 | x_1..t) equals the hazard whatever the
 * data.  The step gap here is a two-cluster split of log(gap) instead: a
 * valley between consecutive sorted gaps (>= 4x; gaps under 0.1 ms count
 * as 0.1 ms) with >= 3 gaps above it and half as many below.  Of the
 * valleys, the widest whose bursts move the same bytes (every step moves
 * the same gradients, or micro-batches; fragments of a ring a late member
 * holds back joined first), else the widest: a slowed ring's waits
 * between its steps make a valley under the steps' as wide as theirs.
 * Where a throttled link paces a step's transfer, no valley is empty: a
 * few silences at its onset and within its steps fall between; then a
 * crowded one (a quarter as many gaps inside as above) split at its top,
 * whose bursts most often move the same bytes.  Otsu's criterion picked
 * lower valleys when bursts have sub-bursts and few steps were seen; the
 * highest valley is fooled by a few checkpoint pauses; a minimum share of
 * gaps above fails when a burst is thousands of packets.  flowan_bocd()
 * is the prior-predictive BOCD variant, which does fire; the tests use it
 * to cross-check the split on synthetic gaps.
 *
 * Per step, N_k is the number of distinct sizes (1 % relative tolerance)
 * that each carry >= 10 % of the step's messages going one way; the way
 * with the fewer speaks (a rate limiter at one end cuts what it lets
 * through into pieces, see flowan_paced()).  The paper types a pair
 * PP when Mode(N_k) == 1; but a two-host all-reduce also sends one size
 * each way per step, or two equal halves, so a pair is PP only when, in
 * addition, the median step carries >= 2 messages per direction (one per
 * micro-batch), >= 80 % of its messages one way share one size (activations
 * and their gradients; collectives are cut into varying pieces from step
 * to step), both directions carry >= 20 % of the bytes (a ring
 * collective of three or more hosts sends one way per pair; activations
 * go one way and as many gradients come back), and fewer than half of its
 * messages overlap, within 0.5 ms, one going the other way (a two-host
 * collective exchanges both ways at once; activations and gradients take
 * turns).  Sizes are counted each way, and the way that keeps them best
 * is taken.  The direction tests separate the recorded and simulated runs,
 * whose messages may all have one size; the size tests keep the paper's
 * signal for collectors that see whole flows.  DP pairs then form components; a PP
 * pair inside one is flipped to DP (never the other way).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flows/flowan.h"
#include "base/stats.h"
#include "base/util.h"

#define SIG_SHARE	0.02
#define SIG_MIN		1024
#define SIZE_TOL	0.01
#define CONC_SLACK	0.0005
#define GAP_FLOOR	1e-4	/* shorter gaps are back-to-back */

static const uint16_t control_ports[] = {
	22, 53, 123, 2379, 2380, 29500,		/* control */
	111, 445, 2049, 3260, 6789, 6800	/* storage */
};

struct plist {
	uint32_t a, b;
	size_t *m;		/* message indices, by start */
	size_t n, cap;
	int keep;
	enum flowan_type kind;	/* set by split_mixed(), else OTHER */
};

struct uf {
	uint32_t *p;
	size_t n;
};

void
flowan_params_default(struct flowan_params *p)
{
	p->gap = 0;
	p->min_share = 0;
	p->min_bytes = 64 * 1024;
}

static uint32_t
uf_find(struct uf *u, uint32_t x)
{
	while (u->p[x] != x) {
		u->p[x] = u->p[u->p[x]];
		x = u->p[x];
	}
	return x;
}

static void
uf_union(struct uf *u, uint32_t a, uint32_t b)
{
	a = uf_find(u, a);
	b = uf_find(u, b);
	if (a < b)
		u->p[b] = a;
	else if (b < a)
		u->p[a] = b;
}

static void
uf_init(struct uf *u, size_t n)
{
	size_t i;

	u->p = xcalloc(n ? n : 1, sizeof *u->p);
	u->n = n;
	for (i = 0; i < n; i++)
		u->p[i] = (uint32_t)i;
}

static uint64_t
msg_size(const struct flow_msg *m)
{
	return m->payload ? m->payload : m->bytes;
}

static int
is_control(const struct flow_msg *m)
{
	size_t i;

	for (i = 0; i < TS_NELEM(control_ports); i++)
		if (m->sport == control_ports[i] || m->dport == control_ports[i])
			return 1;
	return 0;
}

/*
 * An open-addressing map from a host pair to 1 + its index in the pair
 * list (0: empty), doubled when half full.
 */
struct pairmap {
	uint64_t *key;
	size_t *val;
	size_t cap, n;
};

static size_t *
pairmap_slot(struct pairmap *pm, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 17) & (pm->cap - 1);

	while (pm->val[i] != 0 && pm->key[i] != key)
		i = (i + 1) & (pm->cap - 1);
	pm->key[i] = key;
	return &pm->val[i];
}

static void
pairmap_grow(struct pairmap *pm)
{
	struct pairmap old = *pm;
	size_t i;

	pm->cap = old.cap ? old.cap * 2 : 64;
	pm->key = xcalloc(pm->cap, sizeof *pm->key);
	pm->val = xcalloc(pm->cap, sizeof *pm->val);
	for (i = 0; i < old.cap; i++)
		if (old.val[i] != 0)
			*pairmap_slot(pm, old.key[i]) = old.val[i];
	free(old.key);
	free(old.val);
}

/* Group messages by unordered host pair; control messages are counted. */
static struct plist *
group_pairs(struct flowan *fa, size_t *np)
{
	const struct flow_set *s = fa->set;
	struct plist *pl = NULL;
	struct pairmap pm = { NULL, NULL, 0, 0 };
	size_t npl = 0, cap = 0, i, j, *slot;

	for (i = 0; i < s->nmsgs; i++) {
		const struct flow_msg *m = &s->msgs[i];
		uint32_t a = m->src < m->dst ? m->src : m->dst;
		uint32_t b = m->src < m->dst ? m->dst : m->src;

		if (a == b || b >= s->nhosts)
			continue;
		if (is_control(m)) {
			fa->control_bytes += m->bytes;
			continue;
		}
		if (2 * (npl + 1) > pm.cap)
			pairmap_grow(&pm);
		slot = pairmap_slot(&pm, (uint64_t)a << 32 | b);
		if ((j = *slot) == 0) {
			pl = xgrow(pl, &cap, npl + 1, sizeof *pl);
			memset(&pl[npl], 0, sizeof pl[npl]);
			pl[npl].a = a;
			pl[npl].b = b;
			j = *slot = ++npl;
		}
		pl[j - 1].m = xgrow(pl[j - 1].m, &pl[j - 1].cap,
		    pl[j - 1].n + 1, sizeof *pl[j - 1].m);
		pl[j - 1].m[pl[j - 1].n++] = i;
	}
	free(pm.key);
	free(pm.val);
	*np = npl;
	return pl;
}

/*
 * The size of pair p's "large" messages: the size at which the messages
 * taken from the smallest up reach a quarter of its bytes.  Not the
 * largest one: a collective that runs back to back is one message in a
 * healthy step and one per ring step once a slow link spaces them out,
 * and those pieces are the step's traffic all the same.
 */
static uint64_t
large_size(const struct flow_set *s, const struct plist *p)
{
	uint64_t *sz = xcalloc(p->n + 1, sizeof *sz), total = 0, cum = 0, q;
	size_t i;

	for (i = 0; i < p->n; i++)
		total += sz[i] = msg_size(&s->msgs[p->m[i]]);
	ts_qsort(sz, p->n, sizeof *sz, flowan_cmp_u64);
	for (i = 0; i < p->n && (cum += sz[i]) < total / 4; i++)
		;
	q = p->n ? sz[i < p->n ? i : p->n - 1] : 0;
	free(sz);
	return q;
}

/*
 * The connection message x of a pair whose lower host is a belongs to:
 * its TCP or UDP ports (either way round), or for RoCE the destination
 * QP and direction (a BTH names only the receiving QP).
 */
static uint64_t
conn_key(const struct flow_msg *x, uint32_t a)
{
	uint64_t lo = x->sport < x->dport ? x->sport : x->dport;
	uint64_t hi = x->sport < x->dport ? x->dport : x->sport;

	if (x->flags & FLOW_F_ROCE)
		return 1ULL << 48 | (uint64_t)(x->src == a) << 32 | x->qp;
	return (uint64_t)x->proto << 32 | lo << 16 | hi;
}

struct conn {
	uint64_t key;
	uint64_t size;
	int ab;			/* from the pair's a to its b */
};

static int
cmp_conn(const void *a, const void *b)
{
	const struct conn *x = a, *y = b;

	if (x->key != y->key)
		return (x->key > y->key) - (x->key < y->key);
	return (x->size > y->size) - (x->size < y->size);
}

/*
 * The connections of pair p that carry one message size (>= 80 % within
 * 1 %: activations, or their gradients) and those that carry several
 * (collective pieces, cut by bucket), over each connection's significant
 * messages (as a pair's, see large_size(), but of the connection alone:
 * activations can be a small fraction of what the ring beside them
 * moves), connections with >= CONN_MIN of them: their keys in one[] and
 * many[] (sorted; counts in *n1, *n2).  A collective whose steps run
 * back to back is one message a step, of one size too; but a pipeline
 * connection carries one a micro-batch, so a connection (of >= 3) with
 * at most half the messages of the busiest one-size connection, each at
 * least twice its size, is a collective's, unless it is a train of
 * activations run back to back (few_is_pipeline()).
 */
#define CONN_MIN	16
struct ckind {
	uint64_t key, size;	/* its modal size */
	uint64_t bytes;		/* of its significant messages */
	size_t n;
	int one;
	int ab;			/* it carries them from a to b */
};

/*
 * The first of the messages c[i..j) of one connection (sorted by size)
 * that is significant: >= SIG_SHARE of the size at which those from the
 * smallest up reach a quarter of its bytes.
 */
static size_t
conn_significant(const struct conn *c, size_t i, size_t j)
{
	uint64_t total = 0, cum = 0, lim;
	size_t k;

	for (k = i; k < j; k++)
		total += c[k].size;
	for (k = i; k < j && (cum += c[k].size) < total / 4; k++)
		;
	lim = (uint64_t)((double)c[k < j ? k : j - 1].size * SIG_SHARE);
	for (k = i; k < j && c[k].size < lim; k++)
		;
	return k;
}

/* The kinds of the connections in c[0..n) (sorted by key, then size). */
static size_t
conn_runs(const struct conn *c, size_t n, struct ckind *ck)
{
	size_t i, j, k, r, best, nk = 0;

	for (i = 0; i < n; i = j) {
		for (j = i; j < n && c[j].key == c[i].key; j++)
			;
		i = conn_significant(c, i, j);
		ck[nk].key = c[i].key;
		ck[nk].n = j - i;
		ck[nk].ab = c[i].ab;
		for (k = i; k < j; k++)
			ck[nk].bytes += c[k].size;
		for (k = r = i, best = 0; k < j; k++) {	/* modal run */
			if (r < k)
				r = k;
			while (r < j && (double)c[r].size <=
			    (double)c[k].size * (1 + SIZE_TOL))
				r++;
			if (r - k > best) {
				best = r - k;
				ck[nk].size = c[k].size;
			}
		}
		ck[nk++].one = best * 5 >= (j - i) * 4;
	}
	return nk;
}

/*
 * Whether connection f, one of few messages, is a pipeline's: an
 * activation train run back to back is one message a step too, but a
 * pipeline moves as many bytes back as forward (a gradient has its
 * activation's shape), so its total is within PIPE_TOL of that of a
 * one-size connection going the other way in separate messages (twice
 * as many or more); a ring's bears no relation to those, only to its
 * own way back on two hosts, in as few messages.
 */
#define PIPE_TOL	0.02
static int
few_is_pipeline(const struct ckind *f, const struct ckind *ck, size_t nk)
{
	size_t i;

	for (i = 0; i < nk; i++)
		if (ck[i].one && ck[i].n >= CONN_MIN && ck[i].n >= 2 * f->n &&
		    ck[i].ab != f->ab && fabs((double)ck[i].bytes -
		    (double)f->bytes) <= PIPE_TOL * (double)ck[i].bytes)
			return 1;
	return 0;
}

static void
conn_kinds(const struct flow_set *s, const struct plist *p, uint64_t *one,
    size_t *n1, uint64_t *many, size_t *n2)
{
	struct conn *c = xcalloc(p->n + 1, sizeof *c);
	struct ckind *ck = xcalloc(p->n + 1, sizeof *ck), *busy = NULL;
	size_t i, n = 0, nk;

	for (i = 0; i < p->n; i++) {
		const struct flow_msg *x = &s->msgs[p->m[i]];

		if (msg_size(x) >= SIG_MIN) {
			c[n].key = conn_key(x, p->a);
			c[n].ab = x->src == p->a;
			c[n++].size = msg_size(x);
		}
	}
	ts_qsort(c, n, sizeof *c, cmp_conn);
	nk = conn_runs(c, n, ck);
	for (i = 0; i < nk; i++)
		if (ck[i].one && ck[i].n >= CONN_MIN &&
		    (busy == NULL || ck[i].n > busy->n))
			busy = &ck[i];
	*n1 = *n2 = 0;
	for (i = 0; i < nk; i++) {
		if (busy != NULL && ck[i].n >= 3 && 2 * ck[i].n <= busy->n &&
		    ck[i].size >= 2 * busy->size)
			*(few_is_pipeline(&ck[i], ck, nk) ? &one[(*n1)++] :
			    &many[(*n2)++]) = ck[i].key;
		else if (ck[i].n < CONN_MIN)
			continue;
		else if (ck[i].one)
			one[(*n1)++] = ck[i].key;
		else
			many[(*n2)++] = ck[i].key;
	}
	free(c);
	free(ck);
}

static int
cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A host pair can carry two kinds of traffic at once: when a stage's
 * ranks straddle two hosts, its data-parallel ring and the pipelines
 * both cross between them, each on its own connections (communicators
 * connect apart).  A pair with connections of one message size and
 * connections of several, or of a collective run back to back
 * (conn_kinds()), is split: the one-size ones become a pipeline pair,
 * the rest stays a data-parallel one.  Returns
 * the new number of pairs in *pl.
 */
static size_t
split_mixed(const struct flow_set *s, struct plist **pl, size_t n)
{
	size_t i, k, n1, n2, cap = n, total = n;

	for (i = 0; i < n; i++) {
		struct plist *p = &(*pl)[i], q;
		uint64_t *one = xcalloc(p->n + 1, sizeof *one);
		uint64_t *many = xcalloc(p->n + 1, sizeof *many), key;
		size_t keep = 0;

		conn_kinds(s, p, one, &n1, many, &n2);
		if (n1 > 0 && n2 > 0) {
			memset(&q, 0, sizeof q);
			q.a = p->a;
			q.b = p->b;
			q.kind = FLOWAN_PP;
			p->kind = FLOWAN_DP;
			for (k = 0; k < p->n; k++) {
				key = conn_key(&s->msgs[p->m[k]], p->a);
				if (bsearch(&key, one, n1, sizeof *one, cmp_key)) {
					q.m = xgrow(q.m, &q.cap, q.n + 1,
					    sizeof *q.m);
					q.m[q.n++] = p->m[k];
				} else
					p->m[keep++] = p->m[k];
			}
			p->n = keep;
			*pl = xgrow(*pl, &cap, total + 1, sizeof **pl);
			(*pl)[total++] = q;
		}
		free(one);
		free(many);
	}
	return total;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sort v[0..n) and drop repeats; return how many are left. */
static size_t
distinct_u32(uint32_t *v, size_t n)
{
	size_t i, k = 0;

	ts_qsort(v, n, sizeof *v, cmp_u32);
	for (i = 0; i < n; i++)
		if (k == 0 || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

/*
 * Pair p's endpoints and connections (see struct flowan_pair) from its
 * significant messages.
 */
static void
pair_endpoints(const struct flow_set *s, const struct plist *p,
    struct flowan_pair *fp)
{
	uint64_t *keys = xcalloc(p->n + 1, sizeof *keys);
	size_t i, k;

	fp->end[0] = xcalloc(p->n + 1, sizeof *fp->end[0]);
	fp->end[1] = xcalloc(p->n + 1, sizeof *fp->end[1]);
	for (i = 0; i < p->n; i++) {
		const struct flow_msg *x = &s->msgs[p->m[i]];
		int to_b = x->dst == p->b;

		fp->end_qp |= (x->flags & FLOW_F_ROCE) != 0;
		fp->end[to_b][fp->nend[to_b]++] = x->flags & FLOW_F_ROCE ?
		    x->qp : x->dport;
		keys[i] = conn_key(x, p->a);
	}
	for (k = 0; k < 2; k++)
		fp->nend[k] = distinct_u32(fp->end[k], fp->nend[k]);
	ts_qsort(keys, p->n, sizeof *keys, cmp_key);
	for (i = 0; i < p->n; i++)
		fp->nconn += i == 0 || keys[i] != keys[i - 1];
	free(keys);
}

/* Keep only the significant messages of a pair; fill its byte counts. */
static void
pair_significant(const struct flow_set *s, struct plist *p,
    struct flowan_pair *fp)
{
	uint64_t lim;
	size_t i, k = 0;

	for (i = 0; i < p->n; i++) {
		const struct flow_msg *m = &s->msgs[p->m[i]];

		fp->bytes += m->bytes;
		fp->ce += m->ce;
		fp->cnp += m->cnp;
	}
	fp->all = xcalloc(p->n + 1, sizeof *fp->all);
	memcpy(fp->all, p->m, p->n * sizeof *p->m);
	fp->nall = p->n;
	lim = (uint64_t)((double)large_size(s, p) * SIG_SHARE);
	if (lim < SIG_MIN)
		lim = SIG_MIN;
	fp->sig_min = lim;
	for (i = 0; i < p->n; i++) {
		uint64_t sz = msg_size(&s->msgs[p->m[i]]);

		if (sz >= lim) {
			if (s->msgs[p->m[i]].src == p->a)
				fp->sig_ab += sz;
			p->m[k++] = p->m[i];
			fp->sig_bytes += sz;
		}
	}
	p->n = k;
	fp->nsig = k;
	fp->a = p->a;
	fp->b = p->b;
	pair_endpoints(s, p, fp);
}

static int
one_way(const struct flowan_pair *fp)
{
	double ab = (double)fp->sig_ab, all = (double)fp->sig_bytes;

	return ab >= 0.95 * all || ab <= 0.05 * all;
}

/*
 * Storage: a hub (>= 3 neighbours, more than any of them has) whose pairs
 * are mostly one-way bulk transfers (reads or checkpoint writes) loses
 * its one-way pairs; a hub with >= 2 spokes that talk to nobody else
 * loses those spokes.
 */
static void
drop_storage(struct plist *pl, const struct flowan_pair *fp, size_t n,
    const size_t *deg, size_t *leaves, size_t nh)
{
	size_t *oneway = xcalloc(nh ? nh : 1, sizeof *oneway);
	size_t *nbmax = xcalloc(nh ? nh : 1, sizeof *nbmax), i;

	for (i = 0; i < n; i++) {
		uint32_t a = pl[i].a, b = pl[i].b;

		if (!pl[i].keep)
			continue;
		if (deg[a] == 1 && deg[b] >= 3)
			leaves[b]++;
		if (deg[b] == 1 && deg[a] >= 3)
			leaves[a]++;
		if (one_way(&fp[i])) {
			oneway[a]++;
			oneway[b]++;
		}
		if (deg[b] > nbmax[a])
			nbmax[a] = deg[b];
		if (deg[a] > nbmax[b])
			nbmax[b] = deg[a];
	}
	for (i = 0; i < n; i++) {
		uint32_t a = pl[i].a, b = pl[i].b;
		int hub_a = deg[a] >= 3 && deg[a] > nbmax[a] &&
		    3 * oneway[a] >= 2 * deg[a];
		int hub_b = deg[b] >= 3 && deg[b] > nbmax[b] &&
		    3 * oneway[b] >= 2 * deg[b];

		if (!pl[i].keep)
			continue;
		if ((deg[a] == 1 && leaves[b] >= 2) ||
		    (deg[b] == 1 && leaves[a] >= 2) ||
		    ((hub_a || hub_b) && one_way(&fp[i])))
			pl[i].keep = 0;
	}
	free(oneway);
	free(nbmax);
}

/*
 * Decide which pairs are training traffic (p->keep): what the traffic is,
 * never how it compares with a larger pair (a pipeline pair moves a
 * fraction of what a data-parallel ring does, and a sampled capture can
 * shrink either).  Pairs below min_share of the busiest pair of either
 * end are dropped only when min_share is set (0 by default).
 */
static void
select_training(const struct flowan *fa, const struct flowan_params *prm,
    struct plist *pl, struct flowan_pair *fp, size_t n)
{
	size_t nh = fa->set->nhosts, i;
	uint64_t *top = xcalloc(nh ? nh : 1, sizeof *top);
	size_t *deg = xcalloc(nh ? nh : 1, sizeof *deg);
	size_t *leaves = xcalloc(nh ? nh : 1, sizeof *leaves);

	for (i = 0; i < n; i++) {
		pl[i].keep = fp[i].nsig >= 4 && fp[i].sig_bytes >= prm->min_bytes;
		if (!pl[i].keep)
			continue;
		if (fp[i].sig_bytes > top[pl[i].a])
			top[pl[i].a] = fp[i].sig_bytes;
		if (fp[i].sig_bytes > top[pl[i].b])
			top[pl[i].b] = fp[i].sig_bytes;
	}
	for (i = 0; i < n; i++) {
		uint64_t t = top[pl[i].a] > top[pl[i].b] ?
		    top[pl[i].a] : top[pl[i].b];

		if (pl[i].keep && prm->min_share > 0 &&
		    (double)fp[i].sig_bytes < prm->min_share * (double)t)
			pl[i].keep = 0;
		if (pl[i].keep) {
			deg[pl[i].a]++;
			deg[pl[i].b]++;
		}
	}
	drop_storage(pl, fp, n, deg, leaves, nh);
	free(top);
	free(deg);
	free(leaves);
}

/*
 * The valleys of the sorted log gaps v[0..n): each k with v[k] - v[k-1]
 * at least log VALLEY_RATIO wide, with at least 3 gaps above it (a few
 * checkpoint pauses are no steps) and at least half as many below as
 * above (most steps hold more than one message: a valley above a
 * handful of stray short gaps is no step gap).  at[] gets them widest
 * first (of equal ones the higher first); returns how many.
 */
#define VALLEY_RATIO	4.0
static size_t
valleys(const double *v, size_t n, size_t *at)
{
	size_t k, j, m = 0;
	double w;

	for (k = n >= 3 ? n - 3 : 0; k > 0; k--) {
		w = v[k] - v[k - 1];
		if (w < log(VALLEY_RATIO) + 1e-9 || 2 * k < n - k)
			continue;
		for (j = m; j > 0 && v[at[j - 1]] - v[at[j - 1] - 1] < w - 1e-9;
		    j--)
			at[j] = at[j - 1];
		at[j] = k;
		m++;
	}
	return m;
}

/* The sorted log gaps (floored) of gaps[0..n), allocated. */
static double *
log_gaps(const double *gaps, size_t n)
{
	double *v = xcalloc(n + 1, sizeof *v);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = log(gaps[i] > GAP_FLOOR ? gaps[i] : GAP_FLOOR);
	ts_qsort(v, n, sizeof *v, stats_cmp_double);
	return v;
}

double
flowan_gap_threshold(const double *gaps, size_t n)
{
	double *v, thr = 0;
	size_t *at;

	if (n < 4)
		return 0;
	v = log_gaps(gaps, n);
	at = xcalloc(n + 1, sizeof *at);
	if (valleys(v, n, at) > 0)
		thr = exp((v[at[0]] + v[at[0] - 1]) / 2);
	free(at);
	free(v);
	return thr;
}

/*
 * The share of the bursts of spans sp[0..n) (a new one after each gap
 * over thr) that move the same bytes: within STEP_TOL of their median,
 * once fragments have joined the burst after them (as in the timeline: a
 * ring whose member is late runs its first steps without it, then
 * waits; see FLOWAN_FRAG_SHARE).  Every step moves the same gradients,
 * or the same micro-batches; a split inside the steps (between a ring's
 * steps, or the buckets of its collective) gives bursts of several
 * sizes.  same_bytes(): STEP_SAME of them or more.
 */
#define STEP_TOL	0.1
#define STEP_SAME	(2.0 / 3)
static double
same_share(const struct flowan_span *sp, size_t n, double thr)
{
	double *b = xcalloc(n + 1, sizeof *b), end = sp[0].end, med;
	size_t i, nb = 0, same = 0;

	b[nb++] = sp[0].bytes;
	for (i = 1; i < n; i++) {
		if (sp[i].start - end > thr)
			b[nb++] = 0;
		b[nb - 1] += sp[i].bytes;
		if (sp[i].end > end)
			end = sp[i].end;
	}
	nb = flowan_join_small(b, nb);
	med = stats_median(b, nb);
	for (i = 0; i < nb; i++)
		same += fabs(b[i] - med) <= STEP_TOL * med;
	free(b);
	return (double)same / (double)nb;
}

double
flowan_usual_burst(const double *b, size_t n)
{
	double *v = xcalloc(n + 1, sizeof *v), usual = 0, total = 0, acc = 0;
	size_t i;

	for (i = 0; i < n; i++)
		total += v[i] = b[i];
	ts_qsort(v, n, sizeof *v, stats_cmp_double);
	for (i = n; i > 0 && acc < total / 2; i--) {
		acc += v[i - 1];
		usual = v[i - 1];
	}
	free(v);
	return usual;
}

size_t
flowan_join_small(double *b, size_t n)
{
	double usual = flowan_usual_burst(b, n);
	size_t i, k;

	for (i = k = 0; i < n; i++) {
		if (i + 1 < n && b[i] < FLOWAN_FRAG_SHARE * usual) {
			b[i + 1] += b[i];
			continue;
		}
		b[k++] = b[i];
	}
	return k;
}

static int
same_bytes(const struct flowan_span *sp, size_t n, double thr)
{
	return same_share(sp, n, thr) >= STEP_SAME;
}

/*
 * Without an empty valley: a stretch of the sorted log gaps v[0..n), at
 * least log VALLEY_RATIO wide, that holds at most a quarter as many gaps
 * as lie above it, with at least 3 above and half as many below as
 * above.  Where a throttled link paces a step's transfer, a few silences
 * fall between the pieces' and the steps': at its onset, and where the
 * sender waits within the step.  Which of them are the step's is told by
 * what a step moves: of the splits at the tops of such stretches (the
 * CROWD_TRIES with the widest empty top), the one whose bursts most
 * often move the same bytes (same_share()), if that is STEP_SAME of
 * them.  Returns its threshold, or 0.
 */
#define CROWD_SHARE	4
#define CROWD_TRIES	16
static double
crowded_valley(const struct flowan_span *sp, size_t ns, const double *v,
    size_t n)
{
	double *w = xcalloc(n + 1, sizeof *w), thr = 0, t, sh, best = 0;
	size_t i, j, k, lo, tries;

	for (j = 1; j + 3 <= n; j++) {	/* v[j]: the lowest gap above */
		i = (n - j) / CROWD_SHARE + 1;
		lo = j >= i ? j - i : 0;	/* v[lo]: the highest below */
		if (2 * (lo + 1) >= n - j &&
		    v[j] - v[lo] >= log(VALLEY_RATIO) - 1e-9)
			w[j] = v[j] - v[j - 1];
	}
	for (tries = 0; tries < CROWD_TRIES; tries++) {
		for (j = k = 1; j + 3 <= n; j++)
			if (w[j] > w[k])
				k = j;
		if (!(w[k] > 0))
			break;
		w[k] = 0;
		t = exp((v[k] + v[k - 1]) / 2);
		sh = same_share(sp, ns, t);
		if (sh >= STEP_SAME && sh > best + 1e-9) {
			best = sh;
			thr = t;
		}
	}
	free(w);
	return thr;
}

double
flowan_span_gap(const struct flowan_span *sp, size_t n, double fixed)
{
	double *g, *v, end, thr = 0, t;
	size_t i, k, nv, *at;

	if (fixed > 0)
		return fixed;
	if (n < 5)
		return INFINITY;
	g = xcalloc(n, sizeof *g);
	end = sp[0].end;
	for (i = 1, k = 0; i < n; i++) {
		/* overlapping spans count as back-to-back */
		g[k++] = sp[i].start - end;
		if (sp[i].end > end)
			end = sp[i].end;
	}
	v = log_gaps(g, k);
	at = xcalloc(k + 1, sizeof *at);
	nv = valleys(v, k, at);
	for (i = 0; i < nv && thr == 0; i++) {
		t = exp((v[at[i]] + v[at[i] - 1]) / 2);
		if (same_bytes(sp, n, t))
			thr = t;
	}
	if (thr == 0 && nv > 0)
		thr = exp((v[at[0]] + v[at[0] - 1]) / 2);
	else if (thr == 0)
		thr = crowded_valley(sp, n, v, k);
	free(at);
	free(v);
	free(g);
	return thr > 0 ? thr : INFINITY;
}

/*
 * Count the distinct sizes (1 % relative tolerance) that each carry at
 * least 10 % of the messages: a stray merged or split message in a long
 * step does not make a pipeline pair look like a collective.
 */
static int
distinct_sizes(uint64_t *sz, size_t n)
{
	size_t i, run = 1, need = (n + 9) / 10;
	int d = 0;
	double base;

	if (n == 0)
		return 0;
	ts_qsort(sz, n, sizeof *sz, flowan_cmp_u64);
	base = (double)sz[0];
	for (i = 1; i <= n; i++) {
		if (i < n && (double)sz[i] <= base * (1 + SIZE_TOL)) {
			run++;
			continue;
		}
		d += run >= need;
		if (i < n) {
			base = (double)sz[i];
			run = 1;
		}
	}
	return d > 0 ? d : 1;
}

int
flowan_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

double
flowan_series_gap(const struct flow_set *s, const size_t *m, size_t n,
    double fixed)
{
	struct flowan_span *sp;
	double thr;
	size_t i;

	if (fixed > 0)
		return fixed;
	sp = xcalloc(n + 1, sizeof *sp);
	for (i = 0; i < n; i++) {
		sp[i].start = s->msgs[m[i]].start;
		sp[i].end = s->msgs[m[i]].end;
		sp[i].bytes = (double)msg_size(&s->msgs[m[i]]);
		sp[i].n = 1;
	}
	thr = flowan_span_gap(sp, n, 0);
	free(sp);
	return thr;
}

/*
 * Paced transfers.  A rate limiter on a link (a token bucket: a shaper or
 * a policer on a port, a link negotiated down behind a buffer) does not
 * make a message slower to send: it lets a bucket of frames through at
 * line rate and holds the rest until tokens accrue, so a transfer crosses
 * the wire cut in pieces of a bucket or less, each leaving once the
 * bucket holds its bytes: a piece follows the one before after a silence
 * of its own size over the limit rate.  Cut at the assembly's message
 * gap, every piece is a message of its own, short and as fast as a
 * healthy one; the link's rate shows only over the train.  So
 * consecutive messages of one connection and direction are one paced
 * transfer when each after the first lasts under PACE_DUTY of the
 * silence before it, that silence is shorter than the pair's step gap (a
 * train runs inside a step), the silences keep one rate (size over
 * silence, each within PACE_TOL of the one before), and the pieces are
 * cut: PACE_MIN of them or more, none larger than the first after the
 * head (a bucket's worth), some PACE_SIZES smaller (a transfer's end).
 * A sender's own rhythm does not look like that: equal messages at a
 * steady cadence (activations), or whole transfers handed on as they
 * come (a ring's links fed by a throttled one move its pace, but in
 * whole chunks, two of them at times).
 */
#define PACE_DUTY	0.25
#define PACE_TOL	0.1
#define PACE_MIN	5
#define PACE_SIZES	1.25

struct pmsg {
	uint64_t key;		/* connection and direction */
	size_t j;		/* its place in the pair's list (by start) */
	const struct flow_msg *x;
};

/*
 * The rate of piece q after p: its size over the silence before it; NAN
 * when q is no piece (longer than PACE_DUTY of the silence, or the
 * silence longer than `within`).
 */
static double
piece_rate(const struct flow_msg *p, const struct flow_msg *q, double within)
{
	double gap = q->start - p->end;

	if (!(gap > 0) || gap >= within || q->end - q->start > PACE_DUTY * gap)
		return NAN;
	return (double)msg_size(q) / gap;
}

/*
 * The end (exclusive) of the paced run that starts at head pm[h] within
 * pm[h..e) (one connection and direction), or h + 1 when there is none;
 * *chain gets where the pieces stopped keeping one rate, and *equal
 * whether all the pieces up to there had one size.
 */
static size_t
paced_run(const struct pmsg *pm, size_t h, size_t e, double within,
    size_t *chain, int *equal)
{
	double r, prev = NAN, first = 0, sz, lo = INFINITY;
	size_t j;
	int cut = 1;

	for (j = h + 1; j < e; j++) {
		r = piece_rate(pm[j - 1].x, pm[j].x, within);
		if (isnan(r) || (j > h + 1 && (r > prev * (1 + PACE_TOL) ||
		    r < prev / (1 + PACE_TOL))))
			break;
		prev = r;
		sz = (double)msg_size(pm[j].x);
		if (j == h + 1)
			first = sz;
		cut &= sz <= first * (1 + SIZE_TOL);
		lo = fmin(lo, sz);
	}
	*chain = j;
	*equal = lo * (1 + SIZE_TOL) >= first;
	return cut && j - h >= PACE_MIN && lo * PACE_SIZES <= first ? j : h + 1;
}

/*
 * pm[h..e) as one span, at slot[pm[h].j] (its head's place by start, so
 * that the spans come out in order; used[] marks the slots filled).
 */
static void
add_span(struct flowan_span *slot, unsigned char *used, const struct pmsg *pm,
    size_t h, size_t e)
{
	struct flowan_span *sp = &slot[pm[h].j];
	size_t j;

	used[pm[h].j] = 1;
	sp->start = pm[h].x->start;
	sp->end = pm[h].x->end;
	sp->bytes = 0;
	sp->n = e - h;
	for (j = h; j < e; j++) {
		sp->bytes += (double)msg_size(pm[j].x);
		if (pm[j].x->end > sp->end)
			sp->end = pm[j].x->end;
	}
}

/* The spans of one connection and direction, pm[i..e), into slot[]. */
static void
conn_spans(const struct pmsg *pm, size_t i, size_t e, double within,
    struct flowan_span *slot, unsigned char *used)
{
	size_t h = i, end, chain, stop;
	int equal;

	while (h < e) {
		end = paced_run(pm, h, e, within, &chain, &equal);
		if (end > h + 1) {
			add_span(slot, used, pm, h, end);
			h = end;
			continue;
		}
		/* equal pieces: no run starts before the chain's last one */
		stop = equal && chain > h + 1 ? chain - 1 : h + 1;
		for (; h < stop; h++)
			add_span(slot, used, pm, h, h + 1);
	}
}

/*
 * The messages of s->msgs[m[0..n)] of at least min bytes into pm[] (the
 * return is how many), by connection and direction, each one's in order
 * of start: counted into buckets, so no sort.  *nb gets the number of
 * buckets, and start[0..nb] where each begins.
 */
static size_t
by_connection(const struct flow_set *s, const size_t *m, size_t n,
    uint64_t min, struct pmsg *pm, size_t **start, size_t *nb)
{
	struct pairmap map = { NULL, NULL, 0, 0 };
	struct pmsg *tmp = xcalloc(n + 1, sizeof *tmp);
	size_t i, k = 0, *slot, *at, b;

	*nb = 0;
	*start = NULL;
	for (i = 0; i < n; i++) {
		const struct flow_msg *x = &s->msgs[m[i]];
		uint32_t a = x->src < x->dst ? x->src : x->dst;

		if (msg_size(x) < min)
			continue;
		tmp[k].key = conn_key(x, a) | (uint64_t)(x->src == a) << 62;
		tmp[k].j = i;
		tmp[k].x = x;
		if (2 * (*nb + 1) > map.cap)
			pairmap_grow(&map);
		if (*(slot = pairmap_slot(&map, tmp[k].key)) == 0)
			*slot = ++*nb;
		k++;
	}
	*start = xcalloc(*nb + 2, sizeof **start);
	at = xcalloc(*nb + 2, sizeof *at);
	for (i = 0; i < k; i++)
		(*start)[*pairmap_slot(&map, tmp[i].key)]++;
	for (b = 1; b <= *nb + 1; b++)
		(*start)[b] += (*start)[b - 1];
	memcpy(at, *start, (*nb + 1) * sizeof *at);
	for (i = 0; i < k; i++)
		pm[at[*pairmap_slot(&map, tmp[i].key) - 1]++] = tmp[i];
	free(at);
	free(tmp);
	free(map.key);
	free(map.val);
	return k;
}

size_t
flowan_paced(const struct flow_set *s, const size_t *m, size_t n,
    uint64_t min, double within, struct flowan_span **out)
{
	struct pmsg *pm = xcalloc(n + 1, sizeof *pm);
	struct flowan_span *slot = xcalloc(n + 1, sizeof *slot);
	unsigned char *used = xcalloc(n + 1, 1);
	size_t i, b, nb, ns = 0, *start;

	by_connection(s, m, n, min, pm, &start, &nb);
	for (b = 0; b < nb; b++)
		conn_spans(pm, start[b], start[b + 1], within, slot, used);
	for (i = 0; i < n; i++)
		if (used[i])
			slot[ns++] = slot[i];
	*out = slot;
	free(pm);
	free(used);
	free(start);
	return ns;
}

/* Mode of small positive ints (ties: the smaller value). */
static int
int_mode(const int *v, size_t n)
{
	int best = 0, bestc = 0, i, c;
	size_t j;

	for (i = 1; i <= 64; i++) {
		for (c = 0, j = 0; j < n; j++)
			c += (v[j] == i) || (i == 64 && v[j] > 64);
		if (c > bestc) {
			bestc = c;
			best = i;
		}
	}
	return best;
}

/*
 * The largest share of the sizes of pair p's messages going one way (to
 * b when to_b) that lie within SIZE_TOL of one another.
 */
static double
modal_share(const struct flow_set *s, const struct plist *p, int to_b)
{
	uint64_t *sz = xcalloc(p->n + 1, sizeof *sz);
	size_t i, j = 0, best = 0, n = 0;

	for (i = 0; i < p->n; i++)
		if ((s->msgs[p->m[i]].dst == p->b) == to_b)
			sz[n++] = msg_size(&s->msgs[p->m[i]]);
	ts_qsort(sz, n, sizeof *sz, flowan_cmp_u64);
	for (i = 0; i < n; i++) {
		while ((double)sz[i] > (double)sz[j] * (1 + SIZE_TOL))
			j++;
		if (i - j + 1 > best)
			best = i - j + 1;
	}
	free(sz);
	return n ? (double)best / (double)n : 0;
}

/*
 * The share of a pair's messages that overlap (within CONC_SLACK) a
 * message going the other way.  Collectives exchange both ways at once;
 * pipeline activations and gradients take turns.
 */
static double
both_ways(const struct flow_set *s, const struct plist *p)
{
	double last[2] = { -INFINITY, -INFINITY }, *next;
	size_t i, hit = 0;

	if (p->n == 0)
		return 0;
	next = xcalloc(2 * p->n + 2, sizeof *next);
	next[2 * p->n] = next[2 * p->n + 1] = INFINITY;
	for (i = p->n; i-- > 0;) {	/* next start per direction after i */
		const struct flow_msg *m = &s->msgs[p->m[i]];
		int d = m->src == p->a;

		next[2 * i + d] = m->start;
		next[2 * i + !d] = next[2 * (i + 1) + !d];
	}
	for (i = 0; i < p->n; i++) {
		const struct flow_msg *m = &s->msgs[p->m[i]];
		int d = m->src == p->a;

		if (last[!d] >= m->start - CONC_SLACK ||
		    next[2 * (i + 1) + !d] <= m->end + CONC_SLACK)
			hit++;
		if (m->end > last[d])
			last[d] = m->end;
	}
	free(next);
	return (double)hit / (double)p->n;
}

/* Both directions carry >= 20 % of the bytes (activations, gradients). */
static int
balanced(const struct flowan_pair *fp)
{
	double ab = (double)fp->sig_ab, all = (double)fp->sig_bytes;

	return ab >= 0.2 * all && ab <= 0.8 * all;
}

/*
 * Per step of pair p (split at gaps over thr), the distinct sizes of its
 * messages each way (nk[2 * step + way], 0 for a way without any) and
 * the messages per way that has some (pd[step]).  Returns the steps.
 */
static size_t
step_sizes(const struct flow_set *s, const struct plist *p, double thr,
    int *nk, double *pd)
{
	uint64_t *sz[2];
	size_t i, ns = 0, nd[2] = { 0, 0 };
	int d, dirs;

	sz[0] = xcalloc(p->n + 1, sizeof *sz[0]);
	sz[1] = xcalloc(p->n + 1, sizeof *sz[1]);
	for (i = 0; i < p->n; i++) {
		const struct flow_msg *m = &s->msgs[p->m[i]];

		d = m->dst == p->b;
		sz[d][nd[d]++] = msg_size(m);
		if (i + 1 < p->n && s->msgs[p->m[i + 1]].start - m->end <= thr)
			continue;
		dirs = (nd[0] > 0) + (nd[1] > 0);
		for (d = 0; d < 2; d++)
			nk[2 * ns + d] = nd[d] ? distinct_sizes(sz[d], nd[d]) : 0;
		pd[ns++] = (double)(nd[0] + nd[1]) / dirs;
		nd[0] = nd[1] = 0;
	}
	free(sz[0]);
	free(sz[1]);
	return ns;
}

/* The mode of the distinct sizes one way (nk[2 * step + way] > 0). */
static int
way_mode(const int *nk, size_t ns, int way)
{
	int *v = xcalloc(ns + 1, sizeof *v), m;
	size_t i, n = 0;

	for (i = 0; i < ns; i++)
		if (nk[2 * i + way] > 0)
			v[n++] = nk[2 * i + way];
	m = n ? int_mode(v, n) : 0;
	free(v);
	return m;
}

/*
 * Type one pair from the sizes and counts of its steps.  Sizes are read
 * each way, and the way whose messages keep one size speaks: a rate
 * limiter at one end cuts what it lets through into pieces of a bucket
 * or less (see flowan_paced()), so activations or gradients held by it
 * reach the wire in two or three sizes while the other way still shows
 * their one size.
 */
static void
type_pair(const struct flow_set *s, const struct plist *p,
    const struct flowan_params *prm, struct flowan_pair *fp)
{
	double thr = flowan_series_gap(s, p->m, p->n, prm->gap);
	int *nk = xcalloc(2 * p->n + 2, sizeof *nk), m0, m1;

	fp->gap = thr;
	double *pd = xcalloc(p->n + 1, sizeof *pd), *tp;
	size_t i, ns, ntp = 0;

	ns = step_sizes(s, p, thr, nk, pd);
	fp->nsteps = ns;
	m0 = way_mode(nk, ns, 0);
	m1 = way_mode(nk, ns, 1);
	fp->mode_sizes = m0 == 0 || (m1 != 0 && m1 < m0) ? m1 : m0;
	fp->per_dir = stats_median(pd, ns);
	fp->modal = fmax(modal_share(s, p, 0), modal_share(s, p, 1));
	fp->both = both_ways(s, p);
	fp->raw_type = fp->mode_sizes == 1 && fp->per_dir >= 2 &&
	    fp->modal >= 0.8 && fp->both < 0.5 && balanced(fp) ?
	    FLOWAN_PP : FLOWAN_DP;
	fp->type = fp->raw_type;
	tp = pd;
	for (i = 0; i < p->n; i++) {
		const struct flow_msg *m = &s->msgs[p->m[i]];

		if (m->end > m->start && msg_size(m) >= 64 * 1024)
			tp[ntp++] = (double)msg_size(m) / (m->end - m->start);
	}
	fp->thr = ntp ? stats_median(tp, ntp) : NAN;
	free(nk);
	free(pd);
}

/* Union-find over the kept pairs; return a cluster id per host (or -1). */
static int *
cluster_hosts(const struct flowan *fa, const struct plist *pl, size_t n,
    size_t *ncl)
{
	size_t nh = fa->set->nhosts, i, k = 0;
	int *cl = xcalloc(nh ? nh : 1, sizeof *cl), *map;
	char *used = xcalloc(nh ? nh : 1, 1);
	struct uf u;

	uf_init(&u, nh);
	for (i = 0; i < n; i++) {
		if (!pl[i].keep)
			continue;
		uf_union(&u, pl[i].a, pl[i].b);
		used[pl[i].a] = used[pl[i].b] = 1;
	}
	map = xcalloc(nh ? nh : 1, sizeof *map);
	for (i = 0; i < nh; i++)
		map[i] = -1;
	for (i = 0; i < nh; i++) {
		uint32_t r = uf_find(&u, (uint32_t)i);

		if (!used[i]) {
			cl[i] = -1;
			continue;
		}
		if (map[r] < 0)
			map[r] = (int)k++;
		cl[i] = map[r];
	}
	free(map);
	free(used);
	free(u.p);
	*ncl = k;
	return cl;
}

/* The sorted, comma-joined server keys of cluster c. */
static char *
server_key(const struct flowan *fa, const int *cl, int c)
{
	size_t nh = fa->set->nhosts, i, n = 0;
	char **keys = xcalloc(nh ? nh : 1, sizeof *keys), buf[64];
	struct buf b = BUF_INIT;

	for (i = 0; i < nh; i++) {
		if (cl[i] != c)
			continue;
		if (fa->names != NULL && fa->names[i] != NULL)
			keys[n++] = xstrdup(fa->names[i]);
		else
			keys[n++] = xstrdup(flow_addr_str(&fa->set->hosts[i],
			    buf, sizeof buf));
	}
	if (n > 1)
		ts_qsort(keys, n, sizeof *keys, flowan_cmp_str);
	for (i = 0; i < n; i++) {
		if (i == 0 || strcmp(keys[i], keys[i - 1]) != 0) {
			buf_adds(&b, keys[i]);
			buf_addc(&b, ',');
		}
	}
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return buf_detach(&b);
}

int
flowan_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Merge clusters with equal server sets: renumber cl[] in place. */
static size_t
merge_equal_servers(const struct flowan *fa, int *cl, size_t ncl)
{
	char **key = xcalloc(ncl ? ncl : 1, sizeof *key);
	int *to = xcalloc(ncl ? ncl : 1, sizeof *to);
	size_t i, j, k = 0;

	for (i = 0; i < ncl; i++) {
		key[i] = server_key(fa, cl, (int)i);
		to[i] = (int)k;
		for (j = 0; j < i; j++) {
			if (strcmp(key[i], key[j]) == 0) {
				to[i] = to[j];
				break;
			}
		}
		if (j == i)
			k++;
	}
	for (i = 0; i < fa->set->nhosts; i++)
		if (cl[i] >= 0)
			cl[i] = to[cl[i]];
	for (i = 0; i < ncl; i++)
		free(key[i]);
	free(key);
	free(to);
	return k;
}

static int
host_cmp_addr(const struct flow_set *s, uint32_t a, uint32_t b)
{
	return flow_addr_cmp(&s->hosts[a], &s->hosts[b]);
}

static void
sort_hosts(const struct flow_set *s, uint32_t *h, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		uint32_t x = h[i];

		for (j = i; j > 0 && host_cmp_addr(s, h[j - 1], x) > 0; j--)
			h[j] = h[j - 1];
		h[j] = x;
	}
}

static void
job_id(const struct flow_set *s, struct flowan_job *job)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i, k;

	for (i = 0; i < job->nhosts; i++) {
		for (k = 0; k < 16; k++) {
			h ^= s->hosts[job->hosts[i]].b[k];
			h *= 1099511628211ULL;
		}
	}
	snprintf(job->id, sizeof job->id, "%016llx", (unsigned long long)h);
}

/* Connected components of the pairs of `type` as groups of >= 2 hosts. */
static void
components(const struct flowan *fa, struct flowan_job *job,
    enum flowan_type type, struct flowan_group **out, size_t *nout)
{
	size_t nh = fa->set->nhosts, i, j;
	struct uf u;

	uf_init(&u, nh);
	for (i = 0; i < job->npairs; i++)
		if (job->pairs[i].type == type)
			uf_union(&u, job->pairs[i].a, job->pairs[i].b);
	*out = NULL;
	*nout = 0;
	for (i = 0; i < job->nhosts; i++) {
		uint32_t r = uf_find(&u, job->hosts[i]);
		struct flowan_group *g = NULL;

		for (j = 0; j < *nout; j++)
			if (uf_find(&u, (*out)[j].hosts[0]) == r)
				g = &(*out)[j];
		if (g == NULL) {
			*out = xreallocarray(*out, *nout + 1, sizeof **out);
			g = &(*out)[(*nout)++];
			g->hosts = NULL;
			g->n = 0;
		}
		g->hosts = xreallocarray(g->hosts, g->n + 1, sizeof *g->hosts);
		g->hosts[g->n++] = job->hosts[i];
	}
	for (i = j = 0; i < *nout; i++) {
		if ((*out)[i].n >= 2)
			(*out)[j++] = (*out)[i];
		else
			free((*out)[i].hosts);
	}
	*nout = j;
	free(u.p);
}

/* Whether both ends of pair p are in group g. */
static int
pair_in(const struct flowan_pair *p, const struct flowan_group *g)
{
	size_t k;
	int ina = 0, inb = 0;

	for (k = 0; k < g->n; k++) {
		ina |= g->hosts[k] == p->a;
		inb |= g->hosts[k] == p->b;
	}
	return ina && inb;
}

/*
 * Flip PP pairs whose ends share a DP component, then form the groups.
 * A component that holds a split pair (split_mixed()) spans stages whose
 * ranks straddle hosts: pipeline pairs inside it stay.
 */
static void
refine(const struct flowan *fa, struct flowan_job *job)
{
	size_t i, j, k;

	components(fa, job, FLOWAN_DP, &job->dp, &job->ndp);
	for (i = 0; i < job->npairs; i++) {
		struct flowan_pair *p = &job->pairs[i];

		if (p->type != FLOWAN_PP || p->split)
			continue;
		for (j = 0; j < job->ndp; j++) {
			if (!pair_in(p, &job->dp[j]))
				continue;
			for (k = 0; k < job->npairs; k++)
				if (job->pairs[k].split &&
				    pair_in(&job->pairs[k], &job->dp[j]))
					break;
			if (k == job->npairs)
				p->type = FLOWAN_DP;
		}
	}
	components(fa, job, FLOWAN_PP, &job->pp, &job->npp);
}

/* Build job c from the kept pairs of cluster c. */
static void
build_job(struct flowan *fa, struct flowan_job *job, const int *cl, int c,
    struct plist *pl, struct flowan_pair *fp, size_t n,
    const struct flowan_params *prm)
{
	size_t i;

	memset(job, 0, sizeof *job);
	for (i = 0; i < fa->set->nhosts; i++) {
		if (cl[i] != c)
			continue;
		job->hosts = xreallocarray(job->hosts, job->nhosts + 1,
		    sizeof *job->hosts);
		job->hosts[job->nhosts++] = (uint32_t)i;
	}
	sort_hosts(fa->set, job->hosts, job->nhosts);
	job_id(fa->set, job);
	for (i = 0; i < n; i++) {
		if (cl[pl[i].a] != c || cl[pl[i].b] != c)
			continue;
		job->pairs = xreallocarray(job->pairs, job->npairs + 1,
		    sizeof *job->pairs);
		job->pairs[job->npairs] = fp[i];
		if (host_cmp_addr(fa->set, pl[i].a, pl[i].b) > 0) {
			/* name pairs lower address first */
			struct flowan_pair *q = &job->pairs[job->npairs];

			uint32_t *e = q->end[0];
			size_t ne = q->nend[0];

			q->a = pl[i].a = fp[i].b;
			q->b = pl[i].b = fp[i].a;
			q->sig_ab = q->sig_bytes - q->sig_ab;
			q->end[0] = q->end[1];
			q->nend[0] = q->nend[1];
			q->end[1] = e;
			q->nend[1] = ne;
		}
		if (pl[i].keep) {
			type_pair(fa->set, &pl[i], prm, &job->pairs[job->npairs]);
			if (pl[i].kind != FLOWAN_OTHER) {
				job->pairs[job->npairs].type =
				    job->pairs[job->npairs].raw_type = pl[i].kind;
				job->pairs[job->npairs].split = 1;
			}
			job->pairs[job->npairs].msgs = pl[i].m;
			pl[i].m = NULL;
		}
		job->npairs++;
	}
	refine(fa, job);
	flowan_timeline(fa, job, prm);
}

int
flowan_analyse(struct flowan *fa, const struct flow_set *set,
    const struct flowan_params *prm, char **cause)
{
	return flowan_analyse_named(fa, set, NULL, prm, cause);
}

int
flowan_analyse_named(struct flowan *fa, const struct flow_set *set,
    char **names, const struct flowan_params *prm, char **cause)
{
	struct plist *pl;
	struct flowan_pair *fp;
	size_t n, i, ncl;
	int *cl;

	(void)cause;
	memset(fa, 0, sizeof *fa);
	fa->set = set;
	fa->names = names;
	pl = group_pairs(fa, &n);
	n = split_mixed(set, &pl, n);
	fp = xcalloc(n ? n : 1, sizeof *fp);
	for (i = 0; i < n; i++)
		pair_significant(set, &pl[i], &fp[i]);
	select_training(fa, prm, pl, fp, n);
	cl = cluster_hosts(fa, pl, n, &ncl);
	ncl = merge_equal_servers(fa, cl, ncl);
	fa->jobs = xcalloc(ncl ? ncl : 1, sizeof *fa->jobs);
	for (i = 0; i < ncl; i++)
		build_job(fa, &fa->jobs[i], cl, (int)i, pl, fp, n, prm);
	fa->njobs = ncl;
	for (i = 0; i < n; i++) {
		if (!pl[i].keep)
			fa->control_bytes += fp[i].bytes;
		if (cl[pl[i].a] < 0 || cl[pl[i].a] != cl[pl[i].b]) {
			free(fp[i].all);
			free(fp[i].end[0]);
			free(fp[i].end[1]);
		}
		free(pl[i].m);
	}
	free(pl);
	free(fp);
	free(cl);
	return 0;
}

static void
free_groups(struct flowan_group *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(g[i].hosts);
	free(g);
}

void
flowan_free(struct flowan *fa)
{
	size_t i, j, k;

	if (fa == NULL)
		return;
	for (i = 0; i < fa->njobs; i++) {
		struct flowan_job *job = &fa->jobs[i];

		free(job->hosts);
		free_groups(job->dp, job->ndp);
		free_groups(job->pp, job->npp);
		for (j = 0; j < job->npairs; j++) {
			free(job->pairs[j].msgs);
			free(job->pairs[j].all);
			free(job->pairs[j].end[0]);
			free(job->pairs[j].end[1]);
		}
		free(job->pairs);
		free(job->iters);
		free(job->hstat);
		free(job->gcomm);
		free(job->gbytes);
		free(job->hcomp);
		free(job->hcomm);
		for (j = 0; j < job->nfindings; j++) {
			struct flowan_finding *f = &job->findings[j];

			free(f->subject);
			free(f->iters);
			for (k = 0; k < f->nreasons; k++)
				free(f->reasons[k]);
			free(f->reasons);
		}
		free(job->findings);
	}
	free(fa->jobs);
	memset(fa, 0, sizeof *fa);
}

/* Student-t predictive density of x under Normal-Gamma parameters. */
static double
ng_pdf(double x, double mu, double ka, double al, double be)
{
	double sc2 = be * (ka + 1) / (al * ka);
	double d = (x - mu) * (x - mu) / (sc2 * 2 * al);

	return exp(lgamma(al + 0.5) - lgamma(al) -
	    0.5 * log(2 * al * M_PI * sc2) - (al + 0.5) * log1p(d));
}

/*
 * BOCD (Adams & MacKay) on x = log(gap) with a Normal-Gamma prior, in the
 * form where the first observation of a new run is scored under the prior
 * predictive: r[l] is the probability that the current run holds the last
 * l observations, and out[t - lag] = r[lag + 1] at time t is the
 * probability that a run started at t - lag.  (Scoring that observation
 * under the old runs' predictive instead makes the filtered P(r_t = 0)
 * equal to the hazard, whatever the data.)
 */
void
flowan_bocd(const double *gaps, size_t n, double hazard, size_t lag,
    double *out)
{
	double *r = xcalloc(n + 2, sizeof *r), *nr = xcalloc(n + 2, sizeof *nr);
	double *mu = xcalloc(n + 2, sizeof *mu), *ka = xcalloc(n + 2, sizeof *ka);
	double *al = xcalloc(n + 2, sizeof *al), *be = xcalloc(n + 2, sizeof *be);
	size_t t, l;

	for (t = 0; t < n; t++)
		out[t] = 0;
	mu[0] = -5; ka[0] = 0.1; al[0] = 1; be[0] = 1;	/* prior, slot 0 */
	for (t = 0; t < n; t++) {
		double x = log(gaps[t] > 1e-7 ? gaps[t] : 1e-7), z = 0, cp = 0;

		for (l = 1; l <= t; l++) {
			nr[l + 1] = r[l] * (1 - hazard) *
			    ng_pdf(x, mu[l], ka[l], al[l], be[l]);
			cp += r[l];
		}
		nr[1] = (t == 0 ? 1 : cp * hazard) *
		    ng_pdf(x, mu[0], ka[0], al[0], be[0]);
		for (l = 1; l <= t + 1; l++)
			z += nr[l];
		for (l = t + 1; l >= 1; l--) {	/* posterior of each run */
			r[l] = nr[l] / z;
			be[l] = be[l - 1] + ka[l - 1] * (x - mu[l - 1]) *
			    (x - mu[l - 1]) / (2 * (ka[l - 1] + 1));
			mu[l] = (ka[l - 1] * mu[l - 1] + x) / (ka[l - 1] + 1);
			ka[l] = ka[l - 1] + 1;
			al[l] = al[l - 1] + 0.5;
		}
		if (t >= lag)
			out[t - lag] = r[lag + 1];
	}
	free(r); free(nr); free(mu); free(ka); free(al); free(be);
}

const char *
flowan_type_name(enum flowan_type t)
{
	return t == FLOWAN_DP ? "dp" : t == FLOWAN_PP ? "pp" : "other";
}

const char *
flowan_kind_name(enum flowan_kind k)
{
	static const char *names[] = { "straggler", "slow-link", "slow-group",
	    "slow-iteration", "congestion", "stall", "slow-nic" };

	return names[k];
}

const char *
flowan_host_name(const struct flowan *fa, uint32_t h)
{
	static char buf[8][64];
	static int slot;
	char *b = buf[slot++ % 8];

	flow_addr_str(&fa->set->hosts[h], b, 64);
	return b;
}
