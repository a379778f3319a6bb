/*
 * cmd-report.c -- `report FILE`: a failure report for a ticket, as plain text
 * or Markdown, from the job the views look at.
 *
 * Everything in it comes from the model and the cache, so the same
 * session on the same cache writes the same report: no wall-clock time,
 * and the job's directory only with --paths.
 *
 * It opens with a verdict (what failed, where, when, what to do).  The
 * default report is short, for a ticket: suspects from a stated score
 * up, an event's consequences listed under it, the heatmap folded to a
 * screen and the iterations that matter, each section bounded so that
 * no job makes it longer than about two screens.  --full writes every
 * suspect, event and iteration.
 *
 * Every string of the model and every log line is outside text: it goes
 * out made inert (no control byte reaches the file), and in Markdown
 * escaped as well (no HTML, link, emphasis or table cell comes from a
 * log), or inside a code block whose fence is longer than any run of
 * backticks in it.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view/bookmark.h"
#include "view/canvas.h"
#include "base/stats.h"
#include "cli/commands.h"
#include "diag/diag.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/report.h"
#include "view/view.h"
#include "view/viewint.h"

#define REPORT_WIDTH 100
#define REPORT_SAMPLES 3

#define SHORT_MIN_SCORE 0.2	/* suspects below are left out */
#define SHORT_LINES 120		/* the most lines of a short report */
#define SHORT_SAMPLES 1

/*
 * What the short report keeps of each section.  Each is bounded; the
 * report is written with the first set and, when that is longer than
 * SHORT_LINES, again with the next, tighter one.
 */
struct limits {
	size_t nodes, node_reasons;
	size_t causes;		/* events that are no consequence */
	size_t event_reasons;
	size_t conseq;		/* consequences named under their cause */
	int heatmap_rows;	/* the screen the heatmap folds into */
	size_t iters;		/* iterations that matter (at least 3) */
	size_t findings, finding_reasons;
	size_t repro;		/* lines of the session (at least 2) */
};

static const struct limits short_limits[] = {
	{ 3, 3, 3, 2, 5, 16, 8, 2, 3, 8 },
	{ 3, 2, 2, 1, 3, 12, 6, 1, 2, 6 },
	{ 2, 1, 1, 1, 2, 9, 4, 1, 1, 4 },
};

struct rep {
	FILE *f;
	int md;
	int full;		/* REPORT_FULL: everything */
	const struct limits *lim;	/* short: its limits */
	struct view *v;
};

/* Is event e a consequence of another (the diagnosis says so)? */
static int
consequence(const struct model_event *e)
{
	size_t k;

	for (k = 0; k < e->nreasons; k++)
		if (strncmp(e->reasons[k], "a consequence", 13) == 0)
			return 1;
	return 0;
}

/* Characters that mean something to Markdown anywhere in a line. */
#define MD_SPECIAL "\\`*_[]<|~&"

/* s made inert, and for Markdown escaped (allocated). */
static char *
field(const struct rep *r, const char *s)
{
	char *t = canvas_inert(s), *p;
	struct buf b;

	if (!r->md)
		return t;
	buf_init(&b);
	for (p = t; *p != '\0'; p++) {
		if (strchr(MD_SPECIAL, *p) != NULL)
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	free(t);
	return buf_detach(&b);
}

/* fprintf(r->f, fmt, s) with s a field (above); fmt has one %s. */
static void
put(const struct rep *r, const char *fmt, const char *s)
{
	char *t = field(r, s != NULL ? s : "");

	fprintf(r->f, fmt, t);
	free(t);
}

/* The longest run of backticks in s. */
static size_t
backticks(const char *s)
{
	size_t run = 0, most = 0;

	for (; *s != '\0'; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > most)
			most = run;
	}
	return most;
}

/*
 * A Markdown code block of `text` (lines, each made inert already),
 * indented by `indent`: its fence is longer than any run of backticks in
 * it, so no line of a log can close it.
 */
static void
code_block(const struct rep *r, const char *indent, const char *text)
{
	size_t n = backticks(text) + 1;

	if (n < 3)
		n = 3;
	fprintf(r->f, "%s%.*s\n%s%s%.*s\n", indent, (int)n,
	    "````````````````````````````````````````````````````````````````",
	    text, indent, (int)n,
	    "````````````````````````````````````````````````````````````````");
}

static void
heading(struct rep *r, const char *title)
{
	if (r->md)
		fprintf(r->f, "\n## %s\n\n", title);
	else
		fprintf(r->f, "\n%s\n%.*s\n", title, (int)strlen(title),
		    "------------------------------------------------------");
}


/*
 * Is ts a time a log can hold (epoch seconds, years 0 to 9999)?  A model
 * read back from the cache may hold any number; converting one past
 * time_t is undefined.
 */
static int
time_known(double ts)
{
	return isfinite(ts) && ts > -62167219200.0 && ts < 253402300800.0;
}

static void
utc(double ts, char *buf, size_t len)
{
	struct tm tm;
	time_t t;

	if (!time_known(ts) || (t = (time_t)ts, gmtime_r(&t, &tm)) == NULL) {
		snprintf(buf, len, "unknown");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* The event the verdict names: the top one that is no consequence. */
static const struct model_event *
verdict_event(const struct model *m)
{
	size_t i;

	for (i = 0; i < m->nevents; i++)
		if (!consequence(&m->events[i]))
			return m->events[i].score >= SHORT_MIN_SCORE ?
			    &m->events[i] : NULL;
	return NULL;
}

/* What happened, in words: "failed in training in iteration 41". */
static void
verdict_what(const struct model *m, struct buf *b)
{
	char when[48];

	buf_adds(b, diag_outcome_name((enum diag_outcome)m->outcome));
	if (m->outcome != DIAG_COMPLETED && m->stage != STAGE_NONE)
		buf_addf(b, " in %s", stage_name((enum stage)m->stage));
	if (m->outcome == DIAG_DIVERGED || m->outcome == DIAG_DEGRADED) {
		if (m->failure_iter >= 0)
			buf_addf(b, " from iteration %ld", m->failure_iter);
	} else if (m->outcome != DIAG_COMPLETED &&
	    *model_fail_when(m, when, sizeof when) != '\0')
		buf_addf(b, " %s", when);
}

/*
 * One line on top: what failed, where, when, what to do.  The node is
 * the top suspect, the cause the top event that is no consequence.
 */
static void
verdict(struct rep *r)
{
	const struct model *m = r->v->m;
	const struct model_event *e = verdict_event(m);
	const struct model_node *n = m->nsuspects > 0 ?
	    &m->nodes[m->suspects[0]] : NULL;
	struct buf b;
	char when[40];

	if (n != NULL && n->score < SHORT_MIN_SCORE)
		n = NULL;
	buf_init(&b);
	verdict_what(m, &b);
	if (n != NULL)
		buf_addf(&b, " on %s", n->name);
	if (e != NULL) {
		buf_adds(&b, ": ");
		if (e->category != NULL)
			buf_addf(&b, "[%s] ", e->category);
		buf_adds(&b, e->text);
		if (e->rule != NULL)
			buf_addf(&b, " (%s)", e->rule);
		utc(e->ts, when, sizeof when);
		if (time_known(e->ts))
			buf_addf(&b, " at %s", when);
	} else if (n == NULL)
		buf_adds(&b, ": nothing stands out");
	if (e != NULL && e->action != NULL)
		buf_addf(&b, "; do: %s", e->action);
	else if (n != NULL || e != NULL)
		buf_adds(&b, "; do: read the suspects below, the first first");
	put(r, r->md ? "**Verdict:** %s\n\n" : "Verdict: %s\n", buf_str(&b));
	buf_release(&b);
}

static void
summary(struct rep *r, int paths)
{
	const struct model *m = r->v->m;
	char a[40], b[40];
	const char *fmt = r->md ? "| %s | %s |\n" : "%-12s %s\n";
	char *line, *fmtl, healthy[512];

	if (r->md)
		put(r, "# Failure report: %s\n\n", m->name);
	else
		put(r, "Failure report: %s\n", m->name);
	verdict(r);
	if (r->md)
		fputs("| | |\n|---|---|\n", r->f);
	line = xasprintf(fmt, "job", "%s");
	put(r, line, m->name);
	free(line);
	if (paths && m->root != NULL) {
		line = xasprintf(fmt, "directory", "%s");
		put(r, line, m->root);
		free(line);
	}
	utc(m->first_ts, a, sizeof a);
	utc(m->last_ts, b, sizeof b);
	line = xasprintf("%s to %s", a, b);
	fprintf(r->f, fmt, "logs span", line);
	free(line);
	line = xasprintf("%s%s%s", diag_outcome_name((enum diag_outcome)
	    m->outcome), m->outcome == DIAG_COMPLETED ? "" : " in stage ",
	    m->outcome == DIAG_COMPLETED ? "" : stage_name((enum stage)
	    m->stage));
	fprintf(r->f, fmt, "outcome", line);
	free(line);
	if (m->failure_iter > 0 && m->last_healthy_iter >= 0) {
		line = xasprintf("iteration %ld (last healthy %ld)",
		    m->failure_iter, m->last_healthy_iter);
		fprintf(r->f, fmt, m->outcome == DIAG_DIVERGED ? "diverged at" :
		    "failed at", line);
		free(line);
	} else if (m->failure_iter >= 0) {
		char when[48];

		if (*model_fail_when(m, when, sizeof when) != '\0')
			fprintf(r->f, fmt, "failed", when);
	}
	if (m->slow_iter >= 0) {
		line = xasprintf("from iteration %ld: %.0f ms, then %.0f ms",
		    m->slow_iter, m->slow_before_ms, m->slow_after_ms);
		fprintf(r->f, fmt, "slowdown", line);
		free(line);
	}
	line = xasprintf("%zu node%s, %s, %zu anomalous iteration%s",
	    m->nreal, m->nreal == 1 ? "" : "s", model_healthy_str(m, healthy,
	    sizeof healthy), m->anomalous, m->anomalous == 1 ? "" : "s");
	fmtl = xasprintf(fmt, "compared", "%s");
	put(r, fmtl, line);	/* the runs' names stay inert */
	free(fmtl);
	free(line);
}

static void
nodes(struct rep *r)
{
	const struct model *m = r->v->m;
	size_t i, k, n = 0;

	double least = r->full ? 0 : SHORT_MIN_SCORE;
	size_t most = r->full ? SIZE_MAX : r->lim->nodes, left = 0;

	heading(r, "Suspect nodes");
	for (i = 0; i < m->nsuspects; i++) {
		const struct model_node *nd = &m->nodes[m->suspects[i]];

		if (nd->score < least || n >= most) {
			left++;
			continue;
		}
		n++;
		fprintf(r->f, "%zu. ", n);
		put(r, r->md ? "**%s**" : "%s", nd->name);
		fprintf(r->f, r->md ? " (%.2f)\n" : "  %.2f\n", nd->score);
		for (k = 0; k < nd->nreasons && (r->full ||
		    k < r->lim->node_reasons); k++)
			put(r, "   - %s\n", nd->reasons[k]);
		if (k < nd->nreasons)
			fprintf(r->f, "   - and %zu more reason%s\n",
			    nd->nreasons - k, nd->nreasons - k == 1 ? "" : "s");
	}
	if (n == 0)
		fputs("No node stands out.\n", r->f);
	if (left > 0)
		fprintf(r->f, "%s%zu more node%s (a score under %.2f, or past "
		    "the first %zu) left out: --full lists them.\n", r->md ?
		    "\n" : "", left, left == 1 ? "" : "s", least, most);
}

static void
samples(struct rep *r, const struct model_event *e, size_t want)
{
	struct view *v = r->v;
	struct view_state saved = v->st;
	struct buf b;
	size_t i;
	char *path, *t;

	v->st.lsrc = LS_EVENT;
	v->st.l_event = e->id;
	v->st.l_node = -1;
	v->st.l_path = NULL;
	v->st.context = 0;
	view_lines_build(v);
	view_lines_fill(v, 0, want);
	/* raw lines: inert, and in Markdown in a code block, never escaped */
	buf_init(&b);
	for (i = 0; i < v->nlines && i < want; i++) {
		path = canvas_inert(v->lines[i].path);
		t = canvas_inert(v->lines[i].text != NULL ? v->lines[i].text :
		    "");
		buf_addf(&b, "%s%s:%llu: %s\n", r->md ? "   " : "     ", path,
		    (unsigned long long)v->lines[i].line, t);
		free(t);
		free(path);
	}
	if (b.len > 0 && r->md) {
		fputc('\n', r->f);
		code_block(r, "   ", buf_str(&b));
	} else if (b.len > 0)
		fprintf(r->f, "   sample lines:\n%s", buf_str(&b));
	buf_release(&b);
	view_lines_clear(v);
	v->st = saved;
}

/* An event's first line: its place, category, template and score. */
static void
event_title(struct rep *r, const struct model_event *e, size_t place)
{
	char *text = field(r, e->text), *cat = field(r, e->category);

	fprintf(r->f, r->md ? "%zu. **%s%s%s%s** (score %.2f)\n" :
	    "%zu. %s%s%s%s  (score %.2f)\n", place,
	    e->category ? "[" : "", cat, e->category ? "] " : "", text,
	    e->score);
	free(cat);
	free(text);
}

/* An event: where and when, why (reasons up to nreasons), samples. */
static void
event_body(struct rep *r, const struct model_event *e, size_t nreasons,
    size_t nsamples)
{
	char t[16];
	size_t k;

	diag_clock_str(time_known(e->ts) ? e->ts : NAN, t, sizeof t);
	fprintf(r->f, "   %llu line%s on %zu node%s; first ",
	    (unsigned long long)e->count, e->count == 1 ? "" : "s",
	    e->nnodes, e->nnodes == 1 ? "" : "s");
	put(r, "%s", e->path ? e->path : "-");
	fprintf(r->f, ":%ld%s%s, %s", e->line, time_known(e->ts) ?
	    " at " : "", time_known(e->ts) ? t : "",
	    stage_name((enum stage)e->stage));
	if (e->iteration >= 0)
		fprintf(r->f, ", iteration %ld", e->iteration);
	fputc('\n', r->f);
	for (k = 0; k < e->nreasons && k < nreasons; k++)
		put(r, "   - %s\n", e->reasons[k]);
	if (k < e->nreasons)
		fprintf(r->f, "   - and %zu more reason%s\n", e->nreasons - k,
		    e->nreasons - k == 1 ? "" : "s");
	if (e->explain != NULL)
		put(r, r->md ? "   - *means:* %s\n" : "   means: %s\n",
		    e->explain);
	if (e->action != NULL)
		put(r, r->md ? "   - *do:* %s\n" : "   do:    %s\n",
		    e->action);
	samples(r, e, nsamples);
}

/* The filters in force, when there are. */
static void
events_filters(struct rep *r, size_t n)
{
	char *f, *line, *save = NULL;

	if (r->v->st.nfilters == 0)
		return;
	f = view_filters_text(r->v);
	fprintf(r->f, "%s in force (%zu of %zu events pass):\n",
	    r->v->st.nfilters == 1 ? "A filter is" : "Filters are", n,
	    r->v->m->nevents);
	for (line = strtok_r(f, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		put(r, r->md ? "- %s\n" : "   %s\n", line);
	fputc('\n', r->f);
	free(f);
}

/*
 * The consequences among rows[] (events the diagnosis says follow from
 * another), one line each under the cause above them: the first
 * r->lim->conseq, then how many more.
 */
static void
consequences(struct rep *r, const size_t *rows, size_t n)
{
	const struct model *m = r->v->m;
	size_t i, shown = 0, all = 0;
	char *text, *cat;

	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events[rows[i]];

		if (!consequence(e) || e->score < SHORT_MIN_SCORE)
			continue;
		if (all++ == 0)
			fputs(r->md ? "   - *followed by (its consequences):*\n" :
			    "   followed by (its consequences):\n", r->f);
		if (shown == r->lim->conseq)
			continue;
		shown++;
		text = field(r, e->text);
		cat = field(r, e->category);
		fprintf(r->f, "     - %s%s%s%s (%llu line%s on %zu node%s, "
		    "score %.2f)\n", e->category ? "[" : "", cat,
		    e->category ? "] " : "", text, (unsigned long long)e->count,
		    e->count == 1 ? "" : "s", e->nnodes, e->nnodes == 1 ? "" :
		    "s", e->score);
		free(cat);
		free(text);
	}
	if (all > shown)
		fprintf(r->f, "     - and %zu more\n", all - shown);
}

/* Every event the filters leave, in the view's order, whole. */
static void
events_full(struct rep *r, const size_t *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		event_title(r, &r->v->m->events[rows[i]], i + 1);
		event_body(r, &r->v->m->events[rows[i]], SIZE_MAX,
		    REPORT_SAMPLES);
	}
}

/*
 * The short list: the first r->lim->causes events of a score from
 * SHORT_MIN_SCORE that are no consequence, the consequences under the
 * first of them.
 */
static void
events_short(struct rep *r, const size_t *rows, size_t n)
{
	const struct model *m = r->v->m;
	size_t i, shown = 0, left = 0;

	for (i = 0; i < n; i++) {
		const struct model_event *e = &m->events[rows[i]];

		if (consequence(e) && e->score >= SHORT_MIN_SCORE)
			continue;	/* under their cause */
		if (e->score < SHORT_MIN_SCORE || shown == r->lim->causes) {
			left++;
			continue;
		}
		event_title(r, e, ++shown);
		event_body(r, e, r->lim->event_reasons, SHORT_SAMPLES);
		if (shown == 1)
			consequences(r, rows, n);
	}
	if (shown == 0)
		consequences(r, rows, n);
	if (left > 0)
		fprintf(r->f, "%s%zu more event%s (a score under %.2f, or past "
		    "the first %zu) left out: --full lists them.\n", r->md ?
		    "\n" : "", left, left == 1 ? "" : "s", SHORT_MIN_SCORE,
		    r->lim->causes);
}

static void
events(struct rep *r)
{
	const struct model *m = r->v->m;
	size_t n, *rows;

	heading(r, "Suspect events");
	/* the events the view's filters leave, in its order */
	rows = view_event_rows(r->v, &n);
	events_filters(r, n);
	if (r->full)
		events_full(r, rows, n);
	else
		events_short(r, rows, n);
	if (m->nevents == 0)
		fputs("No event was logged.\n", r->f);
	else if (n == 0)
		fputs("No event passes the filters.\n", r->f);
	free(rows);
}

/* The end of rows [from, end) of cv with the blank ones at the end cut. */
static int
rows_end(const struct canvas *cv, int from, int end)
{
	char row[REPORT_WIDTH * 4 + 1];

	while (end > from) {
		canvas_row_text(cv, end - 1, row, sizeof row);
		if (row[strspn(row, " ")] != '\0')
			break;
		end--;
	}
	return end;
}

/*
 * A pane as text, without the job line, the tabs and the status line:
 * whole, or folded into a screen of `height` rows as the pane folds.
 */
static void
pane_text(struct rep *r, enum view_pane p, const char *title, int height)
{
	struct view *v = r->v;
	enum view_pane saved = v->st.pane;
	int top = v->st.top[p], cur = v->st.cursor[p], end;
	struct canvas cv;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	heading(r, title);
	v->st.pane = p;
	canvas_init(&cv, REPORT_WIDTH, 0);
	view_draw(v, &cv, REPORT_WIDTH, height);
	/* a screen's last row is its status line */
	end = rows_end(&cv, 2, height > 0 ? cv.nrows - 1 : cv.nrows);
	if (!r->md)
		canvas_write(&cv, 2, end, r->f);
	else if ((mem = open_memstream(&text, &len)) != NULL) {
		canvas_write(&cv, 2, end, mem);
		fclose(mem);
		code_block(r, "", text);
		free(text);
	}
	canvas_release(&cv);
	v->st.pane = saved;
	v->st.top[p] = top;
	v->st.cursor[p] = cur;
}

/*
 * The cell the heatmap's column cursor is on (the | over its axis), as
 * the status line says it.
 */
static void
heatmap_cursor(struct rep *r)
{
	const struct pane_ops *ops = pane_get(PANE_HEATMAP);
	enum view_pane saved = r->v->st.pane;
	char buf[256];
	int on;

	if (ops->cell == NULL)
		return;
	r->v->st.pane = PANE_HEATMAP;	/* its rows, as pane_text() drew */
	on = ops->cell(r->v, buf, sizeof buf);
	r->v->st.pane = saved;
	if (on)
		put(r, "The heatmap's column cursor is on %s.\n", buf);
}

/* The stages in order, one line: "launch 17:08:17, init 17:08:20". */
static void
stages_line(struct rep *r)
{
	const struct model *m = r->v->m;
	struct buf b;
	char t[16];
	size_t i;

	buf_init(&b);
	for (i = 0; i < m->nspans; i++) {
		if (m->spans[i].stage == STAGE_NONE)
			continue;
		diag_clock_str(time_known(m->spans[i].start) ?
		    m->spans[i].start : NAN, t, sizeof t);
		buf_addf(&b, "%s%s %s", b.len > 0 ? ", " : "",
		    stage_name((enum stage)m->spans[i].stage), t);
	}
	if (b.len > 0)
		fprintf(r->f, "Stages (UTC): %s\n", buf_str(&b));
	buf_release(&b);
}

/* Does iteration i matter: flagged, the last healthy or the slowdown's? */
static int
iter_matters(const struct model *m, const struct model_iter *it)
{
	return it->flags != 0 ||
	    it->iteration == model_bucket(m, m->last_healthy_iter) ||
	    it->iteration == model_bucket(m, m->slow_iter);
}

static void
iter_row(struct rep *r, const struct model_iter *it, struct buf *b)
{
	const struct model *m = r->v->m;
	char t[16];

	diag_clock_str(time_known(it->start) ? it->start : NAN, t, sizeof t);
	buf_addf(b, "%6ld  %8s  ", it->iteration, t);
	if (isfinite(it->ms) && it->ms >= 0 && it->ms < 1e12)
		buf_addf(b, "%7.0f", it->ms);
	else
		buf_addf(b, "%7s", "-");
	buf_addf(b, "%s%s%s%s\n", it->flags & MODEL_ITER_FAILURE ?
	    "  failure" : "", it->flags & MODEL_ITER_ANOMALOUS ?
	    "  anomalous" : "", it->flags & MODEL_ITER_SLOW ? "  slow" : "",
	    it->iteration == model_bucket(m, m->last_healthy_iter) ?
	    "  last healthy" : "");
}

/* How long the iterations took: "41 iterations, 778 to 809 ms, ...". */
static void
iters_spread(struct rep *r)
{
	const struct model *m = r->v->m;
	double *ms = xcalloc(m->niters + 1, sizeof *ms), lo = 0, hi = 0;
	size_t i, n = 0;

	for (i = 0; i < m->niters; i++)
		if (isfinite(m->iters[i].ms) && m->iters[i].ms >= 0 &&
		    m->iters[i].ms < 1e12) {
			ms[n] = m->iters[i].ms;
			lo = n == 0 || ms[n] < lo ? ms[n] : lo;
			hi = n == 0 || ms[n] > hi ? ms[n] : hi;
			n++;
		}
	if (m->iter_width > 1)
		fprintf(r->f, "%zu buckets of %ld iterations in the logs (a "
		    "row below is a bucket: its first iteration, mean ms)",
		    m->niters, m->iter_width);
	else
		fprintf(r->f, "%zu iteration%s in the logs", m->niters,
		    m->niters == 1 ? "" : "s");
	if (n > 0)
		fprintf(r->f, ", %.0f to %.0f ms (median %.0f ms)", lo, hi,
		    stats_median(ms, n));
	fputs(".\n", r->f);
	free(ms);
}

/*
 * The short timeline: the stages, how long the iterations took, and the
 * iterations that matter (flagged, the last healthy one): the first two
 * and the rest of r->lim->iters, the last ones, when there are more.
 */
static void
iterations(struct rep *r)
{
	const struct model *m = r->v->m;
	size_t i, n = 0, k = 0;
	struct buf b;

	heading(r, "Timeline");
	stages_line(r);
	iters_spread(r);
	for (i = 0; i < m->niters; i++)
		n += iter_matters(m, &m->iters[i]);
	if (n == 0)
		return;
	buf_init(&b);
	buf_adds(&b, "  iter  start UTC       ms\n");
	for (i = 0; i < m->niters; i++) {
		if (!iter_matters(m, &m->iters[i]))
			continue;
		if (n <= r->lim->iters || k < 2 || k >= n - (r->lim->iters - 2))
			iter_row(r, &m->iters[i], &b);
		else if (k == 2)
			buf_addf(&b, "   ... %zu more\n", n - r->lim->iters);
		k++;
	}
	fputs(r->md ? "\nThe iterations that matter:\n\n" :
	    "The iterations that matter:\n", r->f);
	if (r->md)
		code_block(r, "", buf_str(&b));
	else
		fputs(buf_str(&b), r->f);
	buf_release(&b);
}

static void
flows(struct rep *r)
{
	const struct model_flows *f = &r->v->m->flows;
	char ckpt[160];
	size_t i, k;

	heading(r, "Network captures");
	if (!f->present) {
		fputs("The job's directory holds no capture.\n", r->f);
		return;
	}
	if (f->error != NULL) {
		put(r, "The captures could not be used: %s\n", f->error);
		return;
	}
	fprintf(r->f, "%zu host%s, %zu data-parallel group%s, %zu pipeline%s, "
	    "%zu iteration%s of %.1f ms.\n", f->nhosts, f->nhosts == 1 ? "" :
	    "s", f->ndp, f->ndp == 1 ? "" : "s", f->npp, f->npp == 1 ? "" : "s",
	    f->niters, f->niters == 1 ? "" : "s", f->period * 1e3);
	if (*model_flows_ckpt(f, ckpt, sizeof ckpt) != '\0')
		fprintf(r->f, "%c%s.\n", toupper((unsigned char)ckpt[0]),
		    ckpt + 1);
	for (i = 0; i < f->nfindings && (r->full || i < r->lim->findings);
	    i++) {
		put(r, "- %s ", f->findings[i].kind);
		put(r, "%s\n", f->findings[i].subject);
		for (k = 0; k < f->findings[i].nreasons && (r->full ||
		    k < r->lim->finding_reasons); k++)
			put(r, "  - %s\n", f->findings[i].reasons[k]);
	}
	if (f->nfindings == 0)
		fputs("Nothing slow was found in them.\n", r->f);
	else if (i < f->nfindings)
		fprintf(r->f, "- and %zu more finding%s (--full lists them)\n",
		    f->nfindings - i, f->nfindings - i == 1 ? "" : "s");
}

/* Bookmark i as "PATH:LINE: TEXT" (an event led by its key), inert. */
static void
marked_line(struct rep *r, size_t i, struct buf *out)
{
	struct view *v = r->v;
	struct buf text;
	const char *where;
	char *why = NULL, *t;
	long e = strncmp(v->marks[i], "event:", 6) == 0 ?
	    model_event_index(v->m, (uint32_t)strtoul(v->marks[i] + 6, NULL,
	    10)) : -1;

	buf_init(&text);
	if (bookmark_text(v, i, &text, &where, &why) != 0) {
		buf_addf(&text, "(%s)", why);
		where = v->marks[i];
		free(why);
	}
	if (e >= 0)
		buf_addf(out, "%s %s:%ld: ", v->marks[i], where != NULL ?
		    where : "-", v->m->events[e].line);
	else
		buf_addf(out, "%s: ", where);
	buf_add(out, buf_str(&text), text.len);
	t = canvas_inert(buf_str(out));
	buf_reset(out);
	buf_addf(out, "%s%s\n", r->md ? "" : "  ", t);
	free(t);
	buf_release(&text);
}

/* The short report lists this many bookmarks. */
#define SHORT_MARKS 15

static void
marked(struct rep *r)
{
	struct buf b, line;
	size_t i;

	if (r->v->nmarks == 0)
		return;
	heading(r, "Lines marked during the investigation");
	buf_init(&b);
	buf_init(&line);
	for (i = 0; i < r->v->nmarks && (r->full || i < SHORT_MARKS); i++) {
		buf_reset(&line);
		marked_line(r, i, &line);
		buf_add(&b, buf_str(&line), line.len);
	}
	if (i < r->v->nmarks)
		buf_addf(&b, "%s... and %zu more (--full lists them)\n",
		    r->md ? "" : "  ", r->v->nmarks - i);
	if (r->md)
		code_block(r, "", buf_str(&b));
	else
		fputs(buf_str(&b), r->f);
	buf_release(&line);
	buf_release(&b);
}

static void
reproduce(struct rep *r)
{
	struct view *v = r->v;
	struct buf b;
	size_t i;
	char *t;

	heading(r, "To reproduce");
	buf_init(&b);
	i = 0;
	if (!r->full && v->nlog > r->lim->repro) {
		/* the job's opening, then the last lines */
		t = canvas_inert(v->log[0]);
		buf_addf(&b, "%s%s\n%s# ... %zu more lines (--full lists "
		    "them)\n", r->md ? "" : "  ", t, r->md ? "" : "  ",
		    v->nlog - r->lim->repro);
		free(t);
		i = v->nlog - (r->lim->repro - 1);
	}
	for (; i < v->nlog; i++) {
		t = canvas_inert(v->log[i]);
		buf_addf(&b, "%s%s\n", r->md ? "" : "  ", t);
		free(t);
	}
	if (r->md)
		code_block(r, "", buf_str(&b));
	else
		fputs(buf_str(&b), r->f);
	buf_release(&b);
	fputs("Save these lines with 'save FILE' and run 'trainscope --replay "
	    "FILE' on the same cache.\n", r->f);
}

/* The report's sections, with r's limits. */
static void
sections(struct rep *r, int flags)
{
	summary(r, flags & REPORT_PATHS);
	nodes(r);
	events(r);
	pane_text(r, PANE_HEATMAP, "Heatmap", r->full ? 0 :
	    r->lim->heatmap_rows);
	heatmap_cursor(r);
	if (r->full)
		pane_text(r, PANE_TIMELINE, "Timeline", 0);
	else
		iterations(r);
	flows(r);
	marked(r);
	reproduce(r);
}

/* Lines in text[0, len). */
static size_t
count_lines(const char *text, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

/*
 * The short report: written with each set of limits in turn until it
 * fits SHORT_LINES (the last set is the tightest), then copied to f.
 */
static int
write_short(struct rep *r, FILE *f, int flags)
{
	char *text = NULL;
	size_t len = 0, i;
	int rc = 0;

	for (i = 0; i < TS_NELEM(short_limits); i++) {
		if ((r->f = open_memstream(&text, &len)) == NULL)
			return -1;
		r->lim = &short_limits[i];
		sections(r, flags);
		rc = ferror(r->f) ? -1 : 0;
		fclose(r->f);
		if (rc != 0 || count_lines(text, len) <= SHORT_LINES ||
		    i + 1 == TS_NELEM(short_limits))
			break;
		free(text);
		text = NULL;
	}
	if (rc == 0 && fwrite(text, 1, len, f) != len)
		rc = -1;
	free(text);
	return rc;
}

int
report_write(FILE *f, struct view *v, int md, int flags)
{
	struct rep r;

	memset(&r, 0, sizeof r);
	r.f = f;
	r.md = md;
	r.full = (flags & REPORT_FULL) != 0;
	r.v = v;
	if (!r.full)
		return write_short(&r, f, flags) != 0 || ferror(f) ? -1 : 0;
	sections(&r, flags);
	return ferror(f) ? -1 : 0;
}

/* Does the file's name end in .md or .markdown? */
static int
md_name(const char *path)
{
	size_t n = strlen(path);

	return (n > 3 && strcasecmp(path + n - 3, ".md") == 0) ||
	    (n > 9 && strcasecmp(path + n - 9, ".markdown") == 0);
}

int
cmd_report(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *path = a->argv[0], *fmt = cmd_opt(a, "format");
	FILE *f;
	int bad, md;

	if (fmt != NULL && strcmp(fmt, "md") != 0 && strcmp(fmt, "text") != 0) {
		ts_fail(cause, "report: unknown format '%s' (text or md)", fmt);
		return CMD_USAGE;
	}
	if (ctx->view == NULL || ctx->view->m == NULL) {
		ts_fail(cause, "report: no job is open (open JOB first)");
		return CMD_FAIL;
	}
	/* FILE.md is Markdown unless --format says otherwise */
	md = fmt != NULL ? strcmp(fmt, "md") == 0 : md_name(path);
	if (strcmp(path, "-") == 0)
		f = ctx->out;
	else if (cmd_ctx_open_out(ctx, path, &f, cause) != 0)
		return CMD_FAIL;
	bad = report_write(f, ctx->view, md, (cmd_has_opt(a, "paths") ?
	    REPORT_PATHS : 0) | (cmd_has_opt(a, "full") ? REPORT_FULL : 0)) != 0;
	if (f != ctx->out && fclose(f) != 0)
		bad = 1;
	if (bad) {
		ts_fail(cause, "report: cannot write '%s'", path);
		return CMD_FAIL;
	}
	return CMD_OK;
}
