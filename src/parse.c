/*
 * parse.c -- the `parse` command: the template of every line of log files.
 *
 * Each file (plain or gzip; zlib reads both) is read in blocks and cut
 * into lines; a trailing '\r' is dropped and a line longer than
 * PARSE_LINE_MAX keeps only its first PARSE_LINE_MAX bytes (the rest is
 * read and skipped).  Every line goes through lp_parse() for its header,
 * tmpl_mask() and tmpl_match() for its template, with one miner for the
 * whole run, so ids are shared by all files.  The output is the template
 * known when the line was read: a later line may still generalise it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "commands.h"
#include "lineparse.h"
#include "tmpl.h"
#include "util.h"

#define PARSE_LINE_MAX	65536
#define PARSE_BLOCK	65536

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

	if (len > 0 && s[len - 1] == '\r')
		len--;
	r->lineno++;
	lp_parse(s, len, &lp);
	tmpl_mask(lp.msg, lp.msg_len, &r->masked);
	id = tmpl_match(r->miner, r->masked.s, r->masked.len, NULL);
	if (r->tsv)
		fprintf(r->ctx->out, "%s\t%lu\t%u\t%s\n", r->path, r->lineno,
		    id, tmpl_text(r->miner, id));
	else
		fprintf(r->ctx->out, "%s:%lu: [%u] %s\n", r->path, r->lineno,
		    id, tmpl_text(r->miner, id));
}

/*
 * Feed block[0..n) to the line splitter; `line` keeps the bounded prefix
 * of the line in progress and *skip says it is already full.
 */
static void
parse_block(struct parse_run *r, const char *block, size_t n,
    struct buf *line)
{
	const char *p = block, *end = block + n, *nl;
	size_t take;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		take = (size_t)((nl != NULL ? nl : end) - p);
		if (line->len < PARSE_LINE_MAX) {
			if (take > PARSE_LINE_MAX - line->len)
				take = PARSE_LINE_MAX - line->len;
			buf_add(line, p, take);
		}
		if (nl == NULL)
			break;
		parse_line(r, line->len ? line->s : "", line->len);
		buf_reset(line);
		p = nl + 1;
	}
}

/* Parse one file; returns 0, or -1 after a one-line warning naming it. */
static int
parse_file(struct parse_run *r, const char *path)
{
	struct buf line = BUF_INIT;
	char *block;
	gzFile gz;
	int n, errnum, rc = 0;
	const char *msg;

	r->path = path;
	r->lineno = 0;
	gz = strcmp(path, "-") == 0 ? gzdopen(0, "rb") : gzopen(path, "rb");
	if (gz == NULL) {
		fprintf(r->ctx->err, "trainscope: cannot open '%s': %s\n", path,
		    errno ? strerror(errno) : "out of memory");
		return -1;
	}
	block = xmalloc(PARSE_BLOCK);
	while ((n = gzread(gz, block, PARSE_BLOCK)) > 0)
		parse_block(r, block, (size_t)n, &line);
	if (n < 0) {
		msg = gzerror(gz, &errnum);
		fprintf(r->ctx->err, "trainscope: cannot read '%s': %s\n", path,
		    errnum == Z_ERRNO ? strerror(errno) : msg);
		rc = -1;
	}
	if (line.len > 0)
		parse_line(r, line.s, line.len);
	free(block);
	buf_release(&line);
	gzclose(gz);
	return rc;
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
