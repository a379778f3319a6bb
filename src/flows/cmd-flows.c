/*
 * cmd-flows.c -- the `flows` command: find the captures named on the
 * command line (a directory is scanned for them), load them into one
 * flow_set, analyse it and print the view model.
 *
 * When the arguments make one job (a directory, or files given together,
 * as `index` sees them), its flow set is kept in the cache under that job
 * and reused while the captures are unchanged; the cache failing is only
 * a warning.
 *
 * In a directory, flow_find_captures() finds the inputs by content; when
 * it holds packet captures its flow-record files are left out (they
 * usually describe the same traffic).  Node names come from the same
 * directory's logs when they print them (flownames.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/commands.h"
#include "db/jobdb.h"
#include "flows/flowan.h"
#include "flows/flowasm.h"
#include "flows/flowjoin.h"
#include "logs/scan.h"
#include "base/util.h"

struct found {
	char **v;
	size_t n, cap;
};

static void
found_add(struct found *f, const char *path)
{
	f->v = xgrow(f->v, &f->cap, f->n + 1, sizeof *f->v);
	f->v[f->n++] = xstrdup(path);
}

static void
found_free(struct found *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

/* Expand the arguments into the input files; -1 when one is missing. */
static int
collect_inputs(struct cmd_args *args, struct found *out, char **cause)
{
	int i;

	for (i = 0; i < args->argc; i++) {
		struct stat st;
		char **paths;
		size_t k, n;

		if (stat(args->argv[i], &st) != 0)
			return ts_fail(cause, "cannot open '%s': %s",
			    args->argv[i], strerror(errno));
		if (!S_ISDIR(st.st_mode)) {
			found_add(out, args->argv[i]);
			continue;
		}
		if (flow_find_captures(args->argv[i], &paths, &n, cause) != 0)
			return -1;
		for (k = 0; k < n; k++)
			found_add(out, paths[k]);
		flow_paths_free(paths, n);
	}
	if (out->n == 0)
		return ts_fail(cause, "no capture or flow records found");
	return 0;
}

static void
warn_err(void *arg, const char *msg)
{
	fprintf((FILE *)arg, "trainscope: flows: %s\n", msg);
}

static int
opt_seconds(struct cmd_args *args, const char *name, double *out,
    char **cause)
{
	const char *v = cmd_opt(args, name);

	if (v == NULL)
		return 0;
	if (ts_parse_double(v, out) != 0 || !(*out > 0))
		return ts_fail(cause, "--%s wants a positive number of "
		    "seconds, not '%s'", name, v);
	return 0;
}

/* Node names from the first job directory that has any. */
static char **
names_from_args(struct cmd_args *args, const struct flow_set *set)
{
	char **names = NULL;
	struct stat st;
	int i;

	for (i = 0; i < args->argc && names == NULL; i++)
		if (stat(args->argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			names = flowan_names_from_dir(set, args->argv[i]);
	return names;
}

/*
 * The job the arguments make, for keeping its flow set in the cache: 0
 * and *job filled, or -1 (said on the error stream; the set is read
 * without the cache).
 */
static int
flows_job(struct cmd_ctx *ctx, struct cache *c, const char *given,
    const char *root, struct job_ref *job)
{
	char *name = given != NULL ? xstrdup(given) : scan_job_name(root);
	char *why = NULL;
	int rc;

	if ((rc = jobdb_flows(c, name, root, job, &why)) != 0) {
		fprintf(ctx->err, "trainscope: flows: flows not kept in the "
		    "cache: %s\n", why);
		free(why);
	}
	free(name);
	return rc;
}

/*
 * Load the flow set of inputs in, through the cache when the arguments
 * make one job and the cache opens.
 */
static int
load_set(struct cmd_ctx *ctx, struct cmd_args *args, struct found *in,
    const struct flow_params *fp, struct flow_set *set, char **cause)
{
	const char *given = cmd_opt(args, "job");
	struct job_ref job;
	char *root = NULL, *why = NULL;
	struct cache *c = NULL;
	int rc;

	memset(&job, 0, sizeof job);
	if (!cmd_has_opt(args, "no-cache") &&
	    (root = scan_job_root(args->argv, (size_t)args->argc)) == NULL &&
	    given != NULL)
		return ts_fail(cause, "--job names one job: give one directory, "
		    "or files that share one");
	if (root != NULL && cmd_ctx_cache(ctx, &c, &why) != 0) {
		fprintf(ctx->err, "trainscope: flows: not kept in the cache: "
		    "%s\n", why);
		free(why);
		c = NULL;
	}
	if (c != NULL && flows_job(ctx, c, given, root, &job) != 0)
		c = NULL;
	rc = flowjoin_load(c, c != NULL ? &job : NULL, in->v, in->n, fp,
	    warn_err, ctx->err, set, cause);
	jobdb_release(&job);
	free(root);
	return rc;
}

int
cmd_flows(struct cmd_ctx *ctx, struct cmd_args *args, char **cause)
{
	const char *fmt = cmd_opt(args, "format");
	struct found in = { NULL, 0, 0 };
	struct flow_params fp;
	struct flowan_params ap;
	struct flow_set set;
	struct flowan fa;
	char **names;
	int rc = CMD_USAGE;

	flow_params_default(&fp);
	flowan_params_default(&ap);
	if (fmt == NULL)
		fmt = "text";
	if (strcmp(fmt, "text") != 0 && strcmp(fmt, "tsv") != 0 &&
	    strcmp(fmt, "json") != 0) {
		ts_fail(cause, "unknown format '%s' (text, tsv or json)", fmt);
		return CMD_USAGE;
	}
	if (opt_seconds(args, "idle-timeout", &fp.idle_timeout, cause) != 0 ||
	    opt_seconds(args, "gap", &ap.gap, cause) != 0)
		return CMD_USAGE;
	if (cmd_opt(args, "job") != NULL && *cmd_opt(args, "job") == '\0') {
		ts_fail(cause, "--job wants a name");
		return CMD_USAGE;
	}
	rc = CMD_FAIL;
	if (collect_inputs(args, &in, cause) != 0)
		goto out;
	if (load_set(ctx, args, &in, &fp, &set, cause) != 0)
		goto out;
	names = names_from_args(args, &set);
	if (flowan_analyse_named(&fa, &set, names, &ap, cause) == 0) {
		char *root = scan_job_root(args->argv, (size_t)args->argc);
		char *name = cmd_opt(args, "job") != NULL ?
		    xstrdup(cmd_opt(args, "job")) : root != NULL ?
		    scan_job_name(root) : NULL;

		fa.name = name;
		if (strcmp(fmt, "json") == 0)
			flowan_print_json(&fa, ctx->out);
		else if (strcmp(fmt, "tsv") == 0)
			flowan_print_tsv(&fa, ctx->out);
		else
			flowan_print_text(&fa, ctx->out);
		flowan_free(&fa);
		free(name);
		free(root);
		rc = CMD_OK;
	}
	flowan_names_free(names, set.nhosts);
	flow_set_free(&set);
out:
	found_free(&in);
	return rc;
}
