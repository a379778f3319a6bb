/*
 * cmd-index.c -- the `index` and `templates` commands.
 *
 * `index` turns its words into struct index_opts and prints one summary
 * line; `templates` lists what the cache knows per job, in text, TSV or
 * JSON.  All the work is in index.c and db/logdb.c.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/cache.h"
#include "cli/commands.h"
#include "db/jobdb.h"
#include "logs/index.h"
#include "base/json.h"
#include "db/logdb.h"
#include "view/canvas.h"
#include "base/util.h"

/* The summary line of an index run. */
static void
print_stats(FILE *err, const struct index_stats *s)
{
	char size[32];

	fprintf(err, "indexed %zu job%s: %zu file%s", s->jobs,
	    s->jobs == 1 ? "" : "s", s->files, s->files == 1 ? "" : "s");
	if (s->indexed == 0 && s->failed == 0 && s->skipped > 0)
		fprintf(err, ", %sunchanged", s->skipped == 1 ? "" :
		    "all ");
	else {
		fprintf(err, " (%zu read, %zu unchanged, %zu failed",
		    s->indexed, s->skipped, s->failed);
		if (s->partial > 0)
			fprintf(err, ", %zu partly read", s->partial);
		fprintf(err, "), %llu line%s, %s", (unsigned long long)
		    s->lines, s->lines == 1 ? "" : "s", ts_human_size(s->text,
		    size, sizeof size));
		if (s->text > s->bytes + s->bytes / 100)  /* gzip inflated */
			fprintf(err, " of text (%s on disk)", ts_human_size(
			    s->bytes, size, sizeof size));
		fprintf(err, " in %.2f s", s->seconds);
		if (s->seconds > 0.01)
			fprintf(err, " (%s/s)", ts_human_size((uint64_t)
			    (s->text / s->seconds), size, sizeof size));
	}
	fprintf(err, ", %u template%s", s->templates, s->templates == 1 ?
	    "" : "s");
	if (s->names != NULL) {
		fputs(s->jobs == 1 ? "; job " : "; jobs ", err);
		canvas_fput(err, s->names);
	}
	fputc('\n', err);
}

int
cmd_index(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	struct index_opts o;
	struct index_stats st;
	struct cache *c;
	const char **logs = NULL;
	long threads, chunk, commit;
	int rc = CMD_FAIL;

	memset(&o, 0, sizeof o);
	o.job_name = cmd_opt(a, "job");
	o.map_path = cmd_opt(a, "map");
	o.hostfile = cmd_opt(a, "hostfile");
	o.err = ctx->err;
	o.cmd = a->name;
	o.progress = ctx->progress;
	if (o.job_name != NULL && *o.job_name == '\0') {
		ts_fail(cause, "--job needs a name");
		return CMD_USAGE;
	}
	if (cmd_opt_long(a, "threads", ctx->threads, 0, 64, &threads,
	    cause) != 0)
		return CMD_USAGE;
	o.threads = (int)threads;
	if (cmd_opt_long(a, "chunk", 0, 0, LONG_MAX, &chunk, cause) != 0)
		return CMD_USAGE;
	/* tiny ranges cost more to hand over than to read */
	if (chunk > 0 && chunk < 1024) {
		ts_fail(cause, "index: --chunk wants at least 1024 bytes (or 0 "
		    "for the default), not %ld", chunk);
		return CMD_USAGE;
	}
	o.chunk = (uint64_t)chunk;
	if (cmd_opt_long(a, "commit", 2, 0, 3600, &commit, cause) != 0)
		return CMD_USAGE;
	o.commit_secs = commit > 0 ? (double)commit : -1;
	if (cmd_ctx_cache(ctx, &c, cause) != 0)
		return CMD_FAIL;
	o.nlogs = cmd_opt_all(a, "log", &logs);
	o.logs = (char *const *)logs;
	if (index_run(c, a->argv, (size_t)a->argc, &o, &st, cause) != 0) {
		free(st.names);
		free(st.empty);
		goto out;
	}
	if (st.jobs > 0 && !ctx->quiet)
		print_stats(ctx->err, &st);
	free(st.names);
	if (st.nempty > 0) {
		ts_fail(cause, "no log files in '%s'%s", st.empty, st.nempty > 1 ?
		    " (nor in other directories given)" : "");
		free(st.empty);
		goto out;
	}
	rc = CMD_OK;
out:
	free(logs);
	return rc;
}

enum fmt { FMT_TEXT, FMT_TSV, FMT_JSON };

struct listing {
	FILE *out;
	enum fmt fmt;
	struct json j;
	char *job;		/* the job of the previous row */
};

/* TSV fields: a template made inert (tabs become spaces, ESC ^[). */
static void
tsv_text(FILE *out, const char *s)
{
	canvas_fput(out, s);
}

static int
row_cb(void *arg, const struct logdb_tmpl_row *r, char **cause)
{
	struct listing *l = arg;
	int newjob = l->job == NULL || strcmp(l->job, r->job) != 0;

	(void)cause;
	if (newjob) {
		free(l->job);
		l->job = xstrdup(r->job);
	}
	switch (l->fmt) {
	case FMT_TEXT:
		if (newjob) {
			fputs("job ", l->out);
			canvas_fput(l->out, r->job);
			fprintf(l->out, "\n%10s %6s %5s  %s\n", "count", "id",
			    "nodes", "template");
		}
		fprintf(l->out, "%10llu %6u %5lld  ",
		    (unsigned long long)r->count, r->id, (long long)r->nodes);
		canvas_fput(l->out, r->text);
		fputc('\n', l->out);
		break;
	case FMT_TSV:
		tsv_text(l->out, r->job);
		fprintf(l->out, "\t%u\t%llu\t%lld\t%lld\t", r->id,
		    (unsigned long long)r->count, (long long)r->nodes,
		    (long long)r->files);
		tsv_text(l->out, r->text);
		fputc('\n', l->out);
		break;
	case FMT_JSON:
		json_obj_begin(&l->j);
		json_key(&l->j, "job");
		json_str(&l->j, r->job);
		json_key(&l->j, "id");
		json_int(&l->j, r->id);
		json_key(&l->j, "count");
		json_int(&l->j, (int64_t)r->count);
		json_key(&l->j, "nodes");
		json_int(&l->j, r->nodes);
		json_key(&l->j, "files");
		json_int(&l->j, r->files);
		json_key(&l->j, "template");
		json_str(&l->j, r->text);
		json_obj_end(&l->j);
		break;
	}
	return 0;
}

/* The templates of job `name` (every job when NULL) to the listing. */
static int
list_templates(struct cache *c, struct logdb *db, const char *name,
    struct listing *l, char **cause)
{
	struct job_ref job;
	int rc;

	if (name == NULL)
		return logdb_job_templates(db, NULL, row_cb, l, cause);
	if ((rc = jobdb_find(c, name, &job, cause)) <= 0)
		return rc < 0 ? -1 : ts_fail(cause, "no job '%s' in the cache",
		    name);
	rc = logdb_job_templates(db, &job, row_cb, l, cause);
	jobdb_release(&job);
	return rc;
}

int
cmd_templates(struct cmd_ctx *ctx, struct cmd_args *a, char **cause)
{
	const char *f = cmd_opt(a, "format");
	struct listing l;
	struct logdb *db;
	struct cache *c;
	int rc;

	memset(&l, 0, sizeof l);
	l.out = ctx->out;
	if (f == NULL || strcmp(f, "text") == 0)
		l.fmt = FMT_TEXT;
	else if (strcmp(f, "tsv") == 0)
		l.fmt = FMT_TSV;
	else if (strcmp(f, "json") == 0)
		l.fmt = FMT_JSON;
	else {
		ts_fail(cause, "unknown format '%s' (text, tsv or json)", f);
		return CMD_USAGE;
	}
	if (cmd_ctx_cache(ctx, &c, cause) != 0 ||
	    logdb_open(c, &db, cause) != 0)
		return CMD_FAIL;
	if (l.fmt == FMT_JSON) {
		json_init(&l.j, ctx->out, 0);
		json_obj_begin(&l.j);
		json_key(&l.j, "schema");
		json_int(&l.j, JSON_SCHEMA);
		json_key(&l.j, "templates");
		json_arr_begin(&l.j);
	} else if (l.fmt == FMT_TSV)
		fputs("job\tid\tcount\tnodes\tfiles\ttemplate\n", ctx->out);
	rc = list_templates(c, db, a->argc > 0 ? a->argv[0] : NULL, &l, cause);
	if (l.fmt == FMT_JSON) {
		json_arr_end(&l.j);
		json_obj_end(&l.j);
		json_finish(&l.j);
	}
	free(l.job);
	logdb_free(db);
	return rc == 0 ? CMD_OK : CMD_FAIL;
}
