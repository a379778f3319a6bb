/*
 * cmd-builtin.c -- commands about trainscope itself: help, version, source,
 * cache.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "view/canvas.h"
#include "cli/commands.h"
#include "cli/help.h"
#include "view/keys.h"
#include "base/util.h"
#include "db/viewdb.h"

/* The list printed by a bare `help`: commands, then topics. */
static void
help_list(FILE *out)
{
	size_t i;
	char *s;

	fprintf(out, "Commands (use 'help COMMAND' for details):\n");
	for (i = 0; i < cmd_count; i++)
		fprintf(out, "  %-12s %s\n", cmd_table[i].name,
		    cmd_table[i].summary);
	fprintf(out, "\nTopics:\n");
	for (i = 0; i < help_count; i++) {
		if (cmd_find(help_entries[i].name) != NULL)
			continue;
		s = help_summary(help_entries[i].text);
		fprintf(out, "  %-12s %s\n", help_entries[i].name, s);
		free(s);
	}
	/* made from the key table, not a text of help/ */
	fprintf(out, "  %-12s %s\n", "keys", "the keys of the screen and the "
	    "command each runs");
}

int
cmd_help(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const struct cmd *c;
	const char *text;
	char *usage;

	if (a->argc == 0) {
		help_list(ctx->out);
		return CMD_OK;
	}
	if (strcmp(a->argv[0], "keys") == 0) {
		keys_print(ctx->out);
		return CMD_OK;
	}
	if ((text = help_find(a->argv[0])) == NULL) {
		ts_fail(cause, "no help for '%s' (try 'help')", a->argv[0]);
		return CMD_FAIL;
	}
	if ((c = cmd_find(a->argv[0])) != NULL) {
		usage = cmd_usage_line(c);
		fprintf(ctx->out, "%s\n\n", usage);
		free(usage);
	}
	fputs(text, ctx->out);
	return CMD_OK;
}

int
cmd_version(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	(void)a;
	(void)cause;
	fprintf(ctx->out, "trainscope %s (cache schema %d)\n", PACKAGE_VERSION,
	    cache_schema_version());
	return CMD_OK;
}

int
cmd_source(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	return cmd_source_file(ctx, a->argv[0], cause);
}

/* One job of `cache info`: name, files, their size, outcome, root. */
static int
info_job(void *arg, const struct viewdb_job *j)
{
	FILE *out = arg;
	char size[32];

	fputs("  ", out);
	canvas_fput(out, j->name);
	fprintf(out, "  %lld file%s, %s, %s, ", (long long)j->files,
	    j->files == 1 ? "" : "s", ts_human_size((uint64_t)j->bytes, size,
	    sizeof size), *j->outcome != '\0' ? j->outcome : "not diagnosed");
	canvas_fput(out, j->root);
	fputc('\n', out);
	return 0;
}

int
cmd_cache_info(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct cache_info info;
	struct cache *c;
	char *path, size[32];

	if (a->argc == 1 && strcmp(a->argv[0], "path") == 0) {
		path = ctx->cache_path != NULL ? xstrdup(ctx->cache_path) :
		    cache_default_path();
		fprintf(ctx->out, "%s\n", path);
		free(path);
		return CMD_OK;
	}
	if (a->argc == 1 && strcmp(a->argv[0], "info") != 0) {
		ts_fail(cause, "cache: unknown action '%s' (info or path)",
		    a->argv[0]);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    cache_get_info(c, &info, cause) != 0)
		return CMD_FAIL;
	fprintf(ctx->out, "path:    %s\nschema:  %d%s\njobs:    %lld\nsize:    "
	    "%s (%lld bytes)\n", cache_path(c), info.schema, cache_readonly(c) ?
	    " (read-only here)" : "", info.jobs, ts_human_size((uint64_t)
	    info.bytes, size, sizeof size), info.bytes);
	if (info.jobs > 0 && viewdb_each_job(c, info_job, ctx->out,
	    cause) != 0)
		return CMD_FAIL;
	return CMD_OK;
}

int
cmd_mouse(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *w = a->argv[0];

	if (strcmp(w, "on") == 0 || strcmp(w, "off") == 0)
		ctx->mouse = w[1] == 'n';
	else if (strcmp(w, "toggle") == 0)
		ctx->mouse = !ctx->mouse;
	else {
		ts_fail(cause, "mouse: wants on, off or toggle, not '%s'", w);
		return CMD_USAGE;
	}
	return CMD_OK;
}

int
cmd_warnings(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	size_t i;

	(void)a;
	(void)cause;
	if (ctx->nheld == 0) {
		fputs("no warnings held back (without the screen they go to "
		    "standard error as they come)\n", ctx->out);
		return CMD_OK;
	}
	for (i = 0; i < ctx->nheld; i++)
		fprintf(ctx->out, "%s\n", ctx->held[i]);
	return CMD_OK;
}
