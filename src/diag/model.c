/*
 * model.c -- the model of a diagnosed job (see model.h).
 *
 * Everything is copied out of the diagnosis so that the model outlives
 * it.  The heatmap summary is built from the streams' iterations: a cell
 * (node, iteration) gets the strongest score of the events logged in it,
 * on a scale of 1 to 7, and flags for what else happened there.  Cells
 * where nothing above the noise happened are not kept; a node that logged
 * an iteration without a mark was quiet in it.
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"
#include "diag/faults.h"
#include "flows/flowan.h"
#include "diag/model.h"
#include "base/stats.h"
#include "base/util.h"

/* Events below this score do not colour a heatmap cell on their own. */
#define MARK_MIN_SCORE 0.3

static char *
dup_or_null(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

static char **
dup_strv(char *const *v, size_t n)
{
	char **out;
	size_t i;

	if (n == 0)
		return NULL;
	out = xreallocarray(NULL, n, sizeof *out);
	for (i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

static void
free_strv(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void
model_note(struct model *m, const char *fmt, ...)
{
	va_list ap;

	m->notes = xreallocarray(m->notes, m->nnotes + 1, sizeof *m->notes);
	va_start(ap, fmt);
	m->notes[m->nnotes++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static void
build_nodes(struct model *m, const struct diag_job *job,
    const struct diag_result *r)
{
	size_t i;

	m->nnodes = job->nnodes;
	m->nreal = job->nreal;
	m->nodes = xcalloc(job->nnodes + 1, sizeof *m->nodes);
	for (i = 0; i < job->nnodes; i++) {
		const struct diag_node *d = &job->nodes[i];
		struct model_node *n = &m->nodes[i];

		/* lines no machine is named for: their file, not a host */
		n->name = d->pseudo ? xasprintf("unknown (%s)", d->name) :
		    xstrdup(d->name);
		n->missing = d->missing;
		n->pseudo = d->pseudo;
		n->last_iter = d->last_iter;
		n->last_ts = d->last_ts;
		n->last_stage = (int)d->last_stage;
		n->first_error_ts = d->first_error_ts;
		n->nranks = d->nprocs;
	}
	m->suspects = xcalloc(r->nnodes + 1, sizeof *m->suspects);
	for (i = 0; i < r->nnodes; i++) {
		const struct diag_node_result *nr = &r->nodes[i];
		struct model_node *n = &m->nodes[nr->node];

		n->score = nr->score;
		n->rank = (int)i + 1;
		n->reasons = dup_strv(nr->reasons, nr->nreasons);
		n->nreasons = nr->nreasons;
		m->suspects[m->nsuspects++] = (uint32_t)nr->node;
	}
}

/* The locations of an event of one iteration, copied. */
static void
copy_locs(struct model_event *e, const struct diag_event_result *er)
{
	size_t k;

	e->nlocs = er->nlocs;
	e->locs = xcalloc(er->nlocs + 1, sizeof *e->locs);
	for (k = 0; k < er->nlocs; k++) {
		e->locs[k].path = xstrdup(er->locs[k].path);
		e->locs[k].line = er->locs[k].line;
		e->locs[k].node = (uint32_t)er->locs[k].node;
	}
}

/* The diagnosis's own event er, the k-th of them. */
static void
build_own(struct model_event *e, const struct diag_event_result *er,
    size_t k)
{
	size_t n;

	e->id = MODEL_EVENT_OWN + (uint32_t)k;
	e->text = xstrdup(er->text);
	e->score = er->score;
	e->count = er->count;
	e->level = DIAG_LEVEL_ERROR;
	e->category = dup_or_null(er->category);
	e->nnodes = er->nnodes;
	e->nodes = xcalloc(er->nnodes + 1, sizeof *e->nodes);
	for (n = 0; n < er->nnodes; n++)
		e->nodes[n] = (uint32_t)er->nodes[n];
	e->path = dup_or_null(er->own->path);
	e->line = er->own->line;
	e->ts = er->own->ts;
	e->stage = (int)er->own->stage;
	e->iteration = er->own->iteration;
	e->reasons = dup_strv(er->reasons, er->nreasons);
	e->nreasons = er->nreasons;
	copy_locs(e, er);
}

static void
build_events(struct model *m, const struct diag_job *job,
    const struct diag_result *r)
{
	size_t i, k, nown = 0;

	m->nevents = r->nevents;
	m->events = xcalloc(r->nevents + 1, sizeof *m->events);
	for (i = 0; i < r->nevents; i++) {
		const struct diag_event_result *er = &r->events[i];
		const struct diag_tmpl *t;
		struct model_event *e = &m->events[i];

		if (er->tmpl == DIAG_SYNTH) {
			build_own(e, er, nown++);
			continue;
		}
		t = &job->tmpls[er->tmpl];
		e->id = t->id;
		e->text = xstrdup(t->text);
		e->score = er->score;
		e->count = er->count;
		e->level = t->level;
		e->category = dup_or_null(er->category);
		if (er->rule != NULL) {
			e->rule = dup_or_null(er->rule->name);
			e->explain = dup_or_null(er->rule->explain);
			e->action = dup_or_null(er->rule->action);
		}
		e->nnodes = er->nnodes;
		e->nodes = xcalloc(er->nnodes + 1, sizeof *e->nodes);
		for (k = 0; k < er->nnodes; k++)
			e->nodes[k] = (uint32_t)er->nodes[k];
		e->path = dup_or_null(t->first.path);
		e->line = t->first.line;
		e->ts = t->first.ts;
		e->stage = (int)t->first.stage;
		e->iteration = t->first.iteration;
		if (er->at_path != NULL) {	/* what one of its lines said */
			free(e->path);
			e->path = xstrdup(er->at_path);
			e->line = er->at_line;
			e->ts = er->at_ts;
			e->iteration = er->at_iter;
			e->stage = STAGE_TRAINING;
		}
		copy_locs(e, er);
		e->reasons = dup_strv(er->reasons, er->nreasons);
		e->nreasons = er->nreasons;
		e->ntrace = t->ntrace;
		e->trace = xcalloc(t->ntrace + 1, sizeof *e->trace);
		for (k = 0; k < t->ntrace; k++)
			e->trace[k] = xstrdup(job->tmpls[t->trace[k]].text);
	}
}

/* A template index of the job -> event index of the result, or -1. */
static long *
event_of_tmpl(const struct diag_job *job, const struct diag_result *r)
{
	long *map = xreallocarray(NULL, job->ntmpls + 1, sizeof *map);
	size_t i;

	for (i = 0; i < job->ntmpls; i++)
		map[i] = -1;
	for (i = 0; i < r->nevents; i++)
		if (r->events[i].tmpl != DIAG_SYNTH)
			map[r->events[i].tmpl] = (long)i;
	return map;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Template id -> index.  The ids are the cache's, mostly dense: then a
 * table indexed by id (a heatmap of 50 000 cells of some 30 events each
 * looked each up by bisection: 15 % of model_build()), else bisection.
 */
struct idmap {
	uint32_t *ids;		/* sorted template ids */
	size_t *tmpl;		/* their indices */
	size_t n;
	int32_t *direct;	/* by id: index, -1 none; or NULL */
	size_t ndirect;
};

static void
idmap_build(struct idmap *im, const struct diag_job *job)
{
	uint64_t *pairs = xreallocarray(NULL, job->ntmpls + 1, sizeof *pairs);
	size_t i;

	for (i = 0; i < job->ntmpls; i++)
		pairs[i] = (uint64_t)job->tmpls[i].id << 32 | (uint64_t)i;
	ts_qsort(pairs, job->ntmpls, sizeof *pairs, flowan_cmp_u64);
	im->n = job->ntmpls;
	im->ids = xreallocarray(NULL, im->n + 1, sizeof *im->ids);
	im->tmpl = xreallocarray(NULL, im->n + 1, sizeof *im->tmpl);
	for (i = 0; i < im->n; i++) {
		im->ids[i] = (uint32_t)(pairs[i] >> 32);
		im->tmpl[i] = (size_t)(pairs[i] & 0xffffffffu);
	}
	free(pairs);
	im->direct = NULL;
	im->ndirect = im->n > 0 ? (size_t)im->ids[im->n - 1] + 1 : 0;
	if (im->n == 0 || im->ndirect > 4 * im->n + 4096 ||
	    im->n > INT32_MAX)
		return;
	im->direct = xreallocarray(NULL, im->ndirect, sizeof *im->direct);
	memset(im->direct, 0xff, im->ndirect * sizeof *im->direct);
	for (i = 0; i < im->n; i++)
		im->direct[im->ids[i]] = (int32_t)im->tmpl[i];
}

static long
idmap_find(const struct idmap *im, uint32_t id)
{
	const uint32_t *p;

	if (im->direct != NULL)
		return id < im->ndirect ? im->direct[id] : -1;
	p = bsearch(&id, im->ids, im->n, sizeof id, cmp_u32);
	return p == NULL ? -1 : (long)im->tmpl[p - im->ids];
}

/*
 * The heatmap's cells as they are made: each rank's mark of an iteration
 * is merged at once into its node's cell (node, at), found through an
 * open-addressing table, so the marks held are one a cell, not one a
 * rank and iteration.  Merging in the order the marks are made is what
 * sorting them stably by cell and merging neighbours did.
 */
struct cells {
	uint32_t *tab;		/* mark index + 1, 0 empty */
	size_t size;		/* a power of two */
	size_t cap;		/* of m->marks */
};

static uint64_t
cell_hash(uint32_t node, double at)
{
	uint64_t bits;

	if (at == 0)
		at = 0;		/* -0 and 0 are one cell */
	memcpy(&bits, &at, sizeof bits);
	bits ^= (uint64_t)node * 0x9e3779b97f4a7c15ULL;
	bits ^= bits >> 29;
	bits *= 0xbf58476d1ce4e5b9ULL;
	return bits ^ (bits >> 32);
}

static void
cells_grow(struct cells *c, const struct model *m)
{
	size_t i, j;

	free(c->tab);
	c->size = c->size == 0 ? 1024 : c->size * 2;
	c->tab = xcalloc(c->size, sizeof *c->tab);
	for (i = 0; i < m->nmarks; i++) {
		j = cell_hash(m->marks[i].node, m->marks[i].at) & (c->size - 1);
		while (c->tab[j] != 0)
			j = (j + 1) & (c->size - 1);
		c->tab[j] = (uint32_t)i + 1;
	}
}

/* Merge mark k into cell d: counts, flags, the strongest event. */
static void
cell_merge(const struct model *m, struct model_mark *d,
    const struct model_mark *k)
{
	d->n += k->n;
	d->flags |= k->flags;
	if (k->event != UINT32_MAX && (d->event == UINT32_MAX ||
	    m->events[k->event].score > m->events[d->event].score)) {
		d->event = k->event;
		d->level = k->level;
	}
}

/* Put mark k into its cell, a new one or merged into the one there. */
static void
cell_put(struct model *m, struct cells *c, const struct model_mark *k)
{
	struct model_mark *d;
	size_t j;

	if ((m->nmarks + 1) * 2 > c->size)
		cells_grow(c, m);
	for (j = cell_hash(k->node, k->at) & (c->size - 1); c->tab[j] != 0;
	    j = (j + 1) & (c->size - 1)) {
		d = &m->marks[c->tab[j] - 1];
		if (d->node == k->node && d->at == k->at) {
			cell_merge(m, d, k);
			return;
		}
	}
	m->marks = xgrow(m->marks, &c->cap, m->nmarks + 1, sizeof *m->marks);
	m->marks[m->nmarks] = *k;
	c->tab[j] = (uint32_t)++m->nmarks;
}

/* A new mark of a cell, to fill and then cell_put(). */
static void
mark_init(struct model_mark *k, uint32_t node, double at)
{
	memset(k, 0, sizeof *k);
	k->node = node;
	k->at = at;
	k->event = UINT32_MAX;
}

static uint8_t
score_level(double s)
{
	int l = 1 + (int)(s * 7.0);

	return (uint8_t)(l > 7 ? 7 : l < 1 ? 1 : l);
}

/* Note event `ev` (an index, or -1) of template `t` in mark k. */
static void
mark_event(struct model *m, const struct diag_job *job, struct model_mark *k,
    const struct diag_tmpl *t, long ev)
{
	double s = ev < 0 ? 0 : m->events[ev].score;

	k->n++;
	if (t->level >= DIAG_LEVEL_ERROR)
		k->flags |= MODEL_MARK_ERROR;
	else if (t->level == DIAG_LEVEL_WARN)
		k->flags |= MODEL_MARK_WARN;
	/* new: no healthy run that logs like the job has it */
	if (job->nhealthy - t->healthy_blind > 0 && t->healthy_jobs == 0 &&
	    s >= MARK_MIN_SCORE)
		k->flags |= MODEL_MARK_NEW;
	if (ev >= 0 && s >= MARK_MIN_SCORE && (k->event == UINT32_MAX ||
	    s > m->events[k->event].score)) {
		k->event = (uint32_t)ev;
		k->level = score_level(s);
	}
}

static int
cmp_mark(const void *a, const void *b)
{
	const struct model_mark *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Sift mark i down the heap v[0 .. n). */
static void
mark_sift(struct model_mark *v, size_t i, size_t n)
{
	struct model_mark t;
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && cmp_mark(&v[c], &v[c + 1]) < 0)
			c++;
		if (cmp_mark(&v[i], &v[c]) >= 0)
			return;
		t = v[i];
		v[i] = v[c];
		v[c] = t;
		i = c;
	}
}

/*
 * Sort marks by cmp_mark() in place: a heap sort, since a merge sort's
 * buffer would be as large as the marks (half a million of them on a
 * 10 GB job's heatmap).  Cells are unique, so any sort gives one order.
 * The fold makes cells node by node, iteration by iteration, so they
 * mostly come sorted already (the bench jobs' and a 10 240-file job's
 * did): then one pass says so and nothing moves.
 */
static void
marks_sort(struct model_mark *v, size_t n)
{
	struct model_mark t;
	size_t i;

	for (i = 1; i < n && cmp_mark(&v[i - 1], &v[i]) <= 0; i++)
		;
	if (i >= n)
		return;
	for (i = n / 2; i > 0; i--)
		mark_sift(v, i - 1, n);
	for (i = n; i > 1; i--) {
		t = v[0];
		v[0] = v[i - 1];
		v[i - 1] = t;
		mark_sift(v, 0, i - 1);
	}
}

/* The cells in order of node and time; empty ones dropped. */
static void
marks_merge(struct model *m)
{
	size_t i, o;

	marks_sort(m->marks, m->nmarks);
	for (i = o = 0; i < m->nmarks; i++) {
		struct model_mark *k = &m->marks[i];

		if (k->event == UINT32_MAX && (k->flags & (MODEL_MARK_END |
		    MODEL_MARK_ANOMALOUS | MODEL_MARK_ERROR)) == 0)
			continue;
		if (k->level == 0)
			k->level = (k->flags & (MODEL_MARK_END |
			    MODEL_MARK_ERROR)) ? 6 : 3;
		m->marks[o++] = *k;
	}
	m->nmarks = o;
}

/*
 * The iteration in which a node's log ended while the job went on, or
 * -1: it stopped iterating before its peers, or, in a job that failed,
 * its log ended more than a minute before the job's last line (a crash
 * its peers waited on).  A node whose ranks print no iteration lines
 * (HF and DeepSpeed log them on rank 0 only) says nothing of it.
 */
static long
end_iteration(const struct model *m, const struct model_node *n,
    long maxlast)
{
	int early = m->outcome == DIAG_FAILED && !isnan(n->last_ts) &&
	    !isnan(m->last_ts) && n->last_ts < m->last_ts - 60;

	if (n->missing || n->last_iter < 0)
		return -1;
	return n->last_iter < maxlast || early ? n->last_iter + 1 : -1;
}

/* What marking a folded iteration needs. */
struct markctx {
	struct model *m;
	const struct diag_job *job;
	const struct diag_result *r;
	const struct idmap *im;
	const long *evmap;
	struct cells *c;
};

/*
 * The events of a cell of the fold (diag_fold_records()): its mark, at
 * the first iteration of its bucket.
 */
static void
mark_record(void *arg, size_t node, long at, long iteration,
    const uint32_t *ids, const uint32_t *counts, size_t n)
{
	const struct markctx *x = arg;
	struct model_mark mk;
	long e, t;
	size_t k;
	int any = 0;

	mark_init(&mk, (uint32_t)node, (double)at);
	for (k = 0; k < n; k++) {
		if ((t = idmap_find(x->im, ids[k])) < 0)
			continue;
		e = x->evmap[t];
		/* an event of one iteration marks only that */
		if (e >= 0 && x->r->events[e].one_iter &&
		    x->r->events[e].at_iter != iteration)
			e = -1;
		mark_event(x->m, x->job, &mk, &x->job->tmpls[t], e);
		mk.n += counts[k] - 1;
		any = 1;
	}
	if (any)
		cell_put(x->m, x->c, &mk);
}

/* The candidate iterations of stream s (flagged, then its tail). */
static const struct diag_cand *
cand_at(const struct diag_stream *s, size_t i)
{
	if (i < s->ncands)
		return &s->cands[i];
	return i == s->ncands && s->has_tail ? &s->tail : NULL;
}

/* Each rank's mark of each iteration it logged events or was odd in. */
static void
build_marks_iter(struct model *m, const struct diag_job *job,
    const struct diag_result *r, const struct idmap *im, const long *evmap,
    struct cells *c)
{
	struct markctx x = { m, job, r, im, evmap, c };
	const struct diag_cand *cd;
	struct model_mark mk;
	long maxlast = -1, at;
	size_t s, i, want = diag_fold_cells(job) + m->nreal + 1;

	/* as many marks as cells at most: no room doubled for nothing */
	if (c->cap < want) {
		m->marks = xreallocarray(m->marks, want, sizeof *m->marks);
		c->cap = want;
	}
	diag_fold_records(job, mark_record, &x);
	for (s = 0; s < job->nstreams; s++)
		for (i = 0; (cd = cand_at(&job->streams[s], i)) != NULL; i++)
			if (cd->anomalous) {
				mark_init(&mk, (uint32_t)job->streams[s].node,
				    (double)model_bucket(m, cd->iteration));
				mk.flags |= MODEL_MARK_ANOMALOUS;
				cell_put(m, c, &mk);
			}
	for (i = 0; i < m->nreal; i++)
		if (m->nodes[i].last_iter > maxlast)
			maxlast = m->nodes[i].last_iter;
	for (i = 0; i < m->nreal; i++) {
		if ((at = end_iteration(m, &m->nodes[i], maxlast)) < 0)
			continue;
		mark_init(&mk, (uint32_t)i, (double)model_bucket(m, at));
		mk.flags |= MODEL_MARK_END;
		cell_put(m, c, &mk);
	}
}

/* Logs without iterations: each node's share of an event at its time. */
static void
build_marks_time(struct model *m, struct cells *c)
{
	struct model_mark mk;
	size_t i, k;

	for (i = 0; i < m->nevents; i++) {
		const struct model_event *e = &m->events[i];

		if (isnan(e->ts) || e->score < MARK_MIN_SCORE)
			continue;
		for (k = 0; k < e->nnodes; k++) {
			mark_init(&mk, e->nodes[k], e->ts);
			mk.n = 1;
			mk.event = (uint32_t)i;
			mk.level = score_level(e->score);
			if (e->level >= DIAG_LEVEL_ERROR)
				mk.flags |= MODEL_MARK_ERROR;
			cell_put(m, c, &mk);
		}
	}
	for (i = 0; i < m->nreal; i++) {
		const struct model_node *n = &m->nodes[i];

		if (isnan(n->last_ts) || isnan(m->last_ts) ||
		    n->last_ts >= m->last_ts - 60)
			continue;
		mark_init(&mk, (uint32_t)i, n->last_ts);
		mk.flags |= MODEL_MARK_END;
		cell_put(m, c, &mk);
	}
}

/*
 * The diagnosis's own events mark their node where its rank stopped (the
 * iteration it did not finish, or the failure's; by time, when it was
 * logged): the cause of the timeouts around it, marked as such.
 */
static void
build_marks_own(struct model *m, struct cells *c)
{
	struct model_mark mk;
	size_t i, k;
	double at;

	for (i = 0; i < m->nevents; i++) {
		const struct model_event *e = &m->events[i];

		if (!model_event_own(e) || e->nnodes == 0)
			continue;
		at = m->by_time ? e->ts : (double)model_bucket(m,
		    e->iteration >= 0 ? e->iteration : m->failure_iter);
		if (isnan(at) || at < 0)
			continue;
		for (k = 0; k < e->nnodes; k++) {
			mark_init(&mk, e->nodes[k], at);
			mk.n = 1;
			mk.event = (uint32_t)i;
			mk.level = score_level(e->score);
			mk.flags |= MODEL_MARK_STOP | MODEL_MARK_ERROR;
			cell_put(m, c, &mk);
		}
	}
}

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* A set of iteration numbers: open addressing, the numbers kept apart. */
struct iterset {
	long *v;
	size_t n, cap;
	uint32_t *tab;		/* index into v + 1, 0 empty */
	size_t size;		/* a power of two */
};

static size_t
iterset_slot(const struct iterset *is, long it)
{
	uint64_t h = (uint64_t)it * 0x9e3779b97f4a7c15ULL;
	size_t j;

	for (j = (size_t)(h >> 20) & (is->size - 1); is->tab[j] != 0 &&
	    is->v[is->tab[j] - 1] != it; j = (j + 1) & (is->size - 1))
		;
	return j;
}

static void
iterset_add(struct iterset *is, long it)
{
	size_t j, i;

	if ((is->n + 1) * 2 > is->size) {
		free(is->tab);
		is->size = is->size == 0 ? 1024 : is->size * 2;
		is->tab = xcalloc(is->size, sizeof *is->tab);
		for (i = 0; i < is->n; i++)
			is->tab[iterset_slot(is, is->v[i])] = (uint32_t)i + 1;
	}
	if (is->tab[j = iterset_slot(is, it)] != 0)
		return;
	is->v = xgrow(is->v, &is->cap, is->n + 1, sizeof *is->v);
	is->v[is->n++] = it;
	is->tab[j] = (uint32_t)is->n;
}

/*
 * The index of iteration `it` in the model, -1 none: `hint` or the one
 * after it first (a stream's iterations come in order), else a search.
 */
static long
iter_index_near(const struct model *m, long it, long hint)
{
	size_t h = (size_t)hint;

	if (hint >= 0 && h < m->niters && m->iters[h].iteration == it)
		return hint;
	if (hint >= 0 && h + 1 < m->niters && m->iters[h + 1].iteration == it)
		return hint + 1;
	return model_iter_index(m, it);
}

static void
iter_add(void *arg, long iteration, double start)
{
	(void)start;
	iterset_add(arg, iteration);
}

static void
iter_start(void *arg, long iteration, double start)
{
	struct model *m = arg;
	long at = model_iter_index(m, iteration);

	if (at >= 0 && !isnan(start) && (isnan(m->iters[at].start) ||
	    start < m->iters[at].start))
		m->iters[at].start = start;
}

/* Buckets of iterations: the mean of the durations the lines give. */
static void
bucket_ms(struct model *m, const struct diag_job *job)
{
	double *sum = xcalloc(m->niters + 1, sizeof *sum);
	size_t *n = xcalloc(m->niters + 1, sizeof *n), i;
	long k = -1;

	for (i = 0; i < job->ntimes; i++) {
		if (isnan(job->times[i].ms))
			continue;
		k = iter_index_near(m, model_bucket(m, job->times[i].iteration),
		    k);
		if (k >= 0) {
			sum[k] += job->times[i].ms;
			n[k]++;
		}
	}
	for (i = 0; i < m->niters; i++)
		if (n[i] > 0)
			m->iters[i].ms = sum[i] / (double)n[i];
	free(sum);
	free(n);
}

static void
build_iters(struct model *m, const struct diag_job *job,
    const struct diag_result *r)
{
	const struct diag_cand *cd;
	struct iterset is;
	long *all, k;
	size_t o, s, i;

	/* (a stream's lines before its first iteration are no iteration) */
	memset(&is, 0, sizeof is);
	diag_fold_iters(job, iter_add, &is);
	for (i = 0; i < job->ntimes; i++)
		iterset_add(&is, model_bucket(m, job->times[i].iteration));
	free(is.tab);
	all = is.v;
	o = is.n;
	ts_qsort(all, o, sizeof *all, cmp_long);
	m->niters = o;
	m->iters = xcalloc(o + 1, sizeof *m->iters);
	for (i = 0; i < o; i++) {
		m->iters[i].iteration = all[i];
		m->iters[i].start = NAN;
		m->iters[i].ms = NAN;
		if (r->failure_iter >= 0 &&
		    all[i] == model_bucket(m, r->failure_iter))
			m->iters[i].flags |= MODEL_ITER_FAILURE;
		if (r->slow_iter >= 0 &&
		    all[i] + m->iter_width - 1 >= r->slow_iter)
			m->iters[i].flags |= MODEL_ITER_SLOW;
	}
	free(all);
	diag_fold_iters(job, iter_start, m);
	for (s = 0; s < job->nstreams; s++)
		for (i = 0; (cd = cand_at(&job->streams[s], i)) != NULL; i++)
			if (cd->anomalous &&
			    (k = model_iter_index(m, cd->iteration)) >= 0)
				m->iters[k].flags |= MODEL_ITER_ANOMALOUS;
	if (m->iter_width > 1) {
		bucket_ms(m, job);
		return;
	}
	for (i = 0, k = -1; i < job->ntimes; i++) {
		k = iter_index_near(m, job->times[i].iteration, k);
		if (k >= 0 && isnan(m->iters[k].ms))
			m->iters[k].ms = job->times[i].ms;
	}
}

static int
cmp_span(const void *a, const void *b)
{
	const struct model_span *x = a, *y = b;

	if (isnan(x->start) != isnan(y->start))
		return isnan(x->start) ? 1 : -1;
	if (!isnan(x->start) && x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->stage - y->stage;
}

/*
 * A launcher's log is quiet while its ranks work and speaks again when
 * they end (a failure summary): its launch stretch would cover the whole
 * run.  The launch ends where the first later stage of the job begins.
 * The spans are in cmp_span() order, so that stage is the first span
 * after the launch's of a later stage: one sweep from the end finds it
 * for every launch.
 */
static void
clip_launch(struct model *m)
{
	double next = NAN;
	size_t i;

	for (i = m->nspans; i-- > 0;) {
		struct model_span *sp = &m->spans[i];

		if (isnan(sp->start))
			continue;
		if (sp->stage == STAGE_LAUNCH && !isnan(next) &&
		    (isnan(sp->end) || sp->end > next))
			sp->end = next;
		if (sp->stage > STAGE_LAUNCH)
			next = sp->start;
	}
}

/* The job's stages (diag_spans() made them) in time, a launcher's clipped. */
static void
build_spans(struct model *m, const struct diag_job *job)
{
	size_t i;

	m->nspans = job->nspans;
	m->spans = xcalloc(job->nspans + 1, sizeof *m->spans);
	for (i = 0; i < job->nspans; i++) {
		m->spans[i].stage = (int)job->spans[i].stage;
		m->spans[i].start = job->spans[i].start;
		m->spans[i].end = job->spans[i].end;
		m->spans[i].iter_from = job->spans[i].iter_from;
		m->spans[i].iter_to = job->spans[i].iter_to;
	}
	ts_qsort(m->spans, m->nspans, sizeof *m->spans, cmp_span);
	clip_launch(m);
}

static void
time_range(struct model *m, const struct diag_job *job)
{
	size_t i;

	m->first_ts = job->spans_first;
	m->last_ts = job->spans_last;
	for (i = 0; i < m->nevents; i++) {
		double t = m->events[i].ts;

		if (!isnan(t) && (isnan(m->first_ts) || t < m->first_ts))
			m->first_ts = t;
		if (!isnan(t) && (isnan(m->last_ts) || t > m->last_ts))
			m->last_ts = t;
	}
}

struct model *
model_build(const struct diag_job *job, const struct diag_result *r,
    struct model_flows *flows)
{
	struct model *m = xcalloc(1, sizeof *m);
	struct idmap im;
	struct cells cells;
	long *evmap;

	m->name = xstrdup(job->name);
	m->root = dup_or_null(job->root);
	m->stage = (int)r->stage;
	m->outcome = (int)r->outcome;
	m->failure_iter = r->failure_iter;
	m->last_healthy_iter = r->last_healthy_iter;
	m->nhealthy = job->nhealthy;
	if (job->healthy_names != NULL && job->nhealthy > 0) {
		m->nhealthy_runs = (size_t)job->nhealthy;
		m->healthy_runs = dup_strv(job->healthy_names,
		    m->nhealthy_runs);
	}
	m->anomalous = r->anomalous_iters;
	m->slow_iter = r->slow_iter;
	m->slow_before_ms = r->slow_before_ms;
	m->slow_after_ms = r->slow_after_ms;
	build_nodes(m, job, r);
	build_events(m, job, r);
	m->iter_width = diag_fold_width(job);
	build_iters(m, job, r);
	build_spans(m, job);
	time_range(m, job);
	m->by_time = m->niters == 0;
	idmap_build(&im, job);
	evmap = event_of_tmpl(job, r);
	memset(&cells, 0, sizeof cells);
	if (m->by_time)
		build_marks_time(m, &cells);
	else
		build_marks_iter(m, job, r, &im, evmap, &cells);
	build_marks_own(m, &cells);
	free(cells.tab);
	marks_merge(m);
	free(evmap);
	free(im.ids);
	free(im.tmpl);
	free(im.direct);
	if (flows != NULL) {
		m->flows = *flows;
		memset(flows, 0, sizeof *flows);
	}
	model_join_iters(m);
	return m;
}

void
model_flows_release(struct model_flows *mf)
{
	size_t i;

	for (i = 0; i < mf->nhosts; i++) {
		free(mf->hosts[i].addr);
		free(mf->hosts[i].name);
	}
	free(mf->hosts);
	for (i = 0; i < mf->ndp; i++)
		free(mf->dp[i].hosts);
	free(mf->dp);
	for (i = 0; i < mf->npp; i++)
		free(mf->pp[i].hosts);
	free(mf->pp);
	free(mf->iters);
	for (i = 0; i < mf->nfindings; i++) {
		free(mf->findings[i].kind);
		free(mf->findings[i].subject);
		free_strv(mf->findings[i].reasons, mf->findings[i].nreasons);
	}
	free(mf->findings);
	free(mf->error);
	memset(mf, 0, sizeof *mf);
}

void
model_free(struct model *m)
{
	size_t i;

	if (m == NULL)
		return;
	free(m->name);
	free(m->root);
	free_strv(m->healthy_runs, m->nhealthy_runs);
	for (i = 0; i < m->nnodes; i++) {
		free(m->nodes[i].name);
		free_strv(m->nodes[i].reasons, m->nodes[i].nreasons);
	}
	free(m->nodes);
	free(m->suspects);
	for (i = 0; i < m->nevents; i++) {
		struct model_event *e = &m->events[i];
		size_t k;

		free(e->text);
		free(e->category);
		free(e->rule);
		free(e->explain);
		free(e->action);
		free(e->nodes);
		free(e->path);
		free_strv(e->reasons, e->nreasons);
		free_strv(e->trace, e->ntrace);
		for (k = 0; k < e->nlocs; k++)
			free(e->locs[k].path);
		free(e->locs);
	}
	free(m->events);
	free(m->iters);
	free(m->marks);
	free(m->spans);
	model_flows_release(&m->flows);
	free_strv(m->notes, m->nnotes);
	free(m);
}

long
model_node_index(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nnodes; i++)
		if (strcmp(m->nodes[i].name, name) == 0)
			return (long)i;
	return -1;
}

int
model_event_own(const struct model_event *e)
{
	return e->id >= MODEL_EVENT_OWN;
}

long
model_event_index(const struct model *m, uint32_t id)
{
	size_t i;

	for (i = 0; i < m->nevents; i++)
		if (m->events[i].id == id)
			return (long)i;
	return -1;
}

const char *
model_flows_ckpt(const struct model_flows *f, char *buf, size_t len)
{
	size_t i, n = 0, shown = 0, at;

	*buf = '\0';
	for (i = 0; i < f->niters; i++)
		n += f->iters[i].ckpt != 0;
	if (n == 0 || len < 64)
		return buf;
	at = (size_t)snprintf(buf, len, "checkpoint save%s at iteration%s",
	    n == 1 ? "" : "s", n == 1 ? "" : "s");
	for (i = 0; i < f->niters && at + 40 < len; i++)
		if (f->iters[i].ckpt != 0)
			at += (size_t)snprintf(buf + at, len - at, "%s %zu",
			    shown++ ? "," : "", i + 1);
	if (shown < n)
		at += (size_t)snprintf(buf + at, len - at, " and %zu more",
		    n - shown);
	if (at + 32 < len)
		snprintf(buf + at, len - at, n == 1 ?
		    " (a pause, not a slowdown)" : " (pauses, not a slowdown)");
	return buf;
}

const char *
model_healthy_str(const struct model *m, char *buf, size_t len)
{
	size_t i, at;

	at = (size_t)snprintf(buf, len, "%d healthy run%s compared",
	    m->nhealthy, m->nhealthy == 1 ? "" : "s");
	for (i = 0; i < m->nhealthy_runs && at + 48 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " :
		    " (", m->healthy_runs[i]);
	if (i < m->nhealthy_runs && at + 24 < len)
		at += (size_t)snprintf(buf + at, len - at, " and %zu more",
		    m->nhealthy_runs - i);
	if (i > 0 && at + 2 < len)
		snprintf(buf + at, len - at, ")");
	return buf;
}

const char *
model_fail_when(const struct model *m, char *buf, size_t len)
{
	if (m->failure_iter > 0)
		snprintf(buf, len, "in iteration %ld", m->failure_iter);
	else if (m->failure_iter == 0)
		snprintf(buf, len, "before its first iteration");
	else
		snprintf(buf, len, "%s", "");
	return buf;
}

long
model_bucket(const struct model *m, long it)
{
	if (it < 0 || m->iter_width <= 1)
		return it;
	return it - it % m->iter_width;
}

long
model_iter_index(const struct model *m, long it)
{
	size_t lo = 0, hi = m->niters;

	it = model_bucket(m, it);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->iters[mid].iteration < it)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->niters && m->iters[lo].iteration == it ? (long)lo : -1;
}

/* ---- flows ---- */

static double
median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	ts_qsort(v, n, sizeof *v, stats_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Job host position of set host h in fj, or -1. */
static long
host_pos(const struct flowan_job *fj, uint32_t h)
{
	size_t i;

	for (i = 0; i < fj->nhosts; i++)
		if (fj->hosts[i] == h)
			return (long)i;
	return -1;
}

static void
copy_groups(struct model_fgroup **out, size_t *nout,
    const struct flowan_group *g, size_t n, const struct flowan_job *fj,
    int dp)
{
	size_t i, k;

	*nout = n;
	*out = xcalloc(n + 1, sizeof **out);
	for (i = 0; i < n; i++) {
		struct model_fgroup *mg = &(*out)[i];
		double *v;
		size_t nv = 0;

		mg->n = g[i].n;
		mg->hosts = xcalloc(g[i].n + 1, sizeof *mg->hosts);
		for (k = 0; k < g[i].n; k++) {
			long p = host_pos(fj, g[i].hosts[k]);

			mg->hosts[k] = p < 0 ? 0 : (uint32_t)p;
		}
		if (!dp || fj->gcomm == NULL)
			continue;
		v = xcalloc(fj->niters + 1, sizeof *v);
		for (k = 0; k < fj->niters; k++)
			if (fj->gcomm[k * fj->ndp + i] > 0)
				v[nv++] = fj->gcomm[k * fj->ndp + i];
		mg->step = median(v, nv);
		free(v);
	}
}

static int
subject_names(const char *subject, const struct model_fhost *h)
{
	size_t la = strlen(h->addr), ln = h->name ? strlen(h->name) : 0;
	const char *dash;

	if (strcmp(subject, h->addr) == 0 ||
	    (h->name != NULL && strcmp(subject, h->name) == 0))
		return 1;
	dash = strchr(subject, '-');
	while (dash != NULL) {
		size_t l = (size_t)(dash - subject);

		if ((l == la && strncmp(subject, h->addr, la) == 0) ||
		    strcmp(dash + 1, h->addr) == 0 ||
		    (ln > 0 && l == ln && strncmp(subject, h->name, ln) == 0) ||
		    (ln > 0 && strcmp(dash + 1, h->name) == 0))
			return 1;
		dash = strchr(dash + 1, '-');
	}
	return 0;
}

static void
copy_findings(struct model_flows *mf, const struct flowan_job *fj)
{
	size_t i, k;

	mf->nfindings = fj->nfindings;
	mf->findings = xcalloc(fj->nfindings + 1, sizeof *mf->findings);
	for (i = 0; i < fj->nfindings; i++) {
		const struct flowan_finding *f = &fj->findings[i];
		struct model_finding *o = &mf->findings[i];
		unsigned flag = 0;

		o->kind = xstrdup(flowan_kind_name(f->kind));
		o->subject = xstrdup(f->subject);
		o->from = f->from;
		o->niters = f->niters;
		o->magnitude = f->magnitude;
		o->reasons = dup_strv(f->reasons, f->nreasons);
		o->nreasons = f->nreasons;
		if (f->kind == FLOWAN_STRAGGLER)
			flag = MODEL_FHOST_STRAGGLER;
		else if (f->kind == FLOWAN_SLOW_LINK ||
		    f->kind == FLOWAN_SLOW_NIC)
			flag = MODEL_FHOST_SLOW_LINK;
		else if (f->kind == FLOWAN_CONGESTION)
			flag = MODEL_FHOST_CONGESTED;
		else if (f->kind == FLOWAN_SLOW_GROUP &&
		    ts_startswith(f->subject, "dp group ")) {
			long g;

			if (ts_parse_long(f->subject + 9, &g) == 0 && g >= 1 &&
			    (size_t)g <= mf->ndp)
				mf->dp[g - 1].slow = 1;
		}
		for (k = 0; flag != 0 && k < mf->nhosts; k++)
			if (subject_names(f->subject, &mf->hosts[k]))
				mf->hosts[k].flags |= flag;
	}
}

void
model_flows_fill(struct model_flows *mf, const struct flowan *fa,
    char **names, const struct diag_job *job)
{
	const struct flowan_job *fj = NULL;
	size_t j, k, best = 0;

	mf->present = 1;
	mf->njobs = fa->njobs;
	mf->control_bytes = fa->control_bytes;
	for (j = 0; j < fa->njobs; j++) {
		const struct flowan_job *c = &fa->jobs[j];
		size_t hit = 0;

		for (k = 0; names != NULL && k < c->nhosts; k++) {
			const char *nm = names[c->hosts[k]];
			size_t d;

			for (d = 0; nm != NULL && d < job->nnodes; d++)
				if (strcmp(job->nodes[d].name, nm) == 0) {
					hit++;
					break;
				}
		}
		hit = hit * 100000 + c->nhosts;
		if (fj == NULL || hit > best) {
			fj = c;
			best = hit;
		}
	}
	if (fj == NULL)
		return;
	mf->period = fj->period;
	mf->nhosts = fj->nhosts;
	mf->hosts = xcalloc(fj->nhosts + 1, sizeof *mf->hosts);
	for (k = 0; k < fj->nhosts; k++) {
		struct model_fhost *h = &mf->hosts[k];
		uint32_t sh = fj->hosts[k];
		size_t d;

		h->addr = xstrdup(flowan_host_name(fa, sh));
		h->name = names != NULL ? dup_or_null(names[sh]) : NULL;
		h->node = -1;
		for (d = 0; h->name != NULL && d < job->nnodes; d++)
			if (strcmp(job->nodes[d].name, h->name) == 0)
				h->node = (int)d;
		if (fj->hstat != NULL) {
			h->comm = fj->hstat[k].comm;
			h->compute = fj->hstat[k].compute;
		}
	}
	copy_groups(&mf->dp, &mf->ndp, fj->dp, fj->ndp, fj, 1);
	copy_groups(&mf->pp, &mf->npp, fj->pp, fj->npp, fj, 0);
	mf->niters = fj->niters;
	mf->iters = xcalloc(fj->niters + 1, sizeof *mf->iters);
	for (k = 0; k < fj->niters; k++) {
		mf->iters[k].start = fj->iters[k].start;
		mf->iters[k].end = fj->iters[k].end;
		mf->iters[k].comm = fj->iters[k].comm;
		mf->iters[k].end_max = fj->iters[k].end_max;
		mf->iters[k].ckpt = (uint8_t)fj->iters[k].ckpt;
		mf->iters[k].log_iter = -1;
		mf->iters[k].log_ms = NAN;
	}
	copy_findings(mf, fj);
}
