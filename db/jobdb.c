/*
 * jobdb.c -- the jobs table, and a job resolved once (see jobdb.h).
 *
 * A job is found by one query that matches its name or its root (the
 * name wins) and reads, with the row, the marker an unfinished index run
 * left in meta ('index-pending:ID'); its files rows come from db/logdb.c,
 * which owns the files table.  Refreshing reads the same by id and
 * compares, field by field, so a caller learns whether the cache holds
 * anything new about the job without reading any of it twice.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "db/cache.h"
#include "db/jobdb.h"
#include "db/logdb.h"
#include "base/util.h"

/* The columns every lookup reads, in the order ref_from_row() wants. */
#define JOB_COLUMNS "id, root, name, indexed, (SELECT CAST(value AS " \
	"INTEGER) FROM meta WHERE key = 'index-pending:' || jobs.id)"

static int
prep(struct cache *c, const char *sql, sqlite3_stmt **st, const char *what,
    char **cause)
{
	if (sqlite3_prepare_v2(cache_db(c), sql, -1, st, NULL) != SQLITE_OK)
		return cache_fail(c, what, cause);
	return 0;
}

static const char *
col_text(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return s != NULL ? s : "";
}

static void
ref_from_row(sqlite3_stmt *st, struct job_ref *ref)
{
	ref->id = sqlite3_column_int64(st, 0);
	ref->root = xstrdup(col_text(st, 1));
	ref->name = xstrdup(col_text(st, 2));
	ref->has_logs = sqlite3_column_type(st, 3) != SQLITE_NULL;
	ref->indexed = ref->has_logs ? sqlite3_column_double(st, 3) : NAN;
	ref->pending = (long)sqlite3_column_int64(st, 4);
}

/*
 * Step a prepared lookup once: 1 with *ref filled (row and files), 0 when
 * it gives no row, -1 with *cause.  Finalizes st.
 */
static int
ref_step(struct cache *c, sqlite3_stmt *st, struct job_ref *ref,
    char **cause)
{
	int rc;

	memset(ref, 0, sizeof *ref);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		ref_from_row(st, ref);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return cache_fail(c, "cannot read the job", cause);
	if (logdb_files_of(c, ref->id, &ref->files, &ref->nfiles,
	    cause) != 0) {
		jobdb_release(ref);
		return -1;
	}
	return 1;
}

int
jobdb_find(struct cache *c, const char *what, struct job_ref *ref,
    char **cause)
{
	sqlite3_stmt *st;
	char *abs = realpath(what, NULL);

	memset(ref, 0, sizeof *ref);
	if (prep(c, "SELECT " JOB_COLUMNS " FROM jobs WHERE name = ?1 OR "
	    "root = ?2 ORDER BY name = ?1 DESC LIMIT 1", &st,
	    "cannot read the job", cause) != 0) {
		free(abs);
		return -1;
	}
	sqlite3_bind_text(st, 1, what, -1, SQLITE_TRANSIENT);
	if (abs != NULL)
		sqlite3_bind_text(st, 2, abs, -1, SQLITE_TRANSIENT);
	free(abs);
	return ref_step(c, st, ref, cause);
}

/* The job of id: 1, 0 when there is none, -1. */
static int
find_id(struct cache *c, int64_t id, struct job_ref *ref, char **cause)
{
	sqlite3_stmt *st;

	memset(ref, 0, sizeof *ref);
	if (prep(c, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?1", &st,
	    "cannot read the job", cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	return ref_step(c, st, ref, cause);
}

static int
same_ts(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int
same_file(const struct logdb_file *a, const struct logdb_file *b)
{
	return a->id == b->id && strcmp(a->path, b->path) == 0 &&
	    a->node == b->node && a->rank == b->rank && a->kind == b->kind &&
	    a->gz == b->gz && a->size == b->size && a->mtime == b->mtime &&
	    a->inode == b->inode && a->bytes == b->bytes &&
	    a->lines == b->lines && a->partial == b->partial &&
	    a->ts_kind == b->ts_kind && same_ts(a->first_ts, b->first_ts) &&
	    same_ts(a->last_ts, b->last_ts);
}

static int
same_ref(const struct job_ref *a, const struct job_ref *b)
{
	size_t i;

	if (strcmp(a->name, b->name) != 0 || strcmp(a->root, b->root) != 0 ||
	    a->has_logs != b->has_logs || !same_ts(a->indexed, b->indexed) ||
	    a->pending != b->pending || a->nfiles != b->nfiles)
		return 0;
	for (i = 0; i < a->nfiles; i++)
		if (!same_file(&a->files[i], &b->files[i]))
			return 0;
	return 1;
}

int
jobdb_refresh(struct cache *c, struct job_ref *ref, char **cause)
{
	struct job_ref now;
	int rc;

	if ((rc = find_id(c, ref->id, &now, cause)) <= 0)
		return rc < 0 ? -1 : ts_fail(cause, "job '%s' is no longer in "
		    "the cache", ref->name);
	if (same_ref(ref, &now)) {
		jobdb_release(&now);
		return 0;
	}
	jobdb_release(ref);
	*ref = now;
	return 1;
}

void
jobdb_release(struct job_ref *ref)
{
	free(ref->name);
	free(ref->root);
	logdb_free_files(ref->files, ref->nfiles);
	memset(ref, 0, sizeof *ref);
}

/*
 * The id of the job called `name` in *id (0 when there is none) and, when
 * root is not NULL, its root (allocated; NULL when none).  0, or -1.
 */
static int
id_of(struct cache *c, const char *name, int64_t *id, char **root,
    char **cause)
{
	sqlite3_stmt *st;
	int rc;

	*id = 0;
	if (root != NULL)
		*root = NULL;
	if (prep(c, "SELECT id, root FROM jobs WHERE name = ?1", &st,
	    "cannot read jobs", cause) != 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		if (root != NULL)
			*root = xstrdup(col_text(st, 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(c, "cannot read jobs", cause);
	return 0;
}

/* Run a prepared write to its end and finalize it; 0 or -1. */
static int
run(struct cache *c, sqlite3_stmt *st, const char *what, char **cause)
{
	int rc = sqlite3_step(st);

	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : cache_fail(c, what, cause);
}

int
jobdb_index(struct cache *c, const char *name, const char *root,
    int64_t *id, char **cause)
{
	sqlite3_stmt *st;

	if (id_of(c, name, id, NULL, cause) != 0)
		return -1;
	if (prep(c, *id != 0 ? "UPDATE jobs SET root = ?2, indexed = ?3 "
	    "WHERE id = ?1" : "INSERT INTO jobs (name, root, created, "
	    "indexed) VALUES (?1, ?2, ?3, ?3)", &st, "cannot store job",
	    cause) != 0)
		return -1;
	if (*id != 0)
		sqlite3_bind_int64(st, 1, *id);
	else
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, root, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, (double)time(NULL));
	if (run(c, st, "cannot store job", cause) != 0)
		return -1;
	if (*id == 0)
		*id = sqlite3_last_insert_rowid(cache_db(c));
	return 0;
}

int
jobdb_index_state(struct cache *c, const char *name, int64_t *id,
    char **root, int *pending, char **cause)
{
	sqlite3_stmt *st;
	int rc;

	*id = 0;
	*root = NULL;
	*pending = 0;
	if (prep(c, "SELECT id, root, EXISTS (SELECT 1 FROM meta WHERE key = "
	    "'index-pending:' || jobs.id) FROM jobs WHERE name = ?1", &st,
	    "cannot read jobs", cause) != 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*root = xstrdup(col_text(st, 1));
		*pending = sqlite3_column_int(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(c, "cannot read jobs", cause);
	return 0;
}

int
jobdb_root(struct cache *c, const char *name, char **root, char **cause)
{
	int64_t id;

	return id_of(c, name, &id, root, cause);
}

int
jobdb_flows(struct cache *c, const char *name, const char *root,
    struct job_ref *ref, char **cause)
{
	sqlite3_stmt *st;
	char *had;
	int64_t id;
	int rc;

	memset(ref, 0, sizeof *ref);
	if (id_of(c, name, &id, &had, cause) != 0)
		return -1;
	if (had != NULL && strcmp(had, root) != 0) {
		ts_fail(cause, "job '%s' in the cache is rooted at '%s'; name "
		    "this one with --job", name, had);
		free(had);
		return -1;
	}
	free(had);
	if (id == 0) {
		if (prep(c, "INSERT INTO jobs (name, root, created) VALUES "
		    "(?1, ?2, ?3)", &st, "cannot store the job", cause) != 0)
			return -1;
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, root, -1, SQLITE_STATIC);
		sqlite3_bind_double(st, 3, (double)time(NULL));
		if (run(c, st, "cannot store the job", cause) != 0)
			return -1;
		id = sqlite3_last_insert_rowid(cache_db(c));
	}
	if ((rc = find_id(c, id, ref, cause)) == 0)
		return ts_fail(cause, "no job '%s' in the cache", name);
	return rc < 0 ? -1 : 0;
}

int
jobdb_mark(struct cache *c, const char *name, const char *verdict,
    char **cause)
{
	sqlite3_stmt *st;

	if (prep(c, "UPDATE jobs SET marked = ?2 WHERE name = ?1", &st,
	    "cannot mark the job", cause) != 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	if (verdict != NULL)
		sqlite3_bind_text(st, 2, verdict, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 2);
	if (run(c, st, "cannot mark the job", cause) != 0)
		return -1;
	if (sqlite3_changes(cache_db(c)) == 0)
		return ts_fail(cause, "no job '%s'", name);
	return 0;
}

int
jobdb_set_outcome(struct cache *c, int64_t id, const char *outcome,
    char **cause)
{
	sqlite3_stmt *st;

	if (prep(c, "UPDATE jobs SET outcome = ?2 WHERE id = ?1", &st,
	    "cannot store the outcome", cause) != 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, outcome, -1, SQLITE_STATIC);
	return run(c, st, "cannot store the outcome", cause);
}

/* One statement of jobdb_forget(), on the job's name. */
static int
forget_step(struct cache *c, const char *sql, const char *name,
    char **cause)
{
	sqlite3_stmt *st;

	if (prep(c, sql, &st, "cannot forget the job", cause) != 0)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	return run(c, st, "cannot forget the job", cause);
}

int
jobdb_forget(struct cache *c, const char *name, char **cause)
{
	int n;

	if (cache_begin(c, cause) != 0)
		return -1;
	if (forget_step(c, "DELETE FROM meta WHERE key = 'index-pending:' || "
	    "(SELECT id FROM jobs WHERE name = ?1)", name, cause) != 0 ||
	    forget_step(c, "DELETE FROM jobs WHERE name = ?1", name,
	    cause) != 0) {
		cache_rollback(c);
		return -1;
	}
	n = sqlite3_changes(cache_db(c));
	if (cache_commit(c, cause) != 0)
		return -1;
	return n > 0 ? 1 : 0;
}
