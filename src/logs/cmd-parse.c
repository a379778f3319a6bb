/*
 * cmd-parse.c -- the `parse` command: the template of every line of log files.
 *
 * Each file (plain or gzip, or '-' for standard input) is read by the
 * indexer's line reader (reader.h): CR stripped, NUL bytes kept, a huge
 * line cut to a bounded prefix.  Every line goes through lp_parse() for its header,
 * tmpl_mask() and tmpl_match() for its template, with one miner for the
 * whole run, so ids are shared by all files.  The output is the template
 * known when the line was read: a later line may still generalise it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "logs/lineparse.h"
#include "logs/reader.h"
#include "logs/tmpl.h"
#include "view/canvas.h"
#include "base/util.h"

struct parse_run {
	struct cmd_ctx *ctx;
	struct tmpl_miner *miner;
	struct buf masked;
	int tsv;
	const char *path;
	unsigned long lineno;
};

static void
parse_line(struct parse_run *r, const char *s, size_t len)
{
	struct lp_line lp;
	uint32_t id;

	r->lineno++;
	lp_parse(s, len, &lp);
	tmpl_mask(lp.msg, lp.msg_len, &r->masked);
	id = tmpl_match(r->miner, r->masked.s, r->masked.len, NULL);
	canvas_fput(r->ctx->out, r->path);
	if (r->tsv)
		fprintf(r->ctx->out, "\t%lu\t%u\t", r->lineno, id);
	else
		fprintf(r->ctx->out, ":%lu: [%u] ", r->lineno, id);
	canvas_fput(r->ctx->out, tmpl_text(r->miner, id));
	fputc('\n', r->ctx->out);
}

/* "trainscope: parse: MESSAGE", the message (a file name) inert. */
static void
say(FILE *err, const char *msg)
{
	fputs("trainscope: parse: ", err);
	canvas_fput(err, msg);
	fputc('\n', err);
}

/* Parse one file; returns 0, or -1 after a one-line warning naming it. */
static int
parse_file(struct parse_run *r, const char *path)
{
	struct reader *rd;
	struct reader_line l;
	char *cause = NULL;
	int rc;

	r->path = path;
	r->lineno = 0;
	if (reader_open(path, 0, 0, &rd, &cause) != 0) {
		say(r->ctx->err, cause);
		free(cause);
		return -1;
	}
	while ((rc = reader_next(rd, &l, &cause)) == 1)
		parse_line(r, l.s, l.len);
	if (rc < 0) {
		say(r->ctx->err, cause);
		free(cause);
	}
	reader_close(rd);
	return rc < 0 ? -1 : 0;
}

int
cmd_parse(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct parse_run r;
	const char *fmt = cmd_opt(a, "format");
	int i, failed = 0;

	if (fmt != NULL && strcmp(fmt, "tsv") != 0 && strcmp(fmt, "text") != 0) {
		ts_fail(cause, "unknown format '%s' (use text or tsv)", fmt);
		return CMD_USAGE;
	}
	memset(&r, 0, sizeof r);
	r.ctx = ctx;
	r.tsv = fmt != NULL && strcmp(fmt, "tsv") == 0;
	r.miner = tmpl_new();
	buf_init(&r.masked);
	if (r.tsv)
		fputs("file\tline\tid\ttemplate\n", ctx->out);
	for (i = 0; i < a->argc; i++)
		if (parse_file(&r, a->argv[i]) != 0)
			failed++;
	buf_release(&r.masked);
	tmpl_free(r.miner);
	if (failed == 0)
		return CMD_OK;
	ts_fail(cause, "%d of %d files could not be read", failed, a->argc);
	return CMD_FAIL;
}
