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

static void
hm_axis(const struct view *v, struct canvas *cv, int row, int x0,
    const struct hcols *c)
{
	int col = 0, w;
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
	if (!c->by_time && rows_iter_ok(v->m->failure_iter)) {
		double f = (double)v->m->failure_iter;

		if (f >= c->from && f < c->from + c->n * c->step)
			canvas_puts(cv, row + 1, x0 + (int)((f - c->from) /
			    c->step) * c->cw, CS_ERROR, "v");
	}
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
	int label = label_width(v->m, a->cv), x0 = 5 + label + 1, row;
	struct hcols c;
	size_t r;

	hm_cols(v, a->w - x0 - 1, &c);
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
	}
	if ((row = draw_row(a, used)) >= 0)
		heatmap_legend(v->m, a->cv, row);
}

static int
heatmap_target(struct view *v, size_t r, struct view_target *t)
{
	const struct row *hr = &rows_get(v)->row[r];

	if (hr->n > 0) {
		t->kind = VT_GROUP;
		t->node = (long)hr->item;	/* its first node's place */
		t->iter = (long)hr->n;
	} else {
		t->kind = VT_NODE;
		t->node = (long)hr->item;
	}
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

static void
heatmap_json(const struct model *m, const struct rows *h,
    const struct hcols *c, struct json *j)
{
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
		heatmap_json(v->m, &h, &c, j);
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
	.data = heatmap_data
};
