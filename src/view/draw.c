/*
 * draw.c -- the screen as a canvas, and what the panes draw with.
 *
 * The screen is a header line (the job, its outcome in its colour, what
 * its data lacks, the healthy runs it was compared with), the tabs, the
 * active pane and a status line.  view_draw() asks
 * the pane to draw twice when the first pass scrolled the cursor out of
 * sight: the first learns how many rows fit, the second scrolls.  The
 * helpers below are shared by the panes: text wrapped into rows, a path
 * that keeps its tail, a template with its variable parts marked, bars.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "view/bookmark.h"
#include "diag/diag.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "view/viewint.h"

int
draw_row(struct area *a, int *used)
{
	if (a->nrows >= 0 && *used >= a->nrows)
		return -1;
	(*used)++;
	if (a->cv->nrows < a->row0 + *used)
		canvas_add_row(a->cv);
	return a->row0 + *used - 1;
}

void
draw_map(struct area *a, int row, long r)
{
	if (a->map != NULL && row >= 0 && row < a->nmap)
		a->map[row] = r;
}

int
draw_flush(struct area *a, int *used)
{
	int rc;

	if (a->out == NULL)
		return 0;
	rc = canvas_write(a->cv, 0, a->cv->nrows, a->out);
	canvas_reset(a->cv);
	a->row0 = -*used;	/* the next row is the canvas's first */
	return rc;
}

void
draw_tail(struct canvas *cv, int row, int col, int w, int style,
    const char *path)
{
	size_t len = strlen(path);
	int pw = canvas_drawn_width(cv, path, len);

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

void
draw_clock(double ts, char *buf, size_t len)
{
	/* no time, or none a log can have (past the year 5000) */
	if (!isfinite(ts) || fabs(ts) >= 1e11)
		snprintf(buf, len, "-");
	else
		diag_clock_str(ts, buf, len);
}

static int
template_piece(struct canvas *cv, int row, int col, int end, int style,
    const char *s, size_t len, int *skip)
{
	int w;

	if (*skip > 0 && (w = canvas_drawn_width(cv, s, len)) <= *skip) {
		*skip -= w;
		return col;
	}
	col = canvas_put_from(cv, row, col, end, style, s, len, *skip);
	*skip = 0;
	return col;
}

void
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

void
draw_bar(struct canvas *cv, int row, int col, int w, double score)
{
	double s = rows_score(score);
	int eighths = (int)lround(s * w * 8), full = eighths / 8;
	int style = CS_HEAT0 + (s >= 0.75 ? 7 : s >= 0.5 ? 5 : s >= 0.25 ? 3 : 1);

	canvas_glyph(cv, row, col, style, GL_BLOCK, full);
	if (eighths % 8 != 0 && full < w)
		canvas_glyph(cv, row, col + full, style,
		    (enum canvas_glyph)(GL_BAR1 + eighths % 8 - 1), 1);
}

/*
 * The bytes of s (len of them) for a row of w columns: all that fit up
 * to the last blank among them, else all that fit, else one character;
 * never part of one, and measured as the canvas draws them.
 */
static size_t
wrap_take(const struct canvas *cv, const char *s, size_t len, int w)
{
	size_t fit = canvas_fit(cv, s, len, w), cut = 0, i;
	uint32_t cp;

	if (fit == len)
		return len;
	for (i = 1; i < fit; i++)
		if (s[i] == ' ')
			cut = i;
	if (cut > 0)
		return cut;
	if (fit > 0)
		return fit;
	i = ts_utf8_decode((const unsigned char *)s, len, &cp);
	return i > 0 ? i : 1;
}

void
draw_wrap(struct area *a, int *used, int col, int style, const char *label,
    const char *text, size_t len, int maxrows)
{
	size_t pos = 0;
	int row, n = 0, lw = label != NULL ? (int)strlen(label) : 0;

	while (pos < len && n < maxrows) {
		int room = a->w - col - lw;
		size_t take;

		if (room < 8 || (row = draw_row(a, used)) < 0)
			return;
		if (n == 0 && label != NULL)
			canvas_puts(a->cv, row, col, CS_BOLD, label);
		take = wrap_take(a->cv, text + pos, len - pos, room);
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

int
draw_wrap_rows(const struct canvas *cv, int w, int col, const char *label,
    const char *text, int maxrows)
{
	int lw = label != NULL ? (int)strlen(label) : 0;
	int tw = canvas_drawn_width(cv, text, strlen(text)), room = w - col - lw;
	int n;

	if (room < 8)
		return 0;
	/* words break early: allow a little for the ragged edge */
	n = (tw + room - 1) / room;
	if (n > 1 && tw > n * room - room / 8)
		n++;
	return n < 1 ? 1 : n > maxrows ? maxrows : n;
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

/* The style of an outcome's name in the header. */
static int
outcome_style(int outcome)
{
	return outcome == DIAG_FAILED || outcome == DIAG_DIVERGED ? CS_ERROR :
	    outcome == DIAG_DEGRADED ? CS_WARN : CS_HEADER;
}

/*
 * The healthy runs compared, in the room the header has left: all their
 * names (model_healthy_str()), else as many as fit and "+N" for the
 * rest, else the count alone ("N healthy runs compared", then "N
 * healthy runs").  Into buf.
 */
static const char *
header_healthy(const struct model *m, const struct canvas *cv, int room,
    char *buf, size_t len)
{
	const char *s = m->nhealthy == 1 ? "" : "s";
	size_t i, at, keep;

	model_healthy_str(m, buf, len);
	if (canvas_drawn_width(cv, buf, strlen(buf)) <= room)
		return buf;
	for (keep = m->nhealthy_runs; keep-- > 1; ) {
		at = (size_t)snprintf(buf, len, "%d healthy run%s compared (",
		    m->nhealthy, s);
		for (i = 0; i < keep && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, "%s%s",
			    i > 0 ? ", " : "", m->healthy_runs[i]);
		if (at < len)
			snprintf(buf + at, len - at, " +%zu)",
			    m->nhealthy_runs - keep);
		if (canvas_drawn_width(cv, buf, strlen(buf)) <= room)
			return buf;
	}
	snprintf(buf, len, "%d healthy run%s compared", m->nhealthy, s);
	if ((int)strlen(buf) > room)
		snprintf(buf, len, "%d healthy run%s", m->nhealthy, s);
	return buf;
}

/* Under follow, "following · last line 4 s ago" at the header's end. */
static void
draw_live(struct view *v, struct canvas *cv, int row)
{
	char doing[96], head[96];
	int w, x;

	view_live_text(v, doing, sizeof doing, head, sizeof head);
	if (head[0] == '\0')
		return;
	w = canvas_text_width(head, strlen(head)) + 2;
	x = cv->width - w > cv->width / 2 ? cv->width - w : cv->width / 2;
	canvas_printf(cv, row, x, CS_HEADER, "%*s", cv->width - x, "");
	canvas_put_clip(cv, row, x + 1, cv->width, CS_HEADER, head,
	    strlen(head));
	canvas_set_style(cv, row, 0, cv->width, CS_HEADER);
}

static void
draw_header(struct view *v, struct canvas *cv, int row)
{
	const struct model *m = v->m;
	char buf[256];
	int x, from, out;

	if (m == NULL) {
		x = canvas_puts(cv, row, 0, CS_HEADER, "trainscope");
		if (v->live != NULL) {	/* its first diagnosis is under way */
			x = canvas_puts(cv, row, x, CS_HEADER, "  opening ");
			canvas_put_clip(cv, row, x, cv->width, CS_HEADER,
			    viewjob_name(v->live), strlen(viewjob_name(v->live)));
		}
		canvas_set_style(cv, row, 0, cv->width, CS_HEADER);
		draw_live(v, cv, row);
		return;
	}
	x = canvas_put_clip(cv, row, 0, cv->width / 3, CS_HEADER, m->name,
	    strlen(m->name));
	out = x + 2;
	/* a job followed that went well so far has not completed */
	snprintf(buf, sizeof buf, "  %s", m->outcome == DIAG_COMPLETED &&
	    view_following(v) ? "running" : diag_outcome_name(
	    (enum diag_outcome)m->outcome));
	x = canvas_puts(cv, row, x, CS_HEADER, buf);
	buf[0] = '\0';
	if (m->outcome != DIAG_COMPLETED && m->stage != STAGE_NONE)
		snprintf(buf, sizeof buf, " in %s", stage_name(
		    (enum stage)m->stage));
	if (m->failure_iter > 0 && rows_iter_ok(m->failure_iter))
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " at iteration %ld", m->failure_iter);
	else if (m->failure_iter == 0 && m->niters > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    " before its first iteration");
	from = canvas_put_clip(cv, row, x, cv->width, CS_HEADER, buf,
	    strlen(buf));
	canvas_set_style(cv, row, 0, cv->width, CS_HEADER);
	canvas_set_style(cv, row, out, x, outcome_style(m->outcome));
	x = draw_incomplete(m, cv, row, from);
	if (x > from + 2)
		canvas_set_style(cv, row, from + 2, x, CS_WARN);
	x = canvas_printf(cv, row, x, CS_HEADER, "  %zu node%s  ", m->nreal,
	    m->nreal == 1 ? "" : "s");
	header_healthy(m, cv, cv->width - x, buf, sizeof buf);
	canvas_put_clip(cv, row, x, cv->width, CS_HEADER, buf, strlen(buf));
	draw_live(v, cv, row);
}

char *
view_click(const struct view *v, int y, int x)
{
	const char *name;
	int i, at = 0, end;
	long r;

	if (y == 1) {		/* the tabs, as draw_tabs() lays them out */
		for (i = 0; i < PANE_COUNT && at <= x; i++) {
			name = view_pane_name((enum view_pane)i);
			end = at + (int)strlen(name) + 2;
			if (x >= at && x < end)
				return xasprintf("pane %s", name);
			at = end + 2;
		}
		return NULL;
	}
	if (y < 0 || y >= v->nrowmap || (r = v->rowmap[y]) < 0)
		return NULL;
	r -= v->st.cursor[v->st.pane];
	return xasprintf("move %c%ld", r < 0 ? '-' : '+', r < 0 ? -r : r);
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

/* Whether the cursor's row is bookmarked. */
static int
cursor_marked(struct view *v)
{
	int cur = v->st.cursor[v->st.pane];

	return cur >= 0 && cur < view_nrows(v) &&
	    bookmark_row_marked(v, (size_t)cur);
}

static void
draw_status(struct view *v, struct canvas *cv, int row)
{
	const struct pane_ops *ops = pane_active(v);
	int n = view_nrows(v);
	char buf[192], doing[96], head[192];

	canvas_set_style(cv, row, 0, cv->width, CS_STATUS);
	if (v->message != NULL) {
		canvas_put_clip(cv, row, 0, cv->width, CS_STATUS, v->message,
		    strlen(v->message));
		return;
	}
	view_live_text(v, doing, sizeof doing, head, sizeof head);
	if (ops->status != NULL)	/* it says the search's state too */
		ops->status(v, buf, sizeof buf);
	else
		snprintf(buf, sizeof buf, "%s %d/%d", view_pane_name(
		    v->st.pane), n == 0 ? 0 : v->st.cursor[v->st.pane] + 1, n);
	if (doing[0] != '\0') {	/* what the background does, first */
		memcpy(head, buf, sizeof buf);
		snprintf(buf, sizeof buf, "%.95s  %.94s", doing, head);
	}
	if (v->st.hscroll[v->st.pane] > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "  col +%d", v->st.hscroll[v->st.pane]);
	if (v->search != NULL && ops->status == NULL)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "  /%.40s", v->search);
	if (v->nmarks > 0)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
		    "  %s%zu bookmark%s", cursor_marked(v) ? "*marked* " : "",
		    v->nmarks, v->nmarks == 1 ? "" : "s");
	n = canvas_put_clip(cv, row, 0, cv->width, CS_STATUS, buf, strlen(buf));
	snprintf(buf, sizeof buf, "? help  : command  q quit");
	/* (the keys' hint where the pane's own words leave room) */
	if (n + 2 <= cv->width - (int)strlen(buf) - 1 || ops->status == NULL)
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

/* The map of screen rows to pane rows, all -1, for a screen of h rows. */
static long *
reset_map(struct view *v, int h)
{
	int i;

	if (h <= 0)
		return NULL;
	if (v->nrowmap != h) {
		v->rowmap = xreallocarray(v->rowmap, (size_t)h,
		    sizeof *v->rowmap);
		v->nrowmap = h;
	}
	for (i = 0; i < h; i++)
		v->rowmap[i] = -1;
	return v->rowmap;
}

/*
 * A bookmarked row shows a mark in the pane's mark column (the first,
 * unless it says another), where the panes that map their rows to the
 * screen draw one.
 */
static void
draw_marks(struct view *v, struct canvas *cv, int height)
{
	int i, x = pane_active(v)->markcol;

	if (v->nmarks == 0 || v->rowmap == NULL)
		return;
	for (i = 0; i < height && i < v->nrowmap; i++)
		if (v->rowmap[i] >= 0 && (i == 0 || v->rowmap[i - 1] !=
		    v->rowmap[i]) && bookmark_row_marked(v,
		    (size_t)v->rowmap[i]))
			canvas_put(cv, i, x, CS_WARN, "*", 1);
}

/* view_draw(), with the rows of an export written to out as they go. */
static int
draw_screen(struct view *v, struct canvas *cv, int width, int height,
    FILE *out)
{
	struct area a;
	int used = 0, attempt;

	view_poll(v);
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
		a.out = out;
		a.map = reset_map(v, height);
		a.nmap = height;
		if (height <= 0)
			v->st.top[v->st.pane] = 0;
		used = 0;
		/* without a job, the jobs */
		if (pane_active(v) != pane_get(v->st.pane))
			v->st.pane = PANE_JOBS;
		if (attempt == 0 && (pane_get(v->st.pane)->flags &
		    PF_REDRAW_ROWS))
			rows_drop(v, (int)v->st.pane);
		/* the first pass learns the page size; the second scrolls */
		pane_get(v->st.pane)->draw(v, &a, &used);
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
		draw_marks(v, cv, height);
		draw_status(v, cv, height - 1);
	}
	return cv->nrows;
}

int
view_draw(struct view *v, struct canvas *cv, int width, int height)
{
	return draw_screen(v, cv, width, height, NULL);
}

int
view_write(struct view *v, struct canvas *cv, int width, FILE *out)
{
	draw_screen(v, cv, width, 0, out);
	return canvas_write(cv, 0, cv->nrows, out);
}
