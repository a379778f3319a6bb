/*
 * panes.c -- drawing the screen and its six panes into a canvas.
 *
 * Every pane is a list of selectable rows under a few fixed rows (column
 * titles, the heatmap's axis, the timeline's stage bars) and, for the
 * events pane, above a detail area.  A pane draws the rows from its
 * scroll offset that fit; with no height limit (export) it draws them
 * all.  The cursor's row carries CA_SELECTED and search matches CA_MATCH;
 * the painter turns those into reverse video and highlights.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view/canvas.h"
#include "diag/diag.h"
#include "diag/jobmodel.h"
#include "base/json.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/stats.h"
#include "base/util.h"
#include "view/view.h"
#include "db/viewdb.h"
#include "view/viewint.h"

/* Where a pane draws: the canvas, its first row, and how many it has. */
struct area {
	struct canvas *cv;
	int row0;
	int nrows;		/* < 0: no limit */
	int w;
};

/* The next row of the area, or -1 when it is full. */
static int
area_row(struct area *a, int *used)
{
	if (a->nrows >= 0 && *used >= a->nrows)
		return -1;
	(*used)++;
	if (a->cv->nrows < a->row0 + *used)
		canvas_add_row(a->cv);
	return a->row0 + *used - 1;
}

/* Draw path in w columns from col; a path too long keeps its tail. */
static void
put_tail(struct canvas *cv, int row, int col, int w, int style,
    const char *path)
{
	size_t len = strlen(path);
	int pw = canvas_text_width(path, len);

	if (pw <= w) {
		canvas_put(cv, row, col, style, path, len);
		return;
	}
	if (w < 2)
		return;
	canvas_glyph(cv, row, col, CS_DIM, GL_ELLIPSIS, 1);
	canvas_put_from(cv, row, col + 1, col + w, style, path, len,
	    pw - (w - 1));
}

static void
fmt_clock(double ts, char *buf, size_t len)
{
	if (isnan(ts))
		snprintf(buf, len, "-");
	else
		diag_clock_str(ts, buf, len);
}

static const char *
short_count(uint64_t n, char *buf, size_t len)
{
	if (n < 10000)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else if (n < 10000000)
		snprintf(buf, len, "%lluk", (unsigned long long)(n / 1000));
	else
		snprintf(buf, len, "%lluM", (unsigned long long)(n / 1000000));
	return buf;
}

/* ---- filters ---- */

static int
iter_filter(const struct view *v, long *a, long *b)
{
	size_t i;
	int any = 0;

	*a = LONG_MIN;
	*b = LONG_MAX;
	for (i = 0; i < v->st.nfilters; i++) {
		const struct view_filter *f = &v->st.filters[i];

		if (f->kind != VF_ITER || f->negate)
			continue;
		if (f->a > *a)
			*a = f->a;
		if (f->b < *b)
			*b = f->b;
		any = 1;
	}
	return any;
}

static int
event_has_node(const struct model_event *e, long n)
{
	size_t k;

	for (k = 0; k < e->nnodes; k++)
		if ((long)e->nodes[k] == n)
			return 1;
	return 0;
}

/*
 * For each event, whether it was first seen in iterations [a, b] or has
 * a heatmap mark there (one pass over the marks, not one per event).
 */
static unsigned char *
events_in_iters(const struct model *m, long a, long b)
{
	unsigned char *in = xcalloc(m->nevents + 1, 1);
	size_t i;

	for (i = 0; i < m->nevents; i++)
		in[i] = m->events[i].iteration >= a && m->events[i].iteration <= b;
	for (i = 0; i < m->nmarks; i++)
		if (m->marks[i].event != UINT32_MAX &&
		    m->marks[i].event < m->nevents &&
		    m->marks[i].at >= (double)a && m->marks[i].at <= (double)b)
			in[m->marks[i].event] = 1;
	return in;
}

static int
event_passes(const struct view *v, size_t e, unsigned char **initer)
{
	const struct model *m = v->m;
	const struct model_event *ev = &m->events[e];
	size_t i;

	for (i = 0; i < v->st.nfilters; i++) {
		const struct view_filter *f = &v->st.filters[i];
		const char *val = strchr(f->arg, '=');
		int ok = 1;

		val = val != NULL ? val + 1 : "";
		switch (f->kind) {
		case VF_NODE:
			ok = event_has_node(ev, f->a);
			break;
		case VF_STAGE:
			ok = ev->stage == f->a;
			break;
		case VF_ITER:
			ok = initer[i][e];
			break;
		case VF_CATEGORY:
			ok = ev->category != NULL && strcmp(ev->category,
			    val) == 0;
			break;
		case VF_TEXT:
			ok = view_regex_find(f->re, ev->text, strlen(ev->text),
			    NULL, NULL);
			break;
		default:
			break;
		}
		if (ok == f->negate)
			return 0;
	}
	return 1;
}

static const struct model *sort_model;
static enum view_sort sort_key;

static int
cmp_event(const void *a, const void *b)
{
	const struct model_event *x = &sort_model->events[*(const size_t *)a];
	const struct model_event *y = &sort_model->events[*(const size_t *)b];

	switch (sort_key) {
	case SORT_TIME:
		if (isnan(x->ts) != isnan(y->ts))
			return isnan(x->ts) ? 1 : -1;
		if (!isnan(x->ts) && x->ts != y->ts)
			return x->ts < y->ts ? -1 : 1;
		break;
	case SORT_COUNT:
		if (x->count != y->count)
			return x->count > y->count ? -1 : 1;
		break;
	case SORT_NODES:
		if (x->nnodes != y->nnodes)
			return x->nnodes > y->nnodes ? -1 : 1;
		break;
	default:
		break;
	}
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The events the filters let through, in the sort's order. */
static size_t *
event_list(const struct view *v, size_t *n)
{
	size_t *l = xcalloc(v->m->nevents + 1, sizeof *l), i;
	unsigned char **initer = xcalloc(v->st.nfilters + 1, sizeof *initer);

	for (i = 0; i < v->st.nfilters; i++)
		if (v->st.filters[i].kind == VF_ITER)
			initer[i] = events_in_iters(v->m, v->st.filters[i].a,
			    v->st.filters[i].b);
	*n = 0;
	for (i = 0; i < v->m->nevents; i++)
		if (event_passes(v, i, initer))
			l[(*n)++] = i;
	for (i = 0; i < v->st.nfilters; i++)
		free(initer[i]);
	free(initer);
	sort_model = v->m;
	sort_key = v->st.sort;
	qsort(l, *n, sizeof *l, cmp_event);
	return l;
}

size_t *
view_event_rows(const struct view *v, size_t *n)
{
	return event_list(v, n);
}

static int
node_passes(const struct view *v, size_t n)
{
	size_t i;

	for (i = 0; i < v->st.nfilters; i++) {
		const struct view_filter *f = &v->st.filters[i];

		if (f->kind == VF_NODE && (f->a == (long)n) == f->negate)
			return 0;
	}
	return 1;
}

/* ---- the heatmap's rows ---- */

/* A heatmap row: one node, or a folded group of nodes. */
struct hrow {
	long node;		/* -1: a group */
	size_t *nodes;		/* the group's nodes (into hm.order) */
	size_t n;
};

struct hm {
	struct hrow *rows;
	size_t nrows;
	size_t *order;		/* node indices, in row order */
	size_t norder;
};

static int
is_suspect(const struct model *m, size_t n)
{
	double top = m->nsuspects > 0 ? m->nodes[m->suspects[0]].score : 0;

	return m->nodes[n].rank > 0 && m->nodes[n].rank <= 8 &&
	    m->nodes[n].score >= 0.3 && m->nodes[n].score >= 0.5 * top;
}

/*
 * The rows: suspects first (by rank), then every other node by name; when
 * they are more than `room` rows, the others fold into groups.
 */
static void
hm_build(const struct view *v, struct hm *h, int room)
{
	const struct model *m = v->m;
	size_t i, nsus = 0, rest, per;
	unsigned char *seen;

	memset(h, 0, sizeof *h);
	h->order = xcalloc(m->nnodes + 1, sizeof *h->order);
	h->rows = xcalloc(m->nnodes + 1, sizeof *h->rows);
	for (i = 0; i < m->nsuspects; i++)
		if (is_suspect(m, m->suspects[i]) && node_passes(v,
		    m->suspects[i]))
			h->order[h->norder++] = m->suspects[i];
	nsus = h->norder;
	/* the others by suspicion too (in node order among equals), and
	 * any node the ranking left out */
	seen = xcalloc(m->nreal + 1, 1);
	for (i = 0; i < m->nsuspects; i++)
		if (m->suspects[i] < m->nreal) {
			seen[m->suspects[i]] = 1;
			if (!is_suspect(m, m->suspects[i]) &&
			    node_passes(v, m->suspects[i]))
				h->order[h->norder++] = m->suspects[i];
		}
	for (i = 0; i < m->nreal; i++)
		if (!seen[i] && node_passes(v, i))
			h->order[h->norder++] = i;
	free(seen);
	rest = h->norder - nsus;
	if (v->st.hm_group >= 0) {
		/* a drilled group: its nodes only, one row each */
		size_t g = (size_t)v->st.hm_group, e = g + (size_t)v->st.hm_count;

		for (i = g; i < e && i < h->norder; i++)
			h->rows[h->nrows++].node = (long)h->order[i];
		if (h->nrows > 0)
			return;
	}
	if (room < 0 || (long)h->norder <= room || room <= (long)nsus + 1)
		per = 1;
	else {
		size_t slots = (size_t)room - nsus;

		per = (rest + slots - 1) / slots;
	}
	for (i = 0; i < nsus; i++)
		h->rows[h->nrows++].node = (long)h->order[i];
	for (i = nsus; i < h->norder; i += per) {
		struct hrow *r = &h->rows[h->nrows++];

		if (per == 1) {
			r->node = (long)h->order[i];
			continue;
		}
		r->node = -1;
		r->nodes = &h->order[i];
		r->n = per;
		if (i + per > h->norder)
			r->n = h->norder - i;
	}
}

static void
hm_free(struct hm *h)
{
	free(h->rows);
	free(h->order);
}

/* The heatmap's columns: iterations (or seconds) per column. */
struct hcols {
	int n;			/* columns */
	double from, step;	/* column c covers [from + c*step, +step) */
	int by_time;
	int cw;			/* cells a column takes on screen (1 to 3) */
};

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
		if (isnan(m->first_ts) || isnan(m->last_ts))
			return;
		span = m->last_ts - m->first_ts;
		c->from = m->first_ts;
		c->step = span <= 0 ? 1 : ceil(span / room);
		c->n = (int)ceil((span + 1) / c->step);
		if (c->n > room)
			c->n = room;
		return;
	}
	if (m->niters == 0)
		return;
	lo = m->iters[0].iteration;
	hi = m->iters[m->niters - 1].iteration;
	if (iter_filter(v, &a, &b)) {
		lo = a > lo ? a : lo;
		hi = b < hi ? b : hi;
	}
	/* one column past the end: a log that ends early shows there */
	hi++;
	if (hi < lo)
		return;
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
	return nd->last_iter < 0 ? a <= (double)m->iters[m->niters - 1].iteration
	    : a <= (double)nd->last_iter + 0.5;
}

static void
hm_draw_cell(struct canvas *cv, int row, int col, int level, int flags,
    int alive)
{
	enum canvas_glyph g;

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
			fmt_clock(at, buf, sizeof buf);
		else
			snprintf(buf, sizeof buf, "%ld", (long)at);
		w = (int)strlen(buf);
		if (col * c->cw + w > c->n * c->cw)
			break;
		canvas_puts(cv, row, x0 + col * c->cw, CS_DIM, buf);
		col += ((w + 2 > 10 ? w + 2 : 10) + c->cw - 1) / c->cw;
	}
	if (!c->by_time && v->m->failure_iter >= 0) {
		double f = (double)v->m->failure_iter;

		if (f >= c->from && f < c->from + c->n * c->step)
			canvas_puts(cv, row + 1, x0 + (int)((f - c->from) /
			    c->step) * c->cw, CS_ERROR, "v");
	}
}

static int
pane_heatmap(struct view *v, struct area *a, int *used)
{
	const struct model *m = v->m;
	int room = a->nrows < 0 ? -1 : a->nrows - 4, label = 4, i, row, x0;
	struct hcols c;
	struct hm h;
	size_t k, r;
	char buf[64];

	for (k = 0; k < m->nreal; k++) {	/* the rows hm_build() draws */
		int l = canvas_text_width(m->nodes[k].name,
		    strlen(m->nodes[k].name));

		if (l > label)
			label = l;
	}
	if (label > 16)
		label = 16;
	hm_build(v, &h, room);
	x0 = 5 + label + 1;
	hm_cols(v, a->w - x0 - 1, &c);
	row = area_row(a, used);
	canvas_puts(a->cv, row, 0, CS_BOLD, "susp");
	canvas_puts(a->cv, row, 5, CS_BOLD, "node");
	canvas_printf(a->cv, row, x0, CS_BOLD, "%s%s",
	    c.by_time ? "time" : "iteration",
	    c.step > 1 ? (c.by_time ? " (s per column: " : " (per column: ")
	    : "");
	if (c.step > 1)
		canvas_printf(a->cv, row, x0 + (c.by_time ? 4 : 9) + 16,
		    CS_BOLD, "%.0f)", c.step);
	row = area_row(a, used);
	area_row(a, used);
	hm_axis(v, a->cv, row, x0, &c);
	if (c.n == 0)
		canvas_puts(a->cv, row + 1, x0, CS_DIM, m->by_time ?
		    "the logs carry no times" : "no iterations");
	v->page = 0;
	for (r = (size_t)v->st.top[PANE_HEATMAP]; r < h.nrows; r++) {
		const struct hrow *hr = &h.rows[r];

		if (a->nrows >= 0 && *used >= a->nrows - 1)
			break;
		row = area_row(a, used);
		v->page++;
		if ((int)r == v->st.cursor[PANE_HEATMAP])
			canvas_add_attr(a->cv, row, 0, x0 - 1, CA_SELECTED);
		if (hr->node >= 0) {
			const struct model_node *nd = &m->nodes[hr->node];

			if (v->search_re != NULL && view_regex_find(v->search_re,
			    nd->name, strlen(nd->name), NULL, NULL))
				canvas_add_attr(a->cv, row, 5, 5 + label, CA_MATCH);

			if (nd->score > 0)
				canvas_printf(a->cv, row, 0, nd->score >= 0.5 ?
				    CS_ERROR : CS_NORMAL, "%.2f", nd->score);
			canvas_put_clip(a->cv, row, 5, 5 + label,
			    is_suspect(m, (size_t)hr->node) ? CS_BOLD :
			    CS_NORMAL, nd->name, strlen(nd->name));
			if (nd->missing) {
				canvas_puts(a->cv, row, x0, CS_ERROR,
				    "no log at all");
				continue;
			}
		} else {
			snprintf(buf, sizeof buf, "%s", m->nodes[hr->nodes[0]].name);
			canvas_printf(a->cv, row, 0, CS_DIM, "%3zu+", hr->n);
			canvas_put_clip(a->cv, row, 5, 5 + label, CS_DIM, buf,
			    strlen(buf));
		}
		for (i = 0; i < c.n; i++) {
			double lo = c.from + i * c.step, hi = lo + c.step;
			int fl = 0, lv = 0, alive = 0, f, l;

			for (k = 0; k < (hr->node >= 0 ? 1 : hr->n); k++) {
				size_t n = hr->node >= 0 ? (size_t)hr->node :
				    hr->nodes[k];

				hm_cell(m, n, lo, hi, &f, &l);
				fl |= f;
				lv = l > lv ? l : lv;
				alive |= hm_alive(m, n, &c, lo);
			}
			for (k = 0; k < (size_t)c.cw; k++)
				hm_draw_cell(a->cv, row, x0 + i * c.cw + (int)k, lv,
				    fl, alive);
		}
	}
	if ((row = area_row(a, used)) >= 0) {
		int x = 0;

		x = canvas_glyph(a->cv, row, x, CS_HEAT0 + 2, GL_SHADE_LIGHT, 1);
		x = canvas_glyph(a->cv, row, x, CS_HEAT0 + 4, GL_SHADE_MEDIUM, 1);
		x = canvas_glyph(a->cv, row, x, CS_HEAT0 + 6, GL_SHADE_DARK, 1);
		x = canvas_glyph(a->cv, row, x, CS_HEAT0 + 7, GL_BLOCK, 1);
		x = canvas_puts(a->cv, row, x + 1, CS_DIM, "suspicion  ");
		x = canvas_puts(a->cv, row, x, CS_ERROR, "X");
		x = canvas_puts(a->cv, row, x + 1, CS_DIM, "log ends  ");
		x = canvas_puts(a->cv, row, x, CS_DIM, a->cv->ascii ? "." :
		    "\u00b7");
		x = canvas_puts(a->cv, row, x + 1, CS_DIM, "quiet  ");
		if (!m->by_time && m->failure_iter >= 0)
			x = canvas_puts(a->cv, row, x, CS_ERROR, "v");
		if (!m->by_time && m->failure_iter >= 0)
			canvas_puts(a->cv, row, x + 1, CS_DIM, "failure");
	}
	hm_free(&h);
	return 0;
}

/* ---- events ---- */

static int
template_piece(struct canvas *cv, int row, int col, int end, int style,
    const char *s, size_t len, int *skip)
{
	int w;

	if (*skip > 0 && (w = canvas_text_width(s, len)) <= *skip) {
		*skip -= w;
		return col;
	}
	col = canvas_put_from(cv, row, col, end, style, s, len, *skip);
	*skip = 0;
	return col;
}

/*
 * Draw a template with its variable parts (<*>) in CS_VAR, without its
 * first `skip` columns.
 */
static void
draw_template(struct canvas *cv, int row, int col, int end, int style,
    const char *t, int skip)
{
	const char *p = t, *star;

	while (col < end && (star = strstr(p, "<*>")) != NULL) {
		col = template_piece(cv, row, col, end, style, p,
		    (size_t)(star - p), &skip);
		if (col < end)
			col = template_piece(cv, row, col, end, CS_VAR, "<*>",
			    3, &skip);
		p = star + 3;
	}
	if (col < end)
		template_piece(cv, row, col, end, style, p, strlen(p), &skip);
}

/* A score as a bar of w cells in eighths, after its value in percent. */
static void
score_bar(struct canvas *cv, int row, int col, int w, double s)
{
	int eighths = (int)lround(s * w * 8), full = eighths / 8;
	int style = CS_HEAT0 + (s >= 0.75 ? 7 : s >= 0.5 ? 5 : s >= 0.25 ? 3 : 1);

	canvas_glyph(cv, row, col, style, GL_BLOCK, full);
	if (eighths % 8 != 0 && full < w)
		canvas_glyph(cv, row, col + full, style,
		    (enum canvas_glyph)(GL_BAR1 + eighths % 8 - 1), 1);
}

/* Wrap text into the area from column col, at most maxrows rows. */
static void
wrap_text(struct area *a, int *used, int col, int style, const char *label,
    const char *text, int maxrows)
{
	size_t len = strlen(text), pos = 0;
	int row, n = 0, lw = label != NULL ? (int)strlen(label) : 0;

	while (pos < len && n < maxrows) {
		size_t take = len - pos;
		int room = a->w - col - lw;

		if (room < 8 || (row = area_row(a, used)) < 0)
			return;
		if (n == 0 && label != NULL)
			canvas_puts(a->cv, row, col, CS_BOLD, label);
		if (canvas_text_width(text + pos, take) > room) {
			size_t cut = 0, i;

			for (i = pos; i < len; i++) {
				if (canvas_text_width(text + pos, i - pos + 1) > room)
					break;
				if (text[i] == ' ')
					cut = i;
			}
			take = (cut > pos ? cut : i) - pos;
			if (take == 0)
				take = 1;
		}
		if (n + 1 == maxrows && pos + take < len)
			canvas_put_clip(a->cv, row, col + lw, a->w, style,
			    text + pos, len - pos);
		else
			canvas_put(a->cv, row, col + lw, style, text + pos, take);
		pos += take;
		while (pos < len && text[pos] == ' ')
			pos++;
		n++;
	}
}

/* Rows wrap_text() would take for text from col, at most maxrows. */
static int
wrap_rows(int w, int col, const char *label, const char *text, int maxrows)
{
	int lw = label != NULL ? (int)strlen(label) : 0;
	int tw = canvas_text_width(text, strlen(text)), room = w - col - lw;
	int n;

	if (room < 8)
		return 0;
	/* words break early: allow a little for the ragged edge */
	n = (tw + room - 1) / room;
	if (n > 1 && tw > n * room - room / 8)
		n++;
	return n < 1 ? 1 : n > maxrows ? maxrows : n;
}

/*
 * The selected event below the list: where it was first seen, why it
 * ranks, what the fault library says it means and what to do.  The
 * library's texts always get their rows; the reasons share the rest.
 */
static void
event_detail(struct view *v, struct area *a, int *used, size_t e)
{
	const struct model_event *ev = &v->m->events[e];
	char buf[64], where[64];
	int row, room = a->nrows < 0 ? 1000 : a->nrows - *used;
	int rmeans = 0, rdo = 0;
	size_t k;

	if ((row = area_row(a, used)) < 0)
		return;
	canvas_glyph(a->cv, row, 0, CS_DIM, GL_HLINE, a->w);
	if ((row = area_row(a, used)) < 0)
		return;
	fmt_clock(ev->ts, buf, sizeof buf);
	snprintf(where, sizeof where, ":%ld", ev->line);
	canvas_puts(a->cv, row, 0, CS_BOLD, "first ");
	canvas_put_clip(a->cv, row, 6, a->w, CS_NORMAL, ev->path ? ev->path :
	    "-", ev->path ? strlen(ev->path) : 1);
	canvas_printf(a->cv, row, 6 + canvas_text_width(ev->path ? ev->path :
	    "-", ev->path ? strlen(ev->path) : 1), CS_NORMAL,
	    "%s  %s  %s", ev->path ? where : "", buf,
	    stage_name((enum stage)ev->stage));
	room -= 2;
	if (ev->explain != NULL)
		rmeans = wrap_rows(a->w, 0, "means ", ev->explain, 2);
	if (ev->action != NULL)
		rdo = wrap_rows(a->w, 0, "do    ", ev->action, 2);
	if (rmeans + rdo > room)
		rmeans = room - rdo > 0 ? room - rdo : 0;
	if (rdo > room)
		rdo = room;
	room -= rmeans + rdo;
	for (k = 0; k < ev->nreasons && room > 0; k++, room--) {
		if (room == 1 && k + 1 < ev->nreasons) {
			if ((row = area_row(a, used)) >= 0)
				canvas_printf(a->cv, row, 0, CS_DIM, "- %zu more "
				    "reasons ('report -' lists them)",
				    ev->nreasons - k);
			break;
		}
		wrap_text(a, used, 0, CS_NORMAL, "- ", ev->reasons[k], 1);
	}
	if (rmeans > 0)
		wrap_text(a, used, 0, CS_NORMAL, "means ", ev->explain, rmeans);
	if (rdo > 0)
		wrap_text(a, used, 0, CS_NORMAL, "do    ", ev->action, rdo);
}

static int
pane_events(struct view *v, struct area *a, int *used)
{
	size_t n, i, *l = event_list(v, &n);
	/* at 80x24: ten events, and ten rows for the selected one */
	int row, detail = a->nrows < 0 ? 0 : a->nrows >= 16 ?
	    (a->nrows - 11 > 12 ? 12 : a->nrows - 11) : 5;
	/* narrow: no count, nodes and time, so the event keeps its room */
	int wide = a->w >= 120, narrow = a->w < 64, x, end, tw;
	const int skip = v->st.hscroll[PANE_EVENTS], x0 = narrow ? 18 : 39;
	char cnt[16], t[16], it[24];

	row = area_row(a, used);
	canvas_puts(a->cv, row, 0, CS_BOLD, "score");
	canvas_puts(a->cv, row, 7, CS_BOLD, "category");
	if (!narrow)
		canvas_puts(a->cv, row, 18, CS_BOLD, "count nodes    first");
	x = x0;
	if (wide) {
		canvas_puts(a->cv, row, x, CS_BOLD, "stage            iter");
		x += 23;
	}
	canvas_puts(a->cv, row, x, CS_BOLD, "event");
	if (n == 0 && (row = area_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, v->m->nevents == 0 ?
		    "no events" : "no event passes the filters");
	v->page = 0;
	v->hwide = 0;
	v->hwide_pane = PANE_EVENTS + 1;
	for (i = (size_t)v->st.top[PANE_EVENTS]; i < n; i++) {
		const struct model_event *ev = &v->m->events[l[i]];

		if (a->nrows >= 0 && *used >= a->nrows - detail)
			break;
		row = area_row(a, used);
		v->page++;
		/* the value, a blank, then its bar: they never touch */
		canvas_printf(a->cv, row, 0, ev->score >= 0.5 ? CS_BOLD :
		    CS_DIM, "%2.0f", ev->score * 100 > 99 ? 99 : ev->score * 100);
		score_bar(a->cv, row, 3, 3, ev->score);
		if (ev->category != NULL)
			canvas_put_clip(a->cv, row, 7, 17,
			    canvas_category_style(ev->category), ev->category,
			    strlen(ev->category));
		if (!narrow) {
			canvas_printf(a->cv, row, 18, CS_NORMAL, "%5s %5zu",
			    short_count(ev->count, cnt, sizeof cnt),
			    ev->nnodes);
			fmt_clock(ev->ts, t, sizeof t);
			canvas_printf(a->cv, row, 30, CS_DIM, "%8s", t);
		}
		x = x0;
		if (wide) {
			canvas_puts(a->cv, row, x, CS_DIM,
			    stage_name((enum stage)ev->stage));
			if (ev->iteration >= 0) {
				snprintf(it, sizeof it, "%5ld", ev->iteration);
				canvas_puts(a->cv, row, x + 16, CS_DIM, it);
			}
			x += 23;
		}
		end = a->w;
		tw = canvas_text_width(ev->text, strlen(ev->text)) - skip -
		    (end - x);
		if (tw > v->hwide)
			v->hwide = tw;
		draw_template(a->cv, row, x, end,
		    ev->level >= DIAG_LEVEL_ERROR ? CS_ERROR :
		    ev->level == DIAG_LEVEL_WARN ? CS_WARN : CS_NORMAL,
		    ev->text, skip);
		if ((int)i == v->st.cursor[PANE_EVENTS])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
		if (v->search_re != NULL && view_regex_find(v->search_re,
		    ev->text, strlen(ev->text), NULL, NULL))
			canvas_add_attr(a->cv, row, x, -1, CA_MATCH);
	}
	if (a->nrows >= 0 && n > 0) {
		while (*used < a->nrows - detail)
			area_row(a, used);
		event_detail(v, a, used, l[v->st.cursor[PANE_EVENTS]]);
	}
	free(l);
	return 0;
}

/* ---- timeline ---- */

/*
 * The timeline's horizontal axis: [from, to] over columns x0 .. x0+w-1.
 * A long quiet stretch (a hang before the watchdog fires, a job left
 * waiting) would squeeze the rest into a few columns, so it may be cut
 * out: [b0, b1] then takes the BREAK columns from bc, and the two sides
 * share the rest in proportion to their lengths.
 */
#define BREAK 3

struct taxis {
	double from, to;	/* seconds, or iterations when !time */
	int time;
	int x0, w;
	int brk;		/* the axis is cut */
	double b0, b1;
	int bc;
};

static int
tx_seg(double at, double lo, double hi, int c0, int n)
{
	int c;

	if (hi <= lo || n <= 1)
		return c0;
	c = (int)((at - lo) / (hi - lo) * (n - 1));
	return c0 + (c < 0 ? 0 : c >= n ? n - 1 : c);
}

static int
tx(const struct taxis *t, double at)
{
	if (!t->brk)
		return tx_seg(at, t->from, t->to, t->x0, t->w);
	if (at <= t->b0)
		return tx_seg(at, t->from, t->b0, t->x0, t->bc - t->x0);
	if (at < t->b1)
		return t->bc + BREAK / 2;
	return tx_seg(at, t->b1, t->to, t->bc + BREAK,
	    t->x0 + t->w - t->bc - BREAK);
}

/*
 * Cut the longest stretch with nothing in it (no span starting or
 * ending, no iteration starting) out of a time axis when it is more than
 * half of it.
 */
static void
tx_cut(struct taxis *t, const struct model *m)
{
	double *p = xcalloc(2 * m->nspans + m->niters + 2, sizeof *p);
	double gap = 0, lo = 0, hi = 0, l, r;
	size_t n = 0, i;
	int cl;

	p[n++] = t->from;
	p[n++] = t->to;
	for (i = 0; i < m->nspans; i++) {
		if (!isnan(m->spans[i].start))
			p[n++] = m->spans[i].start;
		if (!isnan(m->spans[i].end))
			p[n++] = m->spans[i].end;
	}
	for (i = 0; i < m->niters; i++)
		if (!isnan(m->iters[i].start))
			p[n++] = m->iters[i].start;
	ts_qsort(p, n, sizeof *p, stats_cmp_double);
	for (i = 1; i < n; i++)
		if (p[i] - p[i - 1] > gap) {
			gap = p[i] - p[i - 1];
			lo = p[i - 1];
			hi = p[i];
		}
	free(p);
	if (!t->time || t->w < 30 || gap <= (t->to - t->from) / 2)
		return;
	/* keep a little of the quiet on both sides */
	t->b0 = lo + gap * 0.02;
	t->b1 = hi - gap * 0.02;
	l = t->b0 - t->from;
	r = t->to - t->b1;
	cl = (int)lround((t->w - BREAK) * l / (l + r));
	if (cl < 8)
		cl = 8;
	if (cl > t->w - BREAK - 8)
		cl = t->w - BREAK - 8;
	t->brk = 1;
	t->bc = t->x0 + cl;
}

/* The header row of a cut axis: the times on both sides of the cut. */
static void
tx_break_labels(const struct taxis *t, struct canvas *cv, int row)
{
	char b1[16], b2[16];

	if (!t->brk)
		return;
	fmt_clock(t->b0, b1, sizeof b1);
	fmt_clock(t->b1, b2, sizeof b2);
	canvas_puts(cv, row, t->bc, CS_DIM, "~~~");
	if (t->bc - t->x0 >= 20)
		canvas_puts(cv, row, t->bc - (int)strlen(b1) - 1, CS_DIM, b1);
	if (t->x0 + t->w - t->bc - BREAK >= 20)
		canvas_puts(cv, row, t->bc + BREAK + 1, CS_DIM, b2);
}

static void
tl_stage_rows(struct view *v, struct area *a, int *used,
    const struct taxis *t)
{
	const struct model *m = v->m;
	int st, row;
	size_t i;

	for (st = 1; st < STAGE_COUNT; st++) {
		int any = 0;

		for (i = 0; i < m->nspans; i++)
			any |= m->spans[i].stage == st;
		if (!any)
			continue;
		if ((row = area_row(a, used)) < 0)
			return;
		canvas_puts(a->cv, row, 0, CS_BOLD, stage_name((enum stage)st));
		for (i = 0; i < m->nspans; i++) {
			const struct model_span *s = &m->spans[i];
			double lo = t->time ? s->start : (double)s->iter_from;
			double hi = t->time ? s->end : (double)s->iter_to;
			int c0, c1;

			if (s->stage != st || isnan(lo))
				continue;
			if (isnan(hi) || hi < lo)
				hi = lo;
			c0 = tx(t, lo);
			c1 = tx(t, hi);
			canvas_glyph(a->cv, row, c0, st == m->stage &&
			    m->outcome == DIAG_FAILED ? CS_ERROR : CS_HEAT0 + 3,
			    GL_BLOCK, c1 - c0 + 1);
		}
	}
}

static void
tl_iter_rows(struct view *v, struct area *a, int *used,
    const struct taxis *t)
{
	const struct model *m = v->m;
	double lo = INFINITY, hi = -INFINITY;
	int row, spark, c;
	size_t i;

	if (m->niters == 0)
		return;
	if ((row = area_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "iterations");
	if ((spark = area_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, spark, 0, CS_BOLD, "duration");
	for (i = 0; i < m->niters; i++)
		if (!isnan(m->iters[i].ms)) {
			lo = fmin(lo, m->iters[i].ms);
			hi = fmax(hi, m->iters[i].ms);
		}
	for (i = 0; i < m->niters; i++) {
		const struct model_iter *it = &m->iters[i];
		double at = t->time ? it->start : (double)it->iteration;
		int style = CS_DIM;
		const char *g = "|";

		if (isnan(at))
			continue;
		c = tx(t, at);
		if (it->flags & MODEL_ITER_ANOMALOUS) {
			style = CS_WARN;
			g = "!";
		}
		if (it->flags & MODEL_ITER_FAILURE) {
			style = CS_ERROR;
			g = "X";
		}
		if (canvas_cell(a->cv, row, c) != NULL && style == CS_DIM &&
		    canvas_cell(a->cv, row, c)->style != CS_NORMAL)
			continue;
		canvas_puts(a->cv, row, c, style, g);
		if (!isnan(it->ms) && hi > lo) {
			int lv = (int)((it->ms - lo) / (hi - lo) * 7.0);

			canvas_glyph(a->cv, spark, c, it->flags & MODEL_ITER_SLOW ?
			    CS_WARN : CS_NORMAL, (enum canvas_glyph)(GL_BAR1 +
			    lv), 1);
		} else if (!isnan(it->ms))
			canvas_glyph(a->cv, spark, c, CS_NORMAL, GL_BAR1 + 3, 1);
	}
	if (m->flows.niters > 0 && t->time && (row = area_row(a, used)) >= 0) {
		canvas_puts(a->cv, row, 0, CS_BOLD, "from flows");
		for (i = 0; i < m->flows.niters; i++)
			canvas_puts(a->cv, row, tx(t, m->flows.iters[i].start),
			    CS_DIM, "|");
	}
}

static void
tl_ended(struct view *v, struct area *a, int *used)
{
	const struct model *m = v->m;
	struct buf b;
	long maxlast = -1;
	size_t i, n = 0;
	int row;

	for (i = 0; i < m->nreal; i++)
		if (m->nodes[i].last_iter > maxlast)
			maxlast = m->nodes[i].last_iter;
	buf_init(&b);
	for (i = 0; i < m->nreal; i++) {
		const struct model_node *nd = &m->nodes[i];

		/* (no iteration line at all: nothing ended early) */
		if (nd->missing || nd->last_iter < 0 || nd->last_iter >= maxlast)
			continue;
		if (n++ < 6)
			buf_addf(&b, "%s%s at %ld", n > 1 ? ", " : "", nd->name,
			    nd->last_iter);
	}
	if (n > 6)
		buf_addf(&b, " and %zu more", n - 6);
	if (n > 0 && (row = area_row(a, used)) >= 0) {
		canvas_puts(a->cv, row, 0, CS_BOLD, "ended early ");
		canvas_put_clip(a->cv, row, 12, a->w, CS_ERROR, buf_str(&b),
		    b.len);
	}
	buf_release(&b);
}

static int
tl_visible(const struct view *v, size_t i)
{
	long a, b;

	if (!iter_filter(v, &a, &b))
		return 1;
	return v->m->iters[i].iteration >= a && v->m->iters[i].iteration <= b;
}

static int
pane_timeline(struct view *v, struct area *a, int *used)
{
	const struct model *m = v->m;
	struct taxis t;
	char b1[16], b2[16];
	size_t i, k = 0;
	int row;

	memset(&t, 0, sizeof t);
	t.x0 = 16;
	t.w = a->w - t.x0 - 1;
	t.time = !isnan(m->first_ts) && !isnan(m->last_ts) &&
	    m->last_ts > m->first_ts;
	if (t.time) {
		t.from = m->first_ts;
		t.to = m->last_ts;
	} else if (m->niters > 0) {
		t.from = (double)m->iters[0].iteration;
		t.to = (double)m->iters[m->niters - 1].iteration;
	}
	row = area_row(a, used);
	if (t.time) {
		tx_cut(&t, m);
		fmt_clock(t.from, b1, sizeof b1);
		fmt_clock(t.to, b2, sizeof b2);
		canvas_puts(a->cv, row, t.x0, CS_DIM, b1);
		canvas_puts(a->cv, row, t.x0 + t.w - (int)strlen(b2), CS_DIM, b2);
		tx_break_labels(&t, a->cv, row);
	} else if (m->niters > 0) {
		canvas_printf(a->cv, row, t.x0, CS_DIM, "iteration %.0f", t.from);
		snprintf(b2, sizeof b2, "%.0f", t.to);
		canvas_puts(a->cv, row, t.x0 + t.w - (int)strlen(b2), CS_DIM, b2);
	}
	canvas_puts(a->cv, row, 0, CS_BOLD, t.time ? "time (UTC)" :
	    "no times");
	tl_stage_rows(v, a, used, &t);
	tl_iter_rows(v, a, used, &t);
	tl_ended(v, a, used);
	if ((row = area_row(a, used)) < 0)
		return 0;
	canvas_puts(a->cv, row, 0, CS_BOLD, "  iter     start        ms  ");
	v->page = 0;
	if (m->niters == 0 && (row = area_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, "the logs name no iterations");
	for (i = 0; i < m->niters; i++) {
		const struct model_iter *it = &m->iters[i];

		if (!tl_visible(v, i))
			continue;
		if (k++ < (size_t)v->st.top[PANE_TIMELINE])
			continue;
		if ((row = area_row(a, used)) < 0)
			break;
		v->page++;
		fmt_clock(it->start, b1, sizeof b1);
		canvas_printf(a->cv, row, 0, CS_NORMAL, "%6ld  %8s  ",
		    it->iteration, b1);
		if (!isnan(it->ms))
			canvas_printf(a->cv, row, 18, CS_NORMAL, "%8.0f", it->ms);
		if (it->flags & MODEL_ITER_FAILURE)
			canvas_puts(a->cv, row, 29, CS_ERROR, "failure ");
		if (it->flags & MODEL_ITER_ANOMALOUS)
			canvas_puts(a->cv, row, 37, CS_WARN, "anomalous ");
		if (it->flags & MODEL_ITER_SLOW)
			canvas_puts(a->cv, row, 47, CS_WARN, "slow");
		if ((int)k - 1 == v->st.cursor[PANE_TIMELINE])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
	}
	return 0;
}

/* ---- groups ---- */

static const char *
host_label(const struct model_fhost *h)
{
	return h->name != NULL ? h->name : h->addr;
}

static int
host_style(const struct model_fhost *h)
{
	if (h->flags & MODEL_FHOST_STRAGGLER)
		return CS_ERROR;
	if (h->flags & (MODEL_FHOST_SLOW_LINK | MODEL_FHOST_CONGESTED))
		return CS_WARN;
	return CS_NORMAL;
}

static void
groups_grid(struct view *v, struct area *a, int *used)
{
	const struct model_flows *f = &v->m->flows;
	size_t p, s, maxs = 0;
	int row, cw = 14, x;

	for (p = 0; p < f->npp; p++)
		if (f->pp[p].n > maxs)
			maxs = f->pp[p].n;
	if (maxs == 0 || (row = area_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "pipeline");
	for (s = 0, x = 10; s < maxs && x + cw <= a->w; s++, x += cw)
		canvas_printf(a->cv, row, x, CS_BOLD, "stage %zu", s + 1);
	for (p = 0; p < f->npp; p++) {
		if ((row = area_row(a, used)) < 0)
			return;
		canvas_printf(a->cv, row, 0, CS_NORMAL, "pp %zu", p + 1);
		for (s = 0, x = 10; s < f->pp[p].n && x + cw <= a->w;
		    s++, x += cw) {
			const struct model_fhost *h = &f->hosts[f->pp[p].hosts[s]];

			canvas_put_clip(a->cv, row, x, x + cw - 1, host_style(h),
			    host_label(h), strlen(host_label(h)));
		}
	}
}

static long
host_group(const struct model_fgroup *g, size_t n, size_t h)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		for (k = 0; k < g[i].n; k++)
			if (g[i].hosts[k] == h)
				return (long)i;
	return -1;
}

/*
 * An iteration's end on the wire is its last collective; the optimizer
 * step after it is not seen.  Say by how much the capture's iterations
 * may run longer: the median gap to the job's next message.
 */
static void
groups_slack(const struct model_flows *f, struct area *a, int *used)
{
	double *d = xcalloc(f->niters + 1, sizeof *d), med;
	size_t i, n = 0;
	char buf[160];
	int row;

	for (i = 0; i < f->niters; i++)
		if (!isnan(f->iters[i].end_max) &&
		    f->iters[i].end_max >= f->iters[i].end)
			d[n++] = (f->iters[i].end_max - f->iters[i].end) * 1e3;
	med = n > 0 ? stats_median(d, n) : NAN;
	free(d);
	if (isnan(med) || (row = area_row(a, used)) < 0)
		return;
	snprintf(buf, sizeof buf, "an iteration may end up to %.0f ms after "
	    "its last collective (optimizer unseen)", med);
	canvas_put_clip(a->cv, row, 0, a->w, CS_DIM, buf, strlen(buf));
	if (*model_flows_ckpt(f, buf, sizeof buf) != '\0' &&
	    (row = area_row(a, used)) >= 0)
		canvas_put_clip(a->cv, row, 0, a->w, CS_DIM, buf, strlen(buf));
}

static int
pane_groups(struct view *v, struct area *a, int *used)
{
	const struct model_flows *f = &v->m->flows;
	char buf[24], pbuf[24], sum[200];
	size_t i;
	int row;

	row = area_row(a, used);
	v->page = 0;
	if (!f->present) {
		const struct model *m = v->m;

		canvas_puts(a->cv, row, 0, CS_DIM, "no network captures in the "
		    "job's directory; the ranks its logs show:");
		if ((row = area_row(a, used)) < 0)
			return 0;
		canvas_puts(a->cv, row, 0, CS_BOLD, "node                ranks  "
		    "last iteration");
		for (i = (size_t)v->st.top[PANE_GROUPS]; i < m->nreal; i++) {
			const struct model_node *n = &m->nodes[i];

			if ((row = area_row(a, used)) < 0)
				break;
			v->page++;
			if ((int)i == v->st.cursor[PANE_GROUPS])
				canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
			if (v->search_re != NULL && view_regex_find(v->search_re,
			    n->name, strlen(n->name), NULL, NULL))
				canvas_add_attr(a->cv, row, 0, 19, CA_MATCH);
			canvas_put_clip(a->cv, row, 0, 19, n->missing ? CS_ERROR :
			    CS_NORMAL, n->name, strlen(n->name));
			if (n->missing)
				canvas_puts(a->cv, row, 20, CS_ERROR, "no log");
			else {
				/* a rank the logs do not place: not known */
				if (n->nranks > 0)
					canvas_printf(a->cv, row, 20, CS_NORMAL,
					    "%5d", n->nranks);
				else
					canvas_puts(a->cv, row, 24, CS_DIM, "-");
				if (n->last_iter < 0)
					canvas_puts(a->cv, row, 27, CS_DIM, "-");
				else
					canvas_printf(a->cv, row, 27, CS_NORMAL,
					    "%ld", n->last_iter);
			}
		}
		return 0;
	}
	if (f->error != NULL) {
		canvas_puts(a->cv, row, 0, CS_ERROR, "captures left out: ");
		canvas_put_clip(a->cv, row, 19, a->w, CS_ERROR, f->error,
		    strlen(f->error));
		return 0;
	}
	snprintf(sum, sizeof sum, "%zu host%s, %zu data-parallel "
	    "group%s, %zu pipeline%s, %zu iteration%s of %.1f ms, %zu "
	    "finding%s", f->nhosts, f->nhosts == 1 ? "" : "s", f->ndp,
	    f->ndp == 1 ? "" : "s", f->npp, f->npp == 1 ? "" : "s", f->niters,
	    f->niters == 1 ? "" : "s", f->period * 1e3, f->nfindings,
	    f->nfindings == 1 ? "" : "s");
	canvas_put_clip(a->cv, row, 0, a->w, CS_NORMAL, sum, strlen(sum));
	groups_slack(f, a, used);
	groups_grid(v, a, used);
	for (i = 0; i < f->nfindings && i < 4; i++) {
		const struct model_finding *fd = &f->findings[i];

		if ((row = area_row(a, used)) < 0)
			return 0;
		canvas_printf(a->cv, row, 0, CS_WARN, "%s %s", fd->kind,
		    fd->subject);
		if (fd->nreasons > 0)
			canvas_put_clip(a->cv, row, 36, a->w, CS_NORMAL,
			    fd->reasons[0], strlen(fd->reasons[0]));
	}
	if ((row = area_row(a, used)) < 0)
		return 0;
	canvas_puts(a->cv, row, 0, CS_BOLD, "host            node          "
	    " dp  pp  comm ms compute  sync ms");
	for (i = (size_t)v->st.top[PANE_GROUPS]; i < f->nhosts; i++) {
		const struct model_fhost *h = &f->hosts[i];
		long dg = host_group(f->dp, f->ndp, i);
		long pg = host_group(f->pp, f->npp, i);

		if ((row = area_row(a, used)) < 0)
			break;
		v->page++;
		canvas_put_clip(a->cv, row, 0, 15, host_style(h), h->addr,
		    strlen(h->addr));
		if (h->name != NULL)
			canvas_put_clip(a->cv, row, 16, 29, CS_NORMAL, h->name,
			    strlen(h->name));
		snprintf(buf, sizeof buf, "%ld", dg + 1);
		snprintf(pbuf, sizeof pbuf, "%ld", pg + 1);
		canvas_printf(a->cv, row, 30, CS_NORMAL, "%3s %3s %8.1f %7.1f",
		    dg < 0 ? "-" : buf, pg < 0 ? "-" : pbuf,
		    h->comm * 1e3, h->compute * 1e3);
		if (dg >= 0)
			canvas_printf(a->cv, row, 55, f->dp[dg].slow ? CS_WARN :
			    CS_NORMAL, "%8.1f", f->dp[dg].step * 1e3);
		if (h->flags & MODEL_FHOST_STRAGGLER)
			canvas_puts(a->cv, row, 65, CS_ERROR, "straggler");
		else if (h->flags & MODEL_FHOST_SLOW_LINK)
			canvas_puts(a->cv, row, 65, CS_WARN, "slow link");
		else if (h->flags & MODEL_FHOST_CONGESTED)
			canvas_puts(a->cv, row, 65, CS_WARN, "congested");
		if ((int)i == v->st.cursor[PANE_GROUPS])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
	}
	return 0;
}

/* ---- lines ---- */

/* Rows under the lines pane's list for the cursor's line in full. */
#define LINES_DETAIL 5

/* Whether every row of the pane comes from one file. */
static int
lines_one_file(const struct view *v)
{
	return v->nlines > 0 && v->lines[0].path ==
	    v->lines[v->nlines - 1].path;
}

/* The cursor's line whole: its place, then its text wrapped. */
static void
lines_detail(struct view *v, struct area *a, int *used)
{
	const struct view_line *l;
	char num[32];
	int row, x;

	if ((size_t)v->st.cursor[PANE_LINES] >= v->nlines)
		return;
	l = &v->lines[v->st.cursor[PANE_LINES]];
	view_lines_fill(v, (size_t)v->st.cursor[PANE_LINES],
	    (size_t)v->st.cursor[PANE_LINES] + 1);
	if ((row = area_row(a, used)) < 0)
		return;
	canvas_glyph(a->cv, row, 0, CS_DIM, GL_HLINE, a->w);
	if ((row = area_row(a, used)) < 0)
		return;
	snprintf(num, sizeof num, ":%llu", (unsigned long long)l->line);
	x = a->w - (int)strlen(num);
	put_tail(a->cv, row, 0, x, CS_BOLD, l->path);
	canvas_puts(a->cv, row, canvas_text_width(l->path, strlen(l->path)) <
	    x ? canvas_text_width(l->path, strlen(l->path)) : x, CS_BOLD, num);
	if (l->text != NULL)
		wrap_text(a, used, 0, l->hit ? CS_BOLD : CS_NORMAL, NULL,
		    l->text, LINES_DETAIL - 2);
}

static int
pane_lines(struct view *v, struct area *a, int *used)
{
	int row, pw = 0, nw = 1, room, detail, one;
	size_t i, top = (size_t)v->st.top[PANE_LINES], last;
	const int skip = v->st.hscroll[PANE_LINES];
	char num[24];

	row = area_row(a, used);
	if (!v->lines_valid)
		view_lines_build(v);
	if (v->lines_error != NULL) {
		canvas_put_clip(a->cv, row, 0, a->w, CS_ERROR, v->lines_error,
		    strlen(v->lines_error));
		return 0;
	}
	if (v->st.lsrc == LS_NONE) {
		canvas_puts(a->cv, row, 0, CS_DIM, "drill into an event, node or "
		    "iteration to see its lines");
		return 0;
	}
	one = lines_one_file(v);
	if (v->st.lsrc == LS_EVENT) {
		long e = model_event_index(v->m, v->st.l_event);
		size_t hits = 0;
		int x;

		for (i = 0; i < v->nlines; i++)
			hits += v->lines[i].hit != 0;
		if (hits < v->nlines)	/* the rest is context */
			x = canvas_printf(a->cv, row, 0, CS_BOLD, "%zu line%s "
			    "(%zu with context) of ", hits, hits == 1 ? "" :
			    "s", v->nlines);
		else
			x = canvas_printf(a->cv, row, 0, CS_BOLD, "%zu line%s "
			    "of ", hits, hits == 1 ? "" : "s");

		if (e >= 0)
			draw_template(a->cv, row, x, a->w, CS_BOLD,
			    v->m->events[e].text, 0);
	} else
		canvas_printf(a->cv, row, 0, CS_BOLD, "%s around line %ld",
		    v->st.l_path, v->st.l_line);
	/* one file: its name goes below, the rows show line numbers */
	for (i = 0; i < v->nlines; i++) {
		int l = one ? 0 : canvas_text_width(v->lines[i].path,
		    strlen(v->lines[i].path));

		if (l > pw)
			pw = l;
		snprintf(num, sizeof num, "%llu",
		    (unsigned long long)v->lines[i].line);
		if ((int)strlen(num) > nw)
			nw = (int)strlen(num);
	}
	if (pw > a->w / 4)
		pw = a->w / 4;
	detail = a->nrows >= 14 ? LINES_DETAIL : 0;
	room = a->nrows < 0 ? (int)v->nlines : a->nrows - *used - detail;
	last = top + (size_t)(room < 0 ? 0 : room);
	if (last > v->nlines)
		last = v->nlines;
	view_lines_fill(v, top, last);
	v->page = 0;
	v->hwide = 0;
	v->hwide_pane = PANE_LINES + 1;
	for (i = top; i < last; i++) {
		const struct view_line *l = &v->lines[i];
		int x = pw > 0 ? pw + 1 : 0, st = l->hit ? CS_NORMAL : CS_DIM;

		if ((row = area_row(a, used)) < 0)
			break;
		v->page++;
		/* a file's name on its first row and at the top of the page */
		if (pw > 0 && (i == top || l->path != v->lines[i - 1].path))
			put_tail(a->cv, row, 0, pw, st, l->path);
		canvas_printf(a->cv, row, x, st, "%*llu", nw,
		    (unsigned long long)l->line);
		x += nw + 1;
		if (l->hit)
			canvas_glyph(a->cv, row, x, CS_BOLD, GL_ARROW_RIGHT, 1);
		x += 2;
		if (l->text != NULL) {
			int w = canvas_text_width(l->text, strlen(l->text));

			if (w - skip > a->w - x && w - skip - (a->w - x) >
			    v->hwide)
				v->hwide = w - skip - (a->w - x);
			canvas_put_from(a->cv, row, x, a->w, l->hit ?
			    CS_BOLD : CS_DIM, l->text, strlen(l->text), skip);
		}
		if ((int)i == v->st.cursor[PANE_LINES])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
		if (v->search_re != NULL && l->text != NULL &&
		    view_regex_find(v->search_re, l->text, strlen(l->text),
		    NULL, NULL))
			canvas_add_attr(a->cv, row, x, -1, CA_MATCH);
	}
	if (detail > 0 && v->nlines > 0) {
		while (*used < a->nrows - detail)
			area_row(a, used);
		lines_detail(v, a, used);
	}
	return 0;
}

/* ---- jobs ---- */

struct jobs_walk {
	struct view *v;
	struct area *a;
	int *used;
	int idx;
	const char *want;	/* collect the name of row `idx` */
	char *name;
	int n;
};

static int
job_row(void *arg, const struct viewdb_job *j)
{
	struct jobs_walk *w = arg;
	char size[24], when[32];
	int row, r = w->n++;
	time_t t;

	if (w->want != NULL) {
		if (r == w->idx)
			w->name = xstrdup(j->name);
		return 0;
	}
	if (w->a == NULL || r < w->v->st.top[PANE_JOBS] ||
	    (row = area_row(w->a, w->used)) < 0)
		return 0;
	w->v->page++;
	canvas_put_clip(w->a->cv, row, 0, 16, CS_BOLD, j->name,
	    strlen(j->name));
	canvas_put_clip(w->a->cv, row, 17, 26, strcmp(j->outcome, "failed") ==
	    0 ? CS_ERROR : strcmp(j->outcome, "degraded") == 0 ? CS_WARN :
	    strcmp(j->outcome, "healthy") == 0 ||
	    strcmp(j->outcome, "completed") == 0 ? CS_GOOD : CS_DIM,
	    j->outcome[0] != '\0' ? j->outcome : "-", j->outcome[0] != '\0' ?
	    strlen(j->outcome) : 1);
	canvas_puts(w->a->cv, row, 27, CS_NORMAL, j->marked[0] != '\0' ?
	    j->marked : "-");
	canvas_printf(w->a->cv, row, 32, CS_NORMAL, "%5lld %6lld %9s",
	    (long long)j->nodes, (long long)j->files,
	    ts_human_size((uint64_t)j->bytes, size, sizeof size));
	if (isnan(j->indexed))
		snprintf(when, sizeof when, "flows only");
	else {
		struct tm tm;

		t = (time_t)j->indexed;
		gmtime_r(&t, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
	}
	canvas_puts(w->a->cv, row, 56, CS_DIM, when);
	/* a long root keeps its end, where jobs differ */
	put_tail(w->a->cv, row, 73, w->a->w - 73, CS_DIM, j->root);
	if (r == w->v->st.cursor[PANE_JOBS])
		canvas_add_attr(w->a->cv, row, 0, -1, CA_SELECTED);
	return 0;
}

static int
pane_jobs(struct view *v, struct area *a, int *used)
{
	struct jobs_walk w;
	char *why = NULL;
	int row = area_row(a, used);

	canvas_puts(a->cv, row, 0, CS_BOLD, "job              outcome   mark "
	    "nodes  files      size  indexed (UTC)    root");
	memset(&w, 0, sizeof w);
	w.v = v;
	w.a = a;
	w.used = used;
	v->page = 0;
	if (v->cache == NULL || viewdb_each_job(v->cache, job_row, &w,
	    &why) != 0) {
		if ((row = area_row(a, used)) >= 0)
			canvas_put_clip(a->cv, row, 0, a->w, CS_ERROR, why ? why :
			    "no cache", why ? strlen(why) : 8);
		free(why);
	} else if (w.n == 0 && (row = area_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, "the cache holds no job: "
		    "index a job directory first");
	return 0;
}

static int
jobs_count(struct view *v, int idx, char **name)
{
	struct jobs_walk w;
	char *why = NULL;

	memset(&w, 0, sizeof w);
	w.v = v;
	w.want = "";
	w.idx = idx;
	if (v->cache != NULL && viewdb_each_job(v->cache, job_row, &w,
	    &why) != 0)
		free(why);
	if (name != NULL)
		*name = w.name;
	else
		free(w.name);
	return w.n;
}

/* ---- the screen ---- */

/*
 * The header says when the model rests on partial data: the part of the
 * note before its explanation ("index incomplete: 1 of 3 files"), and
 * files gone since indexing ("2 of 8 files gone"), at column x.  Returns
 * the column after them (x when there is none).
 */
static int
draw_incomplete(const struct model *m, struct canvas *cv, int row, int x)
{
	static const char tag[] = "index incomplete:";
	static const char gone[] = " files are gone since";
	const char *g;
	size_t i, len;

	for (i = 0; i < m->nnotes; i++) {
		if (strncmp(m->notes[i], tag, sizeof tag - 1) == 0) {
			len = strcspn(m->notes[i], "(");
			while (len > 0 && m->notes[i][len - 1] == ' ')
				len--;
			x = canvas_puts(cv, row, x, CS_HEADER, "  ");
			x = canvas_put_clip(cv, row, x, cv->width, CS_HEADER,
			    m->notes[i], len);
		} else if ((g = strstr(m->notes[i], gone)) != NULL) {
			/* "1 of 3 files are gone since ..." -> "1 of 3 gone" */
			x = canvas_puts(cv, row, x, CS_HEADER, "  ");
			x = canvas_put_clip(cv, row, x, cv->width, CS_HEADER,
			    m->notes[i], (size_t)(g - m->notes[i]));
			x = canvas_put_clip(cv, row, x, cv->width, CS_HEADER,
			    " files gone", 11);
		}
	}
	return x;
}

static void
draw_header(struct view *v, struct canvas *cv, int row)
{
	const struct model *m = v->m;
	char buf[256];
	int x, from;

	if (m == NULL) {
		canvas_puts(cv, row, 0, CS_HEADER, "trainscope");
		canvas_set_style(cv, row, 0, cv->width, CS_HEADER);
		return;
	}
	x = canvas_put_clip(cv, row, 0, cv->width / 3, CS_HEADER, m->name,
	    strlen(m->name));
	snprintf(buf, sizeof buf, "  %s", diag_outcome_name(
	    (enum diag_outcome)m->outcome));
	x = canvas_puts(cv, row, x, CS_HEADER, buf);
	buf[0] = '\0';
	if (m->outcome != DIAG_COMPLETED && m->stage != STAGE_NONE)
		snprintf(buf, sizeof buf, " in %s", stage_name(
		    (enum stage)m->stage));
	if (m->failure_iter > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " at iteration %ld", m->failure_iter);
	else if (m->failure_iter == 0 && m->niters > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " before its first iteration");
	from = canvas_put_clip(cv, row, x, cv->width, CS_HEADER, buf,
	    strlen(buf));
	x = draw_incomplete(m, cv, row, from);
	snprintf(buf, sizeof buf, "  %zu node%s  %d healthy run%s compared",
	    m->nreal, m->nreal == 1 ? "" : "s", m->nhealthy, m->nhealthy == 1 ?
	    "" : "s");
	canvas_put_clip(cv, row, x, cv->width, CS_HEADER, buf, strlen(buf));
	canvas_set_style(cv, row, 0, cv->width, CS_HEADER);
	if (x > from + 2)
		canvas_set_style(cv, row, from + 2, x, CS_WARN);
}

static void
draw_tabs(struct view *v, struct canvas *cv, int row)
{
	int i, x = 0;

	for (i = 0; i < PANE_COUNT && x < cv->width; i++) {
		int st = i == (int)v->st.pane ? CS_BOLD : CS_DIM;

		x = canvas_printf(cv, row, x, st, "%d %s", i + 1,
		    view_pane_name((enum view_pane)i));
		if (i == (int)v->st.pane)
			canvas_add_attr(cv, row, x - (int)strlen(view_pane_name(
			    (enum view_pane)i)) - 2, x, CA_SELECTED);
		x += 2;
	}
	if (v->st.nfilters > 0 && x + 12 < cv->width)
		canvas_printf(cv, row, x, CS_WARN, "[%zu filter%s]",
		    v->st.nfilters, v->st.nfilters == 1 ? "" : "s");
}

static void
draw_status(struct view *v, struct canvas *cv, int row)
{
	int n = view_nrows(v);
	char buf[96];

	canvas_set_style(cv, row, 0, cv->width, CS_STATUS);
	if (v->message != NULL) {
		canvas_put_clip(cv, row, 0, cv->width, CS_STATUS, v->message,
		    strlen(v->message));
		return;
	}
	snprintf(buf, sizeof buf, "%s %d/%d", view_pane_name(v->st.pane),
	    n == 0 ? 0 : v->st.cursor[v->st.pane] + 1, n);
	if (v->st.hscroll[v->st.pane] > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "  col +%d", v->st.hscroll[v->st.pane]);
	if (v->search != NULL)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "  /%.40s", v->search);
	canvas_puts(cv, row, 0, CS_STATUS, buf);
	snprintf(buf, sizeof buf, "? help  : command  q quit");
	canvas_puts(cv, row, cv->width - (int)strlen(buf) - 1 > 0 ?
	    cv->width - (int)strlen(buf) - 1 : 0, CS_STATUS, buf);
	canvas_set_style(cv, row, 0, cv->width, CS_STATUS);
}

/* Keep the cursor inside the rows and the scroll offset around it. */
static void
clamp(struct view *v, int page)
{
	int n = view_nrows(v), *cur = &v->st.cursor[v->st.pane];
	int *top = &v->st.top[v->st.pane];

	if (*cur >= n)
		*cur = n - 1;
	if (*cur < 0)
		*cur = 0;
	if (page < 1)
		page = 1;
	if (*cur < *top)
		*top = *cur;
	if (*cur >= *top + page)
		*top = *cur - page + 1;
	if (*top > n - page)
		*top = n - page > 0 ? n - page : 0;
	if (*top < 0)
		*top = 0;
}

static int
draw_pane(struct view *v, struct area *a, int *used)
{
	if (v->m == NULL && v->st.pane != PANE_JOBS)
		v->st.pane = PANE_JOBS;
	switch (v->st.pane) {
	case PANE_EVENTS:
		return pane_events(v, a, used);
	case PANE_HEATMAP:
		return pane_heatmap(v, a, used);
	case PANE_TIMELINE:
		return pane_timeline(v, a, used);
	case PANE_GROUPS:
		return pane_groups(v, a, used);
	case PANE_LINES:
		return pane_lines(v, a, used);
	default:
		return pane_jobs(v, a, used);
	}
}

int
view_draw(struct view *v, struct canvas *cv, int width, int height)
{
	struct area a;
	int used = 0, attempt;

	v->width = width;
	v->height = height;
	canvas_set_width(cv, width < 20 ? 20 : width);
	for (attempt = 0; attempt < 2; attempt++) {
		canvas_reset(cv);
		canvas_add_row(cv);
		draw_header(v, cv, 0);
		canvas_add_row(cv);
		draw_tabs(v, cv, 1);
		a.cv = cv;
		a.row0 = 2;
		a.nrows = height <= 0 ? -1 : height - 3;
		a.w = cv->width;
		if (height <= 0)
			v->st.top[v->st.pane] = 0;
		used = 0;
		/* the first pass learns the page size; the second scrolls */
		draw_pane(v, &a, &used);
		if (height <= 0)
			break;
		if (attempt == 0) {
			int top = v->st.top[v->st.pane];

			clamp(v, v->page);
			if (top == v->st.top[v->st.pane])
				break;
		}
	}
	if (height > 0) {
		while (cv->nrows < height)
			canvas_add_row(cv);
		cv->nrows = height;
		draw_status(v, cv, height - 1);
	}
	return cv->nrows;
}

/* ---- rows, targets and search ---- */

static int
heatmap_rows(struct view *v, struct hm *h)
{
	int room = v->height <= 0 ? -1 : v->height - 7;

	hm_build(v, h, room);
	return (int)h->nrows;
}

int
view_nrows(struct view *v)
{
	struct hm h;
	size_t n, i;
	int r;

	if (v->m == NULL && v->st.pane != PANE_JOBS)
		return 0;
	switch (v->st.pane) {
	case PANE_EVENTS:
		free(event_list(v, &n));
		return (int)n;
	case PANE_HEATMAP:
		r = heatmap_rows(v, &h);
		hm_free(&h);
		return r;
	case PANE_TIMELINE:
		for (i = n = 0; i < v->m->niters; i++)
			n += (size_t)tl_visible(v, i);
		return (int)n;
	case PANE_GROUPS:
		/* without captures: the nodes the logs show */
		return (int)(v->m->flows.present ? v->m->flows.nhosts :
		    v->m->nreal);
	case PANE_LINES:
		if (!v->lines_valid)
			view_lines_build(v);
		return (int)v->nlines;
	default:
		return jobs_count(v, -1, NULL);
	}
}

int
view_page(const struct view *v)
{
	return v->page > 0 ? v->page : 1;
}

int
view_target(struct view *v, struct view_target *t)
{
	int cur = v->st.cursor[v->st.pane], r = -1;
	size_t n, i, k, *l;
	struct hm h;
	char *name;

	memset(t, 0, sizeof *t);
	t->node = -1;
	if (v->m == NULL && v->st.pane != PANE_JOBS)
		return -1;
	switch (v->st.pane) {
	case PANE_EVENTS:
		l = event_list(v, &n);
		if ((size_t)cur < n) {
			long node = -1;

			for (i = 0; i < v->st.nfilters; i++)
				if (v->st.filters[i].kind == VF_NODE &&
				    !v->st.filters[i].negate)
					node = v->st.filters[i].a;
			t->kind = VT_EVENT;
			t->id = v->m->events[l[cur]].id;
			t->node = node;
			r = 0;
		}
		free(l);
		return r;
	case PANE_HEATMAP:
		heatmap_rows(v, &h);
		if ((size_t)cur < h.nrows) {
			if (h.rows[cur].node >= 0) {
				t->kind = VT_NODE;
				t->node = h.rows[cur].node;
			} else {
				t->kind = VT_GROUP;
				t->node = (long)(h.rows[cur].nodes - h.order);
				t->iter = (long)h.rows[cur].n;
			}
			r = 0;
		}
		hm_free(&h);
		return r;
	case PANE_TIMELINE:
		for (i = k = 0; i < v->m->niters; i++) {
			if (!tl_visible(v, i))
				continue;
			if ((int)k++ == cur) {
				t->kind = VT_ITER;
				t->iter = v->m->iters[i].iteration;
				return 0;
			}
		}
		return -1;
	case PANE_GROUPS:
		if (!v->m->flows.present && (size_t)cur < v->m->nreal) {
			t->kind = VT_NODE;
			t->node = cur;
			return 0;
		}
		if ((size_t)cur < v->m->flows.nhosts &&
		    v->m->flows.hosts[cur].node >= 0) {
			t->kind = VT_NODE;
			t->node = v->m->flows.hosts[cur].node;
			return 0;
		}
		return -1;
	case PANE_LINES:
		if (!v->lines_valid)
			view_lines_build(v);
		if ((size_t)cur < v->nlines && v->st.lsrc == LS_EVENT) {
			t->kind = VT_LINE;
			t->name = v->lines[cur].path;
			t->iter = (long)v->lines[cur].line;
			return 0;
		}
		return -1;
	default:
		jobs_count(v, cur, &name);
		if (name == NULL)
			return -1;
		t->kind = VT_JOB;
		t->name = t->owned = name;
		return 0;
	}
}

int
view_row_matches(struct view *v, int r)
{
	size_t n, *l;
	int ok = 0;

	if (v->search_re == NULL || v->m == NULL)
		return 0;
	if (v->st.pane == PANE_EVENTS) {
		l = event_list(v, &n);
		if ((size_t)r < n)
			ok = view_regex_find(v->search_re, v->m->events[l[r]].text,
			    strlen(v->m->events[l[r]].text), NULL, NULL);
		free(l);
		return ok;
	}
	if (v->st.pane == PANE_LINES) {
		if ((size_t)r >= v->nlines)
			return 0;
		view_lines_fill(v, (size_t)r, (size_t)r + 1);
		return v->lines[r].text != NULL && view_regex_find(v->search_re,
		    v->lines[r].text, strlen(v->lines[r].text), NULL, NULL);
	}
	if (v->st.pane == PANE_GROUPS && !v->m->flows.present)
		return (size_t)r < v->m->nreal && view_regex_find(v->search_re,
		    v->m->nodes[r].name, strlen(v->m->nodes[r].name), NULL,
		    NULL);
	if (v->st.pane == PANE_GROUPS && (size_t)r < v->m->flows.nhosts) {
		const struct model_fhost *h = &v->m->flows.hosts[r];

		return view_regex_find(v->search_re, h->addr, strlen(h->addr),
		    NULL, NULL) || (h->name != NULL && view_regex_find(
		    v->search_re, h->name, strlen(h->name), NULL, NULL));
	}
	if (v->st.pane == PANE_HEATMAP) {
		struct hm h;

		heatmap_rows(v, &h);
		if ((size_t)r < h.nrows && h.rows[r].node >= 0)
			ok = view_regex_find(v->search_re,
			    v->m->nodes[h.rows[r].node].name,
			    strlen(v->m->nodes[h.rows[r].node].name), NULL, NULL);
		hm_free(&h);
	}
	return ok;
}

int
view_select_node(struct view *v, long n, char **cause)
{
	struct hm h;
	size_t r;

	heatmap_rows(v, &h);
	for (r = 0; r < h.nrows; r++)
		if (h.rows[r].node == n) {
			v->st.cursor[PANE_HEATMAP] = (int)r;
			hm_free(&h);
			return 0;
		}
	/* folded away: unfold everything */
	hm_free(&h);
	hm_build(v, &h, -1);
	for (r = 0; r < h.nrows; r++)
		if (h.rows[r].node == n)
			break;
	hm_free(&h);
	if (v->st.nfilters > 0)
		return ts_fail(cause, "node %s is filtered out",
		    v->m->nodes[n].name);
	v->st.cursor[PANE_HEATMAP] = (int)r;
	return 0;
}

int
view_select_time(struct view *v, const char *hms, char **cause)
{
	int h, m, s;
	char c;
	size_t i, best = 0;
	double bestd = INFINITY;

	if (sscanf(hms, "%d:%d:%d%c", &h, &m, &s, &c) != 3 || h < 0 ||
	    h > 23 || m < 0 || m > 59 || s < 0 || s > 60)
		return ts_fail(cause, "time wants HH:MM:SS, not '%s'", hms);
	if (v->m->niters == 0)
		return ts_fail(cause, "job %s has no iterations to go to",
		    v->job);
	for (i = 0; i < v->m->niters; i++) {
		double t = v->m->iters[i].start, d;

		if (isnan(t))
			continue;
		d = fabs(fmod(t, 86400.0) - (h * 3600 + m * 60 + s));
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	if (isinf(bestd))
		return ts_fail(cause, "job %s's iterations carry no times",
		    v->job);
	v->st.pane = PANE_TIMELINE;
	v->st.cursor[PANE_TIMELINE] = (int)best;
	return 0;
}

int
view_open_job(struct view *v, const char *name, struct model **out,
    char **cause)
{
	if (v->cache == NULL)
		return ts_fail(cause, "no cache");
	return job_model(v->cache, name, NULL, 0, 0, NULL, NULL, out, cause);
}

/* ---- the table-like panes as data ---- */

struct jobs_json {
	struct json *j;
	FILE *out;
	int tsv;
};

/* A TSV field: outside text inert as the panes show it, no tab left. */
static void
tsv_put(FILE *out, const char *s)
{
	canvas_fput(out, s);
}

static int
job_json(void *arg, const struct viewdb_job *jb)
{
	struct jobs_json *w = arg;

	if (w->tsv) {
		tsv_put(w->out, jb->name);
		fputc('\t', w->out);
		tsv_put(w->out, jb->outcome);
		fputc('\t', w->out);
		tsv_put(w->out, jb->marked);
		fprintf(w->out, "\t%lld\t%lld\t%lld\t%lld\t", (long long)jb->nodes,
		    (long long)jb->files, (long long)jb->bytes,
		    (long long)jb->lines);
		if (!isnan(jb->indexed))
			fprintf(w->out, "%.0f", jb->indexed);
		fputc('\t', w->out);
		tsv_put(w->out, jb->root);
		fputc('\n', w->out);
		return 0;
	}
	json_obj_begin(w->j);
	json_key(w->j, "name"); json_str(w->j, jb->name);
	json_key(w->j, "root"); json_str(w->j, jb->root);
	json_key(w->j, "outcome");
	json_str(w->j, jb->outcome[0] ? jb->outcome : NULL);
	json_key(w->j, "marked");
	json_str(w->j, jb->marked[0] ? jb->marked : NULL);
	json_key(w->j, "nodes"); json_int(w->j, jb->nodes);
	json_key(w->j, "files"); json_int(w->j, jb->files);
	json_key(w->j, "bytes"); json_int(w->j, jb->bytes);
	json_key(w->j, "lines"); json_int(w->j, jb->lines);
	json_key(w->j, "indexed"); json_num(w->j, jb->indexed);
	json_obj_end(w->j);
	return 0;
}

static void
events_data(struct view *v, struct json *j, FILE *out, int tsv)
{
	size_t n, i, *l = event_list(v, &n);

	if (tsv)
		fputs("rank\tscore\tcategory\tcount\tnodes\tfirst\tstage\t"
		    "iteration\ttemplate\n", out);
	else
		json_arr_begin(j);
	for (i = 0; i < n; i++) {
		const struct model_event *e = &v->m->events[l[i]];

		if (tsv) {
			fprintf(out, "%zu\t%.3f\t", i + 1, e->score);
			tsv_put(out, e->category);
			fprintf(out, "\t%llu\t%zu\t", (unsigned long long)e->count,
			    e->nnodes);
			tsv_put(out, e->path);
			fprintf(out, ":%ld\t%s\t", e->line,
			    stage_name((enum stage)e->stage));
			if (e->iteration >= 0)
				fprintf(out, "%ld", e->iteration);
			fputc('\t', out);
			tsv_put(out, e->text);
			fputc('\n', out);
			continue;
		}
		model_json_event(j, v->m, l[i], i + 1);
	}
	if (!tsv)
		json_arr_end(j);
	free(l);
}

static void
heatmap_data(struct view *v, struct json *j, FILE *out, int tsv)
{
	const struct model *m = v->m;
	struct hcols c;
	struct hm h;
	size_t r;
	int i;

	hm_build(v, &h, -1);
	hm_cols(v, 100000, &c);
	if (tsv) {
		fputs("node\tscore", out);
		for (i = 0; i < c.n; i++)
			fprintf(out, "\t%.0f", c.from + i * c.step);
		fputc('\n', out);
	} else {
		json_obj_begin(j);
		json_key(j, "by"); json_str(j, c.by_time ? "time" : "iteration");
		json_key(j, "columns");
		json_arr_begin(j);
		for (i = 0; i < c.n; i++)
			json_num(j, c.from + i * c.step);
		json_arr_end(j);
		json_key(j, "rows");
		json_arr_begin(j);
	}
	for (r = 0; r < h.nrows; r++) {
		size_t n = (size_t)h.rows[r].node;
		const struct model_node *nd = &m->nodes[n];

		if (tsv) {
			tsv_put(out, nd->name);
			fprintf(out, "\t%.3f", nd->score);
		} else {
			json_obj_begin(j);
			json_key(j, "node"); json_str(j, nd->name);
			json_key(j, "score"); json_numf(j, nd->score, 3);
			json_key(j, "missing"); json_bool(j, nd->missing);
			json_key(j, "cells");
			json_arr_begin(j);
		}
		for (i = 0; i < c.n; i++) {
			double lo = c.from + i * c.step;
			int fl, lv;

			hm_cell(m, n, lo, lo + c.step, &fl, &lv);
			if (fl & MODEL_MARK_END)
				lv = -1;	/* the log ends here */
			else if (lv == 0 && !hm_alive(m, n, &c, lo))
				lv = -2;	/* nothing: before or after */
			if (tsv)
				fprintf(out, "\t%d", lv);
			else
				json_int(j, lv);
		}
		if (tsv)
			fputc('\n', out);
		else {
			json_arr_end(j);
			json_obj_end(j);
		}
	}
	if (!tsv) {
		json_arr_end(j);
		json_obj_end(j);
	}
	hm_free(&h);
}

static void
groups_data(struct view *v, struct json *j, FILE *out, int tsv)
{
	const struct model_flows *f = &v->m->flows;
	size_t i;

	if (tsv)
		fputs("host\tnode\tdp\tpp\tcomm_ms\tcompute_ms\tstraggler\t"
		    "slow_link\n", out);
	else {
		json_obj_begin(j);
		json_key(j, "captures"); json_bool(j, f->present);
		json_key(j, "error"); json_str(j, f->error);
		json_key(j, "period_ms"); json_numf(j, f->period * 1e3, 3);
		json_key(j, "hosts");
		json_arr_begin(j);
	}
	for (i = 0; i < f->nhosts; i++) {
		const struct model_fhost *h = &f->hosts[i];
		long dg = host_group(f->dp, f->ndp, i);
		long pg = host_group(f->pp, f->npp, i);

		if (tsv) {
			tsv_put(out, h->addr);
			fputc('\t', out);
			tsv_put(out, h->name);
			fprintf(out, "\t%ld\t%ld\t%.3f\t%.3f\t%d\t%d\n", dg + 1,
			    pg + 1, h->comm * 1e3, h->compute * 1e3,
			    !!(h->flags & MODEL_FHOST_STRAGGLER),
			    !!(h->flags & MODEL_FHOST_SLOW_LINK));
			continue;
		}
		json_obj_begin(j);
		json_key(j, "host"); json_str(j, h->addr);
		json_key(j, "node"); json_str(j, h->name);
		json_key(j, "dp_group"); json_int(j, dg + 1);
		json_key(j, "pipeline"); json_int(j, pg + 1);
		json_key(j, "comm_ms"); json_numf(j, h->comm * 1e3, 3);
		json_key(j, "compute_ms"); json_numf(j, h->compute * 1e3, 3);
		json_key(j, "straggler");
		json_bool(j, h->flags & MODEL_FHOST_STRAGGLER);
		json_key(j, "slow_link");
		json_bool(j, h->flags & MODEL_FHOST_SLOW_LINK);
		json_obj_end(j);
	}
	if (!tsv) {
		json_arr_end(j);
		json_key(j, "findings");
		json_arr_begin(j);
		for (i = 0; i < f->nfindings; i++) {
			json_obj_begin(j);
			json_key(j, "kind"); json_str(j, f->findings[i].kind);
			json_key(j, "subject"); json_str(j, f->findings[i].subject);
			json_key(j, "from"); json_int(j, f->findings[i].from);
			json_key(j, "iterations");
			json_int(j, (int64_t)f->findings[i].niters);
			json_key(j, "magnitude");
			json_num(j, f->findings[i].magnitude);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
}

int
view_data(struct view *v, FILE *out, int tsv, char **cause)
{
	struct jobs_json w;
	struct json j;
	char *why = NULL;
	int rc = 0;

	if (v->st.pane != PANE_JOBS && v->m == NULL)
		return ts_fail(cause, "no job is open");
	if (v->st.pane == PANE_TIMELINE || v->st.pane == PANE_LINES)
		return ts_fail(cause, "the %s pane is text only (json and tsv: "
		    "events, heatmap, groups, jobs)", view_pane_name(v->st.pane));
	json_init(&j, out, 1);
	switch (v->st.pane) {
	case PANE_EVENTS:
		events_data(v, &j, out, tsv);
		break;
	case PANE_HEATMAP:
		heatmap_data(v, &j, out, tsv);
		break;
	case PANE_GROUPS:
		groups_data(v, &j, out, tsv);
		break;
	default:
		w.j = &j;
		w.out = out;
		w.tsv = tsv;
		if (tsv)
			fputs("name\toutcome\tmarked\tnodes\tfiles\tbytes\tlines\t"
			    "indexed\troot\n", out);
		else
			json_arr_begin(&j);
		if (v->cache == NULL || viewdb_each_job(v->cache, job_json, &w,
		    &why) != 0)
			rc = ts_fail(cause, "%s", why != NULL ? why : "no cache");
		free(why);
		if (!tsv)
			json_arr_end(&j);
	}
	if (!tsv)
		json_finish(&j);
	return rc != 0 ? -1 : ferror(out) ? ts_fail(cause, "cannot write") : 0;
}
