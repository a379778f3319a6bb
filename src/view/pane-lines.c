/*
 * pane-lines.c -- the lines pane: the raw lines behind an event, or a
 * file around a line.
 *
 * The rows (viewlines.c) are every line of an event with its context,
 * or a window of one file; their text is read when a row is drawn or
 * searched.  A row shows the file (unless all rows share it), the line
 * number, an arrow on the event's own lines and a bar on the lines of
 * their error's trace (the traceback before it), and the text, scrolled
 * sideways; below the list, the cursor's line whole.  A drill on an
 * event's line shows its file around it.  The view's filters hide rows,
 * and a search goes through the whole job's raw lines (viewlines.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "diag/model.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

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
	int row, x, pw;

	if ((size_t)v->st.cursor[PANE_LINES] >= v->nlines)
		return;
	l = &v->lines[v->st.cursor[PANE_LINES]];
	view_lines_fill(v, (size_t)v->st.cursor[PANE_LINES],
	    (size_t)v->st.cursor[PANE_LINES] + 1);
	if ((row = draw_row(a, used)) < 0)
		return;
	canvas_glyph(a->cv, row, 0, CS_DIM, GL_HLINE, a->w);
	if ((row = draw_row(a, used)) < 0)
		return;
	snprintf(num, sizeof num, ":%llu", (unsigned long long)l->line);
	x = a->w - (int)strlen(num);
	draw_tail(a->cv, row, 0, x, CS_BOLD, l->path);
	pw = canvas_drawn_width(a->cv, l->path, strlen(l->path));
	canvas_puts(a->cv, row, pw < x ? pw : x, CS_BOLD, num);
	if (l->text != NULL)
		draw_wrap(a, used, 0, l->hit ? CS_BOLD : CS_NORMAL, NULL,
		    l->text, l->len, LINES_DETAIL - 2);
}

/* The first row: what the lines are. */
static void
lines_title(struct view *v, struct area *a, int row)
{
	long e;
	size_t i, hits = 0;
	int x;

	if (v->st.lsrc != LS_EVENT) {
		canvas_printf(a->cv, row, 0, CS_BOLD, "%s around line %ld",
		    v->st.l_path, v->st.l_line);
		return;
	}
	e = model_event_index(v->m, v->st.l_event);
	for (i = 0; i < v->nlines; i++)
		hits += v->lines[i].hit != 0;
	if (hits < v->nlines)	/* the rest is context */
		x = canvas_printf(a->cv, row, 0, CS_BOLD, "%zu line%s (%zu with "
		    "context) of ", hits, hits == 1 ? "" : "s", v->nlines);
	else
		x = canvas_printf(a->cv, row, 0, CS_BOLD, "%zu line%s of ", hits,
		    hits == 1 ? "" : "s");
	if (e >= 0)
		draw_template(a->cv, row, x, a->w, CS_BOLD, v->m->events[e].text,
		    0);
}

/*
 * The columns of the files' names (0: one file, named in the title) and
 * of the line numbers.
 */
static void
lines_widths(const struct view *v, const struct canvas *cv, int w, int *pw,
    int *nw)
{
	int one = lines_one_file(v), l;
	char num[24];
	size_t i;

	*pw = 0;
	*nw = 1;
	for (i = 0; i < v->nlines; i++) {
		l = one ? 0 : canvas_drawn_width(cv, v->lines[i].path,
		    strlen(v->lines[i].path));
		if (l > *pw)
			*pw = l;
		snprintf(num, sizeof num, "%llu",
		    (unsigned long long)v->lines[i].line);
		if ((int)strlen(num) > *nw)
			*nw = (int)strlen(num);
	}
	if (*pw > w / 4)
		*pw = w / 4;
}

/* Row i of the list: file, number, arrow, text; where the text starts. */
static int
lines_row(struct view *v, struct area *a, int row, size_t i, size_t top,
    int pw, int nw)
{
	const struct view_line *l = &v->lines[i];
	const int skip = v->st.hscroll[PANE_LINES];
	int x = pw > 0 ? pw + 1 : 0, w;
	/* the line, its error's trace, the rest of the context */
	int st = l->hit || l->trace ? CS_NORMAL : CS_DIM;
	int tst = l->hit ? CS_BOLD : l->trace ? CS_NORMAL : CS_DIM;

	/* a file's name on its first row and at the top of the page */
	if (pw > 0 && (i == top || l->path != v->lines[i - 1].path))
		draw_tail(a->cv, row, 0, pw, st, l->path);
	canvas_printf(a->cv, row, x, st, "%*llu", nw,
	    (unsigned long long)l->line);
	x += nw + 1;
	if (l->hit)
		canvas_glyph(a->cv, row, x, CS_BOLD, GL_ARROW_RIGHT, 1);
	else if (l->trace)
		canvas_glyph(a->cv, row, x, CS_DIM, GL_VLINE, 1);
	x += 2;
	if (l->text == NULL)
		return x;
	w = canvas_drawn_width(a->cv, l->text, l->len);
	if (w - skip > a->w - x && w - skip - (a->w - x) > v->hwide)
		v->hwide = w - skip - (a->w - x);
	canvas_put_from(a->cv, row, x, a->w, tst, l->text, l->len, skip);
	return x;
}

static void
lines_draw(struct view *v, struct area *a, int *used)
{
	int row = draw_row(a, used), pw, nw, room, detail, x;
	size_t i, top = (size_t)v->st.top[PANE_LINES], last;

	if (!v->lines_valid)
		view_lines_build(v);
	if (v->lines_error != NULL) {
		canvas_put_clip(a->cv, row, 0, a->w, CS_ERROR, v->lines_error,
		    strlen(v->lines_error));
		return;
	}
	if (v->st.lsrc == LS_NONE) {
		canvas_puts(a->cv, row, 0, CS_DIM, "drill into an event, node or "
		    "iteration to see its lines");
		return;
	}
	lines_title(v, a, row);
	lines_widths(v, a->cv, a->w, &pw, &nw);
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
		if ((row = draw_row(a, used)) < 0)
			break;
		v->page++;
		x = lines_row(v, a, row, i, top, pw, nw);
		draw_map(a, row, (long)i);
		if ((int)i == v->st.cursor[PANE_LINES])
			canvas_add_attr(a->cv, row, 0, -1, CA_SELECTED);
		if (v->search_re != NULL && v->lines[i].text != NULL &&
		    view_regex_find(v->search_re, v->lines[i].text,
		    v->lines[i].len, NULL, NULL))
			canvas_add_attr(a->cv, row, x, -1, CA_MATCH);
	}
	if (detail > 0 && v->nlines > 0) {
		while (*used < a->nrows - detail)
			draw_row(a, used);
		lines_detail(v, a, used);
	}
}

static size_t
lines_nrows(struct view *v)
{
	if (!v->lines_valid)
		view_lines_build(v);
	return v->nlines;
}

static int
lines_target(struct view *v, size_t r, struct view_target *t)
{
	/* an event's line: its file around it */
	if (v->st.lsrc != LS_EVENT)
		return -1;
	t->kind = VT_LINE;
	t->name = v->lines[r].path;
	t->iter = (long)v->lines[r].line;
	return 0;
}

const struct pane_ops pane_lines = {
	.name = "lines",
	.flags = PF_JOB | PF_HSCROLL | PF_RAW,
	.nrows = lines_nrows,
	.draw = lines_draw,
	.target = lines_target,
	.find = view_lines_find,	/* the job's raw lines (viewlines.c) */
	.key = view_lines_key,
	.status = view_lines_status
};
