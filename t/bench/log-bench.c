/*
 * log-bench.c -- the log pane as the screen draws it, against the events
 * pane, in the same run.
 *
 *	log-bench CACHE JOB [PAGES]
 *
 * Opens JOB's model as the screen does (found once, by its id after),
 * then times at 200x50, wall clock, best of three:
 *   - the job opened (its model read back) and the events pane's first
 *     frame: what `view events` does, the baseline;
 *   - the log pane's first frame at the failure, as the screen draws it
 *     (stage and iteration asked of the background), with a new view each
 *     time (the merge opened, the window built);
 *   - the same drawn as batch use draws it (the tags read at once);
 *   - PAGES pages down and then up, each a move and a frame (ms a page);
 *   - a raw search of the whole job (its answer, in the background) and
 *     the frame that starts it.
 * Prints one line each, with the ratio to the baseline.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/jobdb.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "view/canvas.h"
#include "view/view.h"

#define W 200
#define H 50

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct cache *cache;
static struct job_ref ref;

/* A view of the job, as `open` leaves it (the model read back). */
static void
open_view(struct view *v, int async)
{
	struct model *m;
	char *why = NULL;

	view_init(v, cache);
	if (job_model_ref(cache, &ref, NULL, 0, 0, NULL, "bench", &m,
	    &why) != 0) {
		fprintf(stderr, "log-bench: %s\n", why);
		exit(1);
	}
	view_set_model(v, ref.name, m);
	v->job_id = ref.id;
	v->async = async;
}

static void
run(struct view *v, const char *line)
{
	char *why = NULL;
	int rc;

	if (strncmp(line, "pane ", 5) == 0)
		rc = view_pane(v, line + 5, &why);
	else if (strncmp(line, "move ", 5) == 0)
		rc = view_move(v, line + 5, &why);
	else
		rc = view_search(v, line + 7, &why);
	if (rc != 0) {
		fprintf(stderr, "log-bench: %s: %s\n", line, why);
		exit(1);
	}
}

/*
 * Seconds of the first frame of pane p in a new view (with the job's
 * opening when `open`), best of three.
 */
static double
first_frame(const char *p, int async, int open)
{
	struct canvas cv;
	struct view v;
	double best = 1e9, t;
	int i;

	for (i = 0; i < 3; i++) {
		t = now();
		open_view(&v, async);
		canvas_init(&cv, W, 0);
		if (!open)
			t = now();
		run(&v, p);
		view_draw(&v, &cv, W, H);
		t = now() - t;
		if (t < best)
			best = t;
		canvas_release(&cv);
		view_release(&v);
	}
	return best;
}

/* Seconds a page, `pages` moves `how` each with its frame. */
static double
pages(struct view *v, struct canvas *cv, const char *how, int n)
{
	double t = now();
	int i;

	for (i = 0; i < n; i++) {
		run(v, how);
		view_draw(v, cv, W, H);
	}
	return (now() - t) / n;
}

int
main(int argc, char **argv)
{
	struct canvas cv;
	struct view v;
	double ev, lg, sync, fwd, back, s0, s1;
	char *why = NULL;
	int n = argc > 3 ? atoi(argv[3]) : 200;

	if (argc < 3 || n < 1) {
		fprintf(stderr, "usage: log-bench CACHE JOB [PAGES]\n");
		return 2;
	}
	if (cache_open(argv[1], 0, &cache, &why) != 0 ||
	    jobdb_find(cache, argv[2], &ref, &why) != 1) {
		fprintf(stderr, "log-bench: %s\n", why != NULL ? why : "no job");
		return 1;
	}
	ev = first_frame("pane events", 1, 1);
	lg = first_frame("pane log", 1, 0);
	sync = first_frame("pane log", 0, 0);
	printf("the job opened and the events pane drawn: %.1f ms\n", ev * 1e3);
	printf("log pane at the failure, first frame: %.1f ms (ratio %.2f); "
	    "with the tags read at once: %.1f ms\n", lg * 1e3, lg / ev,
	    sync * 1e3);
	open_view(&v, 1);
	canvas_init(&cv, W, 0);
	run(&v, "pane log");
	view_draw(&v, &cv, W, H);
	run(&v, "move top");
	view_draw(&v, &cv, W, H);
	fwd = pages(&v, &cv, "move pgdn", n);
	back = pages(&v, &cv, "move pgup", n);
	printf("a page (a move and its frame), %d pages: down %.2f ms, up "
	    "%.2f ms (ratios %.3f, %.3f)\n", n, fwd * 1e3, back * 1e3,
	    fwd / ev, back / ev);
	s0 = now();
	run(&v, "search /SeqNum=60363\\b/");
	view_draw(&v, &cv, W, H);
	s1 = now();
	while (view_busy(&v)) {
		usleep(2000);
		view_poll(&v);
	}
	view_draw(&v, &cv, W, H);
	printf("search of the whole job: the frame that starts it %.1f ms, "
	    "its answer after %.2f s\n", (s1 - s0) * 1e3, now() - s0);
	canvas_release(&cv);
	view_release(&v);
	jobdb_release(&ref);
	cache_close(cache);
	return 0;
}
