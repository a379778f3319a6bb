/*
 * heatmap-t.c -- the heatmap's column cursor on the view model: moved a
 * column at a time and to the ends, said on the status line and marked
 * over the axis (around the failure's mark on its column), kept on its
 * iteration across resizes, a drill on a cell of a long run (kept in
 * buckets) filtering the log to the node and the column's iterations,
 * back to both cursors, and a newer model (the job followed after 2000
 * more iterations) cutting other columns under it; the run's kept
 * model, asked about and then opened, read once.  The long run
 * is simulated (3000 iterations: past the model's 2048, so buckets of
 * 2), indexed and diagnosed here; a job of times alone is built by
 * hand.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/jobdb.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "logs/index.h"
#include "sim/sim.h"
#include "view/canvas.h"
#include "view/view.h"
#include "view/viewint.h"
#include "../lib/tap.h"

#define ITERS 3000
#define FAIL_AT 2900

static char dir[] = "/tmp/heatmap-t.XXXXXX";

/* The view drawn at width x height, as text (allocated). */
static char *
draw(struct view *v, int width, int height)
{
	struct canvas cv;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	canvas_init(&cv, width, 1);
	view_draw(v, &cv, width, height);
	canvas_write(&cv, 0, cv.nrows, f);
	fclose(f);
	canvas_release(&cv);
	return out;
}

/* Line n (0 the first) of text, in a static buffer. */
static const char *
line_n(const char *text, int n)
{
	static char buf[512];
	const char *p = text, *e;

	while (n-- > 0 && p != NULL && (p = strchr(p, '\n')) != NULL)
		p++;
	if (p == NULL)
		return "";
	e = strchr(p, '\n');
	snprintf(buf, sizeof buf, "%.*s", (int)(e != NULL ? e - p :
	    (long)strlen(p)), p);
	return buf;
}

/* The status line at width x height (the last line). */
static const char *
status(struct view *v, int width, int height)
{
	char *s = draw(v, width, height);
	const char *l = line_n(s, height - 1);

	free(s);
	return l;
}

static int
run(struct view *v, const char *how)
{
	char *why = NULL;

	if (view_move(v, how, &why) == 0)
		return 0;
	printf("# move %s: %s\n", how, why);
	free(why);
	return -1;
}

/* The iterations "iter A-B" the status line names: 0, or -1. */
static int
said_range(const char *st, long *a, long *b)
{
	const char *p = strstr(st, " iter ");

	return p != NULL && sscanf(p, " iter %ld-%ld", a, b) == 2 ? 0 : -1;
}

/* Simulate, index and diagnose the long run; its model. */
static struct model *
long_run(struct cache **c, int64_t *id)
{
	struct sim_opts o;
	struct sim_fault f;
	struct index_opts io;
	struct index_stats st;
	struct job_ref ref;
	struct model *m = NULL;
	char *why = NULL, *job = xasprintf("%s/long", dir), *db, *paths[1];

	sim_opts_defaults(&o);
	o.nodes = 2;
	o.gpn = 2;
	o.tp = 2;
	o.pp = 1;
	o.dp = 2;
	o.iters = ITERS;
	o.flows = 0;
	if (sim_parse_fault("gpu-xid79@2:2900", &f, &why) != 0)
		ts_fatal("%s", why);
	o.faults = &f;
	o.nfaults = 1;
	db = xasprintf("%s/c.db", dir);
	memset(&io, 0, sizeof io);
	memset(&st, 0, sizeof st);
	io.job_name = "long";
	io.threads = 1;
	paths[0] = job;
	if (sim_opts_check(&o, &why) != 0 || sim_run(&o, job, NULL, NULL,
	    NULL, &why) != 0 || cache_open(db, 0, c, &why) != 0 ||
	    index_run(*c, paths, 1, &io, &st, &why) != 0 ||
	    jobdb_find(*c, "long", &ref, &why) != 1 ||
	    job_model_ref(*c, &ref, NULL, 0, JOBMODEL_NO_FLOWS, NULL, NULL,
	    &m, &why) != 0)
		printf("# %s\n", why != NULL ? why : "no job");
	else
		*id = ref.id;
	free(st.names);
	free(st.empty);
	jobdb_release(&ref);
	free(db);
	free(job);
	return m;
}

/* Lines of file `path` that hold `what`. */
static int
count_in(const char *path, const char *what)
{
	char line[4096];
	int n = 0;
	FILE *f = fopen(path, "r");

	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		n += strstr(line, what) != NULL;
	if (f != NULL)
		fclose(f);
	return n;
}

/*
 * A kept model asked about (job_model_kept(), whether to diagnose
 * behind the screen) and then opened with what the question read
 * (job_model_ref_kept()) is read from the cache and decoded once: the
 * model the question read is the one opened.  A job that changed in
 * between (marked: another key) is read afresh, not given the model
 * read under the old key.
 */
static void
test_kept_once(void)
{
	char *db = xasprintf("%s/c.db", dir), *trace = xasprintf("%s/trace",
	    dir), *why = NULL;
	struct cache *c2 = NULL;
	struct job_kept *k = NULL;
	struct job_ref ref;
	struct model *m = NULL, *m2 = NULL;
	int kept = 0, kept2 = 0, rc = -1, rc2 = -1, reads = -1;

	setenv("TS_SQL_TRACE", trace, 1);
	if (cache_open(db, 0, &c2, &why) == 0 &&
	    jobdb_find(c2, "long", &ref, &why) == 1) {
		kept = job_model_kept(c2, &ref, JOBMODEL_NO_FLOWS, NULL, NULL,
		    &k);
		rc = job_model_ref_kept(c2, &ref, NULL, 0, JOBMODEL_NO_FLOWS,
		    NULL, NULL, k, &m, &why);
		reads = count_in(trace, "SELECT model FROM results");
		kept2 = job_model_kept(c2, &ref, JOBMODEL_NO_FLOWS, NULL, NULL,
		    &k);
		if (jobdb_mark(c2, "long", "bad", &why) == 0)
			rc2 = job_model_ref_kept(c2, &ref, NULL, 0,
			    JOBMODEL_NO_FLOWS, NULL, NULL, k, &m2, &why);
		jobdb_mark(c2, "long", NULL, &why);
		jobdb_release(&ref);
	}
	unsetenv("TS_SQL_TRACE");
	ok(kept == 1 && rc == 0 && m != NULL && m->nnodes > 0,
	    "a kept model: said so, then opened");
	ok(reads == 1, "read from the cache once, not once a question");
	ok(kept2 == 1 && rc2 == 0 && m2 != NULL && m2->nnodes > 0 &&
	    count_in(trace, "SELECT model FROM results") == reads + 2,
	    "a job marked in between: its model looked up under its new key");
	if (why != NULL)
		printf("# %s\n", why);
	model_free(m);
	model_free(m2);
	cache_close(c2);
	free(why);
	free(trace);
	free(db);
}

/* How many words the prompt offers after "move WORD". */
static size_t
completions(struct view *v, const char *word)
{
	char **w;
	size_t n = view_complete(v, "move", word, &w), i;

	for (i = 0; i < n; i++)
		free(w[i]);
	free(w);
	return n;
}

static void
test_moves(struct view *v)
{
	long a, b, a2, b2;
	const char *st;
	char *why = NULL;

	view_pane(v, "heatmap", NULL);
	st = status(v, 80, 24);
	ok(strstr(st, " iter ") == NULL, "no column before the cursor moves");
	ok(run(v, "right") == 0 && said_range(status(v, 80, 24), &a, &b) == 0 &&
	    a == 0 && (b + 1) % v->m->iter_width == 0,
	    "right: the first column, whole buckets");
	ok(run(v, "right") == 0 && said_range(status(v, 80, 24), &a2, &b2) ==
	    0 && a2 == b + 1 && b2 - a2 == b - a, "right again: the next column");
	ok(run(v, "left") == 0 && run(v, "left") == 0 &&
	    said_range(status(v, 80, 24), &a2, &b2) == 0 && a2 == 0,
	    "left past the first stays there");
	ok(run(v, "last") == 0 && said_range(st = status(v, 80, 24), &a, &b) ==
	    0 && a <= FAIL_AT && b > FAIL_AT, "last: the column past the end");
	ok(strstr(st, "node-002 iter") != NULL && strstr(st, "a rank stops") !=
	    NULL, "the cell's node and what it holds are said");
	ok(run(v, "first") == 0 && said_range(status(v, 80, 24), &a, &b) == 0 &&
	    a == 0, "first: the first column");
	ok(view_move(v, "column=999999", &why) != 0 && why != NULL &&
	    strstr(why, "off the heatmap") != NULL, "an iteration off the axis "
	    "is refused");
	free(why);
	why = NULL;
	view_pane(v, "events", NULL);
	ok(view_move(v, "left", &why) != 0 && why != NULL &&
	    strstr(why, "no columns") != NULL, "the events pane has no columns");
	free(why);
	ok(completions(v, "co") == 0, "nor does the prompt offer column=");
	view_pane(v, "heatmap", NULL);
	ok(completions(v, "co") == 1 && completions(v, "") == 13,
	    "the heatmap's prompt completes move's column words too");
}

/* The column cursor stays on iteration 2000 across resizes. */
static void
test_resize(struct view *v)
{
	long a, b, a2, b2, a3, b3;
	char *s;

	ok(run(v, "column=2000") == 0 && said_range(status(v, 80, 24), &a, &b) ==
	    0 && a <= 2000 && b >= 2000, "column=2000: the column holding it");
	ok(said_range(status(v, 200, 50), &a2, &b2) == 0 && a2 <= 2000 &&
	    b2 >= 2000 && b2 - a2 < b - a, "wider: a narrower column, still "
	    "holding 2000");
	ok(said_range(status(v, 80, 24), &a3, &b3) == 0 && a3 == a && b3 == b,
	    "back to 80 columns: the same iterations");
	s = draw(v, 80, 24);
	ok(strchr(line_n(s, 4), '|') != NULL, "a mark over the axis shows "
	    "the column");
	free(s);
	/* a filter cuts the columns afresh: the one holding 2000 */
	ok(view_filter(v, "iter=1990..2999", 0, NULL) == 0 &&
	    said_range(status(v, 80, 24), &a2, &b2) == 0 && a2 <= 2000 &&
	    b2 >= 2000 && b2 - a2 < b - a, "a filter that narrows the columns: "
	    "the one holding 2000");
	view_unfilter(v, "all", NULL);
}

/*
 * On the failure's column the cursor brackets the 'v' (at 80 and 200
 * columns, in ASCII), and elsewhere leaves it standing.
 */
static void
test_on_failure(struct view *v)
{
	char *s, col[32], what[64];
	const char *l;
	int w;

	ok(rows_iter_ok(v->m->failure_iter), "the run has a failure's "
	    "iteration");
	for (w = 80; w <= 200; w += 120) {
		snprintf(col, sizeof col, "column=%ld", v->m->failure_iter);
		run(v, col);
		s = draw(v, w, 24);
		l = line_n(s, 4);
		snprintf(what, sizeof what, "at %d columns, on the failure's "
		    "column: [v], no '|'", w);
		ok(strstr(l, "[v]") != NULL && strchr(l, '|') == NULL, what);
		if (strstr(l, "[v]") == NULL)
			printf("# got '%s'\n", l);
		free(s);
		run(v, "first");
		s = draw(v, w, 24);
		l = line_n(s, 4);
		snprintf(what, sizeof what, "at %d columns, elsewhere: '|' and "
		    "'v'", w);
		ok(strchr(l, '|') != NULL && strchr(l, 'v') != NULL &&
		    strchr(l, '[') == NULL, what);
		free(s);
	}
	run(v, "column=off");
}

/* Every row of the log pane's page: node-002, an iteration in [a, b]. */
static int
rows_in(const char *s, long a, long b)
{
	int i, n = 0;
	long it;
	char node[32];

	for (i = 3; i < 30; i++) {
		const char *l = line_n(s, i);

		if (strncmp(l, "\342\224\200", 3) == 0 || l[0] == '-')
			break;	/* the rule above the line shown whole */
		if (sscanf(l, " %*s %31s r%*d %ld", node, &it) != 2 ||
		    strcmp(node, "node-002") != 0 || it < a || it > b) {
			printf("# row '%s'\n", l);
			return -1;
		}
		n++;
	}
	return n > 0 ? 0 : -1;
}

static void
test_drill(struct view *v)
{
	long a, b, a2, b2, w = v->m->iter_width;
	char *f = NULL, *s, *why = NULL, spec[64];
	const char *before;
	int row;

	view_move(v, "top", NULL);
	run(v, "column=2500");
	before = status(v, 80, 24);
	ok(said_range(before, &a, &b) == 0 && strstr(before, "node-002") !=
	    NULL, "the cursors on node-002, around 2500");
	before = xstrdup(before);
	row = v->st.cursor[PANE_HEATMAP];
	ok(view_drill(v, &why) == 0, "drill on the cell");
	f = view_filters_text(v);
	snprintf(spec, sizeof spec, "iter=%ld..%ld", a, b);
	ok(strstr(f, "node=node-002") != NULL && strstr(f, spec) != NULL,
	    "its filters: the node and the column's iterations");
	ok(a % w == 0 && (b + 1) % w == 0 && b - a + 1 > w,
	    "the range is whole buckets, several of them");
	free(f);
	ok(v->st.pane == PANE_LOG, "the log pane shows the node's lines");
	s = draw(v, 100, 30);
	ok(rows_in(s, a, b) == 0, "every line of its page is the node's, in "
	    "the column's iterations");
	ok(sscanf(line_n(s, 3), " %*s %*s r%*d %ld", &a2) == 1 && a2 == a,
	    "the page opens at the column's first iteration");
	free(s);
	ok(view_back(v, 0, &why) == 0 && v->st.pane == PANE_HEATMAP &&
	    v->st.cursor[PANE_HEATMAP] == row, "back: the heatmap, its row");
	ok(said_range(status(v, 80, 24), &a2, &b2) == 0 && a2 == a && b2 == b &&
	    strcmp(status(v, 80, 24), before) == 0, "and its column");
	free((char *)before);
	run(v, "column=off");
	ok(strstr(status(v, 80, 24), " iter ") == NULL, "column=off: none");
	ok(view_drill(v, &why) == 0 && (f = view_filters_text(v)) != NULL &&
	    strstr(f, "node=node-002") != NULL && strstr(f, "iter=") == NULL,
	    "with no column a drill opens the node's lines, as before");
	free(f);
	view_back(v, 0, NULL);
}

/*
 * Rank 0 logs 2000 more iterations (past 4096: buckets of 4 now) and the
 * job is followed one round: a newer model cuts other columns, and the
 * cursor stands on the one holding its iteration.
 */
static void
test_follow(struct view *v)
{
	char *path = xasprintf("%s/long/logs/node-001/rank-0.log", dir), *why;
	long a, b, a2, b2, i;
	FILE *f;

	why = NULL;
	view_pane(v, "heatmap", NULL);
	view_move(v, "top", NULL);
	run(v, "column=2000");
	said_range(status(v, 80, 24), &a, &b);
	if ((f = fopen(path, "a")) == NULL)
		ts_fatal("cannot append to %s", path);
	for (i = ITERS; i < ITERS + 2000; i++)
		fprintf(f, "[2026-03-14 13:%02ld:%02ld.000] [INFO] [rank 0]  "
		    "iteration %8ld/%8d | consumed samples: %ld | elapsed time "
		    "per iteration (ms): 990.0 | lm loss: 2.0E+00 |\n",
		    (i - ITERS) / 60 % 60, (i - ITERS) % 60, i + 1,
		    ITERS + 2000, (i + 1) * 64);
	fclose(f);
	free(path);
	ok(view_follow(v, 1, &why) == 0 && v->m->iter_width == 4,
	    "followed: a newer model, in buckets of 4");
	if (why != NULL)
		printf("# %s\n", why);
	free(why);
	ok(said_range(status(v, 80, 24), &a2, &b2) == 0 && a2 <= 2000 &&
	    b2 >= 2000 && a2 % 4 == 0 && (b2 + 1) % 4 == 0 && b2 - a2 != b - a,
	    "the cursor on the new column holding 2000");
}

/* A job whose logs carry times only: columns of seconds. */
static struct model *
time_model(void)
{
	struct model *m = xcalloc(1, sizeof *m);
	size_t i;

	m->name = xstrdup("t");
	m->root = xstrdup(".");
	m->by_time = 1;
	m->iter_width = 1;
	m->failure_iter = m->last_healthy_iter = m->slow_iter = -1;
	m->first_ts = 1.7e9;
	m->last_ts = 1.7e9 + 600;
	m->nnodes = m->nreal = 2;
	m->nodes = xcalloc(2, sizeof *m->nodes);
	for (i = 0; i < 2; i++) {
		m->nodes[i].name = xasprintf("h%zu", i + 1);
		m->nodes[i].last_iter = -1;
		m->nodes[i].last_ts = m->last_ts;
		m->nodes[i].first_error_ts = NAN;
	}
	return m;
}

static void
test_time(void)
{
	struct view v;
	struct view_target t;
	char *f = NULL;

	view_init(&v, NULL);
	view_set_model(&v, "t", time_model());
	view_pane(&v, "heatmap", NULL);
	free(draw(&v, 80, 24));
	ok(run(&v, "right") == 0 && run(&v, "right") == 0 &&
	    view_target(&v, &t) == 0 && t.kind == VT_CELL && t.by_time &&
	    t.from > 1.7e9 && t.to > t.from, "columns of seconds: a cell of "
	    "a time range");
	ok(strstr(status(&v, 80, 24), "h1 ") != NULL && strchr(status(&v, 80,
	    24), ':') != NULL, "said as times of day");
	ok(view_drill(&v, NULL) == 0 && (f = view_filters_text(&v)) != NULL &&
	    strstr(f, "node=h1") != NULL && strstr(f, "iter=") == NULL &&
	    v.st.lg_pos != NULL && fabs(atof(v.st.lg_pos + 1) - t.from) < 1e-3,
	    "a drill: the node's lines from the column's first second");
	free(f);
	view_release(&v);
}

int
main(void)
{
	struct cache *c = NULL;
	struct model *m;
	struct view v;
	int64_t id = 0;
	char *db;

	if (mkdtemp(dir) == NULL)
		return 1;
	m = long_run(&c, &id);
	ok(m != NULL && m->iter_width > 1, "a long run, kept in buckets");
	test_kept_once();
	if (m != NULL) {
		view_init(&v, c);
		view_set_model(&v, "long", m);
		v.job_id = id;
		test_moves(&v);
		test_resize(&v);
		test_on_failure(&v);
		test_drill(&v);
		test_follow(&v);
		view_release(&v);
	}
	test_time();
	cache_close(c);
	db = xasprintf("rm -rf '%s'", dir);
	if (system(db) != 0)
		printf("# could not remove %s\n", dir);
	free(db);
	return done_testing();
}
