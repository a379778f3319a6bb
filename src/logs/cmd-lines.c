/*
 * cmd-lines.c -- the raw-line modes of `lines`: the whole job's raw text
 * searched (--grep) and a window of the merged log (--merged).
 *
 * Both print rows of the merged log (logmerge.h) in its order, each with
 * its time, node, rank and PATH:LINE, as text, TSV or JSON; log text is
 * printed inert (^X for control bytes, \xNN for bytes that are not UTF-8)
 * in text and TSV, as JSON strings in JSON.  The filters (--node, --stage,
 * --iter, and the pattern with -v) decide which rows are shown; stage and
 * iteration come from linetag.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/json.h"
#include "base/util.h"
#include "cli/cmd.h"
#include "cli/commands.h"
#include "diag/jobmodel.h"
#include "diag/linetag.h"
#include "diag/model.h"
#include "diag/stage.h"
#include "logs/grep.h"
#include "logs/logmerge.h"
#include "view/canvas.h"
#include "view/lineout.h"

enum fmt { F_TEXT, F_TSV, F_JSON };

/* What decides which rows are shown, and how they are printed. */
struct show {
	struct cmd_ctx *ctx;
	struct cache *cache;
	struct logmerge *m;
	struct linetag *tags;	/* NULL: no tags wanted */
	struct grep *g;		/* --merged with --grep: the row filter */
	int invert;
	const char *node;
	int stage;		/* -1: any */
	long iter_lo, iter_hi;	/* -1: open */
	int want_iter;
	enum fmt fmt;
	struct json j;
	struct buf text;
	uint64_t shown;
};

/* ---- options ---- */

static int
parse_fmt(const char *s, enum fmt *out, char **cause)
{
	if (s == NULL || strcmp(s, "text") == 0)
		*out = F_TEXT;
	else if (strcmp(s, "tsv") == 0)
		*out = F_TSV;
	else if (strcmp(s, "json") == 0)
		*out = F_JSON;
	else {
		ts_fail(cause, "lines: unknown format '%s' (text, tsv or json)",
		    s);
		return -1;
	}
	return 0;
}

static int
parse_num(const char *s, size_t n, long *out)
{
	char *t = xstrndup(s, n), *end;
	long v;

	v = strtol(t, &end, 10);
	if (n == 0 || *end != '\0' || v < 0 || t[0] == '-' || t[0] == '+') {
		free(t);
		return -1;
	}
	free(t);
	*out = v;
	return 0;
}

/* --iter N, A..B, A.. or ..B. */
static int
parse_iters(struct show *sh, const char *s, char **cause)
{
	const char *dots;

	sh->iter_lo = sh->iter_hi = -1;
	if (s == NULL)
		return 0;
	dots = strstr(s, "..");
	sh->want_iter = 1;
	if (dots == NULL) {
		if (parse_num(s, strlen(s), &sh->iter_lo) == 0) {
			sh->iter_hi = sh->iter_lo;
			return 0;
		}
	} else if ((dots == s || parse_num(s, (size_t)(dots - s),
	    &sh->iter_lo) == 0) && (dots[2] == '\0' ||
	    parse_num(dots + 2, strlen(dots + 2), &sh->iter_hi) == 0) &&
	    (dots != s || dots[2] != '\0') &&
	    (sh->iter_hi < 0 || sh->iter_lo <= sh->iter_hi))
		return 0;
	ts_fail(cause, "lines: --iter wants N, A..B, A.. or ..B, not '%s'", s);
	return -1;
}

static int
parse_stage(struct show *sh, const char *s, char **cause)
{
	sh->stage = -1;
	if (s == NULL)
		return 0;
	if ((sh->stage = stage_from_name(s)) < 0) {
		ts_fail(cause, "lines: no stage '%s' (launch, init, "
		    "checkpoint-load, training, checkpoint-save, eval, "
		    "shutdown or none)", s);
		return -1;
	}
	return 0;
}

static int
check_node(const struct show *sh, char **cause)
{
	size_t i;

	if (sh->node == NULL)
		return 0;
	for (i = 0; i < lm_nfiles(sh->m); i++)
		if (strcmp(lm_file(sh->m, i)->node, sh->node) == 0)
			return 0;
	ts_fail(cause, "lines: no node '%s' in job %s", sh->node,
	    lm_job(sh->m));
	return -1;
}

/* The pattern, or a message with the pattern and a caret under the fault. */
static int
compile(const char *pat, struct grep **g, char **cause)
{
	struct buf b = BUF_INIT;
	char *why = NULL, *inert;
	size_t off, i;

	if (grep_compile(pat, g, &off, &why) == 0)
		return 0;
	inert = canvas_inert(pat);
	buf_addf(&b, "lines: %s\n  %s\n  ", why, inert);
	for (i = 0; i < off && pat[i] != '\0'; i++)
		buf_addc(&b, ' ');
	buf_addc(&b, '^');
	*cause = buf_detach(&b);
	free(why);
	free(inert);
	return -1;
}

/* ---- printing ---- */

static void
print_text(struct show *sh, const struct lm_row *r)
{
	lineout_text(sh->ctx->out, r, sh->text.s, sh->text.len);
}

static void
print_tsv(struct show *sh, const struct lm_row *r, int stage, long iter)
{
	lineout_tsv(sh->ctx->out, r, stage, iter, sh->text.s, sh->text.len);
}

static void
print_json(struct show *sh, const struct lm_row *r, int stage, long iter)
{
	lineout_json(&sh->j, r, stage, iter, sh->text.s, sh->text.len);
}

/* The row's tags when they are wanted: 0, or -1 with *cause. */
static int
tags_of(struct show *sh, const struct lm_row *r, int *stage, long *iter,
    char **cause)
{
	enum stage st;

	*stage = -1;
	*iter = -1;
	if (sh->tags == NULL)
		return 0;
	if (linetag_get(sh->tags, r, &st, iter, cause) != 0)
		return -1;
	*stage = (int)st;
	return 0;
}

/* Print one row with its tags. */
static int
print_row(struct show *sh, const struct lm_row *r, int stage, long iter,
    char **cause)
{
	if (lm_text(sh->m, r, &sh->text, cause) != 0) {
		buf_reset(&sh->text);
		buf_adds(&sh->text, *cause);
		free(*cause);
		*cause = NULL;
	}
	if (sh->fmt == F_TEXT)
		print_text(sh, r);
	else if (sh->fmt == F_TSV)
		print_tsv(sh, r, stage, iter);
	else
		print_json(sh, r, stage, iter);
	sh->shown++;
	return 0;
}

/* Print a line the search found (fn of grep_each). */
static int
show_hit(void *arg, const struct grep_hit *hit, char **cause)
{
	return print_row(arg, hit->row, hit->stage, hit->iter, cause);
}

/* Tag a row; 1 when it passes the node, stage and iteration filters. */
static int
tag_row(void *arg, const struct lm_row *r, int *stage, long *iter,
    char **cause)
{
	struct show *sh = arg;

	*stage = -1;
	*iter = -1;
	if (sh->node != NULL && strcmp(r->node, sh->node) != 0)
		return 0;
	if (tags_of(sh, r, stage, iter, cause) != 0)
		return -1;
	if (sh->stage >= 0 && *stage != sh->stage)
		return 0;
	if (sh->want_iter && (*iter < 0 || (sh->iter_lo >= 0 &&
	    *iter < sh->iter_lo) || (sh->iter_hi >= 0 && *iter > sh->iter_hi)))
		return 0;
	return 1;
}

/* Print a row of the merged window. */
static int
show_row(struct show *sh, const struct lm_row *r, char **cause)
{
	int stage;
	long iter;

	if (tags_of(sh, r, &stage, &iter, cause) != 0)
		return -1;
	return print_row(sh, r, stage, iter, cause);
}

/* Does a row of the merged window pass every filter?  1, 0, -1. */
static int
pass(struct show *sh, const struct lm_row *r, char **cause)
{
	int stage, rc;
	long iter;

	rc = sh->stage >= 0 || sh->want_iter ? tag_row(sh, r, &stage, &iter,
	    cause) : sh->node == NULL || strcmp(r->node, sh->node) == 0;

	if (rc != 1 || sh->g == NULL)
		return rc;
	if (lm_text(sh->m, r, &sh->text, cause) != 0)
		return -1;
	return grep_match(sh->g, sh->text.s, sh->text.len) != sh->invert;
}

/* A JSON answer's object opened, with its schema and job. */
static void
json_head(struct show *sh)
{
	json_init(&sh->j, sh->ctx->out, 1);
	json_obj_begin(&sh->j);
	json_key(&sh->j, "schema");
	json_int(&sh->j, JSON_SCHEMA);
	json_key(&sh->j, "job");
	json_str(&sh->j, lm_job(sh->m));
}

static void
begin(struct show *sh, const char *mode)
{
	if (sh->fmt == F_TSV)
		lineout_tsv_head(sh->ctx->out);
	if (sh->fmt != F_JSON)
		return;
	json_head(sh);
	json_key(&sh->j, "mode");
	json_str(&sh->j, mode);
	json_key(&sh->j, "lines");
	json_arr_begin(&sh->j);
}

static void
end(struct show *sh)
{
	if (sh->fmt != F_JSON)
		return;
	json_arr_end(&sh->j);
	json_key(&sh->j, "count");
	json_int(&sh->j, (int64_t)sh->shown);
	json_obj_end(&sh->j);
	json_finish(&sh->j);
}

/* ---- the two modes ---- */

static int
run_grep(struct show *sh, const char *pat, int count_only, char **cause)
{
	struct grep_opts o;
	uint64_t n;
	int rc;

	memset(&o, 0, sizeof o);
	o.invert = sh->invert;
	o.node = sh->node;
	if (sh->tags != NULL) {
		o.tag = tag_row;
		o.tag_arg = sh;
	}
	if (count_only) {
		if (grep_count(sh->g, sh->m, &o, &n, cause) != 0)
			return -1;
		if (sh->fmt == F_JSON) {
			json_head(sh);
			json_key(&sh->j, "pattern");
			json_str(&sh->j, pat);
			json_key(&sh->j, "count");
			json_int(&sh->j, (int64_t)n);
			json_obj_end(&sh->j);
			json_finish(&sh->j);
		} else
			fprintf(sh->ctx->out, "%llu\n", (unsigned long long)n);
		return 0;
	}
	begin(sh, "grep");
	rc = grep_each(sh->g, sh->m, &o, show_hit, sh, cause);
	end(sh);
	return rc;
}

/* A time of --at: its end when it reads as one, else NULL. */
static char *
at_time(const char *at, struct tm *tm)
{
	char *end;

	end = strptime(at, "%Y-%m-%d %H:%M:%S", tm);
	if (end == NULL)
		end = strptime(at, "%Y-%m-%dT%H:%M:%S", tm);
	if (end == NULL)
		end = strptime(at, "%H:%M:%S", tm);
	if (end != NULL && *end == '.')
		(void)strtod(end, &end);
	return end != NULL && *end == '\0' ? end : NULL;
}

/* Is --at one of the forms seek_at() reads?  0, or -1 with *cause. */
static int
check_at(const char *at, char **cause)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof tm);
	if (at == NULL || strcmp(at, "first") == 0 || strcmp(at, "last") == 0 ||
	    strcmp(at, "failure") == 0 || (strchr(at, ':') != NULL &&
	    strchr(at, '/') != NULL) || at_time(at, &tm) != NULL)
		return 0;
	if (at[0] == '@' && (strtod(at + 1, &end), end != at + 1 &&
	    *end == '\0'))
		return 0;
	ts_fail(cause, "lines: --at wants first, last, failure, "
	    "[YYYY-MM-DD ]HH:MM:SS[.FFF], @EPOCH or PATH:LINE, not '%s'", at);
	return -1;
}

/*
 * The failure: the first line of the diagnosis's top event, else its
 * time, else the last row.
 */
static int
seek_failure(struct show *sh, struct lm_cursor *cur, char **cause)
{
	const struct model_event *ev;
	struct model *mo;
	long file = -1;
	int rc;

	if (job_model(sh->cache, lm_job(sh->m), NULL, 0, JOBMODEL_NO_FLOWS,
	    sh->ctx->err, "lines", &mo, cause) != 0)
		return -1;
	ev = mo->nevents > 0 ? &mo->events[0] : NULL;
	if (ev != NULL && ev->path != NULL)
		file = lm_find_file(sh->m, ev->path);
	if (file >= 0 && ev->line > 0)
		rc = lm_seek_line(cur, (size_t)file, (uint64_t)ev->line, cause);
	else if (ev != NULL && !isnan(ev->ts))
		rc = lm_seek_time(cur, ev->ts, cause);
	else
		rc = lm_seek_last(cur, cause);
	model_free(mo);
	return rc;
}

/* Where --at puts the cursor: first, last, failure, a time, PATH:LINE. */
static int
seek_at(struct show *sh, struct lm_cursor *cur, const char *at, char **cause)
{
	size_t file;
	uint64_t line;
	double t;
	char *why = NULL;

	if (at == NULL || strcmp(at, "first") == 0)
		return lm_seek_first(cur, cause);
	if (strcmp(at, "last") == 0)
		return lm_seek_last(cur, cause);
	if (strcmp(at, "failure") == 0)
		return seek_failure(sh, cur, cause);
	if (strchr(at, ':') != NULL && strchr(at, '/') != NULL) {
		if (lm_parse_pos(sh->m, at, &file, &line, cause) != 0)
			return -1;
		return lm_seek_line(cur, file, line, cause);
	}
	if (lm_parse_time(sh->m, at, &t, &why) != 0) {
		free(why);
		ts_fail(cause, "lines: --at wants first, last, failure, "
		    "[YYYY-MM-DD ]HH:MM:SS[.FFF], @EPOCH or PATH:LINE, not '%s'",
		    at);
		return -1;
	}
	return lm_seek_time(cur, t, cause);
}

/* The next row that passes the filters, forward or back: 1, 0, -1. */
static int
step(struct show *sh, struct lm_cursor *cur, int back, char **cause)
{
	struct lm_row r;
	int rc;

	for (;;) {
		rc = back ? lm_prev(cur, cause) : lm_next(cur, cause);
		if (rc != 1)
			return rc;
		lm_row(cur, &r);
		if ((rc = pass(sh, &r, cause)) != 0)
			return rc;
	}
}

static int
run_merged(struct show *sh, const char *at, long rows, int back,
    char **cause)
{
	struct lm_cursor *cur = lm_cursor_new(sh->m);
	struct lm_row r, *win = xcalloc((size_t)rows + 1, sizeof *win);
	size_t n = 0, i;
	int rc;

	if ((rc = seek_at(sh, cur, at, cause)) != 0 || !lm_row(cur, &r))
		goto out;
	/* on a hidden row: the next shown one that way */
	if ((rc = pass(sh, &r, cause)) == 0 &&
	    (rc = step(sh, cur, back, cause)) == 1)
		rc = pass(sh, (lm_row(cur, &r), &r), cause);
	while (rc == 1 && n < (size_t)rows) {
		lm_row(cur, &win[n++]);
		rc = step(sh, cur, back, cause);
	}
	if (rc < 0)
		goto out;
	begin(sh, "merged");
	for (i = 0; i < n; i++)
		if ((rc = show_row(sh, &win[back ? n - 1 - i : i], cause)) != 0)
			break;
	end(sh);
out:
	free(win);
	lm_cursor_free(cur);
	return rc < 0 ? -1 : 0;
}

/* The options only the raw modes take. */
static const char *const raw_opts[] = { "grep", "merged", "stage", "invert",
    "count", "format", "at", "rows", "back" };

int
cmd_lines_is_raw(const struct cmd_args *a)
{
	size_t i;

	for (i = 0; i < TS_NELEM(raw_opts); i++)
		if (cmd_has_opt(a, raw_opts[i]))
			return 1;
	return 0;
}

/* Options a mode does not take. */
static int
check_opts(struct cmd_args *a, int merged, char **cause)
{
	static const char *const grep_no[] = { "at", "rows", "back", "event",
	    "template", "context" };
	static const char *const merged_no[] = { "count", "event", "template",
	    "context" };
	const char *const *no = merged ? merged_no : grep_no;
	size_t i, n = merged ? TS_NELEM(merged_no) : TS_NELEM(grep_no);

	if (!merged && cmd_opt(a, "grep") == NULL) {
		for (i = 2; i < TS_NELEM(raw_opts); i++)
			if (cmd_has_opt(a, raw_opts[i]))
				break;
		ts_fail(cause, "lines: --%s wants --grep RE or --merged",
		    raw_opts[i < TS_NELEM(raw_opts) ? i : 0]);
		return -1;
	}
	if (a->argc != 1) {
		ts_fail(cause, "lines: --%s takes only JOB", merged ? "merged" :
		    "grep");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (cmd_has_opt(a, no[i])) {
			ts_fail(cause, "lines: --%s does not go with --%s",
			    no[i], merged ? "merged" : "grep");
			return -1;
		}
	if (!merged && cmd_has_opt(a, "invert") && cmd_opt(a, "grep") == NULL)
		return ts_fail(cause, "lines: -v wants --grep RE");
	return 0;
}

int
cmd_lines_raw(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct show sh;
	struct cache *c;
	const char *pat = cmd_opt(a, "grep");
	int merged = cmd_has_opt(a, "merged"), rc = CMD_FAIL;
	long rows;

	memset(&sh, 0, sizeof sh);
	sh.ctx = ctx;
	sh.invert = cmd_has_opt(a, "invert");
	sh.node = cmd_opt(a, "node");
	if (check_opts(a, merged, cause) != 0 ||
	    parse_fmt(cmd_opt(a, "format"), &sh.fmt, cause) != 0 ||
	    parse_stage(&sh, cmd_opt(a, "stage"), cause) != 0 ||
	    parse_iters(&sh, cmd_opt(a, "iter"), cause) != 0 ||
	    cmd_opt_long(a, "rows", 20, 1, 100000, &rows, cause) != 0 ||
	    check_at(cmd_opt(a, "at"), cause) != 0)
		return CMD_USAGE;
	if (sh.invert && pat == NULL) {
		ts_fail(cause, "lines: -v wants --grep RE");
		return CMD_USAGE;
	}
	if (pat != NULL && compile(pat, &sh.g, cause) != 0)
		return CMD_USAGE;
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    (sh.cache = c, 0) ||
	    lm_open(c, a->argv[0], &sh.m, cause) != 0 ||
	    check_node(&sh, cause) != 0)
		goto out;
	if (sh.fmt != F_TEXT || sh.stage >= 0 || sh.want_iter)
		sh.tags = linetag_new(sh.m);
	if (merged)
		rc = run_merged(&sh, cmd_opt(a, "at"), rows,
		    cmd_has_opt(a, "back"), cause);
	else
		rc = run_grep(&sh, pat, cmd_has_opt(a, "count"), cause);
	rc = rc == 0 ? CMD_OK : CMD_FAIL;
out:
	buf_release(&sh.text);
	linetag_free(sh.tags);
	lm_free(sh.m);
	grep_free(sh.g);
	return rc;
}
