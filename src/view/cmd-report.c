/*
 * cmd-report.c -- `report FILE`: a failure report for a ticket, as plain text
 * or Markdown, from the job the views look at.
 *
 * Everything in it comes from the model and the cache, so the same
 * session on the same cache writes the same report: no wall-clock time,
 * and the job's directory only with --paths.
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

#include "view/canvas.h"
#include "cli/commands.h"
#include "diag/diag.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/report.h"
#include "view/view.h"
#include "view/viewint.h"

#define REPORT_WIDTH 100
#define REPORT_EVENTS 10
#define REPORT_SAMPLES 3

struct rep {
	FILE *f;
	int md;
	struct view *v;
};

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

static void
summary(struct rep *r, int paths)
{
	const struct model *m = r->v->m;
	char a[40], b[40];
	const char *fmt = r->md ? "| %s | %s |\n" : "%-12s %s\n";
	char *line, *fmtl, healthy[512];

	if (r->md)
		put(r, "# Failure report: %s\n\n| | |\n|---|---|\n", m->name);
	else
		put(r, "Failure report: %s\n", m->name);
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

	heading(r, "Suspect nodes");
	for (i = 0; i < m->nsuspects && n < 5; i++) {
		const struct model_node *nd = &m->nodes[m->suspects[i]];

		if (nd->score < 0.1)
			continue;
		n++;
		fprintf(r->f, "%zu. ", n);
		put(r, r->md ? "**%s**" : "%s", nd->name);
		fprintf(r->f, r->md ? " (%.2f)\n" : "  %.2f\n", nd->score);
		for (k = 0; k < nd->nreasons; k++)
			put(r, "   - %s\n", nd->reasons[k]);
	}
	if (n == 0)
		fputs("No node stands out.\n", r->f);
}

static void
samples(struct rep *r, const struct model_event *e)
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
	view_lines_fill(v, 0, REPORT_SAMPLES);
	/* raw lines: inert, and in Markdown in a code block, never escaped */
	buf_init(&b);
	for (i = 0; i < v->nlines && i < REPORT_SAMPLES; i++) {
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

static void
events(struct rep *r)
{
	const struct model *m = r->v->m;
	size_t i, k, n, *rows;
	char t[16];

	heading(r, "Suspect events");
	/* the events the view's filters leave, in its order */
	rows = view_event_rows(r->v, &n);
	if (r->v->st.nfilters > 0) {
		char *f = view_filters_text(r->v), *line, *save = NULL;

		fprintf(r->f, "%s in force (%zu of %zu events pass):\n",
		    r->v->st.nfilters == 1 ? "A filter is" : "Filters are", n,
		    m->nevents);
		for (line = strtok_r(f, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save))
			put(r, r->md ? "- %s\n" : "   %s\n", line);
		fputc('\n', r->f);
		free(f);
	}
	for (i = 0; i < n && i < REPORT_EVENTS; i++) {
		const struct model_event *e = &m->events[rows[i]];
		char *text = field(r, e->text), *cat = field(r, e->category);

		fprintf(r->f, r->md ? "%zu. **%s%s%s%s** (score %.2f)\n" :
		    "%zu. %s%s%s%s  (score %.2f)\n", i + 1,
		    e->category ? "[" : "", cat, e->category ? "] " : "", text,
		    e->score);
		free(cat);
		free(text);
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
		for (k = 0; k < e->nreasons; k++)
			put(r, "   - %s\n", e->reasons[k]);
		if (e->explain != NULL)
			put(r, r->md ? "   - *means:* %s\n" : "   means: %s\n",
			    e->explain);
		if (e->action != NULL)
			put(r, r->md ? "   - *do:* %s\n" : "   do:    %s\n",
			    e->action);
		samples(r, e);
	}
	if (m->nevents == 0)
		fputs("No event was logged.\n", r->f);
	else if (n == 0)
		fputs("No event passes the filters.\n", r->f);
	free(rows);
}

/* A pane as text, without the job line, the tabs and the status line. */
static void
pane_text(struct rep *r, enum view_pane p, const char *title)
{
	struct view *v = r->v;
	enum view_pane saved = v->st.pane;
	int top = v->st.top[p], cur = v->st.cursor[p];
	struct canvas cv;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;

	heading(r, title);
	v->st.pane = p;
	canvas_init(&cv, REPORT_WIDTH, 0);
	view_draw(v, &cv, REPORT_WIDTH, 0);
	if (!r->md)
		canvas_write(&cv, 2, cv.nrows, r->f);
	else if ((mem = open_memstream(&text, &len)) != NULL) {
		canvas_write(&cv, 2, cv.nrows, mem);
		fclose(mem);
		code_block(r, "", text);
		free(text);
	}
	canvas_release(&cv);
	v->st.pane = saved;
	v->st.top[p] = top;
	v->st.cursor[p] = cur;
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
	for (i = 0; i < f->nfindings; i++) {
		put(r, "- %s ", f->findings[i].kind);
		put(r, "%s\n", f->findings[i].subject);
		for (k = 0; k < f->findings[i].nreasons; k++)
			put(r, "  - %s\n", f->findings[i].reasons[k]);
	}
	if (f->nfindings == 0)
		fputs("Nothing slow was found in them.\n", r->f);
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
	for (i = 0; i < v->nlog; i++) {
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

int
report_write(FILE *f, struct view *v, int md, int paths)
{
	struct rep r;

	r.f = f;
	r.md = md;
	r.v = v;
	summary(&r, paths);
	nodes(&r);
	events(&r);
	pane_text(&r, PANE_HEATMAP, "Heatmap");
	pane_text(&r, PANE_TIMELINE, "Timeline");
	flows(&r);
	reproduce(&r);
	return ferror(f) ? -1 : 0;
}

int
cmd_report(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *path = a->argv[0], *fmt = cmd_opt(a, "format");
	FILE *f;
	int bad;

	if (fmt != NULL && strcmp(fmt, "md") != 0 && strcmp(fmt, "text") != 0) {
		ts_fail(cause, "report: unknown format '%s' (text or md)", fmt);
		return CMD_USAGE;
	}
	if (ctx->view == NULL || ctx->view->m == NULL) {
		ts_fail(cause, "report: no job is open (open JOB first)");
		return CMD_FAIL;
	}
	if (strcmp(path, "-") == 0)
		f = ctx->out;
	else if (cmd_ctx_open_out(ctx, path, &f, cause) != 0)
		return CMD_FAIL;
	bad = report_write(f, ctx->view, fmt != NULL && strcmp(fmt, "md") == 0,
	    cmd_has_opt(a, "paths")) != 0;
	if (f != ctx->out && fclose(f) != 0)
		bad = 1;
	if (bad) {
		ts_fail(cause, "report: cannot write '%s'", path);
		return CMD_FAIL;
	}
	return CMD_OK;
}
