/*
 * fold.c -- a stream's iterations, scored and folded away.
 *
 * A rank of a long run has one iteration record per iteration line, so a
 * 10 GB job has tens of millions of them.  Kept until diag_run() and
 * model_build(), they made the diagnosis's memory grow with the data.
 * Instead a stream is folded as its iterations complete, DIAG_PART at a
 * time (diag_stream_part()) and the rest at its end (diag_stream_fold()),
 * iteration by iteration in order:
 *
 *   - each is scored against the DIAG_WINDOW before it (DTW, dtw.c),
 *     which needs only their sequences; the scores go into a bag of
 *     distinct values (a run repeats a few), from which the stream's end
 *     draws the three-sigma and robust lines dtw_flag() would have drawn
 *     over the whole series.  Only an iteration logging an event new to
 *     the stream can ever be novel(): such an iteration (a few per
 *     stream: each brings a new event) waits with its score, and becomes
 *     a candidate (struct diag_cand) if the lines flag it.  A candidate
 *     holds the two facts diag_run() asks of it: which of its events the
 *     stream never logged before, and which the window before it lacked.
 *     An unfinished last iteration is the stream's tail;
 *   - the spacing of the iteration starts goes into a bag too, for its
 *     median (the hang check's period when no durations were logged;
 *     only then is it kept);
 *   - so are the places of the watched iterations' lines (job->watch);
 *   - for the model, job-wide: each iteration with its earliest start,
 *     and per cell (node, iteration) the events its streams logged there
 *     with their counts.  A sequence of a stream's iteration is stored
 *     once per job (most iterations of a run repeat a few).
 *
 * So a stream holds at most DIAG_PART iterations, and what waits for its
 * end (struct sfold) grows with its distinct events and scores, not its
 * length.  The result is that of folding the stream whole (the lines'
 * deviations are summed over the distinct scores, which can round the
 * last bit differently; the mean is summed in order, as before).
 *
 * The job-wide part is bounded in the length of the run: past
 * DIAG_FOLD_COLS distinct iterations, the iterations are kept in buckets
 * of 2^k (aligned: bucket b holds [b << k, (b + 1) << k)), and each time
 * the buckets would be more than DIAG_FOLD_COLS the width doubles, two
 * neighbours' cells merged into one (an event's counts summed, the
 * earlier start kept).  The cap is checked as the streams are folded, so
 * the cells never grow past it; streams are folded in file order on one
 * thread, so where the doublings fall does not depend on timing.
 *
 * The stream keeps only its last iteration and its last few events.
 *
 * With two cores or more, the loader hands each part and each complete
 * stream to one worker thread (struct diag_folder) and replays on
 * meanwhile: the worker alone touches the job's fold, and the streams it
 * holds are out of the job until diag_folder_finish() puts them back.
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diag.h"
#include "diag/diverge.h"
#include "diag/dtw.h"
#include "base/stats.h"
#include "base/util.h"

/* events kept at a stream's end (diag.c reads up to the last three) */
#define FOLD_TAIL 3

struct seqref {
	uint32_t off, len;	/* in the pool */
};

/*
 * An event of a cell: template id `id`, logged `count` times there; the
 * lowest stream that logged it (`stream`).  A cell's entries are a list
 * (next: an index + 1, 0 the end) in the order the events came, an
 * event met again from a lower stream moved to the end: so in stream
 * order (stable) they are in the order of their first lines, as the
 * streams' iterations would give them one by one.
 */
struct entry {
	uint32_t id, count, stream, next;
};

/*
 * A cell: node x bucket (key, iterations [key << shift, +2^shift)), or
 * the lines before the first iteration (key -1).  A watched iteration
 * keeps a cell of its own once the buckets are wider than one (exact:
 * key is the iteration): the diagnosis dates an event to it alone.
 */
struct cell {
	int64_t key;
	uint32_t node, head, tail;
	uint32_t exact;
};

struct istart {
	int64_t key;		/* the bucket */
	double start;
};

/* Open addressing over a power-of-two table of index + 1 (0: empty). */
struct slots {
	uint32_t *tab;
	size_t size;
};

struct sfold;

struct diag_fold {
	uint32_t *pool;
	size_t npool, poolcap;
	struct seqref *seqs;
	size_t nseqs, seqcap;
	struct slots seqtab;
	struct cell *cells;
	size_t ncells, cellcap;
	struct slots celltab;
	struct entry *ents;
	size_t nents, entcap;
	struct istart *iters;
	size_t niters, itercap;
	struct slots itertab;
	unsigned shift;		/* a bucket is 2^shift iterations */
	long watch[DIAG_WATCH];	/* the job's watched iterations */
	struct sfold **sf;	/* by stream: those being folded */
	size_t nsf;
	int gaps_wanted;	/* no durations: the spacings give the period */
};

/* Buckets at most (FOLD_COLS in fold.c's comment; tests lower it). */
static size_t fold_cap = DIAG_FOLD_COLS;

void
diag_fold_set_cap(size_t cap)
{
	fold_cap = cap >= 2 ? cap : DIAG_FOLD_COLS;
}

static uint64_t
seq_hash(const uint32_t *ids, size_t n)
{
	uint64_t h = n;
	size_t i;

	for (i = 0; i < n; i++)
		h = ts_mix64(h ^ ids[i]) + i;
	return h;
}

static uint64_t
cell_hash(uint32_t node, int64_t key, uint32_t exact)
{
	return ts_mix64(((uint64_t)key * 0x9e3779b97f4a7c15ULL ^ node) +
	    exact);
}

/* The hash of entry i of the table's kind (for regrowing). */
typedef uint64_t slot_hash_fn(const struct diag_fold *f, uint32_t i);

static uint64_t
seq_rehash(const struct diag_fold *f, uint32_t i)
{
	return seq_hash(f->pool + f->seqs[i].off, f->seqs[i].len);
}

static uint64_t
cell_rehash(const struct diag_fold *f, uint32_t i)
{
	return cell_hash(f->cells[i].node, f->cells[i].key,
	    f->cells[i].exact);
}

static uint64_t
iter_rehash(const struct diag_fold *f, uint32_t i)
{
	return ts_mix64((uint64_t)f->iters[i].key);
}

/* Grow t to hold one more of `count` entries, at most half full. */
static void
slots_grow(struct slots *t, size_t count, const struct diag_fold *f,
    slot_hash_fn *hash)
{
	size_t size = t->size ? t->size : 64, i, j;
	uint32_t *tab;

	while ((count + 1) * 2 > size)
		size *= 2;
	tab = xcalloc(size, sizeof *tab);
	for (i = 0; i < t->size; i++) {
		if (t->tab[i] == 0)
			continue;
		for (j = hash(f, t->tab[i] - 1) & (size - 1); tab[j] != 0;
		    j = (j + 1) & (size - 1))
			;
		tab[j] = t->tab[i];
	}
	free(t->tab);
	t->tab = tab;
	t->size = size;
}

/* Make room for one more of `count` entries (a test, mostly). */
static inline void
slots_room(struct slots *t, size_t count, const struct diag_fold *f,
    slot_hash_fn *hash)
{
	if ((count + 1) * 2 > t->size)
		slots_grow(t, count, f, hash);
}

/* The sequence ids[0 .. n), stored once: its index. */
static uint32_t
seq_intern(struct diag_fold *f, const uint32_t *ids, size_t n)
{
	uint64_t h = seq_hash(ids, n);
	struct seqref *r;
	size_t j;

	slots_room(&f->seqtab, f->nseqs, f, seq_rehash);
	for (j = h & (f->seqtab.size - 1); f->seqtab.tab[j] != 0;
	    j = (j + 1) & (f->seqtab.size - 1)) {
		r = &f->seqs[f->seqtab.tab[j] - 1];
		if (r->len == n && memcmp(f->pool + r->off, ids,
		    n * sizeof *ids) == 0)
			return f->seqtab.tab[j] - 1;
	}
	f->pool = xgrow(f->pool, &f->poolcap, f->npool + n + 1,
	    sizeof *f->pool);
	memcpy(f->pool + f->npool, ids, n * sizeof *ids);
	f->seqs = xgrow(f->seqs, &f->seqcap, f->nseqs + 1, sizeof *f->seqs);
	f->seqs[f->nseqs].off = (uint32_t)f->npool;
	f->seqs[f->nseqs].len = (uint32_t)n;
	f->npool += n;
	f->seqtab.tab[j] = (uint32_t)++f->nseqs;
	return (uint32_t)(f->nseqs - 1);
}

static struct cell *
cell_get(struct diag_fold *f, uint32_t node, int64_t key, uint32_t exact)
{
	struct cell *d;
	size_t j;

	slots_room(&f->celltab, f->ncells, f, cell_rehash);
	for (j = cell_hash(node, key, exact) & (f->celltab.size - 1);
	    f->celltab.tab[j] != 0; j = (j + 1) & (f->celltab.size - 1)) {
		d = &f->cells[f->celltab.tab[j] - 1];
		if (d->node == node && d->key == key && d->exact == exact)
			return d;
	}
	f->cells = xgrow(f->cells, &f->cellcap, f->ncells + 1,
	    sizeof *f->cells);
	d = &f->cells[f->ncells];
	d->node = node;
	d->key = key;
	d->exact = exact;
	d->head = d->tail = 0;
	f->celltab.tab[j] = (uint32_t)++f->ncells;
	return d;
}

/* Append entry k (an index + 1) to cell c's list. */
static void
cell_append(struct diag_fold *f, struct cell *c, uint32_t k)
{
	f->ents[k - 1].next = 0;
	if (c->tail != 0)
		f->ents[c->tail - 1].next = k;
	else
		c->head = k;
	c->tail = k;
}

/* Event `id` logged `count` times by stream `stream` in cell c. */
static void
cell_add_id(struct diag_fold *f, struct cell *c, uint32_t stream,
    uint32_t id, uint32_t count)
{
	struct entry *e;
	uint32_t k, prev = 0;

	for (k = c->head; k != 0; prev = k, k = f->ents[k - 1].next) {
		e = &f->ents[k - 1];
		if (e->id != id)
			continue;
		e->count += count;
		if (stream >= e->stream)
			return;
		/* first logged by a lower stream: its place is now */
		e->stream = stream;
		if (k == c->tail)
			return;
		if (prev != 0)
			f->ents[prev - 1].next = e->next;
		else
			c->head = e->next;
		cell_append(f, c, k);
		return;
	}
	f->ents = xgrow(f->ents, &f->entcap, f->nents + 1, sizeof *f->ents);
	e = &f->ents[f->nents++];
	e->id = id;
	e->count = count;
	e->stream = stream;
	cell_append(f, c, (uint32_t)f->nents);
}

/* `count` iterations of sequence seq of stream `stream` in cell c. */
static void
cell_add(struct diag_fold *f, struct cell *c, uint32_t stream, uint32_t seq,
    uint32_t count)
{
	const uint32_t *ids = f->pool + f->seqs[seq].off;
	uint32_t i;

	for (i = 0; i < f->seqs[seq].len; i++)
		cell_add_id(f, c, stream, ids[i], count);
}

static int iter_put(struct diag_fold *f, int64_t key, struct istart **out);

static int
watched(const struct diag_fold *f, int64_t iteration)
{
	size_t k;

	for (k = 0; k < DIAG_WATCH; k++)
		if (f->watch[k] >= 0 && f->watch[k] == iteration)
			return 1;
	return 0;
}

/* The cell of `iteration` (-1: before the first): its key, exact or not. */
static int64_t
cell_key(const struct diag_fold *f, int64_t iteration, uint32_t *exact)
{
	*exact = f->shift > 0 && iteration >= 0 && watched(f, iteration);
	if (iteration < 0 || *exact)
		return iteration;
	return iteration >> f->shift;
}

/*
 * Buckets twice as wide: each pair of neighbours' cells merged, their
 * entries appended in order (a stream's sequence met again adds its
 * count), the iterations' starts the earlier.  Made anew, so the lists
 * take no more room than the merged cells hold.  A watched iteration's
 * cell at width one becomes its own exact cell.
 */
static void
fold_double(struct diag_fold *f)
{
	struct diag_fold o = *f;
	const struct entry *e;
	struct istart *d;
	struct cell *c;
	uint32_t exact, k;
	size_t i;

	f->shift++;
	f->cells = NULL;
	f->ents = NULL;
	f->iters = NULL;
	f->ncells = f->cellcap = f->nents = f->entcap = 0;
	f->niters = f->itercap = 0;
	memset(&f->celltab, 0, sizeof f->celltab);
	memset(&f->itertab, 0, sizeof f->itertab);
	for (i = 0; i < o.ncells; i++) {
		const struct cell *oc = &o.cells[i];

		exact = oc->exact || (o.shift == 0 && oc->key >= 0 &&
		    watched(f, oc->key));
		c = cell_get(f, oc->node, exact || oc->key < 0 ? oc->key :
		    oc->key >> 1, exact);
		for (k = oc->head; k != 0; k = e->next) {
			e = &o.ents[k - 1];
			cell_add_id(f, c, e->stream, e->id, e->count);
		}
	}
	for (i = 0; i < o.niters; i++) {
		d = NULL;
		iter_put(f, o.iters[i].key >> 1, &d);
		if (!isnan(o.iters[i].start) && (isnan(d->start) ||
		    o.iters[i].start < d->start))
			d->start = o.iters[i].start;
	}
	free(o.cells);
	free(o.celltab.tab);
	free(o.ents);
	free(o.iters);
	free(o.itertab.tab);
}

/* The record of bucket `key`, made when new (start NAN): 1 when new. */
static int
iter_put(struct diag_fold *f, int64_t key, struct istart **out)
{
	struct istart *d;
	size_t j;

	slots_room(&f->itertab, f->niters, f, iter_rehash);
	for (j = ts_mix64((uint64_t)key) & (f->itertab.size - 1);
	    f->itertab.tab[j] != 0; j = (j + 1) & (f->itertab.size - 1)) {
		d = &f->iters[f->itertab.tab[j] - 1];
		if (d->key == key) {
			*out = d;
			return 0;
		}
	}
	f->iters = xgrow(f->iters, &f->itercap, f->niters + 1,
	    sizeof *f->iters);
	d = &f->iters[f->niters];
	d->key = key;
	d->start = NAN;
	f->itertab.tab[j] = (uint32_t)++f->niters;
	*out = d;
	return 1;
}

/*
 * Iteration `iteration` began at ts (NAN unknown) in some stream.  A
 * bucket past the cap doubles the buckets' width first.
 */
static void
iter_seen(struct diag_fold *f, int64_t iteration, double ts)
{
	struct istart *d;

	while (iter_put(f, iteration >> f->shift, &d) &&
	    f->niters > fold_cap) {
		fold_double(f);
	}
	if (!isnan(ts) && (isnan(d->start) || ts < d->start))
		d->start = ts;
}

/* ------------------------------------------------------------ a stream */

/* A small set of template ids. */
struct idset {
	uint32_t *tab;		/* id + 1, 0 empty */
	size_t size, n;
};

static int
idset_add(struct idset *s, uint32_t id)
{
	size_t j, i;

	if ((s->n + 1) * 2 > s->size) {
		struct idset g = { NULL, s->size ? s->size * 2 : 64, 0 };

		g.tab = xcalloc(g.size, sizeof *g.tab);
		for (i = 0; i < s->size; i++)
			if (s->tab[i] != 0)
				idset_add(&g, s->tab[i] - 1);
		free(s->tab);
		*s = g;
	}
	for (j = ts_mix64(id) & (s->size - 1); s->tab[j] != 0;
	    j = (j + 1) & (s->size - 1))
		if (s->tab[j] == id + 1)
			return 0;
	s->tab[j] = id + 1;
	s->n++;
	return 1;
}

static int
idset_has(const struct idset *s, uint32_t id)
{
	size_t j;

	if (s->size == 0)
		return 0;
	for (j = ts_mix64(id) & (s->size - 1); s->tab[j] != 0;
	    j = (j + 1) & (s->size - 1))
		if (s->tab[j] == id + 1)
			return 1;
	return 0;
}

static void
ids_add(uint32_t **v, size_t *n, uint32_t id)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == id)
			return;
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = id;
}

/*
 * DTW similarities already computed, by the pair of sequences (their ids
 * in the fold): a run repeats a few iteration shapes, so most pairs of a
 * window were scored before.
 */
struct pairmemo {
	uint64_t *key;		/* a << 32 | b, + 1; 0 empty */
	double *val;
	size_t size, n;
};

#define MEMO_MAX (1u << 20)	/* pairs kept at most */

static int
memo_get(const struct pairmemo *pm, uint64_t key, double *v)
{
	size_t j;

	if (pm->size == 0)
		return 0;
	for (j = ts_mix64(key) & (pm->size - 1); pm->key[j] != 0;
	    j = (j + 1) & (pm->size - 1))
		if (pm->key[j] == key + 1) {
			*v = pm->val[j];
			return 1;
		}
	return 0;
}

static void
memo_put(struct pairmemo *pm, uint64_t key, double v)
{
	size_t j, i;

	if (pm->n >= MEMO_MAX)
		return;
	if ((pm->n + 1) * 2 > pm->size) {
		struct pairmemo g;

		g.size = pm->size ? pm->size * 2 : 256;
		g.n = 0;
		g.key = xcalloc(g.size, sizeof *g.key);
		g.val = xcalloc(g.size, sizeof *g.val);
		for (i = 0; i < pm->size; i++)
			if (pm->key[i] != 0)
				memo_put(&g, pm->key[i] - 1, pm->val[i]);
		free(pm->key);
		free(pm->val);
		*pm = g;
	}
	for (j = ts_mix64(key) & (pm->size - 1); pm->key[j] != 0;
	    j = (j + 1) & (pm->size - 1))
		;
	pm->key[j] = key + 1;
	pm->val[j] = v;
	pm->n++;
}

/* Iterations of one sequence of a stream that share a cell, to add at once. */
struct run {
	int64_t iteration;	/* the first of them */
	uint32_t seq, count;
};

static void
run_flush(struct diag_fold *f, uint32_t node, uint32_t stream,
    struct run *r)
{
	uint32_t exact;
	int64_t key;

	if (r->count == 0)
		return;
	key = cell_key(f, r->iteration, &exact);
	cell_add(f, cell_get(f, node, key, exact), stream, r->seq, r->count);
	r->count = 0;
}

/* Do iterations a and b share a cell (at the buckets' width now)? */
static int
same_cell(const struct diag_fold *f, int64_t a, int64_t b)
{
	uint32_t xa, xb;

	return cell_key(f, a, &xa) == cell_key(f, b, &xb) && xa == xb;
}

/*
 * A stream while its iterations are folded, part by part as they come
 * (DIAG_PART at a time) and the rest at its end: what the iterations so
 * far leave for the ones to come and for the stream's verdict.  The
 * fold's thread alone touches it.
 */
struct sfold {
	size_t done;		/* iterations folded */
	uint32_t win[DIAG_WINDOW];	/* the last ones' sequences, oldest
					   first */
	size_t nwin;
	struct idset seen;	/* every event of the stream so far */
	struct idset seqs;	/* and every sequence (their events are in
				   seen) */
	size_t same;		/* the last iterations alike, up to the
				   window */
	struct pairmemo pm;	/* DTW of sequence pairs */
	struct stats_bag scores;	/* of iterations 1.. */
	struct pend *pend;	/* candidates before the flags are known */
	size_t npend;
	int gaps_wanted;	/* the job logs no durations */
	struct stats_bag gaps;	/* spacings of the iterations' starts */
	size_t ngaps;
	double prev_ts;		/* the last iteration's start */
	struct run run;		/* the records being gathered */
	struct diag_at at[DIAG_WATCH];
};

/*
 * An iteration that logged an event new to the stream: a candidate when
 * the stream's scores, known at its end, flag it.
 */
struct pend {
	struct diag_cand c;
	double score, best;
};

static void
cand_free(struct diag_cand *c)
{
	free(c->fresh);
	free(c->wnew);
}

static void
sfold_free(struct sfold *fs)
{
	size_t i;

	if (fs == NULL)
		return;
	free(fs->seen.tab);
	free(fs->seqs.tab);
	free(fs->pm.key);
	free(fs->pm.val);
	stats_bag_free(&fs->scores);
	stats_bag_free(&fs->gaps);
	for (i = 0; i < fs->npend; i++)
		cand_free(&fs->pend[i].c);
	free(fs->pend);
	free(fs);
}

/* Does the job log positive iteration durations (the hang's period)? */
static int
has_durations(const struct diag_job *job)
{
	size_t i;

	for (i = 0; i < job->ntimes; i++)
		if (job->times[i].ms > 0)
			return 1;
	return 0;
}

/* Stream `stream`'s state, made when new. */
static struct sfold *
sfold_get(struct diag_fold *f, size_t stream)
{
	struct sfold *fs;
	size_t k;

	if (stream >= f->nsf) {
		f->sf = xreallocarray(f->sf, stream + 1, sizeof *f->sf);
		memset(f->sf + f->nsf, 0, (stream + 1 - f->nsf) *
		    sizeof *f->sf);
		f->nsf = stream + 1;
	}
	if ((fs = f->sf[stream]) != NULL)
		return fs;
	fs = f->sf[stream] = xcalloc(1, sizeof *fs);
	fs->gaps_wanted = f->gaps_wanted;
	fs->prev_ts = NAN;
	for (k = 0; k < DIAG_WATCH; k++)
		fs->at[k].end_ts = NAN;
	return fs;
}

/* The events of sequence `sid`. */
static const uint32_t *
seq_ids(const struct diag_fold *f, uint32_t sid, size_t *n)
{
	*n = f->seqs[sid].len;
	return f->pool + f->seqs[sid].off;
}

/* Is id among the events of the DIAG_WINDOW iterations before this one? */
static int
in_window(const struct diag_fold *f, const struct sfold *fs, uint32_t id)
{
	size_t k, e, n;
	const uint32_t *ids;

	for (k = 0; k < fs->nwin; k++) {
		ids = seq_ids(f, fs->win[k], &n);
		for (e = 0; e < n; e++)
			if (ids[e] == id)
				return 1;
	}
	return 0;
}

/*
 * The iteration to fold now (events ev[0 .. n)) as a candidate: its ids
 * the stream never logged before, and those the window before it lacked.
 */
static void
cand_make(const struct diag_fold *f, const struct sfold *fs, long iteration,
    const uint32_t *ev, size_t n, struct diag_cand *c)
{
	size_t e;

	memset(c, 0, sizeof *c);
	c->iteration = iteration;
	for (e = 0; e < n; e++) {
		if (!idset_has(&fs->seen, ev[e]))
			ids_add(&c->fresh, &c->nfresh, ev[e]);
		if (fs->done == 0 || !in_window(f, fs, ev[e]))
			ids_add(&c->wnew, &c->nwnew, ev[e]);
	}
}

/*
 * The mean DTW similarity of sequence sid to the DIAG_WINDOW before it
 * (summed oldest first), and the largest; equal ids are equal sequences,
 * and a pair is computed once per stream.
 */
static void
window_score(const struct diag_fold *f, struct sfold *fs, uint32_t sid,
    double *score, double *best)
{
	const struct seqref *a, *b;
	double v, sum = 0, mx = 0;
	uint32_t other;
	uint64_t key;
	size_t k;

	/* a steady run: the whole window is this sequence */
	if (fs->nwin > 0 && fs->same == fs->nwin &&
	    fs->win[fs->nwin - 1] == sid) {
		*score = *best = 1;
		return;
	}
	for (k = 0; k < fs->nwin; k++) {
		other = fs->win[k];
		key = (uint64_t)sid << 32 | other;
		if (sid == other)
			v = 1;
		else if (k > 0 && other == fs->win[k - 1])
			;	/* v is the one before's: runs are common */
		else if (!memo_get(&fs->pm, key, &v)) {
			a = &f->seqs[sid];
			b = &f->seqs[other];
			v = dtw_similarity(f->pool + a->off, a->len,
			    f->pool + b->off, b->len, DIAG_BAND);
			memo_put(&fs->pm, key, v);
		}
		sum += v;
		mx = v > mx ? v : mx;
	}
	*score = fs->nwin == 0 ? 1 : sum / (double)fs->nwin;
	*best = fs->nwin == 0 ? 1 : mx;
}

/* Does ev[0 .. n) hold an id the stream never logged? */
static int
has_fresh(const struct sfold *fs, const uint32_t *ev, size_t n)
{
	size_t e;

	for (e = 0; e < n; e++)
		if (!idset_has(&fs->seen, ev[e]))
			return 1;
	return 0;
}

/*
 * DTW of the iteration against the window before it: one of [1, end)
 * with an iteration number and an event new to the stream may become a
 * candidate (the others can never be novel(); nor one whose sequence the
 * stream `met` before); the stream's unfinished last one (tail != NULL)
 * is its tail.
 */
static void
score_one(const struct diag_fold *f, struct sfold *fs, const struct diag_iter *it,
    const uint32_t *ev, uint32_t sid, int met, struct diag_stream *tail)
{
	double sc, best;
	struct pend *p;

	window_score(f, fs, sid, &sc, &best);
	if (fs->done > 0)
		stats_bag_add(&fs->scores, sc);
	if (tail != NULL) {
		cand_make(f, fs, it->iteration, ev, it->n, &tail->tail);
		tail->has_tail = 1;
		tail->best_last = best;
	} else if (fs->done > 0 && it->iteration >= 0 && !met &&
	    has_fresh(fs, ev, it->n)) {
		fs->pend = xreallocarray(fs->pend, fs->npend + 1,
		    sizeof *fs->pend);
		p = &fs->pend[fs->npend++];
		cand_make(f, fs, it->iteration, ev, it->n, &p->c);
		p->score = sc;
		p->best = best;
	}
}

/* The spacing before the iteration, and the watched iterations' lines. */
static void
time_one(const struct diag_job *job, struct sfold *fs,
    const struct diag_iter *it)
{
	size_t k;

	if (fs->done > 0 && !isnan(it->ts) && !isnan(fs->prev_ts) &&
	    it->ts > fs->prev_ts) {
		fs->ngaps++;
		if (fs->gaps_wanted)
			stats_bag_add(&fs->gaps, it->ts - fs->prev_ts);
	}
	fs->prev_ts = it->ts;
	for (k = 0; k < DIAG_WATCH; k++)
		if (job->watch[k] >= 0 && fs->at[k].line == 0 &&
		    it->iteration == job->watch[k] && it->line > 0) {
			fs->at[k].line = it->line;
			fs->at[k].end_ts = it->end_ts;
		}
}

/*
 * Put the iteration into the job's fold.  A stream's iterations in a
 * bucket mostly log the same sequence: a run of them is added at once.
 */
static void
record_one(struct diag_fold *f, struct sfold *fs, const struct diag_iter *it,
    uint32_t sid, uint32_t node, size_t stream)
{
	struct run *r = &fs->run;

	if (it->iteration >= 0)
		iter_seen(f, it->iteration, it->ts);
	if (it->n == 0)
		return;
	if (r->count > 0 && r->seq == sid &&
	    same_cell(f, r->iteration, it->iteration)) {
		r->count++;
		return;
	}
	run_flush(f, node, (uint32_t)stream, r);
	r->iteration = it->iteration;
	r->seq = sid;
	r->count = 1;
}

/*
 * Fold iterations its[0 .. n) (events ev, at their offsets) of stream
 * `stream` of node `node`: the next of the stream, in order.  With tail
 * non-NULL, the last of them is the stream's unfinished last iteration.
 */
static void
fold_iters(struct diag_job *job, struct sfold *fs, const struct diag_iter *its,
    size_t n, const uint32_t *ev, uint32_t node, size_t stream,
    struct diag_stream *tail)
{
	struct diag_fold *f = job->fold;
	const struct diag_iter *it;
	const uint32_t *e;
	uint32_t sid;
	size_t i, k;
	int met;

	for (i = 0; i < n; i++) {
		it = &its[i];
		e = ev + it->off;
		sid = seq_intern(f, e, it->n);
		/* the one before's sequence is in the set already */
		met = (fs->nwin > 0 && fs->win[fs->nwin - 1] == sid) ||
		    !idset_add(&fs->seqs, sid);
		score_one(f, fs, it, e, sid, met, tail != NULL && i == n - 1 ?
		    tail : NULL);
		for (k = 0; !met && k < it->n; k++)
			idset_add(&fs->seen, e[k]);
		time_one(job, fs, it);
		record_one(f, fs, it, sid, node, stream);
		fs->same = fs->nwin > 0 && fs->win[fs->nwin - 1] == sid ?
		    (fs->same < DIAG_WINDOW ? fs->same + 1 : DIAG_WINDOW) : 1;
		if (fs->nwin == DIAG_WINDOW)
			memmove(fs->win, fs->win + 1,
			    (DIAG_WINDOW - 1) * sizeof *fs->win);
		else
			fs->nwin++;
		fs->win[fs->nwin - 1] = sid;
		fs->done++;
	}
}

/*
 * The stream's verdict once all its iterations are folded: the
 * candidates its scores flag, the median spacing, the watched lines.
 */
static void
sfold_finish(struct diag_fold *f, struct sfold *fs, struct diag_stream *s,
    size_t stream)
{
	struct dtw_flagger fl;
	size_t i;

	run_flush(f, (uint32_t)s->node, (uint32_t)stream, &fs->run);
	dtw_flag_init(&fl, &fs->scores);
	for (i = 0; i < fs->npend; i++) {
		if (!dtw_flagged(&fl, fs->pend[i].score, fs->pend[i].best)) {
			cand_free(&fs->pend[i].c);
			continue;
		}
		s->cands = xreallocarray(s->cands, s->ncands + 1,
		    sizeof *s->cands);
		s->cands[s->ncands++] = fs->pend[i].c;
	}
	fs->npend = 0;
	s->nrecs = fs->done;
	s->ngaps = fs->ngaps;
	s->gap_median = fs->ngaps >= 3 && fs->gaps_wanted ?
	    stats_bag_quantile(&fs->gaps, 0.5) : NAN;
	memcpy(s->at, fs->at, sizeof s->at);
}

/* Drop all but the last iteration and the last events. */
static void
keep_last(struct diag_stream *s)
{
	struct diag_iter last = s->iters[s->niters - 1];
	size_t from = s->nevents > FOLD_TAIL ? s->nevents - FOLD_TAIL : 0;
	uint32_t *ev;

	if (last.off < from)
		from = last.off;
	ev = xcalloc(s->nevents - from + 1, sizeof *ev);
	memcpy(ev, s->events + from, (s->nevents - from) * sizeof *ev);
	free(s->events);
	s->events = ev;
	s->nevents -= from;
	s->evcap = s->nevents + 1;
	last.off -= from;
	free(s->iters);
	s->iters = xcalloc(1, sizeof *s->iters);
	s->iters[0] = last;
	s->niters = s->cap = 1;
}

/* What the worker reads of the job: the watch set, the fold made. */
void
diag_fold_begin(struct diag_job *job)
{
	if (!job->watch_set)
		diag_watch_losses(job);
	if (job->fold == NULL) {
		job->fold = xcalloc(1, sizeof *job->fold);
		memcpy(job->fold->watch, job->watch, sizeof job->watch);
		job->fold->gaps_wanted = !has_durations(job);
	}
}

/* Fold all but the last of s's iterations, stream `stream` of the job. */
static void
fold_part(struct diag_job *job, const struct diag_stream *s, size_t stream,
    size_t n)
{
	fold_iters(job, sfold_get(job->fold, stream), s->iters, n,
	    s->events, (uint32_t)s->node, stream, NULL);
}

/* Fold the rest of s, stream `stream` of the job (or moved out of it). */
static void
fold_stream(struct diag_job *job, struct diag_stream *s, size_t stream)
{
	struct diag_fold *f = job->fold;
	struct sfold *fs;
	size_t k;

	if (s->folded)
		return;
	s->folded = 1;
	s->best_last = NAN;
	s->gap_median = NAN;
	for (k = 0; k < DIAG_WATCH; k++) {
		s->at[k].line = 0;
		s->at[k].end_ts = NAN;
	}
	fs = sfold_get(f, stream);
	fold_iters(job, fs, s->iters, s->niters, s->events,
	    (uint32_t)s->node, stream, s->niters > 0 &&
	    s->iters[s->niters - 1].truncated ? s : NULL);
	sfold_finish(f, fs, s, stream);
	sfold_free(fs);
	f->sf[stream] = NULL;
	if (s->niters > 0)
		keep_last(s);
}

void
diag_stream_fold(struct diag_job *job, size_t stream)
{
	diag_fold_begin(job);
	fold_stream(job, &job->streams[stream], stream);
}

/*
 * Keep s's last iteration (which may still grow) and its events alone,
 * at the start of its arrays.
 */
static void
keep_growing(struct diag_stream *s)
{
	struct diag_iter last = s->iters[s->niters - 1];

	memmove(s->events, s->events + last.off, last.n * sizeof *s->events);
	s->nevents = last.n;
	last.off = 0;
	s->iters[0] = last;
	s->niters = 1;
}

void
diag_stream_part(struct diag_job *job, size_t stream)
{
	struct diag_stream *s = &job->streams[stream];

	if (s->folded || s->niters < 2)
		return;
	diag_fold_begin(job);
	fold_part(job, s, stream, s->niters - 1);
	keep_growing(s);
}

/* ------------------------------------------------------------ a worker */

/*
 * Parts or streams waiting for the worker: each holds at most DIAG_PART
 * iterations, so a few take little room, and smooth the bursts of a
 * replay that shares two cores with the worker and the file reader.
 */
#define FOLDER_QUEUE 8

/*
 * A stream's complete iterations to fold (part: its first niters, the
 * stream goes on), or the stream itself at its end.
 */
struct moved {
	size_t index;
	int part;
	struct diag_stream s;
};

struct diag_folder {
	struct diag_job *job;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* the queue changed */
	struct moved q[FOLDER_QUEUE];
	size_t head, n;
	int closing;
	struct moved *done;		/* folded, to put back */
	size_t ndone, donecap;
	diag_folder_idle_fn *idle;	/* work for a thread that would wait */
	void *idle_arg;
	int idling;			/* calls of idle under way */
	unsigned pokes;			/* diag_folder_poke() calls */
};

/*
 * With the lock held: call the idle work (set), the lock let go
 * meanwhile.  diag_folder_idle() waits for the calls under way, so its
 * argument outlives them.
 */
static int
idle_call(struct diag_folder *fd, int worker)
{
	diag_folder_idle_fn *fn = fd->idle;
	void *arg = fd->idle_arg;
	int did;

	fd->idling++;
	pthread_mutex_unlock(&fd->mu);
	did = fn(arg, worker);
	pthread_mutex_lock(&fd->mu);
	if (--fd->idling == 0)
		pthread_cond_broadcast(&fd->cv);
	return did;
}

static int fold_threads;		/* diag_set_threads() */

void
diag_set_threads(int n)
{
	fold_threads = n;
}

int
diag_threads(void)
{
	return fold_threads > 0 ? fold_threads : ts_ncpus(64);
}

/*
 * With the lock held and nothing queued: do the idle work there is, else
 * wait for a part, a poke or the end.  0 when the folder is closing with
 * nothing queued.
 */
static int
folder_idle(struct diag_folder *fd)
{
	unsigned pokes = fd->pokes;
	int did = 0;

	if (fd->idle != NULL)
		did = idle_call(fd, 1);
	if (!did && fd->n == 0 && !fd->closing && fd->pokes == pokes)
		pthread_cond_wait(&fd->cv, &fd->mu);
	return fd->n > 0 || !fd->closing;
}

static void *
folder_main(void *arg)
{
	struct diag_folder *fd = arg;
	struct moved m;

	pthread_mutex_lock(&fd->mu);
	for (;;) {
		if (fd->n == 0 && !fd->closing && folder_idle(fd))
			continue;
		if (fd->n == 0)
			break;
		m = fd->q[fd->head];
		fd->head = (fd->head + 1) % FOLDER_QUEUE;
		fd->n--;
		pthread_cond_broadcast(&fd->cv);
		pthread_mutex_unlock(&fd->mu);
		if (m.part) {
			fold_part(fd->job, &m.s, m.index, m.s.niters);
			free(m.s.iters);
			free(m.s.events);
			pthread_mutex_lock(&fd->mu);
			continue;
		}
		fold_stream(fd->job, &m.s, m.index);
		pthread_mutex_lock(&fd->mu);
		fd->done = xgrow(fd->done, &fd->donecap, fd->ndone + 1,
		    sizeof *fd->done);
		fd->done[fd->ndone++] = m;
	}
	pthread_mutex_unlock(&fd->mu);
	return NULL;
}

struct diag_folder *
diag_folder_start(struct diag_job *job)
{
	int n = diag_threads();
	struct diag_folder *fd;

	if (n < 2)
		return NULL;
	diag_fold_begin(job);
	fd = xcalloc(1, sizeof *fd);
	fd->job = job;
	pthread_mutex_init(&fd->mu, NULL);
	pthread_cond_init(&fd->cv, NULL);
	if (pthread_create(&fd->thread, NULL, folder_main, fd) != 0) {
		pthread_mutex_destroy(&fd->mu);
		pthread_cond_destroy(&fd->cv);
		free(fd);
		return NULL;	/* fold on the caller's thread */
	}
	return fd;
}

/* Queue m for the worker, waiting for room. */
static void
folder_put(struct diag_folder *fd, const struct moved *m)
{
	pthread_mutex_lock(&fd->mu);
	while (fd->n == FOLDER_QUEUE) {
		if (fd->idle != NULL && idle_call(fd, 0))
			continue;
		if (fd->n == FOLDER_QUEUE)
			pthread_cond_wait(&fd->cv, &fd->mu);
	}
	fd->q[(fd->head + fd->n) % FOLDER_QUEUE] = *m;
	fd->n++;
	pthread_cond_broadcast(&fd->cv);
	pthread_mutex_unlock(&fd->mu);
}

void
diag_folder_add(struct diag_folder *fd, struct diag_job *job, size_t stream)
{
	struct diag_stream *s = &job->streams[stream];
	struct moved m;

	if (fd == NULL || s->folded) {
		diag_stream_fold(job, stream);
		return;
	}
	memset(&m, 0, sizeof m);
	m.index = stream;
	m.s = *s;
	folder_put(fd, &m);
	/* the job's copy is away: nothing of it may be freed twice */
	s->iters = NULL;
	s->events = NULL;
	s->niters = s->nevents = s->cap = s->evcap = 0;
	s->folded = 1;
}

void
diag_folder_part(struct diag_folder *fd, struct diag_job *job, size_t stream)
{
	struct diag_stream *s = &job->streams[stream];
	struct diag_iter last;
	struct moved m;

	if (fd == NULL || s->folded || s->niters < 2) {
		diag_stream_part(job, stream);
		return;
	}
	/* the complete ones go; the last, still growing, stays */
	last = s->iters[s->niters - 1];
	memset(&m, 0, sizeof m);
	m.index = stream;
	m.part = 1;
	m.s.node = s->node;
	m.s.iters = s->iters;
	m.s.niters = s->niters - 1;
	m.s.events = s->events;
	m.s.nevents = last.off;
	/*
	 * As large as the part that goes, and not zeroed: a stream refills
	 * them to the same size before its next part (zeroed, the events
	 * grown from a few by doubling, they cost 2.5 % of the diagnosis's
	 * instructions at two threads).
	 */
	s->cap = s->niters;
	s->iters = xreallocarray(NULL, s->cap, sizeof *s->iters);
	s->evcap = s->nevents + 16;
	s->events = xreallocarray(NULL, s->evcap, sizeof *s->events);
	memcpy(s->events, m.s.events + last.off, last.n * sizeof *s->events);
	s->nevents = last.n;
	last.off = 0;
	s->iters[0] = last;
	s->niters = 1;
	folder_put(fd, &m);
}

void
diag_folder_idle(struct diag_folder *fd, diag_folder_idle_fn *fn, void *arg)
{
	if (fd == NULL)
		return;
	pthread_mutex_lock(&fd->mu);
	/* the old work's argument may go once no call of it is under way */
	while (fd->idling > 0)
		pthread_cond_wait(&fd->cv, &fd->mu);
	fd->idle = fn;
	fd->idle_arg = arg;
	pthread_mutex_unlock(&fd->mu);
}

void
diag_folder_poke(struct diag_folder *fd)
{
	if (fd == NULL)
		return;
	pthread_mutex_lock(&fd->mu);
	fd->pokes++;
	pthread_cond_broadcast(&fd->cv);
	pthread_mutex_unlock(&fd->mu);
}

void
diag_folder_finish(struct diag_folder *fd)
{
	size_t i;

	if (fd == NULL)
		return;
	pthread_mutex_lock(&fd->mu);
	fd->closing = 1;
	pthread_cond_broadcast(&fd->cv);
	pthread_mutex_unlock(&fd->mu);
	pthread_join(fd->thread, NULL);
	for (i = 0; i < fd->ndone; i++)
		fd->job->streams[fd->done[i].index] = fd->done[i].s;
	pthread_mutex_destroy(&fd->mu);
	pthread_cond_destroy(&fd->cv);
	free(fd->done);
	free(fd);
}

/* ------------------------------------------------------------ reading */

/*
 * Entries in stream order, keeping the order of each stream's own (an
 * insertion sort: a cell's entries come from its node's few streams, and
 * mostly in order already).
 */
static void
by_stream(struct entry *v, size_t n)
{
	struct entry t;
	size_t i, j;

	for (i = 1; i < n; i++) {
		if (v[i - 1].stream <= v[i].stream)
			continue;
		t = v[i];
		for (j = i; j > 0 && v[j - 1].stream > t.stream; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

/* The first iteration of cell c, and its one iteration or -1. */
static long
cell_at(const struct diag_fold *f, const struct cell *c, long *one)
{
	if (c->key < 0) {
		*one = -1;
		return (long)c->key;
	}
	if (c->exact) {
		*one = (long)c->key;
		return (long)((c->key >> f->shift) << f->shift);
	}
	*one = f->shift == 0 ? (long)c->key : -1;
	return (long)(c->key << f->shift);
}

void
diag_fold_records(const struct diag_job *job, diag_fold_fn *fn, void *arg)
{
	const struct diag_fold *f = job->fold;
	struct entry *v = NULL;
	uint32_t *ids = NULL, *counts = NULL, e;
	size_t cap = 0, icap = 0, ccap = 0, n, i, k;
	long at, one;

	for (i = 0; f != NULL && i < f->ncells; i++) {
		for (n = 0, e = f->cells[i].head; e != 0;
		    e = f->ents[e - 1].next) {
			v = xgrow(v, &cap, n + 1, sizeof *v);
			v[n++] = f->ents[e - 1];
		}
		by_stream(v, n);
		ids = xgrow(ids, &icap, n + 1, sizeof *ids);
		counts = xgrow(counts, &ccap, n + 1, sizeof *counts);
		for (k = 0; k < n; k++) {
			ids[k] = v[k].id;
			counts[k] = v[k].count;
		}
		at = cell_at(f, &f->cells[i], &one);
		fn(arg, f->cells[i].node, at, one, ids, counts, n);
	}
	free(v);
	free(ids);
	free(counts);
}

size_t
diag_fold_cells(const struct diag_job *job)
{
	return job->fold != NULL ? job->fold->ncells : 0;
}

long
diag_fold_width(const struct diag_job *job)
{
	return job->fold != NULL ? 1L << job->fold->shift : 1;
}

void
diag_fold_iters(const struct diag_job *job,
    void (*fn)(void *arg, long iteration, double start), void *arg)
{
	const struct diag_fold *f = job->fold;
	size_t i;

	for (i = 0; f != NULL && i < f->niters; i++)
		fn(arg, (long)(f->iters[i].key << f->shift),
		    f->iters[i].start);
}

void
diag_fold_free(struct diag_fold *f)
{
	size_t i;

	if (f == NULL)
		return;
	free(f->pool);
	free(f->seqs);
	free(f->seqtab.tab);
	free(f->ents);
	free(f->cells);
	free(f->celltab.tab);
	free(f->iters);
	free(f->itertab.tab);
	for (i = 0; i < f->nsf; i++)
		sfold_free(f->sf[i]);
	free(f->sf);
	free(f);
}
