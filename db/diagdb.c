/*
 * diagdb.c -- the diagnosis's queries: rows in, rows out.
 *
 * Each walk prepares one statement, steps it and hands every row to a
 * callback with borrowed columns.  The stored results (table `results`,
 * schema 3) are opaque blobs under a key the core computes from
 * diagdb_stamp(): this file never looks inside them.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/diagdb.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "base/util.h"

static int
prep(struct cache *c, const char *q, sqlite3_stmt **st, char **cause)
{
	if (sqlite3_prepare_v2(cache_db(c), q, -1, st, NULL) != SQLITE_OK)
		return cache_fail(c, "cannot read the job", cause);
	return 0;
}

static double
col_ts(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	    sqlite3_column_double(st, i);
}

static const char *
col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s != NULL ? s : "";
}

/*
 * Step a prepared walk to its end; a nonzero callback result stops it.
 * `row` calls the callback for the current row.
 */
static int
walk_rows(struct cache *c, sqlite3_stmt *st, int (*row)(sqlite3_stmt *,
    void *, void *), void *fn, void *arg, const char *what, char **cause)
{
	int rc, stop = 0;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if ((stop = row(st, fn, arg)) != 0)
			break;
	if (stop == 0 && rc != SQLITE_DONE) {
		cache_fail(c, what, cause);
		stop = -1;
	}
	return stop;
}

static int
walk(struct cache *c, sqlite3_stmt *st, int (*row)(sqlite3_stmt *, void *,
    void *), void *fn, void *arg, const char *what, char **cause)
{
	int stop = walk_rows(c, st, row, fn, arg, what, cause);

	sqlite3_finalize(st);
	return stop;
}

/* walk() over a kept statement (cache_prepare_kept()): reset, not freed. */
static int
walk_kept(struct cache *c, sqlite3_stmt *st, int (*row)(sqlite3_stmt *,
    void *, void *), void *fn, void *arg, const char *what, char **cause)
{
	int stop = walk_rows(c, st, row, fn, arg, what, cause);

	sqlite3_reset(st);
	return stop;
}

static int
node_row(sqlite3_stmt *st, void *fn, void *arg)
{
	int (*f)(void *, int64_t, const char *) = (int (*)(void *, int64_t,
	    const char *))fn;

	return f(arg, sqlite3_column_int64(st, 0), col_text(st, 1));
}

int
diagdb_each_node(struct cache *c, int64_t job,
    int (*fn)(void *arg, int64_t id, const char *name), void *arg,
    char **cause)
{
	sqlite3_stmt *st;

	if (prep(c, "SELECT id, name FROM nodes WHERE job_id = ?1 ORDER BY "
	    "name", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	return walk(c, st, node_row, (void *)fn, arg, "cannot read nodes",
	    cause);
}

static int
file_row(sqlite3_stmt *st, void *fn, void *arg)
{
	int (*f)(void *, const struct diagdb_file *) = (int (*)(void *,
	    const struct diagdb_file *))fn;
	struct diagdb_file df;

	df.id = sqlite3_column_int64(st, 0);
	df.path = col_text(st, 1);
	df.node = sqlite3_column_type(st, 2) == SQLITE_NULL ? 0 :
	    sqlite3_column_int64(st, 2);
	df.lines = (uint64_t)sqlite3_column_int64(st, 3);
	df.last_ts = col_ts(st, 4);
	return f(arg, &df);
}

int
diagdb_each_log_file(struct cache *c, int64_t job,
    int (*fn)(void *arg, const struct diagdb_file *f), void *arg,
    char **cause)
{
	sqlite3_stmt *st;

	if (prep(c, "SELECT id, path, node_id, lines, last_ts FROM files "
	    "WHERE job_id = ?1 ORDER BY path", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	return walk(c, st, file_row, (void *)fn, arg, "cannot read files",
	    cause);
}

/* diagdb_each_row()'s walk: the caller's, and the templates told. */
struct rows_at {
	struct cache *c;
	int (*fn)(void *arg, const struct diagdb_row *r);
	void *arg;
	unsigned char *told;	/* template id -> its text was given */
	size_t ntold;
	char **cause;
};

/* The text of template id (NULL none), borrowed until the next call. */
static int
text_of(struct rows_at *ra, uint32_t id, const char **text)
{
	static const char sql[] = "SELECT text FROM templates WHERE id = ?1";
	sqlite3_stmt *st;
	int rc;

	*text = NULL;
	if (cache_prepare_kept(ra->c, sql, &st, ra->cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*text = (const char *)sqlite3_column_text(st, 0);
	else if (rc != SQLITE_DONE)
		return cache_fail(ra->c, "cannot read templates", ra->cause);
	return 0;
}

static int
ft_row(sqlite3_stmt *st, void *fn, void *arg)
{
	struct rows_at *ra = arg;
	struct diagdb_row r;
	size_t old;

	(void)fn;
	r.file = sqlite3_column_int64(st, 0);
	r.tmpl = (uint32_t)sqlite3_column_int64(st, 1);
	r.count = (uint64_t)sqlite3_column_int64(st, 2);
	r.first_line = (uint64_t)sqlite3_column_int64(st, 3);
	r.first_off = (uint64_t)sqlite3_column_int64(st, 4);
	r.first_ts = col_ts(st, 5);
	r.last_line = (uint64_t)sqlite3_column_int64(st, 6);
	r.last_off = (uint64_t)sqlite3_column_int64(st, 7);
	r.last_ts = col_ts(st, 10);
	r.text = NULL;
	/* a template's text once: a join gave it on every row */
	if (r.tmpl >= ra->ntold) {
		old = ra->ntold;
		ra->told = xgrow(ra->told, &ra->ntold, (size_t)r.tmpl + 1, 1);
		memset(ra->told + old, 0, ra->ntold - old);
	}
	if (!ra->told[r.tmpl]) {
		ra->told[r.tmpl] = 1;
		if (text_of(ra, r.tmpl, &r.text) != 0)
			return -1;
	}
	return ra->fn(ra->arg, &r);
}

static int read_ids(struct cache *c, const char *q, int64_t job,
    int64_t **ids, size_t *n, const char *what, char **cause);

/*
 * File by file: one query over the job's rows sorted them all (half a
 * million rows of 10 240 files: a third of the diagnosis), where each
 * file's come by template id from the (file_id, template_id) index.
 */
int
diagdb_each_row(struct cache *c, int64_t job,
    int (*fn)(void *arg, const struct diagdb_row *r), void *arg,
    char **cause)
{
	static const char rows_sql[] = "SELECT file_id, template_id, count, "
	    "first_line, first_off, first_ts, last_line, last_off, NULL, "
	    "NULL, last_ts FROM file_templates WHERE file_id = ?1 "
	    "ORDER BY template_id";
	struct rows_at ra = { c, fn, arg, NULL, 0, cause };
	sqlite3_stmt *st;
	int64_t *ids;
	size_t i, n;
	int rc;

	rc = read_ids(c, "SELECT id FROM files WHERE job_id = ?1 ORDER BY id",
	    job, &ids, &n, "cannot read templates", cause);
	for (i = 0; rc == 0 && i < n; i++) {
		if ((rc = cache_prepare_kept(c, rows_sql, &st, cause)) != 0)
			break;
		sqlite3_bind_int64(st, 1, ids[i]);
		rc = walk_kept(c, st, ft_row, NULL, &ra, "cannot read templates",
		    cause);
	}
	free(ids);
	free(ra.told);
	return rc;
}

static int
lines_row(sqlite3_stmt *st, void *fn, void *arg)
{
	int (*f)(void *, uint32_t, const unsigned char *, size_t) =
	    (int (*)(void *, uint32_t, const unsigned char *, size_t))fn;
	int n = sqlite3_column_bytes(st, 1);

	return f(arg, (uint32_t)sqlite3_column_int64(st, 0),
	    sqlite3_column_blob(st, 1), n > 0 ? (size_t)n : 0);
}

int
diagdb_file_lines(struct cache *c, int64_t file,
    int (*fn)(void *arg, uint32_t tmpl, const unsigned char *lines,
    size_t len), void *arg, char **cause)
{
	static const char sql[] = "SELECT template_id, lines FROM "
	    "file_templates WHERE file_id = ?1 ORDER BY template_id";
	sqlite3_stmt *st;

	/* prepared once: a job of 10 240 files reads as many */
	if (cache_prepare_kept(c, sql, &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, file);
	return walk_kept(c, st, lines_row, (void *)fn, arg, "cannot read line "
	    "numbers", cause);
}

static int
rank_row(sqlite3_stmt *st, void *fn, void *arg)
{
	int (*f)(void *, long, int64_t) = (int (*)(void *, long, int64_t))fn;

	return f(arg, (long)sqlite3_column_int64(st, 0),
	    sqlite3_column_int64(st, 1));
}

int
diagdb_each_rank(struct cache *c, int64_t job,
    int (*fn)(void *arg, long rank, int64_t node), void *arg, char **cause)
{
	sqlite3_stmt *st;

	if (prep(c, "SELECT rank, node_id FROM ranks WHERE job_id = ?1 AND "
	    "node_id IS NOT NULL", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	return walk(c, st, rank_row, (void *)fn, arg, "cannot read ranks",
	    cause);
}

/*
 * The ids query q (one column, ?1 = job) gives, in *ids[0..*n); the
 * caller frees *ids.  0, or -1 with *cause saying it could not read `what`.
 */
static int
read_ids(struct cache *c, const char *q, int64_t job, int64_t **ids,
    size_t *n, const char *what, char **cause)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (prep(c, q, &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = xgrow(*ids, &cap, *n + 1, sizeof **ids);
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	free(*ids);
	*ids = NULL;
	*n = 0;
	return cache_fail(c, what, cause);
}

int
diagdb_pool(struct cache *c, int64_t job, int64_t **ids, size_t *n,
    char **cause)
{
	/* 'healthy': what caches of older builds stored for 'completed' */
	return read_ids(c, "SELECT id FROM jobs WHERE id != ?1 AND indexed IS "
	    "NOT NULL AND (marked = 'good' OR (outcome IN ('completed', "
	    "'healthy') AND marked IS NULL) OR id IN (SELECT run_id FROM "
	    "baselines WHERE job_id = ?1)) ORDER BY id", job, ids, n,
	    "cannot read the healthy jobs", cause);
}

/* A count of job `job`'s rows: "SELECT count(...) ... ?1". */
static long
count_of(struct cache *c, const char *q, int64_t job, char **cause)
{
	sqlite3_stmt *st;
	long n = -1;

	if (prep(c, q, &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (n < 0)
		cache_fail(c, "cannot read the job's shape", cause);
	return n;
}

int
diagdb_job_shape(struct cache *c, int64_t job, struct diagdb_shape *out,
    char **cause)
{
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof *out);
	if (prep(c, "SELECT j.name, j.root, (SELECT path FROM files WHERE "
	    "job_id = ?1 AND kind = 'log' ORDER BY rank IS NULL, rank, path "
	    "LIMIT 1) FROM jobs j WHERE j.id = ?1", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		out->name = xstrdup(col_text(st, 0));
		out->root = xstrdup(col_text(st, 1));
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			out->log = xstrdup(col_text(st, 2));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return cache_fail(c, "cannot read the job's shape", cause);
	out->nodes = count_of(c, "SELECT count(*) FROM nodes WHERE job_id = ?1",
	    job, cause);
	out->ranks = count_of(c, "SELECT max((SELECT count(*) FROM ranks WHERE "
	    "job_id = ?1), (SELECT count(*) FROM files WHERE job_id = ?1 AND "
	    "rank IS NOT NULL))", job, cause);
	if (out->nodes < 0 || out->ranks < 0) {
		diagdb_shape_release(out);
		return -1;
	}
	return 0;
}

void
diagdb_shape_release(struct diagdb_shape *s)
{
	free(s->name);
	free(s->root);
	free(s->log);
	memset(s, 0, sizeof *s);
}

/* The runs named healthy for job `job` (mark RUN good --for JOB). */
int
diagdb_named(struct cache *c, int64_t job, int64_t **ids, size_t *n,
    char **cause)
{
	return read_ids(c, "SELECT run_id FROM baselines WHERE job_id = ?1 "
	    "ORDER BY run_id", job, ids, n, "cannot read the job's baselines",
	    cause);
}

/* Run a statement on one or two job ids (?1, ?2): 0, or -1 with *cause. */
static int
exec_ids(struct cache *c, const char *q, int64_t a, int64_t b,
    const char *what, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prep(c, q, &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) > 1)
		sqlite3_bind_int64(st, 2, b);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, what, cause);
}

int
diagdb_mark_for(struct cache *c, int64_t run, int64_t job, char **cause)
{
	return exec_ids(c, "INSERT OR IGNORE INTO baselines (job_id, run_id) "
	    "VALUES (?2, ?1)", run, job, "cannot name the baseline", cause);
}

int
diagdb_unmark_for(struct cache *c, int64_t run, char **cause)
{
	return exec_ids(c, "DELETE FROM baselines WHERE run_id = ?1", run,
	    0, "cannot forget the baselines", cause);
}

static int
sum_row(sqlite3_stmt *st, void *fn, void *arg)
{
	int (*f)(void *, uint32_t, uint64_t) = (int (*)(void *, uint32_t,
	    uint64_t))fn;

	return f(arg, (uint32_t)sqlite3_column_int64(st, 0),
	    (uint64_t)sqlite3_column_int64(st, 1));
}

static int
span_row(sqlite3_stmt *st, void *fn, void *arg)
{
	(void)fn;
	if (sqlite3_column_type(st, 0) != SQLITE_NULL)
		*(double *)arg = sqlite3_column_double(st, 0);
	return 0;
}

int
diagdb_job_span(struct cache *c, int64_t job, int ts_kind, double *secs,
    char **cause)
{
	sqlite3_stmt *st;

	*secs = 0;
	if (prep(c, "SELECT max(last_ts) - min(first_ts) FROM files WHERE "
	    "job_id = ?1 AND ts_kind = ?2 AND first_ts IS NOT NULL AND "
	    "last_ts IS NOT NULL", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_int(st, 2, ts_kind);
	return walk(c, st, span_row, NULL, secs, "cannot read the job's times",
	    cause);
}

int
diagdb_template_sums(struct cache *c, int64_t h, double *nodes,
    int (*fn)(void *arg, uint32_t tmpl, uint64_t count), void *arg,
    char **cause)
{
	sqlite3_stmt *st;

	*nodes = 1;
	if (prep(c, "SELECT count(DISTINCT coalesce(node_id, -id)) FROM files "
	    "WHERE job_id = ?1", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, h);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
		*nodes = (double)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (prep(c, "SELECT ft.template_id, sum(ft.count) FROM file_templates "
	    "ft JOIN files f ON f.id = ft.file_id WHERE f.job_id = ?1 "
	    "GROUP BY ft.template_id", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, h);
	return walk(c, st, sum_row, (void *)fn, arg, "cannot read the healthy "
	    "jobs", cause);
}

static int
store_tags(struct cache *c, int64_t job, const struct diagdb_tag *tags,
    size_t ntags, char **cause)
{
	sqlite3_stmt *st;
	size_t t;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(cache_db(c), "UPDATE node_templates SET stage = "
	    "?1, iteration_first = ?2 WHERE job_id = ?3 AND template_id = ?4 "
	    "AND first_file = (SELECT id FROM files WHERE job_id = ?3 AND "
	    "path = ?5) AND first_line = ?6", -1, &st, NULL) != SQLITE_OK)
		return cache_fail(c, "cannot store stages", cause);
	for (t = 0; t < ntags && rc == SQLITE_DONE; t++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, tags[t].stage, -1, SQLITE_STATIC);
		if (tags[t].iteration >= 0)
			sqlite3_bind_int64(st, 2, tags[t].iteration);
		else
			sqlite3_bind_null(st, 2);
		sqlite3_bind_int64(st, 3, job);
		sqlite3_bind_int64(st, 4, tags[t].tmpl);
		sqlite3_bind_text(st, 5, tags[t].path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 6, tags[t].line);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot store stages",
	    cause);
}

int
diagdb_store(struct cache *c, int64_t job, const char *outcome,
    const struct diagdb_tag *tags, size_t ntags, char **cause)
{
	if (cache_begin(c, cause) != 0)
		return -1;
	if (jobdb_set_outcome(c, job, outcome, cause) != 0 ||
	    store_tags(c, job, tags, ntags, cause) != 0) {
		cache_rollback(c);
		return -1;
	}
	return cache_commit(c, cause);
}

int
diagdb_line_template(struct cache *c, const char *job, const char *path,
    uint64_t line, uint32_t *id, char **cause)
{
	sqlite3_stmt *st;
	const unsigned char *p, *end;
	uint64_t v, at;
	int found = 0;

	if (sqlite3_prepare_v2(cache_db(c), "SELECT ft.template_id, ft.lines "
	    "FROM file_templates ft JOIN files f ON f.id = ft.file_id JOIN jobs "
	    "j ON j.id = f.job_id WHERE j.name = ?1 AND f.path = ?2 AND "
	    "ft.first_line <= ?3 AND ft.last_line >= ?3", -1, &st, NULL) !=
	    SQLITE_OK)
		return cache_fail(c, "cannot read templates", cause);
	sqlite3_bind_text(st, 1, job, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)line);
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		p = sqlite3_column_blob(st, 1);
		end = p + sqlite3_column_bytes(st, 1);
		at = 0;
		while (p != NULL && p < end && logdb_varint_get(&p, end, &v) == 0 &&
		    (at += v) <= line)
			if (at == line) {
				*id = (uint32_t)sqlite3_column_int64(st, 0);
				found = 1;
				break;
			}
	}
	sqlite3_finalize(st);
	return found ? 1 : 0;
}

/* Append every column of every row of a query, '|' and '\n' separated. */
static int
stamp_query(struct cache *c, const char *q, int64_t id, struct buf *out,
    char **cause)
{
	sqlite3_stmt *st;
	int rc, i, n;

	if (prep(c, q, &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = sqlite3_column_count(st);
		for (i = 0; i < n; i++) {
			const char *s = (const char *)sqlite3_column_text(st, i);

			buf_adds(out, s != NULL ? s : "-");
			buf_addc(out, i + 1 < n ? '|' : '\n');
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot read the job",
	    cause);
}

int
diagdb_stamp(struct cache *c, int64_t job, struct buf *out, char **cause)
{
	int64_t *pool = NULL;
	size_t npool, i;
	int rc = -1;

	buf_addf(out, "job %lld\n", (long long)job);
	if (stamp_query(c, "SELECT name, root, marked FROM jobs WHERE id = ?1",
	    job, out, cause) != 0 ||
	    stamp_query(c, "SELECT path, size, mtime, inode, bytes, lines, "
	    "partial, node_id, rank, kind FROM files WHERE job_id = ?1 ORDER BY "
	    "path", job, out, cause) != 0 ||
	    stamp_query(c, "SELECT rank, node_id FROM ranks WHERE job_id = ?1 "
	    "ORDER BY rank", job, out, cause) != 0 ||
	    stamp_query(c, "SELECT path, size, mtime FROM captures WHERE "
	    "job_id = ?1 ORDER BY path", job, out, cause) != 0 ||
	    stamp_query(c, "SELECT value FROM meta WHERE key = "
	    "'index-pending:' || ?1", job, out, cause) != 0 ||
	    stamp_query(c, "SELECT run_id FROM baselines WHERE job_id = ?1 "
	    "ORDER BY run_id", job, out, cause) != 0 ||
	    diagdb_pool(c, job, &pool, &npool, cause) != 0)
		goto out;
	for (i = 0; i < npool; i++) {
		buf_addf(out, "pool %lld\n", (long long)pool[i]);
		if (stamp_query(c, "SELECT count(*), sum(bytes), sum(lines), "
		    "max(mtime) FROM files WHERE job_id = ?1", pool[i], out,
		    cause) != 0)
			goto out;
	}
	rc = 0;
out:
	free(pool);
	return rc;
}

int
diagdb_result_get(struct cache *c, int64_t job, const char *key,
    void **blob, size_t *len, char **cause)
{
	sqlite3_stmt *st;
	int rc, n;

	*blob = NULL;
	*len = 0;
	if (prep(c, "SELECT model FROM results WHERE job_id = ?1 AND key = ?2",
	    &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		n = sqlite3_column_bytes(st, 0);
		*len = n > 0 ? (size_t)n : 0;
		*blob = xmalloc(*len + 1);
		if (n > 0)
			memcpy(*blob, sqlite3_column_blob(st, 0), *len);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return cache_fail(c, "cannot read stored results", cause);
}

int
diagdb_result_put(struct cache *c, int64_t job, const char *key,
    const void *blob, size_t len, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prep(c, "INSERT OR REPLACE INTO results (job_id, key, created, "
	    "model) VALUES (?1, ?2, ?3, ?4)", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 3, (double)time(NULL));
	sqlite3_bind_blob(st, 4, blob, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, "cannot store results",
	    cause);
}
