/*
 * logpane-t.c -- the log pane's window against a plain walk of the merged
 * log: every row in order going down a row at a time and a page at a
 * time, the same rows back up (past the window's trim, which keeps a few
 * thousand rows), the place in the whole log the status line counts, a
 * filter's rows against the walk's with the filter applied, seeks by
 * line, by time and by line number, and the raw search's order.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/jobdb.h"
#include "diag/model.h"
#include "logs/grep.h"
#include "logs/index.h"
#include "logs/logmerge.h"
#include "view/canvas.h"
#include "view/view.h"
#include "../lib/tap.h"

#define T0 1714564800.0		/* 2024-05-01 12:00:00 UTC */
#define NROWS 9000		/* past the window's trim */

static char dir[] = "/tmp/logpane-t.XXXXXX";
static struct cache *cache;
static struct job_ref ref;

static void
stamp(char *b, size_t n, double t)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	gmtime_r(&s, &tm);
	snprintf(b, n, "%04d-%02d-%02d %02d:%02d:%02d.%03d", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    (int)lround((t - floor(t)) * 1000) % 1000);
}

/* Three ranks of 3000 lines, every 7th line without a time. */
static void
write_job(void)
{
	char path[512], ts[64];
	size_t f, j;

	for (f = 0; f < 3; f++) {
		FILE *fp;

		snprintf(path, sizeof path, "%s/node-00%zu", dir, f + 1);
		mkdir(path, 0755);
		snprintf(path, sizeof path, "%s/node-00%zu/rank-%zu.log", dir,
		    f + 1, f);
		fp = fopen(path, "w");
		for (j = 0; j < NROWS / 3; j++) {
			stamp(ts, sizeof ts, T0 + (double)j * 0.01 +
			    (double)f * 0.003);
			if (j % 7 == 3)
				fprintf(fp, "  File \"x.py\", line %zu\n", j);
			else
				fprintf(fp, "[%s] INFO step %zu seq=%zu%s\n", ts, j,
				    f * 10000 + j, j % 10 == 0 ? " beacon" : "");
		}
		fclose(fp);
	}
}

/* A view of the job, with a model of nothing but its name and root. */
static void
view_of(struct view *v)
{
	struct model *m = xcalloc(1, sizeof *m);

	m->name = xstrdup("j");
	m->root = xstrdup(dir);
	m->failure_iter = m->last_healthy_iter = m->slow_iter = -1;
	m->first_ts = m->last_ts = NAN;
	view_init(v, cache);
	view_set_model(v, "j", m);
	v->job_id = ref.id;
	v->width = 100;
	v->height = 30;
	view_pane(v, "log", NULL);
}

static void
draw(struct view *v)
{
	struct canvas cv;

	canvas_init(&cv, 100, 0);
	view_draw(v, &cv, 100, 30);
	canvas_release(&cv);
}

static void
cmd(struct view *v, int (*fn)(struct view *, const char *, char **),
    const char *arg)
{
	char *why = NULL;

	if (fn(v, arg, &why) != 0) {
		printf("# %s: %s\n", arg, why);
		free(why);
	}
}

/* The keys of the merge's rows in order, those `keep` keeps. */
static char **
walk(struct logmerge *m, struct grep *keep, int invert, size_t *n)
{
	struct lm_cursor *c = lm_cursor_new(m);
	struct buf t = BUF_INIT;
	struct lm_row r;
	char **keys = xcalloc(NROWS + 1, sizeof *keys), *why = NULL;

	*n = 0;
	lm_seek_first(c, &why);
	do {
		lm_row(c, &r);
		if (keep != NULL && (lm_text(m, &r, &t, &why) != 0 ||
		    grep_match(keep, t.s, t.len) == invert))
			continue;
		keys[(*n)++] = lm_pos(m, &r);
	} while (lm_next(c, &why) == 1);
	buf_release(&t);
	lm_cursor_free(c);
	return keys;
}

static void
keys_free(char **keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
}

/* Down a row at a time from the top, then up: every key in order. */
static size_t
walk_pane(struct view *v, char **keys, size_t n)
{
	size_t i, bad = 0;
	char *key;

	cmd(v, view_move, "top");
	draw(v);
	for (i = 0; i < n; i++) {
		key = view_row_key(v);
		if (key == NULL || strcmp(key, keys[i]) != 0)
			bad++;
		free(key);
		if (i + 1 < n)
			cmd(v, view_move, "down");
		if (i % 500 == 0)
			draw(v);
	}
	for (i = n; i-- > 0;) {
		key = view_row_key(v);
		if (key == NULL || strcmp(key, keys[i]) != 0)
			bad++;
		free(key);
		if (i > 0)
			cmd(v, view_move, "up");
	}
	return bad;
}

static void
test_order(struct view *v, struct logmerge *m)
{
	size_t n, bad;
	char **keys = walk(m, NULL, 0, &n), *key;

	is_int((long)n, NROWS, "the merge has every line");
	bad = walk_pane(v, keys, n);
	is_int((long)bad, 0, "down a row at a time and back up: every row in "
	    "the merged order, past the window's trim");
	cmd(v, view_move, "top");
	draw(v);
	cmd(v, view_move, "pgdn");
	draw(v);
	key = view_row_key(v);
	ok(key != NULL && strcmp(key, keys[v->page]) == 0,
	    "a page down is a page of rows down");
	free(key);
	cmd(v, view_move, "bottom");
	key = view_row_key(v);
	ok(key != NULL && strcmp(key, keys[n - 1]) == 0, "bottom: the last row");
	free(key);
	cmd(v, view_move, "4321");
	key = view_row_key(v);
	ok(key != NULL && strcmp(key, keys[4320]) == 0,
	    "move N: line N of the whole log");
	free(key);
	keys_free(keys, n);
}

static void
test_filter(struct view *v, struct logmerge *m, const char *re, int invert)
{
	struct grep *g;
	size_t n, off;
	char **keys, *why = NULL, spec[64], what[192];

	grep_compile_flags(re, GREP_CASELESS, &g, &off, &why);
	keys = walk(m, g, invert, &n);
	snprintf(spec, sizeof spec, "/%s/", re);
	if (view_filter(v, spec, invert, &why) != 0)
		printf("# %s\n", why);
	snprintf(what, sizeof what, "filter %s%s: the rows the walk keeps, in "
	    "order, down and up", invert ? "-v " : "", spec);
	ok(walk_pane(v, keys, n) == 0, what);
	view_unfilter(v, NULL, &why);
	keys_free(keys, n);
	grep_free(g);
}

/* Is the cursor's row at `want`? */
static int
at(struct view *v, const char *want)
{
	char *key = view_row_key(v);
	int rc = key != NULL && strcmp(key, want) == 0;

	if (!rc)
		printf("# at %s, not %s\n", key != NULL ? key : "-", want);
	free(key);
	return rc;
}

static void
test_seeks(struct view *v)
{
	char *why = NULL;

	cmd(v, view_move, "top");
	draw(v);
	ok(view_goto(v, "line", "node-002/rank-1.log:2000", &why) == 0 &&
	    at(v, "node-002/rank-1.log:2000"), "goto line");
	ok(view_goto(v, "time", "12:00:10.001", &why) == 0 &&
	    at(v, "node-002/rank-1.log:1001"),
	    "goto time: the first line at or after it");
	ok(view_search(v, "/seq=1099[0-9]\\b/", &why) == 0 &&
	    at(v, "node-002/rank-1.log:992"),
	    "search: no match after the cursor, round to the first");
	ok(view_search_next(v, 1, &why) == 0 && at(v, "node-002/rank-1.log:993"),
	    "next");
	ok(view_search_next(v, -1, &why) == 0 &&
	    view_search_next(v, -1, &why) == 0 &&
	    at(v, "node-002/rank-1.log:1000"), "prev twice: round the start");
	draw(v);
}

/* The status line of a frame, into buf. */
static void
status_of(struct view *v, char *buf, size_t len)
{
	struct canvas cv;

	canvas_init(&cv, 100, 0);
	view_draw(v, &cv, 100, 30);
	canvas_row_text(&cv, cv.nrows - 1, buf, len);
	canvas_release(&cv);
}

/* Take the background's answers in until there is none to wait for. */
static int
settle(struct view *v)
{
	int i;

	for (i = 0; i < 10000 && view_busy(v); i++) {
		usleep(1000);
		view_poll(v);
	}
	return !view_busy(v);
}

/* As the screen has it: tags, a search and a count in the background. */
static void
test_background(void)
{
	struct view v;
	char st[256], *why = NULL;

	view_of(&v);
	v.async = 1;
	draw(&v);
	ok(settle(&v), "the background answers the first frame's tags");
	ok(view_goto(&v, "line", "node-002/rank-1.log:1001", &why) == 0 &&
	    view_search(&v, "/seq=1099[0-9]\\b/", &why) == 0 &&
	    v.find_pending != 0, "a search with no match near waits");
	ok(settle(&v) && at(&v, "node-002/rank-1.log:992"),
	    "and goes to the first match when the answer comes");
	status_of(&v, st, sizeof st);
	if (!ok(strstr(st, "match 1 of 8") != NULL, "the status line counts "
	    "them"))
		printf("# %s\n", st);
	ok(view_filter(&v, "/beacon/", 0, &why) == 0, "a filter");
	status_of(&v, st, sizeof st);
	ok(strstr(st, "counting hidden") != NULL || strstr(st, "hidden") !=
	    NULL, "its hidden lines are counted");
	settle(&v);
	status_of(&v, st, sizeof st);
	if (!ok(strstr(st, " 8229 hidden") != NULL, "in the background"))
		printf("# %s\n", st);
	view_release(&v);
}

int
main(void)
{
	struct logmerge *m = NULL;
	struct index_opts o;
	struct index_stats st;
	struct view v;
	char *cause = NULL, *db, *paths[1];

	if (mkdtemp(dir) == NULL)
		return 1;
	write_job();
	db = xasprintf("%s.db", dir);
	memset(&o, 0, sizeof o);
	o.job_name = "j";
	o.threads = 1;
	memset(&st, 0, sizeof st);
	paths[0] = dir;
	ok(cache_open(db, 0, &cache, &cause) == 0 &&
	    index_run(cache, paths, 1, &o, &st, &cause) == 0 &&
	    jobdb_find(cache, "j", &ref, &cause) == 1 &&
	    lm_open_job(cache, ref.id, ref.name, ref.root, &m, &cause) == 0,
	    "index the job");
	free(st.names);
	free(st.empty);
	if (m == NULL) {
		printf("# %s\n", cause);
		return done_testing();
	}
	view_of(&v);
	test_order(&v, m);
	test_filter(&v, m, "beacon", 0);
	test_filter(&v, m, "step [0-9]*[05] ", 1);
	test_seeks(&v);
	view_release(&v);
	test_background();
	lm_free(m);
	jobdb_release(&ref);
	cache_close(cache);
	unlink(db);
	free(db);
	return done_testing();
}
