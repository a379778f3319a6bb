/*
 * index.c -- the indexing pipeline: threads parse, one of them stores.
 *
 *   worker threads (all threads but one) the calling thread (writer)
 *   take the next unit in order          waits for the segments of unit 0,
 *   read lines (reader.h)                then unit 1, ... in order;
 *   lp_memo_parse(), tmpl_memo_mask()    maps each distinct masked string
 *   group lines by masked string         to a template id (a cache of
 *   in a per-segment hash table          masked string -> id, else
 *   hand over a segment every            tmpl_match(), which is not
 *   SEG_LINES lines or SEG_BYTES         thread-safe), appends line numbers
 *   of masked text                       per template and stores rows.
 *
 * The writer is a worker too: when no segment of the unit it stores is
 * waiting, it takes the next unit itself and parses it (pull()), so
 * --threads N runs N threads in all and none of them idles while there
 * is work; on one thread it parses and stores in turn.  Storing comes
 * first: the writer parses only while nothing it could store is there.
 *
 * A unit is a whole file, or for a large plain file a CHUNK_BYTES range
 * of it: the lines that start in [from, to).  A worker numbers the lines
 * of a later range from 1 and leaves its timestamps unknown until its
 * first timestamp; the writer, which has stored the ranges before, adds
 * the line base and fills in the inherited time.  So one big file keeps
 * every core busy too.
 *
 * Because the writer takes units in order and the strings of a segment in
 * order of first occurrence, template ids and texts do not depend on
 * thread timing.  Memory is bounded: a segment holds at most SEG_LINES
 * lines and SEG_BYTES of strings; workers wait while the segments not
 * stored yet hold PENDING_BYTES (see push(); ordinary logs make small
 * segments, so workers run far ahead and keep all cores busy), and the
 * writer takes no unit of its own then; the writer flushes a file's line
 * lists when they pass FLUSH_BYTES, and the string -> id cache is emptied
 * when it passes CACHE_BYTES.
 *
 * A file the cache holds unchanged (unchanged(): size, inode, mtime,
 * ctime, and for a file read just after it was written a hash of its
 * head and tail) is not read at all: discovery takes what it found of it
 * from its row (known()), and a job whose every file is so, that is
 * said the same way and whose last run finished is written nothing, not
 * even its summary (nothing_to_do()).
 */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "db/cache.h"
#include "view/canvas.h"
#include "logs/index.h"
#include "logs/lineparse.h"
#include "db/logdb.h"
#include "logs/reader.h"
#include "logs/scan.h"
#include "logs/tmpl.h"
#include "base/util.h"

#define SEG_LINES	16384
#define SEG_BYTES	(2 * 1024 * 1024)
#define PENDING_BYTES	(32 * 1024 * 1024)
#define CP_EVERY	1024	/* a checkpoint at least every this many lines */
#define CP_BYTES	(16 * 1024)	/* and every this many bytes */
#define FLUSH_BYTES	(32 * 1024 * 1024)
#define CACHE_BYTES	(8 * 1024 * 1024)
#define COMMIT_SECS	2.0
#define NO_ENTRY	UINT32_MAX
#define MAX_THREADS	64
#define WRITER		(-1)	/* seg.worker of the writer's own segments */
#define SHAPE_SLOTS	4096		/* a power of two */
#define SHAPE_BYTES	(256 * 1024)
#define CHUNK_BYTES	(32 * 1024 * 1024)
#define SETTLED_SECS	10.0	/* whole_lines: a last line without its
				   newline in a file not written for this
				   long is a line (the writer is gone) */

/* One distinct masked string of a segment or of the writer's cache. */
struct entry {
	uint64_t hash;
	uint32_t str, len;	/* in smap.strs (at most SEG_BYTES and
				   CACHE_BYTES plus one string) */
	uint32_t tmpl;		/* writer's cache: the template */
};

/* How often a segment's string occurs, where first and last. */
struct occs {
	uint64_t count;
	struct logdb_occ first, last;
};

/* Distinct strings, in order of first insertion. */
struct smap {
	struct buf strs;
	struct entry *ents;
	size_t nents, ecap;
	uint32_t *tab;		/* open addressing: entry index + 1 */
	size_t tabsz;
};

/* What a worker hands to the writer. */
struct seg {
	struct seg *next;
	size_t unit;		/* index into the unit list */
	int worker;
	int last;		/* the unit's last segment */
	int failed;		/* the file could not be opened */
	uint64_t nul_line;	/* first line with a NUL byte, or 0 */
	uint64_t long_line;	/* first line cut to READER_LINE_MAX, or 0 */
	uint64_t long_len;	/* its full length */
	double ts_end;		/* the last timestamp seen, NaN: none */
	double ts_max;		/* the latest timestamp seen, NaN: none */

	struct smap map;
	struct occs *occs;	/* parallel to map.ents */
	size_t ocap;
	uint32_t *ids;		/* entry of each line, NO_ENTRY: empty */
	size_t nlines, lcap;
	uint64_t first_line;	/* in the unit's numbering */
	struct logdb_occ *cps;
	size_t ncps, cpcap;
	int *ranks;		/* rank prefixes seen */
	size_t nranks, rcap;
	uint64_t bytes;		/* file bytes consumed for it */
	uint64_t text;		/* bytes of text in its lines (inflated) */
	size_t mem;		/* memory it holds, roughly */
	char *warn;		/* warnings, '\n'-separated, or NULL */
	int read_error;		/* reading stopped early: the rest is lost */

	/* Set on the last segment. */
	uint64_t end_off, lines, size;
	int partial, gz, ts_kind;
	double first_ts, last_ts;
};

/* A file to read, and from where. */
struct work {
	struct scan_file *sf;
	struct logdb_file *old;	/* NULL: new */
	uint64_t start_off, start_line;
	int append;
};

/* What one worker reads at a time: a file or a range of one. */
struct unit {
	size_t work;		/* index into the work list */
	uint64_t from, to;	/* lines starting in [from, to) */
	int first, last;	/* the file's first and last unit */
};

struct writer;

struct pipe {
	pthread_mutex_t mu;
	pthread_cond_t ready, room;
	struct seg *head, *tail;
	struct work *work;
	struct unit *units;
	size_t nunits, next;
	size_t pending;		/* bytes held by segments in the list */
	size_t cur;		/* the unit the writer stores */
	struct worker *self;	/* the writer's parsing state */
	struct writer *w;	/* the writer itself */
	int stop;
	int whole;		/* index_opts.whole_lines */
	double settled;		/* epoch: a file last written before it is
				   done with its last line */
	const int *cancel;	/* index_opts.cancel, or NULL */
};

/* Whether the run was asked to stop (index_opts.cancel). */
static int
cancelled(const struct pipe *p)
{
	return p->cancel != NULL && __atomic_load_n(p->cancel,
	    __ATOMIC_RELAXED);
}

/*
 * A worker's masked texts by line shape (lp_memo_parse()): every line of
 * a shape has its message at the same place, of the same skeleton, so
 * when that skeleton masks to one text (tmpl_memo_mask()'s `same`) the
 * shape's lines get it without masking; and they all hold a NUL or none.
 */
struct shape {
	uint64_t id;		/* the shape, 0: empty */
	uint64_t hash;		/* of the masked text */
	uint32_t off, len;	/* the masked text in the arena */
	uint32_t msg_at, msg_len;
	int nul;
};

struct shapes {
	struct shape *tab;	/* SHAPE_SLOTS, by id */
	char *arena;
	size_t alen;
};

struct worker {
	struct pipe *p;
	int id;
	pthread_t thread;
	struct tmpl_memo *memo;	/* the thread's masked messages */
	struct lp_memo *lpmemo;	/* and parsed lines */
	struct shapes shapes;
};

/* ------------------------------------------------------------ workers */

static void
smap_init(struct smap *m)
{
	memset(m, 0, sizeof *m);
	m->tabsz = 1024;
	m->tab = xcalloc(m->tabsz, sizeof *m->tab);
}

static void
smap_release(struct smap *m)
{
	buf_release(&m->strs);
	free(m->ents);
	free(m->tab);
	memset(m, 0, sizeof *m);
}

/* Memory held by a map. */
static size_t
smap_bytes(const struct smap *m)
{
	return m->strs.cap + m->ecap * sizeof *m->ents +
	    m->tabsz * sizeof *m->tab;
}

static void
smap_grow(struct smap *m)
{
	size_t i, j, mask;

	free(m->tab);
	m->tabsz *= 2;
	m->tab = xcalloc(m->tabsz, sizeof *m->tab);
	mask = m->tabsz - 1;
	for (i = 0; i < m->nents; i++) {
		for (j = m->ents[i].hash & mask; m->tab[j] != 0;
		    j = (j + 1) & mask)
			;
		m->tab[j] = (uint32_t)i + 1;
	}
}

/* The entry index of a string; *created says whether it is new. */
static uint32_t
smap_get(struct smap *m, const char *str, size_t len, uint64_t h,
    int *created)
{
	size_t j, mask = m->tabsz - 1;
	struct entry *e;

	*created = 0;
	for (j = h & mask; m->tab[j] != 0; j = (j + 1) & mask) {
		e = &m->ents[m->tab[j] - 1];
		if (e->hash == h && e->len == len &&
		    memcmp(m->strs.s + e->str, str, len) == 0)
			return m->tab[j] - 1;
	}
	*created = 1;
	m->ents = xgrow(m->ents, &m->ecap, m->nents + 1, sizeof *m->ents);
	e = &m->ents[m->nents];
	memset(e, 0, sizeof *e);
	e->hash = h;
	e->str = (uint32_t)m->strs.len;
	e->len = (uint32_t)len;
	buf_add(&m->strs, str, len);
	buf_addc(&m->strs, '\0');
	m->tab[j] = (uint32_t)++m->nents;
	if (m->nents * 2 > m->tabsz)
		smap_grow(m);
	return (uint32_t)m->nents - 1;
}

static struct seg *
seg_new(size_t unit, int worker, uint64_t first_line)
{
	struct seg *s = xcalloc(1, sizeof *s);

	s->unit = unit;
	s->ts_end = s->ts_max = NAN;
	s->worker = worker;
	s->first_line = first_line;
	smap_init(&s->map);
	return s;
}

static void
seg_free(struct seg *s)
{
	smap_release(&s->map);
	free(s->occs);
	free(s->ids);
	free(s->cps);
	free(s->ranks);
	free(s->warn);
	free(s);
}

static void
seg_warn(struct seg *s, const char *msg)
{
	char *w;

	w = s->warn ? xasprintf("%s\n%s", s->warn, msg) : xstrdup(msg);
	free(s->warn);
	s->warn = w;
}

static void
seg_rank(struct seg *s, int rank)
{
	size_t i;

	for (i = 0; i < s->nranks; i++)
		if (s->ranks[i] == rank)
			return;
	if (s->nranks >= 4096)
		return;
	s->ranks = xgrow(s->ranks, &s->rcap, s->nranks + 1, sizeof *s->ranks);
	s->ranks[s->nranks++] = rank;
}

static size_t
seg_mem(const struct seg *s)
{
	return sizeof *s + smap_bytes(&s->map) + s->ocap * sizeof *s->occs +
	    s->lcap * sizeof *s->ids + s->cpcap * sizeof *s->cps;
}

/* Is a segment of `unit` waiting in the list?  (Under the lock.) */
static int
holds_unit(const struct pipe *p, size_t unit)
{
	const struct seg *s;

	for (s = p->head; s != NULL; s = s->next)
		if (s->unit == unit)
			return 1;
	return 0;
}

static int own_pushed(struct pipe *, size_t);

/*
 * Hand a segment to the writer; 0 when the run was stopped.  Waits while
 * the list holds PENDING_BYTES, except that a segment of the unit the
 * writer is storing goes in when none of that unit is waiting: the writer
 * never waits for a worker that waits for it.  The writer's own segments
 * go in at once (only it makes room), and then it stores what it can
 * (own_pushed()).
 */
static int
push(struct pipe *p, struct seg *s)
{
	size_t unit = s->unit;
	int own = s->worker == WRITER;

	s->mem = seg_mem(s);
	pthread_mutex_lock(&p->mu);
	while (!p->stop && s->worker != WRITER &&
	    p->pending + s->mem > PENDING_BYTES &&
	    (s->unit != p->cur || holds_unit(p, p->cur)))
		pthread_cond_wait(&p->room, &p->mu);
	if (p->stop) {
		pthread_mutex_unlock(&p->mu);
		seg_free(s);
		return 0;
	}
	p->pending += s->mem;
	if (p->tail != NULL)
		p->tail->next = s;
	else
		p->head = s;
	p->tail = s;
	pthread_cond_broadcast(&p->ready);
	pthread_mutex_unlock(&p->mu);
	return own ? own_pushed(p, unit) : 1;
}

/* Per-file state of a worker. */
struct wfile {
	struct reader *r;
	int held;		/* a line still being written was left */
	const char *path;
	struct tmpl_memo *memo;	/* the worker's (borrowed) */
	struct lp_memo *lpmemo;	/* the worker's (borrowed) */
	struct shapes *shapes;	/* the worker's (borrowed) */
	struct buf masked;
	double ts;		/* last timestamp seen, inherited */
	double ts_max;		/* latest timestamp seen, NaN: none */
	uint64_t cp_line;	/* line of the last checkpoint, 0: none */
	uint64_t cp_off;	/* its offset */
	int ts_kind;
	double first_ts;
	uint64_t consumed;	/* gzip: compressed bytes accounted */
	uint64_t accounted;	/* plain: offset accounted up to */
	uint64_t shift;		/* subtract from reader line numbers */
	uint64_t nul_line;
	uint64_t long_line;
	uint64_t end_off;
	int partial;
};

/* The shape `sid` of a line whose message is lp's, when it is kept. */
static const struct shape *
shape_get(struct shapes *sh, uint64_t sid, const struct reader_line *l,
    const struct lp_line *lp)
{
	const struct shape *e = &sh->tab[sid & (SHAPE_SLOTS - 1)];

	if (sid == 0 || e->id != sid || e->msg_at != (size_t)(lp->msg - l->s) ||
	    e->msg_len != lp->msg_len)
		return NULL;
	return e;
}

/* Keep masked text m[0..n) (hashed h) for the lines of shape `sid`. */
static void
shape_keep(struct shapes *sh, uint64_t sid, const struct reader_line *l,
    const struct lp_line *lp, const char *m, size_t n, uint64_t h, int nul)
{
	struct shape *e = &sh->tab[sid & (SHAPE_SLOTS - 1)];

	if (sh->alen + n > SHAPE_BYTES) {
		memset(sh->tab, 0, SHAPE_SLOTS * sizeof *sh->tab);
		sh->alen = 0;
	}
	e->id = sid;
	e->hash = h;
	e->off = (uint32_t)sh->alen;
	e->len = (uint32_t)n;
	e->msg_at = (uint32_t)(lp->msg - l->s);
	e->msg_len = (uint32_t)lp->msg_len;
	e->nul = nul;
	memcpy(sh->arena + sh->alen, m, n);
	sh->alen += n;
}

/*
 * The masked text of the line's message (*m, *n, its hash *h): from its
 * shape when kept, else masked (and kept for its shape when it may be).
 * Says in *nul whether the line holds a NUL byte.
 */
static void
line_masked(struct wfile *wf, uint64_t sid, const struct reader_line *l,
    const struct lp_line *lp, const char **m, size_t *n, uint64_t *h,
    int *nul)
{
	const struct shape *e = shape_get(wf->shapes, sid, l, lp);
	int same = 0;

	if (e != NULL) {
		*m = wf->shapes->arena + e->off;
		*n = e->len;
		*h = e->hash;
		*nul = e->nul;
		return;
	}
	*nul = memchr(l->s, '\0', l->len) != NULL;
	*h = 0;
	buf_reset(&wf->masked);
	if (lp->msg_len > 0)
		*h = tmpl_memo_mask(wf->memo, lp->msg, lp->msg_len,
		    &wf->masked, &same);
	*m = buf_str(&wf->masked);
	*n = wf->masked.len;
	if (sid != 0 && (same || lp->msg_len == 0))
		shape_keep(wf->shapes, sid, l, lp, *m, *n, *h, *nul);
}

static void
add_line(struct seg *s, struct wfile *wf, const struct reader_line *l)
{
	struct lp_line lp;
	struct logdb_occ at, occ;
	struct occs *o;
	uint32_t id = NO_ENTRY;
	uint64_t lineno, h, sid;
	const char *m;
	size_t n;
	int created, nul;

	sid = lp_memo_parse(wf->lpmemo, l->s, l->len, &lp);
	line_masked(wf, sid, l, &lp, &m, &n, &h, &nul);
	if (lp.ts_kind != LP_TS_NONE) {
		wf->ts = lp.ts;
		if (isnan(wf->ts_max) || lp.ts > wf->ts_max)
			wf->ts_max = lp.ts;
		if (wf->ts_kind == LP_TS_NONE) {
			wf->ts_kind = lp.ts_kind;
			wf->first_ts = lp.ts;
		}
	}
	if (lp.rank >= 0)
		seg_rank(s, lp.rank);
	lineno = l->lineno - wf->shift;
	s->text += l->full_len + l->newline;
	if (wf->nul_line == 0 && nul)
		wf->nul_line = s->nul_line = lineno;
	if (wf->long_line == 0 && l->full_len > READER_LINE_MAX) {
		wf->long_line = s->long_line = lineno;
		s->long_len = l->full_len;
	}
	at.line = lineno;
	at.off = l->off;
	at.ts = wf->ts;
	if (lp.msg_len > 0) {
		id = smap_get(&s->map, m, n, h, &created);
		if (created) {
			s->occs = xgrow(s->occs, &s->ocap, s->map.nents,
			    sizeof *s->occs);
			memset(&s->occs[id], 0, sizeof *s->occs);
		}
		o = &s->occs[id];
		/* an occurrence keeps only a time the line itself gave */
		occ = at;
		if (lp.ts_kind == LP_TS_NONE)
			occ.ts = NAN;
		if (o->count++ == 0)
			o->first = occ;
		o->last = occ;
	}
	if (s->nlines == s->lcap)
		s->ids = xgrow(s->ids, &s->lcap, s->nlines + 1, sizeof *s->ids);
	s->ids[s->nlines++] = id;
	/*
	 * A checkpoint keeps the latest time up to its line (inclusive), so
	 * a reader starting there knows the running maximum it merges by.
	 */
	if (wf->cp_line == 0 || lineno - wf->cp_line >= CP_EVERY ||
	    l->off - wf->cp_off >= CP_BYTES) {
		s->cps = xgrow(s->cps, &s->cpcap, s->ncps + 1, sizeof *s->cps);
		s->cps[s->ncps] = at;
		s->cps[s->ncps++].ts = wf->ts_max;
		wf->cp_line = lineno;
		wf->cp_off = l->off;
	}
	wf->end_off = l->off + l->full_len + (l->newline ? 1 : 0);
	wf->partial = !l->newline;
}

static void
account(struct seg *s, struct wfile *wf)
{
	uint64_t now;

	if (reader_is_gzip(wf->r)) {
		now = reader_consumed(wf->r);
		s->bytes = now - wf->consumed;
		wf->consumed = now;
	} else {
		s->bytes = wf->end_off - wf->accounted;
		wf->accounted = wf->end_off;
	}
	s->ts_end = wf->ts;
	s->ts_max = wf->ts_max;
}

static void
finish_unit(struct pipe *p, struct seg *s, struct wfile *wf)
{
	s->last = 1;
	account(s, wf);
	s->end_off = wf->end_off;
	s->lines = s->first_line - 1 + s->nlines;
	s->size = reader_file_size(wf->r);
	s->gz = reader_is_gzip(wf->r);
	s->partial = wf->partial;
	if (wf->held) {		/* stored as read: the next run goes on here */
		s->size = wf->end_off;
		s->partial = 0;
	}
	s->ts_kind = wf->ts_kind;
	s->first_ts = wf->ts_kind != LP_TS_NONE ? wf->first_ts : NAN;
	push(p, s);
}

/* Open a unit's file where its lines start. */
static int
open_unit(const struct unit *u, const struct work *w, struct wfile *wf,
    char **cause)
{
	struct reader_line l;

	if (u->first) {
		wf->end_off = wf->accounted = w->start_off;
		return reader_open(w->sf->path, w->start_off, w->start_line,
		    &wf->r, cause);
	}
	/* From the byte before: skip the rest of the line it ends. */
	if (reader_open(w->sf->path, u->from - 1, 0, &wf->r, cause) != 0)
		return -1;
	wf->shift = 1;
	switch (reader_next(wf->r, &l, cause)) {
	case -1:
		return -1;
	case 0:
		wf->end_off = wf->accounted = u->from;
		break;
	default:
		wf->end_off = wf->accounted = l.off + l.full_len + l.newline;
		break;
	}
	return 0;
}

static void
read_unit(struct pipe *p, struct worker *wk, size_t idx)
{
	const struct unit *u = &p->units[idx];
	const struct work *w = &p->work[u->work];
	struct wfile wf;
	struct reader_line l;
	struct seg *s;
	char *cause = NULL;
	int rc;

	memset(&wf, 0, sizeof wf);
	wf.path = w->sf->path;
	wf.memo = wk->memo;
	wf.lpmemo = wk->lpmemo;
	wf.shapes = &wk->shapes;
	wf.ts = wf.ts_max = NAN;
	s = seg_new(idx, wk->id, u->first ? w->start_line + 1 : 1);
	if (open_unit(u, w, &wf, &cause) != 0) {
		s->last = s->failed = 1;
		seg_warn(s, cause);
		push(p, s);
		goto out;
	}
	while ((rc = reader_next(wf.r, &l, &cause)) == 1) {
		if (l.off >= u->to || cancelled(p))
			break;
		if (p->whole && u->last && !w->sf->gz && ((!l.newline &&
		    w->sf->mtime >= p->settled) ||
		    l.off + l.full_len + l.newline > w->sf->size)) {
			wf.held = 1;	/* still being written */
			break;
		}
		add_line(s, &wf, &l);
		if (s->nlines >= SEG_LINES ||
		    smap_bytes(&s->map) + s->ocap * sizeof *s->occs >=
		    SEG_BYTES) {
			account(s, &wf);
			if (!push(p, s))
				goto out;
			s = seg_new(idx, wk->id, l.lineno - wf.shift + 1);
		}
	}
	if (rc < 0) {
		seg_warn(s, cause);
		s->read_error = 1;
	}
	finish_unit(p, s, &wf);
out:
	free(cause);
	buf_release(&wf.masked);
	reader_close(wf.r);
}

/* A parsing thread's memos (the writer's only when it first parses). */
static void
worker_init(struct worker *wk)
{
	wk->memo = tmpl_memo_new();
	wk->lpmemo = lp_memo_new();
	wk->shapes.tab = xcalloc(SHAPE_SLOTS, sizeof *wk->shapes.tab);
	wk->shapes.arena = xmalloc(SHAPE_BYTES);
	wk->shapes.alen = 0;
}

static void
worker_fini(struct worker *wk)
{
	if (wk->memo == NULL)
		return;
	tmpl_memo_free(wk->memo);
	lp_memo_free(wk->lpmemo);
	free(wk->shapes.tab);
	free(wk->shapes.arena);
	wk->memo = NULL;
	wk->lpmemo = NULL;
}

static void *
worker_main(void *arg)
{
	struct worker *wk = arg;
	struct pipe *p = wk->p;
	size_t idx;

	worker_init(wk);
	for (;;) {
		pthread_mutex_lock(&p->mu);
		/* (cancelled, a unit is still taken and cut at once: the
		   writer may wait for it) */
		idx = p->next < p->nunits && !p->stop ? p->next++ : SIZE_MAX;
		pthread_mutex_unlock(&p->mu);
		if (idx == SIZE_MAX)
			break;
		read_unit(p, wk, idx);
	}
	worker_fini(wk);
	return NULL;
}

/*
 * The writer, with nothing to store: parse the next unit itself, unless
 * none is left or the waiting segments hold PENDING_BYTES.  0: nothing
 * taken.  (Under the lock, which it lets go while parsing.)
 */
static int
parse_own(struct pipe *p)
{
	size_t idx;

	if (p->next >= p->nunits || p->stop || p->pending >= PENDING_BYTES)
		return 0;
	idx = p->next++;
	pthread_mutex_unlock(&p->mu);
	if (p->self->memo == NULL)
		worker_init(p->self);
	read_unit(p, p->self, idx);
	pthread_mutex_lock(&p->mu);
	return 1;
}

/* The next segment of unit `unit`, taken from the list; NULL: none yet. */
static struct seg *
take(struct pipe *p, size_t unit)
{
	struct seg *s, *prev;

	pthread_mutex_lock(&p->mu);
	for (prev = NULL, s = p->head; s != NULL; prev = s, s = s->next)
		if (s->unit == unit)
			break;
	if (s == NULL) {
		pthread_mutex_unlock(&p->mu);
		return NULL;
	}
	if (prev != NULL)
		prev->next = s->next;
	else
		p->head = s->next;
	if (p->tail == s)
		p->tail = prev;
	p->pending -= s->mem;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	s->next = NULL;
	return s;
}

/* ------------------------------------------------------------- writer */

/* A file's occurrences of one template, not stored yet. */
struct acc {
	uint32_t gen;		/* == writer gen: in use for this file */
	uint64_t count;
	struct logdb_occ first, last;
	uint64_t prev;		/* last line appended to `lines` */
	struct buf lines;
};

struct writer {
	struct cache *c;
	struct logdb *db;
	struct tmpl_miner *miner;
	const struct index_opts *o;
	struct index_stats *st;
	struct pipe *p;

	struct smap cache;	/* masked string -> template (entry.tmpl) */
	unsigned char *dirty;	/* by template id: text to store */
	size_t dirtycap;
	uint32_t maxdirty;

	struct acc *accs;	/* by template id */
	size_t nacc;
	uint32_t gen;
	uint32_t *touched;
	size_t ntouched, tcap;
	size_t accbytes;
	uint32_t *emap;
	size_t emcap;

	int64_t job;
	char *kjob;		/* known(): the job whose rows are held */
	struct logdb_file *kold;	/* its rows by path */
	size_t nkold;
	double last_commit;
	double commit_secs;	/* commit at a file boundary this often */
	int in_tx;		/* a write transaction is open */
	long long seen;		/* the cache's data version the miner has */

	/* The file being stored. */
	int64_t file_id;
	uint64_t base;		/* line number before the current unit */
	double ts;		/* last timestamp so far, NaN: none */
	double ts_max;		/* latest timestamp so far, NaN: none */
	double first_ts;
	int ts_kind;
	int fresh;		/* it has no file_templates rows yet */
	int skip;		/* its first unit failed: drop the rest */
	int broken;		/* a later unit failed: read it again next time */
	int said_nul, said_long;	/* the file's one warning of each */

	/* The unit being stored is the pipe's cur. */
	int first;		/* its next segment is its first */
	int failed;		/* storing failed: *cause says why */
	char **cause;

	uint64_t total, done;	/* file bytes: all, read so far */
	uint64_t text;		/* text bytes read so far (gzip inflated) */
	size_t nfiles, files_done;
	double t0, last_draw, last_tick;
	int drawn;
};

static void
warn(struct writer *w, const char *msg)
{
	if (w->o->err == NULL)
		return;
	if (w->drawn) {
		fputs("\r\033[K", w->o->err);
		w->drawn = 0;
	}
	fprintf(w->o->err, "trainscope: %s%swarning: ", w->o->cmd != NULL ?
	    w->o->cmd : "", w->o->cmd != NULL ? ": " : "");
	canvas_fput(w->o->err, msg);	/* file names stay inert */
	fputc('\n', w->o->err);
}

static void
warn_cb(void *arg, const char *msg)
{
	warn(arg, msg);
}

static void
draw_progress(struct writer *w, int force)
{
	double now = ts_now(), el = now - w->t0, rate, eta;

	if (w->o->tick != NULL && (force || now - w->last_tick >= 0.1)) {
		w->last_tick = now;
		w->o->tick(w->o->tick_arg, w->files_done, w->nfiles, w->done,
		    w->total);
	}
	if (!w->o->progress || w->o->err == NULL ||
	    (!force && now - w->last_draw < 0.1))
		return;
	w->last_draw = now;
	rate = el > 0 ? w->done / el : 0;
	eta = rate > 0 && w->total > w->done ? (w->total - w->done) / rate : 0;
	fprintf(w->o->err, "\rindexing: %zu/%zu files, %.0f MB of text "
	    "(%.0f MB/s), ETA %.0f s\033[K", w->files_done, w->nfiles,
	    w->text / 1e6, el > 0 ? w->text / el / 1e6 : 0.0, eta);
	fflush(w->o->err);
	w->drawn = 1;
}

static void
mark_dirty(struct writer *w, uint32_t id)
{
	size_t old = w->dirtycap;

	if (id >= w->dirtycap) {
		w->dirty = xgrow(w->dirty, &w->dirtycap, (size_t)id + 1, 1);
		memset(w->dirty + old, 0, w->dirtycap - old);
	}
	w->dirty[id] = 1;
	if (id > w->maxdirty)
		w->maxdirty = id;
}

static int
store_templates(struct writer *w, char **cause)
{
	uint32_t id;

	for (id = 1; id <= w->maxdirty && id < w->dirtycap; id++) {
		if (!w->dirty[id])
			continue;
		w->dirty[id] = 0;
		if (logdb_template_put(w->db, id, tmpl_text(w->miner, id),
		    cause) != 0)
			return -1;
	}
	w->maxdirty = 0;
	return 0;
}

/* The template of a masked string, through the cache. */
static uint32_t
template_of(struct writer *w, const char *m, size_t len, uint64_t h)
{
	uint32_t e;
	int created, changed = 0;

	if (smap_bytes(&w->cache) > CACHE_BYTES) {
		smap_release(&w->cache);
		smap_init(&w->cache);
	}
	e = smap_get(&w->cache, m, len, h, &created);
	if (created) {
		w->cache.ents[e].tmpl = tmpl_match(w->miner, m, len, &changed);
		if (changed)
			mark_dirty(w, w->cache.ents[e].tmpl);
	}
	return w->cache.ents[e].tmpl;
}

static struct acc *
acc_of(struct writer *w, uint32_t t)
{
	struct acc *a;
	size_t old = w->nacc;

	if (t >= w->nacc) {
		w->accs = xgrow(w->accs, &w->nacc, (size_t)t + 1,
		    sizeof *w->accs);
		memset(w->accs + old, 0, (w->nacc - old) * sizeof *w->accs);
	}
	a = &w->accs[t];
	if (a->gen != w->gen) {
		a->gen = w->gen;
		a->count = 0;
		a->prev = 0;
		buf_reset(&a->lines);
		w->touched = xgrow(w->touched, &w->tcap, w->ntouched + 1,
		    sizeof *w->touched);
		w->touched[w->ntouched++] = t;
	}
	return a;
}

/* Store the accumulated line lists of the current file. */
static int
flush_accs(struct writer *w, char **cause)
{
	struct acc *a;
	size_t i;

	for (i = 0; i < w->ntouched; i++) {
		a = &w->accs[w->touched[i]];
		if ((w->fresh ? logdb_ft_new : logdb_ft_add)(w->db, w->file_id,
		    w->touched[i], a->count, &a->first, &a->last, &a->lines,
		    cause) != 0)
			return -1;
		buf_release(&a->lines);
	}
	w->ntouched = 0;
	w->accbytes = 0;
	w->gen++;
	w->fresh = 0;
	return 0;
}

static void
put_varint(struct buf *b, uint64_t v)
{
	unsigned char *p;

	if (b->cap - b->len < 11)	/* ten bytes and the NUL: grow rarely */
		buf_grow(b, 10);
	p = (unsigned char *)b->s + b->len;
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	b->len = (size_t)(p - (unsigned char *)b->s);
	b->s[b->len] = '\0';
}

/* From a unit's line numbers and times to the file's. */
static void
rebase(struct writer *w, struct logdb_occ *o)
{
	o->line += w->base;
	if (isnan(o->ts) || o->ts < w->ts_max)
		o->ts = w->ts_max;
}

/* Template ids for the segment's strings, and their first/last. */
static void
map_entries(struct writer *w, struct seg *s)
{
	struct entry *e;
	struct occs *o;
	struct acc *a;
	size_t i;

	w->emap = xgrow(w->emap, &w->emcap, s->map.nents + 1, sizeof *w->emap);
	for (i = 0; i < s->map.nents; i++) {
		e = &s->map.ents[i];
		w->emap[i] = template_of(w, s->map.strs.s + e->str, e->len,
		    e->hash);
		a = acc_of(w, w->emap[i]);
		o = &s->occs[i];
		o->first.line += w->base;	/* times are the lines' own */
		o->last.line += w->base;
		if (a->count == 0 || o->first.line < a->first.line)
			a->first = o->first;
		if (a->count == 0 || o->last.line > a->last.line)
			a->last = o->last;
		a->count += o->count;
	}
}

static int
apply_lines(struct writer *w, struct seg *s, char **cause)
{
	struct acc *a;
	size_t i, before;
	uint64_t line;

	for (i = 0; i < s->nlines; i++) {
		if (s->ids[i] == NO_ENTRY)
			continue;
		a = &w->accs[w->emap[s->ids[i]]];
		/* the list keeps a prefix of the lines (see logdb.h) */
		if (a->lines.len >= LOGDB_LINES_MAX)
			continue;
		line = w->base + s->first_line + i;
		before = a->lines.len;
		put_varint(&a->lines, line - a->prev);
		a->prev = line;
		w->accbytes += a->lines.len - before;
	}
	for (i = 0; i < s->ncps; i++)
		rebase(w, &s->cps[i]);
	if (logdb_checkpoints(w->db, w->file_id, s->cps, s->ncps, cause) != 0)
		return -1;
	if (w->accbytes > FLUSH_BYTES)
		return flush_accs(w, cause);
	return 0;
}

/* Node id of a file (0: unknown), creating the node. */
static int
node_of(struct writer *w, const struct scan_file *sf, int64_t *node,
    char **cause)
{
	*node = 0;
	if (sf->node == NULL)
		return 0;
	return logdb_node(w->db, w->job, sf->node, node, cause);
}

/* Before the first segment of a file: make sure it has a row. */
static int
begin_file(struct writer *w, struct work *wk, char **cause)
{
	struct logdb_file f;

	w->base = 0;
	w->ts = w->ts_max = w->first_ts = NAN;
	w->ts_kind = LP_TS_NONE;
	w->broken = 0;
	w->said_nul = w->said_long = 0;
	w->fresh = 0;
	if (wk->old != NULL && wk->append) {
		w->file_id = wk->old->id;
		w->ts = w->ts_max = w->first_ts = wk->old->last_ts;
		if (!isnan(wk->old->first_ts))
			w->first_ts = wk->old->first_ts;
		w->ts_kind = wk->old->ts_kind;
		return 0;
	}
	w->fresh = 1;
	if (wk->old != NULL) {
		w->file_id = wk->old->id;
		return logdb_file_clear(w->db, w->file_id, cause);
	}
	memset(&f, 0, sizeof f);
	f.path = wk->sf->rel;
	f.rank = -1;
	f.found_kind = -1;
	f.first_ts = f.last_ts = f.ctime = NAN;
	if (logdb_file_put(w->db, w->job, &f, cause) != 0)
		return -1;
	w->file_id = f.id;
	return 0;
}

/* What discovery found of a file, and its times, into its row. */
static void
keep_found(struct logdb_file *f, const struct scan_file *sf)
{
	free(f->found_node);
	f->found_node = sf->found_node != NULL ? xstrdup(sf->found_node) :
	    NULL;
	f->found_rank = sf->found_rank;
	f->found_kind = sf->found_kind;
	f->ctime = sf->ctime;
	f->head = sf->racy ? sf->head : 0;
}

static int
end_file(struct writer *w, struct work *wk, struct seg *s, char **cause)
{
	struct logdb_file f;
	int rc;

	if (flush_accs(w, cause) != 0)
		return -1;
	memset(&f, 0, sizeof f);
	f.id = w->file_id;
	f.path = wk->sf->rel;
	if (node_of(w, wk->sf, &f.node, cause) != 0)
		return -1;
	f.rank = wk->sf->rank;
	f.kind = wk->sf->kind;
	f.gz = s->gz;
	f.size = w->broken ? 0 : s->size;	/* 0: read it again */
	f.mtime = wk->sf->mtime;
	f.inode = wk->sf->inode;
	f.bytes = s->end_off;
	f.lines = w->base;
	f.partial = s->partial || w->broken;
	f.ts_kind = w->ts_kind;
	f.first_ts = w->first_ts;
	f.last_ts = w->ts;
	keep_found(&f, wk->sf);
	rc = logdb_file_put(w->db, w->job, &f, cause);
	free(f.found_node);
	if (rc != 0)
		return -1;
	if (f.rank >= 0 &&
	    logdb_rank(w->db, w->job, f.rank, f.node, cause) != 0)
		return -1;
	w->st->lines += f.lines - wk->start_line;
	return 0;
}

/* Ranks seen in line prefixes: on the file's node unless it has a rank. */
static int
store_ranks(struct writer *w, struct work *wk, struct seg *s, char **cause)
{
	int64_t node;
	size_t i;

	if (s->nranks == 0)
		return 0;
	if (node_of(w, wk->sf, &node, cause) != 0)
		return -1;
	for (i = 0; i < s->nranks; i++)
		if (logdb_rank(w->db, w->job, s->ranks[i],
		    wk->sf->rank < 0 ? node : 0, cause) != 0)
			return -1;
	return 0;
}

static void
show_warnings(struct writer *w, const struct seg *s)
{
	char *copy, *line, *save = NULL;

	if (s->warn == NULL)
		return;
	copy = xstrdup(s->warn);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		warn(w, line);
	free(copy);
}

static int
update_cb(void *arg, uint32_t id, const char *text, char **cause)
{
	return tmpl_update(arg, id, text, cause);
}

/*
 * Begin a write transaction, unless one is open, and take in what other
 * processes stored since this one last looked: new templates and new
 * texts of old ones (a template another run generalised).  Templates are
 * only made and generalised while this process holds the write lock, on
 * what the cache holds then, so the ids it gives out are free in the
 * cache and the texts it writes include the others' changes: concurrent
 * writers never give one id to two texts, nor undo each other's texts.
 * Between transactions the lock is free, while the workers read on.
 */
static int
begin_write(struct writer *w, char **cause)
{
	int changed;

	if (w->in_tx)
		return 0;
	if (cache_begin(w->c, cause) != 0)
		return -1;
	w->in_tx = 1;
	w->last_commit = ts_now();
	if ((changed = cache_changed(w->c, &w->seen, cause)) < 0 ||
	    (changed && logdb_templates_load(w->db, update_cb, w->miner,
	    cause) != 0)) {
		cache_rollback(w->c);
		w->in_tx = 0;
		w->seen = -1;
		return -1;
	}
	return 0;
}

/* Commit at a file boundary when enough time has passed. */
static int
maybe_commit(struct writer *w, int force, char **cause)
{
	if (!w->in_tx || (!force && ts_now() - w->last_commit <
	    w->commit_secs))
		return 0;
	if (store_templates(w, cause) != 0 || cache_commit(w->c, cause) != 0)
		return -1;
	w->in_tx = 0;
	if (!force)
		cache_let_in(w->c);
	return 0;
}

/* After a unit's segment: times, warnings, and the unit's end. */
static void
seg_done(struct writer *w, struct work *wk, struct seg *s)
{
	char *msg;

	/* a file's ranges each see their own: the first is said, once */
	if (s->nul_line != 0 && !w->said_nul++) {
		msg = xasprintf("'%s': line %llu: NUL bytes in the line",
		    wk->sf->path, (unsigned long long)(w->base + s->nul_line));
		warn(w, msg);
		free(msg);
	}
	if (s->long_line != 0 && !w->said_long++) {
		msg = xasprintf("'%s': line %llu: a line of %llu bytes; only "
		    "its first %d KiB are kept", wk->sf->path,
		    (unsigned long long)(w->base + s->long_line),
		    (unsigned long long)s->long_len, READER_LINE_MAX / 1024);
		warn(w, msg);
		free(msg);
	}
	if (!isnan(s->ts_end))
		w->ts = s->ts_end;
	if (!isnan(s->ts_max) && (isnan(w->ts_max) || s->ts_max > w->ts_max))
		w->ts_max = s->ts_max;
	if (s->last) {
		if (w->ts_kind == LP_TS_NONE)
			w->ts_kind = s->ts_kind;
		if (!isnan(s->first_ts) && (isnan(w->first_ts) ||
		    s->first_ts < w->first_ts))
			w->first_ts = s->first_ts;
	}
}

/*
 * Has another run stored this file since this one planned its work (a
 * run on the same job at once)?  Then what that run read stands, and
 * this one leaves the file alone: 1.  0: go on; -1 with *cause.
 */
static int
stored_meanwhile(struct writer *w, const struct work *wk, char **cause)
{
	struct logdb_file now;
	const struct logdb_file *old = wk->old;
	int rc;

	if ((rc = logdb_file_get(w->db, w->job, wk->sf->rel, &now, cause)) < 0)
		return -1;
	if (rc == 1)
		rc = old == NULL || now.id != old->id || now.size != old->size ||
		    now.bytes != old->bytes || now.lines != old->lines ||
		    now.inode != old->inode || now.mtime != old->mtime;
	free(now.path);
	free(now.found_node);
	return rc;
}

/* Store one segment of a unit; 1 when it was the file's last. */
static int
store_seg(struct writer *w, struct unit *u, struct seg *s, int first,
    char **cause)
{
	struct work *wk = &w->p->work[u->work];
	int rc;

	if (begin_write(w, cause) != 0)
		return -1;
	if (s->failed && u->first) {
		w->st->failed++;
		w->skip = 1;
	} else if (s->failed)
		w->broken = 1;	/* keep what was stored, read it all again */
	else if (s->read_error)
		w->st->partial++;
	if (first && u->first && !w->skip) {
		if ((rc = stored_meanwhile(w, wk, cause)) < 0)
			return -1;
		if (rc > 0) {
			w->st->skipped++;
			w->skip = 1;
		}
	}
	if (w->skip)
		return 0;
	if (first && u->first && begin_file(w, wk, cause) != 0)
		return -1;
	if (!w->broken) {
		map_entries(w, s);
		if (apply_lines(w, s, cause) != 0 ||
		    store_ranks(w, wk, s, cause) != 0)
			return -1;
		seg_done(w, wk, s);
	}
	if (!s->last)
		return 0;
	if (!w->broken)
		w->base += s->lines;
	if (!u->last)
		return 0;
	w->st->indexed++;
	return end_file(w, wk, s, cause);
}

/* Begin storing unit `idx` (or none: past the last). */
static void
begin_unit(struct writer *w, size_t idx)
{
	struct pipe *p = w->p;

	pthread_mutex_lock(&p->mu);
	p->cur = idx;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	w->first = 1;
	if (idx < p->nunits && p->units[idx].first)
		w->skip = 0;
}

/*
 * Store a segment of the current unit; at its last, go on to the next.
 * -1 with *w->cause set.
 */
static int
store_one(struct writer *w, struct seg *s)
{
	char **cause = w->cause;
	struct unit *u = &w->p->units[w->p->cur];
	int rc, last = s->last;

	/* after the take: a worker that saw the flag cut its unit */
	if (cancelled(w->p)) {
		seg_free(s);
		return ts_fail(cause, "cancelled");
	}
	/*
	 * A file gone or unreadable says so once, not once per range (the
	 * first range always speaks: skip and broken may be left from the
	 * file before)
	 */
	if (!(s->failed && !u->first && (w->skip || w->broken)))
		show_warnings(w, s);
	w->done += s->bytes;
	w->text += s->text;
	w->st->bytes += s->bytes;
	w->st->text += s->text;
	rc = store_seg(w, u, s, w->first, cause);
	w->first = 0;
	seg_free(s);
	draw_progress(w, 0);
	if (rc != 0)
		return -1;
	if (!last)
		return 0;
	begin_unit(w, w->p->cur + 1);
	if (!u->last)
		return 0;
	w->files_done++;
	return maybe_commit(w, 0, cause);
}

/*
 * Store every segment that can be stored now, in order: 0 when the next
 * one is not there yet (or all are stored), -1 with w->cause set.
 */
static int
drain(struct writer *w)
{
	struct seg *s;

	if (w->failed)
		return -1;
	while (w->p->cur < w->p->nunits &&
	    (s = take(w->p, w->p->cur)) != NULL)
		if (store_one(w, s) != 0) {
			w->failed = 1;
			return -1;
		}
	return 0;
}

/*
 * The writer handed a segment of a unit it parses (`unit`) to itself:
 * store what can be stored.  When that is not its own (a unit before it
 * is still being read) and the list holds PENDING_BYTES, wait for the
 * units before it and store them, rather than hold more: so what the
 * writer reads ahead stays bounded, and a large gzip file read on one
 * thread is stored as it is read.  0: stop reading (the run stopped, or
 * storing failed).
 */
static int
own_pushed(struct pipe *p, size_t unit)
{
	struct writer *w = p->w;
	int wait, stop;

	for (;;) {
		if (drain(w) != 0) {
			pthread_mutex_lock(&p->mu);
			p->stop = 1;
			pthread_cond_broadcast(&p->room);
			pthread_mutex_unlock(&p->mu);
			return 0;
		}
		pthread_mutex_lock(&p->mu);
		stop = p->stop;
		wait = !stop && p->cur < unit && p->pending > PENDING_BYTES;
		if (wait && !holds_unit(p, p->cur))
			pthread_cond_wait(&p->ready, &p->mu);
		pthread_mutex_unlock(&p->mu);
		if (!wait)
			return !stop;
	}
}

/* ------------------------------------------------------------ planning */

static int
cmp_old(const void *key, const void *elem)
{
	return strcmp(key, ((const struct logdb_file *)elem)->path);
}

/*
 * Is a file what the cache holds of it?  Its size, inode, mtime and ctime
 * (to the microsecond; a row of an older cache has no ctime) say so: a
 * rewrite moves the mtime, and setting the mtime back moves the ctime.
 * Not for a file rewritten within the tick of the clock that stamped it
 * (SCAN_RACY_SECS): a file that was racy when it was read kept a hash of
 * its head and tail, compared as well.  A rewrite that keeps the size,
 * both times and those 8 KiB goes unseen: that takes setting the clock.
 */
static int
unchanged(const struct logdb_file *old, const struct scan_file *sf)
{
	return old->size == sf->size && old->inode == sf->inode &&
	    fabs(old->mtime - sf->mtime) < 1e-6 && (isnan(old->ctime) ||
	    fabs(old->ctime - sf->ctime) < 1e-6) && (old->head == 0 ||
	    old->head == sf->head);
}

static int
appended(const struct logdb_file *old, const struct scan_file *sf)
{
	return !old->gz && old->inode == sf->inode && sf->size > old->size &&
	    !old->partial && old->bytes == old->size;
}

/*
 * An unchanged file whose node, rank or kind is now said differently, or
 * whose row does not say yet what discovery found.
 */
static int
reattribute(struct writer *w, struct logdb_file *old,
    const struct scan_file *sf, char **cause)
{
	int64_t node;

	if (node_of(w, sf, &node, cause) != 0)
		return -1;
	if (node == old->node && sf->rank == old->rank &&
	    sf->kind == old->kind && (old->found_kind >= 0 ||
	    sf->found_kind < 0))
		return 0;
	old->node = node;
	old->rank = sf->rank;
	old->kind = sf->kind;
	if (old->found_kind < 0)	/* a row of an older cache */
		keep_found(old, sf);
	return logdb_file_put(w->db, w->job, old, cause);
}

/*
 * Is file sf one the cache holds unchanged (old, from the same list) and
 * said the same way (node, rank, kind)?  The node is looked up, not made;
 * *last keeps the last node name and id looked up (files of one node
 * come together).  1: yes; 0: no; -1 with *cause.
 */
static int
stands(struct writer *w, const struct logdb_file *old, size_t nold,
    const struct scan_file *sf, struct scan_file *last, int64_t *last_id,
    char **cause)
{
	const struct logdb_file *o;
	int64_t node = 0;

	o = nold == 0 ? NULL : bsearch(sf->rel, old, nold, sizeof *old,
	    cmp_old);
	if (o == NULL || !unchanged(o, sf) || sf->rank != o->rank ||
	    sf->kind != o->kind || o->found_kind < 0)
		return 0;
	if (sf->node != NULL && last->node != NULL &&
	    strcmp(sf->node, last->node) == 0)
		node = *last_id;
	else if (sf->node != NULL) {
		if (logdb_node_find(w->db, w->job, sf->node, &node, cause) != 0)
			return -1;
		last->node = sf->node;
		*last_id = node;
	}
	return node == o->node && (sf->node == NULL || node != 0);
}

/*
 * Nothing to do for job j: it is indexed from this root, no run of it
 * stopped before the end, every file can be read and every one is held
 * unchanged (its rows as known() read them) and said the same way.  Then
 * the run writes nothing, not even the job's indexed time (one read
 * transaction).  1: nothing to do; 0: work; -1 with *cause.
 */
static int
nothing_to_do(struct writer *w, const struct scan_job *j, char **cause)
{
	struct scan_file last;
	char *root = NULL;
	size_t i;
	int64_t last_id = 0;
	int pending, rc, all = 1;

	if (j->nunread > 0 || w->kjob == NULL || strcmp(w->kjob, j->name) != 0)
		return 0;
	if (cache_exec(w->c, "BEGIN", cause) != 0)
		return -1;
	memset(&last, 0, sizeof last);
	rc = logdb_job_state(w->db, j->name, &w->job, &root, &pending, cause);
	if (rc == 0 && (w->job == 0 || pending || strcmp(root, j->root) != 0))
		all = 0;
	for (i = 0; rc >= 0 && all && i < j->nfiles; i++)
		if ((rc = stands(w, w->kold, w->nkold, &j->files[i], &last,
		    &last_id, cause)) == 0)
			all = 0;
	if (rc >= 0 && all)
		rc = logdb_template_max(w->db, &w->st->templates, cause);
	cache_rollback(w->c);
	free(root);
	if (rc < 0)
		return -1;
	if (all)
		w->st->skipped += j->nfiles;
	return all;
}

/* known()'s rows: those of job j when it is indexed from its root. */
static int
known_rows(struct writer *w, const struct scan_job *j, char **cause)
{
	char *root = NULL;
	int64_t id;
	int pending, rc;

	free(w->kjob);
	logdb_free_files(w->kold, w->nkold);
	w->kjob = xstrdup(j->name);
	w->kold = NULL;
	w->nkold = 0;
	rc = logdb_job_state(w->db, j->name, &id, &root, &pending, cause);
	if (rc == 0 && id != 0 && strcmp(root, j->root) == 0)
		rc = logdb_files(w->db, id, &w->kold, &w->nkold, cause);
	free(root);
	return rc;
}

/*
 * scan_opts.known: an unchanged file takes what discovery found from its
 * row, and its head is not read (a racy one's hash is, see unchanged()).
 * A cache error only costs the shortcut.
 */
static int
known(void *arg, const struct scan_job *j, struct scan_file *sf)
{
	struct writer *w = arg;
	struct logdb_file *o;
	char *cause = NULL;
	int rc;

	if ((w->kjob == NULL || strcmp(w->kjob, j->name) != 0) &&
	    known_rows(w, j, &cause) != 0) {
		free(cause);
		return 0;
	}
	o = w->nkold == 0 ? NULL : bsearch(sf->rel, w->kold, w->nkold,
	    sizeof *w->kold, cmp_old);
	if (o == NULL || o->found_kind < 0 || o->found_kind > SCAN_HOST)
		return 0;
	sf->head = o->head;	/* (the times alone: scan_sniff() compares */
	rc = unchanged(o, sf);	/* the head it reads with want_head) */
	sf->head = 0;
	if (!rc)
		return 0;
	sf->want_head = o->head;
	sf->node = o->found_node != NULL ? xstrdup(o->found_node) : NULL;
	sf->rank = o->found_rank;
	sf->kind = o->found_kind;
	sf->gz = o->gz;
	sf->found_node = o->found_node != NULL ? xstrdup(o->found_node) : NULL;
	sf->found_rank = o->found_rank;
	sf->found_kind = o->found_kind;
	return 1;
}

/* Split the files to read into units: ranges of large plain files. */
static struct unit *
make_units(struct work *work, size_t nwork, uint64_t chunk, size_t *nunits)
{
	struct unit *u = NULL;
	uint64_t from, size;
	size_t i, cap = 0;

	*nunits = 0;
	for (i = 0; i < nwork; i++) {
		from = work[i].start_off;
		size = work[i].sf->size;
		do {
			u = xgrow(u, &cap, *nunits + 1, sizeof *u);
			u[*nunits].work = i;
			u[*nunits].from = from;
			u[*nunits].first = from == work[i].start_off;
			from += chunk;
			u[*nunits].last = work[i].sf->gz || from >= size;
			u[*nunits].to = u[*nunits].last ? UINT64_MAX : from;
		} while (!u[(*nunits)++].last);
	}
	return u;
}

static int
plan(struct writer *w, struct scan_job *j, struct logdb_file *old,
    size_t nold, struct work **work, size_t *nwork, char **cause)
{
	struct logdb_file *o;
	struct work *wk;
	size_t i;

	*work = xcalloc(j->nfiles + 1, sizeof **work);
	*nwork = 0;
	for (i = 0; i < j->nfiles; i++) {
		o = nold == 0 ? NULL :
		    bsearch(j->files[i].rel, old, nold, sizeof *old, cmp_old);
		if (o != NULL && unchanged(o, &j->files[i])) {
			w->st->skipped++;
			if (reattribute(w, o, &j->files[i], cause) != 0)
				return -1;
			continue;
		}
		wk = &(*work)[(*nwork)++];
		wk->sf = &j->files[i];
		wk->old = o;
		if (o != NULL && appended(o, &j->files[i])) {
			wk->append = 1;
			wk->start_off = o->bytes;
			wk->start_line = o->lines;
		}
		w->total += j->files[i].size - wk->start_off;
	}
	return 0;
}

/* ------------------------------------------------------------ running */


static void
pipe_stop(struct pipe *p, struct worker *wk, int n)
{
	struct seg *s;
	int i;

	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_broadcast(&p->room);
	pthread_mutex_unlock(&p->mu);
	for (i = 0; i < n; i++)
		pthread_join(wk[i].thread, NULL);
	while ((s = p->head) != NULL) {
		p->head = s->next;
		seg_free(s);
	}
	p->tail = NULL;
}

/* Parse the planned files on workers and store them in order. */
static int
run_work(struct writer *w, struct work *work, size_t nwork, char **cause)
{
	struct pipe p;
	struct worker wk[MAX_THREADS], self;
	int n, i, rc = 0;

	memset(&p, 0, sizeof p);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.ready, NULL);
	pthread_cond_init(&p.room, NULL);
	p.work = work;
	p.whole = w->o->whole_lines;
	p.settled = ts_wallclock() - SETTLED_SECS;
	p.cancel = w->o->cancel;
	p.units = make_units(work, nwork, w->o->chunk > 0 ? w->o->chunk :
	    CHUNK_BYTES, &p.nunits);
	w->p = &p;
	memset(&self, 0, sizeof self);
	self.p = &p;
	self.id = WRITER;
	p.self = &self;
	p.w = w;
	w->cause = cause;
	w->failed = 0;
	/* the writer is one of the threads */
	n = (w->o->threads > 0 ? w->o->threads : ts_ncpus(MAX_THREADS)) - 1;
	if (n > MAX_THREADS - 1)
		n = MAX_THREADS - 1;
	if ((size_t)n > p.nunits)
		n = (int)p.nunits;
	for (i = 0; i < n; i++) {
		wk[i].p = &p;
		wk[i].id = i;
		if (pthread_create(&wk[i].thread, NULL, worker_main,
		    &wk[i]) != 0)
			ts_fatal("cannot create a thread");
	}
	begin_unit(w, 0);
	while (p.cur < p.nunits) {
		if (drain(w) != 0) {
			rc = -1;
			break;
		}
		pthread_mutex_lock(&p.mu);
		if (p.cur < p.nunits && !holds_unit(&p, p.cur) &&
		    !parse_own(&p))
			pthread_cond_wait(&p.ready, &p.mu);
		pthread_mutex_unlock(&p.mu);
	}
	if (w->failed)		/* (the last unit's commit, in own_pushed()) */
		rc = -1;
	pipe_stop(&p, wk, n);
	worker_fini(&self);
	pthread_cond_destroy(&p.room);
	pthread_cond_destroy(&p.ready);
	pthread_mutex_destroy(&p.mu);
	free(p.units);
	w->p = NULL;
	return rc;
}

/* A job keeps its root: another directory of the same name is refused. */
static int
same_root(struct writer *w, const struct scan_job *j, char **cause)
{
	char *root;
	int rc = 0;

	if (logdb_job_root(w->db, j->name, &root, cause) != 0)
		return -1;
	if (root != NULL && strcmp(root, j->root) != 0)
		rc = ts_fail(cause, "job '%s' is indexed from '%s'; name this one "
		    "with --job", j->name, root);
	free(root);
	return rc;
}

static int
index_job(struct writer *w, struct scan_job *j, char **cause)
{
	struct logdb_file *old = NULL;
	struct work *work = NULL;
	size_t nold = 0, nwork = 0, failed = w->st->failed;
	int rc = -1;

	if ((rc = nothing_to_do(w, j, cause)) != 0)
		return rc > 0 ? 0 : -1;
	rc = -1;
	if (begin_write(w, cause) != 0)
		return -1;
	if (same_root(w, j, cause) != 0 ||
	    logdb_job(w->db, j->name, j->root, &w->job, cause) != 0 ||
	    logdb_files(w->db, w->job, &old, &nold, cause) != 0 ||
	    plan(w, j, old, nold, &work, &nwork, cause) != 0 ||
	    logdb_job_pending(w->db, w->job, (long)(j->nfiles + j->nunread),
	    cause) != 0)
		goto out;
	w->st->failed += j->nunread;
	w->nfiles += nwork;
	if (run_work(w, work, nwork, cause) != 0 ||
	    begin_write(w, cause) != 0 ||
	    logdb_job_summarise(w->db, w->job, cause) != 0 ||
	    /* files that could not be read leave the job incomplete */
	    logdb_job_pending(w->db, w->job, w->st->failed > failed ?
	    (long)(j->nfiles + j->nunread) : -1, cause) != 0 ||
	    maybe_commit(w, 1, cause) != 0)
		goto out;
	rc = 0;
out:
	if (rc != 0) {
		cache_rollback(w->c);
		w->in_tx = 0;
		w->seen = -1;	/* the miner may hold what was rolled back */
	}
	free(work);
	logdb_free_files(old, nold);
	return rc;
}

static void
writer_release(struct writer *w)
{
	size_t i;

	for (i = 0; i < w->nacc; i++)
		buf_release(&w->accs[i].lines);
	free(w->accs);
	free(w->touched);
	free(w->emap);
	free(w->dirty);
	smap_release(&w->cache);
	tmpl_free(w->miner);
	logdb_free(w->db);
}

int
index_run(struct cache *c, char *const *paths, size_t n,
    const struct index_opts *o, struct index_stats *st, char **cause)
{
	struct scan_opts so;
	struct scan_job *jobs = NULL;
	struct writer w;
	size_t njobs = 0, i, nlen = 0, ncap = 0;
	char *names = NULL;
	int rc = -1;

	memset(st, 0, sizeof *st);
	memset(&w, 0, sizeof w);
	w.c = c;
	w.o = o;
	w.st = st;
	w.t0 = ts_now();
	w.gen = 1;
	w.seen = -1;		/* the first transaction loads the templates */
	w.commit_secs = o->commit_secs > 0 ? o->commit_secs :
	    o->commit_secs < 0 ? 0 : COMMIT_SECS;
	smap_init(&w.cache);
	w.miner = tmpl_new();
	memset(&so, 0, sizeof so);
	so.job_name = o->job_name;
	so.map_path = o->map_path;
	so.hostfile = o->hostfile;
	so.logs = o->logs;
	so.nlogs = o->nlogs;
	so.threads = o->threads > 0 ? o->threads : ts_ncpus(MAX_THREADS);
	/* the others need not wait for the WAL's copy into the database */
	if (so.threads > 1)
		cache_checkpoint_behind(c);
	so.warn = warn_cb;
	so.known = known;
	so.arg = &w;
	if (logdb_open(c, &w.db, cause) != 0 ||
	    scan_paths(paths, n, &so, &jobs, &njobs, cause) != 0)
		goto out;
	for (i = 0; i < njobs; i++)
		st->files += jobs[i].nfiles + jobs[i].nunread;
	for (i = 0; i < njobs; i++) {
		if (jobs[i].nfiles + jobs[i].nunread == 0) {	/* no log */
			if (st->nempty++ == 0)
				st->empty = xstrdup(jobs[i].root);
			continue;
		}
		if (index_job(&w, &jobs[i], cause) != 0)
			goto out;
		st->jobs++;
		names = xgrow(names, &ncap, nlen + strlen(jobs[i].name) + 3, 1);
		nlen += (size_t)sprintf(names + nlen, "%s%s", nlen > 0 ? ", " :
		    "", jobs[i].name);
	}
	rc = 0;
out:
	draw_progress(&w, 1);
	if (w.drawn)
		fputs("\r\033[K", o->err);
	if (tmpl_max_id(w.miner) > st->templates)	/* (a job untouched: */
		st->templates = tmpl_max_id(w.miner);	/* the cache's count) */
	st->seconds = ts_now() - w.t0;
	st->names = names;
	scan_free(jobs, njobs);
	free(w.kjob);
	logdb_free_files(w.kold, w.nkold);
	writer_release(&w);
	return rc;
}
