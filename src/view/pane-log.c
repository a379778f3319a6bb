/*
 * pane-log.c -- the log pane: every raw line of the job in time order,
 * the rank logs and the host logs merged (logmerge.h), each row tagged
 * with its node, rank, stage and iteration.
 *
 * The pane keeps a window of the merged log around its cursor: the rows
 * the filters keep, a few pages each way, between two cursors of the
 * merge (one on the window's first row or a hidden row before it, one on
 * its last or a hidden row after).  A move grows the window a page ahead
 * (a step of the merge a row) and trims it far behind, so memory follows
 * the screen.  The pane's place is its cursor row's key, PATH:LINE, kept
 * in the view state (what `back` and a saved session go back to); the
 * window is built again around it when the state changes.  Between the
 * rows, what the captures saw is marked at its time: each capture
 * iteration's start and the onset of a finding.  Below the list, the
 * cursor's line whole with its PATH:LINE.  Tags and the count of hidden
 * lines come from viewlog.c (in the background on the screen).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/util.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "logs/grep.h"
#include "logs/lineparse.h"
#include "logs/logmerge.h"
#include "view/canvas.h"
#include "view/lineout.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

#define DETAIL		5	/* rows under the list for the cursor's line */
#define WIN_MAX		4096	/* rows kept before the window is trimmed */
#define SCAN_MAX	200000	/* hidden rows stepped over in one go */
#define NEAR		600	/* rows a search reads before it waits */

/* A mark of the captures at a time. */
struct lmark {
	double t;
	int warn;		/* a finding, not an iteration's start */
	char *text;
};

/* A row of the window: the merge's, and its place in the whole log. */
struct wrow {
	struct lm_row r;
	uint64_t idx;
};

struct logwin {
	struct viewlog *vl;	/* borrowed from the view */
	struct lm_cursor *head, *tail;
	uint64_t head_idx, tail_idx;	/* their rows' places */
	struct wrow *row;
	size_t n, cap;
	int at_first, at_last;	/* no row kept before row[0] / after the end */
	int valid;
	unsigned long gen;
	char *error;
	struct buf text;
	struct lmark *marks;	/* by time */
	size_t nmarks;
	struct grep *g;		/* the search, for the rows near */
	char *gpat;
};

static void
marks_free(struct logwin *w)
{
	size_t i;

	for (i = 0; i < w->nmarks; i++)
		free(w->marks[i].text);
	free(w->marks);
	w->marks = NULL;
	w->nmarks = 0;
}

static void
win_clear(struct logwin *w)
{
	lm_cursor_free(w->head);
	lm_cursor_free(w->tail);
	w->head = w->tail = NULL;
	w->n = 0;
	w->at_first = w->at_last = 0;
	w->valid = 0;
	free(w->error);
	w->error = NULL;
}

static void
log_release(struct view *v)
{
	struct logwin *w = v->own[PANE_LOG];

	if (w == NULL)
		return;
	win_clear(w);
	free(w->row);
	buf_release(&w->text);
	marks_free(w);
	grep_free(w->g);
	free(w->gpat);
	free(w);
	v->own[PANE_LOG] = NULL;
}

/* ---- the marks of the captures ---- */

static void
mark_add(struct logwin *w, double t, int warn, char *text)
{
	w->marks = xreallocarray(w->marks, w->nmarks + 1, sizeof *w->marks);
	w->marks[w->nmarks].t = t;
	w->marks[w->nmarks].warn = warn;
	w->marks[w->nmarks++].text = text;
}

static int
cmp_mark(const void *a, const void *b)
{
	const struct lmark *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->warn - y->warn;
}

/* Each capture iteration's start, and where each finding begins. */
static void
marks_build(struct logwin *w, const struct model *m)
{
	const struct model_flows *f = &m->flows;
	size_t i;

	marks_free(w);
	for (i = 0; f->present && i < f->niters; i++) {
		if (!isfinite(f->iters[i].start))
			continue;
		if (f->iters[i].log_iter >= 0)
			mark_add(w, f->iters[i].start, 0, xasprintf("capture "
			    "iteration %zu begins (log iteration %ld)", i + 1,
			    f->iters[i].log_iter));
		else
			mark_add(w, f->iters[i].start, 0, xasprintf("capture "
			    "iteration %zu begins", i + 1));
	}
	for (i = 0; f->present && i < f->nfindings; i++) {
		const struct model_finding *fd = &f->findings[i];

		if (fd->from < 1 || (size_t)fd->from > f->niters ||
		    !isfinite(f->iters[fd->from - 1].start))
			continue;
		mark_add(w, f->iters[fd->from - 1].start, 1, xasprintf("flows: "
		    "%s %s from capture iteration %d", fd->kind, fd->subject,
		    fd->from));
	}
	ts_qsort(w->marks, w->nmarks, sizeof *w->marks, cmp_mark);
}

/* ---- the window ---- */

static struct logwin *
logwin(struct view *v)
{
	if (v->own[PANE_LOG] == NULL)
		v->own[PANE_LOG] = xcalloc(1, sizeof(struct logwin));
	return v->own[PANE_LOG];
}

/* Do the filters keep the row under cursor c (into *r)?  1, 0, -1. */
static int
keeps(struct view *v, struct logwin *w, struct lm_cursor *c,
    struct lm_row *r, char **cause)
{
	int have = 0;

	lm_row(c, r);
	return viewlog_pass(w->vl, v, r, &w->text, &have, cause);
}

/* Add up to k rows after the window's end: how many, or -1. */
static long
grow_down(struct view *v, struct logwin *w, size_t k, char **cause)
{
	struct lm_row r;
	size_t got = 0, steps = 0;
	int rc;

	while (got < k && !w->at_last && steps++ < SCAN_MAX) {
		if ((rc = lm_next(w->tail, cause)) < 0)
			return -1;
		if (rc == 0) {
			w->at_last = 1;
			break;
		}
		w->tail_idx++;
		if ((rc = keeps(v, w, w->tail, &r, cause)) < 0)
			return -1;
		if (rc == 0)
			continue;
		w->row = xgrow(w->row, &w->cap, w->n + 1, sizeof *w->row);
		w->row[w->n].r = r;
		w->row[w->n++].idx = w->tail_idx;
		got++;
	}
	return (long)got;
}

/* Add up to k rows before the window's start: how many, or -1. */
static long
grow_up(struct view *v, struct logwin *w, size_t k, char **cause)
{
	struct wrow *add = NULL;
	struct lm_row r;
	size_t got = 0, steps = 0, cap = 0, i;
	int rc = 0;

	while (got < k && !w->at_first && steps++ < SCAN_MAX) {
		if ((rc = lm_prev(w->head, cause)) < 0)
			break;
		if (rc == 0) {
			w->at_first = 1;
			break;
		}
		w->head_idx--;
		if ((rc = keeps(v, w, w->head, &r, cause)) < 0)
			break;
		if (rc == 0)
			continue;
		add = xgrow(add, &cap, got + 1, sizeof *add);
		add[got].r = r;
		add[got++].idx = w->head_idx;
	}
	if (rc >= 0 && got > 0) {
		w->row = xgrow(w->row, &w->cap, w->n + got, sizeof *w->row);
		memmove(w->row + got, w->row, w->n * sizeof *w->row);
		for (i = 0; i < got; i++)
			w->row[i] = add[got - 1 - i];
		w->n += got;
	}
	free(add);
	return rc < 0 ? -1 : (long)got;
}

/* Is the row under c row r (the same file and line)? */
static int
on_row(const struct lm_cursor *c, const struct lm_row *r)
{
	struct lm_row here;

	return lm_row(c, &here) && here.file == r->file && here.line == r->line;
}

/*
 * Keep the window to WIN_MAX rows: drop what lies far from row *cur,
 * moving the cursors of the merge over the rows dropped (and *cur, the
 * pane's cursor and its top with the rows).
 */
static int
trim(struct view *v, struct logwin *w, long *cur, char **cause)
{
	long d, e;

	if (w->n <= WIN_MAX)
		return 0;
	d = *cur - WIN_MAX / 4;
	while (d > 0 && !on_row(w->head, &w->row[d].r)) {
		if (lm_next(w->head, cause) != 1)
			return -1;
		w->head_idx++;
	}
	if (d > 0) {
		memmove(w->row, w->row + d, (w->n - (size_t)d) * sizeof *w->row);
		w->n -= (size_t)d;
		w->at_first = 0;
		*cur -= d;
		v->st.cursor[PANE_LOG] -= (int)d;
		v->st.top[PANE_LOG] -= (int)d;
		if (v->st.cursor[PANE_LOG] < 0)
			v->st.cursor[PANE_LOG] = 0;
		if (v->st.top[PANE_LOG] < 0)
			v->st.top[PANE_LOG] = 0;
	}
	e = (long)w->n - 1 - (*cur + WIN_MAX / 4);
	while (e > 0 && !on_row(w->tail, &w->row[w->n - 1 - (size_t)e].r)) {
		if (lm_prev(w->tail, cause) != 1)
			return -1;
		w->tail_idx--;
	}
	if (e > 0) {
		w->n -= (size_t)e;
		w->at_last = 0;
	}
	return 0;
}

/*
 * Rows `ahead` after row `cur` of the window and `behind` before it, as
 * far as the log goes.  Rows added in front move the cursor, the top of
 * the page and *cur on.  0, or -1 with *cause.
 */
static int
ensure(struct view *v, struct logwin *w, long *cur, size_t ahead,
    size_t behind, char **cause)
{
	long k;

	if (*cur + (long)ahead >= (long)w->n && !w->at_last &&
	    grow_down(v, w, (size_t)(*cur + (long)ahead + 1 - (long)w->n),
	    cause) < 0)
		return -1;
	if (*cur < (long)behind && !w->at_first) {
		if ((k = grow_up(v, w, (size_t)((long)behind - *cur),
		    cause)) < 0)
			return -1;
		*cur += k;
		v->st.cursor[PANE_LOG] += (int)k;
		v->st.top[PANE_LOG] += (int)k;
	}
	return trim(v, w, cur, cause);
}

/* The pane's place is its cursor's row. */
static void
sync_pos(struct view *v, struct logwin *w)
{
	long c = v->st.cursor[PANE_LOG];

	if (w->n == 0 || c < 0 || (size_t)c >= w->n)
		return;
	free(v->st.lg_pos);
	v->st.lg_pos = lm_pos(viewlog_merge(w->vl), &w->row[c].r);
}

/* The first line of the failure: the top event's, else its time. */
static int
seek_failure(struct view *v, struct logwin *w, char **cause)
{
	const struct model_event *ev = v->m->nevents > 0 ? &v->m->events[0] :
	    NULL;
	long file = ev != NULL && ev->path != NULL ? lm_find_file(
	    viewlog_merge(w->vl), ev->path) : -1;

	if (file >= 0 && ev->line > 0)
		return lm_seek_line(w->head, (size_t)file, (uint64_t)ev->line,
		    cause);
	if (ev != NULL && !isnan(ev->ts))
		return lm_seek_time(w->head, ev->ts, cause);
	return lm_seek_last(w->head, cause);
}

/* Put the head where the state says the pane is. */
static int
seek_pos(struct view *v, struct logwin *w, char **cause)
{
	const char *pos = v->st.lg_pos;
	size_t file;
	uint64_t line;

	if (pos == NULL)
		return seek_failure(v, w, cause);
	if (strcmp(pos, "first") == 0)
		return lm_seek_first(w->head, cause);
	if (strcmp(pos, "last") == 0)
		return lm_seek_last(w->head, cause);
	if (pos[0] == '@')
		return lm_seek_time(w->head, strtod(pos + 1, NULL), cause);
	if (lm_parse_pos(viewlog_merge(w->vl), pos, &file, &line, cause) != 0)
		return -1;
	return lm_seek_line(w->head, file, line, cause);
}

/* The list's rows on a screen of the view's height. */
static int
list_rows(const struct view *v)
{
	int h = v->height > 0 ? v->height : 24;

	return h - 4 - (h - 4 >= 14 ? DETAIL : 0);
}

/*
 * The window around the state's place: the row there, or the first the
 * filters keep after it (before it when none is after), and pages of
 * rows each way.  0, or -1 with *cause.
 */
static int
build(struct view *v, struct logwin *w, char **cause)
{
	struct logmerge *m;
	struct lm_row r;
	size_t margin = (size_t)(2 * list_rows(v) + 8);
	long cur = 0, k;
	/* the cursor's row on the page, as the state had it (back), else
	   a quarter down (a new place: both 0 or -1) */
	long off = v->st.cursor[PANE_LOG] - v->st.top[PANE_LOG];
	int rc, keep = v->st.cursor[PANE_LOG] > 0 && off >= 0 &&
	    off < list_rows(v);

	win_clear(w);
	if ((w->vl = viewlog_get(v, cause)) == NULL)
		return -1;
	m = viewlog_merge(w->vl);
	w->head = lm_cursor_new(m);
	w->tail = lm_cursor_new(m);
	if (seek_pos(v, w, cause) != 0)
		return -1;
	marks_build(w, v->m);
	if (!lm_row(w->head, &r)) {
		w->at_first = w->at_last = 1;	/* a job of no line */
		return 0;
	}
	lm_cursor_copy(w->tail, w->head);
	w->head_idx = w->tail_idx = lm_index(w->head, NULL);
	if ((rc = keeps(v, w, w->head, &r, cause)) < 0)
		return -1;
	if (rc == 1) {
		w->row = xgrow(w->row, &w->cap, 1, sizeof *w->row);
		w->row[0].r = r;
		w->row[0].idx = w->head_idx;
		w->n = 1;
	} else if ((k = grow_down(v, w, 1, cause)) < 0 ||
	    (k == 0 && grow_up(v, w, 1, cause) < 0))
		return -1;
	if (w->n == 0)
		return 0;
	v->st.cursor[PANE_LOG] = v->st.top[PANE_LOG] = 0;
	if (ensure(v, w, &cur, margin, margin, cause) != 0)
		return -1;
	k = keep ? off : list_rows(v) / 4;
	v->st.top[PANE_LOG] = (int)(cur > k ? cur - k : 0);
	sync_pos(v, w);
	return 0;
}

/* The window for the view's state, built when it is not. */
static struct logwin *
ready(struct view *v)
{
	struct logwin *w = logwin(v);
	char *why = NULL;

	if (w->valid && w->gen == v->gen)
		return w;
	if (build(v, w, &why) != 0) {
		win_clear(w);
		w->error = why;
	}
	w->valid = 1;
	w->gen = v->gen;
	return w;
}

/* ---- questions through the table ---- */

static size_t
log_nrows(struct view *v)
{
	struct logwin *w = ready(v);

	return w->error != NULL ? 0 : w->n;
}

static char *
log_key(struct view *v, size_t r)
{
	struct logwin *w = ready(v);

	if (w->error != NULL || r >= w->n)
		return NULL;
	return lm_pos(viewlog_merge(w->vl), &w->row[r].r);
}

static int
log_target(struct view *v, size_t r, struct view_target *t)
{
	struct logwin *w = ready(v);

	if (w->error != NULL || r >= w->n)
		return -1;
	sync_pos(v, w);
	/* the line's own file around it, in the lines pane */
	t->kind = VT_LINE;
	t->owned = xstrdup(w->row[r].r.path);
	t->name = t->owned;
	t->iter = (long)w->row[r].r.line;
	return 0;
}

/* Go to pos (taken): the window built again there. */
static int
go_pos(struct view *v, char *pos, char **cause)
{
	struct logwin *w;

	free(v->st.lg_pos);
	v->st.lg_pos = pos;
	logwin(v)->valid = 0;
	w = ready(v);
	if (w->error != NULL)
		return ts_fail(cause, "%s", w->error);
	return 0;
}

/*
 * The key of row n (from 0) of the whole merged log, hidden or not: the
 * latest time whose first row is at most n, found by halving the job's
 * span (a seek each), then steps on.  Allocated, or NULL with *cause.
 */
static char *
key_of_index(struct logwin *w, uint64_t n, char **cause)
{
	struct logmerge *m = viewlog_merge(w->vl);
	struct lm_cursor *c = lm_cursor_new(m);
	struct lm_row r;
	double lo, hi, mid;
	uint64_t at;
	char *key = NULL;
	int k, rc = 0;

	lm_span(m, &lo, &hi);
	if (isnan(lo) || n == 0)
		rc = lm_seek_first(c, cause);
	else {
		lo -= 1;
		hi += 1;
		for (k = 0; k < 24 && rc == 0; k++) {
			mid = (lo + hi) / 2;
			if ((rc = lm_seek_time(c, mid, cause)) == 0 &&
			    lm_index(c, NULL) <= n)
				lo = mid;
			else
				hi = mid;
		}
		if (rc == 0)
			rc = lm_seek_time(c, lo, cause);
	}
	for (at = lm_index(c, NULL); rc == 0 && at < n; at++)
		if ((rc = lm_next(c, cause)) == 1)
			rc = 0;
		else
			break;
	if (rc >= 0 && lm_row(c, &r))
		key = lm_pos(m, &r);
	else if (rc >= 0)
		ts_fail(cause, "the job has no line");
	lm_cursor_free(c);
	return key;
}

/* move N: row N of the whole log (as the status line counts), or after. */
static int
go_index(struct view *v, struct logwin *w, long n, char **cause)
{
	char *key;

	if (w->error != NULL || w->vl == NULL)
		return ts_fail(cause, "%s", w->error != NULL ? w->error :
		    "no log");
	if ((key = key_of_index(w, n < 1 ? 0 : (uint64_t)n - 1, cause)) == NULL)
		return -1;
	return go_pos(v, key, cause);
}

static int
log_move(struct view *v, const char *how, char **cause)
{
	struct logwin *w = ready(v);
	long cur = v->st.cursor[PANE_LOG], page = view_page(v), to;

	if (strcmp(how, "top") == 0 || strcmp(how, "bottom") == 0)
		return go_pos(v, xstrdup(how[0] == 't' ? "first" : "last"),
		    cause);
	if (how[0] != '+' && how[0] != '-' && ts_parse_long(how, &to) == 0)
		return go_index(v, w, to, cause);
	if (w->error != NULL)
		return ts_fail(cause, "%s", w->error);
	if ((how[0] == '+' || how[0] == '-') &&
	    ts_parse_long(how + 1, &to) == 0)
		to = cur + (how[0] == '+' ? to : -to);
	else if (strcmp(how, "down") == 0)
		to = cur + 1;
	else if (strcmp(how, "up") == 0)
		to = cur - 1;
	else if (strcmp(how, "pgdn") == 0)
		to = cur + page;
	else if (strcmp(how, "pgup") == 0)
		to = cur - page;
	else if (strcmp(how, "halfdn") == 0)
		to = cur + (page + 1) / 2;
	else if (strcmp(how, "halfup") == 0)
		to = cur - (page + 1) / 2;
	else
		return ts_fail(cause, "cannot move '%s' (up, down, pgup, pgdn, "
		    "halfup, halfdn, top, bottom, +N, -N or a line number)", how);
	if (ensure(v, w, &to, (size_t)page + 1, (size_t)page + 1, cause) != 0)
		return -1;
	if (to >= (long)w->n)
		to = (long)w->n - 1;
	if (to < 0)
		to = 0;
	v->st.cursor[PANE_LOG] = (int)to;
	sync_pos(v, w);
	return 0;
}

/* ---- drawing ---- */

/* The columns of a page: wide (times to the millisecond, stage names). */
struct cols {
	int wide;
	int tw, nw, rw, sw;	/* time, node, rank, tags */
};

/* Stage names that fit a narrow screen, by enum stage. */
static const char *const short_stage[STAGE_COUNT] = {
	"-", "launch", "init", "load", "train", "save", "eval", "end"
};

/* The row's time: its own, else ~ and the time it is placed at. */
static void
time_str(const struct lm_row *r, int wide, char *b, size_t n)
{
	char t[48];

	lineout_time(isnan(r->own) ? r->eff : r->own, t, sizeof t);
	snprintf(b, n, "%c%.*s", isnan(r->own) ? '~' : ' ', wide ? 12 : 8,
	    strlen(t) > 11 ? t + 11 : t);
}

/* Stage and iteration as the column shows them ("?": not known yet). */
static void
tag_str(int wide, int known, int stage, long iter, char *b, size_t n)
{
	const char *name;

	if (!known) {
		snprintf(b, n, "?");
		return;
	}
	if (stage < 0 || stage >= STAGE_COUNT)
		stage = STAGE_NONE;
	name = wide ? (stage == STAGE_NONE ? "-" : stage_name(
	    (enum stage)stage)) : short_stage[stage];
	if (iter < 0)
		snprintf(b, n, "%s", name);
	else if (!wide && stage == STAGE_TRAINING)
		snprintf(b, n, "%ld", iter);
	else
		snprintf(b, n, "%s %ld", name, iter);
}

static void
rank_str(int rank, char *b, size_t n)
{
	if (rank >= 0)
		snprintf(b, n, "r%d", rank);
	else
		snprintf(b, n, "-");
}

/* Widen the columns for row r with its tags. */
static void
cols_fit(const struct canvas *cv, struct cols *c, const struct lm_row *r,
    int known, int stage, long iter)
{
	char b[64];
	int k;

	k = canvas_drawn_width(cv, r->node[0] != '\0' ? r->node : "-",
	    r->node[0] != '\0' ? strlen(r->node) : 1);
	if (k > c->nw)
		c->nw = k;
	rank_str(r->rank, b, sizeof b);
	if ((int)strlen(b) > c->rw)
		c->rw = (int)strlen(b);
	tag_str(c->wide, known, stage, iter, b, sizeof b);
	if ((int)strlen(b) > c->sw)
		c->sw = (int)strlen(b);
}

static void
cols_init(struct cols *c, int w)
{
	memset(c, 0, sizeof *c);
	c->wide = w >= 120;
	c->tw = c->wide ? 13 : 9;
	c->nw = c->rw = c->sw = 1;
}

static void
cols_cap(struct cols *c, int w)
{
	int cap = c->wide ? 24 : w / 8;

	if (c->nw > cap)
		c->nw = cap;
	if (c->sw > (c->wide ? 20 : 10))
		c->sw = c->wide ? 20 : 10;
}

/* The style of a line by its level. */
static int
level_style(const char *s, size_t len)
{
	struct lp_line lp;

	lp_parse(s, len < 512 ? len : 512, &lp);
	return lp.level >= LP_LEVEL_ERROR ? CS_ERROR : lp.level ==
	    LP_LEVEL_WARN ? CS_WARN : CS_NORMAL;
}

/* What a row shows: the row, its tags, its text. */
struct shown {
	const struct lm_row *r;
	int known, stage;
	long iter;
	const char *text;
	size_t len;
	int err;		/* the text is why it could not be read */
};

/* Draw a row of the list at canvas row `row`; the column of its text. */
static int
draw_line(struct view *v, struct area *a, int row, const struct shown *sh,
    const struct cols *c)
{
	const int skip = v->st.hscroll[PANE_LOG];
	char b[64];
	int x = 0, tw, st;

	time_str(sh->r, c->wide, b, sizeof b);
	canvas_puts(a->cv, row, x, CS_DIM, b);
	x += c->tw + 1;
	draw_tail(a->cv, row, x, c->nw, CS_NORMAL, sh->r->node[0] != '\0' ?
	    sh->r->node : "-");
	x += c->nw + 1;
	rank_str(sh->r->rank, b, sizeof b);
	canvas_puts(a->cv, row, x, CS_DIM, b);
	x += c->rw + 1;
	tag_str(c->wide, sh->known, sh->stage, sh->iter, b, sizeof b);
	canvas_put_clip(a->cv, row, x, x + c->sw, CS_DIM, b, strlen(b));
	x += c->sw + 1;
	st = sh->err ? CS_ERROR : level_style(sh->text, sh->len);
	tw = canvas_drawn_width(a->cv, sh->text, sh->len);
	if (tw - skip > a->w - x && tw - skip - (a->w - x) > v->hwide)
		v->hwide = tw - skip - (a->w - x);
	canvas_put_from(a->cv, row, x, a->w, st, sh->text, sh->len, skip);
	return x;
}

/* A mark of the captures at canvas row `row`. */
static void
draw_mark(struct area *a, int row, const struct lmark *mk,
    const struct cols *c)
{
	struct lm_row r;
	char b[64];
	int x, st = mk->warn ? CS_WARN : CS_DIM;

	memset(&r, 0, sizeof r);
	r.own = r.eff = mk->t;
	time_str(&r, c->wide, b, sizeof b);
	canvas_puts(a->cv, row, 0, st, b);
	x = canvas_glyph(a->cv, row, c->tw + 1, st, GL_HLINE, 2);
	canvas_put_clip(a->cv, row, x + 1, a->w, st, mk->text,
	    strlen(mk->text));
}

/* The first mark after time t. */
static size_t
mark_after(const struct logwin *w, double t)
{
	size_t lo = 0, hi = w->nmarks, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (w->marks[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Read row r's text into w->text (or why not); fill *sh. */
static void
shown_of(struct logwin *w, const struct lm_row *r, struct shown *sh)
{
	char *why = NULL;

	memset(sh, 0, sizeof *sh);
	sh->r = r;
	sh->known = viewlog_tag(w->vl, r, &sh->stage, &sh->iter);
	if (lm_text(viewlog_merge(w->vl), r, &w->text, &why) != 0) {
		buf_reset(&w->text);
		buf_addf(&w->text, "(%s)", why);
		free(why);
		sh->err = 1;
	}
	sh->text = w->text.s != NULL ? w->text.s : "";
	sh->len = w->text.len;
}

/* The search's pattern for the rows near, compiled once. */
static struct grep *
near_pattern(struct view *v, struct logwin *w)
{
	char *why = NULL;
	size_t off;

	if (v->search == NULL)
		return NULL;
	if (w->gpat != NULL && strcmp(w->gpat, v->search) == 0)
		return w->g;
	grep_free(w->g);
	free(w->gpat);
	w->g = NULL;
	w->gpat = xstrdup(v->search);
	if (grep_compile_flags(v->search, GREP_CASELESS, &w->g, &off,
	    &why) != 0)
		free(why);
	return w->g;
}

/* The first row: how many lines of how many files, over what time. */
static void
log_title(struct logwin *w, struct area *a, int row)
{
	struct logmerge *m = viewlog_merge(w->vl);
	double first, last;
	char b1[48], b2[48];

	lm_span(m, &first, &last);
	draw_clock(first, b1, sizeof b1);
	draw_clock(last, b2, sizeof b2);
	canvas_printf(a->cv, row, 0, CS_BOLD, "%llu line%s of %zu file%s in "
	    "time order, %s to %s", (unsigned long long)lm_total(m),
	    lm_total(m) == 1 ? "" : "s", lm_nfiles(m), lm_nfiles(m) == 1 ?
	    "" : "s", b1, b2);
}

/* The rows from the top of the page down, and the marks between them. */
static void
draw_rows(struct view *v, struct logwin *w, struct area *a, int *used,
    int stop, const struct cols *c)
{
	struct grep *g = near_pattern(v, w);
	size_t i, k;
	double prev;
	struct shown sh;
	int row, x;

	for (i = (size_t)v->st.top[PANE_LOG]; i < w->n && *used < stop; i++) {
		/* before the first line: only when nothing is filtered out */
		prev = i > 0 ? w->row[i - 1].r.eff : w->at_first &&
		    v->st.nfilters == 0 ? -INFINITY : w->row[i].r.eff;
		for (k = mark_after(w, prev); k < w->nmarks && *used + 1 < stop &&
		    w->marks[k].t <= w->row[i].r.eff; k++)
			draw_mark(a, draw_row(a, used), &w->marks[k], c);
		if (*used >= stop || (row = draw_row(a, used)) < 0)
			break;
		v->page++;
		shown_of(w, &w->row[i].r, &sh);
		x = draw_line(v, a, row, &sh, c);
		draw_map(a, row, (long)i);
		if ((int)i == v->st.cursor[PANE_LOG])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
		if (g != NULL && !sh.err && grep_match(g, sh.text, sh.len))
			canvas_add_attr(a->cv, row, x, -1, CA_MATCH);
	}
	if (i == w->n && !w->at_last && *used < stop &&
	    (row = draw_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, "... (the filters hide the "
		    "lines read so far: move on to read more)");
	/* a page that ends early still holds as many: the top can go up */
	if (i == w->n && *used < stop)
		v->page += stop - *used;
}

/* The cursor's line whole: PATH:LINE, its time, node, rank and tags. */
static void
log_detail(struct view *v, struct logwin *w, struct area *a, int *used)
{
	const struct lm_row *r;
	struct shown sh;
	struct buf b = BUF_INIT;
	char t[48], *pos;
	int row, x;

	if ((size_t)v->st.cursor[PANE_LOG] >= w->n ||
	    (row = draw_row(a, used)) < 0)
		return;
	canvas_glyph(a->cv, row, 0, CS_DIM, GL_HLINE, a->w);
	if ((row = draw_row(a, used)) < 0)
		return;
	r = &w->row[v->st.cursor[PANE_LOG]].r;
	pos = lm_pos(viewlog_merge(w->vl), r);
	x = canvas_put_clip(a->cv, row, 0, a->w, CS_BOLD, pos, strlen(pos));
	free(pos);
	shown_of(w, r, &sh);
	lineout_time(isnan(r->own) ? r->eff : r->own, t, sizeof t);
	buf_addf(&b, "  %s%s  %s", isnan(r->own) ? "~" : "", t,
	    r->node[0] != '\0' ? r->node : "no node");
	if (r->rank >= 0)
		buf_addf(&b, " rank %d", r->rank);
	if (!sh.known)
		buf_adds(&b, "  ?");
	else if (sh.stage > STAGE_NONE && sh.stage < STAGE_COUNT)
		buf_addf(&b, "  %s", stage_name((enum stage)sh.stage));
	else
		buf_adds(&b, "  no stage");
	if (sh.known && sh.iter >= 0)
		buf_addf(&b, ", iteration %ld", sh.iter);
	if (x < a->w)
		canvas_put_clip(a->cv, row, x, a->w, CS_NORMAL, b.s, b.len);
	buf_release(&b);
	draw_wrap(a, used, 0, sh.err ? CS_ERROR : CS_NORMAL, NULL, sh.text,
	    sh.len, DETAIL - 2);
}

/* The columns of the rows of the page. */
static void
page_cols(struct view *v, struct logwin *w, const struct area *a, int room,
    struct cols *c)
{
	size_t i, end = (size_t)v->st.top[PANE_LOG] + (size_t)room;
	int known, stage;
	long iter;

	cols_init(c, a->w);
	for (i = (size_t)v->st.top[PANE_LOG]; i < w->n && i < end; i++) {
		known = viewlog_tag(w->vl, &w->row[i].r, &stage, &iter);
		cols_fit(a->cv, c, &w->row[i].r, known, stage, iter);
	}
	cols_cap(c, a->w);
}

/* ---- export: every row the filters keep ---- */

struct exp {
	struct view *v;
	struct logwin *w;
	struct area *a;
	int *used;
	struct cols c;
	size_t mark;		/* the next mark to draw */
	struct json *j;		/* data: JSON, or */
	FILE *tsv;		/* TSV; neither: the text */
	uint64_t n;
};

/* A row of the export, after the marks before it. */
static int
exp_row(void *arg, const struct grep_hit *hit, char **cause)
{
	struct exp *e = arg;
	struct logwin *w = e->w;
	struct shown sh;
	int row;

	shown_of(w, hit->row, &sh);
	sh.known = 1;
	sh.stage = hit->stage;
	sh.iter = hit->iter;
	e->n++;
	if (e->j != NULL || e->tsv != NULL) {
		if (e->j != NULL)
			lineout_json(e->j, hit->row, sh.stage, sh.iter, sh.text,
			    sh.len);
		else
			lineout_tsv(e->tsv, hit->row, sh.stage, sh.iter,
			    sh.text, sh.len);
		return 0;
	}
	if (e->n == 1 && e->v->st.nfilters > 0)	/* none before the first */
		e->mark = mark_after(w, hit->row->eff);
	for (; e->mark < w->nmarks && w->marks[e->mark].t <= hit->row->eff;
	    e->mark++)
		draw_mark(e->a, draw_row(e->a, e->used), &w->marks[e->mark],
		    &e->c);
	row = draw_row(e->a, e->used);
	draw_line(e->v, e->a, row, &sh, &e->c);
	if (e->n % 256 == 0 && e->a->out != NULL &&
	    draw_flush(e->a, e->used) != 0)
		return ts_fail(cause, "cannot write");
	return 0;
}

/* Every row the filters keep, in order, with their tags, to e. */
static int
export_rows(struct view *v, struct logwin *w, struct exp *e, char **cause)
{
	struct logmerge *m = viewlog_merge(w->vl);
	struct grep *g;
	size_t off, i;
	int rc;

	if (grep_compile("^", &g, &off, cause) != 0)
		return -1;
	if (e->a != NULL) {
		/* the columns fit every file's node and rank */
		cols_init(&e->c, e->a->w);
		for (i = 0; i < lm_nfiles(m); i++) {
			struct lm_row r;

			memset(&r, 0, sizeof r);
			r.node = lm_file(m, i)->node;
			r.rank = lm_file(m, i)->rank;
			cols_fit(e->a->cv, &e->c, &r, 1, STAGE_CKPT_SAVE, 99999);
		}
		cols_cap(&e->c, e->a->w);
	}
	rc = rawf_each(viewlog_filter(w->vl, v), g, m, viewlog_tagger(w->vl),
	    1, NULL, exp_row, e, cause);
	grep_free(g);
	return rc;
}

static void
log_export(struct view *v, struct logwin *w, struct area *a, int *used)
{
	struct exp e;
	char *why = NULL;
	int row;

	memset(&e, 0, sizeof e);
	e.v = v;
	e.w = w;
	e.a = a;
	e.used = used;
	if (export_rows(v, w, &e, &why) != 0) {
		row = draw_row(a, used);
		canvas_put_clip(a->cv, row, 0, a->w, CS_ERROR, why, strlen(why));
		free(why);
	}
	for (; v->st.nfilters == 0 && e.mark < w->nmarks; e.mark++)
		draw_mark(a, draw_row(a, used), &w->marks[e.mark], &e.c);
}

static int
log_data(struct view *v, struct json *j, FILE *out, int tsv, char **cause)
{
	struct logwin *w = ready(v);
	struct exp e;
	int rc;

	if (w->error != NULL)
		return ts_fail(cause, "%s", w->error);
	memset(&e, 0, sizeof e);
	e.v = v;
	e.w = w;
	if (tsv) {
		lineout_tsv_head(out);
		e.tsv = out;
		return export_rows(v, w, &e, cause);
	}
	e.j = j;
	json_obj_begin(j);
	json_key(j, "schema");
	json_int(j, JSON_SCHEMA);
	json_key(j, "job");
	json_str(j, lm_job(viewlog_merge(w->vl)));
	json_key(j, "mode");
	json_str(j, "log");
	json_key(j, "lines");
	json_arr_begin(j);
	rc = export_rows(v, w, &e, cause);
	json_arr_end(j);
	json_key(j, "count");
	json_int(j, (int64_t)e.n);
	json_obj_end(j);
	return rc;
}

/* ---- the pane ---- */

static void
log_draw(struct view *v, struct area *a, int *used)
{
	struct logwin *w = ready(v);
	int row = draw_row(a, used), room, detail, stop;
	long cur = v->st.cursor[PANE_LOG];
	char *why = NULL;
	struct cols c;

	v->page = 0;
	v->hwide = 0;
	v->hwide_pane = PANE_LOG + 1;
	if (w->error != NULL) {
		canvas_put_clip(a->cv, row, 0, a->w, CS_ERROR, w->error,
		    strlen(w->error));
		return;
	}
	log_title(w, a, row);
	if (a->nrows < 0) {
		log_export(v, w, a, used);
		return;
	}
	if (w->n == 0) {
		row = draw_row(a, used);
		canvas_puts(a->cv, row, 0, CS_DIM, w->at_first && w->at_last ?
		    "the filters hide every line" : "the filters hide the lines "
		    "read so far");
		return;
	}
	detail = a->nrows >= 14 ? DETAIL : 0;
	room = a->nrows - *used - detail;
	if (ensure(v, w, &cur, (size_t)room + 1, (size_t)room + 1, &why) != 0)
		free(why);
	if (v->st.top[PANE_LOG] >= (int)w->n)
		v->st.top[PANE_LOG] = (int)w->n - 1;
	page_cols(v, w, a, room, &c);
	stop = a->nrows - detail;
	draw_rows(v, w, a, used, stop, &c);
	viewlog_ask_tags(w->vl);
	if (detail > 0) {
		while (*used < stop)
			draw_row(a, used);
		log_detail(v, w, a, used);
	}
}

static void
log_status(struct view *v, char *buf, size_t len)
{
	struct logwin *w = ready(v);
	const struct lm_row *r = NULL;
	const struct rawf *rf;
	uint64_t total, kept;
	size_t k;

	if (w->error != NULL || w->vl == NULL) {
		snprintf(buf, len, "log");
		return;
	}
	total = lm_total(viewlog_merge(w->vl));
	if ((size_t)v->st.cursor[PANE_LOG] < w->n) {
		r = &w->row[v->st.cursor[PANE_LOG]].r;
		snprintf(buf, len, "log %llu/%llu", (unsigned long long)
		    w->row[v->st.cursor[PANE_LOG]].idx + 1,
		    (unsigned long long)total);
	} else
		snprintf(buf, len, "log 0/%llu", (unsigned long long)total);
	k = strlen(buf);
	rf = viewlog_filter(w->vl, v);
	if (viewlog_filter_error(w->vl) != NULL && k < len)
		snprintf(buf + k, len - k, "  %s (the lines are not filtered)",
		    viewlog_filter_error(w->vl));
	else if (rawf_any(rf) && k < len) {
		switch (viewlog_kept(w->vl, v, &kept)) {
		case VLS_READY:
			snprintf(buf + k, len - k, "  %llu hidden",
			    (unsigned long long)(total - kept));
			break;
		case VLS_RUNNING:
			snprintf(buf + k, len - k, "  counting hidden");
			break;
		default:
			break;
		}
	}
	viewlog_search_status(w->vl, v, r, buf, len);
}

/* The window's row of match h, or -1: a binary search by key. */
static long
row_of(const struct logwin *w, const struct viewbg_hit *h)
{
	size_t lo = 0, hi = w->n, mid;
	const struct lm_row *r;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		r = &w->row[mid].r;
		if (r->eff < h->eff || (r->eff == h->eff && (r->file < h->file ||
		    (r->file == h->file && r->line < h->line))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->n && w->row[lo].r.file == h->file &&
	    w->row[lo].r.line == h->line ? (long)lo : -1;
}

/* Put the cursor on match i of the search (the window moves there). */
static int
go_hit(struct view *v, struct logwin *w, long i, size_t *row)
{
	const struct viewbg_hit *hits;
	struct lm_row r;
	uint64_t all;
	size_t n;
	long at;

	hits = viewlog_hits(w->vl, &n, &all, NULL);
	if ((at = row_of(w, &hits[i])) < 0) {
		memset(&r, 0, sizeof r);
		r.file = hits[i].file;
		r.line = hits[i].line;
		free(v->st.lg_pos);
		v->st.lg_pos = lm_pos(viewlog_merge(w->vl), &r);
		w->valid = 0;
		w = ready(v);
		if (w->error != NULL || w->n == 0)
			return FIND_NONE;
		at = v->st.cursor[PANE_LOG];
	}
	v->st.cursor[PANE_LOG] = (int)at;
	sync_pos(v, w);
	*row = (size_t)at;
	return FIND_FOUND;
}

/* A match among the rows near the cursor, read now: 1 with *row, or 0. */
static int
near(struct view *v, struct logwin *w, int dir, size_t *row)
{
	struct grep *g = near_pattern(v, w);
	long cur = v->st.cursor[PANE_LOG], i = cur + (dir > 0) - (dir < 0);
	struct shown sh;
	char *why = NULL;
	int k;

	for (k = 0; g != NULL && k < NEAR; k++, i += dir < 0 ? -1 : 1) {
		if (dir >= 0 && i >= (long)w->n && (w->at_last ||
		    grow_down(v, w, 64, &why) <= 0))
			break;
		if (i < 0 || i >= (long)w->n)
			break;
		shown_of(w, &w->row[i].r, &sh);
		if (!sh.err && grep_match(g, sh.text, sh.len)) {
			v->st.cursor[PANE_LOG] = (int)i;
			sync_pos(v, w);
			*row = (size_t)i;
			return 1;
		}
	}
	free(why);
	return 0;
}

static int
log_find(struct view *v, void *re, int dir, size_t *row)
{
	struct logwin *w = ready(v);
	long i;

	(void)re;
	if (w->error != NULL || w->n == 0 || v->search == NULL)
		return FIND_NONE;
	switch (viewlog_search(w->vl, v, v->search)) {
	case VLS_READY:
		i = viewlog_hit_next(w->vl, &w->row[v->st.cursor[PANE_LOG]].r,
		    dir);
		return i < 0 ? FIND_NONE : go_hit(v, w, i, row);
	case VLS_RUNNING:
		return near(v, w, dir, row) ? FIND_FOUND : FIND_LATER;
	default:
		return FIND_NONE;
	}
}

const struct pane_ops pane_log = {
	.name = "log",
	.flags = PF_JOB | PF_HSCROLL | PF_RAW | PF_MERGED,
	.nrows = log_nrows,
	.draw = log_draw,
	.target = log_target,
	.find = log_find,
	.data = log_data,
	.move = log_move,
	.key = log_key,
	.status = log_status,
	.release = log_release
};
