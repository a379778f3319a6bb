/*
 * rows.c -- the row model of the list panes: filters, sort, row lists.
 *
 * A pane's rows are built from the model and the view state (filters,
 * sort, the heatmap's unfolded group, the screen's height) once, and kept
 * in the view with what they were built for: the view's generation,
 * which every change of the state or the model moves on, and the height.
 * Drawing, the drill target, search and export read the kept rows, so a
 * search over n rows costs n matches, not n rebuilds.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag/model.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

void
rows_add(struct rows *r, size_t item, size_t n)
{
	r->row = xreallocarray(r->row, r->n + 1, sizeof *r->row);
	r->row[r->n].item = item;
	r->row[r->n].n = n;
	r->n++;
}

void
rows_release(struct rows *r)
{
	free(r->row);
	free(r->members);
	if (r->aux_free != NULL)
		r->aux_free(r->aux);
	free(r->error);
	memset(r, 0, sizeof *r);
}

const struct rows *
rows_get(struct view *v)
{
	const struct pane_ops *ops = pane_get(v->st.pane);
	struct rows *r;

	if (ops->build == NULL || (v->m == NULL && (ops->flags & PF_JOB)))
		return NULL;
	if (v->rows[v->st.pane] == NULL)
		v->rows[v->st.pane] = xcalloc(1, sizeof *r);
	r = v->rows[v->st.pane];
	if (r->valid && r->gen == v->gen && r->height == v->height)
		return r;
	rows_release(r);
	ops->build(v, r);
	r->valid = 1;
	r->gen = v->gen;
	r->height = v->height;
	return r;
}

void
rows_drop(struct view *v, int p)
{
	int i;

	for (i = 0; i < PANE_COUNT; i++)
		if ((p < 0 || i == p) && v->rows[i] != NULL) {
			rows_release(v->rows[i]);
			if (p < 0) {
				free(v->rows[i]);
				v->rows[i] = NULL;
			}
		}
}

/* ---- the model's numbers the panes take as they are ---- */

/*
 * An iteration number past 2^53 is no count of steps (and a double, in
 * which axes and columns are reckoned, no longer holds it exactly).
 */
#define ITER_MAX (1L << 53)

int
rows_iter_ok(long it)
{
	return it >= 0 && it <= ITER_MAX;
}

int
rows_iter_span(const struct model *m, long *first, long *last)
{
	size_t i, j;

	for (i = 0; i < m->niters && !rows_iter_ok(m->iters[i].iteration); i++)
		;
	if (i == m->niters)
		return 0;
	for (j = m->niters; !rows_iter_ok(m->iters[j - 1].iteration); j--)
		;
	*first = m->iters[i].iteration;
	*last = m->iters[j - 1].iteration;
	return 1;
}

double
rows_score(double s)
{
	return isnan(s) || s < 0 ? 0 : s > 1 ? 1 : s;
}

int
rows_ms_ok(double ms)
{
	return isfinite(ms) && ms >= 0 && ms < 1e12;
}

/* ---- filters ---- */

int
rows_iter_range(const struct view *v, long *a, long *b)
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

/* ---- the events: filtered, then sorted ---- */

static const struct model *sort_model;
static enum view_sort sort_key;

static int
cmp_event(const void *a, const void *b)
{
	const struct model_event *x = &sort_model->events[*(const size_t *)a];
	const struct model_event *y = &sort_model->events[*(const size_t *)b];
	double xs, ys;

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
	/* (a score that is no number ranks last) */
	xs = isnan(x->score) ? -INFINITY : x->score;
	ys = isnan(y->score) ? -INFINITY : y->score;
	if (xs != ys)
		return xs > ys ? -1 : 1;
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
	ts_qsort(l, *n, sizeof *l, cmp_event);
	return l;
}

size_t *
view_event_rows(const struct view *v, size_t *n)
{
	return event_list(v, n);
}

void
rows_events(struct view *v, struct rows *r)
{
	size_t n, i, *l = event_list(v, &n);

	r->row = xcalloc(n + 1, sizeof *r->row);
	for (i = 0; i < n; i++)
		r->row[i].item = l[i];
	r->n = n;
	free(l);
}

/* ---- the heatmap: suspects first, the others folded ---- */

int
rows_suspect(const struct model *m, size_t n)
{
	double top = m->nsuspects > 0 ? m->nodes[m->suspects[0]].score : 0;

	return m->nodes[n].rank > 0 && m->nodes[n].rank <= 8 &&
	    m->nodes[n].score >= 0.3 && m->nodes[n].score >= 0.5 * top;
}

/*
 * The nodes in row order: the suspects (by rank), then the others by
 * suspicion too (in node order among equals) and any node the ranking
 * left out.  Returns how many of them are suspects.
 */
static size_t
heatmap_order(const struct view *v, struct rows *r)
{
	const struct model *m = v->m;
	size_t i, nsus;
	unsigned char *seen;

	r->members = xcalloc(m->nnodes + 1, sizeof *r->members);
	for (i = 0; i < m->nsuspects; i++)
		if (rows_suspect(m, m->suspects[i]) && node_passes(v,
		    m->suspects[i]))
			r->members[r->nmembers++] = m->suspects[i];
	nsus = r->nmembers;
	seen = xcalloc(m->nreal + 1, 1);
	for (i = 0; i < m->nsuspects; i++)
		if (m->suspects[i] < m->nreal) {
			seen[m->suspects[i]] = 1;
			if (!rows_suspect(m, m->suspects[i]) &&
			    node_passes(v, m->suspects[i]))
				r->members[r->nmembers++] = m->suspects[i];
		}
	for (i = 0; i < m->nreal; i++)
		if (!seen[i] && node_passes(v, i))
			r->members[r->nmembers++] = i;
	free(seen);
	return nsus;
}

void
rows_heatmap_fold(const struct view *v, struct rows *r, int room)
{
	size_t i, nsus, rest, per, *o;

	nsus = heatmap_order(v, r);
	o = r->members;
	r->row = xcalloc(r->nmembers + 1, sizeof *r->row);
	rest = r->nmembers - nsus;
	if (v->st.hm_group >= 0) {
		/* a drilled group: its nodes only, one row each */
		size_t g = (size_t)v->st.hm_group, e = g + (size_t)v->st.hm_count;

		for (i = g; i < e && i < r->nmembers; i++)
			r->row[r->n++].item = o[i];
		if (r->n > 0)
			return;
	}
	if (room < 0 || (long)r->nmembers <= room || room <= (long)nsus + 1)
		per = 1;
	else {
		size_t slots = (size_t)room - nsus;

		per = (rest + slots - 1) / slots;
	}
	for (i = 0; i < nsus; i++)
		r->row[r->n++].item = o[i];
	for (i = nsus; i < r->nmembers; i += per) {
		struct row *w = &r->row[r->n++];

		w->item = per == 1 ? o[i] : i;
		w->n = per == 1 ? 0 : i + per > r->nmembers ? r->nmembers - i :
		    per;
	}
}

int
rows_heatmap_room(int h)
{
	/* the header, the tabs, the status line and the heatmap's own
	   four rows (titles, axis, failure mark, legend) */
	return h <= 0 ? -1 : h - 7;
}

void
rows_heatmap(struct view *v, struct rows *r)
{
	rows_heatmap_fold(v, r, rows_heatmap_room(v->height));
}

/* ---- the timeline's iterations, the groups' hosts or nodes ---- */

void
rows_timeline(struct view *v, struct rows *r)
{
	long a, b;
	size_t i;
	int any = rows_iter_range(v, &a, &b);

	r->row = xcalloc(v->m->niters + 1, sizeof *r->row);
	for (i = 0; i < v->m->niters; i++)
		if (rows_iter_ok(v->m->iters[i].iteration) && (!any ||
		    (v->m->iters[i].iteration >= a &&
		    v->m->iters[i].iteration <= b)))
			r->row[r->n++].item = i;
}

void
rows_groups(struct view *v, struct rows *r)
{
	/* without captures: the nodes the logs show */
	size_t n = v->m->flows.present ? v->m->flows.nhosts : v->m->nreal, i;

	r->row = xcalloc(n + 1, sizeof *r->row);
	for (i = 0; i < n; i++)
		r->row[i].item = i;
	r->n = n;
}
