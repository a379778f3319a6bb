/*
 * pane-heatmap.c -- the heatmap: nodes x iterations (or time).
 *
 * A row per node, suspects first; when the nodes do not fit the screen
 * the others fold into groups of neighbours (rows.c), and a drill on a
 * group unfolds it.  A column is one or more iterations (or seconds when
 * the logs carry no iterations); a cell shows the strongest mark of its
 * node there, a '!' where a rank of it stopped (the cause of the
 * timeouts around it, drawn over the rest), an X where the node's log
 * ended before its peers', and a dot while the node was alive and quiet.
 * On a run longer than the model keeps iteration by iteration, the
 * model's marks are buckets of 2^k iterations (model.iter_width): a
 * column is then a whole number of buckets, and the header says so.
 *
 * A column cursor (the `column` command) picks a cell of the cursor's
 * row: it is kept as the iteration (or second) it holds, not as a
 * column's index, so however a resize, a filter or a newer model cut
 * the columns it stands on the column that holds it.  Over the axis it
 * is a '|', or on the failure's column brackets around the failure's
 * 'v'.  A drill on a cell filters the node's lines to the column's
 * iterations (view.c).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "base/json.h"
#include "diag/model.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

/* The heatmap's columns: iterations (or seconds) per column. */
struct hcols {
	int n;			/* columns */
	double from, step;	/* column c covers [from + c*step, +step) */
	int by_time;
	int cw;			/* cells a column takes on screen (1 to 3) */
	long last;		/* the job's last iteration */
};

/*
 * Columns over iterations [lo, hi] when the marks are buckets: each a
 * whole number of them, from the first bucket's first iteration.
 */
static void
hm_cols_buckets(const struct model *m, int room, long lo, long hi,
    struct hcols *c)
{
	double w = (double)m->iter_width, nb;

	lo = model_bucket(m, lo);
	hi = model_bucket(m, hi);
	nb = (double)(hi - lo) / w + 1;
	c->from = (double)lo;
	c->step = w * ceil(nb / room);
	c->n = (int)ceil(nb * w / c->step);
	c->cw = c->n > 0 ? room / c->n : 1;
	c->cw = c->cw < 1 ? 1 : c->cw > 3 ? 3 : c->cw;
}

static void
hm_cols(const struct view *v, int room, struct hcols *c)
{
	const struct model *m = v->m;
	long a, b, lo, hi;
	double span;

	memset(c, 0, sizeof *c);
	c->cw = 1;
	if (room < 1)
		room = 1;
	c->by_time = m->by_time;
	if (m->by_time) {
		span = m->last_ts - m->first_ts;
		if (!isfinite(m->first_ts) || !isfinite(m->last_ts) ||
		    !isfinite(span) || span < 0)
			return;
		c->from = m->first_ts;
		c->step = span <= 0 ? 1 : ceil(span / room);
		c->n = (int)ceil((span + 1) / c->step);
		if (c->n > room)
			c->n = room;
		return;
	}
	/* (in [0, 2^53]: no sum below overflows) */
	if (!rows_iter_span(m, &lo, &hi))
		return;
	c->last = hi;
	if (rows_iter_range(v, &a, &b)) {
		lo = a > lo ? a : lo;
		hi = b < hi ? b : hi;
	}
	/* one column past the end: a log that ends early shows there */
	hi++;
	if (hi < lo)
		return;
	if (m->iter_width > 1) {
		hm_cols_buckets(m, room, lo, hi, c);
		return;
	}
	c->from = (double)lo;
	c->step = ceil((double)(hi - lo + 1) / room);
	c->n = (int)ceil((double)(hi - lo + 1) / c->step);
	/* few iterations on a wide screen: wider cells */
	c->cw = c->n > 0 ? room / c->n : 1;
	c->cw = c->cw < 1 ? 1 : c->cw > 3 ? 3 : c->cw;
}

/* The column the column cursor stands on, -1 none. */
static int
hm_cur(const struct view *v, const struct hcols *c)
{
	double k;

	if (c->n == 0 || c->step <= 0 || !isfinite(v->st.hm_at) ||
	    v->st.hm_col != (c->by_time ? HM_COL_TIME : HM_COL_ITER))
		return -1;
	k = floor((v->st.hm_at - c->from) / c->step);
	return k < 0 ? 0 : k >= c->n ? c->n - 1 : (int)k;
}

/* The iterations [*a, *b] (or seconds [*a, *b)) of column i. */
static void
hm_span(const struct hcols *c, int i, double *a, double *b)
{
	*a = c->from + i * c->step;
	*b = c->by_time ? *a + c->step : *a + c->step - 1;
}

/* The strongest mark of node n in [a, b); 0 and *alive. */
static const struct model_mark *
hm_cell(const struct model *m, size_t n, double a, double b, int *flags,
    int *level)
{
	size_t lo = 0, hi = m->nmarks;
	const struct model_mark *best = NULL;

	*flags = 0;
	*level = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->marks[mid].node < n || (m->marks[mid].node == n &&
		    m->marks[mid].at < a))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->nmarks && m->marks[lo].node == n && m->marks[lo].at < b;
	    lo++) {
		*flags |= m->marks[lo].flags;
		if (m->marks[lo].level > *level) {
			*level = m->marks[lo].level;
			best = &m->marks[lo];
		}
	}
	return best;
}

static int
hm_alive(const struct model *m, size_t n, const struct hcols *c, double a)
{
	const struct model_node *nd = &m->nodes[n];

	if (nd->missing)
		return 0;
	if (c->by_time)
		return isnan(nd->last_ts) || a <= nd->last_ts;
	return nd->last_iter < 0 ? a <= (double)c->last :
	    a <= (double)nd->last_iter + 0.5;
}

/*
 * Sub-cell `sub` of a cell: where a rank stopped, a '!' on its first,
 * over what the cell shows (on the rest of a wide cell); an X where the
 * log ended; else the strongest mark's level, or a dot while alive.
 */
static void
hm_draw_cell(struct canvas *cv, int row, int col, int sub, int level,
    int flags, int alive)
{
	enum canvas_glyph g;

	if ((flags & MODEL_MARK_STOP) && sub == 0) {
		canvas_puts(cv, row, col, CS_ERROR, "!");
		return;
	}
	if (flags & MODEL_MARK_END) {
		canvas_puts(cv, row, col, CS_ERROR, "X");
		return;
	}
	if (level == 0) {
		canvas_puts(cv, row, col, CS_DIM, alive ? (cv->ascii ? "." :
		    "\u00b7") : " ");
		return;
	}
	g = level >= 7 ? GL_BLOCK : level >= 5 ? GL_SHADE_DARK :
	    level >= 3 ? GL_SHADE_MEDIUM : GL_SHADE_LIGHT;
	canvas_glyph(cv, row, col, CS_HEAT0 + level, g, 1);
}

/* The column of the failure's iteration, -1 none. */
static int
hm_fail_col(const struct model *m, const struct hcols *c)
{
	double f = (double)m->failure_iter;

	if (c->by_time || !rows_iter_ok(m->failure_iter) || f < c->from ||
	    f >= c->from + c->n * c->step)
		return -1;
	return (int)((f - c->from) / c->step);
}

static void
hm_axis(const struct view *v, struct canvas *cv, int row, int x0,
    const struct hcols *c)
{
	int col = 0, w, fail, x;
	char buf[32];

	/* a label every 10 screen cells, on the column it names */
	while (col < c->n) {
		double at = c->from + col * c->step;

		if (c->by_time)
			draw_clock(at, buf, sizeof buf);
		else
			snprintf(buf, sizeof buf, "%ld", (long)at);
		w = (int)strlen(buf);
		if (col * c->cw + w > c->n * c->cw)
			break;
		canvas_puts(cv, row, x0 + col * c->cw, CS_DIM, buf);
		col += ((w + 2 > 10 ? w + 2 : 10) + c->cw - 1) / c->cw;
	}
	fail = hm_fail_col(v->m, c);
	if (fail >= 0)
		canvas_puts(cv, row + 1, x0 + fail * c->cw, CS_ERROR, "v");
	/*
	 * the column cursor, over the axis: a '|', or on the failure's
	 * column brackets around its 'v', which stays
	 */
	if ((col = hm_cur(v, c)) < 0)
		return;
	x = x0 + col * c->cw;
	if (col == fail) {
		canvas_puts(cv, row + 1, x - 1, CS_BOLD, "[");
		canvas_puts(cv, row + 1, x + 1, CS_BOLD, "]");
	} else
		canvas_puts(cv, row + 1, x, CS_BOLD, "|");
	canvas_add_attr(cv, row + 1, x, x + 1, CA_SELECTED);
}

/* The widest node name, 4 to 16 columns. */
static int
label_width(const struct model *m, const struct canvas *cv)
{
	int label = 4, l;
	size_t k;

	for (k = 0; k < m->nreal; k++) {
		l = canvas_drawn_width(cv, m->nodes[k].name,
		    strlen(m->nodes[k].name));
		if (l > label)
			label = l;
	}
	return label > 16 ? 16 : label;
}

/* Where the cells start, for node labels of `label` columns. */
static int
hm_x0(int label)
{
	return 5 + label + 1;
}

/* The columns as a screen of the view's width cuts them. */
static void
hm_layout(struct view *v, struct hcols *c)
{
	struct canvas cv;
	int w = v->width < 20 ? 20 : v->width, x0;

	canvas_init(&cv, w, v->ascii);
	x0 = hm_x0(label_width(v->m, &cv));
	canvas_release(&cv);
	hm_cols(v, w - x0 - 1, c);
}

/* The column titles, the axis and the failure's mark: three rows. */
static void
heatmap_titles(struct view *v, struct area *a, int *used, int x0,
    const struct hcols *c)
{
	int row = draw_row(a, used);
	long w = c->by_time ? 1 : v->m->iter_width;

	canvas_puts(a->cv, row, 0, CS_BOLD, "susp");
	canvas_puts(a->cv, row, 5, CS_BOLD, "node");
	canvas_printf(a->cv, row, x0, CS_BOLD, "%s%s",
	    c->by_time ? "time" : "iteration",
	    c->step > 1 ? (c->by_time ? " (s per column: " : " (per column: ")
	    : "");
	if (c->step > 1 && w > 1)
		canvas_printf(a->cv, row, x0 + 9 + 16, CS_BOLD, "%.0f, kept "
		    "in buckets of %ld)", c->step, w);
	else if (c->step > 1)
		canvas_printf(a->cv, row, x0 + (c->by_time ? 4 : 9) + 16,
		    CS_BOLD, "%.0f)", c->step);
	row = draw_row(a, used);
	draw_row(a, used);
	hm_axis(v, a->cv, row, x0, c);
	if (c->n == 0)
		canvas_puts(a->cv, row + 1, x0, CS_DIM, v->m->by_time ?
		    "the logs carry no times" : "no iterations");
}

/* A row's name and score; 0, or -1 when its node has no log at all. */
static int
heatmap_label(struct view *v, struct area *a, int row, int label, int x0,
    const struct row *hr, const size_t *members)
{
	const struct model *m = v->m;
	const struct model_node *nd;
	double score;
	char buf[64];

	if (hr->n > 0) {
		snprintf(buf, sizeof buf, "%s", m->nodes[members[hr->item]].name);
		canvas_printf(a->cv, row, 0, CS_DIM, "%3zu+", hr->n);
		canvas_put_clip(a->cv, row, 5, 5 + label, CS_DIM, buf,
		    strlen(buf));
		return 0;
	}
	nd = &m->nodes[hr->item];
	score = rows_score(nd->score);
	if (v->search_re != NULL && view_regex_find(v->search_re, nd->name,
	    strlen(nd->name), NULL, NULL))
		canvas_add_attr(a->cv, row, 5, 5 + label, CA_MATCH);
	if (score > 0)
		canvas_printf(a->cv, row, 0, score >= 0.5 ? CS_ERROR :
		    CS_NORMAL, "%.2f", score);
	canvas_put_clip(a->cv, row, 5, 5 + label, rows_suspect(m, hr->item) ?
	    CS_BOLD : CS_NORMAL, nd->name, strlen(nd->name));
	if (!nd->missing)
		return 0;
	canvas_puts(a->cv, row, x0, CS_ERROR, "no log at all");
	return -1;
}

/* A row's cells: the strongest mark of its nodes in each column. */
static void
heatmap_cells(const struct model *m, struct canvas *cv, int row, int x0,
    const struct hcols *c, const struct row *hr, const size_t *members)
{
	size_t k, n, count = hr->n > 0 ? hr->n : 1;
	int i;

	for (i = 0; i < c->n; i++) {
		double lo = c->from + i * c->step, hi = lo + c->step;
		int fl = 0, lv = 0, alive = 0, f, l;

		for (k = 0; k < count; k++) {
			n = hr->n > 0 ? members[hr->item + k] : hr->item;
			hm_cell(m, n, lo, hi, &f, &l);
			fl |= f;
			lv = l > lv ? l : lv;
			alive |= hm_alive(m, n, c, lo);
		}
		for (k = 0; k < (size_t)c->cw; k++)
			hm_draw_cell(cv, row, x0 + i * c->cw + (int)k, (int)k,
			    lv, fl, alive);
	}
}

/* The strongest mark of row hr's nodes in column i; their flags. */
static const struct model_mark *
hm_row_cell(const struct model *m, const struct hcols *c, int i,
    const struct row *hr, const size_t *members, int *flags)
{
	const struct model_mark *best = NULL, *b;
	size_t k, count = hr->n > 0 ? hr->n : 1;
	double lo = c->from + i * c->step;
	int f, l, lv = 0;

	*flags = 0;
	for (k = 0; k < count; k++) {
		b = hm_cell(m, hr->n > 0 ? members[hr->item + k] : hr->item,
		    lo, lo + c->step, &f, &l);
		*flags |= f;
		if (b != NULL && l > lv) {
			lv = l;
			best = b;
		}
	}
	return best;
}

/*
 * The cell under the cursors, as the status line says it: the node
 * (or the fold's count), the column's iterations or times, and what
 * it holds: a rank that stops, the log's end, its strongest event.
 */
static void
hm_cell_text(struct view *v, const struct hcols *c, int col, char *buf,
    size_t len)
{
	const struct rows *h = rows_get(v);
	const struct row *hr = &h->row[v->st.cursor[PANE_HEATMAP]];
	const struct model *m = v->m;
	const struct model_mark *b;
	char t0[16], t1[16];
	double a, z;
	size_t o;
	int fl;

	hm_span(c, col, &a, &z);
	if (hr->n > 0)
		o = (size_t)snprintf(buf, len, "%zu nodes", hr->n);
	else
		o = (size_t)snprintf(buf, len, "%s", m->nodes[hr->item].name);
	if (o >= len)
		return;
	if (c->by_time) {
		draw_clock(a, t0, sizeof t0);
		draw_clock(z - 1, t1, sizeof t1);
		if (strcmp(t0, t1) == 0)	/* a second a column */
			o += (size_t)snprintf(buf + o, len - o, " %s", t0);
		else
			o += (size_t)snprintf(buf + o, len - o, " %s-%s", t0,
			    t1);
	} else if (z > a)
		o += (size_t)snprintf(buf + o, len - o, " iter %.0f-%.0f", a,
		    z);
	else
		o += (size_t)snprintf(buf + o, len - o, " iter %.0f", a);
	b = hm_row_cell(m, c, col, hr, h->members, &fl);
	if (o < len && (fl & MODEL_MARK_STOP))
		o += (size_t)snprintf(buf + o, len - o, ": a rank stops");
	else if (o < len && (fl & MODEL_MARK_END))
		o += (size_t)snprintf(buf + o, len - o, ": log ends");
	if (o < len && b != NULL && b->event < m->nevents)
		snprintf(buf + o, len - o, "%s %s", (fl & (MODEL_MARK_STOP |
		    MODEL_MARK_END)) ? "," : ":", m->events[b->event].text);
}

static int
heatmap_cell(struct view *v, char *buf, size_t len)
{
	int n = view_nrows(v), col;
	struct hcols c;

	if (v->st.hm_col == HM_COL_NONE || v->st.cursor[PANE_HEATMAP] < 0 ||
	    v->st.cursor[PANE_HEATMAP] >= n || len == 0)
		return 0;
	hm_layout(v, &c);
	if ((col = hm_cur(v, &c)) < 0)
		return 0;
	hm_cell_text(v, &c, col, buf, len);
	return 1;
}

/*
 * The status line: the row, and the cell under the column cursor when
 * one is chosen; the search.
 */
static void
heatmap_status(struct view *v, char *buf, size_t len)
{
	int n = view_nrows(v);
	size_t o;

	o = (size_t)snprintf(buf, len, "heatmap %d/%d", n == 0 ? 0 :
	    v->st.cursor[PANE_HEATMAP] + 1, n);
	if (o + 2 < len && heatmap_cell(v, buf + o + 2, len - o - 2)) {
		memcpy(buf + o, "  ", 2);
		o = strlen(buf);
	}
	if (v->search != NULL && o < len)
		snprintf(buf + o, len - o, "  /%.40s", v->search);
}

/* Whether a rank of the model stopped where a mark says so. */
static int
hm_any_stop(const struct model *m)
{
	size_t i;

	for (i = 0; i < m->nmarks; i++)
		if (m->marks[i].flags & MODEL_MARK_STOP)
			return 1;
	return 0;
}

static void
heatmap_legend(const struct model *m, struct canvas *cv, int row)
{
	int x = 0;

	x = canvas_glyph(cv, row, x, CS_HEAT0 + 2, GL_SHADE_LIGHT, 1);
	x = canvas_glyph(cv, row, x, CS_HEAT0 + 4, GL_SHADE_MEDIUM, 1);
	x = canvas_glyph(cv, row, x, CS_HEAT0 + 6, GL_SHADE_DARK, 1);
	x = canvas_glyph(cv, row, x, CS_HEAT0 + 7, GL_BLOCK, 1);
	x = canvas_puts(cv, row, x + 1, CS_DIM, "suspicion  ");
	if (hm_any_stop(m)) {
		x = canvas_puts(cv, row, x, CS_ERROR, "!");
		x = canvas_puts(cv, row, x + 1, CS_DIM, "rank stops  ");
	}
	x = canvas_puts(cv, row, x, CS_ERROR, "X");
	x = canvas_puts(cv, row, x + 1, CS_DIM, "log ends  ");
	x = canvas_puts(cv, row, x, CS_DIM, cv->ascii ? "." : "\u00b7");
	x = canvas_puts(cv, row, x + 1, CS_DIM, "quiet  ");
	if (!m->by_time && rows_iter_ok(m->failure_iter)) {
		x = canvas_puts(cv, row, x, CS_ERROR, "v");
		canvas_puts(cv, row, x + 1, CS_DIM, "failure");
	}
}

static void
heatmap_draw(struct view *v, struct area *a, int *used)
{
	const struct rows *h = rows_get(v);
	int label = label_width(v->m, a->cv), x0 = hm_x0(label), row, col;
	struct hcols c;
	size_t r;

	hm_cols(v, a->w - x0 - 1, &c);
	col = hm_cur(v, &c);
	heatmap_titles(v, a, used, x0, &c);
	v->page = 0;
	for (r = (size_t)v->st.top[PANE_HEATMAP]; r < h->n; r++) {
		if (a->nrows >= 0 && *used >= a->nrows - 1)
			break;
		row = draw_row(a, used);
		v->page++;
		draw_map(a, row, (long)r);
		if ((int)r == v->st.cursor[PANE_HEATMAP])
			canvas_add_attr(a->cv, row, 0, x0 - 1, CA_SELECTED);
		if (heatmap_label(v, a, row, label, x0, &h->row[r],
		    h->members) == 0)
			heatmap_cells(v->m, a->cv, row, x0, &c, &h->row[r],
			    h->members);
		/* the cell under both cursors */
		if ((int)r == v->st.cursor[PANE_HEATMAP] && col >= 0)
			canvas_add_attr(a->cv, row, x0 + col * c.cw, x0 +
			    (col + 1) * c.cw, CA_SELECTED);
	}
	if ((row = draw_row(a, used)) >= 0)
		heatmap_legend(v->m, a->cv, row);
}

/* When the first iteration of [a, b] began, NAN unknown. */
static double
hm_start(const struct model *m, double a, double b)
{
	double t = NAN;
	size_t i;

	for (i = 0; i < m->niters; i++)
		if ((double)m->iters[i].iteration >= a &&
		    (double)m->iters[i].iteration <= b &&
		    isfinite(m->iters[i].start) &&
		    (isnan(t) || m->iters[i].start < t))
			t = m->iters[i].start;
	return t;
}

static int
heatmap_target(struct view *v, size_t r, struct view_target *t)
{
	const struct row *hr = &rows_get(v)->row[r];
	struct hcols c;
	int col;

	if (hr->n > 0) {
		t->kind = VT_GROUP;
		t->node = (long)hr->item;	/* its first node's place */
		t->iter = (long)hr->n;
		return 0;
	}
	t->kind = VT_NODE;
	t->node = (long)hr->item;
	if (v->st.hm_col == HM_COL_NONE || v->m->nodes[hr->item].missing)
		return 0;
	hm_layout(v, &c);
	if ((col = hm_cur(v, &c)) < 0)
		return 0;
	t->kind = VT_CELL;
	t->by_time = c.by_time;
	hm_span(&c, col, &t->from, &t->to);
	t->start = c.by_time ? t->from : hm_start(v->m, t->from, t->to);
	return 0;
}

/* Column i's first iteration or second: N, or a time of day. */
static int
hm_parse_at(const struct model *m, const char *s, double *at)
{
	int h, mi, sec;
	char x;
	double day;
	long n;

	if (m->by_time && sscanf(s, "%d:%d:%d%c", &h, &mi, &sec, &x) == 3 &&
	    h >= 0 && h < 24 && mi >= 0 && mi < 60 && sec >= 0 && sec <= 60) {
		/* that time on the day the logs begin (or the next) */
		day = m->first_ts - fmod(m->first_ts, 86400.0);
		*at = day + h * 3600 + mi * 60 + sec;
		if (*at < m->first_ts - 1)
			*at += 86400.0;
		return 0;
	}
	if (m->by_time) {
		char *end;

		*at = strtod(s, &end);
		return end != s && *end == '\0' && isfinite(*at) ? 0 : -1;
	}
	if (ts_parse_long(s, &n) != 0)
		return -1;
	*at = (double)n;
	return 0;
}

/* The column cursor onto the column holding s, as `column N` asks. */
static int
hm_column_at(struct view *v, const struct hcols *c, const char *s,
    char **cause)
{
	double at, end = c->from + c->n * c->step;

	if (hm_parse_at(v->m, s, &at) != 0)
		return ts_fail(cause, "cannot move the column to '%s' "
		    "(column=off, or column=%s)", s, c->by_time ?
		    "HH:MM:SS or epoch seconds" : "an iteration");
	if (at < c->from || at >= end)
		return ts_fail(cause, "%s '%s' is off the heatmap (%.0f to "
		    "%.0f)", c->by_time ? "time" : "iteration", s, c->from,
		    end - 1);
	v->st.hm_at = at;
	v->st.hm_col = c->by_time ? HM_COL_TIME : HM_COL_ITER;
	return 0;
}

static int
heatmap_column(struct view *v, const char *how, char **cause)
{
	struct hcols c;
	int cur, to;

	if (strcmp(how, "off") == 0) {
		v->st.hm_col = HM_COL_NONE;
		return 0;
	}
	hm_layout(v, &c);
	if (c.n == 0)
		return ts_fail(cause, "the heatmap has no columns (%s)",
		    c.by_time ? "the logs carry no times" : "no iterations");
	cur = hm_cur(v, &c);
	if (strcmp(how, "left") == 0)
		to = cur < 0 ? c.n - 1 : cur - 1;
	else if (strcmp(how, "right") == 0)
		to = cur < 0 ? 0 : cur + 1;
	else if (strcmp(how, "first") == 0)
		to = 0;
	else if (strcmp(how, "last") == 0)
		to = c.n - 1;
	else
		return hm_column_at(v, &c, how, cause);
	to = to < 0 ? 0 : to >= c.n ? c.n - 1 : to;
	v->st.hm_at = c.from + to * c.step;
	v->st.hm_col = c.by_time ? HM_COL_TIME : HM_COL_ITER;
	return 0;
}

static int
heatmap_match(struct view *v, size_t r, void *re)
{
	const struct rows *h = rows_get(v);
	const char *name;

	if (r >= h->n || h->row[r].n > 0)
		return 0;
	name = v->m->nodes[h->row[r].item].name;
	return view_regex_find(re, name, strlen(name), NULL, NULL);
}

/*
 * A cell as data: its level, -3 where a rank of the node stopped, -1
 * where the log ends, -2 nothing.
 */
static int
cell_level(const struct model *m, size_t n, const struct hcols *c, int i)
{
	double lo = c->from + i * c->step;
	int fl, lv;

	hm_cell(m, n, lo, lo + c->step, &fl, &lv);
	if (fl & MODEL_MARK_STOP)
		return -3;	/* the rank stopped here */
	if (fl & MODEL_MARK_END)
		return -1;	/* the log ends here */
	if (lv == 0 && !hm_alive(m, n, c, lo))
		return -2;	/* nothing: before or after */
	return lv;
}

static void
heatmap_tsv(const struct model *m, const struct rows *h,
    const struct hcols *c, FILE *out)
{
	size_t r;
	int i;

	fputs("node\tscore", out);
	for (i = 0; i < c->n; i++)
		fprintf(out, "\t%.0f", c->from + i * c->step);
	fputc('\n', out);
	for (r = 0; r < h->n; r++) {
		const struct model_node *nd = &m->nodes[h->row[r].item];

		canvas_fput(out, nd->name);
		fprintf(out, "\t%.3f", nd->score);
		for (i = 0; i < c->n; i++)
			fprintf(out, "\t%d", cell_level(m, h->row[r].item, c, i));
		fputc('\n', out);
	}
}

/*
 * The cell under the cursors as data: its node (null on a fold), its
 * iterations [first, last] (seconds [first, last) by time), the data's
 * columns it spans, its strongest level and event.
 */
static void
hm_selected_json(struct view *v, const struct hcols *dc, struct json *j)
{
	const struct rows *h = rows_get(v);
	const struct model_mark *b = NULL;
	const struct row *hr;
	struct hcols c;
	double a, z;
	int col, fl, cur = v->st.cursor[PANE_HEATMAP];

	if (v->st.hm_col == HM_COL_NONE || cur < 0 || (size_t)cur >= h->n)
		return;
	hm_layout(v, &c);
	if ((col = hm_cur(v, &c)) < 0 || dc->step <= 0)
		return;
	hr = &h->row[cur];
	hm_span(&c, col, &a, &z);
	b = hm_row_cell(v->m, &c, col, hr, h->members, &fl);
	json_key(j, "selected");
	json_obj_begin(j);
	json_key(j, "node");
	json_str(j, hr->n > 0 ? NULL : v->m->nodes[hr->item].name);
	json_key(j, "first"); json_num(j, a);
	json_key(j, "last"); json_num(j, z);
	json_key(j, "columns");
	json_arr_begin(j);
	json_int(j, (int64_t)floor((a - dc->from) / dc->step));
	json_int(j, (int64_t)floor(((c.by_time ? z - 1e-9 : z) - dc->from) /
	    dc->step));
	json_arr_end(j);
	json_key(j, "level"); json_int(j, b != NULL ? b->level : 0);
	json_key(j, "event");
	json_str(j, b != NULL && b->event < v->m->nevents ?
	    v->m->events[b->event].text : NULL);
	json_obj_end(j);
}

static void
heatmap_json(struct view *v, const struct rows *h, const struct hcols *c,
    struct json *j)
{
	const struct model *m = v->m;

	size_t r;
	int i;

	json_obj_begin(j);
	json_key(j, "by"); json_str(j, c->by_time ? "time" : "iteration");
	if (!c->by_time && m->iter_width > 1) {
		json_key(j, "bucket");
		json_int(j, m->iter_width);
	}
	json_key(j, "columns");
	json_arr_begin(j);
	for (i = 0; i < c->n; i++)
		json_num(j, c->from + i * c->step);
	json_arr_end(j);
	json_key(j, "rows");
	json_arr_begin(j);
	for (r = 0; r < h->n; r++) {
		const struct model_node *nd = &m->nodes[h->row[r].item];

		json_obj_begin(j);
		json_key(j, "node"); json_str(j, nd->name);
		json_key(j, "score"); json_numf(j, nd->score, 3);
		json_key(j, "missing"); json_bool(j, nd->missing);
		json_key(j, "cells");
		json_arr_begin(j);
		for (i = 0; i < c->n; i++)
			json_int(j, cell_level(m, h->row[r].item, c, i));
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	hm_selected_json(v, c, j);
	json_obj_end(j);
}

static int
heatmap_data(struct view *v, struct json *j, FILE *out, int tsv,
    char **cause)
{
	struct hcols c;
	struct rows h;

	/* every node, unfolded, and a column per iteration (or bucket) */
	memset(&h, 0, sizeof h);
	rows_heatmap_fold(v, &h, -1);
	hm_cols(v, 100000, &c);
	if (tsv)
		heatmap_tsv(v->m, &h, &c, out);
	else
		heatmap_json(v, &h, &c, j);
	rows_release(&h);
	(void)cause;
	return 0;
}

const struct pane_ops pane_heatmap = {
	.name = "heatmap",
	.flags = PF_JOB,
	.build = rows_heatmap,
	.draw = heatmap_draw,
	.target = heatmap_target,
	.match = heatmap_match,
	.data = heatmap_data,
	.column = heatmap_column,
	.cell = heatmap_cell,
	.status = heatmap_status
};
