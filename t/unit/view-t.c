/*
 * view-t.c -- the panes draw absurd models sanely: iteration numbers
 * near the ends of a long, times and durations out of any range, scores
 * past [0, 1], captures joined to the logs at any offset.  A model read back from the cache is trusted only so far
 * (modelio.c checks its shape, not its values), so every pane must draw
 * whatever numbers it holds without overflowing (the sanitizer build
 * stops at any) and with axes and columns that make sense.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view/canvas.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/view.h"
#include "tap.h"

#define HUGE_ITER (-4611686018427387904L)	/* -2^62 */

/*
 * Captures joined to the logs at an offset near the end of a long (by
 * time) or at 4: iterations at no time or at the ends of time, log
 * numbers and durations out of range, a disagreement past any.
 */
static void
absurd_flows(struct model *m, int by_time)
{
	struct model_flows *f = &m->flows;

	f->present = 1;
	f->niters = 3;
	f->iters = xcalloc(3, sizeof *f->iters);
	f->iters[0].start = -1e300;
	f->iters[0].end = 1e300;
	f->iters[0].log_iter = LONG_MAX;
	f->iters[0].log_ms = INFINITY;
	f->iters[1].start = f->iters[1].end = NAN;
	f->iters[1].log_iter = -1;
	f->iters[1].log_ms = NAN;
	f->iters[1].ckpt = 1;
	f->iters[2].start = 1.7e9 + 1;
	f->iters[2].end = 1.7e9 + 2;
	f->iters[2].log_iter = 7;
	f->iters[2].log_ms = -1e300;
	f->join = MODEL_JOIN_DURATION;
	f->join_offset = by_time ? LONG_MIN : 4;
	f->join_ms = 1e300;
	f->join_pct = -INFINITY;
}

/* Four nodes, two events, iterations 1 to 10 and the absurd ones. */
static struct model *
absurd_model(int by_time)
{
	struct model *m = xcalloc(1, sizeof *m);
	size_t i;

	m->name = xstrdup("absurd");
	m->root = xstrdup(".");
	m->failure_iter = LONG_MAX;
	m->last_healthy_iter = m->slow_iter = -1;
	m->first_ts = by_time ? -1e300 : NAN;
	m->last_ts = by_time ? INFINITY : NAN;
	m->by_time = by_time;
	m->nnodes = m->nreal = 4;
	m->nodes = xcalloc(4, sizeof *m->nodes);
	for (i = 0; i < 4; i++) {
		m->nodes[i].name = xasprintf("node-%zu", i);
		m->nodes[i].score = i == 0 ? 1e300 : i == 1 ? NAN : 0.5;
		m->nodes[i].rank = (int)i + 1;
		m->nodes[i].last_iter = i == 2 ? LONG_MIN : i == 3 ? LONG_MAX : 5;
		m->nodes[i].last_ts = i == 1 ? 1e300 : NAN;
		m->nodes[i].first_error_ts = NAN;
	}
	m->suspects = xcalloc(4, sizeof *m->suspects);
	for (i = 0; i < 4; i++)
		m->suspects[i] = (uint32_t)i;
	m->nsuspects = 4;
	m->nevents = 2;
	m->events = xcalloc(2, sizeof *m->events);
	for (i = 0; i < 2; i++) {
		m->events[i].id = (uint32_t)i;
		m->events[i].text = xstrdup("RuntimeError: <*> went wrong");
		m->events[i].score = i == 0 ? 1e300 : NAN;
		m->events[i].count = UINT64_MAX;
		m->events[i].ts = i == 0 ? 1e300 : -INFINITY;
		m->events[i].stage = STAGE_TRAINING;
		m->events[i].iteration = i == 0 ? HUGE_ITER : LONG_MAX;
		m->events[i].line = LONG_MAX;
	}
	/* by iteration, as the model keeps them: the absurd ones at the ends */
	m->niters = 12;
	m->iters = xcalloc(12, sizeof *m->iters);
	m->iters[0].iteration = HUGE_ITER;
	for (i = 1; i <= 10; i++)
		m->iters[i].iteration = (long)i;
	m->iters[11].iteration = LONG_MAX;
	for (i = 0; i < 12; i++) {
		m->iters[i].start = by_time ? (i == 0 ? -1e300 : i == 11 ?
		    1e300 : 1.7e9 + (double)i) : NAN;
		m->iters[i].ms = i == 3 ? INFINITY : i == 4 ? -1e300 :
		    100 + (double)i;
		m->iters[i].flags = i == 5 ? MODEL_ITER_FAILURE : 0;
	}
	m->nmarks = 3;
	m->marks = xcalloc(3, sizeof *m->marks);
	m->marks[0].at = -1e300;
	m->marks[1].at = 5;
	m->marks[2].at = 1e300;
	for (i = 0; i < 3; i++) {
		m->marks[i].level = 7;
		m->marks[i].event = UINT32_MAX;
	}
	m->nspans = 1;
	m->spans = xcalloc(1, sizeof *m->spans);
	m->spans[0].stage = STAGE_TRAINING;
	m->spans[0].start = by_time ? -INFINITY : NAN;
	m->spans[0].end = by_time ? 1e300 : NAN;
	m->spans[0].iter_from = LONG_MIN;
	m->spans[0].iter_to = LONG_MAX;
	absurd_flows(m, by_time);
	return m;
}

/* The pane drawn at width x height (0: whole) as text (allocated). */
static char *
draw(struct view *v, const char *pane, int width, int height)
{
	struct canvas cv;
	char *why = NULL, *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (view_pane(v, pane, &why) != 0)
		ts_fatal("%s", why);
	canvas_init(&cv, width, 0);
	view_draw(v, &cv, width, height);
	canvas_write(&cv, 0, cv.nrows, f);
	canvas_release(&cv);
	fclose(f);
	return out;
}

/* The pane's data as TSV (allocated). */
static char *
data(struct view *v, const char *pane)
{
	char *why = NULL, *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (view_pane(v, pane, &why) != 0 || view_data(v, f, 1, &why) != 0)
		ts_fatal("%s", why);
	fclose(f);
	return out;
}

/* Line n (from 1) of text, in a static buffer. */
static const char *
line(const char *text, int n)
{
	static char buf[512];
	const char *e;

	while (--n > 0 && text != NULL && (text = strchr(text, '\n')) != NULL)
		text++;
	if (text == NULL)
		return "";
	e = strchr(text, '\n');
	snprintf(buf, sizeof buf, "%.*s", (int)(e != NULL ? e - text :
	    (long)strlen(text)), text);
	return buf;
}

int
main(void)
{
	static const char *panes[] = { "events", "heatmap", "timeline",
	    "groups" };
	static const int sizes[][2] = { { 80, 24 }, { 200, 50 }, { 20, 5 },
	    { 100, 0 } };
	struct view v;
	char *s, msg[600];
	size_t p, k;
	int by_time;

	for (by_time = 0; by_time < 2; by_time++) {
		view_init(&v, NULL);
		view_set_model(&v, "absurd", absurd_model(by_time));
		for (p = 0; p < TS_NELEM(panes); p++)
			for (k = 0; k < TS_NELEM(sizes); k++) {
				s = draw(&v, panes[p], sizes[k][0], sizes[k][1]);
				snprintf(msg, sizeof msg, "%s %s at %dx%d draws",
				    by_time ? "by time:" : "by iteration:",
				    panes[p], sizes[k][0], sizes[k][1]);
				ok(s != NULL && strstr(s, "absurd") != NULL, msg);
				free(s);
			}
		free(data(&v, "events"));
		s = data(&v, "heatmap");
		if (!by_time)
			is_str(line(s, 1), "node\tscore\t1\t2\t3\t4\t5\t6\t7\t8\t9"
			    "\t10\t11", "the heatmap's columns are the iterations "
			    "that make sense");
		else
			is_str(line(s, 1), "node\tscore", "no column when the "
			    "logs end at no time");
		free(s);
		free(data(&v, "groups"));
		view_release(&v);
	}

	view_init(&v, NULL);
	view_set_model(&v, "absurd", absurd_model(0));
	s = draw(&v, "heatmap", 80, 24);
	snprintf(msg, sizeof msg, "the heatmap's axis runs from 1: %s",
	    line(s, 4));
	ok(strncmp(line(s, 4), "            1  ", 15) == 0 &&
	    strstr(s, "4611686018427387904") == NULL, msg);
	free(s);
	s = draw(&v, "timeline", 80, 24);
	snprintf(msg, sizeof msg, "the timeline's axis runs from 1 to 10: %s",
	    line(s, 3));
	ok(strstr(line(s, 3), "iteration 1 ") != NULL &&
	    strstr(line(s, 3), " 10") != NULL, msg);
	free(s);
	s = draw(&v, "events", 80, 24);
	snprintf(msg, sizeof msg, "a score past 1 fills its bar, no more: %s",
	    line(s, 4));
	ok(strncmp(line(s, 4), "99 \xe2\x96\x88\xe2\x96\x88\xe2\x96\x88 ",
	    13) == 0, msg);
	free(s);
	view_release(&v);
	return done_testing();
}
