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
#include "jobmodel.h"
#include "model.h"
#include "faults.h"
#include "flowjoin.h"
#include "util.h"

int
cmd_diagnose(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char **base = NULL, *fmtname = cmd_opt(a, "format");
	enum diag_format fmt = DIAG_TEXT;
	struct model *m = NULL;
	struct cache *c;
	size_t nbase;
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
	if (job_model(c, a->argv[0], base, nbase, cmd_has_opt(a, "no-flows") ?
	    JOBMODEL_NO_FLOWS : 0, ctx->err, &m, cause) != 0)
		goto out;
	if (model_print(ctx->out, m, (int)fmt, (size_t)top) != 0) {
		ts_fail(cause, "cannot write output");
		goto out;
	}
	rc = CMD_OK;
out:
	model_free(m);
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
