/*
 * search-bench.c -- `search` and `next` over a large pane, against
 * drawing the same pane, in the same run.
 *
 *	search-bench N [CACHE JOB]
 *
 * Builds a model of N events and N nodes in memory and, for the events,
 * heatmap and groups panes, times drawing the pane (the events at 80x24,
 * whose draw sorts all N; the heatmap and the groups whole, as export
 * draws them, since at 80x24 they fold or show 20 of N rows) against
 * `search /needle/` and `next`,
 * each right after a change of the view state, so that both build the
 * pane's rows.  Only the pane's last row matches: the search reads every
 * row, and `next` every row again.  With CACHE and JOB (a job whose top
 * event has N lines, the last with "987654321" in it) the lines pane of
 * that event is timed the same way.  Prints the times (CPU seconds, the
 * best of five) and the ratio search/draw: a search that reads each
 * row once keeps that ratio flat as N grows.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/cache.h"
#include "view/canvas.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/view.h"
#include "view/viewint.h"

static double
cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* N events and N nodes; event 0 (the lowest score) and the last node
   are the only ones that say "needle". */
static struct model *
make_model(size_t n)
{
	struct model *m = xcalloc(1, sizeof *m);
	size_t i;

	m->name = xstrdup("bench");
	m->root = xstrdup(".");
	m->failure_iter = m->last_healthy_iter = m->slow_iter = -1;
	m->first_ts = m->last_ts = NAN;
	m->nodes = xcalloc(n, sizeof *m->nodes);
	m->nnodes = m->nreal = n;
	for (i = 0; i < n; i++) {
		m->nodes[i].name = i + 1 == n ? xstrdup("needle") :
		    xasprintf("node-%06zu", i);
		m->nodes[i].last_iter = 10;
		m->nodes[i].last_ts = m->nodes[i].first_error_ts = NAN;
		m->nodes[i].nranks = 8;
	}
	m->events = xcalloc(n, sizeof *m->events);
	m->nevents = n;
	for (i = 0; i < n; i++) {
		struct model_event *e = &m->events[i];

		e->id = (uint32_t)i;
		e->text = i == 0 ? xstrdup("the needle <*> in a haystack") :
		    xasprintf("event <*> of kind %zu at step <*>", i);
		e->score = i == 0 ? 0.01 : 0.5 + (double)(i % 1000) / 2000;
		e->count = i + 1;
		e->ts = NAN;
		e->stage = STAGE_TRAINING;
		e->iteration = -1;
	}
	m->iters = xcalloc(10, sizeof *m->iters);
	for (i = 0; i < 10; i++) {
		m->iters[i].iteration = (long)i + 1;
		m->iters[i].start = m->iters[i].ms = NAN;
	}
	m->niters = 10;
	return m;
}

/*
 * Changes of the view state that change no row (the sort it has, the
 * context it has): the next question builds the rows again.  The cursor
 * goes to the top.
 */
static void
touch(struct view *v)
{
	char *why = NULL;

	if (view_sort(v, "score", &why) != 0 ||
	    view_context(v, v->st.context, &why) != 0)
		ts_fatal("%s", why);
	v->st.cursor[v->st.pane] = 0;
}

static double
time_draw(struct view *v, struct canvas *cv, int h)
{
	double t0;

	touch(v);
	t0 = cputime();
	view_draw(v, cv, 80, h);
	return cputime() - t0;
}

static double
time_search(struct view *v, const char *pattern, int *row)
{
	char *why = NULL;
	double t0;

	touch(v);
	t0 = cputime();
	if (view_search(v, pattern, &why) != 0 ||
	    view_search_next(v, 1, &why) != 0)
		ts_fatal("search: %s", why);
	*row = v->st.cursor[v->st.pane];
	return cputime() - t0;
}

/* Time pane p of v: draw and search, best of five; print a row. */
static void
bench_pane(struct view *v, const char *pane, int h, const char *pattern)
{
	struct canvas cv;
	double d = INFINITY, s = INFINITY, t;
	char *why = NULL;
	int k, row = -1, n;

	if (view_pane(v, pane, &why) != 0)
		ts_fatal("%s", why);
	canvas_init(&cv, 80, 0);
	view_draw(v, &cv, 80, h);
	for (k = 0; k < 5; k++) {
		if ((t = time_draw(v, &cv, h)) < d)
			d = t;
		if ((t = time_search(v, pattern, &row)) < s)
			s = t;
	}
	n = view_nrows(v);
	printf("%-8s %7d rows  draw %8.4f s  search+next %8.4f s  "
	    "search/draw %6.2f  (found row %d)\n", pane, n, d, s, s / d,
	    row + 1);
	canvas_release(&cv);
}

int
main(int argc, char **argv)
{
	struct cache *c = NULL;
	struct model *m;
	struct view v;
	char *why = NULL;
	long n;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: search-bench N [CACHE JOB]\n");
		return 2;
	}
	if (ts_parse_long(argv[1], &n) != 0 || n < 2)
		ts_fatal("N wants a number of rows");
	view_init(&v, NULL);
	view_set_model(&v, "bench", make_model((size_t)n));
	bench_pane(&v, "events", 24, "needle");
	bench_pane(&v, "heatmap", 0, "needle");
	bench_pane(&v, "groups", 0, "needle");
	view_release(&v);
	if (argc == 2)
		return 0;
	if (cache_open(argv[2], 0, &c, &why) != 0 ||
	    job_model(c, argv[3], NULL, 0, 0, NULL, "bench", &m, &why) != 0)
		ts_fatal("%s", why);
	view_init(&v, c);
	view_set_model(&v, argv[3], m);
	if (view_drill(&v, &why) != 0)
		ts_fatal("drill: %s", why);
	bench_pane(&v, "lines", 24, "987654321");
	v.cache = NULL;
	view_release(&v);
	cache_close(c);
	return 0;
}
