/*
 * diagcmd.c -- the `diagnose` and `mark` commands.
 *
 * `diagnose` loads the job's model from the cache (db/diagdb.c), runs the
 * scorer (diag.c) with the fault library (faults.c), prints the view model
 * and records the outcome and stage tags back in the cache.  `mark` sets
 * the user's verdict that decides whether a job joins the healthy pool.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "commands.h"
#include "diag.h"
#include "diagdb.h"
#include "jobload.h"
#include "faults.h"
#include "flowjoin.h"
#include "util.h"

int
cmd_diagnose(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char **base = NULL, *fmtname = cmd_opt(a, "format");
	char *why = NULL;
	struct diag_job *job = NULL;
	struct diag_result *r = NULL;
	struct diag_opts o = { 1, NULL };
	enum diag_format fmt = DIAG_TEXT;
	struct cache *c;
	size_t nbase, i;
	long top;
	int rc = CMD_FAIL;

	if (cmd_opt_long(a, "top", 10, 0, 1000000, &top, cause) != 0)
		return CMD_USAGE;
	if (fmtname != NULL && diag_format_parse(fmtname, &fmt) != 0) {
		ts_fail(cause, "diagnose: unknown format '%s' (text, tsv or "
		    "json)", fmtname);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0)
		return CMD_FAIL;
	nbase = cmd_opt_all(a, "baseline", &base);
	if (jobload(c, a->argv[0], base, nbase, &job, cause) != 0)
		goto out;
	o.faults = faults_default();
	for (i = 0; i < faults_nerrors(o.faults); i++)
		fprintf(ctx->err, "trainscope: %s\n", faults_error(o.faults, i));
	if (!cmd_has_opt(a, "no-flows") &&
	    flowjoin_evidence(job, c, ctx->err, NULL, &why) < 0) {
		fprintf(ctx->err, "trainscope: captures left out: %s\n", why);
		free(why);
	}
	r = diag_run(job, &o);
	if (diag_print(ctx->out, r, fmt, (size_t)top) != 0) {
		ts_fail(cause, "cannot write output");
		goto out;
	}
	/* the answer is printed; a cache that cannot take it (read-only,
	 * full) costs only the remembered outcome */
	if (jobload_store(c, job, r, &why) != 0) {
		fprintf(ctx->err, "trainscope: the outcome was not saved: %s\n",
		    why);
		free(why);
	}
	rc = CMD_OK;
out:
	diag_result_free(r);
	diag_job_free(job);
	faults_free((struct faults *)o.faults);
	free(base);
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
	fprintf(ctx->out, "job %s marked %s\n", a->argv[0], v);
	return CMD_OK;
}
