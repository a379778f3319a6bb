/*
 * linedb.c -- the merged log's and the search's queries (see linedb.h).
 *
 * Statements are prepared once in linedb_open() and reset after each use.
 * NULL times travel as NaN on the C side.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/util.h"
#include "db/cache.h"
#include "db/linedb.h"

enum { S_FILES, S_CP_AT, S_CP_NEXT, S_CP_LT, S_CP_LE, S_COUNT };

static const char *const sql[S_COUNT] = {
	[S_FILES] = "SELECT f.id, f.path, coalesce(n.name, ''), f.rank, "
	    "f.kind, f.gz, f.size, f.mtime, f.lines, f.ts_kind, f.first_ts, "
	    "f.last_ts FROM files f LEFT JOIN nodes n ON n.id = f.node_id "
	    "WHERE f.job_id = ?1",
	[S_CP_AT] = "SELECT line, off, ts FROM checkpoints WHERE file_id = ?1 "
	    "AND line <= ?2 ORDER BY line DESC LIMIT 1",
	[S_CP_NEXT] = "SELECT line, off, ts FROM checkpoints WHERE file_id = ?1 "
	    "AND line > ?2 ORDER BY line LIMIT 1",
	[S_CP_LT] = "SELECT line, off, ts FROM checkpoints WHERE file_id = ?1 "
	    "AND coalesce(ts, ?3) < ?2 ORDER BY line DESC LIMIT 1",
	[S_CP_LE] = "SELECT line, off, ts FROM checkpoints WHERE file_id = ?1 "
	    "AND coalesce(ts, ?3) <= ?2 ORDER BY line DESC LIMIT 1",
};

struct linedb {
	struct cache *cache;
	sqlite3_stmt *st[S_COUNT];
};

int
linedb_open(struct cache *c, struct linedb **out, char **cause)
{
	struct linedb *db = xcalloc(1, sizeof *db);
	int i;

	db->cache = c;
	for (i = 0; i < S_COUNT; i++)
		if (sqlite3_prepare_v2(cache_db(c), sql[i], -1, &db->st[i],
		    NULL) != SQLITE_OK) {
			cache_fail(c, "cannot read the cache", cause);
			linedb_free(db);
			return -1;
		}
	*out = db;
	return 0;
}

void
linedb_free(struct linedb *db)
{
	int i;

	if (db == NULL)
		return;
	for (i = 0; i < S_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	free(db);
}

static double
real_or_nan(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	    sqlite3_column_double(st, i);
}

static const char *
text_or_empty(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s != NULL ? s : "";
}

static void
file_row(sqlite3_stmt *s, struct linedb_file *f)
{
	f->id = sqlite3_column_int64(s, 0);
	f->path = xstrdup(text_or_empty(s, 1));
	f->node = xstrdup(text_or_empty(s, 2));
	f->rank = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(s, 3);
	f->host = strcmp(text_or_empty(s, 4), "host") == 0;
	f->gz = sqlite3_column_int(s, 5);
	f->size = (uint64_t)sqlite3_column_int64(s, 6);
	f->mtime = sqlite3_column_double(s, 7);
	f->lines = (uint64_t)sqlite3_column_int64(s, 8);
	f->ts_kind = sqlite3_column_int(s, 9);
	f->first_ts = real_or_nan(s, 10);
	f->last_ts = real_or_nan(s, 11);
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct linedb_file *)a)->path,
	    ((const struct linedb_file *)b)->path);
}

int
linedb_files(struct linedb *db, int64_t job, struct linedb_file **files,
    size_t *n, char **cause)
{
	sqlite3_stmt *s = db->st[S_FILES];
	size_t cap = 0;
	int rc;

	*files = NULL;
	*n = 0;
	sqlite3_bind_int64(s, 1, job);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*files = xgrow(*files, &cap, *n + 1, sizeof **files);
		file_row(s, &(*files)[(*n)++]);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		linedb_free_files(*files, *n);
		*files = NULL;
		*n = 0;
		return cache_fail(db->cache, "cannot read the files", cause);
	}
	qsort(*files, *n, sizeof **files, cmp_path);
	return 0;
}

void
linedb_free_files(struct linedb_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(files[i].path);
		free(files[i].node);
	}
	free(files);
}

/* Step s for one checkpoint: 1 with *cp, 0 none, -1 with *cause. */
static int
one_cp(struct linedb *db, sqlite3_stmt *s, struct linedb_cp *cp,
    char **cause)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW) {
		cp->line = (uint64_t)sqlite3_column_int64(s, 0);
		cp->off = (uint64_t)sqlite3_column_int64(s, 1);
		cp->ts = real_or_nan(s, 2);
	}
	sqlite3_reset(s);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return cache_fail(db->cache, "cannot read the checkpoints", cause);
}

int
linedb_cp_at(struct linedb *db, int64_t file, uint64_t line,
    struct linedb_cp *at, struct linedb_cp *next, char **cause)
{
	sqlite3_stmt *s = db->st[S_CP_AT];
	int rc;

	memset(next, 0, sizeof *next);
	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)line);
	if ((rc = one_cp(db, s, at, cause)) != 1)
		return rc;
	s = db->st[S_CP_NEXT];
	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)line);
	if (one_cp(db, s, next, cause) < 0)
		return -1;
	return 1;
}

int
linedb_cp_before(struct linedb *db, int64_t file, double t, double none,
    int or_equal, struct linedb_cp *at, char **cause)
{
	sqlite3_stmt *s = db->st[or_equal ? S_CP_LE : S_CP_LT];

	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_double(s, 2, t);
	if (isnan(none))
		sqlite3_bind_null(s, 3);
	else
		sqlite3_bind_double(s, 3, none);
	return one_cp(db, s, at, cause);
}
