/*
 * pane-timeline.c -- the timeline: the job's stages on a time axis.
 *
 * Above the list: a bar per stage the job went through, a tick per
 * iteration (! anomalous, X the failure) with its duration as a spark
 * line below, the iterations the captures show, and the nodes whose logs
 * ended early.  The list below has a row per iteration the filters keep
 * (rows.c); a drill filters the events to it.  A long quiet stretch of
 * the axis is cut out so that the rest keeps its room.
 *
 * Where the captures' iterations were joined to the logs' (modeljoin.c),
 * each is drawn on the logs' axis with its length on the wire on the
 * logs' scale, a row says which capture iterations are which log
 * iterations and how far apart their lengths are, and each row of the
 * list has its capture iteration, the wire's length and the difference;
 * without a join the captures' iterations are ticks, as the capture
 * alone has them.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "diag/diag.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/stats.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

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
	double f;

	if (hi <= lo || n <= 1)
		return c0;
	/* (clamped before it is an int: at may lie anywhere, or be none) */
	f = (at - lo) / (hi - lo) * (n - 1);
	return c0 + (!(f > 0) ? 0 : f >= n - 1 ? n - 1 : (int)f);
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
	/* (what lies off the axis, or at no time, has no say) */
	for (i = 0; i < m->nspans; i++) {
		if (m->spans[i].start >= t->from && m->spans[i].start <= t->to)
			p[n++] = m->spans[i].start;
		if (m->spans[i].end >= t->from && m->spans[i].end <= t->to)
			p[n++] = m->spans[i].end;
	}
	for (i = 0; i < m->niters; i++)
		if (m->iters[i].start >= t->from && m->iters[i].start <= t->to)
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
	draw_clock(t->b0, b1, sizeof b1);
	draw_clock(t->b1, b2, sizeof b2);
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
		if ((row = draw_row(a, used)) < 0)
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

/*
 * An iteration's tick on the axis's row (| ! X), unless a stronger one
 * is there, and its duration on the spark row, in [lo, hi] as eighths.
 */
static void
tl_tick(const struct model_iter *it, struct canvas *cv, int row, int spark,
    int c, double lo, double hi)
{
	int style = CS_DIM, lv;
	const char *g = "|";

	if (it->flags & MODEL_ITER_ANOMALOUS) {
		style = CS_WARN;
		g = "!";
	}
	if (it->flags & MODEL_ITER_FAILURE) {
		style = CS_ERROR;
		g = "X";
	}
	if (canvas_cell(cv, row, c) != NULL && style == CS_DIM &&
	    canvas_cell(cv, row, c)->style != CS_NORMAL)
		return;
	canvas_puts(cv, row, c, style, g);
	if (rows_ms_ok(it->ms) && hi > lo) {
		lv = (int)((it->ms - lo) / (hi - lo) * 7.0);
		canvas_glyph(cv, spark, c, it->flags & MODEL_ITER_SLOW ?
		    CS_WARN : CS_NORMAL, (enum canvas_glyph)(GL_BAR1 + lv), 1);
	} else if (rows_ms_ok(it->ms))
		canvas_glyph(cv, spark, c, CS_NORMAL, GL_BAR1 + 3, 1);
}

/* A capture iteration's length on the wire, ms (NAN: none). */
static double
wire_ms(const struct model_fiter *f)
{
	return (f->end - f->start) * 1e3;
}

/* Whether the join's offset is one the panes can add to an iteration. */
static int
join_ok(const struct model_flows *f)
{
	return f->join != MODEL_JOIN_NONE && f->join_offset > -(1L << 53) &&
	    f->join_offset < (1L << 53);
}

/* The capture iteration joined to log iteration it, or NULL. */
static const struct model_fiter *
fiter_of(const struct model *m, long it)
{
	const struct model_flows *f = &m->flows;
	long k;

	if (!join_ok(f) || !rows_iter_ok(it))
		return NULL;
	k = it - f->join_offset - 1;
	if (k < 0 || (unsigned long)k >= f->niters || f->iters[k].log_iter != it)
		return NULL;
	return &f->iters[k];
}

/*
 * How far the captures' clock is behind the logs': nothing when they
 * were joined by the times of the lines (one clock); joined by
 * durations, the median of a log iteration's start less its capture
 * iteration's.
 */
static double
clock_shift(const struct model *m)
{
	const struct model_flows *f = &m->flows;
	double *d, shift = 0;
	size_t k, n = 0;
	long i;

	if (f->join != MODEL_JOIN_DURATION)
		return 0;
	d = xcalloc(f->niters + 1, sizeof *d);
	for (k = 0; k < f->niters; k++)
		if (f->iters[k].log_iter >= 0 && (i = model_iter_index(m,
		    f->iters[k].log_iter)) >= 0 && isfinite(m->iters[i].start -
		    f->iters[k].start))
			d[n++] = m->iters[i].start - f->iters[k].start;
	if (n > 0)
		shift = stats_median(d, n);
	free(d);
	return shift;
}

/*
 * The captures' iterations joined to the logs': each at its place on the
 * logs' axis (its start on their clock, or its log iteration), its
 * length on the wire as a bar on the scale [lo, hi] of the logs'
 * durations above it (a full one, marked, past it: a checkpoint save's
 * pause the logs' figure leaves out); dim where no log iteration took
 * it.
 */
static void
tl_wire_row(const struct model *m, struct area *a, int *used,
    const struct taxis *t, double lo, double hi)
{
	const struct model_flows *f = &m->flows;
	double shift = clock_shift(m), at, ms, lv;
	int row, st;
	size_t k;

	if ((row = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "on the wire");
	for (k = 0; k < f->niters; k++) {
		const struct model_fiter *it = &f->iters[k];

		at = t->time ? it->start + shift : it->log_iter >= 0 &&
		    rows_iter_ok(it->log_iter) ? (double)it->log_iter : NAN;
		if (!isfinite(at))
			continue;
		ms = wire_ms(it);
		st = isnan(it->log_ms) ? CS_DIM : CS_NORMAL;
		if (!rows_ms_ok(ms) || !(hi >= lo)) {
			canvas_puts(a->cv, row, tx(t, at), st, "|");
			continue;
		}
		/* (clamped before it is an int: the wire's may be any length) */
		lv = hi > lo ? (ms - lo) / (hi - lo) * 7.0 : 3;
		if (ms > hi + 0.2 * (hi - lo) && ms > hi * 1.1)
			st = CS_WARN;
		canvas_glyph(a->cv, row, tx(t, at), st, (enum canvas_glyph)
		    (GL_BAR1 + (!(lv > 0) ? 0 : lv >= 7 ? 7 : (int)lv)), 1);
	}
}

/*
 * How the captures' iterations met the logs': which capture iterations
 * are which log iterations, how they were matched, and the median of
 * the wire's length less the logs'.
 */
static void
tl_join(const struct model *m, struct area *a, int *used)
{
	const struct model_flows *f = &m->flows;
	char buf[160];
	int row;

	if (!join_ok(f) || f->niters == 0 || (row = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "wire vs logs");
	snprintf(buf, sizeof buf, "capture 1-%zu = log %ld-%ld (by %s)",
	    f->niters, 1 + f->join_offset, (long)f->niters + f->join_offset,
	    model_join_name(f->join));
	if (isfinite(f->join_ms) && isfinite(f->join_pct) &&
	    fabs(f->join_ms) < 1e9 && fabs(f->join_pct) < 1e9)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    ", median %+.1f ms %+.1f %%", f->join_ms, f->join_pct);
	canvas_put_clip(a->cv, row, 16, a->w, CS_NORMAL, buf, strlen(buf));
}

static void
tl_iter_rows(struct view *v, struct area *a, int *used,
    const struct taxis *t)
{
	const struct model *m = v->m;
	double lo = INFINITY, hi = -INFINITY, at;
	int row, spark;
	size_t i;

	if (m->niters == 0)
		return;
	if ((row = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, row, 0, CS_BOLD, "iterations");
	if ((spark = draw_row(a, used)) < 0)
		return;
	canvas_puts(a->cv, spark, 0, CS_BOLD, "duration");
	for (i = 0; i < m->niters; i++)
		if (rows_ms_ok(m->iters[i].ms)) {
			lo = fmin(lo, m->iters[i].ms);
			hi = fmax(hi, m->iters[i].ms);
		}
	for (i = 0; i < m->niters; i++) {
		at = t->time ? m->iters[i].start : (double)m->iters[i].iteration;
		if (!isnan(at) && (t->time || rows_iter_ok(m->iters[i].iteration)))
			tl_tick(&m->iters[i], a->cv, row, spark, tx(t, at), lo,
			    hi);
	}
	if (m->flows.join != MODEL_JOIN_NONE)
		tl_wire_row(m, a, used, t, lo, hi);
	else if (m->flows.niters > 0 && t->time &&
	    (row = draw_row(a, used)) >= 0) {
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
		if (rows_iter_ok(m->nodes[i].last_iter) &&
		    m->nodes[i].last_iter > maxlast)
			maxlast = m->nodes[i].last_iter;
	buf_init(&b);
	for (i = 0; i < m->nreal; i++) {
		const struct model_node *nd = &m->nodes[i];

		/* (no iteration line at all: nothing ended early) */
		if (nd->missing || !rows_iter_ok(nd->last_iter) ||
		    nd->last_iter >= maxlast)
			continue;
		if (n++ < 6)
			buf_addf(&b, "%s%s at %ld", n > 1 ? ", " : "", nd->name,
			    nd->last_iter);
	}
	if (n > 6)
		buf_addf(&b, " and %zu more", n - 6);
	if (n > 0 && (row = draw_row(a, used)) >= 0) {
		canvas_puts(a->cv, row, 0, CS_BOLD, "ended early ");
		canvas_put_clip(a->cv, row, 12, a->w, CS_ERROR, buf_str(&b),
		    b.len);
	}
	buf_release(&b);
}

/* The axis over the logs' times, or their iterations. */
static void
tl_axis(const struct model *m, struct area *a, struct taxis *t)
{
	long first, last;

	memset(t, 0, sizeof *t);
	t->x0 = 16;
	t->w = a->w - t->x0 - 1;
	t->time = isfinite(m->first_ts) && isfinite(m->last_ts) &&
	    m->last_ts > m->first_ts && isfinite(m->last_ts - m->first_ts);
	if (t->time) {
		t->from = m->first_ts;
		t->to = m->last_ts;
		tx_cut(t, m);
	} else if (rows_iter_span(m, &first, &last)) {
		t->from = (double)first;
		t->to = (double)last;
	}
}

/* The axis's first row: where it starts and ends. */
static void
tl_axis_labels(const struct model *m, struct area *a, int *used,
    const struct taxis *t)
{
	char b1[16], b2[16];
	long first, last;
	int row = draw_row(a, used);

	if (t->time) {
		draw_clock(t->from, b1, sizeof b1);
		draw_clock(t->to, b2, sizeof b2);
		canvas_puts(a->cv, row, t->x0, CS_DIM, b1);
		canvas_puts(a->cv, row, t->x0 + t->w - (int)strlen(b2), CS_DIM,
		    b2);
		tx_break_labels(t, a->cv, row);
	} else if (rows_iter_span(m, &first, &last)) {
		canvas_printf(a->cv, row, t->x0, CS_DIM, "iteration %.0f",
		    t->from);
		snprintf(b2, sizeof b2, "%.0f", t->to);
		canvas_puts(a->cv, row, t->x0 + t->w - (int)strlen(b2), CS_DIM,
		    b2);
	}
	canvas_puts(a->cv, row, 0, CS_BOLD, t->time ? "time (UTC)" :
	    "no times");
}

/* Columns of the list's rows past the durations: where the flags go. */
#define TL_FLAGS	29
#define TL_FLAGS_JOINED	51

/*
 * The capture iteration of a list row, when the captures were joined:
 * its number, its length on the wire and how much longer than the
 * logs' that is.
 */
static void
tl_iter_wire(const struct model *m, const struct model_iter *it,
    struct canvas *cv, int row)
{
	const struct model_fiter *f = fiter_of(m, it->iteration);
	double ms;

	if (f == NULL)
		return;
	ms = wire_ms(f);
	canvas_printf(cv, row, 24, CS_NORMAL, "%7zu", (size_t)(f -
	    m->flows.iters) + 1);
	if (f->ckpt)
		canvas_puts(cv, row, TL_FLAGS_JOINED + 23, CS_DIM, "save");
	if (!rows_ms_ok(ms))
		return;
	canvas_printf(cv, row, 32, CS_NORMAL, "%8.0f", ms);
	if (rows_ms_ok(f->log_ms) && fabs(ms - f->log_ms) < 1e9)
		canvas_printf(cv, row, 41, fabs(ms - f->log_ms) > 0.2 *
		    f->log_ms ? CS_WARN : CS_DIM, "%+8.1f", ms - f->log_ms);
}

/*
 * A row of the list: an iteration, when it started, how long it took;
 * joined, its capture iteration beside it.
 */
static void
tl_iter(const struct model *m, const struct model_iter *it,
    struct canvas *cv, int row)
{
	int x = join_ok(&m->flows) ? TL_FLAGS_JOINED : TL_FLAGS;
	char b1[16];

	draw_clock(it->start, b1, sizeof b1);
	canvas_printf(cv, row, 0, CS_NORMAL, "%6ld  %8s  ", it->iteration, b1);
	if (rows_ms_ok(it->ms))
		canvas_printf(cv, row, x == TL_FLAGS ? 18 : 16, CS_NORMAL,
		    "%8.0f", it->ms);
	tl_iter_wire(m, it, cv, row);
	if (it->flags & MODEL_ITER_FAILURE)
		canvas_puts(cv, row, x, CS_ERROR, "failure ");
	if (it->flags & MODEL_ITER_ANOMALOUS)
		canvas_puts(cv, row, x + 8, CS_WARN, "anomalous ");
	if (it->flags & MODEL_ITER_SLOW)
		canvas_puts(cv, row, x + 18, CS_WARN, "slow");
}

static void
timeline_draw(struct view *v, struct area *a, int *used)
{
	const struct rows *r = rows_get(v);
	struct taxis t;
	size_t i;
	int row;

	tl_axis(v->m, a, &t);
	tl_axis_labels(v->m, a, used, &t);
	tl_stage_rows(v, a, used, &t);
	tl_iter_rows(v, a, used, &t);
	tl_join(v->m, a, used);
	tl_ended(v, a, used);
	if ((row = draw_row(a, used)) < 0)
		return;
	if (v->m->iter_width > 1)
		canvas_printf(a->cv, row, 0, CS_BOLD, "  from     start   mean ms"
		    "  (a row is a bucket of %ld iterations)",
		    v->m->iter_width);
	else
		canvas_puts(a->cv, row, 0, CS_BOLD, join_ok(&v->m->flows) ?
		    "  iter     start  log ms  capture  wire ms  diff ms" :
		    "  iter     start        ms  ");
	v->page = 0;
	if (v->m->niters == 0 && (row = draw_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, "the logs name no iterations");
	for (i = (size_t)v->st.top[PANE_TIMELINE]; i < r->n; i++) {
		if ((row = draw_row(a, used)) < 0)
			break;
		v->page++;
		draw_map(a, row, (long)i);
		tl_iter(v->m, &v->m->iters[r->row[i].item], a->cv, row);
		if ((int)i == v->st.cursor[PANE_TIMELINE])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
	}
}

static int
timeline_target(struct view *v, size_t r, struct view_target *t)
{
	t->kind = VT_ITER;
	t->iter = v->m->iters[rows_get(v)->row[r].item].iteration;
	return 0;
}

/* The stages, the logs' iterations and the captures' joined to them. */
static int
timeline_data(struct view *v, struct json *j, FILE *out, int tsv,
    char **cause)
{
	if (model_timeline_data(j, out, v->m, tsv) != 0)
		return ts_fail(cause, "cannot write");
	return 0;
}

const struct pane_ops pane_timeline = {
	.name = "timeline",
	.flags = PF_JOB,
	.build = rows_timeline,
	.draw = timeline_draw,
	.target = timeline_target,
	.data = timeline_data
};
