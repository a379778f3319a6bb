/*
 * cmd-view.c -- the commands of the investigation: open a job, change the
 * view state (pane, filter, sort, move, drill, back, goto, search) and
 * print or export what the screen shows.
 *
 * The state commands print nothing: the screen repaints after them, and
 * `view` or `export` prints the result in batch mode and replays.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/cache.h"
#include "view/bookmark.h"
#include "view/canvas.h"
#include "cli/commands.h"
#include "db/diagdb.h"
#include "db/jobdb.h"
#include "diag/jobmodel.h"
#include "logs/lineparse.h"
#include "diag/model.h"
#include "logs/reader.h"
#include "logs/scan.h"
#include "diag/stage.h"
#include "base/util.h"
#include "view/pane.h"
#include "view/view.h"
#include "db/viewdb.h"
#include "view/viewint.h"

/* The investigation of this context, made on first use. */
static struct view *
ctx_view(struct cmd_ctx *ctx)
{
	struct cache *c = NULL;
	char *why = NULL;

	if (ctx->view == NULL) {
		ctx->view = xcalloc(1, sizeof *ctx->view);
		view_init(ctx->view, NULL);
	}
	if (cmd_ctx_cache(ctx, &c, &why) == 0)
		ctx->view->cache = c;
	free(why);
	return ctx->view;
}

void
cmd_ctx_view_free(struct cmd_ctx *ctx)
{
	if (ctx->view != NULL) {
		view_release(ctx->view);
		free(ctx->view);
		ctx->view = NULL;
	}
}

static int
done(int rc)
{
	return rc == 0 ? CMD_OK : CMD_FAIL;
}

/* Add w to b as one word of a command line, quoted when it must be. */
static void
quote_word(struct buf *b, const char *w)
{
	cmd_quote(b, w);
}

static void
log_line(struct view *v, char *line)
{
	v->log = xreallocarray(v->log, v->nlog + 1, sizeof *v->log);
	v->log[v->nlog++] = line;
}

/*
 * The heatmap's column cursor as the iteration (or second) it holds,
 * whatever the width of the replay's screen; a run of its moves is one
 * line.
 */
static void
log_column(struct view *v)
{
	char *line;

	if (v->st.hm_col == HM_COL_NONE)
		line = xstrdup("move column=off");
	else
		line = xasprintf(v->st.hm_col == HM_COL_TIME ?
		    "move column=%.6f" : "move column=%.0f", v->st.hm_at);
	if (v->nlog > 0 && ts_startswith(v->log[v->nlog - 1],
	    "move column=")) {
		free(v->log[v->nlog - 1]);
		v->log[v->nlog - 1] = line;
	} else
		log_line(v, line);
}

/*
 * Append a command that changed the view to the session's log, as a
 * line that runs it again.  Cursor moves are logged as the row they end
 * on, and a run of them as one line: a replay does not depend on the
 * size of the screen it runs on.
 */
static void
log_args(struct cmd_ctx *ctx, const struct cmd_args *a)
{
	struct view *v = ctx_view(ctx);
	struct buf b;
	size_t i;
	int k;
	char *key;

	buf_init(&b);
	if (strcmp(a->name, "move") == 0 && view_move_is_column(a->argv[0])) {
		log_column(v);
		return;
	}
	if (strcmp(a->name, "move") == 0 &&
	    (pane_active(v)->flags & PF_MERGED) &&
	    (key = view_row_key(v)) != NULL) {
		/* the merged log's place is its row's key, not its index */
		buf_adds(&b, "goto line ");
		quote_word(&b, key);
		free(key);
		if (v->nlog > 0 && ts_startswith(v->log[v->nlog - 1],
		    "goto line ")) {
			free(v->log[v->nlog - 1]);
			v->log[v->nlog - 1] = buf_detach(&b);
			return;
		}
		log_line(v, buf_detach(&b));
		return;
	}
	if (strcmp(a->name, "move") == 0) {
		buf_addf(&b, "move %d", v->st.cursor[v->st.pane] + 1);
		if (v->nlog > 0 && ts_startswith(v->log[v->nlog - 1], "move ") &&
		    !ts_startswith(v->log[v->nlog - 1], "move column=")) {
			free(v->log[v->nlog - 1]);
			v->log[v->nlog - 1] = buf_detach(&b);
			return;
		}
		log_line(v, buf_detach(&b));
		return;
	}
	if (strcmp(a->name, "scroll") == 0) {
		buf_addf(&b, "scroll %d", v->st.hscroll[v->st.pane]);
		if (v->nlog > 0 && ts_startswith(v->log[v->nlog - 1],
		    "scroll ")) {
			free(v->log[v->nlog - 1]);
			v->log[v->nlog - 1] = buf_detach(&b);
			return;
		}
		log_line(v, buf_detach(&b));
		return;
	}
	buf_adds(&b, a->name);
	for (i = 0; i < a->nopts; i++) {
		if (strcmp(a->opts[i].name, "cache") == 0 ||
		    strcmp(a->opts[i].name, "or-quit") == 0)
			continue;
		buf_addf(&b, " --%s", a->opts[i].name);
		if (a->opts[i].value[0] != '\0') {
			buf_addc(&b, ' ');
			quote_word(&b, a->opts[i].value);
		}
	}
	/* a job named like an option is no option on replay */
	for (k = 0; k < a->argc; k++)
		if (strncmp(a->argv[k], "--", 2) == 0 ||
		    strcmp(a->argv[k], "-h") == 0) {
			buf_adds(&b, " --");
			break;
		}
	for (k = 0; k < a->argc; k++) {
		buf_addc(&b, ' ');
		quote_word(&b, a->argv[k]);
	}
	log_line(v, buf_detach(&b));
}

/* Log the command when it succeeded; pass its status on. */
static int
logged(struct cmd_ctx *ctx, const struct cmd_args *a, int rc)
{
	if (rc == CMD_OK)
		log_args(ctx, a);
	return rc;
}

static int
open_job(struct cmd_ctx *ctx, const char *name, struct cmd_args *a,
    char **cause)
{
	struct view *v = ctx_view(ctx);
	const char **base = NULL;
	struct job_ref ref;
	struct model *m;
	size_t nbase = 0;
	int64_t id;
	int flags = 0, rc;

	if (v->cache == NULL && cmd_ctx_cache(ctx, &v->cache, cause) != 0)
		return CMD_FAIL;
	if (a != NULL) {
		nbase = cmd_opt_all(a, "baseline", &base);
		if (cmd_has_opt(a, "no-flows"))
			flags |= JOBMODEL_NO_FLOWS;
	}
	/* found once here: the view keeps its id for the merged log */
	if ((rc = jobdb_find(v->cache, name, &ref, cause)) <= 0) {
		free(base);
		if (rc == 0)
			ts_fail(cause, "no job '%s' (index it first)", name);
		return CMD_FAIL;
	}
	rc = job_model_ref_kept(v->cache, &ref, base, nbase, flags, ctx->err,
	    a != NULL ? a->name : "open", ctx->kept, &m, cause);
	ctx->kept = NULL;	/* taken */
	id = ref.id;
	jobdb_release(&ref);
	free(base);
	if (rc != 0)
		return CMD_FAIL;
	view_set_model(v, m->name, m);
	v->job_id = id;
	return CMD_OK;
}

int
cmd_open(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, open_job(ctx, a->argv[0], a, cause));
}

int
cmd_follow(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	int on = strcmp(a->argv[0], "on") == 0;

	if (!on && strcmp(a->argv[0], "off") != 0)
		return done(ts_fail(cause, "follow wants 'on' or 'off', not "
		    "'%s'", a->argv[0]));
	return done(view_follow(ctx_view(ctx), on, cause));
}

int
cmd_pane(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_pane(ctx_view(ctx), a->argv[0],
	    cause)));
}

int
cmd_filter(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = ctx_view(ctx);
	int i, neg = 0, any = 0;

	for (i = 0; i < a->argc; i++) {
		if (strcmp(a->argv[i], "-v") == 0) {
			neg = 1;
			continue;
		}
		if (view_filter(v, a->argv[i], neg, cause) != 0)
			return CMD_FAIL;
		neg = 0;
		any = 1;
	}
	if (!any) {
		ts_fail(cause, "filter: what to filter on? (node=NAME, "
		    "stage=NAME, iter=A..B, category=NAME or /PATTERN/)");
		return CMD_USAGE;
	}
	return logged(ctx, a, CMD_OK);
}

int
cmd_unfilter(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_unfilter(ctx_view(ctx), a->argc > 0 ?
	    a->argv[0] : NULL, cause)));
}

int
cmd_filters(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	char *s = view_filters_text(ctx_view(ctx));

	(void)a;
	(void)cause;
	fputs(s, ctx->out);
	free(s);
	return CMD_OK;
}

int
cmd_sort(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_sort(ctx_view(ctx), a->argv[0],
	    cause)));
}

int
cmd_move(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_move(ctx_view(ctx), a->argv[0],
	    cause)));
}

int
cmd_scroll(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_scroll(ctx_view(ctx), a->argv[0],
	    cause)));
}

int
cmd_drill(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_drill(ctx_view(ctx), cause)));
}

int
cmd_back(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	int rc = view_back(ctx_view(ctx), cmd_has_opt(a, "or-quit"), cause);

	if (rc == 1) {
		ctx->quit = 1;
		return CMD_OK;
	}
	return logged(ctx, a, done(rc));
}

int
cmd_context(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	long n;

	if (ts_parse_long(a->argv[0], &n) != 0) {
		ts_fail(cause, "context: wants a number of lines, not '%s'",
		    a->argv[0]);
		return CMD_USAGE;
	}
	return logged(ctx, a, done(view_context(ctx_view(ctx), n, cause)));
}

int
cmd_goto(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_goto(ctx_view(ctx), a->argv[0],
	    a->argv[1], cause)));
}

int
cmd_search(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct buf b;
	int i, rc;

	/* the words are the pattern: "search /fallen off/" */
	buf_init(&b);
	for (i = 0; i < a->argc; i++) {
		if (i > 0)
			buf_addc(&b, ' ');
		buf_adds(&b, a->argv[i]);
	}
	rc = view_search(ctx_view(ctx), buf_str(&b), cause);
	buf_release(&b);
	return logged(ctx, a, done(rc));
}

int
cmd_next(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_search_next(ctx_view(ctx), 1, cause)));
}

int
cmd_prev(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return logged(ctx, a, done(view_search_next(ctx_view(ctx), -1,
	    cause)));
}

int
cmd_quit(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	(void)a;
	(void)cause;
	ctx->quit = 1;
	return CMD_OK;
}

static int
size_opt(struct cmd_args *a, const char *name, long def, long min,
    long *out, char **cause)
{
	const char *s = cmd_opt(a, name);

	if (s != NULL && strcmp(s, "all") == 0) {
		*out = 0;
		return 0;
	}
	return cmd_opt_long(a, name, def, min, 1000, out, cause);
}

/* Draw the view at width x height (0: whole) and write it to f. */
static int
write_view(struct view *v, FILE *f, long width, long height)
{
	struct canvas cv;
	int rc;

	/* the screen's glyphs, or ASCII when the locale is not UTF-8 */
	canvas_init(&cv, (int)width, v->ascii || canvas_env_ascii());
	if (height == 0)	/* whole: written as it is drawn */
		rc = view_write(v, &cv, (int)width, f);
	else {
		view_draw(v, &cv, (int)width, (int)height);
		rc = canvas_write(&cv, 0, cv.nrows, f);
	}
	canvas_release(&cv);
	return rc;
}

int
cmd_view(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = ctx_view(ctx);
	const char *fmt = cmd_opt(a, "format");
	long width, height;
	int i, rc;

	if (fmt != NULL && strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0 &&
	    strcmp(fmt, "tsv") != 0) {
		ts_fail(cause, "view: unknown format '%s' (text, json or tsv)",
		    fmt);
		return CMD_USAGE;
	}
	if (size_opt(a, "width", 80, 20, &width, cause) != 0 ||
	    size_opt(a, "height", 24, 5, &height, cause) != 0)
		return CMD_USAGE;
	if (width == 0) {
		ts_fail(cause, "view: --width wants a number of columns");
		return CMD_USAGE;
	}
	i = 0;
	if (a->argc > 0 && strcmp(a->argv[0], "-c") != 0 &&
	    view_pane_parse(a->argv[0]) < 0) {
		ts_fail(cause, "view: no pane '%s' (events, heatmap, timeline, "
		    "groups, lines, jobs or log)", a->argv[0]);
		return CMD_USAGE;
	}
	if (a->argc > 1 && strcmp(a->argv[1], "-c") != 0 &&
	    (v->job == NULL || strcmp(v->job, a->argv[1]) != 0)) {
		if ((rc = open_job(ctx, a->argv[1], a, cause)) != CMD_OK)
			return rc;
		i = 2;
	} else if (a->argc > 1 && strcmp(a->argv[1], "-c") != 0)
		i = 2;
	else if (a->argc > 0 && strcmp(a->argv[0], "-c") != 0)
		i = 1;
	if (a->argc > 0 && strcmp(a->argv[0], "-c") != 0 &&
	    view_pane(v, a->argv[0], cause) != 0)
		return CMD_FAIL;
	/* the commands move and drill on the screen of this size */
	v->width = (int)width;
	v->height = (int)height;
	for (; i < a->argc; i++) {
		char *inner = NULL;

		if (strcmp(a->argv[i], "-c") != 0 || i + 1 >= a->argc) {
			ts_fail(cause, "view: unexpected '%s' (-c COMMAND runs "
			    "a command first)", a->argv[i]);
			return CMD_USAGE;
		}
		if ((rc = cmd_exec_line(ctx, a->argv[++i], &inner)) != CMD_OK) {
			ts_fail(cause, "view: -c '%s': %s", a->argv[i],
			    inner != NULL ? cmd_msg_beside(a->argv[i], inner) :
			    "failed");
			free(inner);
			return rc;
		}
	}
	if (fmt != NULL && strcmp(fmt, "text") != 0)
		return view_data(v, ctx->out, strcmp(fmt, "tsv") == 0, cause) ==
		    0 ? CMD_OK : CMD_FAIL;
	if (write_view(v, ctx->out, width, height) != 0) {
		ts_fail(cause, "cannot write output");
		return CMD_FAIL;
	}
	return CMD_OK;
}

int
cmd_export(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = ctx_view(ctx);
	const char *path = a->argv[0], *fmt = cmd_opt(a, "format");
	char *why = NULL;
	long width;
	FILE *f;
	int rc;

	if (fmt != NULL && strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0 &&
	    strcmp(fmt, "tsv") != 0) {
		ts_fail(cause, "export: unknown format '%s' (text, json or tsv)",
		    fmt);
		return CMD_USAGE;
	}
	if (cmd_opt_long(a, "width", v->width > 0 ? v->width : 80, 20, 1000,
	    &width, cause) != 0)
		return CMD_USAGE;
	if (cmd_has_opt(a, "marked") && (v->nmarks == 0 || fmt != NULL)) {
		ts_fail(cause, v->nmarks == 0 ? "export: no bookmarks (m marks "
		    "the cursor's line or event)" : "export: --marked writes "
		    "text only");
		return v->nmarks == 0 ? CMD_FAIL : CMD_USAGE;
	}
	if (strcmp(path, "-") == 0)
		f = ctx->out;
	else if (cmd_ctx_open_out(ctx, path, &f, cause) != 0)
		return CMD_FAIL;
	if (fmt != NULL && strcmp(fmt, "text") != 0) {
		rc = view_data(v, f, strcmp(fmt, "tsv") == 0, &why);
		if (rc != 0) {
			if (f != ctx->out)
				fclose(f);
			ts_fail(cause, "export: %s", why);
			free(why);
			return CMD_FAIL;
		}
	} else if (cmd_has_opt(a, "marked"))
		rc = bookmark_write(v, f);
	else
		rc = write_view(v, f, width, 0);
	if (f != ctx->out && fclose(f) != 0)
		rc = -1;
	if (rc != 0) {
		ts_fail(cause, "export: cannot write '%s'", path);
		return CMD_FAIL;
	}
	return CMD_OK;
}

int
cmd_save(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct view *v = ctx_view(ctx);
	const char *path = a->argv[0];
	struct buf b;
	FILE *f;
	size_t i;
	int bad;

	if (cmd_ctx_open_out(ctx, path, &f, cause) != 0)
		return CMD_FAIL;
	/* every word quoted: a name cannot end the comment line */
	buf_init(&b);
	buf_addf(&b, "# trainscope session\n# version %s\n", PACKAGE_VERSION);
	if (v->cache != NULL) {
		buf_adds(&b, "# cache ");
		quote_word(&b, cache_path(v->cache));
		buf_addc(&b, '\n');
	}
	if (v->m != NULL) {
		buf_adds(&b, "# job ");
		quote_word(&b, v->m->name);
		buf_addc(&b, ' ');
		quote_word(&b, v->m->root != NULL ? v->m->root : "-");
		buf_addc(&b, '\n');
	}
	fputs(buf_str(&b), f);
	buf_release(&b);
	fputs("# replay: trainscope --replay FILE [--export OUT --width N] "
	    "[--report OUT --format md]\n", f);
	for (i = 0; i < v->nlog; i++)
		fprintf(f, "%s\n", v->log[i]);
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		ts_fail(cause, "save: cannot write '%s'", path);
		return CMD_FAIL;
	}
	return CMD_OK;
}

static int
widest_job(void *arg, const struct viewdb_job *vj)
{
	int *w = arg, n, r;

	n = canvas_text_width(vj->name, strlen(vj->name));
	r = canvas_text_width(vj->root, strlen(vj->root));
	if (n > w[0])
		w[0] = n;
	if (r > w[1])
		w[1] = r;
	return 0;
}

/*
 * The width that draws every job's name and root whole (output to a
 * file or a pipe is never cut): the jobs pane widens its name column
 * when the screen leaves the root 40 columns.
 */
static int
uncut_width(struct cache *c)
{
	int w[2] = { 16, 0 }, need;
	char *why = NULL;

	if (viewdb_each_job(c, widest_job, w, &why) != 0)
		free(why);
	need = 57 + w[0] + w[1] + 1;
	if (need < w[0] + 97)
		need = w[0] + 97;
	return need > 200 ? need : 200;
}

static int
print_name(void *arg, const struct viewdb_job *vj)
{
	canvas_fput(arg, vj->name);
	fputc('\n', arg);
	return 0;
}

/*
 * `jobs --names`: the names alone, one a line, for completion: quick and
 * quiet (no cache yet: nothing, and none is made).
 */
static int
jobs_names(struct cmd_ctx *ctx, int fmt, char **cause)
{
	struct cache *c;
	char *path, *why = NULL;
	int there;

	if (fmt) {
		ts_fail(cause, "jobs: --names takes no --format");
		return CMD_USAGE;
	}
	path = ctx->cache_path != NULL ? xstrdup(ctx->cache_path) :
	    cache_default_path();
	there = access(path, F_OK) == 0;
	free(path);
	if (!there)
		return CMD_OK;
	if (cmd_ctx_cache(ctx, &c, cause) != 0)
		return CMD_FAIL;
	if (viewdb_each_job(c, print_name, ctx->out, &why) != 0) {
		ts_fail(cause, "jobs: %s", why);
		free(why);
		return CMD_FAIL;
	}
	return CMD_OK;
}

int
cmd_jobs(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *fmt = cmd_opt(a, "format");
	struct view v;
	struct canvas cv;
	int rc = CMD_OK, width;

	if (fmt != NULL && strcmp(fmt, "text") != 0 && strcmp(fmt, "json") != 0 &&
	    strcmp(fmt, "tsv") != 0) {
		ts_fail(cause, "jobs: unknown format '%s' (text, json or tsv)",
		    fmt);
		return CMD_USAGE;
	}
	if (cmd_has_opt(a, "names"))
		return jobs_names(ctx, fmt != NULL, cause);
	view_init(&v, NULL);
	if (cmd_ctx_cache(ctx, &v.cache, cause) != 0)
		return CMD_FAIL;
	v.st.pane = PANE_JOBS;
	if (fmt != NULL && strcmp(fmt, "text") != 0) {
		if (view_data(&v, ctx->out, strcmp(fmt, "tsv") == 0, cause) != 0)
			rc = CMD_FAIL;
	} else {
		/* the jobs pane, whole and wide enough for the roots */
		width = isatty(fileno(ctx->out)) ? 200 : uncut_width(v.cache);
		canvas_init(&cv, width, 0);
		view_draw(&v, &cv, width, 0);
		if (canvas_write(&cv, 2, cv.nrows, ctx->out) != 0)
			rc = CMD_FAIL;
		canvas_release(&cv);
	}
	v.cache = NULL;
	view_release(&v);
	return rc;
}

int
cmd_forget(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct cache *c;
	int rc;

	if (cmd_ctx_cache(ctx, &c, cause) != 0)
		return CMD_FAIL;
	if ((rc = jobdb_forget(c, a->argv[0], cause)) < 0)
		return CMD_FAIL;
	if (rc == 0) {
		ts_fail(cause, "forget: no job '%s' in the cache", a->argv[0]);
		return CMD_FAIL;
	}
	if (ctx->view != NULL && ctx->view->job != NULL &&
	    strcmp(ctx->view->job, a->argv[0]) == 0) {
		view_set_model(ctx->view, a->argv[0], NULL);
		free(ctx->view->job);
		ctx->view->job = NULL;
	}
	fputs("trainscope: forgot job ", ctx->err);
	canvas_fput(ctx->err, a->argv[0]);
	fputc('\n', ctx->err);
	return CMD_OK;
}

/* Parse PATH:LINE (the last colon splits); 0, or -1. */
static int
parse_location(const char *s, char **path, long *line)
{
	const char *colon = strrchr(s, ':');

	if (colon == NULL || colon == s || ts_parse_long(colon + 1, line) != 0 ||
	    *line < 1)
		return -1;
	*path = xstrndup(s, (size_t)(colon - s));
	return 0;
}

/* ---- lines JOB --node NAME --iter N ---- */

struct node_iter {
	struct cache *c;
	const char *node;	/* its name */
	int64_t node_id;	/* 0: not found (yet) */
	long iter;
	const char *root;
	FILE *out;
	unsigned char *rank_here;	/* ranks on the node, by rank */
	size_t nranks;
	size_t printed;
	char *error;		/* the first file that could not be read */
	double lo, hi;		/* iteration N ran in (lo, hi]; hi NAN: unknown */
	double before;		/* the last line of iteration N-1, -INFINITY */
};

static int
ni_node(void *arg, int64_t id, const char *name)
{
	struct node_iter *ni = arg;

	if (strcmp(name, ni->node) == 0)
		ni->node_id = id;
	return 0;
}

static int
ni_rank(void *arg, long rank, int64_t node)
{
	struct node_iter *ni = arg;

	if (node != ni->node_id || rank < 0 || rank > 1000000)
		return 0;
	if ((size_t)rank >= ni->nranks) {
		size_t old = ni->nranks;

		ni->rank_here = xgrow(ni->rank_here, &ni->nranks,
		    (size_t)rank + 1, 1);
		memset(ni->rank_here + old, 0, ni->nranks - old);
	}
	ni->rank_here[rank] = 1;
	return 0;
}

/* Ranks the job's hostfile puts on the node (as the diagnosis reads it). */
static void
ni_hostfile(struct node_iter *ni)
{
	char *path = xasprintf("%s/hostfile", ni->root), **hosts, *why = NULL;
	size_t n, r;

	if (scan_read_hostfile(path, &hosts, &n, &why) == 0) {
		for (r = 0; r < n; r++)
			if (hosts[r] != NULL && strcmp(hosts[r], ni->node) == 0 &&
			    (r >= ni->nranks || !ni->rank_here[r])) {
				int64_t keep = ni->node_id;

				ni->node_id = 1;	/* any id: mark rank r */
				ni_rank(ni, (long)r, 1);
				ni->node_id = keep;
			}
		scan_free_hosts(hosts, n);
	}
	free(why);
	free(path);
}

/* Is a line of a file of no node (a combined log) one of the node's? */
static int
ni_line_here(const struct node_iter *ni, const struct lp_line *lp)
{
	char name[32];

	if (lp->host != NULL)
		return strlen(ni->node) == lp->host_len &&
		    memcmp(ni->node, lp->host, lp->host_len) == 0;
	if (lp->rank < 0)
		return 0;
	if ((size_t)lp->rank < ni->nranks && ni->rank_here[lp->rank])
		return 1;
	snprintf(name, sizeof name, "rank-%d", lp->rank);
	return strcmp(name, ni->node) == 0;
}

/*
 * Pass one: when iteration N ran, from any file with iteration lines --
 * after the line of iteration N-1, up to the line of iteration N (that
 * line closes the iteration, as the diagnosis counts them).
 */
static int
ni_window(void *arg, const struct diagdb_file *f)
{
	struct node_iter *ni = arg;
	char *path, *why = NULL;
	struct reader *rd;
	struct reader_line rl;
	struct lp_line lp;
	struct stage_iter it;
	double prev = -INFINITY;

	if (!isnan(ni->hi))
		return 0;
	path = xasprintf("%s/%s", ni->root, f->path);
	if (reader_open(path, 0, 0, &rd, &why) != 0) {
		free(why);
		free(path);
		return 0;
	}
	while (reader_next(rd, &rl, &why) == 1) {
		lp_parse(rl.s, rl.len, &lp);
		if (lp.ts_kind != LP_TS_EPOCH || !stage_parse_iter_number(
		    lp.msg, lp.msg_len, &it) || it.iteration < 0)
			continue;
		if (it.iteration < ni->iter) {
			if (lp.ts > prev)
				prev = lp.ts;
			if (it.iteration == ni->iter - 1 && lp.ts > ni->before)
				ni->before = lp.ts;
		} else {
			if (it.iteration == ni->iter) {
				ni->lo = prev;
				ni->hi = lp.ts;
			}
			break;
		}
	}
	free(why);
	reader_close(rd);
	free(path);
	return 0;
}

/*
 * Pass two: the node's lines of iteration N.  A rank (or a file without
 * rank prefixes) that logs iteration lines is followed by them: its lines
 * after its own line N-1 up to its line N.  Lines before a rank's first
 * iteration line, and ranks that log none, go by the window of pass one
 * when they carry times.
 */
static int
ni_file(void *arg, const struct diagdb_file *f)
{
	struct node_iter *ni = arg;
	char *path, *why = NULL;
	struct reader *rd;
	struct reader_line rl;
	struct lp_line lp;
	struct stage_iter it;
	long *cur = NULL;	/* by rank + 1: last iteration line, -1 none */
	size_t ncur = 0, k = 0, old;
	int split = f->node == 0, in;

	if (!split && f->node != ni->node_id)
		return 0;
	path = xasprintf("%s/%s", ni->root, f->path);
	if (reader_open(path, 0, 0, &rd, &why) != 0) {
		if (ni->error == NULL)
			ni->error = why;
		else
			free(why);
		free(path);
		return 0;
	}
	while (reader_next(rd, &rl, &why) == 1) {
		lp_parse(rl.s, rl.len, &lp);
		if (split && !ni_line_here(ni, &lp))
			continue;
		/* a line with no rank prefix (a traceback's) goes on the
		 * rank of the line before it */
		if (lp.rank >= 0 && lp.rank < 1000000)
			k = (size_t)lp.rank + 1;
		if (k >= ncur) {
			old = ncur;
			cur = xgrow(cur, &ncur, k + 1, sizeof *cur);
			while (old < ncur)
				cur[old++] = -1;
		}
		if (cur[k] < 0 && lp.ts_kind == LP_TS_EPOCH && !isnan(ni->hi))
			in = lp.ts > ni->lo && lp.ts <= ni->hi;
		else
			in = cur[k] + 1 == ni->iter || (cur[k] < 0 &&
			    ni->iter == 0);
		if (stage_parse_iter_number(lp.msg, lp.msg_len, &it) &&
		    it.iteration >= 0) {
			in = it.iteration == ni->iter;
			cur[k] = it.iteration;
		}
		if (in) {
			canvas_fput(ni->out, f->path);
			fprintf(ni->out, ":%llu: ", (unsigned long long)rl.lineno);
			canvas_fputn(ni->out, rl.s, rl.len);
			fputc('\n', ni->out);
			ni->printed++;
		}
	}
	free(cur);
	free(why);
	reader_close(rd);
	free(path);
	return 0;
}

static int
lines_node_iter(struct cmd_ctx *ctx, const char *job, const char *node,
    const char *iter, char **cause)
{
	struct node_iter ni;
	struct job_ref dj;
	struct cache *c;
	int rc;

	memset(&ni, 0, sizeof ni);
	if (ts_parse_long(iter, &ni.iter) != 0 || ni.iter < 0) {
		ts_fail(cause, "lines: --iter wants an iteration number, not "
		    "'%s'", iter);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0)
		return CMD_FAIL;
	if ((rc = jobdb_find(c, job, &dj, cause)) <= 0) {
		if (rc == 0)
			ts_fail(cause, "lines: no job '%s' (index it first)", job);
		return CMD_FAIL;
	}
	ni.c = c;
	ni.node = node;
	ni.root = dj.root;
	ni.out = ctx->out;
	rc = CMD_FAIL;
	if (diagdb_each_node(c, dj.id, ni_node, &ni, cause) != 0)
		goto out;
	if (ni.node_id == 0 && strncmp(node, "rank-", 5) != 0) {
		ts_fail(cause, "lines: job '%s' has no node '%s'", dj.name, node);
		goto out;
	}
	ni.hi = NAN;
	ni.lo = ni.before = -INFINITY;
	ni_hostfile(&ni);
	if (diagdb_each_rank(c, dj.id, ni_rank, &ni, cause) != 0 ||
	    diagdb_each_log_file(c, dj.id, ni_window, &ni, cause) != 0)
		goto out;
	/* the iteration no line closed (where a job died): all after N-1 */
	if (isnan(ni.hi) && isfinite(ni.before)) {
		ni.lo = ni.before;
		ni.hi = INFINITY;
	}
	if (diagdb_each_log_file(c, dj.id, ni_file, &ni, cause) != 0)
		goto out;
	if (ni.printed == 0) {
		if (ni.error != NULL)
			ts_fail(cause, "lines: %s", ni.error);
		else
			ts_fail(cause, "lines: no line of node '%s' in iteration "
			    "%ld", node, ni.iter);
		goto out;
	}
	rc = CMD_OK;
out:
	free(ni.error);
	free(ni.rank_here);
	jobdb_release(&dj);
	return rc;
}

/*
 * Is what `lines` was asked for in the job: the event a template of it,
 * the line within what the index read of the file?  A missing file is
 * left to the lines pane, which names it.  0, or -1 with *cause.
 */
static int
lines_target(struct cache *c, const struct model *m, long id,
    const char *path, long line, char **cause)
{
	int64_t file;
	uint64_t nl;
	size_t i;
	int gz, rc;

	if (path == NULL) {
		for (i = 0; i < m->nevents; i++)
			if (m->events[i].id == (uint32_t)id)
				return 0;
		return ts_fail(cause, "lines: job %s has no event of template "
		    "%ld (the ids of 'templates' or 'diagnose --format json')",
		    m->name, id);
	}
	if ((rc = viewdb_file(c, m->name, path, &file, &gz, &nl, cause)) < 0)
		return -1;
	if (rc == 1 && (uint64_t)line > nl)
		return ts_fail(cause, "lines: '%s' has %llu line%s in the "
		    "index, not %ld", path, (unsigned long long)nl, nl == 1 ?
		    "" : "s", line);
	return 0;
}

/*
 * The template id of the event at place pos (1: the top) of the ranked
 * list, as the events pane and diagnose number them; -1 with *cause.
 */
static long
event_at(const struct model *m, long pos, char **cause)
{
	if ((size_t)pos > m->nevents) {
		ts_fail(cause, "lines: job %s has %zu event%s, not %ld (--event "
		    "N: the place in diagnose's list; --template ID: a "
		    "template id)", m->name, m->nevents, m->nevents == 1 ? "" :
		    "s", pos);
		return -1;
	}
	return (long)m->events[pos - 1].id;
}

/* "trainscope: lines: warning: ..." on ctx->err, the path inert. */
static void
lines_warn(struct cmd_ctx *ctx, const char *path, const char *what)
{
	fputs("trainscope: lines: warning: '", ctx->err);
	canvas_fput(ctx->err, path);
	fprintf(ctx->err, "' %s\n", what);
}

/*
 * Is file `file` of the job as the index read it?  Its size, mtime and
 * inode against what the cache stored, and (for a plain file) whether
 * the offset stored for the checkpoint at or before `line` still starts
 * a line: a file rewritten at the same size keeps its size but not its
 * line starts.  Says so on ctx->err; the lines are printed all the same.
 */
static void
lines_check(struct cmd_ctx *ctx, struct cache *c, const struct model *m,
    int64_t file, const char *path, uint64_t line)
{
	struct viewdb_disk d;
	struct stat sb;
	uint64_t at = 0, off = 0;
	char *full, *why = NULL, ch = '\n';
	int fd;

	full = xasprintf("%s/%s", m->root != NULL ? m->root : ".", path);
	if (stat(full, &sb) != 0 || viewdb_file_disk(c, file, &d, &why) != 1)
		goto out;		/* a missing file: the lines name it */
	if (sb.st_size != d.size || (int64_t)sb.st_ino != d.inode ||
	    (double)sb.st_mtim.tv_sec + sb.st_mtim.tv_nsec / 1e9 != d.mtime) {
		lines_warn(ctx, path, "changed since it was indexed (index the "
		    "job again): these lines may not be the ones it found");
		goto out;
	}
	if (d.gz || viewdb_checkpoint(c, file, line, &at, &off, &why) != 1 ||
	    off == 0 || (fd = open(full, O_RDONLY | O_CLOEXEC)) < 0)
		goto out;
	if (pread(fd, &ch, 1, (off_t)off - 1) == 1 && ch != '\n')
		lines_warn(ctx, path, "was rewritten since it was indexed (its "
		    "lines no longer start where the index found them; index "
		    "the job again)");
	close(fd);
out:
	free(why);
	free(full);
}

/* lines_check() of each file of rows [from, to), once a file. */
static void
lines_check_rows(struct cmd_ctx *ctx, struct cache *c, struct view *v,
    size_t from, size_t to)
{
	int64_t *seen = xcalloc(to - from + 1, sizeof *seen);
	size_t i, k, n = 0;

	for (i = from; i < to; i++) {
		for (k = 0; k < n && seen[k] != v->lines[i].file; k++)
			;
		if (k < n)
			continue;
		seen[n++] = v->lines[i].file;
		lines_check(ctx, c, v->m, v->lines[i].file, v->lines[i].path,
		    v->lines[i].line);
	}
	free(seen);
}

int
cmd_lines(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *ev = cmd_opt(a, "event"), *tp = cmd_opt(a, "template");
	struct view v;
	struct model *m;
	struct cache *c;
	long ctxn = 3, id = -1, pos = 0, line = 0;
	char *path = NULL;
	size_t i, from, to;
	int rc = CMD_FAIL;

	if (cmd_lines_is_raw(a))
		return cmd_lines_raw(ctx, a, cause);	/* logs/cmd-lines.c */
	if (cmd_opt_long(a, "context", 3, 0, 10000, &ctxn, cause) != 0)
		return CMD_USAGE;
	if ((cmd_opt(a, "node") == NULL) != (cmd_opt(a, "iter") == NULL)) {
		ts_fail(cause, "lines: --node and --iter go together");
		return CMD_USAGE;
	}
	if (ev != NULL && tp != NULL) {
		ts_fail(cause, "lines: --event N or --template ID, not both");
		return CMD_USAGE;
	}
	if (cmd_opt(a, "node") != NULL) {
		if (ev != NULL || tp != NULL || a->argc != 1) {
			ts_fail(cause, "lines: --node NAME --iter N take only "
			    "JOB");
			return CMD_USAGE;
		}
		return lines_node_iter(ctx, a->argv[0], cmd_opt(a, "node"),
		    cmd_opt(a, "iter"), cause);
	}
	if (tp != NULL)
		ev = NULL;	/* from here on, ev or tp: an event */
	if ((ev == NULL && tp == NULL) == (a->argc < 2)) {
		ts_fail(cause, "lines: give PATH:LINE, --event N or --template "
		    "ID");
		return CMD_USAGE;
	}
	if (ev != NULL && (ts_parse_long(ev, &pos) != 0 || pos < 1)) {
		ts_fail(cause, "lines: --event wants the event's place in the "
		    "ranked list (1 is the top event), not '%s'", ev);
		return CMD_USAGE;
	}
	if (tp != NULL && (ts_parse_long(tp, &id) != 0 || id < 0)) {
		ts_fail(cause, "lines: --template wants a template id, not '%s'",
		    tp);
		return CMD_USAGE;
	}
	if (ev == NULL && tp == NULL && parse_location(a->argv[1], &path,
	    &line) != 0) {
		ts_fail(cause, "lines: '%s' is not PATH:LINE", a->argv[1]);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    job_model(c, a->argv[0], NULL, 0, 0, ctx->err, a->name, &m,
	    cause) != 0) {
		free(path);
		return CMD_FAIL;
	}
	view_init(&v, c);
	view_set_model(&v, m->name, m);
	if (pos > 0 && (id = event_at(m, pos, cause)) < 0)
		goto out;
	if (lines_target(c, m, id, path, line, cause) != 0)
		goto out;
	v.st.context = (int)ctxn;
	if (ev != NULL || tp != NULL) {
		v.st.lsrc = LS_EVENT;
		v.st.l_event = (uint32_t)id;
	} else {
		v.st.lsrc = LS_FILE;
		v.st.l_path = path;
		v.st.l_line = line;
		path = NULL;
	}
	view_lines_build(&v);
	if (v.lines_error != NULL) {
		ts_fail(cause, "lines: %s", v.lines_error);
		goto out;
	}
	from = 0;
	to = v.nlines;
	if (ev == NULL && tp == NULL) {
		/* the file's window: keep the context asked for */
		for (i = 0; i < v.nlines; i++) {
			if ((long)v.lines[i].line < line - ctxn)
				from = i + 1;
			if ((long)v.lines[i].line <= line + ctxn)
				to = i + 1;
		}
	}
	lines_check_rows(ctx, c, &v, from, to);
	for (i = from; i < to; i += 256) {
		size_t k, end = i + 256 < to ? i + 256 : to;

		view_lines_fill(&v, i, end);
		for (k = i; k < end; k++) {
			const struct view_line *l = &v.lines[k];

			canvas_fput(ctx->out, l->path);
			fprintf(ctx->out, ":%llu:%c", (unsigned long long)l->line,
			    l->hit ? '>' : ' ');
			if (l->text != NULL)
				canvas_fputn(ctx->out, l->text, l->len);
			fputc('\n', ctx->out);
		}
	}
	rc = CMD_OK;
out:
	v.cache = NULL;
	view_release(&v);
	free(path);
	return rc;
}
