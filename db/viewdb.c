/*
 * viewdb.c -- the views' queries on the cache (see viewdb.h).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/logdb.h"
#include "base/util.h"
#include "db/viewdb.h"

static int
prep(struct cache *c, const char *q, sqlite3_stmt **st, char **cause)
{
	if (sqlite3_prepare_v2(cache_db(c), q, -1, st, NULL) != SQLITE_OK)
		return cache_fail(c, "cannot read the cache", cause);
	return 0;
}

static const char *
text_or_empty(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s != NULL ? s : "";
}

static double
real_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	    sqlite3_column_double(st, i);
}

int
viewdb_each_job(struct cache *c,
    int (*fn)(void *arg, const struct viewdb_job *j), void *arg,
    char **cause)
{
	sqlite3_stmt *st;
	struct viewdb_job j;
	int rc, stop = 0;

	if (prep(c, "SELECT j.name, j.root, j.outcome, j.marked, j.indexed, "
	    "(SELECT count(*) FROM files f WHERE f.job_id = j.id), "
	    "(SELECT coalesce(sum(size), 0) FROM files f WHERE f.job_id = j.id), "
	    "(SELECT coalesce(sum(lines), 0) FROM files f WHERE f.job_id = j.id), "
	    "(SELECT count(*) FROM nodes n WHERE n.job_id = j.id) "
	    "FROM jobs j ORDER BY j.name", &st, cause) != 0)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		j.name = text_or_empty(st, 0);
		j.root = text_or_empty(st, 1);
		j.outcome = text_or_empty(st, 2);
		j.marked = text_or_empty(st, 3);
		j.indexed = real_or_nan(st, 4);
		j.files = sqlite3_column_int64(st, 5);
		j.bytes = sqlite3_column_int64(st, 6);
		j.lines = sqlite3_column_int64(st, 7);
		j.nodes = sqlite3_column_int64(st, 8);
		if ((stop = fn(arg, &j)) != 0)
			break;
	}
	if (stop == 0 && rc != SQLITE_DONE)
		stop = cache_fail(c, "cannot read the jobs", cause);
	sqlite3_finalize(st);
	return stop;
}

int
viewdb_event_files(struct cache *c, const char *job, uint32_t tmpl,
    int (*fn)(void *arg, const struct viewdb_occ *o), void *arg,
    char **cause)
{
	sqlite3_stmt *st;
	struct viewdb_occ o;
	int rc, stop = 0;

	if (prep(c, "SELECT f.id, f.path, coalesce(n.name, ''), ft.lines, "
	    "ft.first_ts, f.lines FROM jobs j JOIN files f ON f.job_id = j.id "
	    "JOIN file_templates ft ON ft.file_id = f.id "
	    "LEFT JOIN nodes n ON n.id = f.node_id "
	    "WHERE j.name = ?1 AND ft.template_id = ?2 "
	    "ORDER BY ft.first_ts IS NULL, ft.first_ts, f.path", &st,
	    cause) != 0)
		return -1;
	sqlite3_bind_text(st, 1, job, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)tmpl);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *p = sqlite3_column_blob(st, 3);
		const unsigned char *end = p + sqlite3_column_bytes(st, 3);
		size_t cap = 0;
		uint64_t v, at = 0;

		memset(&o, 0, sizeof o);
		o.file = sqlite3_column_int64(st, 0);
		o.path = text_or_empty(st, 1);
		o.node = text_or_empty(st, 2);
		o.first_ts = real_or_nan(st, 4);
		o.file_lines = (uint64_t)sqlite3_column_int64(st, 5);
		while (p != NULL && p < end && logdb_varint_get(&p, end, &v) == 0) {
			at = o.nlines == 0 ? v : at + v;
			o.lines = xgrow(o.lines, &cap, o.nlines + 1,
			    sizeof *o.lines);
			o.lines[o.nlines++] = at;
		}
		stop = fn(arg, &o);
		free(o.lines);
		if (stop != 0)
			break;
	}
	if (stop == 0 && rc != SQLITE_DONE)
		stop = cache_fail(c, "cannot read the lines of an event", cause);
	sqlite3_finalize(st);
	return stop;
}

int
viewdb_file(struct cache *c, const char *job, const char *path,
    int64_t *id, int *gz, uint64_t *lines, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prep(c, "SELECT f.id, f.gz, f.lines FROM jobs j JOIN files f "
	    "ON f.job_id = j.id WHERE j.name = ?1 AND f.path = ?2", &st,
	    cause) != 0)
		return -1;
	sqlite3_bind_text(st, 1, job, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*gz = sqlite3_column_int(st, 1);
		*lines = (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return cache_fail(c, "cannot read the file", cause);
}

int
viewdb_checkpoint(struct cache *c, int64_t file, uint64_t line,
    uint64_t *at_line, uint64_t *off, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prep(c, "SELECT line, off FROM checkpoints WHERE file_id = ?1 "
	    "AND line <= ?2 ORDER BY line DESC LIMIT 1", &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, file);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)line);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*at_line = (uint64_t)sqlite3_column_int64(st, 0);
		*off = (uint64_t)sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return cache_fail(c, "cannot read the checkpoints", cause);
}

int
viewdb_file_disk(struct cache *c, int64_t file, struct viewdb_disk *d,
    char **cause)
{
	sqlite3_stmt *st;
	int rc;

	if (prep(c, "SELECT size, mtime, inode, gz FROM files WHERE id = ?1",
	    &st, cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, file);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		d->size = sqlite3_column_int64(st, 0);
		d->mtime = sqlite3_column_double(st, 1);
		d->inode = sqlite3_column_int64(st, 2);
		d->gz = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return cache_fail(c, "cannot read the file", cause);
}
