/*
 * viewlines.c -- the rows of the lines pane, read through the cache.
 *
 * The list of rows (file, line number) comes from the cache: every line
 * of an event (the per-file line numbers the indexer kept) with `context`
 * lines around each, or a window of one file around a line.  The text of
 * a row is read from its file only when the row is drawn, from the
 * nearest checkpoint before it, and texts far from the rows on screen are
 * dropped again: memory follows the screen, not the file.  The view's
 * filters hide rows as they hide the log pane's (rawfilt.c), and a search
 * goes through the raw lines of the whole job: a match among the rows is
 * gone to, one elsewhere opens its file around it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "diag/model.h"
#include "logs/grep.h"
#include "logs/logmerge.h"
#include "logs/reader.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "db/viewdb.h"
#include "view/viewint.h"

/* Rows the list may hold; an event with more lines shows the first ones. */
#define LINES_MAX 200000
/* Lines shown around a line of a file. */
#define WINDOW 500
/* Texts kept beyond the rows being drawn. */
#define KEEP 400
/* Rows a search reads before it waits for the whole job's answer. */
#define NEAR 600

void
view_lines_clear(struct view *v)
{
	size_t i;

	for (i = 0; i < v->nlines; i++) {
		if (i == 0 || v->lines[i].path != v->lines[i - 1].path)
			free(v->lines[i].path);
		free(v->lines[i].text);
	}
	free(v->lines);
	v->lines = NULL;
	v->nlines = 0;
	v->text_lo = v->text_hi = 0;
	v->lines_valid = 0;
	v->lines_hidden = 0;
	free(v->lines_error);
	v->lines_error = NULL;
}

struct build {
	struct view *v;
	size_t cap;
	int truncated;
	const struct model_event *ev;	/* the event shown, NULL */
	uint64_t *keep;		/* its lines in a file (scratch) */
	size_t keepcap;
};

static void
add_row(struct build *b, int64_t file, char *path, uint64_t line, int hit,
    int trace)
{
	struct view *v = b->v;
	struct view_line *l;

	if (v->nlines >= LINES_MAX) {
		b->truncated = 1;
		return;
	}
	v->lines = xgrow(v->lines, &b->cap, v->nlines + 1, sizeof *v->lines);
	l = &v->lines[v->nlines++];
	l->file = file;
	l->path = path;
	l->line = line;
	l->text = NULL;
	l->len = 0;
	l->hit = hit;
	l->trace = trace;
}

/*
 * The rows of a file's lines of the event: each line with `context`
 * lines around it, and before an error's line the lines of its trace
 * (the traceback that leads to it: as many lines as it has, unless no
 * context is asked for), each row once.
 */
static void
occ_rows(struct build *b, const struct viewdb_occ *o, char *path)
{
	uint64_t next = 1, from, to, ctx = (uint64_t)b->v->st.context;
	uint64_t ntr = ctx > 0 && b->ev != NULL ? b->ev->ntrace : 0, before;
	size_t i;

	before = ctx + ntr;
	for (i = 0; i < o->nlines && !b->truncated; i++) {
		from = o->lines[i] > before ? o->lines[i] - before : 1;
		if (from < next)
			from = next;
		to = o->lines[i] + ctx;
		if (o->file_lines > 0 && to > o->file_lines)
			to = o->file_lines > o->lines[i] ? o->file_lines :
			    o->lines[i];
		if (i + 1 < o->nlines && to >= o->lines[i + 1])
			to = o->lines[i + 1] - 1;
		for (; from <= to; from++)
			add_row(b, o->file, path, from, from == o->lines[i],
			    from < o->lines[i] && from + ntr >= o->lines[i]);
		next = to + 1;
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * An event of one iteration has its lines (locs): of the file's lines
 * of its template, only those.  Returns how many are left in b->keep.
 */
static size_t
occ_locs(struct build *b, const struct viewdb_occ *o)
{
	const struct model_event *e = b->ev;
	size_t i, n = 0, k;

	for (i = 0; i < e->nlocs; i++) {
		if (strcmp(e->locs[i].path, o->path) != 0 || e->locs[i].line < 1)
			continue;
		b->keep = xgrow(b->keep, &b->keepcap, n + 1, sizeof *b->keep);
		b->keep[n++] = (uint64_t)e->locs[i].line;
	}
	ts_qsort(b->keep, n, sizeof *b->keep, cmp_u64);
	/* those the template has there, in its order */
	for (i = k = 0; i < n; i++) {
		const uint64_t *at = bsearch(&b->keep[i], o->lines, o->nlines,
		    sizeof *o->lines, cmp_u64);

		if (at != NULL && (k == 0 || b->keep[k - 1] != b->keep[i]))
			b->keep[k++] = b->keep[i];
	}
	return k;
}

static int
event_file(void *arg, const struct viewdb_occ *o)
{
	struct build *b = arg;
	struct view *v = b->v;
	struct viewdb_occ sub;
	size_t before = v->nlines, k;
	char *path;

	if (v->st.l_node >= 0 && o->node[0] != '\0' &&
	    strcmp(o->node, v->m->nodes[v->st.l_node].name) != 0)
		return 0;
	if (b->ev != NULL && b->ev->nlocs > 0 && !model_event_own(b->ev)) {
		sub = *o;
		if ((sub.nlines = occ_locs(b, o)) == 0)
			return 0;
		sub.lines = b->keep;
		o = &sub;
	}
	path = xstrdup(o->path);
	occ_rows(b, o, path);
	if (v->nlines == before) {
		free(path);
		return 0;
	}
	/* a row past the file's last line is dropped when it is read */
	for (k = before; k < v->nlines; k++)
		v->lines[k].path = path;
	return b->truncated;
}

/* What the filter pass needs while it reads the rows. */
struct fpass {
	struct view *v;
	struct viewlog *vl;
	const struct rawf *rf;
	unsigned char *keep;
	struct buf text;
};

/* The merge's row of row l: 1 with *r, 0 when the merge has none. */
static int
merge_row(struct viewlog *vl, const struct view_line *l, struct lm_row *r)
{
	struct logmerge *m = viewlog_merge(vl);
	long f = lm_find_file(m, l->path);
	char *why = NULL;
	int rc;

	if (f < 0)
		return 0;
	if ((rc = lm_line(m, (size_t)f, l->line, r, &why)) < 0)
		free(why);
	return rc == 1;
}

/* Whether the filters keep row i, its text s[0 .. len) at hand. */
static int
fpass_row(void *arg, size_t i, const char *s, size_t len)
{
	struct fpass *p = arg;
	struct lm_row r;
	char *why = NULL;
	int have = 1, rc;

	if (!merge_row(p->vl, &p->v->lines[i], &r)) {
		p->keep[i] = 1;	/* not in the merge: shown as it is */
		return 0;
	}
	buf_reset(&p->text);
	buf_add(&p->text, s, len);
	rc = rawf_pass(p->rf, viewlog_merge(p->vl), viewlog_tagger(p->vl), &r,
	    &p->text, &have, &why);
	free(why);
	p->keep[i] = rc != 0;
	return 0;
}

/* Drop the rows p->keep does not keep; the cursor goes with its row. */
static void
drop_rows(struct view *v, const unsigned char *keep)
{
	size_t i, o = 0, cur = (size_t)(v->st.cursor[PANE_LINES] < 0 ? 0 :
	    v->st.cursor[PANE_LINES]), newcur = SIZE_MAX, g, e;
	int kept;

	for (i = 0; i < v->nlines; i = e) {
		/* a file's rows share its path: free it when none stays */
		for (e = i, kept = 0; e < v->nlines && v->lines[e].path ==
		    v->lines[i].path; e++)
			kept |= keep[e];
		if (!kept)
			free(v->lines[i].path);
		for (g = i; g < e; g++) {
			if (!keep[g]) {
				free(v->lines[g].text);
				continue;
			}
			if (g >= cur && newcur == SIZE_MAX)
				newcur = o;
			v->lines[o++] = v->lines[g];
		}
	}
	v->lines_hidden = v->nlines - o;
	v->nlines = o;
	v->text_lo = v->text_hi = 0;
	v->st.cursor[PANE_LINES] = (int)(newcur != SIZE_MAX ? newcur : o > 0 ?
	    o - 1 : 0);
}

/* Hide the rows the view's filters do not keep. */
static void
filter_rows(struct view *v)
{
	struct fpass p;
	char *why = NULL;
	size_t i;

	if (v->st.nfilters == 0 || v->nlines == 0)
		return;
	memset(&p, 0, sizeof p);
	p.v = v;
	if ((p.vl = viewlog_get(v, &why)) == NULL) {
		free(why);
		return;
	}
	p.rf = viewlog_filter(p.vl, v);
	if (!rawf_any(p.rf))
		return;
	p.keep = xcalloc(v->nlines + 1, 1);
	if (rawf_lines(p.rf))
		view_lines_scan(v, 0, v->nlines, fpass_row, &p);
	else
		for (i = 0; i < v->nlines; i++) {
			long f = lm_find_file(viewlog_merge(p.vl),
			    v->lines[i].path);

			p.keep[i] = f < 0 || rawf_file(p.rf, lm_file(
			    viewlog_merge(p.vl), (size_t)f));
		}
	drop_rows(v, p.keep);
	free(p.keep);
	buf_release(&p.text);
}

static int
cmp_loc(const void *a, const void *b)
{
	const struct model_loc *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c != 0 ? c : x->line < y->line ? -1 : x->line > y->line;
}

/*
 * The diagnosis's own event has no template: its lines are its locs, or
 * its one place (path:line), on the node asked for.  Returns 0, or -1
 * with *cause.
 */
static int
own_rows(struct build *b, char **cause)
{
	const struct model_event *e = b->ev;
	struct view *v = b->v;
	struct model_loc one, *l;
	struct viewdb_occ o;
	uint64_t *lines;
	size_t n = 0, i, s;
	int gz, rc = 0;

	one.path = e->path;
	one.line = e->line;
	one.node = e->nnodes > 0 ? e->nodes[0] : UINT32_MAX;
	l = xcalloc(e->nlocs + 1, sizeof *l);
	for (i = 0; i < (e->nlocs > 0 ? e->nlocs : 1); i++) {
		const struct model_loc *c = e->nlocs > 0 ? &e->locs[i] : &one;

		if (c->path != NULL && c->line >= 1 && (v->st.l_node < 0 ||
		    c->node == (uint32_t)v->st.l_node))
			l[n++] = *c;
	}
	if (n == 0)
		rc = ts_fail(cause, "%s", e->path == NULL && e->nlocs == 0 ?
		    "no line: this event is what was not logged" :
		    "no line of this event on that node");
	ts_qsort(l, n, sizeof *l, cmp_loc);
	lines = xcalloc(n + 1, sizeof *lines);
	for (i = 0; i < n && rc == 0 && !b->truncated; i = s) {
		memset(&o, 0, sizeof o);
		o.path = l[i].path;
		o.node = "";
		for (s = i; s < n && strcmp(l[s].path, l[i].path) == 0; s++)
			if (o.nlines == 0 || lines[o.nlines - 1] !=
			    (uint64_t)l[s].line)
				lines[o.nlines++] = (uint64_t)l[s].line;
		o.lines = lines;
		if ((rc = viewdb_file(v->cache, v->job, o.path, &o.file, &gz,
		    &o.file_lines, cause)) < 0)
			break;
		rc = rc == 0 ? 0 : event_file(b, &o);
	}
	free(lines);
	free(l);
	return rc < 0 ? -1 : 0;
}

/* Every line of the event l_event (on node l_node), with context. */
static int
event_rows(struct build *b)
{
	struct view *v = b->v;
	char *why = NULL;
	long e = model_event_index(v->m, v->st.l_event);
	size_t i;

	b->ev = e >= 0 ? &v->m->events[e] : NULL;
	if (b->ev != NULL && model_event_own(b->ev) ? own_rows(b, &why) != 0 :
	    viewdb_event_files(v->cache, v->job, v->st.l_event, event_file, b,
	    &why) < 0) {
		v->lines_error = why;
		return -1;
	}
	if (v->nlines == 0)
		v->lines_error = xstrdup(b->ev != NULL && b->ev->nlocs > 0 ?
		    "no line of this event is left (index the job again)" :
		    "the cache keeps no line of this event (index the job "
		    "again)");
	/* a drill lands on the event's first line, not its context */
	for (i = 0; v->lines_seek && i < v->nlines; i++)
		if (v->lines[i].hit) {
			v->st.cursor[PANE_LINES] = (int)i;
			break;
		}
	v->lines_seek = 0;
	filter_rows(v);
	return 0;
}

int
view_lines_build(struct view *v)
{
	struct build b;
	char *why = NULL;
	int64_t file;
	uint64_t nl, from, to, l;
	int gz, rc;

	view_lines_clear(v);
	v->lines_valid = 1;
	if (v->m == NULL || v->cache == NULL || v->st.lsrc == LS_NONE)
		return 0;
	memset(&b, 0, sizeof b);
	b.v = v;
	if (v->st.lsrc == LS_EVENT) {
		rc = event_rows(&b);
		free(b.keep);
		return rc;
	}
	rc = viewdb_file(v->cache, v->job, v->st.l_path, &file, &gz, &nl, &why);
	if (rc <= 0) {
		v->lines_error = rc < 0 ? why : xasprintf("no file '%s' in job "
		    "%s", v->st.l_path, v->job);
		return -1;
	}
	from = (uint64_t)v->st.l_line > WINDOW ? (uint64_t)v->st.l_line -
	    WINDOW : 1;
	to = (uint64_t)v->st.l_line + WINDOW;
	if (to > nl)
		to = nl;
	for (l = from; l <= to; l++)
		add_row(&b, file, l == from ? xstrdup(v->st.l_path) :
		    v->lines[v->nlines - 1].path, l, l == (uint64_t)v->st.l_line,
		    0);
	v->st.cursor[PANE_LINES] = (int)((uint64_t)v->st.l_line - from);
	filter_rows(v);
	return 0;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct view_line *x = *(struct view_line *const *)a;
	const struct view_line *y = *(struct view_line *const *)b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* What a row's text is given to: nonzero stops the reading. */
typedef int (*text_fn)(void *arg, struct view_line *l, const char *s,
    size_t len);

/* Give fn the text of each row, or why it has none. */
static int
give(text_fn fn, void *arg, struct view_line *l, const char *s)
{
	return fn(arg, l, s, strlen(s));
}

/*
 * Read rows want[0 .. n), all of one file, in ascending lines, from the
 * checkpoint before the first: fn gets each row's text (or why there is
 * none).  Returns what fn returned last.
 */
static int
read_rows(struct view *v, struct view_line **want, size_t n, text_fn fn,
    void *arg)
{
	struct reader *r = NULL;
	struct reader_line rl;
	char *why = NULL, *full, *msg;
	uint64_t at = 0, off = 0;
	size_t i = 0;
	int stop = 0;

	full = xasprintf("%s/%s", v->m->root != NULL ? v->m->root : ".",
	    want[0]->path);
	if (viewdb_checkpoint(v->cache, want[0]->file, want[0]->line, &at,
	    &off, &why) != 1) {
		free(why);
		why = NULL;
		at = off = 0;
	}
	if (reader_open(full, off, at > 0 ? at - 1 : 0, &r, &why) != 0 &&
	    (off == 0 || reader_open(full, 0, 0, &r, &why) != 0)) {
		msg = xasprintf("(%s)", why);
		for (i = 0; i < n && !stop; i++)
			stop = give(fn, arg, want[i], msg);
		free(msg);
		free(why);
		free(full);
		return stop;
	}
	while (i < n && !stop && reader_next(r, &rl, &why) == 1) {
		while (i < n && !stop && want[i]->line < rl.lineno)
			stop = give(fn, arg, want[i++], "(no such line: the "
			    "file changed since it was indexed)");
		if (i < n && !stop && want[i]->line == rl.lineno)
			stop = fn(arg, want[i++], rl.s, rl.len);
	}
	for (; i < n && !stop; i++)
		stop = give(fn, arg, want[i], why != NULL ? why :
		    "(no such line: the file is shorter than when indexed)");
	free(why);
	reader_close(r);
	free(full);
	return stop;
}

static int
keep_text(void *arg, struct view_line *l, const char *s, size_t len)
{
	(void)arg;
	/* the line whole, NUL bytes and all */
	l->text = xmalloc(len + 1);
	memcpy(l->text, s, len);
	l->text[len] = '\0';
	l->len = len;
	return 0;
}

/* A scan's function, and the rows its row numbers count from. */
struct scan {
	int (*fn)(void *arg, size_t row, const char *s, size_t len);
	void *arg;
	const struct view_line *base;
};

static int
scan_row(void *arg, struct view_line *l, const char *s, size_t len)
{
	struct scan *sc = arg;

	return sc->fn(sc->arg, (size_t)(l - sc->base), s, len);
}

int
view_lines_scan(struct view *v, size_t from, size_t to,
    int (*fn)(void *arg, size_t row, const char *s, size_t len), void *arg)
{
	struct view_line **run;
	struct scan sa;
	size_t i, s;
	int stop = 0;

	if (to > v->nlines)
		to = v->nlines;
	if (from >= to)
		return 0;
	sa.fn = fn;
	sa.arg = arg;
	sa.base = v->lines;
	run = xcalloc(to - from, sizeof *run);
	/* the rows of a file are together, in ascending lines */
	for (i = from; i < to && !stop; i = s) {
		for (s = i; s < to && v->lines[s].file == v->lines[i].file; s++)
			run[s - i] = &v->lines[s];
		stop = read_rows(v, run, s - i, scan_row, &sa);
	}
	free(run);
	return stop;
}

/*
 * Forget the texts of rows outside [lo, hi): only rows between
 * v->text_lo and v->text_hi hold any, so this costs what was filled.
 */
static void
forget_outside(struct view *v, size_t lo, size_t hi)
{
	size_t i, end = v->text_hi < v->nlines ? v->text_hi : v->nlines;

	for (i = v->text_lo; i < end; i++)
		if ((i < lo || i >= hi) && v->lines[i].text != NULL) {
			free(v->lines[i].text);
			v->lines[i].text = NULL;
		}
	if (v->text_lo < lo)
		v->text_lo = lo;
	if (v->text_hi > hi)
		v->text_hi = hi;
}

void
view_lines_fill(struct view *v, size_t from, size_t to)
{
	struct view_line **want;
	size_t i, n = 0, s;

	if (to > v->nlines)
		to = v->nlines;
	/* forget texts far from the rows on screen */
	forget_outside(v, from > KEEP ? from - KEEP : 0, to + KEEP + 1);
	if (from >= to)
		return;
	if (v->text_lo >= v->text_hi) {
		v->text_lo = from;
		v->text_hi = to;
	}
	if (from < v->text_lo)
		v->text_lo = from;
	if (to > v->text_hi)
		v->text_hi = to;
	want = xcalloc(to - from + 1, sizeof *want);
	for (i = from; i < to; i++)
		if (v->lines[i].text == NULL)
			want[n++] = &v->lines[i];
	qsort(want, n, sizeof *want, cmp_row);
	for (i = 0; i < n; i = s) {
		for (s = i + 1; s < n && want[s]->file == want[i]->file; s++)
			;
		read_rows(v, want + i, s - i, keep_text, NULL);
	}
	free(want);
}

/* ---- the search of the job's raw lines, from the lines pane ---- */

char *
view_lines_key(struct view *v, size_t r)
{
	if (r >= v->nlines)
		return NULL;
	return xasprintf("%s:%llu", v->lines[r].path,
	    (unsigned long long)v->lines[r].line);
}

/* The rows near, read now, for a search still under way. */
struct near {
	struct grep *g;
	int last;		/* the last match counts (going up) */
	int found;
	size_t row;
};

static int
near_row(void *arg, size_t row, const char *s, size_t len)
{
	struct near *n = arg;

	if (!grep_match(n->g, s, len))
		return 0;
	n->found = 1;
	n->row = row;
	return !n->last;
}

/* A match among the NEAR rows after (before) the cursor: 1 with *row. */
static int
find_near(struct view *v, int dir, size_t *row)
{
	struct near n;
	size_t cur = (size_t)v->st.cursor[PANE_LINES], off;
	char *why = NULL;

	memset(&n, 0, sizeof n);
	if (grep_compile_flags(v->search, GREP_CASELESS, &n.g, &off,
	    &why) != 0) {
		free(why);
		return 0;
	}
	n.last = dir < 0;
	if (dir < 0)
		view_lines_scan(v, cur > NEAR ? cur - NEAR : 0, cur, near_row,
		    &n);
	else
		view_lines_scan(v, cur + (dir > 0), cur + (dir > 0) + NEAR,
		    near_row, &n);
	grep_free(n.g);
	*row = n.row;
	return n.found;
}

/* The lines pane at match h: its row, or its file around it. */
static int
go_match(struct view *v, struct viewlog *vl, const struct viewbg_hit *h,
    size_t *row)
{
	const char *path = lm_file(viewlog_merge(vl), h->file)->path;
	size_t i;

	for (i = 0; i < v->nlines; i++)
		if (v->lines[i].line == h->line &&
		    strcmp(v->lines[i].path, path) == 0) {
			*row = i;
			return FIND_FOUND;
		}
	/* elsewhere: its file around it (back returns to these lines) */
	view_push(v);
	v->st.lsrc = LS_FILE;
	free(v->st.l_path);
	v->st.l_path = xstrdup(path);
	v->st.l_line = (long)h->line;
	view_lines_build(v);
	if (v->lines_error != NULL || v->nlines == 0)
		return FIND_NONE;
	*row = (size_t)v->st.cursor[PANE_LINES];
	return FIND_FOUND;
}

int
view_lines_find(struct view *v, void *re, int dir, size_t *row)
{
	const struct viewbg_hit *hits;
	struct viewlog *vl;
	struct lm_row r;
	char *why = NULL;
	uint64_t all;
	size_t n;
	long i;

	(void)re;
	if (!v->lines_valid)
		view_lines_build(v);
	if (v->search == NULL || (vl = viewlog_get(v, &why)) == NULL) {
		free(why);
		return FIND_NONE;
	}
	switch (viewlog_search(vl, v, v->search)) {
	case VLS_READY:
		hits = viewlog_hits(vl, &n, &all, NULL);
		memset(&r, 0, sizeof r);
		if ((size_t)v->st.cursor[PANE_LINES] < v->nlines &&
		    merge_row(vl, &v->lines[v->st.cursor[PANE_LINES]], &r))
			i = viewlog_hit_next(vl, &r, dir);
		else
			i = n > 0 ? 0 : -1;
		return i < 0 ? FIND_NONE : go_match(v, vl, &hits[i], row);
	case VLS_RUNNING:
		return v->nlines > 0 && find_near(v, dir, row) ? FIND_FOUND :
		    FIND_LATER;
	default:
		return FIND_NONE;
	}
}

void
view_lines_status(struct view *v, char *buf, size_t len)
{
	struct viewlog *vl;
	struct lm_row r;
	char *why = NULL;
	size_t k;
	int have;

	if (!v->lines_valid)
		view_lines_build(v);
	snprintf(buf, len, "lines %d/%zu", v->nlines == 0 ? 0 :
	    v->st.cursor[PANE_LINES] + 1, v->nlines);
	k = strlen(buf);
	if (v->lines_hidden > 0 && k < len)
		snprintf(buf + k, len - k, "  %llu hidden",
		    (unsigned long long)v->lines_hidden);
	if (v->search == NULL || (vl = viewlog_get(v, &why)) == NULL) {
		free(why);
		return;
	}
	have = (size_t)v->st.cursor[PANE_LINES] < v->nlines && merge_row(vl,
	    &v->lines[v->st.cursor[PANE_LINES]], &r);
	viewlog_search_status(vl, v, have ? &r : NULL, buf, len);
}
