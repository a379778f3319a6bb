/*
 * cmd-diagnose.c -- the `diagnose` and `mark` commands.
 *
 * `diagnose` finds the job once (db/jobdb.c, indexing a directory the
 * cache does not hold yet), has its model made or read back (jobmodel.c:
 * the loader, the captures, the scorer with the fault library), prints it
 * and records the outcome and stage tags back in the cache.  `mark` sets
 * the user's verdict that decides whether a job joins the healthy pool,
 * and with --for names it a healthy run of other jobs.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "view/canvas.h"
#include "cli/commands.h"
#include "db/diagdb.h"
#include "db/jobdb.h"
#include "diag/diag.h"
#include "diag/jobmodel.h"
#include "diag/model.h"
#include "base/util.h"

/* Find the job `what` names: 0 and *job filled, or -1. */
static int
find(struct cache *c, const char *what, struct job_ref *job, char **cause)
{
	int rc = jobdb_find(c, what, job, cause);

	if (rc == 0)
		ts_fail(cause, "no job '%s' (index it first)", what);
	return rc > 0 ? 0 : -1;
}

/*
 * The job `arg` names, resolved once into *job.  A path to a directory
 * or file on disk that the cache holds no job for (by name or root) is
 * indexed first, as `trainscope JOBDIR` does (on `threads` threads when
 * not NULL), and stands for the job rooted at that directory (a file's
 * own directory).  Returns 0, or -1 with *cause.
 */
static int
resolve(struct cmd_ctx *ctx, struct cache *c, const char *arg,
    const char *threads, struct job_ref *job, char **cause)
{
	struct stat sb;
	char *words[5], *dir, *slash;
	int rc, n = 0;

	if (stat(arg, &sb) != 0 || (!S_ISDIR(sb.st_mode) &&
	    !S_ISREG(sb.st_mode)) || (strchr(arg, '/') == NULL &&
	    !S_ISDIR(sb.st_mode)))
		return find(c, arg, job, cause);
	dir = xstrdup(arg);
	if (S_ISREG(sb.st_mode) && (slash = strrchr(dir, '/')) != NULL)
		slash[slash == dir] = '\0';	/* "/f" is in "/" */
	if ((rc = jobdb_find(c, dir, job, cause)) == 0) {
		words[n++] = (char *)"index";
		if (threads != NULL) {
			words[n++] = (char *)"--threads";
			words[n++] = (char *)threads;
		}
		words[n++] = (char *)arg;
		words[n] = NULL;
		rc = cmd_exec_argv(ctx, n, words, cause) != CMD_OK ? -1 :
		    find(c, dir, job, cause);
	}
	free(dir);
	return rc < 0 ? -1 : 0;
}

int
cmd_diagnose(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char **base = NULL, *fmtname = cmd_opt(a, "format");
	enum diag_format fmt = DIAG_TEXT;
	struct model *m = NULL;
	struct job_ref job;
	struct cache *c;
	size_t nbase;
	long top, threads;
	int rc = CMD_FAIL;

	if (cmd_opt_long(a, "top", 10, 0, 1000000, &top, cause) != 0 ||
	    cmd_opt_long(a, "threads", 0, 0, 64, &threads, cause) != 0)
		return CMD_USAGE;
	if (cmd_opt(a, "threads") != NULL)
		diag_set_threads((int)threads);
	if (fmtname != NULL && diag_format_parse(fmtname, &fmt) != 0) {
		ts_fail(cause, "diagnose: unknown format '%s' (text, tsv or "
		    "json)", fmtname);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    resolve(ctx, c, a->argv[0], cmd_opt(a, "threads"), &job,
	    cause) != 0)
		return CMD_FAIL;
	nbase = cmd_opt_all(a, "baseline", &base);
	if (job_model_ref(c, &job, base, nbase, cmd_has_opt(a, "no-flows") ?
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
	jobdb_release(&job);
	return rc;
}

/*
 * Name the run a healthy run of each job of --for (a good run only); a
 * run marked bad or none is no one's.
 */
static int
mark_for(struct cache *c, const char *run, const char *v, const char **jobs,
    size_t n, char **cause)
{
	struct job_ref r, j;
	size_t i;
	int rc = -1;

	if (find(c, run, &r, cause) != 0)
		return -1;
	if (strcmp(v, "good") != 0) {
		rc = diagdb_unmark_for(c, r.id, cause);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (find(c, jobs[i], &j, cause) != 0) {
			rc = -1;
			goto out;
		}
		rc = diagdb_mark_for(c, r.id, j.id, cause);
		jobdb_release(&j);
		if (rc != 0)
			goto out;
	}
	rc = 0;
out:
	jobdb_release(&r);
	return rc;
}

int
cmd_mark(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *v = a->argv[1], **jobs = NULL;
	struct cache *c;
	size_t n, i;
	int rc = CMD_FAIL;

	if (strcmp(v, "good") != 0 && strcmp(v, "bad") != 0 &&
	    strcmp(v, "none") != 0) {
		ts_fail(cause, "mark: want good, bad or none, not '%s'", v);
		return CMD_USAGE;
	}
	n = cmd_opt_all(a, "for", &jobs);
	if (n > 0 && strcmp(v, "good") != 0) {
		ts_fail(cause, "mark: --for names the jobs a good run is a "
		    "healthy run of");
		free(jobs);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    jobdb_mark(c, a->argv[0], strcmp(v, "none") == 0 ? NULL : v,
	    cause) != 0 || mark_for(c, a->argv[0], v, jobs, n, cause) != 0)
		goto out;
	fputs("job ", ctx->out);
	canvas_fput(ctx->out, a->argv[0]);
	fprintf(ctx->out, " marked %s", v);
	for (i = 0; i < n; i++) {
		fputs(i == 0 ? " for " : ", ", ctx->out);
		canvas_fput(ctx->out, jobs[i]);
	}
	fputc('\n', ctx->out);
	rc = CMD_OK;
out:
	free(jobs);
	return rc;
}
