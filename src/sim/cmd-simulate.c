/*
 * cmd-simulate.c -- the `simulate` and `demo` commands.
 *
 * `simulate` turns its options into struct sim_opts and calls sim_run().
 * `demo` simulates one small failed job and three healthy runs of the
 * same job under the cache directory (once; later runs reuse them), then
 * runs `index` on each and `diagnose` on the failed one with the healthy
 * runs as baselines, through the command table like any other command.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/cache.h"
#include "cli/commands.h"
#include "sim/sim.h"
#include "base/util.h"

static int
pick(const char *v, const char *const *names, size_t n, const char *opt,
    int *out, char **cause)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	return ts_fail(cause, "bad --%s '%s'", opt, v);
}

static int
int_opt(struct cmd_args *a, const char *name, long min, long max, int *out,
    char **cause)
{
	long v;

	if (cmd_opt_long(a, name, *out, min, max, &v, cause) != 0)
		return -1;
	*out = (int)v;
	return 0;
}

static int
choice_opts(struct cmd_args *a, struct sim_opts *o, char **cause)
{
	static const char *const fmts[] = { "megatron", "deepspeed", "hf" };
	static const char *const lays[] = { "per-rank", "per-node", "combined" };
	static const char *const pfx[] = { "srun", "default", "rank" };
	static const char *const tr[] = { "roce", "tcp" };
	const char *v;

	if ((v = cmd_opt(a, "format")) != NULL &&
	    pick(v, fmts, 3, "format", &o->format, cause) != 0)
		return -1;
	if ((v = cmd_opt(a, "layout")) != NULL &&
	    pick(v, lays, 3, "layout", &o->layout, cause) != 0)
		return -1;
	if ((v = cmd_opt(a, "prefix")) != NULL &&
	    pick(v, pfx, 3, "prefix", &o->prefix, cause) != 0)
		return -1;
	if ((v = cmd_opt(a, "transport")) != NULL &&
	    pick(v, tr, 2, "transport", &o->transport, cause) != 0)
		return -1;
	return 0;
}

static int
number_opts(struct cmd_args *a, struct sim_opts *o, char **cause)
{
	long v;
	double d;
	const char *s;

	if (int_opt(a, "nodes", 1, 1024, &o->nodes, cause) != 0 ||
	    int_opt(a, "gpus-per-node", 1, 64, &o->gpn, cause) != 0 ||
	    int_opt(a, "dp", 1, 1 << 20, &o->dp, cause) != 0 ||
	    int_opt(a, "pp", 1, 1024, &o->pp, cause) != 0 ||
	    int_opt(a, "tp", 1, 64, &o->tp, cause) != 0 ||
	    int_opt(a, "micro-batches", 1, 1024, &o->micro, cause) != 0)
		return -1;
	if (cmd_opt_long(a, "iters", o->iters, 1, 100000000, &o->iters,
	    cause) != 0 || cmd_opt_long(a, "capture-iters", 0, 1, 100000000,
	    &o->capture_iters, cause) != 0)
		return -1;
	if (cmd_opt_long(a, "seed", 1, 0, 0x7fffffffffffffffL, &v, cause) != 0)
		return -1;
	o->seed = (uint64_t)v;
	if ((s = cmd_opt(a, "iter-ms")) != NULL) {
		if (ts_parse_double(s, &d) != 0 || d < 1 || d > 3600000)
			return ts_fail(cause, "bad --iter-ms '%s'", s);
		o->iter_ms = d;
	}
	if ((s = cmd_opt(a, "clock-skew-ms")) != NULL) {
		if (ts_parse_double(s, &d) != 0 || d < 0 || d > 3600000)
			return ts_fail(cause, "bad --clock-skew-ms '%s'", s);
		o->skew_ms = d;
	}
	if ((s = cmd_opt(a, "size")) != NULL &&
	    sim_parse_size(s, &o->size, cause) != 0)
		return -1;
	return 0;
}

static int
fault_opts(struct cmd_args *a, struct sim_opts *o, char **cause)
{
	const char **vals;
	size_t n, i;
	int rc = 0;

	n = cmd_opt_all(a, "fault", &vals);
	o->faults = xcalloc(n + 1, sizeof *o->faults);
	for (i = 0; i < n && rc == 0; i++)
		rc = sim_parse_fault(vals[i], &o->faults[o->nfaults++], cause);
	free(vals);
	return rc;
}

/* Fill *o from the command's options; CMD_USAGE-worthy errors return -1. */
static int
parse_opts(struct cmd_args *a, struct sim_opts *o, char **cause)
{
	sim_opts_defaults(o);
	o->gzip = cmd_has_opt(a, "gzip");
	o->healthy = cmd_has_opt(a, "healthy");
	o->flows = !cmd_has_opt(a, "no-flows");
	if (choice_opts(a, o, cause) != 0 || number_opts(a, o, cause) != 0 ||
	    fault_opts(a, o, cause) != 0)
		return -1;
	if (cmd_has_opt(a, "size") && cmd_has_opt(a, "iters"))
		return ts_fail(cause, "--size and --iters exclude each other");
	return sim_opts_check(o, cause);
}

int
cmd_simulate(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct sim_opts o;
	int rc;

	if (parse_opts(a, &o, cause) != 0) {
		free(o.faults);
		return CMD_USAGE;
	}
	rc = sim_run(&o, a->argv[0], ctx->out, ctx->progress ? ctx->err : NULL,
	    ctx->err, cause);
	free(o.faults);
	return rc == 0 ? CMD_OK : CMD_FAIL;
}

/* ------------------------------------------------------------ demo */

static int
mkdir_p(const char *path, char **cause)
{
	char *p = xstrdup(path), *s;
	int rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		if (*s == '\0' && s[-1] == '/')
			break;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			rc = ts_fail(cause, "cannot create '%s': %s", p,
			    strerror(errno));
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

static int
demo_job(const char *dir, const char *fault, uint64_t seed, FILE *out,
    char **cause)
{
	struct sim_opts o;
	char *truth = xasprintf("%s/truth.json", dir);
	struct stat st;
	int rc;

	if (stat(truth, &st) == 0) {
		free(truth);
		return 0;	/* made by an earlier demo */
	}
	free(truth);
	sim_opts_defaults(&o);
	o.nodes = 4;
	o.gpn = 4;
	o.tp = 4;
	o.iters = 60;
	o.iter_ms = 800;
	o.seed = seed;
	o.healthy = fault == NULL;
	o.faults = xcalloc(1, sizeof *o.faults);
	if (fault != NULL && sim_parse_fault(fault, o.faults, cause) != 0) {
		free(o.faults);
		return -1;
	}
	o.nfaults = fault != NULL;
	rc = sim_opts_check(&o, cause);
	if (rc == 0)
		rc = sim_run(&o, dir, out, NULL, NULL, cause);
	free(o.faults);
	return rc;
}

static char *
demo_dir(struct cmd_ctx *ctx)
{
	char *cache = ctx->cache_path != NULL ? xstrdup(ctx->cache_path) :
	    cache_default_path();
	char *slash = strrchr(cache, '/'), *dir;

	if (slash == NULL)
		dir = xstrdup("demo");
	else {
		*slash = '\0';
		dir = xasprintf("%s/demo", cache[0] != '\0' ? cache : "/");
	}
	free(cache);
	return dir;
}

static int
demo_run(struct cmd_ctx *ctx, char **jobs, size_t njobs, char **cause)
{
	char *argv[16];
	size_t i;
	int rc = CMD_OK, argc = 0;

	if (cmd_find("index") == NULL || cmd_find("diagnose") == NULL) {
		ts_fail(cause, "this build has no '%s' command",
		    cmd_find("index") == NULL ? "index" : "diagnose");
		return CMD_FAIL;
	}
	for (i = 0; i < njobs && rc == CMD_OK; i++) {
		argv[0] = (char *)"index";
		argv[1] = jobs[i];
		rc = cmd_exec_argv(ctx, 2, argv, cause);
	}
	/* the healthy runs join the pool, so that views of the failed job
	 * compare with them as diagnose does */
	for (i = 1; i < njobs && rc == CMD_OK; i++) {
		const char *base = strrchr(jobs[i], '/');

		argv[0] = (char *)"mark";
		argv[1] = (char *)(base != NULL ? base + 1 : jobs[i]);
		argv[2] = (char *)"good";
		rc = cmd_exec_argv(ctx, 3, argv, cause);
	}
	if (rc != CMD_OK)
		return rc;
	argv[argc++] = (char *)"diagnose";
	for (i = 1; i < njobs; i++) {
		argv[argc++] = (char *)"--baseline";
		argv[argc++] = jobs[i];
	}
	argv[argc++] = jobs[0];
	return cmd_exec_argv(ctx, argc, argv, cause);
}

int
cmd_demo(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	char *dir = demo_dir(ctx), *jobs[4];
	size_t i;
	int rc = CMD_FAIL;

	(void)a;
	/* three healthy runs of one training job, then the one that failed:
	 * named as a user's runs would be, so the diagnosis reads naturally */
	jobs[0] = xasprintf("%s/" DEMO_JOB, dir);
	for (i = 1; i < 4; i++)
		jobs[i] = xasprintf("%s/gpt-run%zu", dir, i);
	if (mkdir_p(dir, cause) != 0)
		goto out;
	if (demo_job(jobs[0], "gpu-xid79@3:41", 7, ctx->err, cause) != 0)
		goto out;
	for (i = 1; i < 4; i++)
		if (demo_job(jobs[i], NULL, 7 + i, ctx->err, cause) != 0)
			goto out;
	rc = demo_run(ctx, jobs, 4, cause);
out:
	for (i = 0; i < 4; i++)
		free(jobs[i]);
	free(dir);
	return rc;
}
