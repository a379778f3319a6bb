/*
 * diag.c -- the failure-diagnosis scorer.
 *
 * Every template gets five sub-scores in [0, 1] and every node four; the
 * weighted sums rank them, and each sub-score that counts adds a sentence
 * to the reasons.  For templates:
 *
 *   novelty    1 - (healthy jobs it occurs in / healthy jobs); 1 when
 *              its per-node rate is ten times the healthy rate; 0.5
 *              when there is no healthy history (the step is skipped);
 *   spatial    how localised it is: (nodes - nodes with it) / (nodes - 1),
 *              or a count far above its peers' on some node (robust z);
 *   temporal   it is new in an anomalous iteration or in the final,
 *              unfinished iteration of a stream (one that an error cut
 *              short), or in the error that ends a rank log without
 *              iteration lines; a labelled line of a log without
 *              iterations (a kernel log) logged in the minute before
 *              that (dated by a kernel line when no training line has
 *              a time); events of
 *              the stages before training, in a job that reached
 *              training, are demoted;
 *   library    the weight of its fault category (causes above
 *              consequences such as timeouts);
 *   onset      it began before the first timeout of the job;
 *
 * plus a little for error and warning levels.  Nodes are ranked by their
 * spatial anomaly (isolation forest, or robust z-scores when there are
 * fewer than eight nodes), the best localised event they carry, a log that
 * ends early, silently (one of its ranks stops without an error while the
 * other ranks report errors) or is missing, the earliest error onset, and
 * evidence from outside the logs (a straggler or slow link in the job's
 * network captures, see flowjoin.c).
 * Pseudo nodes (lines of no rank in a combined log) carry events but are
 * neither ranked nor compared; the job's nodes are partitioned so that
 * they come last and job->nreal counts the machines.  A traceback's
 * frames and other context lines, and progress bars, are no events (the
 * exception line carries its trace).  Besides the templates, the
 * diagnosis has events of its own (DIAG_SYNTH): a hang, and, in a job
 * that did not run to the end, a rank that stops silently, a log that
 * ends early, a node or rank with no line; they rank below an error a
 * rank reported itself and above the timeouts they cause.  A run that
 * went on to the end with its loss or grad norm bad for good diverged
 * (diverge.c).
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "diag/diag.h"
#include "diag/model.h"
#include "diag/dtw.h"
#include "diag/diverge.h"
#include "diag/faults.h"
#include "diag/iforest.h"
#include "base/json.h"
#include "base/stats.h"
#include "base/util.h"

#define DIAG_TREES 100
#define DIAG_FEW_NODES 8
/*
 * Seconds before the failure in which lines of logs without iterations
 * count (and a few after: a kernel logs its side a little later).
 */
#define DIAG_FAIL_WINDOW 60

/* ------------------------------------------------------------ the model */

struct diag_job *
diag_job_new(const char *name)
{
	struct diag_job *job = xcalloc(1, sizeof *job);

	job->name = xstrdup(name);
	job->spans_first = job->spans_last = NAN;
	return job;
}

void
diag_job_free(struct diag_job *job)
{
	size_t i;

	if (job == NULL)
		return;
	for (i = 0; i < job->nnodes; i++) {
		free(job->nodes[i].name);
		while (job->nodes[i].noutside > 0)
			free(job->nodes[i].outside_why[--job->nodes[i].noutside]);
		free(job->nodes[i].outside_why);
	}
	for (i = 0; i < job->ntmpls; i++) {
		free(job->tmpls[i].text);
		free(job->tmpls[i].sample);
		free(job->tmpls[i].category);
		free(job->tmpls[i].first.path);
		free(job->tmpls[i].trace);
	}
	for (i = 0; i < job->nstreams; i++) {
		struct diag_stream *s = &job->streams[i];

		while (s->ncands > 0) {
			free(s->cands[--s->ncands].fresh);
			free(s->cands[s->ncands].wnew);
		}
		free(s->cands);
		free(s->tail.fresh);
		free(s->tail.wnew);
		free(job->streams[i].events);
		free(job->streams[i].iters);
		free(job->streams[i].path);
		free(job->streams[i].file);
	}
	for (i = 0; i < job->nabsent; i++)
		free(job->absent[i].node);
	for (i = 0; i < (size_t)job->nhealthy && job->healthy_names; i++)
		free(job->healthy_names[i]);
	free(job->healthy_names);
	free(job->absent);
	free(job->times);
	free(job->losses);
	free(job->losspath);
	free(job->spans);
	for (i = 0; i < STAGE_COUNT; i++)
		free(job->slots[i]);
	free(job->nodes);
	free(job->tmpls);
	free(job->streams);
	free(job->counts);
	diag_fold_free(job->fold);
	free(job->name);
	free(job->root);
	free(job);
}

size_t
diag_add_node(struct diag_job *job, const char *name)
{
	struct diag_node *n;

	job->nodes = xgrow(job->nodes, &job->nodecap, job->nnodes + 1,
	    sizeof *job->nodes);
	n = &job->nodes[job->nnodes];
	memset(n, 0, sizeof *n);
	n->name = xstrdup(name);
	n->first_error_ts = NAN;
	n->last_ts = NAN;
	n->last_iter = -1;
	n->absent = -1;
	if (job->counts != NULL) {	/* node-major: one more zero row */
		job->counts = xreallocarray(job->counts, (job->nnodes + 1) *
		    job->ntmpls + 1, sizeof *job->counts);
		memset(job->counts + job->nnodes * job->ntmpls, 0,
		    job->ntmpls * sizeof *job->counts);
	}
	return job->nnodes++;
}

int
diag_node_evidence(struct diag_job *job, const char *name, double weight,
    const char *reason)
{
	struct diag_node *n;
	size_t i;

	for (i = 0; i < job->nnodes; i++)
		if (strcmp(job->nodes[i].name, name) == 0)
			break;
	if (i == job->nnodes)
		return -1;
	n = &job->nodes[i];
	if (weight > n->outside)
		n->outside = weight > 1 ? 1 : weight;
	n->outside_why = xreallocarray(n->outside_why, n->noutside + 1,
	    sizeof *n->outside_why);
	n->outside_why[n->noutside++] = xstrdup(reason);
	return 0;
}

void
diag_add_absent(struct diag_job *job, long rank, const char *node)
{
	job->absent = xgrow(job->absent, &job->absentcap, job->nabsent + 1,
	    sizeof *job->absent);
	job->absent[job->nabsent].rank = rank;
	job->absent[job->nabsent++].node = xstrdup(node);
}

size_t
diag_add_tmpl(struct diag_job *job, uint32_t id, const char *text)
{
	struct diag_tmpl *t;

	job->tmpls = xgrow(job->tmpls, &job->tmplcap, job->ntmpls + 1,
	    sizeof *job->tmpls);
	t = &job->tmpls[job->ntmpls];
	memset(t, 0, sizeof *t);
	t->id = id;
	t->text = xstrdup(text);
	t->first.ts = NAN;
	t->first.iteration = -1;
	return job->ntmpls++;
}

size_t
diag_add_stream(struct diag_job *job, size_t node, const char *path)
{
	struct diag_stream *s;

	job->streams = xgrow(job->streams, &job->streamcap, job->nstreams + 1,
	    sizeof *job->streams);
	s = &job->streams[job->nstreams];
	memset(s, 0, sizeof *s);
	s->node = node;
	s->path = xstrdup(path);
	s->last_iter = -1;
	s->last_ts = NAN;
	s->last_iter_ts = NAN;
	return job->nstreams++;
}

void
diag_set_first(struct diag_job *job, size_t tmpl, size_t node,
    const char *path, long line, double ts, enum stage stage, long iteration)
{
	struct diag_first *f = &job->tmpls[tmpl].first;

	free(f->path);
	f->node = node;
	f->path = xstrdup(path);
	f->line = line;
	f->ts = ts;
	f->stage = stage;
	f->iteration = iteration;
}

void
diag_job_shape(struct diag_job *job)
{
	free(job->counts);
	job->counts = xcalloc(job->nnodes * job->ntmpls + 1,
	    sizeof *job->counts);
}

void
diag_count(struct diag_job *job, size_t node, size_t tmpl, uint32_t n)
{
	job->counts[node * job->ntmpls + tmpl] += n;
}

struct diag_iter *
diag_stream_iter(struct diag_job *job, size_t stream, long iteration,
    double ts)
{
	struct diag_stream *s = &job->streams[stream];
	struct diag_iter *it;

	s->iters = xgrow(s->iters, &s->cap, s->niters + 1, sizeof *s->iters);
	it = &s->iters[s->niters++];
	memset(it, 0, sizeof *it);
	it->iteration = iteration;
	it->ts = ts;
	it->end_ts = NAN;
	it->off = s->nevents;
	return it;
}

void
diag_stream_event(struct diag_job *job, size_t stream, uint32_t id)
{
	struct diag_stream *s = &job->streams[stream];
	struct diag_iter *it;

	if (s->niters == 0)
		diag_stream_iter(job, stream, -1, NAN);
	it = &s->iters[s->niters - 1];
	s->events = xgrow(s->events, &s->evcap, s->nevents + 1,
	    sizeof *s->events);
	s->events[s->nevents++] = id;
	it->n++;
}

void
diag_add_time(struct diag_job *job, long iteration, double ms)
{
	job->times = xgrow(job->times, &job->timecap, job->ntimes + 1,
	    sizeof *job->times);
	job->times[job->ntimes].iteration = iteration;
	job->times[job->ntimes++].ms = ms;
}

void
diag_add_metrics(struct diag_job *job, long iteration,
    const struct stage_iter *it, size_t tmpl, const char *path, long line)
{
	struct diag_loss one, *x;

	if (!it->has_loss && !it->has_gnorm && it->has_hp == 0)
		return;
	if (job->losspath == NULL)
		job->losspath = xstrdup(path);
	else if (strcmp(job->losspath, path) != 0)
		return;
	if (job->losses == NULL)
		job->losses = xcalloc(1, sizeof *job->losses);
	job->nlosses++;
	x = &one;
	memset(x, 0, sizeof *x);
	x->iteration = iteration;
	x->loss = it->has_loss ? it->loss : NAN;
	x->gnorm = it->has_gnorm ? it->gnorm : NAN;
	x->has_loss = it->has_loss;
	x->has_gnorm = it->has_gnorm;
	x->has_hp = it->has_hp;
	memcpy(x->hp, it->hp, sizeof x->hp);
	x->tmpl = tmpl;
	x->line = line;
	diverge_add(job->losses, x);
}

static void span_close(struct diag_job *job, struct diag_stream *s);

void
diag_stream_end(struct diag_job *job, size_t stream, long last_iter,
    enum stage last_stage, double last_ts)
{
	struct diag_stream *s = &job->streams[stream];

	s->last_iter = last_iter;
	s->last_stage = last_stage;
	s->last_ts = last_ts;
	if (s->niters > 0 && s->iters[s->niters - 1].iteration > last_iter)
		s->iters[s->niters - 1].truncated = 1;
	span_close(job, s);
}

/* ------------------------------------------------------------ reasons */

/* The job's slot of the n-th stretch of stage st, made when new. */
static struct diag_slot *
span_slot(struct diag_job *job, enum stage st, size_t n)
{
	size_t old = job->nslots[st], cap = old;

	if (n >= old) {
		job->slots[st] = xgrow(job->slots[st], &cap, n + 1,
		    sizeof *job->slots[st]);
		for (; old < cap; old++) {
			job->slots[st][old].span = 0;
			job->slots[st][old].iter_to = -1;
		}
		job->nslots[st] = cap;
	}
	return &job->slots[st][n];
}

/* Fold the stream's open stretch into the job's. */
static void
span_close(struct diag_job *job, struct diag_stream *s)
{
	struct diag_slot *sl;
	struct diag_span *sp;

	if (!s->in_span)
		return;
	s->in_span = 0;
	sl = span_slot(job, s->span_stage, s->span_ord);
	if (s->span_to > sl->iter_to)
		sl->iter_to = s->span_to;
	if (!isnan(s->span_start) && (isnan(job->spans_first) ||
	    s->span_start < job->spans_first))
		job->spans_first = s->span_start;
	if (!isnan(s->span_end) && (isnan(job->spans_last) ||
	    s->span_end > job->spans_last))
		job->spans_last = s->span_end;
	/* a launcher's lines are no stage of the training */
	if (sl->span == 0 || job->nodes[s->node].pseudo)
		return;
	sp = &job->spans[sl->span - 1];
	if (!isnan(s->span_start) && (isnan(sp->start) ||
	    s->span_start < sp->start))
		sp->start = s->span_start;
	if (!isnan(s->span_end) && (isnan(sp->end) || s->span_end > sp->end))
		sp->end = s->span_end;
	if (s->span_from >= 0 && (sp->iter_from < 0 ||
	    s->span_from < sp->iter_from))
		sp->iter_from = s->span_from;
}

/*
 * Open the stream's next stretch, in stage st: the job's stretch of its
 * ordinal is made when it is the first (of a machine's stream).
 */
static void
span_open(struct diag_job *job, struct diag_stream *s, enum stage st)
{
	struct diag_slot *sl;
	struct diag_span *sp;

	s->in_span = 1;
	s->span_stage = st;
	s->span_ord = s->nth[st]++;
	s->span_start = s->span_end = NAN;
	s->span_from = s->span_to = -1;
	sl = span_slot(job, st, s->span_ord);
	if (sl->span != 0 || job->nodes[s->node].pseudo)
		return;
	job->spans = xgrow(job->spans, &job->spancap, job->nspans + 1,
	    sizeof *job->spans);
	sp = &job->spans[job->nspans++];
	sp->stage = st;
	sp->start = sp->end = NAN;
	sp->iter_from = sp->iter_to = -1;
	sl->span = job->nspans;
}

void
diag_span_line(struct diag_job *job, size_t stream, enum stage st,
    double ts, long iter)
{
	struct diag_stream *s = &job->streams[stream];

	if (!s->in_span || s->span_stage != st) {
		span_close(job, s);
		span_open(job, s, st);
	}
	if (!isnan(ts)) {
		if (isnan(s->span_start))
			s->span_start = ts;
		s->span_end = ts;
	}
	if (iter >= 0) {
		if (s->span_from < 0)
			s->span_from = iter;
		s->span_to = iter;
	}
}

void
diag_spans(struct diag_job *job)
{
	size_t i, st;

	for (i = 0; i < job->nstreams; i++)
		span_close(job, &job->streams[i]);
	for (st = 0; st < STAGE_COUNT; st++)
		for (i = 0; i < job->nslots[st]; i++)
			if (job->slots[st][i].span != 0)
				job->spans[job->slots[st][i].span - 1].iter_to =
				    job->slots[st][i].iter_to;
}

static void reason_add(char ***v, size_t *n, const char *fmt, ...)
    TS_PRINTF(3, 4);

static void
reason_add(char ***v, size_t *n, const char *fmt, ...)
{
	va_list ap;

	*v = xreallocarray(*v, *n + 1, sizeof **v);
	va_start(ap, fmt);
	(*v)[(*n)++] = xvasprintf(fmt, ap);
	va_end(ap);
}

void
diag_clock_str(double ts, char *out, size_t len)
{
	time_t t;
	struct tm tm;

	if (!isfinite(ts)) {	/* no time: nothing to print */
		snprintf(out, len, "-");
		return;
	}
	t = (time_t)floor(ts);
	gmtime_r(&t, &tm);
	strftime(out, len, "%H:%M:%S", &tm);
}

/*
 * s cut to at most max bytes at a word, with "..." after it, into out
 * (len > max + 3); a single longer word is cut inside, never inside a
 * UTF-8 character.
 */
static void
clip(const char *s, size_t max, char *out, size_t len)
{
	size_t n = strlen(s), k;

	if (n <= max || len < 8) {
		snprintf(out, len, "%s", s);
		return;
	}
	if (max + 4 > len)
		max = len - 4;
	for (k = max; k > 0 && s[k] != ' '; k--)
		;
	if (k == 0)
		for (k = max; k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80; k--)
			;
	while (k > 0 && s[k - 1] == ' ')
		k--;
	snprintf(out, len, "%.*s...", (int)k, s);
}

static void
span_str(double sec, char *out, size_t len)
{
	if (sec >= 120)
		snprintf(out, len, "%.0f min", sec / 60);
	else if (sec >= 1)
		snprintf(out, len, "%.1f s", sec);
	else
		snprintf(out, len, "%.0f ms", sec * 1000);
}

const int diag_revision = 8;

/* ------------------------------------------------------------ working set */

/* Per-template facts gathered before scoring. */
struct tfacts {
	uint64_t total;
	size_t nn;		/* nodes it occurs on */
	double novelty, spatial, temporal, library, onset, level;
	double maxz;		/* largest robust z of its count over nodes */
	size_t zn;		/* the node with that z */
	long new_in_iter;	/* first anomalous iteration it is new in */
	int in_tail;		/* in a truncated final iteration */
	int in_flat_tail;	/* ends a log without iterations, in an error */
	int ends_stream;	/* among the last two events of a stream */
	const struct fault_rule *rule;
	const char *category;
};

struct work {
	struct diag_job *job;
	const struct diag_opts *opts;
	struct tfacts *tf;
	uint32_t *ids_sorted;	/* template ids, sorted, for lookup */
	size_t *ids_index;
	double *node_spatial;	/* [0, 1] */
	double *node_attr;	/* nnodes x ntmpls contribution, or NULL */
	double first_timeout;	/* NAN none */
	double fail_ts;		/* first event new in a final iteration, NAN */
	int fail_ts_host;	/* fail_ts is a kernel line's (no other time) */
	unsigned char *tail_node;	/* nodes with a stream cut short */
	double *typical;	/* median count per template, on demand */
	enum stage fail_stage;	/* the stage the failing stream ended in */
	long fail_iter;
	size_t flagged;
	int reached_training;
	int ran_to_end;		/* every training rank shut down at one iteration */
	const struct diag_loss *bad_loss;	/* the first NaN or spike, or NULL */
	double loss_median;	/* the running median before it */
	int diverged;		/* it ran to the end, diverged (see div) */
	struct diverge div;
	size_t hang_tmpl;	/* the last progress line of a hang, or -1 */
	size_t hang_stream;	/* the stream that logged it */
	double hang_sec, hang_period;	/* the stall and an iteration's time */
	long hang_iter;
	double hang_ts;
	size_t timeout_nodes;	/* nodes reporting a timeout, when a rank
				   is absent */
	size_t *silent;		/* per node: 1 + its stream that stops
				   silently, 0 none (silent_streams()) */
	size_t nerr_tails, ntrain;	/* ranks' streams ending in errors,
					   ranks' streams */
};

static void partition_nodes(struct diag_job *job);

static int
cmp_long_asc(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
index_ids(struct work *w)
{
	size_t i, n = w->job->ntmpls;
	uint64_t *pairs = xcalloc(n + 1, sizeof *pairs);

	for (i = 0; i < n; i++)
		pairs[i] = ((uint64_t)w->job->tmpls[i].id << 32) | i;
	ts_qsort(pairs, n, sizeof *pairs, cmp_u64);
	w->ids_sorted = xcalloc(n + 1, sizeof *w->ids_sorted);
	w->ids_index = xcalloc(n + 1, sizeof *w->ids_index);
	for (i = 0; i < n; i++) {
		w->ids_sorted[i] = (uint32_t)(pairs[i] >> 32);
		w->ids_index[i] = (size_t)(pairs[i] & 0xffffffffu);
	}
	free(pairs);
}

/* Index of the template with id `id`, or (size_t)-1. */
static size_t
tmpl_index(const struct work *w, uint32_t id)
{
	size_t lo = 0, hi = w->job->ntmpls;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (w->ids_sorted[mid] == id)
			return w->ids_index[mid];
		if (w->ids_sorted[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

/*
 * A node's end: the lowest last iteration among its streams that log
 * iterations (a launcher or kernel log has none), the latest time any of
 * its logs gave -- unknown when a rank's log gives none (its lines went
 * on after whatever time the others say) -- and the earliest stage
 * reached.
 */
static void
node_ends(struct work *w)
{
	struct diag_job *job = w->job;
	int *procs = xcalloc(job->nnodes + 1, sizeof *procs);
	unsigned char *untimed = xcalloc(job->nnodes + 1, 1);
	size_t i;

	for (i = 0; i < job->nstreams; i++) {
		struct diag_stream *s = &job->streams[i];
		struct diag_node *n = &job->nodes[s->node];
		int iters = s->last_iter >= 0;

		if (iters && (n->last_iter < 0 || s->last_iter < n->last_iter))
			n->last_iter = s->last_iter;
		if (!isnan(s->last_ts) && (isnan(n->last_ts) ||
		    s->last_ts > n->last_ts))
			n->last_ts = s->last_ts;
		if (isnan(s->last_ts) && (iters || s->last_stage >= STAGE_INIT))
			untimed[s->node] = 1;
		if (iters && (n->last_stage == STAGE_NONE ||
		    s->last_stage < n->last_stage))
			n->last_stage = s->last_stage;
		n->nranks++;
		if (iters || s->last_stage >= STAGE_INIT)
			procs[s->node]++;
		if (iters || s->last_stage >= STAGE_TRAINING)
			w->reached_training = n->trained = 1;
	}
	for (i = 0; i < job->nstreams; i++) {
		const struct diag_stream *s = &job->streams[i];
		struct diag_node *n = &job->nodes[s->node];

		if (n->last_stage == STAGE_NONE)
			n->last_stage = s->last_stage;
		if (untimed[s->node])
			n->last_ts = NAN;
	}
	/* ranks: those the index placed there, or its ranks' own logs */
	for (i = 0; i < job->nnodes; i++)
		if (procs[i] > job->nodes[i].nprocs)
			job->nodes[i].nprocs = procs[i];
	free(procs);
	free(untimed);
}

/* A timeout is a consequence: it never dates nor starts a failure. */
static int
is_timeout(const struct tfacts *f)
{
	return f->category != NULL && strcmp(f->category, "timeout") == 0;
}

/* Does category c name what a healthy node logs too (fault library)? */
static int
benign(const char *c)
{
	return c != NULL && strcmp(c, "benign") == 0;
}

/*
 * Is template t a retried error the rank went on after: a retry that
 * ends no stream (the retries did not run out)?
 */
static int
retried(const struct tfacts *f)
{
	return f->category != NULL && strcmp(f->category, "retry") == 0 &&
	    !f->ends_stream;
}

/* Mark the templates a stream ends on (its last two events). */
static void
stream_ends(struct work *w)
{
	size_t i, e, t;

	for (i = 0; i < w->job->nstreams; i++) {
		const struct diag_stream *s = &w->job->streams[i];

		for (e = s->nevents > 2 ? s->nevents - 2 : 0; e < s->nevents; e++)
			if ((t = tmpl_index(w, s->events[e])) != (size_t)-1)
				w->tf[t].ends_stream = 1;
	}
}

/*
 * Does template t say something went wrong: error level, or labelled (a
 * known benign line never does)?
 */
static int
signals_error(const struct work *w, size_t t)
{
	return (w->job->tmpls[t].level >= DIAG_LEVEL_ERROR ||
	    w->tf[t].category != NULL) && !benign(w->tf[t].category);
}

/* Does category c name what follows a failure rather than a cause? */
static int
consequence(const char *c)
{
	return c != NULL && (strcmp(c, "timeout") == 0 ||
	    strcmp(c, "hang") == 0 || strcmp(c, "disconnect") == 0 ||
	    strcmp(c, "process") == 0 || strcmp(c, "collective") == 0);
}

/*
 * Does template t report an error of a rank's own: a line at error level,
 * a warning in error words, or a labelled line in error words; no frame,
 * no consequence (timeout, hang, lost peer, exit report, collective
 * summary), new against the healthy runs, and not logged after the job's
 * first timeout?  Needs label() and the novelty of crossjob_prepare().
 */
static int
own_error(const struct work *w, size_t t)
{
	const struct diag_tmpl *tp = &w->job->tmpls[t];
	const struct tfacts *f = &w->tf[t];

	return !tp->context && (f->level >= 1 || (f->level >= 0.75 &&
	    f->category != NULL)) && f->novelty >= 0.5 &&
	    !consequence(f->category) && !benign(f->category) && !retried(f) &&
	    (isnan(w->first_timeout) ||
	    isnan(tp->first.ts) || tp->first.ts <= w->first_timeout);
}

/*
 * Words that say something went wrong, whatever level the line was logged
 * at: "[W socket.cpp] ... failed to bind (errno: 98 - Address already in
 * use)" and "NCCL WARN Call to ibv_reg_mr failed" are errors in all but
 * name.  Matched case-blind at the start of a word.
 */
static const char *const error_words[] = {
	"error", "errno", "failed", "failure", "fatal", "abort", "exception",
	"cannot ", "can't ", "unable to", "denied", "refused", "invalid",
	"illegal", "corrupt", "uncorrectable", "out of memory",
	"no space left", "no such file", "segmentation fault", "sigsegv",
	"sigabrt", "sigbus", "core dumped", "duplicate", "already in use",
	"panic", "timed out", "not responding", "unreachable",
};

static int
says_error(const char *m)
{
	size_t i, k, n;

	for (i = 0; m[i] != '\0'; i++) {
		if (i > 0 && (isalnum((unsigned char)m[i - 1]) ||
		    m[i - 1] == '_'))
			continue;
		for (k = 0; k < TS_NELEM(error_words); k++) {
			n = strlen(error_words[k]);
			if (strncasecmp(m + i, error_words[k], n) != 0)
				continue;
			/* "error_handler", "errors.py": names, not errors */
			if (m[i + n] == '_' || (m[i + n] == 's' &&
			    m[i + n + 1] == '.') || m[i + n] == '.')
				continue;
			return 1;
		}
	}
	return 0;
}

/* Label the iteration lines' event of w->bad_loss a 'nan' event. */
static void
label_loss(struct work *w)
{
	struct tfacts *f;

	if (w->bad_loss == NULL || w->bad_loss->tmpl >= w->job->ntmpls)
		return;
	f = &w->tf[w->bad_loss->tmpl];
	if (f->category == NULL)
		f->category = "nan";
	if (f->library < faults_category_weight("nan"))
		f->library = faults_category_weight("nan");
	f->level = 1;
}

/*
 * The first iteration whose loss is NaN or infinite, or more than five
 * times the median of the (up to twenty) iterations before it, once five
 * are known; *median is that median (NAN: none before).  NULL: none.
 */
static const struct diag_loss *
loss_jump(const struct diag_job *job, double *median)
{
	*median = NAN;
	if (job->losses == NULL)
		return NULL;
	/* (diverge.c follows it as the series comes) */
	return diverge_spike(job->losses, median);
}

/*
 * The training loss goes wrong.  A run that went on to the end diverged
 * when its loss or grad norm went bad for good (diverge.c): the failure
 * iteration's line is the event.  A spike it recovered from (warm-up, a
 * loss-scale backoff) is none.  In a run that did not go on, the first
 * iteration whose loss is NaN or infinite, or more than five times the
 * median of the (up to twenty) iterations before it, once five are
 * known, is.  The iteration lines' event carries it, dated to that
 * iteration.  Call after ran_to_end.
 */
static void
loss_signal(struct work *w)
{
	const struct diag_job *job = w->job;

	if (w->ran_to_end) {
		if (job->losses != NULL && (w->diverged =
		    diverge_end(job->losses, &w->div)) != 0)
			w->bad_loss = &w->div.fail_rec;
	} else
		w->bad_loss = loss_jump(job, &w->loss_median);
	label_loss(w);
}

void
diag_watch_losses(struct diag_job *job)
{
	struct diverge d;
	const struct diag_loss *x;
	double med;

	job->watch[0] = job->watch[1] = -1;
	if (job->losses != NULL && diverge_end(job->losses, &d) != 0)
		job->watch[0] = d.fail_rec.iteration;
	if ((x = loss_jump(job, &med)) != NULL)
		job->watch[1] = x->iteration;
	job->watch_set = 1;
}

/*
 * Did a rank report an error of its own (own_error()) during the stall
 * that began at `from`: logged after it (by time, else by iteration), in
 * training or later?  Then the stall is what that error left behind.
 */
static int
stall_explained(const struct work *w, double from, double end, long iter)
{
	size_t t;

	for (t = 0; t < w->job->ntmpls; t++) {
		const struct diag_first *first = &w->job->tmpls[t].first;

		if (!own_error(w, t))
			continue;
		if (!isnan(first->ts) ? first->ts >= from && first->ts <= end :
		    first->stage >= STAGE_TRAINING && (first->iteration < 0 ||
		    first->iteration >= iter))
			return 1;
	}
	return 0;
}

/*
 * A silent hang: the training output stopped -- no stream logged an
 * iteration line for at least ten iteration periods (and a minute) --
 * while other timestamped lines went on (or, in a job still running,
 * until now), and no rank reported an error of
 * its own in that time.  The job did not run to the end; hang_event() makes
 * the event, at the last progress line.  Not when a stream shut down, nor when a run
 * that otherwise ran to the end spent that time in a final checkpoint
 * save or evaluation.
 */
static void
hang_signal(struct work *w)
{
	const struct diag_job *job = w->job;
	const struct diag_stream *last = NULL;
	double end = NAN, period, *v;
	size_t i, n = 0;

	w->hang_tmpl = (size_t)-1;
	for (i = 0; i < job->nstreams; i++) {
		const struct diag_stream *s = &job->streams[i];

		if (s->last_stage == STAGE_SHUTDOWN)
			return;

		if (!isnan(s->last_ts) && (isnan(end) || s->last_ts > end))
			end = s->last_ts;
		/* a running job: the silence goes on until now */
		if (w->opts->now > 0 && (isnan(end) || w->opts->now > end))
			end = w->opts->now;
		if (!isnan(s->last_iter_ts) && (last == NULL ||
		    s->last_iter_ts > last->last_iter_ts))
			last = s;
	}
	/* a long final save or evaluation after a clean run is no hang */
	if (last == NULL || isnan(end) || (w->ran_to_end &&
	    last->last_stage != STAGE_TRAINING))
		return;
	v = xcalloc(job->ntimes + 1, sizeof *v);
	for (i = 0; i < job->ntimes; i++)
		if (job->times[i].ms > 0)
			v[n++] = job->times[i].ms / 1000;
	if (n > 0)
		period = n >= 3 ? stats_median(v, n) : NAN;
	else	/* no durations logged: the spacing of the lines */
		period = last->gap_median;
	free(v);
	if (isnan(period) || end - last->last_iter_ts < 10 * period ||
	    end - last->last_iter_ts < 60 || stall_explained(w,
	    last->last_iter_ts - period, end, last->last_iter) ||
	    (w->hang_tmpl = tmpl_index(w, last->iter_id)) == (size_t)-1)
		return;
	w->hang_sec = end - last->last_iter_ts;
	w->hang_period = period;
	w->hang_iter = last->last_iter;
	w->hang_ts = last->last_iter_ts;
	w->hang_stream = (size_t)(last - job->streams);
}

/* Fault library labels, totals, levels, and the first timeout. */
static void
label(struct work *w)
{
	struct diag_job *job = w->job;
	size_t t, n;

	w->first_timeout = NAN;
	for (t = 0; t < job->ntmpls; t++) {
		struct diag_tmpl *tp = &job->tmpls[t];
		struct tfacts *f = &w->tf[t];
		const char *msg = tp->sample != NULL ? tp->sample : tp->text;

		f->category = tp->category;
		if (w->opts->faults != NULL &&
		    (f->rule = faults_match(w->opts->faults, msg,
		    strlen(msg))) != NULL && f->category == NULL)
			f->category = f->rule->category;
		f->library = faults_category_weight(f->category);
		f->level = tp->level >= DIAG_LEVEL_ERROR ? 1 :
		    tp->level == DIAG_LEVEL_WARN ? 0.5 : 0;
		if (f->level < 1 && !tp->context && says_error(msg))
			f->level = tp->level == DIAG_LEVEL_WARN ? 1 : 0.75;
		f->new_in_iter = -1;
		for (n = 0; n < job->nnodes; n++) {
			uint32_t c = job->counts[n * job->ntmpls + t];

			f->total += c;
			f->nn += c > 0 && n < job->nreal;
		}
		if (is_timeout(f) && !isnan(tp->first.ts) && (isnan(w->first_timeout) ||
		    tp->first.ts < w->first_timeout))
			w->first_timeout = tp->first.ts;
	}
}

/*
 * Ranks of the combined logs that wrote no line (job->absent) while ranks
 * of at least two other nodes report timeouts: the others wait for them.
 * Their nodes (added when the logs never named them) get node->absent.
 * Only a few gaps count: a log where most ranks are silent says nothing.
 * Call after label(); the nodes are partitioned again.
 */
static void
absent_ranks(struct work *w)
{
	struct diag_job *job = w->job;
	size_t n, t, a, nto = 0;

	if (job->nabsent == 0 || 2 * job->nabsent > job->nseen)
		return;
	for (n = 0; n < job->nreal; n++)
		for (t = 0; t < job->ntmpls; t++)
			if (is_timeout(&w->tf[t]) &&
			    job->counts[n * job->ntmpls + t] > 0) {
				nto++;
				break;
			}
	if (nto < 2)
		return;
	for (a = 0; a < job->nabsent; a++) {
		for (n = 0; n < job->nnodes; n++)
			if (strcmp(job->nodes[n].name, job->absent[a].node) == 0)
				break;
		if (n == job->nnodes)
			n = diag_add_node(job, job->absent[a].node);
		job->nodes[n].pseudo = 0;
		job->nodes[n].absent = job->absent[a].rank;
	}
	w->timeout_nodes = nto;
	partition_nodes(job);
}

/* Rate of template t in this job: per node, or per node-hour. */
static double
job_rate(const struct work *w, size_t t)
{
	size_t nn = w->job->nnodes ? w->job->nnodes : 1;

	return (double)w->tf[t].total / (double)nn /
	    (w->job->hours > 0 ? w->job->hours : 1);
}

/* The healthy runs that can speak for template t (see healthy_blind). */
static int
judges(const struct work *w, size_t t)
{
	int n = w->job->nhealthy - w->job->tmpls[t].healthy_blind;

	return n > 0 ? n : 0;
}

/*
 * Does template t occur far more often than in the healthy runs?  A
 * line a few times more is no news: ten times and more than one more.
 */
static int
explodes(const struct work *w, size_t t)
{
	const struct diag_tmpl *tp = &w->job->tmpls[t];

	return tp->healthy_jobs > 0 &&
	    job_rate(w, t) > 10 * tp->healthy_rate + 1;
}

/*
 * Cross-job: novelty against the healthy runs that can speak for the
 * template (0.5 without any: a run of another framework never logs this
 * job's own lines, so their absence there says nothing).
 */
static void
crossjob_prepare(struct work *w, size_t t)
{
	const struct diag_tmpl *tp = &w->job->tmpls[t];
	struct tfacts *f = &w->tf[t];
	double frac;

	if (judges(w, t) == 0) {
		f->novelty = 0.5;
		return;
	}
	frac = (double)tp->healthy_jobs / (double)judges(w, t);
	f->novelty = 1 - (frac > 1 ? 1 : frac);
	if (explodes(w, t))
		f->novelty = 1;
}

static void
crossjob(struct work *w, size_t t, char ***rv, size_t *rn)
{
	const struct diag_tmpl *tp = &w->job->tmpls[t];
	const char *per = w->job->hours > 0 ? "node-hour" : "node";
	double rate = job_rate(w, t);

	if (w->job->nhealthy <= 0)
		return;
	if (judges(w, t) == 0) {
		reason_add(rv, rn, "no healthy run logs like this job (%d in "
		    "the pool)", w->job->nhealthy);
		return;
	}
	reason_add(rv, rn, "seen in %d of %d healthy runs%s", tp->healthy_jobs,
	    judges(w, t), tp->healthy_blind > 0 ? " of its kind" : "");
	if (explodes(w, t))
		reason_add(rv, rn, "%.0fx its rate in healthy runs (%.1f per "
		    "%s, healthy %.1f)", tp->healthy_rate > 0 ?
		    rate / tp->healthy_rate : rate, rate, per, tp->healthy_rate);
}

/* Robust z of every node's log1p count of template t; the largest in *zn. */
static double
count_z(const struct diag_job *job, size_t t, double *col, size_t *zn)
{
	size_t n;
	double z, z0, z1, best = 0;

	for (n = 0; n < job->nreal; n++)
		col[n] = log1p((double)job->counts[n * job->ntmpls + t]);
	*zn = 0;
	z0 = stats_robust_z(0, col, job->nreal, 0.25);	/* linear in x */
	z1 = stats_robust_z(1, col, job->nreal, 0.25);
	for (n = 0; n < job->nreal; n++) {
		z = z0 + col[n] * (z1 - z0);
		if (z > best) {
			best = z;
			*zn = n;
		}
	}
	return best;
}

/* Columns the spatial step looks at: varying and not common when healthy. */
static size_t
spatial_features(struct work *w, size_t *feat)
{
	struct diag_job *job = w->job;
	size_t t, n, d = 0;

	for (t = 0; t < job->ntmpls; t++) {
		uint32_t c0 = job->counts[t];
		int varies = 0;

		if (w->tf[t].novelty < 0.3)
			continue;
		for (n = 1; n < job->nreal && !varies; n++)
			varies = job->counts[n * job->ntmpls + t] != c0;
		if (varies)
			feat[d++] = t;
	}
	return d;
}

/* Robust z-scores per feature for few nodes: deviation and attribution. */
static void
spatial_robust(struct work *w, const double *x, size_t d, const size_t *feat,
    double *dev)
{
	size_t nn = w->job->nreal, n, j;
	double *col = xcalloc(nn, sizeof *col), z, z0, z1;

	for (j = 0; j < d; j++) {
		for (n = 0; n < nn; n++)
			col[n] = x[n * d + j];
		z0 = stats_robust_z(0, col, nn, 0.25);	/* linear in x */
		z1 = stats_robust_z(1, col, nn, 0.25);
		for (n = 0; n < nn; n++) {
			z = fabs(z0 + col[n] * (z1 - z0));
			z = z > 10 ? 10 : z;
			dev[n] += z;
			w->node_attr[n * w->job->ntmpls + feat[j]] = z;
		}
	}
	free(col);
}

static void
spatial_forest(struct work *w, const double *x, size_t d, const size_t *feat,
    double *dev)
{
	size_t nn = w->job->nreal, n, j;
	double *attr = xcalloc(nn * d + 1, sizeof *attr);

	iforest_score(x, nn, d, DIAG_TREES, w->opts->seed, dev, attr);
	for (n = 0; n < nn; n++)
		for (j = 0; j < d; j++)
			w->node_attr[n * w->job->ntmpls + feat[j]] =
			    attr[n * d + j];
	free(attr);
}

/* Spatial anomaly of every node, scaled to [0, 1] (the median node is 0). */
static void
spatial(struct work *w)
{
	struct diag_job *job = w->job;
	size_t nn = job->nreal, d, n, j, *feat;
	double *x, *dev, med, mx = 0;

	w->node_spatial = xcalloc(job->nnodes + 1, sizeof *w->node_spatial);
	w->node_attr = xcalloc(job->nnodes * job->ntmpls + 1,
	    sizeof *w->node_attr);
	if (nn < 2)
		return;
	feat = xcalloc(job->ntmpls + 1, sizeof *feat);
	if ((d = spatial_features(w, feat)) > 0) {
		x = xcalloc(nn * d, sizeof *x);
		dev = xcalloc(nn, sizeof *dev);
		for (n = 0; n < nn; n++)
			for (j = 0; j < d; j++)
				x[n * d + j] = log1p((double)
				    job->counts[n * job->ntmpls + feat[j]]);
		if (nn < DIAG_FEW_NODES)
			spatial_robust(w, x, d, feat, dev);
		else
			spatial_forest(w, x, d, feat, dev);
		med = stats_median(dev, nn);
		for (n = 0; n < nn; n++)
			mx = dev[n] - med > mx ? dev[n] - med : mx;
		for (n = 0; n < nn && mx > 0; n++)
			w->node_spatial[n] = dev[n] > med ? (dev[n] - med) / mx : 0;
		free(x);
		free(dev);
	}
	free(feat);
}

/* The spatial sub-score of template t, with its reasons. */
static void
tmpl_spatial(struct work *w, size_t t, double *col, char ***rv, size_t *rn)
{
	struct diag_job *job = w->job;
	struct tfacts *f = &w->tf[t];
	double presence = 0, zpart;
	size_t n, shown = 0;
	struct buf b = BUF_INIT;

	if (job->nreal < 2 || f->nn == 0)
		return;
	presence = (double)(job->nreal - f->nn) / (double)(job->nreal - 1);
	f->maxz = count_z(job, t, col, &f->zn);
	zpart = f->maxz / 6 > 1 ? 1 : f->maxz / 6;
	f->spatial = presence > zpart ? presence : zpart;
	/* an error of every node points at the whole job, not at no node */
	if (f->nn == job->nreal && f->spatial < 0.5 && own_error(w, t)) {
		f->spatial = 0.5;
		reason_add(rv, rn, "on every node: an error of the whole job "
		    "(configuration, environment, shared storage or fabric)");
	}
	if (f->nn == 1) {
		for (n = 0; n < job->nreal; n++)
			if (job->counts[n * job->ntmpls + t] > 0)
				reason_add(rv, rn, "only on %s", job->nodes[n].name);
	} else if (f->nn <= 3 && f->nn < job->nreal) {
		for (n = 0; n < job->nreal; n++)
			if (job->counts[n * job->ntmpls + t] > 0)
				buf_addf(&b, "%s%s", shown++ ? ", " : "",
				    job->nodes[n].name);
		reason_add(rv, rn, "on %zu of %zu nodes: %s", f->nn,
		    job->nreal, buf_str(&b));
	} else if (zpart >= 0.5 && zpart > presence)
		reason_add(rv, rn, "%u times on %s, far above its peers (robust "
		    "z %.1f)", job->counts[f->zn * job->ntmpls + t],
		    job->nodes[f->zn].name, f->maxz);
	buf_release(&b);
}

/*
 * Is template t out of the ordinary for this job: absent from the healthy
 * runs (or exploding there), or, with no healthy history, missing on some
 * node or labelled or logged at warning level or above?  Traceback frames
 * go with their exception.
 */
static int
unusual(const struct work *w, size_t t)
{
	const struct diag_tmpl *tp = &w->job->tmpls[t];
	const struct tfacts *f = &w->tf[t];

	if (tp->context)
		return 1;
	if (judges(w, t) > 0)
		return tp->healthy_jobs == 0 || explodes(w, t);
	return f->nn < w->job->nreal || f->category != NULL ||
	    tp->level >= DIAG_LEVEL_WARN;
}

/* Mark the events of candidate c that its window never saw. */
static void
mark_new(struct work *w, const struct diag_cand *c, int tail)
{
	size_t e, t;

	for (e = 0; e < c->nwnew; e++) {
		if ((t = tmpl_index(w, c->wnew[e])) == (size_t)-1)
			continue;
		if (tail) {
			double ts = w->job->tmpls[t].first.ts;

			w->tf[t].in_tail = 1;
			if (!isnan(ts) && unusual(w, t) && !is_timeout(&w->tf[t]) &&
			    (isnan(w->fail_ts) || ts < w->fail_ts))
				w->fail_ts = ts;
		}
		else if (w->tf[t].new_in_iter < 0 ||
		    c->iteration < w->tf[t].new_in_iter)
			w->tf[t].new_in_iter = c->iteration;
	}
}

/*
 * Is the event of id `id` a planned phase's own line: first logged in a
 * checkpoint save or an evaluation, below warning level, and not in the
 * fault library?  The first save of a run logs lines never seen before,
 * and they say nothing has gone wrong.
 */
static int
planned(const struct work *w, uint32_t id)
{
	size_t t = tmpl_index(w, id);
	const struct diag_tmpl *tp;

	if (t == (size_t)-1)
		return 0;
	tp = &w->job->tmpls[t];
	return (tp->first.stage == STAGE_CKPT_SAVE ||
	    tp->first.stage == STAGE_EVAL) && tp->level < DIAG_LEVEL_WARN &&
	    w->tf[t].category == NULL;
}

/*
 * Does candidate c hold an event its stream never logged before?  A
 * dissimilar iteration made of events seen long ago (a checkpoint every
 * 500 iterations) is periodic, not anomalous, and so is one whose only
 * new events are a save's or an evaluation's own lines (the first save).
 */
static int
novel(const struct work *w, const struct diag_cand *c)
{
	size_t e;

	for (e = 0; e < c->nfresh; e++)
		if (!planned(w, c->fresh[e]))
			return 1;
	return 0;
}

/* Does the stream's truncated tail hold an error or a labelled event? */
static int
tail_has_error(const struct work *w, const struct diag_stream *s)
{
	const struct diag_iter *it;
	size_t e, t;

	if (s->niters == 0 || !s->iters[s->niters - 1].truncated)
		return 0;
	it = &s->iters[s->niters - 1];
	for (e = 0; e < it->n; e++) {
		if ((t = tmpl_index(w, s->events[it->off + e])) == (size_t)-1)
			continue;
		if (signals_error(w, t))
			return 1;
	}
	return 0;
}

/*
 * The stream's iterations that DTW flagged (diag_stream_fold()) and are
 * new to it; the final, unfinished one is always considered (hangs live
 * there).
 */
static void
temporal_stream(struct work *w, struct diag_stream *s)
{
	size_t i;

	for (i = 0; i < s->ncands; i++) {
		s->cands[i].anomalous = 0;
		if (novel(w, &s->cands[i])) {
			w->flagged++;
			s->cands[i].anomalous = 1;
			mark_new(w, &s->cands[i], 0);
		}
	}
	s->tail.anomalous = 0;
	/* a final iteration cut short by an error; a clean end is no failure */
	if (!s->has_tail || s->last_stage == STAGE_SHUTDOWN ||
	    !(s->best_last < 0.9 || s->nrecs == 1) || !tail_has_error(w, s))
		return;
	w->flagged++;
	s->tail.anomalous = 1;
	w->tail_node[s->node] = 1;
	mark_new(w, &s->tail, 1);
	if (w->fail_iter < 0 || s->tail.iteration < w->fail_iter) {
		w->fail_iter = s->tail.iteration;
		w->fail_stage = s->last_stage;
	} else if (s->tail.iteration == w->fail_iter &&
	    (s->last_stage == STAGE_CKPT_SAVE || s->last_stage == STAGE_EVAL))
		w->fail_stage = s->last_stage;	/* the save failed */
}

/*
 * A rank log without iteration lines (HF Trainer and DeepSpeed print them
 * on rank 0 only) in a job that trained: when it ends in an error, its
 * final run of unusual events is its failing tail.  Without times or
 * iterations this is the only place such a log can show where it broke.
 */
static void
flat_tail(struct work *w, struct diag_stream *s)
{
	size_t from, e, t;
	int err = 0;

	if (s->nrecs != 1 || s->iters[0].iteration >= 0 ||
	    !w->reached_training || s->last_stage < STAGE_TRAINING ||
	    s->last_stage == STAGE_SHUTDOWN || s->nevents == 0)
		return;
	for (from = s->nevents; from > 0; from--) {
		if ((t = tmpl_index(w, s->events[from - 1])) == (size_t)-1 ||
		    !unusual(w, t))
			break;
		if (signals_error(w, t))
			err = 1;
	}
	if (!err || from == 0)
		return;
	w->flagged++;
	w->tail_node[s->node] = 1;
	for (e = from; e < s->nevents; e++)
		if ((t = tmpl_index(w, s->events[e])) != (size_t)-1 &&
		    !w->tf[t].in_tail)
			w->tf[t].in_flat_tail = 1;
}

/*
 * Was the template first seen in a file without iteration lines (a kernel
 * or launcher log), which the iteration comparison cannot place?  Such
 * lines count near the failure only when they are labelled or logged at
 * warning level or above: kernel logs are chatty.
 */
static int
outside_iterations(const struct work *w, const struct diag_first *first)
{
	size_t i;

	if (first->path == NULL)
		return 0;
	for (i = 0; i < w->job->nstreams; i++)
		if (w->job->streams[i].node == first->node &&
		    strcmp(w->job->streams[i].path, first->path) == 0)
			return w->job->streams[i].last_iter < 0;
	return 0;
}

/*
 * When no failing log line carried a time (training logs without
 * timestamps), take the failure's time from the earliest unusual labelled
 * kernel or launcher line of a node whose log was cut short.
 */
static void
host_fail_time(struct work *w)
{
	const struct diag_first *first;
	size_t t;

	if (!isnan(w->fail_ts))
		return;
	for (t = 0; t < w->job->ntmpls; t++) {
		first = &w->job->tmpls[t].first;
		if (isnan(first->ts) || first->node >= w->job->nnodes ||
		    !w->tail_node[first->node] || w->tf[t].library <= 0.5 ||
		    !unusual(w, t) || !outside_iterations(w, first))
			continue;
		if (isnan(w->fail_ts) || first->ts < w->fail_ts) {
			w->fail_ts = first->ts;
			w->fail_ts_host = 1;
		}
	}
}

/* The temporal sub-score of template t, with its reasons. */
static void
tmpl_temporal(struct work *w, size_t t, char ***rv, size_t *rn)
{
	struct tfacts *f = &w->tf[t];
	const struct diag_first *first = &w->job->tmpls[t].first;
	char when[32], gap[32];

	if (f->in_tail) {
		f->temporal = 1;
		reason_add(rv, rn, "new in the last, unfinished iteration");
	} else if (f->in_flat_tail) {
		f->temporal = 0.9;
		reason_add(rv, rn, "in the error that ends a log without "
		    "iteration lines");
	} else if (f->new_in_iter >= 0) {
		f->temporal = 0.8;
		reason_add(rv, rn, "new in anomalous iteration %ld",
		    f->new_in_iter);
	} else if (!isnan(w->fail_ts) && !isnan(first->ts) &&
	    outside_iterations(w, first) &&
	    first->ts >= w->fail_ts - DIAG_FAIL_WINDOW &&
	    first->ts <= w->fail_ts + 5 && f->novelty >= 0.5 &&
	    (f->library > 0 || f->level > 0)) {
		f->temporal = 0.8;
		span_str(fabs(w->fail_ts - first->ts), gap, sizeof gap);
		if (w->fail_ts_host)
			reason_add(rv, rn, "logged %s %s the first labelled "
			    "kernel line of a node whose training log broke "
			    "off", gap, first->ts < w->fail_ts ? "before" :
			    "after");
		else
			reason_add(rv, rn, "logged %s %s the failing "
			    "iteration's first new event", gap,
			    first->ts <= w->fail_ts ? "before" : "after");
	}
	if (w->reached_training && first->stage > STAGE_NONE &&
	    first->stage < STAGE_TRAINING && f->temporal == 0 &&
	    !explodes(w, t)) {
		f->temporal = -0.5;
		reason_add(rv, rn, "logged during %s, before training began",
		    stage_name(first->stage));
	}
	if (!isnan(w->first_timeout) && !isnan(first->ts) &&
	    first->ts < w->first_timeout && !is_timeout(f) &&
	    (f->temporal > 0 || f->library > 0.5 || f->level > 0.5)) {
		f->onset = 1;
		diag_clock_str(first->ts, when, sizeof when);
		span_str(w->first_timeout - first->ts, gap, sizeof gap);
		reason_add(rv, rn, "first at %s, %s before the first timeout",
		    when, gap);
	}
}

/*
 * The context lines of the template's error, in a reason: how many, and
 * the last of them that is no header (a traceback's innermost frame or
 * source line, a backtrace's last frame).
 */
static void
trace_reason(const struct diag_job *job, const struct diag_tmpl *tp,
    char ***rv, size_t *rn)
{
	char text[128];
	size_t i, last = tp->ntrace > 0 ? tp->trace[tp->ntrace - 1] : 0;

	if (tp->ntrace == 0)
		return;
	for (i = 0; i < tp->ntrace; i++)
		if (!job->tmpls[tp->trace[i]].filler)
			last = tp->trace[i];
	clip(job->tmpls[last].text, 60, text, sizeof text);
	reason_add(rv, rn, "with %zu line%s of context (traceback, backtrace), "
	    "the last '%s'", tp->ntrace, tp->ntrace == 1 ? "" : "s", text);
}

/*
 * The event is what its lines of iteration `iter` say: its place is
 * path:line (the reference file's), and its lines are that iteration's
 * line on each stream that logged one.
 */
static void
event_at_iter(const struct diag_job *job, struct diag_event_result *ev,
    long iter, const char *path, long line)
{
	size_t s, k;

	free(ev->at_path);
	ev->at_path = path != NULL ? xstrdup(path) : NULL;
	ev->at_line = line;
	ev->at_ts = NAN;
	for (k = 0; k < DIAG_WATCH && job->watch[k] != iter; k++)
		;
	for (s = 0; k < DIAG_WATCH && s < job->nstreams; s++) {
		const struct diag_stream *st = &job->streams[s];
		const char *file = st->file != NULL ? st->file : st->path;

		if (st->at[k].line == 0)
			continue;
		if (path != NULL && strcmp(file, path) == 0 &&
		    st->at[k].line == line)
			ev->at_ts = st->at[k].end_ts;
		ev->locs = xreallocarray(ev->locs, ev->nlocs + 1,
		    sizeof *ev->locs);
		ev->locs[ev->nlocs].path = xstrdup(file);
		ev->locs[ev->nlocs].line = st->at[k].line;
		ev->locs[ev->nlocs++].node = st->node;
	}
}

/* Say how the run diverged: the failure point, the onset, what changed. */
static void
diverge_reasons(struct work *w, struct diag_event_result *ev)
{
	const struct diag_job *job = w->job;
	const struct diverge *d = &w->div;
	const struct diag_loss *x = &d->fail_rec;
	const struct diag_loss *o = &d->onset_rec;
	int loss = x->has_loss && !isfinite(x->loss);
	double v = loss ? x->loss : x->gnorm, ov, med;
	int bad = loss || (x->has_gnorm && !isfinite(x->gnorm));

	if (bad)
		reason_add(&ev->reasons, &ev->nreasons, "the %s is %s in "
		    "iteration %ld (%s:%ld)", loss ? "loss" : "grad norm",
		    isnan(v) ? "NaN" : "infinite", x->iteration, job->losspath,
		    x->line);
	if (d->onset < d->fail || !bad) {
		ov = d->onset_loss ? o->loss : o->gnorm;
		med = d->onset_loss ? d->loss_med : d->gnorm_med;
		reason_add(&ev->reasons, &ev->nreasons, "the %s explodes in "
		    "iteration %ld to %.4g, %.3gx its running median %.4g "
		    "(%s:%ld)", d->onset_loss ? "loss" : "grad norm",
		    o->iteration, ov, ov / med, med, job->losspath, o->line);
	}
	reason_add(&ev->reasons, &ev->nreasons, "it stays so for the %zu "
	    "iterations logged after, to the end: the training diverged",
	    d->after);
	if (d->jump >= 0) {
		const struct diag_loss *j = &d->jump_rec;

		reason_add(&ev->reasons, &ev->nreasons, "before it, the %s "
		    "jumps %.3gx in iteration %ld (%.4g to %.4g, %s:%ld)",
		    stage_hparam_name((enum stage_hparam)d->jump), d->jump_ratio,
		    j->iteration, d->jump_prev.hp[d->jump],
		    j->hp[d->jump], job->losspath, j->line);
	}
}

/*
 * The iteration the job failed in, for what came long before it: the
 * failing tail's, else the iteration after the last any node completed.
 */
static long
fail_ref(const struct work *w)
{
	long last = -1;
	size_t n;

	if (w->fail_iter >= 0)
		return w->fail_iter;
	for (n = 0; n < w->job->nreal; n++)
		if (w->job->nodes[n].last_iter > last)
			last = w->job->nodes[n].last_iter;
	return last >= 0 ? last + 1 : -1;
}

/*
 * A line no healthy run speaks for and no rule names a fault that goes on
 * at a steady rate: on three nodes or more, first logged in training ten
 * iterations or more before the failure, and not new where a stream broke
 * off.  Returns the iteration it began in, -1 when it is none.
 */
static long
steady(const struct work *w, size_t t)
{
	const struct tfacts *f = &w->tf[t];
	const struct diag_first *first = &w->job->tmpls[t].first;
	long ref = fail_ref(w);

	if (w->ran_to_end || judges(w, t) > 0 || f->nn < 3 ||
	    f->total < f->nn || (f->category != NULL &&
	    !benign(f->category)) || f->in_tail || f->in_flat_tail ||
	    first->stage != STAGE_TRAINING || first->iteration < 0 || ref < 0 ||
	    first->iteration + 10 > ref)
		return -1;
	return first->iteration;
}

/*
 * What is known benign, an error that was retried and went on, and what
 * goes on at a steady rate on many nodes long before the failure rank
 * below the errors: the fault library says so, or the run's own course.
 */
static void
quiet(const struct work *w, size_t t, struct diag_event_result *ev)
{
	const struct tfacts *f = &w->tf[t];
	long since;

	if (benign(f->category)) {
		ev->score *= 0.4;
		reason_add(&ev->reasons, &ev->nreasons, "known benign: a healthy "
		    "node logs it too");
	} else if (retried(f)) {
		ev->score *= 0.5;
		reason_add(&ev->reasons, &ev->nreasons, "retried: the rank went "
		    "on after it");
	} else if ((since = steady(w, t)) >= 0) {
		ev->score *= 0.5;
		reason_add(&ev->reasons, &ev->nreasons, "logged on %zu nodes since "
		    "iteration %ld, long before the failure: noise that goes on, "
		    "not what failed", f->nn, since);
	}
}

/* Score template t into ev, gathering its reasons. */
static void
score_tmpl(struct work *w, size_t t, double *col, struct diag_event_result *ev)
{
	struct tfacts *f = &w->tf[t];
	const struct diag_tmpl *tp = &w->job->tmpls[t];
	size_t n;

	ev->tmpl = t;
	ev->count = f->total;
	ev->first = &tp->first;
	crossjob(w, t, &ev->reasons, &ev->nreasons);
	tmpl_spatial(w, t, col, &ev->reasons, &ev->nreasons);
	tmpl_temporal(w, t, &ev->reasons, &ev->nreasons);
	if (w->bad_loss != NULL && w->bad_loss->tmpl == t) {
		const struct diag_loss *x = w->bad_loss;

		if (f->temporal < 0.8)
			f->temporal = 0.8;
		f->novelty = 1;		/* healthy runs log the line, not this */
		ev->one_iter = 1;
		ev->at_iter = x->iteration;
		event_at_iter(w->job, ev, x->iteration, w->job->losspath,
		    x->line);
		if (w->diverged)
			diverge_reasons(w, ev);
		else if (isnan(x->loss) || isinf(x->loss))
			reason_add(&ev->reasons, &ev->nreasons, "the loss is %s "
			    "in iteration %ld (%s:%ld)", isnan(x->loss) ? "NaN" :
			    "infinite", x->iteration, w->job->losspath, x->line);
		else
			reason_add(&ev->reasons, &ev->nreasons, "the loss jumps "
			    "to %.4g in iteration %ld, %.0fx its running median "
			    "%.4g (%s:%ld)", x->loss, x->iteration, x->loss /
			    w->loss_median, w->loss_median, w->job->losspath,
			    x->line);
	}
	if (f->rule != NULL)
		reason_add(&ev->reasons, &ev->nreasons, "fault library: %s (%s)",
		    f->rule->name, f->category);
	else if (f->category != NULL)
		reason_add(&ev->reasons, &ev->nreasons, "category %s",
		    f->category);
	if (tp->level >= DIAG_LEVEL_ERROR)
		reason_add(&ev->reasons, &ev->nreasons, "logged at error level");
	trace_reason(w->job, tp, &ev->reasons, &ev->nreasons);
	ev->score = 0.30 * f->novelty + 0.25 * f->spatial + 0.20 * f->temporal +
	    0.15 * f->library + 0.05 * f->level + 0.05 * f->onset;
	quiet(w, t, ev);
	if (ev->score < 0)
		ev->score = 0;
	ev->category = f->category;
	ev->rule = f->rule;
	ev->nodes = xcalloc(w->job->nnodes + 1, sizeof *ev->nodes);
	for (n = 0; n < w->job->nnodes; n++)
		if (w->job->counts[n * w->job->ntmpls + t] > 0)
			ev->nodes[ev->nnodes++] = n;
}

static void
event_release(struct diag_event_result *e)
{
	size_t k;

	for (k = 0; k < e->nreasons; k++)
		free(e->reasons[k]);
	free(e->reasons);
	free(e->nodes);
	free(e->at_path);
	for (k = 0; k < e->nlocs; k++)
		free(e->locs[k].path);
	free(e->locs);
	free(e->text);
	if (e->own != NULL)
		free(e->own->path);
	free(e->own);
}

/*
 * One error, one row: a traceback's header, frames and source lines, a
 * C++ backtrace and the other context of an error are no events of their
 * own; the telling line they belong to carries them (its trace).
 */
static void
drop_context(const struct work *w, struct diag_result *r)
{
	size_t i, o = 0, t;

	for (i = 0; i < r->nevents; i++) {
		const struct diag_tmpl *tp = &w->job->tmpls[t = r->events[i].tmpl];

		/* a progress line that logged a NaN loss says something */
		if (tp->context || tp->filler || (tp->progress &&
		    (w->bad_loss == NULL || w->bad_loss->tmpl != t)))
			event_release(&r->events[i]);
		else
			r->events[o++] = r->events[i];
	}
	r->nevents = o;
}

/*
 * A failing GPU shows in its process as a CUDA error: on a node whose
 * driver or kernel reported a hardware fault (Xid, ECC, a lost GPU or
 * link), the CUDA errors rank just below that fault.
 */
static void
demote_cuda(struct work *w, struct diag_result *r)
{
	size_t i, j, k, m;
	double best;

	for (i = 0; i < r->nevents; i++) {
		struct diag_event_result *e = &r->events[i];

		if (e->category == NULL || strcmp(e->category, "cuda") != 0)
			continue;
		best = 0;
		for (j = 0; j < r->nevents; j++) {
			const struct diag_event_result *h = &r->events[j];

			if (h->tmpl == DIAG_SYNTH ||
			    w->tf[h->tmpl].library < 0.95 || j == i)
				continue;
			for (k = 0; k < h->nnodes; k++)
				for (m = 0; m < e->nnodes; m++)
					if (h->nodes[k] == e->nodes[m] &&
					    h->nodes[k] < w->job->nreal &&
					    h->score > best)
						best = h->score;
		}
		if (best > 0 && e->score >= best) {
			e->score = 0.97 * best;
			reason_add(&e->reasons, &e->nreasons, "a consequence: "
			    "its node reported a hardware fault of the GPU or "
			    "link");
		}
	}
}

/* Were events a and b logged on a node in common? */
static int
shares_node(const struct diag_event_result *a,
    const struct diag_event_result *b)
{
	size_t k, m;

	for (k = 0; k < a->nnodes; k++)
		for (m = 0; m < b->nnodes; m++)
			if (a->nodes[k] == b->nodes[m])
				return 1;
	return 0;
}

/*
 * Does event h report a fault the library knows, of a rank's own: a rule
 * matched it, and it is no consequence, nothing benign or retried and no
 * stand-in for a lost exception?
 */
static int
known_fault(const struct work *w, const struct diag_event_result *h)
{
	const struct tfacts *f;

	if (h->tmpl == DIAG_SYNTH || w->job->tmpls[h->tmpl].standin)
		return 0;
	f = &w->tf[h->tmpl];
	return f->rule != NULL && !consequence(f->category) &&
	    !benign(f->category) && !retried(f);
}

/*
 * A traceback the log cut before its exception speaks through its
 * innermost frame, but what it raised is unknown: on a node that already
 * reported a fault the library knows (a failed checkpoint write before a
 * chained traceback, the loss scaler at its floor before the exception it
 * ends in), the frame ranks just below that fault.
 */
static void
demote_standins(const struct work *w, struct diag_result *r)
{
	size_t i, j;
	double best;

	for (i = 0; i < r->nevents; i++) {
		struct diag_event_result *e = &r->events[i];

		if (e->tmpl == DIAG_SYNTH || !w->job->tmpls[e->tmpl].standin)
			continue;
		best = 0;
		for (j = 0; j < r->nevents; j++)
			if (j != i && known_fault(w, &r->events[j]) &&
			    shares_node(e, &r->events[j]) &&
			    r->events[j].score > best)
				best = r->events[j].score;
		if (best > 0 && e->score >= best) {
			e->score = 0.97 * best;
			reason_add(&e->reasons, &e->nreasons, "speaks for an "
			    "exception the log cut off: the fault its node "
			    "reported before ranks first");
		}
	}
}

static int
is_category(const struct diag_event_result *e, const char *c)
{
	return e->category != NULL && strcmp(e->category, c) == 0;
}

/*
 * A port that goes down shows in NCCL as completion errors and failed
 * verbs calls, on its node and on the peers across the link: when link
 * events (an adapter's port event, the kernel's link down or cable error)
 * score near the job's strongest network error, the network errors rank
 * just below the weakest of them.  A link event far below (a flap the
 * run rode out) changes nothing.
 */
static void
demote_after_link(struct diag_result *r)
{
	double net = 0, link = 0;
	size_t i;

	for (i = 0; i < r->nevents; i++)
		if (is_category(&r->events[i], "network") &&
		    r->events[i].score > net)
			net = r->events[i].score;
	for (i = 0; i < r->nevents; i++)
		if (is_category(&r->events[i], "link") &&
		    r->events[i].score >= 0.85 * net &&
		    (link == 0 || r->events[i].score < link))
			link = r->events[i].score;
	for (i = 0; i < r->nevents && link > 0; i++) {
		struct diag_event_result *e = &r->events[i];

		if (!is_category(e, "network") || e->score < 0.97 * link)
			continue;
		e->score = 0.97 * link;
		reason_add(&e->reasons, &e->nreasons, "a consequence: a network "
		    "port of the job went down (its link event ranks first)");
	}
}

/*
 * Cause before consequence: when some rank reports an error of its own
 * (own_error()), the timeouts, hangs, lost peers, collective summaries and
 * exit reports follow from it; without one, a silent hang is what the
 * others follow from.  Scale them all down, keeping their order, so the
 * strongest is clearly below that cause (0.85 of its score): a
 * consequence is not the failure, however near the cause it was logged.
 */
static void
demote_consequences(struct work *w, struct diag_result *r)
{
	double own = 0, worst = 0, k;
	size_t i;
	int lead = 0;

	for (i = 0; i < r->nevents; i++)
		if (r->events[i].tmpl != DIAG_SYNTH &&
		    !consequence(r->events[i].category) &&
		    own_error(w, r->events[i].tmpl) && r->events[i].score > own)
			own = r->events[i].score;
	for (i = 0; i < r->nevents && own <= 0; i++)
		if (r->events[i].tmpl == DIAG_SYNTH && r->events[i].score > own)
			lead = 1;
	for (i = 0; i < r->nevents && lead; i++)
		if (r->events[i].tmpl == DIAG_SYNTH && r->events[i].score > own)
			own = r->events[i].score;
	for (i = 0; i < r->nevents; i++)
		if (r->events[i].tmpl != DIAG_SYNTH &&
		    consequence(r->events[i].category) &&
		    r->events[i].score > worst)
			worst = r->events[i].score;
	if (own <= 0 || worst <= 0.85 * own)
		return;
	k = 0.85 * own / worst;
	for (i = 0; i < r->nevents; i++) {
		struct diag_event_result *e = &r->events[i];

		if (!consequence(e->category) || e->tmpl == DIAG_SYNTH)
			continue;
		e->score *= k;
		reason_add(&e->reasons, &e->nreasons, "a consequence: %s", !lead ?
		    "another event reports the error it follows from" :
		    "a rank stopped or the training hung before it");
	}
}

/*
 * Highest score first; a tie goes to the event that happened first (by
 * time when both lines carry one, else by place in the same file), then
 * to the rarer one.
 */
static int
cmp_event(const void *a, const void *b)
{
	const struct diag_event_result *x = a, *y = b;
	const struct diag_first *p = x->first, *q = y->first;
	int c;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (p != NULL && q != NULL) {
		if (!isnan(p->ts) && !isnan(q->ts) && p->ts != q->ts)
			return p->ts < q->ts ? -1 : 1;
		if (p->path != NULL && q->path != NULL &&
		    (c = strcmp(p->path, q->path)) == 0 && p->line != q->line)
			return p->line < q->line ? -1 : 1;
	}
	if (x->count != y->count)	/* rarer first */
		return x->count < y->count ? -1 : 1;
	return x->tmpl < y->tmpl ? -1 : x->tmpl > y->tmpl;
}

static int
cmp_node(const void *a, const void *b)
{
	const struct diag_node_result *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/*
 * Median of the other nodes' last iterations (of those that log
 * iteration lines) and last timestamps.
 */
static void
peer_ends(const struct diag_job *job, size_t self, double *iter_med,
    double *ts_med)
{
	double *it = xcalloc(job->nreal + 1, sizeof *it);
	double *ts = xcalloc(job->nreal + 1, sizeof *ts);
	size_t n, ni = 0, nt = 0;

	for (n = 0; n < job->nreal; n++) {
		if (job->nodes[n].nranks == 0 || n == self)
			continue;
		if (job->nodes[n].last_iter >= 0)
			it[ni++] = (double)job->nodes[n].last_iter;
		if (!isnan(job->nodes[n].last_ts))
			ts[nt++] = job->nodes[n].last_ts;
	}
	*iter_med = ni ? stats_median(it, ni) : NAN;
	*ts_med = nt ? stats_median(ts, nt) : NAN;
	free(it);
	free(ts);
}

/* How a node's logs end, when that sets it apart (node_stop()). */
enum {
	STOP_NONE, STOP_ABSENT, STOP_MISSING, STOP_BEHIND, STOP_BEFORE,
	STOP_EARLY, STOP_SILENT
};

struct stop {
	int kind;		/* STOP_* */
	double weight;		/* how much it counts against the node */
	double strong;		/* independent evidence, [0, 1] */
	size_t stream;		/* the stream that stops, (size_t)-1 none */
	long iter;		/* where it stops, -1 */
	double peer_iter;	/* where its peers got, NAN */
	double gap;		/* seconds before its peers' logs end */
	size_t nerr, ntrain;	/* (silent) ranks reporting errors, training */
};

/* A rank's stream of a machine: it trained, or at least began init. */
static int
rank_stream(const struct diag_job *job, const struct diag_stream *s)
{
	return s->node < job->nreal && (s->niters > 0 ||
	    s->last_stage >= STAGE_INIT);
}

/*
 * The stream of node n that stops: the one that stopped iterating first
 * (behind), whose line is the node's last (early), or a rank's; else its
 * first.  (size_t)-1 when it has none.
 */
static size_t
node_stream(const struct diag_job *job, size_t n, int kind)
{
	size_t i, best = (size_t)-1;

	for (i = 0; i < job->nstreams; i++) {
		const struct diag_stream *s = &job->streams[i];

		if (s->node != n)
			continue;
		if (best == (size_t)-1)
			best = i;
		if (kind == STOP_BEHIND ? s->last_iter >= 0 &&
		    (job->streams[best].last_iter < 0 ||
		    s->last_iter < job->streams[best].last_iter) :
		    kind == STOP_EARLY ? !isnan(s->last_ts) &&
		    (isnan(job->streams[best].last_ts) ||
		    s->last_ts > job->streams[best].last_ts) :
		    rank_stream(job, s) && !rank_stream(job, &job->streams[best]))
			best = i;
	}
	return best;
}

/* The job's usual iteration period in seconds (median duration), NAN. */
static double
usual_period(const struct diag_job *job)
{
	double *v = xcalloc(job->ntimes + 1, sizeof *v), p;
	size_t i, n = 0;

	for (i = 0; i < job->ntimes; i++)
		if (job->times[i].ms > 0)
			v[n++] = job->times[i].ms / 1000;
	p = n >= 3 ? stats_median(v, n) : NAN;
	free(v);
	return p;
}

/*
 * A job still running (opts->now): a node behind its peers may only be
 * slower to write its line.  It counts as stopped once its last line is
 * older than its peers' newest line, or the time now, by more than two
 * iteration periods (30 s when the job logs no durations).
 */
static int
live_recent(const struct work *w, double last_ts, double tm)
{
	double p, ref = tm;

	if (w->opts->now <= 0 || isnan(last_ts))
		return 0;
	if (isnan(ref) || w->opts->now > ref)
		ref = w->opts->now;
	p = usual_period(w->job);
	return ref - last_ts <= (isnan(p) ? 30 : 2 * p);
}

/* How node n's logs end: missing, absent, early, silent; STOP_NONE. */
static void
node_stop(const struct work *w, size_t n, struct stop *st)
{
	const struct diag_node *nd = &w->job->nodes[n];
	double im, tm;

	memset(st, 0, sizeof *st);
	st->stream = (size_t)-1;
	st->iter = nd->last_iter;
	if (nd->absent >= 0) {
		st->kind = STOP_ABSENT;
		st->weight = 1;
		st->strong = 0.6;
		return;
	}
	if (nd->missing || nd->nranks == 0) {
		st->kind = STOP_MISSING;
		st->weight = 1;
		return;
	}
	peer_ends(w->job, n, &im, &tm);
	st->peer_iter = im;
	/* a node whose ranks print no iteration lines is not behind */
	if (!isnan(im) && nd->last_iter >= 0 && (double)nd->last_iter < im &&
	    !live_recent(w, nd->last_ts, tm)) {
		st->kind = STOP_BEHIND;
		st->weight = 0.9;
	} else if (!isnan(im) && nd->last_iter < 0 && !nd->trained &&
	    !live_recent(w, nd->last_ts, tm)) {
		st->kind = STOP_BEFORE;
		st->weight = 0.9;
	} else if (!isnan(tm) && !isnan(nd->last_ts) && tm - nd->last_ts > 30) {
		st->kind = STOP_EARLY;
		st->weight = 0.8;
		st->gap = tm - nd->last_ts;
	}
	if (st->kind != STOP_NONE) {
		st->stream = node_stream(w->job, n, st->kind);
		return;
	}
	if (w->silent[n] > 0) {
		st->kind = STOP_SILENT;
		st->weight = 0.8;
		st->stream = w->silent[n] - 1;
		st->iter = w->job->streams[st->stream].last_iter;
		st->nerr = w->nerr_tails;
		st->ntrain = w->ntrain;
		/* a hang: the one rank that never saw an error froze first */
		if (st->ntrain >= 3 && 2 * st->nerr >= st->ntrain - 1)
			st->strong = 0.8;
	}
}

/* The sentence that says how node n's logs end (allocated), or NULL. */
static char *
stop_text(const struct work *w, size_t n, const struct stop *st)
{
	const struct diag_node *nd = &w->job->nodes[n];
	const struct diag_stream *s;
	char gap[32];

	switch (st->kind) {
	case STOP_ABSENT:
		return xasprintf("rank %ld wrote no line while ranks of %zu other "
		    "nodes report timeouts: the rank they wait for", nd->absent,
		    w->timeout_nodes);
	case STOP_MISSING:
		return xstrdup("no log at all");
	case STOP_BEHIND:
		return xasprintf("log stops at iteration %ld, its peers reach "
		    "%.0f", nd->last_iter, st->peer_iter);
	case STOP_BEFORE:
		return xasprintf("log stops %s%s, before training; its peers "
		    "reach iteration %.0f", nd->last_stage != STAGE_NONE ?
		    "in " : "", nd->last_stage != STAGE_NONE ?
		    stage_name(nd->last_stage) : "", st->peer_iter);
	case STOP_EARLY:
		span_str(st->gap, gap, sizeof gap);
		return xasprintf("log ends %s before its peers'", gap);
	case STOP_SILENT:
		s = &w->job->streams[st->stream];
		if (s->last_iter < 0)
			return xasprintf("'%s' stops silently while %zu of the "
			    "other %zu ranks' logs end in errors", s->path,
			    st->nerr, st->ntrain - 1);
		return xasprintf("'%s' stops silently after iteration %ld while "
		    "%zu of the other %zu ranks' logs report errors after it",
		    s->path, s->last_iter, st->nerr, st->ntrain - 1);
	default:
		return NULL;
	}
}

/*
 * The strongest localised event on each node (its template in best[n]).
 * A job of one node has no peers to be compared with: there its errors
 * and labelled events count.
 */
static void
node_events(const struct work *w, const struct diag_result *r, double *ev,
    size_t *best)
{
	const struct diag_job *job = w->job;
	size_t i, k, lim = job->nreal / 4 > 1 ? job->nreal / 4 : 1;

	for (i = 0; i < r->nevents; i++) {
		const struct diag_event_result *e = &r->events[i];
		const struct tfacts *f = &w->tf[e->tmpl];

		if (e->nnodes == 0 || e->tmpl == DIAG_SYNTH ||
		    job->tmpls[e->tmpl].context ||
		    (job->nreal < 2 && !signals_error(w, e->tmpl)))
			continue;
		for (k = 0; k < e->nnodes; k++) {
			size_t n = e->nodes[k];

			if (n >= job->nreal)
				continue;
			if (e->nnodes > lim && !(f->zn == n && f->maxz >= 3))
				continue;
			if (e->score > ev[n]) {
				ev[n] = e->score;
				best[n] = e->tmpl;
			}
		}
	}
}

/* The median count of template t over the nodes. */
static double
typical_count(const struct diag_job *job, size_t t)
{
	double *col = xcalloc(job->nreal + 1, sizeof *col), m;
	size_t n;

	for (n = 0; n < job->nreal; n++)
		col[n] = (double)job->counts[n * job->ntmpls + t];
	m = stats_median(col, job->nreal);
	free(col);
	return m;
}

/* Why the node deviates: its two most attributed templates. */
static void
node_spatial_reason(const struct work *w, size_t n,
    struct diag_node_result *nr)
{
	const struct diag_job *job = w->job;
	const double *a = w->node_attr + n * job->ntmpls;
	size_t t, top[2] = { (size_t)-1, (size_t)-1 }, k;
	char text[128];

	reason_add(&nr->reasons, &nr->nreasons, "deviates from its peers "
	    "(spatial anomaly %.2f)", w->node_spatial[n]);
	if (w->typical == NULL) {
		((struct work *)w)->typical = xcalloc(job->ntmpls + 1,
		    sizeof *w->typical);
		for (t = 0; t < job->ntmpls; t++)
			w->typical[t] = typical_count(job, t);
	}
	/*
	 * A count a whole line away from the typical node's says something;
	 * of a traceback, its exception line does, not its frames or header.
	 */
	for (t = 0; t < job->ntmpls; t++) {
		if (a[t] <= 0 || fabs((double)job->counts[n * job->ntmpls + t] -
		    w->typical[t]) < 1 || job->tmpls[t].context ||
		    job->tmpls[t].filler)
			continue;
		if (top[0] == (size_t)-1 || a[t] > a[top[0]]) {
			top[1] = top[0];
			top[0] = t;
		} else if (top[1] == (size_t)-1 || a[t] > a[top[1]])
			top[1] = t;
	}
	for (k = 0; k < 2 && top[k] != (size_t)-1; k++) {
		double typ = w->typical[top[k]];

		clip(job->tmpls[top[k]].text, 60, text, sizeof text);
		reason_add(&nr->reasons, &nr->nreasons, "%u x '%s' here, %.*f "
		    "on a typical node", job->counts[n * job->ntmpls + top[k]],
		    text, typ == floor(typ) ? 0 : 1, typ);
	}
}

/*
 * Does a rank's stream end in an error: after its last iteration line
 * (an unfinished iteration), or, for a rank that logs no iteration lines,
 * among its last three events (timeouts count: they are what a stalled
 * peer leaves in the others' logs)?
 */
static int
reports_error(const struct work *w, const struct diag_stream *s)
{
	size_t from, e, t;

	if (s->last_iter >= 0)
		return tail_has_error(w, s);
	from = s->nevents > 3 ? s->nevents - 3 : 0;
	for (e = from; e < s->nevents; e++)
		if ((t = tmpl_index(w, s->events[e])) != (size_t)-1 &&
		    signals_error(w, t) && !w->job->tmpls[t].context)
			return 1;
	return 0;
}

/*
 * Ranks' streams that end without an error while most of the others
 * report errors at their end: a frozen rank leaves no line, its peers
 * time out.  w->silent[n] is 1 + the index of such a stream of node n, 0
 * when none; w->nerr_tails counts the streams that report errors,
 * w->ntrain the ranks' streams.
 */
static void
silent_streams(struct work *w)
{
	const struct diag_job *job = w->job;
	size_t i, nerr = 0, ntrain = 0;
	int *err = xcalloc(job->nstreams + 1, sizeof *err);

	w->silent = xcalloc(job->nnodes + 1, sizeof *w->silent);
	for (i = 0; i < job->nstreams; i++) {
		if (!rank_stream(job, &job->streams[i]))
			continue;
		ntrain++;
		err[i] = reports_error(w, &job->streams[i]);
		nerr += err[i];
	}
	for (i = 0; i < job->nstreams && nerr > 0; i++)
		if (rank_stream(job, &job->streams[i]) && !err[i] &&
		    nerr * 2 >= ntrain - 1 && w->silent[job->streams[i].node] == 0)
			w->silent[job->streams[i].node] = i + 1;
	w->nerr_tails = nerr;
	w->ntrain = ntrain;
	free(err);
}

/* The node whose first error leads the others' by half a second or more. */
static size_t
onset_node(const struct diag_job *job, double *lead)
{
	size_t n, first = (size_t)-1;
	double a = NAN, b = NAN, ts;

	for (n = 0; n < job->nreal; n++) {
		if (isnan(ts = job->nodes[n].first_error_ts))
			continue;
		if (isnan(a) || ts < a) {
			b = a;
			a = ts;
			first = n;
		} else if (isnan(b) || ts < b)
			b = ts;
	}
	if (first == (size_t)-1 || isnan(b) || b - a < 0.5)
		return (size_t)-1;
	*lead = b - a;
	return first;
}

/* ------------------------------------------------------------ own events */

/*
 * Add an event of the diagnosis's own: `text` (copied), at path:line
 * (NULL, 0: no line) of node `node` ((size_t)-1: none), in iteration
 * `iter` (-1 none).
 */
static struct diag_event_result *
synth_add(struct diag_result *r, const char *category, char *text,
    size_t node, const char *path, long line, double ts, long iter)
{
	struct diag_event_result *e;

	r->events = xreallocarray(r->events, r->nevents + 2, sizeof *r->events);
	e = &r->events[r->nevents++];
	memset(e, 0, sizeof *e);
	e->tmpl = DIAG_SYNTH;
	e->text = text;
	e->own = xcalloc(1, sizeof *e->own);
	e->own->node = node;
	e->own->path = path != NULL ? xstrdup(path) : NULL;
	e->own->line = line;
	e->own->ts = ts;
	e->own->stage = STAGE_TRAINING;
	e->own->iteration = iter;
	e->first = e->own;
	e->count = 1;
	e->category = category;
	e->at_iter = iter;
	e->one_iter = iter >= 0;
	e->nodes = xcalloc(2, sizeof *e->nodes);
	if (node != (size_t)-1)
		e->nodes[e->nnodes++] = node;
	return e;
}

/*
 * Its score, as a template's: new (healthy runs do not stop), as
 * localised as its nodes, in the failing stretch, its category's weight,
 * an error.
 */
static void
synth_score(const struct work *w, struct diag_event_result *e)
{
	size_t nn = w->job->nreal;
	double spatial = e->nnodes == 0 || nn < 2 ? 0.5 :
	    (double)(nn - e->nnodes) / (double)(nn - 1);

	e->score = 0.30 + 0.25 * spatial + 0.20 +
	    0.15 * faults_category_weight(e->category) + 0.05;
}

/*
 * The hang hang_signal() found: the training's progress stopped, at the
 * last progress line.  It names no node: whose rank stopped first is the
 * stop events' to say (rank 0 alone prints HF's bar).
 */
static void
hang_event(struct work *w, struct diag_result *r)
{
	const struct diag_stream *s;
	struct diag_event_result *e;
	char at[32], gap[32];

	if (w->hang_tmpl == (size_t)-1)
		return;
	s = &w->job->streams[w->hang_stream];
	diag_clock_str(w->hang_ts, at, sizeof at);
	span_str(w->hang_sec, gap, sizeof gap);
	e = synth_add(r, "hang", xasprintf("training progress stops after "
	    "iteration %ld (a hang)", w->hang_iter), (size_t)-1,
	    s->file != NULL ? s->file : s->path, s->iter_line, w->hang_ts,
	    w->hang_iter);
	reason_add(&e->reasons, &e->nreasons, "training output stopped after "
	    "iteration %ld at %s while other lines went on for %s (%.0f "
	    "iteration periods): a hang", w->hang_iter, at, gap,
	    w->hang_sec / w->hang_period);
	synth_score(w, e);
}

/*
 * A rank that stops silently, a node whose log ends early or that logged
 * nothing, a rank that wrote no line: what its peers' timeouts follow
 * from, an event of its own (when the job did not run to the end, and
 * for at most a quarter of the nodes: when most stop, none is special).
 */
static void
stop_events(struct work *w, struct diag_result *r)
{
	const struct diag_job *job = w->job;
	struct stop *st = xcalloc(job->nreal + 1, sizeof *st);
	struct diag_event_result *e;
	const struct diag_stream *s;
	size_t n, count = 0, cap = job->nreal / 4 > 1 ? job->nreal / 4 : 1;

	for (n = 0; n < job->nreal && !w->ran_to_end; n++) {
		node_stop(w, n, &st[n]);
		count += st[n].kind != STOP_NONE;
	}
	for (n = 0; n < job->nreal && !w->ran_to_end && count <= cap; n++) {
		if (st[n].kind == STOP_NONE)
			continue;
		s = st[n].stream != (size_t)-1 && st[n].kind != STOP_MISSING &&
		    st[n].kind != STOP_ABSENT ? &job->streams[st[n].stream] : NULL;
		/* a part of a combined log ends when the file does */
		e = synth_add(r, "stop", stop_text(w, n, &st[n]), n, s == NULL ?
		    NULL : s->file != NULL ? s->file : s->path, s == NULL ? 0 :
		    s->last_line, s == NULL || s->file != NULL ? NAN :
		    s->last_ts, st[n].iter >= 0 ? st[n].iter + 1 : -1);
		reason_add(&e->reasons, &e->nreasons, "only on %s: what its "
		    "peers' timeouts and errors follow from", job->nodes[n].name);
		synth_score(w, e);
	}
	free(st);
}

/*
 * The diagnosis's own events rank below a rank's own error (an Xid, a
 * CUDA error: the crash they follow from), just above what it causes.
 */
static void
synth_cap(struct work *w, struct diag_result *r)
{
	double own = 0;
	size_t i;

	for (i = 0; i < r->nevents; i++)
		if (r->events[i].tmpl != DIAG_SYNTH &&
		    !consequence(r->events[i].category) &&
		    own_error(w, r->events[i].tmpl) && r->events[i].score > own)
			own = r->events[i].score;
	for (i = 0; i < r->nevents && own > 0; i++)
		if (r->events[i].tmpl == DIAG_SYNTH &&
		    r->events[i].score > 0.88 * own) {
			r->events[i].score = 0.88 * own;
			reason_add(&r->events[i].reasons, &r->events[i].nreasons,
			    "below the error a rank reported itself, which it "
			    "may follow from");
		}
}

static void
score_nodes(struct work *w, struct diag_result *r)
{
	struct diag_job *job = w->job;
	size_t nn = job->nreal, n, first, *best, k;
	double *ev = xcalloc(nn + 1, sizeof *ev), top, lead = 0, on;
	char gap[32], text[128], *why;
	struct stop st;

	best = xcalloc(nn + 1, sizeof *best);
	node_events(w, r, ev, best);
	top = r->nevents > 0 && r->events[0].score > 0 ? r->events[0].score : 1;
	first = onset_node(job, &lead);
	r->nodes = xcalloc(nn + 1, sizeof *r->nodes);
	r->nnodes = nn;
	for (n = 0; n < nn; n++) {
		struct diag_node_result *nr = &r->nodes[n];

		nr->node = n;
		if (w->node_spatial[n] >= 0.3)
			node_spatial_reason(w, n, nr);
		if (ev[n] > 0) {
			clip(job->tmpls[best[n]].text, 80, text, sizeof text);
			reason_add(&nr->reasons, &nr->nreasons, "has '%s' "
			    "(event score %.2f)", text, ev[n]);
		}
		node_stop(w, n, &st);
		if ((why = stop_text(w, n, &st)) != NULL) {
			reason_add(&nr->reasons, &nr->nreasons, "%s", why);
			free(why);
		}
		on = n == first ? 1 : 0;
		if (on) {
			span_str(lead, gap, sizeof gap);
			reason_add(&nr->reasons, &nr->nreasons, "first error of "
			    "the job, %s before any other node's", gap);
		}
		for (k = 0; k < job->nodes[n].noutside; k++)
			reason_add(&nr->reasons, &nr->nreasons, "%s",
			    job->nodes[n].outside_why[k]);
		nr->score = 0.35 * w->node_spatial[n] + 0.30 * ev[n] / top +
		    0.25 * st.weight + 0.10 * on;
		/* independent evidence: either may convict the node */
		nr->score = 1 - (1 - nr->score) * (1 - job->nodes[n].outside) *
		    (1 - st.strong);
	}
	ts_qsort(r->nodes, nn, sizeof *r->nodes, cmp_node);
	free(ev);
	free(best);
}

/* Failure stage, failure iteration, last healthy iteration. */
static void
when(struct work *w, struct diag_result *r)
{
	struct diag_job *job = w->job;
	const struct diag_event_result *top = r->nevents ? &r->events[0] : NULL;
	long fail = w->diverged ? w->div.fail_rec.iteration :
	    w->fail_iter, minlast = -1;
	size_t n, i;
	int slowed = 0;

	/*
	 * An error or a labelled event new in an anomalous iteration.  A job
	 * whose every rank ran to the same clean end went wrong only where a
	 * hardware-class fault showed: the retries and warnings of a run that
	 * recovered are the noise healthy runs have too.
	 */
	for (i = 0; i < r->nevents && i < 5 && fail < 0; i++) {
		const struct diag_event_result *e = &r->events[i];

		if (e->tmpl == DIAG_SYNTH)
			continue;
		if (w->tf[e->tmpl].new_in_iter >= 0 && e->score >= 0.4 &&
		    (e->category != NULL ||
		    job->tmpls[e->tmpl].level >= DIAG_LEVEL_WARN) &&
		    (!w->ran_to_end || w->tf[e->tmpl].library >= 0.85))
			fail = w->tf[e->tmpl].new_in_iter;
	}
	/* a job that failed or stopped after its loss went bad failed there */
	if (w->bad_loss != NULL && !w->ran_to_end &&
	    (fail < 0 || w->bad_loss->iteration < fail))
		fail = w->bad_loss->iteration;
	/* a hang: the iteration that never finished */
	if (fail < 0 && w->hang_tmpl != (size_t)-1)
		fail = w->hang_iter + 1;
	/* no crash but a lasting slowdown: that is where it went wrong */
	if (fail < 0 && r->slow_iter >= 0) {
		fail = r->slow_iter;
		slowed = 1;
	}
	/*
	 * An error ended the job in a stage before training: "iteration 0",
	 * before its first.  Where no stage line says so (a pasted window
	 * of errors), the iteration is unknown.
	 */
	if (fail < 0 && !w->reached_training && top != NULL &&
	    top->tmpl != DIAG_SYNTH && top->score > 0 &&
	    (top->category != NULL ||
	    job->tmpls[top->tmpl].level >= DIAG_LEVEL_ERROR) &&
	    job->tmpls[top->tmpl].first.stage > STAGE_NONE &&
	    job->tmpls[top->tmpl].first.stage < STAGE_TRAINING)
		fail = 0;
	for (n = 0; n < job->nnodes; n++)
		if (job->nodes[n].last_iter >= 0 && (minlast < 0 ||
		    job->nodes[n].last_iter < minlast))
			minlast = job->nodes[n].last_iter;
	r->failure_iter = fail;
	r->last_healthy_iter = -1;
	/* a failed checkpoint save after iteration N leaves N healthy */
	if (fail == 0)
		r->last_healthy_iter = -1;
	else if (fail >= 0 && (w->fail_stage == STAGE_CKPT_SAVE ||
	    w->fail_stage == STAGE_EVAL))
		r->last_healthy_iter = fail < minlast ? fail : minlast;
	else if (fail >= 0)
		r->last_healthy_iter = fail - 1 < minlast ? fail - 1 : minlast;
	if (slowed)	/* the steps slowed down: no event says where */
		r->stage = STAGE_TRAINING;
	else if (top != NULL && top->score > 0)
		r->stage = top->first->stage;
	else if (r->nnodes > 0)
		r->stage = job->nodes[r->nodes[0].node].last_stage;
	if (r->stage == STAGE_NONE && r->nnodes > 0)
		r->stage = job->nodes[r->nodes[0].node].last_stage;
	/* it failed after iterations ran: a log that never said so is wrong */
	if (fail > 0 && r->stage < STAGE_TRAINING)
		r->stage = STAGE_TRAINING;
}

/*
 * Iteration i's duration, the median of it and its two neighbours on
 * each side (from `from` on): a lone pause (a checkpoint save counted in
 * the step after it) is not a level, and must not drown a step change.
 */
static double
smoothed(const struct diag_job *job, size_t from, size_t i)
{
	double w[5];
	size_t lo = i >= from + 2 ? i - 2 : from, k, m = 0;

	for (k = lo; k <= i + 2 && k < job->ntimes; k++)
		w[m++] = job->times[k].ms;
	return stats_median(w, m);
}

/*
 * A lasting slowdown: the split of the iteration durations (log scale,
 * at least four on each side, the first iterations left out as warm-up)
 * with the largest difference of means in pooled standard deviations.
 * Reported when that is above 6 and the later iterations take 10% longer
 * by their medians.  The split is found on durations smoothed by a running
 * median of five.
 */
static void
slowdown(const struct diag_job *job, struct diag_result *r)
{
	size_t n = job->ntimes, from = n > 12 ? 2 : 0, k, i, best = 0;
	double *lg, *pre, *pre2, sc, bestsc = 0, m1, m2, v1, v2, *tmp;

	r->slow_iter = -1;
	if (n - from < 8)
		return;
	lg = xcalloc(n, sizeof *lg);
	pre = xcalloc(n + 1, sizeof *pre);
	pre2 = xcalloc(n + 1, sizeof *pre2);
	for (i = from; i < n; i++) {
		lg[i] = log(fmax(smoothed(job, from, i), 0.001));
		pre[i + 1] = pre[i] + lg[i];
		pre2[i + 1] = pre2[i] + lg[i] * lg[i];
	}
	for (k = from + 4; k + 4 <= n; k++) {
		double a = (double)(k - from), b = (double)(n - k);

		m1 = (pre[k] - pre[from]) / a;
		m2 = (pre[n] - pre[k]) / b;
		v1 = (pre2[k] - pre2[from]) / a - m1 * m1;
		v2 = (pre2[n] - pre2[k]) / b - m2 * m2;
		sc = (m2 - m1) / sqrt((v1 * a + v2 * b) / (a + b) + 1e-6);
		if (sc > bestsc) {
			bestsc = sc;
			best = k;
		}
	}
	if (bestsc > 6) {
		tmp = xcalloc(n, sizeof *tmp);
		for (i = from; i < best; i++)
			tmp[i - from] = job->times[i].ms;
		r->slow_before_ms = stats_median(tmp, best - from);
		for (i = best; i < n; i++)
			tmp[i - best] = job->times[i].ms;
		r->slow_after_ms = stats_median(tmp, n - best);
		if (r->slow_after_ms > 1.1 * r->slow_before_ms)
			r->slow_iter = job->times[best].iteration;
		free(tmp);
	}
	free(lg);
	free(pre);
	free(pre2);
}

/*
 * Move pseudo nodes after the machines (permuting counts, streams and
 * first occurrences) and set job->nreal; with no machine at all, every
 * node counts as one.
 */
static void
partition_nodes(struct diag_job *job)
{
	size_t n, k = 0, i, *to;
	struct diag_node *nodes;
	uint32_t *counts;

	job->nreal = 0;
	if (job->nnodes == 0)
		return;
	to = xcalloc(job->nnodes + 1, sizeof *to);
	nodes = xcalloc(job->nnodes + 1, sizeof *nodes);
	counts = xcalloc(job->nnodes * job->ntmpls + 1, sizeof *counts);
	for (n = 0; n < job->nnodes; n++)
		if (!job->nodes[n].pseudo)
			to[n] = k++;
	job->nreal = k;
	for (n = 0; n < job->nnodes; n++)
		if (job->nodes[n].pseudo)
			to[n] = k++;
	for (n = 0; n < job->nnodes; n++) {
		nodes[to[n]] = job->nodes[n];
		memcpy(counts + to[n] * job->ntmpls, job->counts + n *
		    job->ntmpls, job->ntmpls * sizeof *counts);
	}
	memcpy(job->nodes, nodes, job->nnodes * sizeof *nodes);
	memcpy(job->counts, counts, job->nnodes * job->ntmpls *
	    sizeof *counts);
	for (i = 0; i < job->nstreams; i++)
		job->streams[i].node = to[job->streams[i].node];
	for (i = 0; i < job->ntmpls; i++)
		if (job->tmpls[i].first.node < job->nnodes)
			job->tmpls[i].first.node = to[job->tmpls[i].first.node];
	if (job->nreal == 0)
		job->nreal = job->nnodes;
	free(to);
	free(nodes);
	free(counts);
}

/*
 * Does stream s end in trouble: an error-level or labelled event after its
 * last iteration line (or, without iteration lines, among its last few
 * events)?
 */
static int
ends_in_error(const struct work *w, const struct diag_stream *s)
{
	size_t from, e, t;

	if (s->niters > 0 && s->iters[s->niters - 1].iteration >= 0)
		return s->iters[s->niters - 1].truncated &&
		    tail_has_error(w, s);
	from = s->nevents > 3 ? s->nevents - 3 : 0;
	for (e = from; e < s->nevents; e++)
		if ((t = tmpl_index(w, s->events[e])) != (size_t)-1 &&
		    signals_error(w, t) && !w->job->tmpls[t].context &&
		    w->tf[t].library != faults_category_weight("timeout"))
			return 1;
	return 0;
}

/*
 * Did every rank that trained run to the end: all at the same last
 * iteration, each either shut down or stopped after a complete iteration
 * without an error after it, with no node missing?  Launcher and host logs
 * must not end in an error either.  In a job still running (opts->now) a
 * rank one iteration behind that logged lately is only slower to write.
 */
static int
ran_to_end(const struct work *w)
{
	const struct diag_job *job = w->job;
	size_t i, trained = 0;
	long top = -1;
	double newest = NAN;

	for (i = 0; i < job->nstreams; i++) {
		if (job->streams[i].last_iter > top)
			top = job->streams[i].last_iter;
		if (!isnan(job->streams[i].last_ts) && (isnan(newest) ||
		    job->streams[i].last_ts > newest))
			newest = job->streams[i].last_ts;
	}

	for (i = 0; i < job->nnodes; i++)
		if (job->nodes[i].missing)
			return 0;
	for (i = 0; i < job->nstreams; i++) {
		const struct diag_stream *s = &job->streams[i];

		if (s->last_stage != STAGE_SHUTDOWN && ends_in_error(w, s))
			return 0;
		if (s->last_iter < 0)
			continue;	/* a launcher's, a host's or a quiet rank's */
		if (s->last_iter != top && !(s->last_iter + 1 == top &&
		    live_recent(w, s->last_ts, newest)))
			return 0;
		trained++;
	}
	return trained > 0;
}

/* Failed, or ran to the end (diverged, slowed down, or not). */
static enum diag_outcome
outcome(const struct work *w, const struct diag_result *r)
{
	if (!w->ran_to_end)
		return DIAG_FAILED;
	if (w->diverged)
		return DIAG_DIVERGED;
	return r->failure_iter >= 0 ? DIAG_DEGRADED : DIAG_COMPLETED;
}

/*
 * The stage a job that ran to the end ended in: the earliest last stage
 * of the ranks that trained (shutdown when they all said so).
 */
static enum stage
end_stage(const struct diag_job *job)
{
	enum stage st = STAGE_NONE;
	size_t i;

	for (i = 0; i < job->nstreams; i++)
		if (job->streams[i].last_iter >= 0 && (st == STAGE_NONE ||
		    job->streams[i].last_stage < st))
			st = job->streams[i].last_stage;
	return st;
}

const char *
diag_outcome_name(enum diag_outcome o)
{
	switch (o) {
	case DIAG_DEGRADED:
		return "degraded";
	case DIAG_COMPLETED:
		return "completed";
	case DIAG_DIVERGED:
		return "diverged";
	default:
		return "failed";
	}
}

/*
 * Anomalous iterations of the job: each iteration number once, however
 * many ranks flagged it (a log without iteration lines counts as one).
 */
static size_t
anomalous_count(const struct diag_job *job, size_t flagged)
{
	long *v = NULL;
	size_t n = 0, cap = 0, s, i, o;

	for (s = 0; s < job->nstreams; s++) {
		const struct diag_stream *st = &job->streams[s];

		for (i = 0; i <= st->ncands; i++) {
			const struct diag_cand *c = i < st->ncands ?
			    &st->cands[i] : &st->tail;

			if (i == st->ncands && !st->has_tail)
				break;
			if (c->anomalous) {
				v = xgrow(v, &cap, n + 1, sizeof *v);
				v[n++] = c->iteration;
			}
		}
	}
	if (n == 0) {
		free(v);
		return flagged > 0;
	}
	ts_qsort(v, n, sizeof *v, cmp_long_asc);
	for (i = o = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			o++;
	free(v);
	return o;
}

static void
work_release(struct work *w)
{
	free(w->tf);
	free(w->ids_sorted);
	free(w->ids_index);
	free(w->node_spatial);
	free(w->node_attr);
	free(w->typical);
	free(w->tail_node);
	free(w->silent);
}

struct diag_result *
diag_run(struct diag_job *job, const struct diag_opts *opts)
{
	struct diag_result *r = xcalloc(1, sizeof *r);
	struct work w;
	size_t t, i;
	double *col;

	memset(&w, 0, sizeof w);
	w.job = job;
	w.opts = opts;
	w.fail_iter = -1;
	w.fail_ts = NAN;
	r->job = job;
	r->failure_iter = r->last_healthy_iter = -1;
	if (job->counts == NULL)
		diag_job_shape(job);
	for (i = 0; i < job->nstreams; i++)
		diag_stream_fold(job, i);
	partition_nodes(job);
	w.tf = xcalloc(job->ntmpls + 1, sizeof *w.tf);
	col = xcalloc(job->nnodes + 1, sizeof *col);
	index_ids(&w);
	node_ends(&w);
	label(&w);
	stream_ends(&w);
	absent_ranks(&w);
	for (t = 0; t < job->ntmpls; t++)
		crossjob_prepare(&w, t);
	w.ran_to_end = ran_to_end(&w);
	loss_signal(&w);
	hang_signal(&w);
	if (w.hang_tmpl != (size_t)-1)
		w.ran_to_end = 0;
	w.tail_node = xcalloc(job->nnodes + 1, 1);
	for (i = 0; i < job->nstreams; i++)
		temporal_stream(&w, &job->streams[i]);
	for (i = 0; i < job->nstreams; i++)
		flat_tail(&w, &job->streams[i]);
	host_fail_time(&w);
	r->anomalous_iters = anomalous_count(job, w.flagged);
	r->events = xcalloc(job->ntmpls + 1, sizeof *r->events);
	r->nevents = job->ntmpls;
	spatial(&w);
	for (t = 0; t < job->ntmpls; t++)
		score_tmpl(&w, t, col, &r->events[t]);
	drop_context(&w, r);
	silent_streams(&w);
	hang_event(&w, r);
	stop_events(&w, r);
	demote_cuda(&w, r);
	demote_after_link(r);
	demote_standins(&w, r);
	synth_cap(&w, r);
	demote_consequences(&w, r);
	ts_qsort(r->events, r->nevents, sizeof *r->events, cmp_event);
	score_nodes(&w, r);
	slowdown(job, r);
	when(&w, r);
	r->outcome = outcome(&w, r);
	/* nothing went wrong: the stage is where it ended, not an event's */
	if (r->outcome == DIAG_COMPLETED && end_stage(job) != STAGE_NONE)
		r->stage = end_stage(job);
	free(col);
	work_release(&w);
	return r;
}

void
diag_result_free(struct diag_result *r)
{
	size_t i, k;

	if (r == NULL)
		return;
	for (i = 0; i < r->nevents; i++)
		event_release(&r->events[i]);
	for (i = 0; i < r->nnodes; i++) {
		for (k = 0; k < r->nodes[i].nreasons; k++)
			free(r->nodes[i].reasons[k]);
		free(r->nodes[i].reasons);
	}
	free(r->events);
	free(r->nodes);
	free(r);
}

/* ------------------------------------------------------------ printers */

int
diag_format_parse(const char *s, enum diag_format *out)
{
	if (strcmp(s, "text") == 0)
		*out = DIAG_TEXT;
	else if (strcmp(s, "tsv") == 0)
		*out = DIAG_TSV;
	else if (strcmp(s, "json") == 0)
		*out = DIAG_JSON;
	else
		return -1;
	return 0;
}

int
diag_print(FILE *out, const struct diag_result *r, enum diag_format fmt,
    size_t top)
{
	struct model *m = model_build(r->job, r, NULL);
	int rc = model_print(out, m, (int)fmt, top);

	model_free(m);
	return rc;
}
