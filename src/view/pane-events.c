/*
 * pane-events.c -- the events pane: the ranked suspicious events.
 *
 * One row per event the filters leave, in the sort's order (rows.c):
 * its score as a number and a bar, category, count, nodes, when it was
 * first seen and its template.  Below the list, the selected event's
 * detail: where it was first seen, the trace of its error (the
 * traceback that leads to it), why it ranks, and what the fault library
 * says it means and what to do.  A drill shows its lines; the
 * diagnosis's own events (a rank that stops, a node that logged
 * nothing) have no template: they are a place, where a drill opens the
 * file, or none.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "diag/diag.h"
#include "base/json.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

/* The width of the nodes' names on a wide screen. */
#define NAMES_W	24

/* A count in at most five columns: 9999, 9999k, 9999M, ... 18E. */
static const char *
short_count(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "kMGTPE";
	uint64_t d = 1000;
	int u = 0;

	if (n < 10000) {
		snprintf(buf, len, "%llu", (unsigned long long)n);
		return buf;
	}
	for (; n / d >= 10000 && units[u + 1] != '\0'; u++)
		d *= 1000;
	snprintf(buf, len, "%llu%c", (unsigned long long)(n / d), units[u]);
	return buf;
}

/*
 * The first row of the selected event's detail: where it was first seen
 * (a template's first line), or where it is (the diagnosis's own event,
 * or one of a single iteration: "at"), with its time, stage and
 * iteration; an own event of no line (a node or rank that logged
 * nothing) says so.
 */
static void
detail_place(const struct model_event *ev, struct canvas *cv, int row, int w)
{
	const int at = model_event_own(ev) || ev->nlocs > 0;
	char t[32], more[64];
	int x;

	if (ev->path == NULL && at) {
		x = canvas_puts(cv, row, 0, CS_BOLD, "no line ");
		canvas_printf(cv, row, x, CS_NORMAL, "(what was not logged)  %s",
		    stage_name((enum stage)ev->stage));
		return;
	}
	x = canvas_puts(cv, row, 0, CS_BOLD, at ? "at " : "first ");
	x = canvas_put_clip(cv, row, x, w, CS_NORMAL, ev->path != NULL ?
	    ev->path : "-", ev->path != NULL ? strlen(ev->path) : 1);
	draw_clock(ev->ts, t, sizeof t);
	more[0] = '\0';
	if (ev->path != NULL)
		snprintf(more, sizeof more, ":%ld", ev->line);
	x = canvas_printf(cv, row, x, CS_NORMAL, "%s  %s  %s", more, t,
	    stage_name((enum stage)ev->stage));
	if (!at)
		return;
	more[0] = '\0';
	if (rows_iter_ok(ev->iteration))
		snprintf(more, sizeof more, ", iteration %ld", ev->iteration);
	if (ev->nlocs > 1)
		snprintf(more + strlen(more), sizeof more - strlen(more),
		    "  +%zu rank%s", ev->nlocs - 1, ev->nlocs == 2 ? "" : "s");
	canvas_puts(cv, row, x, CS_NORMAL, more);
}

/*
 * The trace of an error (the traceback's lines that lead to it, most
 * recent last): its last `rows` lines, the first of them saying how many
 * more are above.
 */
static void
detail_trace(struct area *a, int *used, const struct model_event *ev,
    int rows)
{
	size_t k = ev->ntrace > (size_t)rows ? ev->ntrace - (size_t)rows : 0;
	size_t first = k;
	int row, x;

	for (; k < ev->ntrace && (row = draw_row(a, used)) >= 0; k++) {
		x = 6;
		if (k == first)
			canvas_puts(a->cv, row, 0, CS_BOLD, "trace ");
		if (k == first && k > 0)
			x = canvas_printf(a->cv, row, x, CS_DIM, "(%zu above) ", k);
		draw_template(a->cv, row, x, a->w, CS_DIM, ev->trace[k], 0);
	}
}

/*
 * The selected event below the list: where it was first seen, the trace
 * of its error, why it ranks, what the fault library says it means and
 * what to do.  The library's texts always get their rows; the trace
 * takes up to half of the rest, the reasons share what is left.
 */
static void
event_detail(struct view *v, struct area *a, int *used, size_t e)
{
	const struct model_event *ev = &v->m->events[e];
	int row, room = a->nrows < 0 ? 1000 : a->nrows - *used;
	int rmeans = 0, rdo = 0, rtrace = 0;
	size_t k;

	if ((row = draw_row(a, used)) < 0)
		return;
	canvas_glyph(a->cv, row, 0, CS_DIM, GL_HLINE, a->w);
	if ((row = draw_row(a, used)) < 0)
		return;
	detail_place(ev, a->cv, row, a->w);
	room -= 2;
	if (ev->explain != NULL)
		rmeans = draw_wrap_rows(a->cv, a->w, 0, "means ", ev->explain,
		    2);
	if (ev->action != NULL)
		rdo = draw_wrap_rows(a->cv, a->w, 0, "do    ", ev->action, 2);
	if (rmeans + rdo > room)
		rmeans = room - rdo > 0 ? room - rdo : 0;
	if (rdo > room)
		rdo = room;
	room -= rmeans + rdo;
	if (ev->ntrace > 0 && room > 0) {
		rtrace = room >= 4 ? room / 2 : 1;
		if ((size_t)rtrace > ev->ntrace)
			rtrace = (int)ev->ntrace;
		room -= rtrace;
		detail_trace(a, used, ev, rtrace);
	}
	for (k = 0; k < ev->nreasons && room > 0; k++, room--) {
		if (room == 1 && k + 1 < ev->nreasons) {
			if ((row = draw_row(a, used)) >= 0)
				canvas_printf(a->cv, row, 0, CS_DIM, "- %zu more "
				    "reasons ('report -' lists them)",
				    ev->nreasons - k);
			break;
		}
		draw_wrap(a, used, 0, CS_NORMAL, "- ", ev->reasons[k],
		    strlen(ev->reasons[k]), 1);
	}
	if (rmeans > 0)
		draw_wrap(a, used, 0, CS_NORMAL, "means ", ev->explain,
		    strlen(ev->explain), rmeans);
	if (rdo > 0)
		draw_wrap(a, used, 0, CS_NORMAL, "do    ", ev->action,
		    strlen(ev->action), rdo);
}

/* Where the columns go: narrow screens drop some, wide ones add three. */
struct cols {
	int wide;		/* stage, iteration and the nodes' names too */
	int narrow;		/* no count, nodes and time */
	int x0;			/* where the stage, or the event, starts */
};

static void
events_titles(struct area *a, int *used, const struct cols *c)
{
	int row = draw_row(a, used), x = c->x0;

	canvas_puts(a->cv, row, 0, CS_BOLD, "score");
	canvas_puts(a->cv, row, 7, CS_BOLD, "category");
	if (!c->narrow)
		canvas_puts(a->cv, row, 18, CS_BOLD, "count nodes    first");
	if (c->wide) {
		canvas_puts(a->cv, row, x, CS_BOLD, "stage            iter  "
		    "on");
		x += 23 + NAMES_W + 1;
	}
	canvas_puts(a->cv, row, x, CS_BOLD, "event");
}

/*
 * The nodes an event is on, by name in NAMES_W columns at x: as many
 * as fit, then "+N" for the rest.
 */
static void
event_nodes(const struct model *m, const struct model_event *ev,
    struct canvas *cv, int row, int x)
{
	const char *name;
	char more[24];
	int used = 0, w;
	size_t i;

	for (i = 0; i < ev->nnodes; i++) {
		name = m->nodes[ev->nodes[i]].name;
		w = canvas_drawn_width(cv, name, strlen(name)) + (i > 0);
		snprintf(more, sizeof more, " +%zu", ev->nnodes - i - 1);
		/* room for this one, and for the count of the rest */
		if (used + w + (i + 1 < ev->nnodes ? (int)strlen(more) : 0) >
		    NAMES_W)
			break;
		if (i > 0)
			canvas_puts(cv, row, x + used, CS_DIM, ",");
		canvas_puts(cv, row, x + used + (i > 0), CS_NORMAL, name);
		used += w;
	}
	if (i < ev->nnodes) {
		snprintf(more, sizeof more, "%s+%zu", i > 0 ? " " : "",
		    ev->nnodes - i);
		canvas_puts(cv, row, x + used, CS_DIM, more);
	}
}

/* An event's row up to its template; where the template starts. */
static int
event_cells(const struct model *m, const struct model_event *ev,
    struct canvas *cv, int row, const struct cols *c)
{
	char cnt[16], t[16], it[24];
	double s = rows_score(ev->score);
	int x = c->x0;

	/* the value, a blank, then its bar: they never touch */
	canvas_printf(cv, row, 0, s >= 0.5 ? CS_BOLD : CS_DIM, "%2.0f",
	    s * 100 > 99 ? 99 : s * 100);
	draw_bar(cv, row, 3, 3, ev->score);
	if (ev->category != NULL)
		canvas_put_clip(cv, row, 7, 17, canvas_category_style(
		    ev->category), ev->category, strlen(ev->category));
	if (!c->narrow) {
		canvas_printf(cv, row, 18, CS_NORMAL, "%5s %5zu",
		    short_count(ev->count, cnt, sizeof cnt), ev->nnodes);
		draw_clock(ev->ts, t, sizeof t);
		canvas_printf(cv, row, 30, CS_DIM, "%8s", t);
	}
	if (c->wide) {
		/* an unknown stage is "-", as an unknown time is */
		canvas_puts(cv, row, x, CS_DIM, ev->stage == STAGE_NONE ? "-" :
		    stage_name((enum stage)ev->stage));
		if (rows_iter_ok(ev->iteration)) {
			snprintf(it, sizeof it, "%5ld", ev->iteration);
			canvas_puts(cv, row, x + 16, CS_DIM, it);
		}
		event_nodes(m, ev, cv, row, x + 23);
		x += 23 + NAMES_W + 1;
	}
	return x;
}

/* An event's row: its cells, then its template from hscroll on. */
static void
event_row(struct view *v, const struct model_event *ev, struct area *a,
    int row, const struct cols *c)
{
	const int skip = v->st.hscroll[PANE_EVENTS];
	int x = event_cells(v->m, ev, a->cv, row, c), tw;

	tw = canvas_drawn_width(a->cv, ev->text, strlen(ev->text)) - skip -
	    (a->w - x);
	if (tw > v->hwide)
		v->hwide = tw;
	draw_template(a->cv, row, x, a->w, ev->level >= DIAG_LEVEL_ERROR ?
	    CS_ERROR : ev->level == DIAG_LEVEL_WARN ? CS_WARN : CS_NORMAL,
	    ev->text, skip);
	if (v->search_re != NULL && view_regex_find(v->search_re, ev->text,
	    strlen(ev->text), NULL, NULL))
		canvas_add_attr(a->cv, row, x, -1, CA_MATCH);
}

static void
events_draw(struct view *v, struct area *a, int *used)
{
	const struct rows *r = rows_get(v);
	/* at 80x24: ten events, and ten rows for the selected one */
	int row, detail = a->nrows < 0 ? 0 : a->nrows >= 16 ?
	    (a->nrows - 11 > 12 ? 12 : a->nrows - 11) : 5;
	struct cols c;
	size_t i;

	c.wide = a->w >= 120;
	c.narrow = a->w < 64;
	c.x0 = c.narrow ? 18 : 39;
	events_titles(a, used, &c);
	if (a->nrows >= 0 && a->nrows < 16) {
		/* short: four events first, the detail only with room left */
		int left = a->nrows - *used;

		detail = left >= 9 ? 5 : left >= 6 ? left - 4 : 0;
	}
	if (r->n == 0 && (row = draw_row(a, used)) >= 0)
		canvas_puts(a->cv, row, 0, CS_DIM, v->m->nevents == 0 ?
		    "no events" : "no event passes the filters");
	v->page = 0;
	v->hwide = 0;
	v->hwide_pane = PANE_EVENTS + 1;
	for (i = (size_t)v->st.top[PANE_EVENTS]; i < r->n; i++) {
		if (a->nrows >= 0 && *used >= a->nrows - detail)
			break;
		row = draw_row(a, used);
		v->page++;
		draw_map(a, row, (long)i);
		event_row(v, &v->m->events[r->row[i].item], a, row, &c);
		if ((int)i == v->st.cursor[PANE_EVENTS])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
	}
	if (a->nrows >= 0 && r->n > 0 && detail > 0) {
		while (*used < a->nrows - detail)
			draw_row(a, used);
		event_detail(v, a, used,
		    r->row[v->st.cursor[PANE_EVENTS]].item);
	}
}

/*
 * An event's lines; the diagnosis's own event (of no template) is a
 * place: its file around its line, or nothing when it has no line (a
 * node or rank that logged nothing).
 */
static int
events_target(struct view *v, size_t r, struct view_target *t)
{
	const struct model_event *e = &v->m->events[rows_get(v)->row[r].item];
	long node = -1;
	size_t i;

	if (model_event_own(e) && e->nlocs == 0) {
		if (e->path == NULL || e->line < 1) {
			t->why = "no line: this event is what was not logged";
			return -1;
		}
		t->kind = VT_LINE;
		t->name = e->path;
		t->iter = e->line;
		return 0;
	}
	/* the lines of the event on the node the filter keeps */
	for (i = 0; i < v->st.nfilters; i++)
		if (v->st.filters[i].kind == VF_NODE &&
		    !v->st.filters[i].negate)
			node = v->st.filters[i].a;
	t->kind = VT_EVENT;
	t->id = e->id;
	t->node = node;
	return 0;
}

static int
events_match(struct view *v, size_t r, void *re)
{
	const struct rows *rs = rows_get(v);
	const char *text;

	if (r >= rs->n)
		return 0;
	text = v->m->events[rs->row[r].item].text;
	return view_regex_find(re, text, strlen(text), NULL, NULL);
}

static int
events_data(struct view *v, struct json *j, FILE *out, int tsv,
    char **cause)
{
	const struct rows *r = rows_get(v);
	size_t n = r->n, i;

	if (tsv)
		fputs("position\tscore\tcategory\tcount\tnodes\tfirst\tstage\t"
		    "iteration\ttemplate\n", out);
	else
		json_arr_begin(j);
	for (i = 0; i < n; i++) {
		const struct model_event *e = &v->m->events[r->row[i].item];

		if (tsv) {
			fprintf(out, "%zu\t%.3f\t", i + 1, e->score);
			canvas_fput(out, e->category);
			fprintf(out, "\t%llu\t%zu\t", (unsigned long long)e->count,
			    e->nnodes);
			canvas_fput(out, e->path);
			fprintf(out, ":%ld\t%s\t", e->line,
			    stage_name((enum stage)e->stage));
			if (e->iteration >= 0)
				fprintf(out, "%ld", e->iteration);
			fputc('\t', out);
			canvas_fput(out, e->text);
			fputc('\n', out);
			continue;
		}
		model_json_event(j, v->m, r->row[i].item);
	}
	if (!tsv)
		json_arr_end(j);
	(void)cause;
	return 0;
}

const struct pane_ops pane_events = {
	.name = "events",
	.flags = PF_JOB | PF_HSCROLL,
	.build = rows_events,
	.draw = events_draw,
	.target = events_target,
	.match = events_match,
	.data = events_data,
	.markcol = 2		/* between the score and its bar */
};
