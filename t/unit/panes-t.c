/*
 * panes-t.c -- what the diagnosis says is what the panes draw: the
 * outcome in the header in its colour and the healthy runs by name, the
 * diagnosis's own events (a rank that stops) in the events pane, their
 * drill and their heatmap mark (in ASCII too), an error's trace, and
 * the captures' iterations joined to the logs' in the timeline.  The
 * model is built by hand: a four-node job whose second node stops
 * silently after iteration 12 while the others time out in 13.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "diag/diag.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/view.h"
#include "view/viewint.h"
#include "tap.h"

#define T0 1.7e9

static char **
strv(const char *a, const char *b, const char *c)
{
	char **v = xcalloc(4, sizeof *v);

	v[0] = xstrdup(a);
	v[1] = xstrdup(b);
	v[2] = c != NULL ? xstrdup(c) : NULL;
	return v;
}

/* The stop event (own, at path:line or none) and the timeouts (traced). */
static void
hang_events(struct model *m, int own_line)
{
	struct model_event *e;

	m->nevents = 2;
	m->events = xcalloc(2, sizeof *m->events);
	e = &m->events[0];
	e->id = MODEL_EVENT_OWN;
	e->text = xstrdup("'logs/n2/rank-1.log' stops silently after "
	    "iteration 12");
	e->score = 0.92;
	e->count = 1;
	e->level = DIAG_LEVEL_ERROR;
	e->category = xstrdup("stop");
	e->nodes = xcalloc(1, sizeof *e->nodes);
	e->nodes[0] = 1;
	e->nnodes = 1;
	e->path = own_line ? xstrdup("logs/n2/rank-1.log") : NULL;
	e->line = own_line ? 52 : 0;
	e->ts = T0 + 12;
	e->stage = STAGE_TRAINING;
	e->iteration = 13;
	e = &m->events[1];
	e->id = 7;
	e->text = xstrdup("RuntimeError: Timed out waiting <*> for recv");
	e->score = 0.54;
	e->count = 3;
	e->level = DIAG_LEVEL_ERROR;
	e->category = xstrdup("timeout");
	e->nodes = xcalloc(3, sizeof *e->nodes);
	e->nodes[0] = 0;
	e->nodes[1] = 2;
	e->nodes[2] = 3;
	e->nnodes = 3;
	e->path = xstrdup("logs/n1/rank-0.log");
	e->line = 60;
	e->ts = NAN;
	e->stage = STAGE_TRAINING;
	e->iteration = 13;
	e->trace = strv("Traceback (most recent call last):",
	    "File <*> line <*> in all_reduce", "work.wait()");
	e->ntrace = 3;
}

/* Twelve capture iterations, each 5 % longer than the logs' on one clock. */
static void
hang_flows(struct model *m, int join)
{
	struct model_flows *f = &m->flows;
	size_t k;

	f->present = 1;
	f->niters = 12;
	f->iters = xcalloc(12, sizeof *f->iters);
	for (k = 0; k < 12; k++) {
		f->iters[k].start = m->iters[k].start;
		f->iters[k].end = f->iters[k].start + m->iters[k].ms * 1.05e-3;
		f->iters[k].log_iter = join ? (long)k + 1 : -1;
		f->iters[k].log_ms = join ? m->iters[k].ms : NAN;
		f->iters[k].end_max = NAN;
	}
	f->iters[9].ckpt = 1;
	f->iters[9].end += 1;
	f->join = join ? MODEL_JOIN_TIME : MODEL_JOIN_NONE;
	f->join_ms = join ? 7.5 : NAN;
	f->join_pct = join ? 5 : NAN;
	f->period = 0.15;
}

static struct model *
hang_model(int outcome, int own_line, int join)
{
	struct model *m = xcalloc(1, sizeof *m);
	struct model_mark *mk;
	size_t i;

	m->name = xstrdup("hang");
	m->root = xstrdup(".");
	m->outcome = outcome;
	m->stage = STAGE_TRAINING;
	m->failure_iter = 13;
	m->last_healthy_iter = 12;
	m->slow_iter = -1;
	m->first_ts = T0;
	m->last_ts = T0 + 30;
	m->nhealthy = 3;
	m->healthy_runs = strv("run1_normal", "run3_normal", "run4_normal");
	m->nhealthy_runs = 3;
	m->nnodes = m->nreal = 4;
	m->nodes = xcalloc(4, sizeof *m->nodes);
	for (i = 0; i < 4; i++) {
		m->nodes[i].name = xasprintf("n%zu", i + 1);
		m->nodes[i].score = i == 1 ? 0.91 : 0;
		m->nodes[i].last_iter = 12;
		m->nodes[i].last_ts = T0 + (i == 1 ? 12 : 30);
		m->nodes[i].first_error_ts = NAN;
		m->nodes[i].nranks = 1;
	}
	m->suspects = xcalloc(1, sizeof *m->suspects);
	m->suspects[0] = 1;
	m->nsuspects = 1;
	m->nodes[1].rank = 1;
	hang_events(m, own_line);
	m->niters = 13;
	m->iters = xcalloc(13, sizeof *m->iters);
	for (i = 0; i < 13; i++) {
		m->iters[i].iteration = (long)i + 1;
		m->iters[i].start = T0 + 10 + 0.15 * (double)i;
		m->iters[i].ms = i < 12 ? 140 + (double)(i % 3) * 10 : NAN;
		m->iters[i].flags = i == 12 ? MODEL_ITER_FAILURE : 0;
	}
	/* the timeouts in 13 on three nodes, the stop on n2 */
	m->nmarks = 4;
	m->marks = xcalloc(4, sizeof *m->marks);
	for (i = 0; i < 4; i++) {
		mk = &m->marks[i];
		mk->node = (uint32_t)i;
		mk->at = 13;
		mk->level = i == 1 ? 7 : 4;
		mk->flags = MODEL_MARK_ERROR | (i == 1 ? MODEL_MARK_STOP : 0);
		mk->event = i == 1 ? 0 : 1;
		mk->n = 1;
	}
	m->nspans = 1;
	m->spans = xcalloc(1, sizeof *m->spans);
	m->spans[0].stage = STAGE_TRAINING;
	m->spans[0].start = T0 + 10;
	m->spans[0].end = T0 + 30;
	m->spans[0].iter_from = 1;
	m->spans[0].iter_to = 13;
	hang_flows(m, join);
	return m;
}

/* Draw pane of v at width x height into cv (ascii or not); its text. */
static char *
draw(struct view *v, struct canvas *cv, const char *pane, int width,
    int height, int ascii)
{
	char *why = NULL, *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (view_pane(v, pane, &why) != 0)
		ts_fatal("%s", why);
	canvas_release(cv);
	canvas_init(cv, width, ascii);
	view_draw(v, cv, width, height);
	canvas_write(cv, 0, cv->nrows, f);
	fclose(f);
	return out;
}

/* The line of text that begins with `start`, in a static buffer, or "". */
static const char *
line_of(const char *text, const char *start)
{
	static char buf[512];
	const char *p = text, *e;
	size_t n = strlen(start);

	for (; p != NULL && *p != '\0'; p = e != NULL ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (strncmp(p, start, n) == 0) {
			snprintf(buf, sizeof buf, "%.*s", (int)(e != NULL ?
			    e - p : (long)strlen(p)), p);
			return buf;
		}
	}
	return "";
}

/* The style of the first cell of row `row` holding `what`, or -1. */
static int
style_at(struct canvas *cv, int row, const char *what)
{
	char buf[1024];
	const char *at;

	canvas_row_text(cv, row, buf, sizeof buf);
	if ((at = strstr(buf, what)) == NULL)
		return -1;
	/* (ASCII text: a byte a column) */
	return canvas_cell(cv, row, (int)(at - buf))->style;
}

static void
test_header(void)
{
	static const struct { int outcome; const char *name; int style; } o[] = {
		{ DIAG_FAILED, "failed", CS_ERROR },
		{ DIAG_DIVERGED, "diverged", CS_ERROR },
		{ DIAG_DEGRADED, "degraded", CS_WARN },
		{ DIAG_COMPLETED, "completed", CS_HEADER },
	};
	struct canvas cv;
	struct view v;
	char *s, msg[128];
	size_t i;

	canvas_init(&cv, 80, 0);
	for (i = 0; i < TS_NELEM(o); i++) {
		view_init(&v, NULL);
		view_set_model(&v, "hang", hang_model(o[i].outcome, 1, 1));
		free(draw(&v, &cv, "events", 80, 24, 0));
		snprintf(msg, sizeof msg, "the header says '%s' in its colour",
		    o[i].name);
		is_int(style_at(&cv, 0, o[i].name), o[i].style, msg);
		is_int(style_at(&cv, 0, "hang"), CS_HEADER, "the job's name "
		    "keeps the header's");
		view_release(&v);
	}
	view_init(&v, NULL);
	view_set_model(&v, "hang", hang_model(DIAG_FAILED, 1, 1));
	s = draw(&v, &cv, "events", 200, 24, 0);
	ok(strstr(line_of(s, "hang"), "  4 nodes  3 healthy runs compared "
	    "(run1_normal, run3_normal, run4_normal)") != NULL,
	    "a wide header names every healthy run compared");
	free(s);
	s = draw(&v, &cv, "events", 100, 24, 0);
	is_str(line_of(s, "hang"), "hang  failed in training at iteration 13  "
	    "4 nodes  3 healthy runs compared (run1_normal +2)",
	    "a narrower one as many as fit, and how many more");
	free(s);
	s = draw(&v, &cv, "events", 66, 24, 0);
	is_str(line_of(s, "hang"), "hang  failed in training at iteration 13  "
	    "4 nodes  3 healthy runs", "a narrow one their number");
	free(s);
	view_release(&v);
	canvas_release(&cv);
}

static void
test_heatmap(void)
{
	struct canvas cv;
	struct view v;
	char *s;
	int row;

	canvas_init(&cv, 80, 1);
	view_init(&v, NULL);
	view_set_model(&v, "hang", hang_model(DIAG_FAILED, 1, 1));
	s = draw(&v, &cv, "heatmap", 80, 24, 1);
	ok(strstr(line_of(s, "0.91 n2"), "...!") != NULL &&
	    strstr(line_of(s, "     n1"), "...=") != NULL,
	    "ASCII: the rank that stops is marked where it stopped");
	ok(strstr(s, "  ! rank stops  X log ends") != NULL,
	    "the legend says what the mark is");
	ok(strchr(s, 0xe2) == NULL && strchr(s, (char)0xc2) == NULL,
	    "nothing but ASCII");
	row = 5;
	is_int(style_at(&cv, row, "!"), CS_ERROR, "in the error colour");
	free(s);
	s = draw(&v, &cv, "heatmap", 200, 24, 0);
	ok(strstr(line_of(s, "0.91 n2"), "\u00b7!\u2588\u2588") != NULL,
	    "a wide cell keeps what it shows beside the mark");
	free(s);
	view_release(&v);
	canvas_release(&cv);
}

static void
test_events(void)
{
	struct view_target t;
	struct canvas cv;
	struct view v;
	char *s, *why = NULL;

	canvas_init(&cv, 80, 0);
	view_init(&v, NULL);
	view_set_model(&v, "hang", hang_model(DIAG_FAILED, 1, 1));
	s = draw(&v, &cv, "events", 80, 24, 0);
	ok(strstr(line_of(s, "92 "), " stop ") != NULL,
	    "the rank that stops is the first event");
	is_str(line_of(s, "at "), "at logs/n2/rank-1.log:52  22:13:32  "
	    "training, iteration 13", "its detail says where it is");
	free(s);
	ok(view_target(&v, &t) == 0 && t.kind == VT_LINE &&
	    strcmp(t.name, "logs/n2/rank-1.log") == 0 && t.iter == 52,
	    "it leads to its file at its line");
	view_move(&v, "down", &why);
	s = draw(&v, &cv, "events", 80, 24, 0);
	is_str(line_of(s, "trace "), "trace Traceback (most recent call last):",
	    "the timeouts' trace");
	is_str(line_of(s, "      work.wait"), "      work.wait()",
	    "down to the line before the error");
	free(s);
	s = draw(&v, &cv, "events", 80, 20, 0);
	is_str(line_of(s, "trace "), "trace (1 above) File <*> line <*> in "
	    "all_reduce", "short of room, its last lines");
	free(s);
	ok(view_target(&v, &t) == 0 && t.kind == VT_EVENT && t.id == 7,
	    "a template's event leads to its lines");
	view_release(&v);

	view_init(&v, NULL);
	view_set_model(&v, "hang", hang_model(DIAG_FAILED, 0, 1));
	s = draw(&v, &cv, "events", 80, 24, 0);
	is_str(line_of(s, "no line"), "no line (what was not logged)  training",
	    "an own event of no line says so");
	free(s);
	ok(view_target(&v, &t) != 0 && t.why != NULL &&
	    strncmp(t.why, "no line", 7) == 0, "and leads nowhere, saying why");
	ok(view_drill(&v, &why) != 0 && strncmp(why, "no line", 7) == 0,
	    "a drill says 'no line'");
	free(why);
	view_release(&v);
	canvas_release(&cv);
}

static void
test_timeline(void)
{
	struct canvas cv;
	struct view v;
	char *s;

	canvas_init(&cv, 80, 0);
	view_init(&v, NULL);
	view_set_model(&v, "hang", hang_model(DIAG_FAILED, 1, 1));
	s = draw(&v, &cv, "timeline", 80, 30, 0);
	is_str(line_of(s, "wire vs logs"), "wire vs logs    capture 1-12 = "
	    "log 1-12 (by time), median +7.5 ms +5.0 %",
	    "joined: which capture iterations are which, and how far apart");
	ok(line_of(s, "on the wire")[0] != '\0' &&
	    line_of(s, "from flows")[0] == '\0',
	    "the wire's lengths on the logs' axis");
	is_str(line_of(s, "  iter "), "  iter     start  log ms  capture  "
	    "wire ms  diff ms", "the list has the wire's columns");
	is_str(line_of(s, "     2 "), "     2  22:13:30     150      2      "
	    "158     +7.5", "each log iteration beside its capture iteration");
	ok(strstr(line_of(s, "    10 "), "+1007.0") != NULL &&
	    strstr(line_of(s, "    10 "), "save") != NULL,
	    "a checkpoint save's pause is the wire's alone, and said");
	ok(strstr(line_of(s, "    13 "), "failure") != NULL &&
	    strstr(line_of(s, "    13 "), "     13 ") == NULL,
	    "the iteration the capture lacks has no capture column");
	free(s);
	view_release(&v);

	view_init(&v, NULL);
	view_set_model(&v, "hang", hang_model(DIAG_FAILED, 1, 0));
	s = draw(&v, &cv, "timeline", 80, 30, 0);
	ok(line_of(s, "from flows")[0] != '\0' &&
	    line_of(s, "wire vs logs")[0] == '\0' &&
	    strcmp(line_of(s, "  iter "), "  iter     start        ms") == 0,
	    "not joined: the captures' ticks as before, no wire columns");
	free(s);
	view_release(&v);
	canvas_release(&cv);
}

int
main(void)
{
	test_header();
	test_heatmap();
	test_events();
	test_timeline();
	return done_testing();
}
