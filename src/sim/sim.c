/*
 * sim.c -- options, topology, faults and the timeline of a synthetic job.
 *
 * A job is N nodes of G GPUs, one rank per GPU, laid out in Megatron
 * order: rank = stage * (dp * tp) + dp_index * tp + tp_index, so tensor
 * parallel groups are consecutive ranks and stay inside a node.  Each
 * iteration every node computes for about 80% of --iter-ms (with jitter,
 * and slower on a straggler), the slowest pipeline decides when the data
 * parallel all-reduce starts, and the all-reduce takes the rest (longer
 * when a ring link is slow).  A checkpoint save follows every
 * save-interval iterations.  A crashing fault strikes at a point inside
 * its iteration and ends the timeline; what the logs and the wire show
 * afterwards is left to sim-log.c and sim-net.c.
 *
 * Everything random comes from generators seeded by --seed, one stream
 * per concern, so the same options give the same bytes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <dirent.h>

#include "base/json.h"
#include "sim/sim.h"
#include "base/util.h"

const char *const sim_kind_names[SIM_NKINDS] = {
	"ib-link-down", "gpu-xid79", "ecc", "cuda-oom", "nan-loss",
	"ckpt-save-io", "ckpt-load-missing", "config-error", "hang",
	"dataloader-stall", "straggler", "slow-link", "node-lost", "slow-nic"
};

static const char *const stage_names[] = {
	"none", "init", "checkpoint-load", "training", "checkpoint-save"
};

int
sim_kind_crashes(int kind)
{
	return kind != SIM_STRAGGLER && kind != SIM_SLOW_LINK &&
	    kind != SIM_SLOW_NIC;
}

static int
kind_at_launch(int kind)
{
	return kind == SIM_CONFIG_ERROR || kind == SIM_CKPT_LOAD_MISSING;
}

static int
parse_node(const char *s, int *node, char **cause)
{
	long v;

	if (strncmp(s, "node-", 5) == 0 || strncmp(s, "node", 4) == 0)
		s += s[4] == '-' ? 5 : 4;
	if (ts_parse_long(s, &v) != 0 || v < 1 || v > 100000)
		return ts_fail(cause, "bad node '%s' in fault (a number from 1 "
		    "or a name like node-003)", s);
	*node = (int)v - 1;
	return 0;
}

int
sim_parse_fault(const char *s, struct sim_fault *f, char **cause)
{
	char *copy = xstrdup(s), *at, *colon;
	long v;
	int k, rc = -1;

	memset(f, 0, sizeof *f);
	f->node = f->iter = -1;
	f->rank = f->peer = -1;
	if ((colon = strchr(copy, ':')) != NULL)
		*colon++ = '\0';
	if ((at = strchr(copy, '@')) != NULL)
		*at++ = '\0';
	for (k = 0; k < SIM_NKINDS; k++)
		if (strcmp(copy, sim_kind_names[k]) == 0)
			break;
	if (k == SIM_NKINDS) {
		ts_fail(cause, "unknown fault kind '%s'", copy);
		goto out;
	}
	f->kind = k;
	if (at != NULL && parse_node(at, &f->node, cause) != 0)
		goto out;
	if (colon != NULL) {
		if (ts_parse_long(colon, &v) != 0 || v < 1) {
			ts_fail(cause, "bad iteration '%s' in fault '%s'", colon, s);
			goto out;
		}
		f->iter = v;
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

int
sim_parse_size(const char *s, uint64_t *out, char **cause)
{
	char *end;
	double v;
	uint64_t mul = 1;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || v < 0)
		return ts_fail(cause, "bad size '%s'", s);
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end != '\0' || v * (double)mul < 1024)
		return ts_fail(cause, "bad size '%s' (like 100M, 1G, 10G)", s);
	*out = (uint64_t)(v * (double)mul);
	return 0;
}

void
sim_opts_defaults(struct sim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->nodes = 8;
	o->gpn = 8;
	o->iters = 100;
	o->iter_ms = 1000;
	o->micro = 8;
	o->flows = 1;
	o->skew_ms = 0;
	o->seed = 1;
}

/* Fill in what the user left out of dp/pp/tp and check the product. */
static int
check_parallel(struct sim_opts *o, char **cause)
{
	int world = o->nodes * o->gpn;

	if (o->tp == 0)
		o->tp = o->gpn % 8 == 0 ? 8 : o->gpn;
	if (o->gpn % o->tp != 0)
		return ts_fail(cause, "--tp %d must divide --gpus-per-node %d "
		    "(tensor parallel stays inside a node)", o->tp, o->gpn);
	if (world % o->tp != 0)
		return ts_fail(cause, "--tp %d does not divide %d GPUs", o->tp,
		    world);
	if (o->pp == 0 && o->dp != 0)
		o->pp = world / o->tp / o->dp;
	if (o->pp == 0)
		o->pp = (world / o->tp) % 2 == 0 ? 2 : 1;
	if (o->dp == 0)
		o->dp = world / o->tp / o->pp;
	if ((long)o->dp * o->pp * o->tp != world)
		return ts_fail(cause, "dp %d x pp %d x tp %d is not %d nodes x %d "
		    "GPUs", o->dp, o->pp, o->tp, o->nodes, o->gpn);
	return 0;
}

/* Faults that end the job must agree on when that happens. */
static int
check_faults(struct sim_opts *o, char **cause)
{
	size_t i, k;
	struct sim_fault *f, *g;

	if (o->healthy && o->nfaults > 0)
		return ts_fail(cause, "--healthy and --fault exclude each other");
	for (i = 0; i < o->nfaults; i++) {
		f = &o->faults[i];
		if (f->node >= o->nodes)
			return ts_fail(cause, "fault '%s' names node %d of %d",
			    sim_kind_names[f->kind], f->node + 1, o->nodes);
		if (f->iter > o->iters && o->size == 0)
			return ts_fail(cause, "fault '%s' at iteration %ld, after "
			    "the last (%ld)", sim_kind_names[f->kind], f->iter,
			    o->iters);
		if ((f->kind == SIM_SLOW_LINK || f->kind == SIM_SLOW_NIC) &&
		    o->nodes < 2)
			return ts_fail(cause, "%s needs two nodes",
			    sim_kind_names[f->kind]);
		for (k = 0; k < i; k++) {
			g = &o->faults[k];
			if (!sim_kind_crashes(f->kind) || !sim_kind_crashes(g->kind))
				continue;
			if (kind_at_launch(f->kind) != kind_at_launch(g->kind) ||
			    (f->iter != g->iter && f->iter > 0 && g->iter > 0))
				return ts_fail(cause, "faults '%s' and '%s' would "
				    "both end the job: give them the same iteration",
				    sim_kind_names[g->kind], sim_kind_names[f->kind]);
		}
	}
	return 0;
}

int
sim_opts_check(struct sim_opts *o, char **cause)
{
	if (o->nodes < 1 || o->gpn < 1)
		return ts_fail(cause, "need at least one node and one GPU");
	if (check_parallel(o, cause) != 0)
		return -1;
	if (o->micro < o->pp && o->pp > 1)
		return ts_fail(cause, "--micro-batches %d is fewer than --pp %d",
		    o->micro, o->pp);
	if (o->iters < 1 || o->iter_ms < 1)
		return ts_fail(cause, "--iters and --iter-ms must be positive");
	return check_faults(o, cause);
}

/* ------------------------------------------------------------ topology */

int
sim_rank_node(const struct sim_job *j, int rank)
{
	return rank / j->o.gpn;
}

int
sim_rank_stage(const struct sim_job *j, int rank)
{
	return rank / (j->o.dp * j->o.tp);
}

int
sim_rank_dp(const struct sim_job *j, int rank)
{
	return (rank / j->o.tp) % j->o.dp;
}

void
sim_add_cause(struct sim_job *j, const char *path, long line,
    const char *what)
{
	struct sim_cause *c;

	j->causes = xgrow(j->causes, &j->causes_cap, j->ncauses + 1,
	    sizeof *j->causes);
	c = &j->causes[j->ncauses++];
	c->path = xstrdup(path);
	c->line = line;
	c->what = xstrdup(what);
}

struct sim_fault *
sim_find_fault(struct sim_job *j, int kind)
{
	size_t i;

	for (i = 0; i < j->o.nfaults; i++)
		if (j->o.faults[i].kind == kind)
			return &j->o.faults[i];
	return NULL;
}

/*
 * The rank that rank r's traffic of `kind` goes to: 0 its DP ring's
 * successor, 1 its pipeline's next stage, 2 the stage before; -1 when it
 * has none.
 */
static int
rank_peer(const struct sim_job *j, int r, int kind)
{
	int s = sim_rank_stage(j, r), d = sim_rank_dp(j, r), t = r % j->o.tp;
	int dt = j->o.dp * j->o.tp;

	if (kind == 0)
		return j->o.dp > 1 ? s * dt + ((d + 1) % j->o.dp) * j->o.tp +
		    t : -1;
	if (kind == 1)
		return s + 1 < j->o.pp ? r + dt : -1;
	return s > 0 ? r - dt : -1;
}

int
sim_peer_rank(const struct sim_job *j, int rank)
{
	int node = sim_rank_node(j, rank), gpn = j->o.gpn, kind, i, q, p;

	for (kind = 0; kind < 3; kind++)
		for (i = 0; i < gpn; i++) {	/* rank first, then the others */
			q = node * gpn + (rank % gpn + i) % gpn;
			p = rank_peer(j, q, kind);
			if (p >= 0 && sim_rank_node(j, p) != node)
				return p;
		}
	return -1;
}

int
sim_peer_node(const struct sim_job *j, int node)
{
	int p = sim_peer_rank(j, node * j->o.gpn);

	return p >= 0 ? sim_rank_node(j, p) : node;
}

/* Choose what the seed decides: kind, node, iteration, rank. */
static void
resolve_faults(struct sim_job *j)
{
	struct sim_opts *o = &j->o;
	struct sim_fault *f;
	long crash_iter = -1;
	size_t i;

	if (o->nfaults == 0 && !o->healthy) {
		/* job_init() left room for one. */
		o->nfaults = 1;
		/* the kinds before slow-nic: seeds keep their fault */
		o->faults[0].kind = (int)rng_below(&j->rng, SIM_NODE_LOST + 1);
		o->faults[0].node = o->faults[0].iter = -1;
	}
	for (i = 0; i < o->nfaults; i++) {
		f = &o->faults[i];
		if (f->node < 0)
			f->node = (int)rng_below(&j->rng, (uint64_t)o->nodes);
		f->rank = f->node * o->gpn + (int)rng_below(&j->rng,
		    (uint64_t)o->gpn);
		if (f->iter < 0 && sim_kind_crashes(f->kind) && crash_iter > 0)
			f->iter = crash_iter;
		if (f->iter < 0)
			f->iter = (long)(o->iters * rng_range(&j->rng,
			    sim_kind_crashes(f->kind) ? 0.55 : 0.3, 0.85)) + 1;
		if (f->iter > o->iters)
			f->iter = o->iters;
		if (f->kind == SIM_CKPT_SAVE_IO)
			f->iter = ((f->iter + j->save_interval - 1) /
			    j->save_interval) * j->save_interval;
		if (f->kind == SIM_CKPT_SAVE_IO && f->iter > o->iters)
			f->iter = (o->iters / j->save_interval) * j->save_interval;
		if (kind_at_launch(f->kind))
			f->iter = 0;
		if (sim_kind_crashes(f->kind) && crash_iter < 0)
			crash_iter = f->iter;
		f->peer = f->kind == SIM_SLOW_LINK ? sim_peer_node(j, f->node) : -1;
		if (f->peer == f->node)	/* nothing leaves it: no link */
			f->peer = -1;
		f->factor = f->kind == SIM_STRAGGLER ?
		    rng_range(&j->rng, 1.3, 1.7) : f->kind == SIM_SLOW_NIC ?
		    rng_range(&j->rng, 3, 6) : rng_range(&j->rng, 5, 9);
	}
}

static long
pick_save_interval(long iters)
{
	static const long steps[] = { 5, 10, 25, 50, 100, 250, 500, 1000,
	    2000, 5000 };
	size_t i;

	for (i = 0; i < TS_NELEM(steps); i++)
		if (steps[i] * 4 >= iters)
			return steps[i];
	return 10000;
}

static void
job_topology(struct sim_job *j)
{
	int n, r;

	j->world = j->o.nodes * j->o.gpn;
	j->node_name = xcalloc((size_t)j->o.nodes, sizeof *j->node_name);
	j->node_ip = xcalloc((size_t)j->o.nodes, sizeof *j->node_ip);
	j->node_addr = xcalloc((size_t)j->o.nodes, sizeof *j->node_addr);
	j->skew = xcalloc((size_t)j->o.nodes, sizeof *j->skew);
	j->dead_node = xcalloc((size_t)j->o.nodes, sizeof *j->dead_node);
	j->pid = xcalloc((size_t)j->world, sizeof *j->pid);
	for (n = 0; n < j->o.nodes; n++) {
		j->node_name[n] = xasprintf("node-%03d", n + 1);
		j->node_addr[n] = (10u << 24) | (42u << 16) |
		    ((uint32_t)(n / 250) << 8) | (uint32_t)(n % 250 + 1);
		j->node_ip[n] = xasprintf("10.42.%d.%d", n / 250, n % 250 + 1);
		/* Always draw, so a skew changes nothing but the clocks. */
		j->skew[n] = rng_range(&j->rng, -1, 1) * j->o.skew_ms / 1000;
		if (n == 0)
			j->skew[n] = 0;	/* the master's clock is the reference */
	}
	for (r = 0; r < j->world; r++)
		j->pid[r] = 2000 + (int)rng_below(&j->rng, 60000);
	j->gbs = (long)j->o.dp * j->o.micro * 4;
}

static void
job_free(struct sim_job *j)
{
	size_t i;
	int n;

	for (n = 0; n < j->o.nodes && j->node_name != NULL; n++) {
		free(j->node_name[n]);
		free(j->node_ip[n]);
	}
	free(j->node_name);
	free(j->node_ip);
	free(j->node_addr);
	free(j->skew);
	free(j->dead_node);
	free(j->pid);
	for (i = 0; i < j->ncauses; i++) {
		free(j->causes[i].path);
		free(j->causes[i].what);
	}
	free(j->causes);
	free(j->it_start);
	free(j->it_end);
	free(j->it_node_ms);
	free(j->o.faults);
}

/* ------------------------------------------------------------ timeline */

/* Is fault `f` active on `node` in iteration `n`? */
static int
active(const struct sim_fault *f, int kind, int node, long n)
{
	return f != NULL && f->kind == kind && f->node == node && n >= f->iter;
}

static double
node_compute_ms(struct sim_job *j, int node, long n)
{
	double ms = j->o.iter_ms * 0.8 * (1 + 0.015 * rng_normal(&j->rng));
	size_t i;
	struct sim_fault *f;

	for (i = 0; i < j->o.nfaults; i++) {
		f = &j->o.faults[i];
		if (active(f, SIM_STRAGGLER, node, n))
			ms *= f->factor;
		if (f->kind == SIM_DATALOADER_STALL && f->node == node &&
		    n >= f->iter - 3 && n < f->iter)
			ms += j->o.iter_ms * rng_range(&j->rng, 1.5, 4);
	}
	return ms;
}

/*
 * Whether a DP ring of a rank on node a goes on to a rank on node b, or
 * with b < 0 to one on any other node (the ring leaves a).
 */
static int
ring_hop(const struct sim_job *j, int a, int b)
{
	int r, s, d, next, to;

	if (j->o.dp < 2)
		return 0;
	for (r = a * j->o.gpn; r < (a + 1) * j->o.gpn; r++) {
		s = sim_rank_stage(j, r);
		d = sim_rank_dp(j, r);
		next = s * j->o.dp * j->o.tp + ((d + 1) % j->o.dp) * j->o.tp +
		    r % j->o.tp;
		to = sim_rank_node(j, next);
		if (b < 0 ? to != a : to == b)
			return 1;
	}
	return 0;
}

static double
allreduce_ms(struct sim_job *j, long n)
{
	double ms = j->o.iter_ms * 0.18 * (1 + 0.03 * rng_normal(&j->rng));
	struct sim_fault *f = sim_find_fault(j, SIM_SLOW_LINK);

	/* A slow link slows the rings that cross it, if any. */
	if (f != NULL && n >= f->iter && f->peer >= 0 &&
	    (ring_hop(j, f->node, f->peer) || ring_hop(j, f->peer, f->node)))
		ms *= f->factor;
	/* A ring moves at its slowest link: the slow NIC's. */
	f = sim_find_fault(j, SIM_SLOW_NIC);
	if (f != NULL && n >= f->iter && ring_hop(j, f->node, -1))
		ms *= f->factor;
	if (j->o.dp == 1)
		ms *= 0.1;
	return ms;
}

static void
iter_metrics(struct sim_job *j, struct sim_iter *it)
{
	double warm = j->o.iters / 10.0 + 1, x = (double)it->n;
	struct sim_fault *f;

	it->lr = 3e-4 * (x < warm ? x / warm :
	    0.1 + 0.9 * 0.5 * (1 + cos(M_PI * (x - warm) /
	    (j->o.iters - warm + 1))));
	it->loss = 2.1 + 8.7 * exp(-x / (j->o.iters / 8.0 + 20)) +
	    0.02 * rng_normal(&j->rng);
	it->gnorm = fabs(0.8 + 0.6 * exp(-x / 50) + 0.08 * rng_normal(&j->rng));
	if (rng_below(&j->rng, 200) == 0)
		it->gnorm *= rng_range(&j->rng, 3, 8);	/* a benign spike */
	f = sim_find_fault(j, SIM_NAN_LOSS);
	if (f != NULL && it->n >= f->iter - 2 && it->n < f->iter) {
		/* Numerics going bad before the NaN shows up. */
		it->gnorm *= rng_range(&j->rng, 8, 30);
		it->loss += rng_range(&j->rng, 0.3, 1.5);
	}
}

/* Where inside iteration `it` the crash fault `f` strikes. */
static double
crash_point(struct sim_job *j, const struct sim_fault *f,
    const struct sim_iter *it)
{
	switch (f->kind) {
	case SIM_NAN_LOSS:
		return it->compute_end - 0.002;
	case SIM_CKPT_SAVE_IO:
		return it->end + (it->ckpt_end - it->end) * 0.4;
	default:
		return it->start + (it->end - it->start) *
		    rng_range(&j->rng, 0.2, 0.8);
	}
}

static void
record_iter(struct sim_job *j, const struct sim_iter *it)
{
	int n;

	if ((size_t)j->nit + 1 > j->it_cap) {
		size_t cap = j->it_cap, cap2 = j->it_cap, cap3;

		j->it_start = xgrow(j->it_start, &cap, (size_t)j->nit + 1,
		    sizeof *j->it_start);
		j->it_end = xgrow(j->it_end, &cap2, (size_t)j->nit + 1,
		    sizeof *j->it_end);
		cap3 = j->it_cap * (size_t)j->o.nodes;
		j->it_node_ms = xgrow(j->it_node_ms, &cap3,
		    cap * (size_t)j->o.nodes, sizeof *j->it_node_ms);
		j->it_cap = cap;
	}
	j->it_start[j->nit] = it->start;
	j->it_end[j->nit] = it->end;
	for (n = 0; n < j->o.nodes; n++)
		j->it_node_ms[(size_t)j->nit * (size_t)j->o.nodes + (size_t)n] =
		    (float)it->node_ms[n];
	j->nit++;
}

void
sim_pipe_schedule(const struct sim_job *j, const double *node_ms, int pipe,
    double *slot, double *fwd, double *bwd)
{
	int m = j->o.micro, pp = j->o.pp, s, k;
	int d = pipe / j->o.tp, t = pipe % j->o.tp;
	double ready;

	for (s = 0; s < pp; s++) {
		slot[s] = node_ms[sim_rank_node(j, s * j->o.dp * j->o.tp +
		    d * j->o.tp + t)] / 1000 / 3 / (m + pp - 1);
		for (k = 0; k < m; k++) {
			ready = s > 0 ? fwd[(s - 1) * m + k] : 0;
			if (k > 0 && fwd[s * m + k - 1] > ready)
				ready = fwd[s * m + k - 1];
			fwd[s * m + k] = ready + slot[s];
		}
	}
	for (s = pp - 1; s >= 0; s--)
		for (k = 0; k < m; k++) {
			ready = s + 1 < pp ? bwd[(s + 1) * m + k] :
			    fwd[s * m + m - 1];
			if (k > 0 && bwd[s * m + k - 1] > ready)
				ready = bwd[s * m + k - 1];
			bwd[s * m + k] = ready + 2 * slot[s];
		}
}

/*
 * When the slowest pipeline of an iteration whose nodes compute
 * node_ms[] is done, in seconds from its start.
 */
static double
pipelines_done(const struct sim_job *j, const double *node_ms)
{
	size_t m = (size_t)j->o.micro, pp = (size_t)j->o.pp;
	double *slot = xcalloc(pp, sizeof *slot);
	double *fwd = xcalloc(pp * m, sizeof *fwd);
	double *bwd = xcalloc(pp * m, sizeof *bwd), last = 0;
	int i;

	for (i = 0; i < j->o.dp * j->o.tp; i++) {
		sim_pipe_schedule(j, node_ms, i, slot, fwd, bwd);
		if (bwd[m - 1] > last)
			last = bwd[m - 1];
	}
	free(slot);
	free(fwd);
	free(bwd);
	return last;
}

/* Compute iteration it->n starting at it->start. */
static void
step(struct sim_job *j, struct sim_iter *it)
{
	double save;
	struct sim_fault *f;
	size_t i;
	int n;

	for (n = 0; n < j->o.nodes; n++)
		it->node_ms[n] = node_compute_ms(j, n, it->n);
	it->compute_end = it->start + pipelines_done(j, it->node_ms);
	it->ar_ms = allreduce_ms(j, it->n);
	it->end = it->compute_end + it->ar_ms / 1000;
	it->ckpt = it->n % j->save_interval == 0;
	save = it->ckpt ? rng_range(&j->rng, 1.5, 4.0) : 0;
	it->ckpt_end = it->end + save;
	iter_metrics(j, it);
	it->crash_ts = 0;
	for (i = 0; i < j->o.nfaults; i++) {
		f = &j->o.faults[i];
		if (sim_kind_crashes(f->kind) && f->iter == it->n &&
		    it->crash_ts == 0)
			it->crash_ts = crash_point(j, f, it);
	}
	for (i = 0; i < j->o.nfaults; i++)
		if (j->o.faults[i].iter == it->n)
			j->o.faults[i].ts = it->crash_ts > 0 ? it->crash_ts :
			    it->start;
}

/* ------------------------------------------------------------ output */

static int
make_dir(const char *path, char **cause)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		return ts_fail(cause, "cannot create '%s': %s", path,
		    strerror(errno));
	return 0;
}

static int
dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (d == NULL)
		return 1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			empty = 0;
	closedir(d);
	return empty;
}

static int
write_hostfile(struct sim_job *j, const char *dir, char **cause)
{
	char *path = xasprintf("%s/hostfile", dir);
	FILE *f = fopen(path, "w");
	int n, rc;

	if (f == NULL) {
		rc = ts_fail(cause, "cannot create '%s': %s", path,
		    strerror(errno));
		free(path);
		return rc;
	}
	for (n = 0; n < j->o.nodes; n++)
		fprintf(f, "%s slots=%d\n", j->node_name[n], j->o.gpn);
	rc = fclose(f) == 0 ? 0 : ts_fail(cause, "cannot write '%s'", path);
	free(path);
	return rc;
}

static void
json_int_list(struct json *js, const int *v, int n)
{
	int i;

	json_arr_begin(js);
	for (i = 0; i < n; i++)
		json_int(js, v[i]);
	json_arr_end(js);
}

static void
truth_ranks(struct sim_job *j, struct json *js)
{
	int r;
	char *p;

	json_key(js, "ranks");
	json_arr_begin(js);
	for (r = 0; r < j->world; r++) {
		json_obj_begin(js);
		json_key(js, "rank"); json_int(js, r);
		json_key(js, "node"); json_str(js, j->node_name[sim_rank_node(j, r)]);
		json_key(js, "ip"); json_str(js, j->node_ip[sim_rank_node(j, r)]);
		json_key(js, "local_rank"); json_int(js, r % j->o.gpn);
		json_key(js, "pp_stage"); json_int(js, sim_rank_stage(j, r));
		json_key(js, "dp_index"); json_int(js, sim_rank_dp(j, r));
		json_key(js, "tp_index"); json_int(js, r % j->o.tp);
		json_key(js, "pid"); json_int(js, j->pid[r]);
		p = simlog_rank_path(j, r);
		json_key(js, "log"); json_str(js, p);
		free(p);
		json_obj_end(js);
	}
	json_arr_end(js);
}

/* Data parallel groups (one per stage and tp index) and pipelines. */
static void
truth_groups(struct sim_job *j, struct json *js)
{
	int s, d, t, k, *rk = xcalloc((size_t)(j->o.dp + j->o.pp), sizeof *rk);
	int per = j->o.dp * j->o.tp;

	json_key(js, "dp_groups");
	json_arr_begin(js);
	for (s = 0; s < j->o.pp; s++)
		for (t = 0; t < j->o.tp; t++) {
			for (d = 0; d < j->o.dp; d++)
				rk[d] = s * per + d * j->o.tp + t;
			json_obj_begin(js);
			json_key(js, "pp_stage"); json_int(js, s);
			json_key(js, "tp_index"); json_int(js, t);
			json_key(js, "ranks"); json_int_list(js, rk, j->o.dp);
			json_key(js, "nodes");
			json_arr_begin(js);
			for (d = 0; d < j->o.dp; d++)
				json_str(js, j->node_name[sim_rank_node(j, rk[d])]);
			json_arr_end(js);
			json_obj_end(js);
		}
	json_arr_end(js);
	json_key(js, "pp_pipelines");
	json_arr_begin(js);
	for (d = 0; d < j->o.dp; d++)
		for (t = 0; t < j->o.tp; t++) {
			for (s = 0; s < j->o.pp; s++)
				rk[s] = s * per + d * j->o.tp + t;
			json_obj_begin(js);
			json_key(js, "dp_index"); json_int(js, d);
			json_key(js, "tp_index"); json_int(js, t);
			json_key(js, "ranks"); json_int_list(js, rk, j->o.pp);
			json_key(js, "stage_edges");
			json_arr_begin(js);
			for (k = 0; k + 1 < j->o.pp; k++) {
				json_arr_begin(js);
				json_str(js, j->node_ip[sim_rank_node(j, rk[k])]);
				json_str(js, j->node_ip[sim_rank_node(j, rk[k + 1])]);
				json_arr_end(js);
			}
			json_arr_end(js);
			json_obj_end(js);
		}
	json_arr_end(js);
	free(rk);
}

static const char *const format_names[] = { "megatron", "deepspeed", "hf" };
static const char *const layout_names[] = { "per-rank", "per-node",
	"combined" };
static const char *const prefix_names[] = { "srun", "default", "rank" };
static const char *const transport_names[] = { "roce", "tcp" };

static void
truth_job(struct sim_job *j, struct json *js)
{
	int n;

	json_key(js, "job");
	json_obj_begin(js);
	json_key(js, "job_id"); json_str(js, "gpt-sim");
	json_key(js, "format"); json_str(js, format_names[j->o.format]);
	json_key(js, "layout"); json_str(js, layout_names[j->o.layout]);
	json_key(js, "prefix"); json_str(js, prefix_names[j->o.prefix]);
	json_key(js, "gzip"); json_bool(js, j->o.gzip);
	json_key(js, "world_size"); json_int(js, j->world);
	json_key(js, "dp"); json_int(js, j->o.dp);
	json_key(js, "pp"); json_int(js, j->o.pp);
	json_key(js, "tp"); json_int(js, j->o.tp);
	json_key(js, "ranks_per_node"); json_int(js, j->o.gpn);
	json_key(js, "rank_order");
	json_str(js, "rank = pp_stage * dp * tp + dp_index * tp + tp_index");
	json_key(js, "master"); json_str(js, j->node_ip[0]);
	json_key(js, "master_port"); json_int(js, 29500);
	json_key(js, "nodes");
	json_arr_begin(js);
	for (n = 0; n < j->o.nodes; n++)
		json_str(js, j->node_name[n]);
	json_arr_end(js);
	json_key(js, "node_ips");
	json_arr_begin(js);
	for (n = 0; n < j->o.nodes; n++)
		json_str(js, j->node_ip[n]);
	json_arr_end(js);
	json_key(js, "clock_skew_ms");
	json_arr_begin(js);
	for (n = 0; n < j->o.nodes; n++)
		json_numf(js, j->skew[n] * 1000, 3);
	json_arr_end(js);
	json_key(js, "train_iters"); json_int(js, j->o.iters);
	json_key(js, "save_interval"); json_int(js, j->save_interval);
	json_key(js, "micro_batches"); json_int(js, j->o.micro);
	json_key(js, "global_batch_size"); json_int(js, j->gbs);
	json_key(js, "iter_ms"); json_num(js, j->o.iter_ms);
	json_key(js, "launch_ts"); json_numf(js, j->t0, 6);
	json_key(js, "train_start_ts"); json_numf(js, j->train_start, 6);
	json_key(js, "end_ts"); json_numf(js, j->end_ts, 6);
	truth_ranks(j, js);
	truth_groups(j, js);
	json_obj_end(js);
}

static void
truth_faults(struct sim_job *j, struct json *js)
{
	struct sim_fault *f;
	size_t i;

	json_key(js, "faults");
	json_arr_begin(js);
	for (i = 0; i < j->o.nfaults; i++) {
		f = &j->o.faults[i];
		json_obj_begin(js);
		json_key(js, "kind"); json_str(js, sim_kind_names[f->kind]);
		json_key(js, "node");
		json_str(js, f->kind == SIM_CONFIG_ERROR ? NULL :
		    j->node_name[f->node]);
		json_key(js, "rank"); json_int(js, f->rank);
		json_key(js, "iteration"); json_int(js, f->iter);
		json_key(js, "time"); json_numf(js, f->ts, 6);
		json_key(js, "crashes"); json_bool(js, sim_kind_crashes(f->kind));
		if (f->peer >= 0) {
			json_key(js, "peer_node");
			json_str(js, j->node_name[f->peer]);
		}
		if (!sim_kind_crashes(f->kind)) {
			json_key(js, "factor"); json_numf(js, f->factor, 3);
		}
		json_obj_end(js);
	}
	json_arr_end(js);
}

/* The fault that decides the outcome: the first crashing one. */
static struct sim_fault *
primary_fault(struct sim_job *j)
{
	size_t i;

	for (i = 0; i < j->o.nfaults; i++)
		if (sim_kind_crashes(j->o.faults[i].kind))
			return &j->o.faults[i];
	return j->o.nfaults > 0 ? &j->o.faults[0] : NULL;
}

/* What a log diagnosis should conclude. */
static void
truth_log(struct sim_job *j, struct json *js)
{
	struct sim_fault *f = primary_fault(j);
	size_t i;
	int n, all = f != NULL && f->kind == SIM_CONFIG_ERROR;
	long last;
	char where[4096];

	json_key(js, "log_truth");
	json_obj_begin(js);
	json_key(js, "healthy"); json_bool(js, f == NULL);
	json_key(js, "faulty_node");
	json_str(js, f == NULL || all ? NULL : j->node_name[f->node]);
	json_key(js, "faulty_nodes");
	json_arr_begin(js);
	for (n = 0; n < j->o.nodes; n++) {
		for (i = 0; i < j->o.nfaults; i++)
			if (all || j->o.faults[i].node == n ||
			    j->o.faults[i].peer == n)
				break;
		if (i < j->o.nfaults)
			json_str(js, j->node_name[n]);
	}
	json_arr_end(js);
	json_key(js, "root_cause");
	json_arr_begin(js);
	for (i = 0; i < j->ncauses; i++) {
		json_obj_begin(js);
		json_key(js, "path"); json_str(js, j->causes[i].path);
		json_key(js, "line"); json_int(js, j->causes[i].line);
		snprintf(where, sizeof where, "%s:%ld", j->causes[i].path,
		    j->causes[i].line);
		json_key(js, "where"); json_str(js, where);
		json_key(js, "text"); json_str(js, j->causes[i].what);
		json_obj_end(js);
	}
	json_arr_end(js);
	json_key(js, "kind"); json_str(js, f ? sim_kind_names[f->kind] : NULL);
	json_key(js, "crashed"); json_bool(js, j->crashed);
	json_key(js, "stage");
	json_str(js, f == NULL ? NULL : stage_names[j->crash_stage]);
	json_key(js, "failure_iteration");
	if (f == NULL) json_null(js); else json_int(js, f->iter);
	last = f == NULL ? j->nit : f->kind == SIM_CKPT_SAVE_IO ? f->iter :
	    f->iter - 1;
	json_key(js, "last_healthy_iteration");
	if (last < 0) json_null(js); else json_int(js, last);
	json_key(js, "crash_time");
	if (j->crashed) json_numf(js, j->crash_ts, 6); else json_null(js);
	json_obj_end(js);
}

static void
truth_iterations(struct sim_job *j, struct json *js)
{
	long i;
	int n;

	json_key(js, "iterations");
	json_arr_begin(js);
	for (i = 0; i < j->nit; i++) {
		json_obj_begin(js);
		json_key(js, "iteration"); json_int(js, i + 1);
		json_key(js, "start_ts"); json_numf(js, j->it_start[i], 6);
		json_key(js, "end_ts"); json_numf(js, j->it_end[i], 6);
		json_key(js, "node_ms");
		json_arr_begin(js);
		for (n = 0; n < j->o.nodes; n++)
			json_numf(js, j->it_node_ms[(size_t)i *
			    (size_t)j->o.nodes + (size_t)n], 1);
		json_arr_end(js);
		json_obj_end(js);
	}
	json_arr_end(js);
}

static int
write_truth(struct sim_job *j, const char *dir, char **cause)
{
	char *path = xasprintf("%s/truth.json", dir);
	FILE *f = fopen(path, "w");
	struct json js;
	int rc;

	if (f == NULL) {
		rc = ts_fail(cause, "cannot create '%s': %s", path,
		    strerror(errno));
		free(path);
		return rc;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	json_init(&js, f, 1);
	json_obj_begin(&js);
	json_key(&js, "generator"); json_str(&js, "trainscope simulate");
	json_key(&js, "seed"); json_int(&js, (int64_t)j->o.seed);
	truth_job(j, &js);
	truth_faults(j, &js);
	truth_log(j, &js);
	json_key(&js, "capture");
	json_obj_begin(&js);
	json_key(&js, "pcap"); json_str(&js, j->o.flows ? "flows.pcap" : NULL);
	json_key(&js, "transport");
	json_str(&js, transport_names[j->o.transport]);
	json_key(&js, "snaplen"); json_int(&js, 128);
	json_key(&js, "storage_ip"); json_str(&js, "10.42.200.10");
	json_key(&js, "from_iteration");
	json_int(&js, j->o.capture_iters > 0 && j->o.capture_iters < j->o.iters ?
	    j->o.iters - j->o.capture_iters + 1 : 1);
	json_obj_end(&js);
	truth_iterations(j, &js);
	json_obj_end(&js);
	json_finish(&js);
	rc = fclose(f) == 0 ? 0 : ts_fail(cause, "cannot write '%s'", path);
	free(path);
	return rc;
}

/* ------------------------------------------------------------ driver */

static void
job_init(struct sim_job *j, const struct sim_opts *o)
{
	memset(j, 0, sizeof *j);
	j->o = *o;
	j->o.faults = xcalloc(o->nfaults + 1, sizeof *o->faults);
	if (o->nfaults > 0)
		memcpy(j->o.faults, o->faults, o->nfaults * sizeof *o->faults);
	rng_seed(&j->rng, o->seed * 0x9e3779b97f4a7c15ULL + 17);
	/* Launch time: a fixed day in 2026, moved by the seed. */
	j->t0 = 1773482400.0 + (double)(o->seed % 1000) * 3671.0 +
	    rng_range(&j->rng, 0, 1);
	job_topology(j);
	if (j->o.size > 0) {
		j->o.iters = (long)(j->o.size / simlog_iter_bytes(j)) + 1;
		if (j->o.iters < 10)
			j->o.iters = 10;
		if (j->o.capture_iters == 0)
			j->o.capture_iters = 200;
	}
	j->save_interval = pick_save_interval(j->o.iters);
	resolve_faults(j);
}

int
sim_capture_verdict(uint64_t per_iter, long n, uint64_t avail)
{
	double total = (double)per_iter * (double)(n > 0 ? n : 0);

	if (total * 1.05 > (double)avail)
		return SIM_CAP_NOROOM;
	return total >= (double)SIM_CAP_LARGE_BYTES ? SIM_CAP_LARGE :
	    SIM_CAP_OK;
}

/*
 * After the first captured iteration: what the whole capture will take.
 * A capture too large for its disk stops the run before it fills it; a
 * large one is said, so that nobody waits on 40 GB unawares.
 */
static int
capture_check(uint64_t per_iter, long n, const char *outdir, FILE *err,
    char **cause)
{
	struct statvfs sv;
	uint64_t avail = UINT64_MAX;
	char tot[32], one[32], fr[32];

	if (statvfs(outdir, &sv) == 0)
		avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	ts_human_size((uint64_t)((double)per_iter * (double)n), tot, sizeof tot);
	ts_human_size(per_iter, one, sizeof one);
	switch (sim_capture_verdict(per_iter, n, avail)) {
	case SIM_CAP_NOROOM:
		ts_human_size(avail, fr, sizeof fr);
		return ts_fail(cause, "the capture would take about %s (%s an "
		    "iteration, %ld iteration%s) and only %s %s free in '%s': "
		    "give --capture-iters N, fewer --iters, or --no-flows",
		    tot, one, n, n == 1 ? "" : "s", fr,
		    avail == 1 ? "is" : "are", outdir);
	case SIM_CAP_LARGE:
		if (err != NULL)
			fprintf(err, "trainscope: simulate: the capture will take "
			    "about %s (%s an iteration, %ld iteration%s); "
			    "--capture-iters N or --no-flows make it smaller\n",
			    tot, one, n, n == 1 ? "" : "s");
		break;
	}
	return 0;
}

/* Run the iterations until the end or the crash. */
static int
run_iters(struct sim_job *j, struct simlog *lg, struct simnet *net,
    const char *outdir, FILE *progress, FILE *err, char **cause)
{
	uint64_t before = 0;
	struct sim_iter it;
	long first_cap = j->o.capture_iters > 0 ?
	    j->o.iters - j->o.capture_iters + 1 : 1;
	double next = j->train_start;
	int rc = 0;

	memset(&it, 0, sizeof it);
	it.node_ms = xcalloc((size_t)j->o.nodes, sizeof *it.node_ms);
	for (it.n = 1; it.n <= j->o.iters && rc == 0; it.n++) {
		it.start = next;
		step(j, &it);
		record_iter(j, &it);
		next = it.ckpt_end;
		if ((rc = simlog_iter(lg, &it, cause)) != 0)
			break;
		if (net != NULL && it.n == first_cap)
			before = simnet_bytes(net);
		if (net != NULL && (rc = simnet_iter(net, &it, it.n >= first_cap,
		    cause)) != 0)
			break;
		if (net != NULL && it.n == first_cap && (rc = capture_check(
		    simnet_bytes(net) - before, j->o.iters - first_cap + 1,
		    outdir, err, cause)) != 0)
			break;
		if (progress != NULL && it.n % 1000 == 0)
			fprintf(progress, "\rsimulate: iteration %ld/%ld",
			    it.n, j->o.iters);
		if (it.crash_ts > 0) {
			j->crashed = 1;
			j->crash_iter = it.n;
			j->crash_ts = it.crash_ts;
			j->crash_stage = it.crash_ts > it.end ? SIM_ST_SAVE :
			    SIM_ST_TRAIN;
			break;
		}
	}
	if (progress != NULL && j->o.iters >= 1000)
		fputc('\n', progress);
	j->end_ts = next;
	free(it.node_ms);
	return rc;
}

static int
prepare_dir(const char *outdir, char **cause)
{
	struct stat st;

	if (stat(outdir, &st) == 0 && !S_ISDIR(st.st_mode))
		return ts_fail(cause, "'%s' is not a directory", outdir);
	if (!dir_is_empty(outdir))
		return ts_fail(cause, "'%s' is not empty", outdir);
	return make_dir(outdir, cause);
}

/* Let a per-rank layout keep one file per rank open. */
static void
raise_file_limit(int want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= (rlim_t)want)
		return;
	rl.rlim_cur = rl.rlim_max < (rlim_t)want ? rl.rlim_max : (rlim_t)want;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void
summary(struct sim_job *j, const char *outdir, FILE *out)
{
	struct sim_fault *f = primary_fault(j);

	fprintf(out, "%s: %d nodes x %d GPUs (dp %d, pp %d, tp %d), %ld "
	    "iterations, %.1f MB of logs, ", outdir, j->o.nodes, j->o.gpn,
	    j->o.dp, j->o.pp, j->o.tp, j->nit,
	    (double)j->log_bytes / (1024 * 1024));
	if (f == NULL)
		fprintf(out, "healthy\n");
	else if (f->kind == SIM_CONFIG_ERROR)
		fprintf(out, "fault %s at launch\n", sim_kind_names[f->kind]);
	else
		fprintf(out, "fault %s on %s at iteration %ld\n",
		    sim_kind_names[f->kind], j->node_name[f->node], f->iter);
}

int
sim_run(const struct sim_opts *o, const char *outdir, FILE *out,
    FILE *progress, FILE *err, char **cause)
{
	struct sim_job j;
	struct simlog *lg = NULL;
	struct simnet *net = NULL;
	char *pcap = NULL;
	int rc = -1;

	if (prepare_dir(outdir, cause) != 0)
		return -1;
	job_init(&j, o);
	raise_file_limit(j.world + o->nodes + 64);
	if ((lg = simlog_open(&j, outdir, cause)) == NULL)
		goto out;
	if (j.o.flows) {
		pcap = xasprintf("%s/flows.pcap", outdir);
		if ((net = simnet_open(&j, pcap, cause)) == NULL)
			goto out;
	}
	if (simlog_launch(lg, cause) != 0)
		goto out;
	if (net != NULL && simnet_launch(net, cause) != 0)
		goto out;
	if (!j.crashed && run_iters(&j, lg, net, outdir, progress, err, cause) != 0)
		goto out;
	if (j.crashed && j.crash_iter == 0)
		j.end_ts = j.crash_ts;
	rc = simlog_finish(lg, cause);
	lg = NULL;
	if (net != NULL && rc == 0) {
		rc = simnet_finish(net, cause);
		net = NULL;
	}
	if (rc == 0)
		rc = write_hostfile(&j, outdir, cause);
	if (rc == 0)
		rc = write_truth(&j, outdir, cause);
	if (rc == 0 && out != NULL)
		summary(&j, outdir, out);
out:
	simlog_free(lg);
	simnet_free(net);
	free(pcap);
	job_free(&j);
	return rc;
}
