/*
 * cmd-diagnose.c -- the `diagnose` and `mark` commands.
 *
 * `diagnose` loads the job's model from the cache (db/diagdb.c), runs the
 * scorer (diag.c) with the fault library (faults.c), prints the view model
 * and records the outcome and stage tags back in the cache.  `mark` sets
 * the user's verdict that decides whether a job joins the healthy pool.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "view/canvas.h"
#include "cli/commands.h"
#include "diag/diag.h"
#include "db/diagdb.h"
#include "diag/jobload.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "diag/faults.h"
#include "flows/flowjoin.h"
#include "base/util.h"

/*
 * The job `arg` names.  A path to a directory or file on disk that the
 * cache holds no job for (by name or root) is indexed first, as
 * `trainscope JOBDIR` does (on `threads` threads when not NULL), and
 * stands for the job rooted at that directory (a file's own directory).
 * Returns what to look up, to free; NULL when that failed.
 */
static char *
index_first(struct cmd_ctx *ctx, struct cache *c, const char *arg,
    const char *threads, char **cause)
{
	struct diagdb_job dj;
	struct stat sb;
	char *words[5], *dir, *slash, *abs;
	int rc, n = 0;

	if (stat(arg, &sb) != 0 || (!S_ISDIR(sb.st_mode) &&
	    !S_ISREG(sb.st_mode)) || (strchr(arg, '/') == NULL &&
	    !S_ISDIR(sb.st_mode)))
		return xstrdup(arg);
	dir = xstrdup(arg);
	if (S_ISREG(sb.st_mode) && (slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir] = '\0';	/* "/f" is in "/" */
	abs = realpath(dir, NULL);
	rc = diagdb_find_job(c, S_ISDIR(sb.st_mode) ? arg : dir, abs, &dj,
	    cause);
	free(abs);
	if (rc < 0) {
		free(dir);
		return NULL;
	}
	if (rc > 0) {
		diagdb_job_release(&dj);
		return dir;
	}
	words[n++] = (char *)"index";
	if (threads != NULL) {
		words[n++] = (char *)"--threads";
		words[n++] = (char *)threads;
	}
	words[n++] = (char *)arg;
	words[n] = NULL;
	if (cmd_exec_argv(ctx, n, words, cause) != CMD_OK) {
		free(dir);
		return NULL;
	}
	return dir;
}

int
cmd_diagnose(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char **base = NULL, *fmtname = cmd_opt(a, "format");
	enum diag_format fmt = DIAG_TEXT;
	struct model *m = NULL;
	struct cache *c;
	size_t nbase;
	long top, threads;
	int rc = CMD_FAIL;
	char *job;

	if (cmd_opt_long(a, "top", 10, 0, 1000000, &top, cause) != 0 ||
	    cmd_opt_long(a, "threads", 0, 0, 64, &threads, cause) != 0)
		return CMD_USAGE;
	if (fmtname != NULL && diag_format_parse(fmtname, &fmt) != 0) {
		ts_fail(cause, "diagnose: unknown format '%s' (text, tsv or "
		    "json)", fmtname);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    (job = index_first(ctx, c, a->argv[0], cmd_opt(a, "threads"),
	    cause)) == NULL)
		return CMD_FAIL;
	nbase = cmd_opt_all(a, "baseline", &base);
	if (job_model(c, job, base, nbase, cmd_has_opt(a, "no-flows") ?
	    JOBMODEL_NO_FLOWS : 0, ctx->err, a->name, &m, cause) != 0)
		goto out;
	if (model_print(ctx->out, m, (int)fmt, (size_t)top) != 0) {
		ts_fail(cause, "cannot write output");
		goto out;
	}
	rc = CMD_OK;
out:
	model_free(m);
	free(base);
	free(job);
	return rc;
}

int
cmd_mark(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *v = a->argv[1];
	struct cache *c;

	if (strcmp(v, "good") != 0 && strcmp(v, "bad") != 0 &&
	    strcmp(v, "none") != 0) {
		ts_fail(cause, "mark: want good, bad or none, not '%s'", v);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0)
		return CMD_FAIL;
	if (diagdb_mark(c, a->argv[0], strcmp(v, "none") == 0 ? NULL : v,
	    cause) != 0)
		return CMD_FAIL;
	fputs("job ", ctx->out);
	canvas_fput(ctx->out, a->argv[0]);
	fprintf(ctx->out, " marked %s\n", v);
	return CMD_OK;
}
