/*
 * logdb.c -- reading and writing the indexed-log tables.
 *
 * Every statement is prepared once, on first use, and kept in `st[]`
 * indexed by the enum below; each call binds, steps and resets.  NULL
 * timestamps travel as NaN on the C side.  node_templates is derived data:
 * logdb_job_summarise() recomputes a job's rows from file_templates in
 * one pass over them, folded in memory by node and template (first and
 * last occurrence by time, then by file and line), so an interrupted run
 * never leaves it inconsistent for long: the next run rebuilds it.
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

enum {
	S_NODE_GET, S_NODE_ADD, S_RANK,
	S_FILES, S_FILE_ADD, S_FILE_SET, S_FT_CLEAR, S_CP_CLEAR,
	S_TMPL_LOAD, S_TMPL_PUT, S_FT_GET, S_FT_ADD, S_FT_SET,
	S_JOBS, S_TMPLS, S_FT_LINES, S_CP_BEFORE,
	S_FILE_GET, S_TMPL_MAX, S_COUNT
};

static const char *const sql[S_COUNT] = {
	[S_NODE_GET] = "SELECT id FROM nodes WHERE job_id = ?1 AND name = ?2",
	[S_NODE_ADD] = "INSERT INTO nodes (job_id, name) VALUES (?1, ?2)",
	[S_RANK] = "INSERT INTO ranks (job_id, rank, node_id) VALUES (?1, ?2, "
	    "?3) ON CONFLICT (job_id, rank) DO UPDATE SET node_id = "
	    "coalesce(excluded.node_id, node_id)",
	[S_FILES] = "SELECT id, path, node_id, rank, kind, gz, size, mtime, "
	    "inode, bytes, lines, partial, ts_kind, first_ts, last_ts, "
	    "found_node, found_rank, found_kind, ctime, head FROM files "
	    "WHERE job_id = ?1",
	[S_FILE_GET] = "SELECT id, path, node_id, rank, kind, gz, size, mtime, "
	    "inode, bytes, lines, partial, ts_kind, first_ts, last_ts, "
	    "found_node, found_rank, found_kind, ctime, head FROM files "
	    "WHERE job_id = ?1 AND path = ?2",
	[S_FILE_ADD] = "INSERT INTO files (job_id, path, node_id, rank, kind, "
	    "gz, size, mtime, inode, bytes, lines, partial, ts_kind, first_ts, "
	    "last_ts, found_node, found_rank, found_kind, ctime, head) VALUES "
	    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
	    "?16, ?17, ?18, ?19, ?20)",
	[S_FILE_SET] = "UPDATE files SET node_id = ?3, rank = ?4, kind = ?5, "
	    "gz = ?6, size = ?7, mtime = ?8, inode = ?9, bytes = ?10, lines = "
	    "?11, partial = ?12, ts_kind = ?13, first_ts = ?14, last_ts = ?15, "
	    "found_node = ?16, found_rank = ?17, found_kind = ?18, ctime = ?19, "
	    "head = ?20 WHERE id = ?1 AND path = ?2",
	[S_FT_CLEAR] = "DELETE FROM file_templates WHERE file_id = ?1",
	[S_CP_CLEAR] = "DELETE FROM checkpoints WHERE file_id = ?1",
	[S_TMPL_LOAD] = "SELECT id, text FROM templates ORDER BY id",
	[S_TMPL_PUT] = "INSERT OR REPLACE INTO templates (id, text) "
	    "VALUES (?1, ?2)",
	[S_FT_GET] = "SELECT rowid, last_line, length(lines) FROM "
	    "file_templates WHERE file_id = ?1 AND template_id = ?2",
	[S_FT_ADD] = "INSERT INTO file_templates (file_id, template_id, count, "
	    "first_line, first_off, first_ts, last_line, last_off, last_ts, "
	    "lines) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	[S_FT_SET] = "UPDATE file_templates SET count = count + ?2, last_line "
	    "= ?3, last_off = ?4, last_ts = ?5, lines = lines || ?6, first_ts "
	    "= coalesce(first_ts, ?7) WHERE rowid = ?1",
	[S_JOBS] = "SELECT id, name FROM jobs ORDER BY name",
	[S_TMPLS] = "SELECT t.id, sum(n.count) AS c, count(DISTINCT "
	    "n.node_id), (SELECT count(*) FROM file_templates ft JOIN files f "
	    "ON f.id = ft.file_id WHERE f.job_id = ?1 AND ft.template_id = "
	    "t.id), t.text FROM node_templates n JOIN templates t ON t.id = "
	    "n.template_id WHERE n.job_id = ?1 GROUP BY t.id ORDER BY c DESC, "
	    "t.id",
	[S_CP_BEFORE] = "SELECT line, off, ts FROM checkpoints WHERE file_id = "
	    "?1 AND line <= ?2 ORDER BY line DESC LIMIT 1",
	[S_FT_LINES] = "SELECT lines FROM file_templates WHERE file_id = ?1 "
	    "AND template_id = ?2",
	[S_TMPL_MAX] = "SELECT coalesce(max(id), 0) FROM templates",
};

/*
 * Checkpoints go in statements of many rows: one statement's fixed cost
 * (its statement journal, the foreign key's counter, halt and reset) was
 * most of a checkpoint's.  A statement of CP_ROWS(k) rows for each k.
 */
#define CP_SIZES	4
#define CP_ROWS(k)	(1 << (2 * (CP_SIZES - 1 - (k))))	/* 64 16 4 1 */

struct logdb {
	struct cache *cache;
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	sqlite3_stmt *cp[CP_SIZES];	/* CP_ROWS(k) checkpoint rows */
};

void
logdb_varint_put(struct buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v != 0)
			tmp[n] |= 0x80;
		n++;
	} while (v != 0);
	buf_add(b, tmp, n);
}

int
logdb_varint_get(const unsigned char **p, const unsigned char *end,
    uint64_t *v)
{
	const unsigned char *s = *p;
	unsigned shift = 0;

	*v = 0;
	while (s < end && shift < 64) {
		*v |= (uint64_t)(*s & 0x7f) << shift;
		if (!(*s++ & 0x80)) {
			*p = s;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

int
logdb_open(struct cache *c, struct logdb **out, char **cause)
{
	struct logdb *db;

	(void)cause;
	db = xcalloc(1, sizeof *db);
	db->cache = c;
	db->db = cache_db(c);
	*out = db;
	return 0;
}

void
logdb_free(struct logdb *db)
{
	size_t i;

	if (db == NULL)
		return;
	for (i = 0; i < S_COUNT; i++)
		sqlite3_finalize(db->st[i]);
	for (i = 0; i < CP_SIZES; i++)
		sqlite3_finalize(db->cp[i]);
	free(db);
}

/* The statement, prepared and reset; NULL with *cause on error. */
static sqlite3_stmt *
stmt(struct logdb *db, int which, char **cause)
{
	if (db->st[which] == NULL &&
	    sqlite3_prepare_v3(db->db, sql[which], -1, SQLITE_PREPARE_PERSISTENT,
	    &db->st[which], NULL) != SQLITE_OK) {
		cache_fail(db->cache, "cannot prepare", cause);
		return NULL;
	}
	sqlite3_reset(db->st[which]);
	sqlite3_clear_bindings(db->st[which]);
	return db->st[which];
}

/* Step a statement that returns no rows. */
static int
run(struct logdb *db, sqlite3_stmt *s, const char *what, char **cause)
{
	int rc = sqlite3_step(s);

	sqlite3_reset(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return cache_fail(db->cache, what, cause);
	return 0;
}

static void
bind_ts(sqlite3_stmt *s, int i, double ts)
{
	if (isnan(ts))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, ts);
}

static double
column_ts(sqlite3_stmt *s, int i)
{
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(s, i);
}

static void
bind_id(sqlite3_stmt *s, int i, int64_t id)
{
	if (id <= 0)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, id);
}

/* Look up one id with a (int64, text) query; 0 when absent. */
static int
get_id(struct logdb *db, int which, int64_t a, const char *b, int64_t *id,
    char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = stmt(db, which, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, a);
	sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
	*id = 0;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot look up", cause);
	return 0;
}

int
logdb_job_root(struct logdb *db, const char *name, char **root, char **cause)
{
	return jobdb_root(db->cache, name, root, cause);
}

int
logdb_job(struct logdb *db, const char *name, const char *root, int64_t *job,
    char **cause)
{
	return jobdb_index(db->cache, name, root, job, cause);
}

int
logdb_job_state(struct logdb *db, const char *name, int64_t *job,
    char **root, int *pending, char **cause)
{
	return jobdb_index_state(db->cache, name, job, root, pending, cause);
}

int
logdb_node(struct logdb *db, int64_t job, const char *name, int64_t *node,
    char **cause)
{
	sqlite3_stmt *s;

	if (get_id(db, S_NODE_GET, job, name, node, cause) != 0)
		return -1;
	if (*node != 0)
		return 0;
	if ((s = stmt(db, S_NODE_ADD, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	if (run(db, s, "cannot store node", cause) != 0)
		return -1;
	*node = sqlite3_last_insert_rowid(db->db);
	return 0;
}

int
logdb_node_find(struct logdb *db, int64_t job, const char *name,
    int64_t *node, char **cause)
{
	return get_id(db, S_NODE_GET, job, name, node, cause);
}

int
logdb_template_max(struct logdb *db, uint32_t *max, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = stmt(db, S_TMPL_MAX, cause)) == NULL)
		return -1;
	*max = 0;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*max = (uint32_t)sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read templates", cause);
	return 0;
}

int
logdb_rank(struct logdb *db, int64_t job, int rank, int64_t node,
    char **cause)
{
	sqlite3_stmt *s;

	if ((s = stmt(db, S_RANK, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_int(s, 2, rank);
	bind_id(s, 3, node);
	return run(db, s, "cannot store rank", cause);
}

static void
read_file_row(sqlite3_stmt *s, struct logdb_file *f)
{
	memset(f, 0, sizeof *f);
	f->id = sqlite3_column_int64(s, 0);
	f->path = xstrdup((const char *)sqlite3_column_text(s, 1));
	f->node = sqlite3_column_int64(s, 2);
	f->rank = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(s, 3);
	f->kind = strcmp((const char *)sqlite3_column_text(s, 4), "host") == 0;
	f->gz = sqlite3_column_int(s, 5);
	f->size = (uint64_t)sqlite3_column_int64(s, 6);
	f->mtime = sqlite3_column_double(s, 7);
	f->inode = (uint64_t)sqlite3_column_int64(s, 8);
	f->bytes = (uint64_t)sqlite3_column_int64(s, 9);
	f->lines = (uint64_t)sqlite3_column_int64(s, 10);
	f->partial = sqlite3_column_int(s, 11);
	f->ts_kind = sqlite3_column_int(s, 12);
	f->first_ts = column_ts(s, 13);
	f->last_ts = column_ts(s, 14);
	if (sqlite3_column_type(s, 15) != SQLITE_NULL)
		f->found_node = xstrdup((const char *)sqlite3_column_text(s,
		    15));
	f->found_rank = sqlite3_column_int(s, 16);
	f->found_kind = sqlite3_column_type(s, 17) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(s, 17);
	f->ctime = column_ts(s, 18);
	f->head = (uint64_t)sqlite3_column_int64(s, 19);
}

static int
cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct logdb_file *)a)->path,
	    ((const struct logdb_file *)b)->path);
}

/* The rows a prepared S_FILES statement gives, sorted by path. */
static int
collect_files(struct cache *c, sqlite3_stmt *s, int64_t job,
    struct logdb_file **files, size_t *n, char **cause)
{
	size_t cap = 0;
	int rc;

	*files = NULL;
	*n = 0;
	sqlite3_bind_int64(s, 1, job);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*files = xgrow(*files, &cap, *n + 1, sizeof **files);
		read_file_row(s, &(*files)[(*n)++]);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		logdb_free_files(*files, *n);
		*files = NULL;
		*n = 0;
		return cache_fail(c, "cannot read files", cause);
	}
	ts_qsort(*files, *n, sizeof **files, cmp_path);
	return 0;
}

int
logdb_files(struct logdb *db, int64_t job, struct logdb_file **files,
    size_t *n, char **cause)
{
	sqlite3_stmt *s;

	*files = NULL;
	*n = 0;
	if ((s = stmt(db, S_FILES, cause)) == NULL)
		return -1;
	return collect_files(db->cache, s, job, files, n, cause);
}

int
logdb_files_of(struct cache *c, int64_t job, struct logdb_file **files,
    size_t *n, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	*files = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(cache_db(c), sql[S_FILES], -1, &s, NULL) !=
	    SQLITE_OK)
		return cache_fail(c, "cannot read files", cause);
	rc = collect_files(c, s, job, files, n, cause);
	sqlite3_finalize(s);
	return rc;
}

int
logdb_file_get(struct logdb *db, int64_t job, const char *path,
    struct logdb_file *f, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	memset(f, 0, sizeof *f);
	if ((s = stmt(db, S_FILE_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_text(s, 2, path, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		read_file_row(s, f);
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read files", cause);
	return rc == SQLITE_ROW;
}

void
logdb_free_files(struct logdb_file *files, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(files[i].path);
		free(files[i].found_node);
	}
	free(files);
}

int
logdb_file_put(struct logdb *db, int64_t job, struct logdb_file *f,
    char **cause)
{
	sqlite3_stmt *s;

	if ((s = stmt(db, f->id ? S_FILE_SET : S_FILE_ADD, cause)) == NULL)
		return -1;
	if (f->id)
		sqlite3_bind_int64(s, 1, f->id);
	else
		sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_text(s, 2, f->path, -1, SQLITE_STATIC);
	bind_id(s, 3, f->node);
	if (f->rank >= 0)
		sqlite3_bind_int(s, 4, f->rank);
	sqlite3_bind_text(s, 5, f->kind ? "host" : "log", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 6, f->gz);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)f->size);
	sqlite3_bind_double(s, 8, f->mtime);
	sqlite3_bind_int64(s, 9, (sqlite3_int64)f->inode);
	sqlite3_bind_int64(s, 10, (sqlite3_int64)f->bytes);
	sqlite3_bind_int64(s, 11, (sqlite3_int64)f->lines);
	sqlite3_bind_int(s, 12, f->partial);
	sqlite3_bind_int(s, 13, f->ts_kind);
	bind_ts(s, 14, f->first_ts);
	bind_ts(s, 15, f->last_ts);
	if (f->found_node != NULL)
		sqlite3_bind_text(s, 16, f->found_node, -1, SQLITE_STATIC);
	if (f->found_kind >= 0) {
		sqlite3_bind_int(s, 17, f->found_rank);
		sqlite3_bind_int(s, 18, f->found_kind);
	}
	bind_ts(s, 19, f->ctime);
	if (f->head != 0)
		sqlite3_bind_int64(s, 20, (sqlite3_int64)f->head);
	if (run(db, s, "cannot store file", cause) != 0)
		return -1;
	if (f->id == 0)
		f->id = sqlite3_last_insert_rowid(db->db);
	return 0;
}

int
logdb_file_clear(struct logdb *db, int64_t file, char **cause)
{
	sqlite3_stmt *s;

	if ((s = stmt(db, S_FT_CLEAR, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, file);
	if (run(db, s, "cannot clear file", cause) != 0)
		return -1;
	if ((s = stmt(db, S_CP_CLEAR, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, file);
	return run(db, s, "cannot clear file", cause);
}

int
logdb_templates_load(struct logdb *db,
    int (*fn)(void *, uint32_t, const char *, char **), void *arg,
    char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = stmt(db, S_TMPL_LOAD, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (fn(arg, (uint32_t)sqlite3_column_int64(s, 0),
		    (const char *)sqlite3_column_text(s, 1), cause) != 0) {
			sqlite3_reset(s);
			return -1;
		}
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read templates", cause);
	return 0;
}

int
logdb_template_put(struct logdb *db, uint32_t id, const char *text,
    char **cause)
{
	sqlite3_stmt *s;

	if ((s = stmt(db, S_TMPL_PUT, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_STATIC);
	return run(db, s, "cannot store template", cause);
}

/* Existing row of (file, tmpl): *rowid 0 when none. */
static int
ft_get(struct logdb *db, int64_t file, uint32_t tmpl, int64_t *rowid,
    uint64_t *last, uint64_t *listed, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = stmt(db, S_FT_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_int64(s, 2, tmpl);
	*rowid = 0;
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*rowid = sqlite3_column_int64(s, 0);
		*last = (uint64_t)sqlite3_column_int64(s, 1);
		*listed = (uint64_t)sqlite3_column_int64(s, 2);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read file templates",
		    cause);
	return 0;
}

/*
 * Extend an existing row: re-encode the blob's first value as a gap.  A
 * list already LOGDB_LINES_MAX bytes long is not extended (only counts,
 * last line and times are): a template of tens of millions of lines in
 * one file keeps the first millions for drill-down, and memory stays
 * bounded however far a file inflates.
 */
static int
ft_extend(struct logdb *db, int64_t rowid, uint64_t prev, uint64_t listed,
    uint64_t count, const struct logdb_occ *first,
    const struct logdb_occ *last, const struct buf *lines, char **cause)
{
	const unsigned char *p = (const unsigned char *)lines->s;
	struct buf gap = BUF_INIT;
	sqlite3_stmt *s;
	uint64_t v;
	int rc;

	if (listed < LOGDB_LINES_MAX && lines->len > 0) {
		if (logdb_varint_get(&p, p + lines->len, &v) != 0 || v <= prev)
			return ts_fail(cause, "internal error: lines out of "
			    "order");
		logdb_varint_put(&gap, v - prev);
		buf_add(&gap, p, lines->len - (size_t)(p - (const unsigned
		    char *)lines->s));
	}
	if ((s = stmt(db, S_FT_SET, cause)) == NULL) {
		buf_release(&gap);
		return -1;
	}
	sqlite3_bind_int64(s, 1, rowid);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)count);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)last->line);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)last->off);
	bind_ts(s, 5, last->ts);
	sqlite3_bind_blob(s, 6, gap.len > 0 ? gap.s : "", (int)gap.len,
	    SQLITE_STATIC);
	bind_ts(s, 7, first->ts);
	rc = run(db, s, "cannot store file templates", cause);
	buf_release(&gap);
	return rc;
}

int
logdb_ft_add(struct logdb *db, int64_t file, uint32_t tmpl, uint64_t count,
    const struct logdb_occ *first, const struct logdb_occ *last,
    const struct buf *lines, char **cause)
{
	int64_t rowid;
	uint64_t prev = 0, listed = 0;

	if (ft_get(db, file, tmpl, &rowid, &prev, &listed, cause) != 0)
		return -1;
	if (rowid != 0)
		return ft_extend(db, rowid, prev, listed, count, first, last,
		    lines, cause);
	return logdb_ft_new(db, file, tmpl, count, first, last, lines, cause);
}

int
logdb_ft_new(struct logdb *db, int64_t file, uint32_t tmpl, uint64_t count,
    const struct logdb_occ *first, const struct logdb_occ *last,
    const struct buf *lines, char **cause)
{
	sqlite3_stmt *s;

	if ((s = stmt(db, S_FT_ADD, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_int64(s, 2, tmpl);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)count);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)first->line);
	sqlite3_bind_int64(s, 5, (sqlite3_int64)first->off);
	bind_ts(s, 6, first->ts);
	sqlite3_bind_int64(s, 7, (sqlite3_int64)last->line);
	sqlite3_bind_int64(s, 8, (sqlite3_int64)last->off);
	bind_ts(s, 9, last->ts);
	sqlite3_bind_blob(s, 10, lines->s, (int)lines->len, SQLITE_STATIC);
	return run(db, s, "cannot store file templates", cause);
}

/* Bind checkpoint `at` as the row whose first parameter is `i`. */
static void
bind_cp(sqlite3_stmt *s, int i, const struct logdb_occ *at)
{
	sqlite3_bind_int64(s, i, (sqlite3_int64)at->line);
	sqlite3_bind_int64(s, i + 1, (sqlite3_int64)at->off);
	bind_ts(s, i + 2, at->ts);
}

/* The statement of CP_ROWS(k) checkpoint rows, prepared and reset. */
static sqlite3_stmt *
cp_stmt(struct logdb *db, int k, char **cause)
{
	struct buf b;
	int i, rc;

	if (db->cp[k] != NULL) {
		sqlite3_reset(db->cp[k]);
		return db->cp[k];
	}
	buf_init(&b);
	buf_adds(&b, "INSERT OR REPLACE INTO checkpoints (file_id, line, off, "
	    "ts) VALUES ");
	for (i = 0; i < CP_ROWS(k); i++)	/* ?1, then 2, 3, 4; 5, 6, 7 */
		buf_adds(&b, i == 0 ? "(?1, ?, ?, ?)" : ", (?1, ?, ?, ?)");
	rc = sqlite3_prepare_v3(db->db, buf_str(&b), -1,
	    SQLITE_PREPARE_PERSISTENT, &db->cp[k], NULL);
	buf_release(&b);
	if (rc != SQLITE_OK) {
		cache_fail(db->cache, "cannot prepare", cause);
		return NULL;
	}
	return db->cp[k];
}

int
logdb_checkpoints(struct logdb *db, int64_t file, const struct logdb_occ *at,
    size_t n, char **cause)
{
	sqlite3_stmt *s;
	int i, k;

	for (k = 0; k < CP_SIZES; k++)
		for (; n >= (size_t)CP_ROWS(k); n -= CP_ROWS(k),
		    at += CP_ROWS(k)) {
			if ((s = cp_stmt(db, k, cause)) == NULL)
				return -1;
			sqlite3_bind_int64(s, 1, file);
			for (i = 0; i < CP_ROWS(k); i++)
				bind_cp(s, 2 + 3 * i, &at[i]);
			if (run(db, s, "cannot store checkpoint", cause) != 0)
				return -1;
		}
	return 0;
}

int
logdb_checkpoint_before(struct logdb *db, int64_t file, uint64_t line,
    struct logdb_occ *at, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = stmt(db, S_CP_BEFORE, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)line);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		at->line = (uint64_t)sqlite3_column_int64(s, 0);
		at->off = (uint64_t)sqlite3_column_int64(s, 1);
		at->ts = column_ts(s, 2);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read checkpoints", cause);
	return rc == SQLITE_ROW;
}

int
logdb_job_pending(struct logdb *db, int64_t job, long nfiles, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db->db, nfiles >= 0 ? "INSERT OR REPLACE INTO "
	    "meta (key, value) VALUES ('index-pending:' || ?1, ?2)" :
	    "DELETE FROM meta WHERE key = 'index-pending:' || ?1", -1, &s,
	    NULL) != SQLITE_OK)
		return cache_fail(db->cache, "cannot mark the job", cause);
	sqlite3_bind_int64(s, 1, job);
	if (nfiles >= 0)
		sqlite3_bind_int64(s, 2, nfiles);
	rc = run(db, s, "cannot mark the job", cause);
	sqlite3_finalize(s);
	return rc;
}

/*
 * The job summary.  A (node, template)'s first occurrence is the one of
 * its files' first occurrences with the least key (time, file id, line),
 * its last the one of their last occurrences with the greatest; the time
 * of the key is printf('%020.6f') of the line's own time, an untimed line
 * as 0.  The rows of file_templates are read once and folded in a hash
 * table; the key's text is made only for two times too close to tell
 * apart as numbers.  Rows are stored in order of node (no node first)
 * and template.
 */
struct sum_occ {
	int64_t file;
	uint64_t line, off;
	double ts;		/* NaN: none */
};

struct sum_row {
	int64_t node;		/* 0: no node */
	uint32_t tmpl;
	uint64_t count;
	struct sum_occ first, last;
};

struct sum {
	struct sum_row *rows;
	size_t n, cap;
	uint32_t *tab;		/* open addressing: row index + 1 */
	size_t tabsz;
};

static const char sum_read_sql[] = "SELECT f.node_id, ft.template_id, "
    "f.id, ft.count, ft.first_line, ft.first_off, ft.first_ts, "
    "ft.last_line, ft.last_off, ft.last_ts FROM files f JOIN "
    "file_templates ft ON ft.file_id = f.id WHERE f.job_id = ?1";

static const char sum_put_sql[] = "INSERT INTO node_templates (job_id, "
    "node_id, template_id, count, first_file, first_line, first_off, "
    "first_ts, last_file, last_line, last_off, last_ts) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";

/* The order of two times as printf('%020.6f') of each orders them. */
static int
sum_ts_cmp(double a, double b)
{
	char sa[400], sb[400];
	double g;

	a = isnan(a) ? 0 : a;
	b = isnan(b) ? 0 : b;
	if (a == b)
		return 0;
	/* six decimals, or sixteen digits for a larger number */
	g = fmax(fmax(a, b) * 1e-14, 1e-6);
	if (a >= 0 && b >= 0 && fabs(a - b) > 4 * g)
		return a < b ? -1 : 1;
	sqlite3_snprintf(sizeof sa, sa, "%020.6f", a);
	sqlite3_snprintf(sizeof sb, sb, "%020.6f", b);
	return strcmp(sa, sb);
}

/* The order of two occurrences by (time, file, line). */
static int
sum_occ_cmp(const struct sum_occ *a, const struct sum_occ *b)
{
	int c = sum_ts_cmp(a->ts, b->ts);

	if (c != 0)
		return c;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static uint64_t
sum_hash(int64_t node, uint32_t tmpl)
{
	uint64_t h = (uint64_t)node * 0x9e3779b97f4a7c15ull ^ tmpl;

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

static void
sum_grow(struct sum *m)
{
	size_t i, j, mask;

	free(m->tab);
	m->tabsz = m->tabsz ? m->tabsz * 2 : 4096;
	m->tab = xcalloc(m->tabsz, sizeof *m->tab);
	mask = m->tabsz - 1;
	for (i = 0; i < m->n; i++) {
		for (j = sum_hash(m->rows[i].node, m->rows[i].tmpl) & mask;
		    m->tab[j] != 0; j = (j + 1) & mask)
			;
		m->tab[j] = (uint32_t)i + 1;
	}
}

/* The row of (node, tmpl), made with a zero count when new. */
static struct sum_row *
sum_get(struct sum *m, int64_t node, uint32_t tmpl)
{
	struct sum_row *r;
	size_t j, mask;

	if (m->n * 2 >= m->tabsz)
		sum_grow(m);
	mask = m->tabsz - 1;
	for (j = sum_hash(node, tmpl) & mask; m->tab[j] != 0;
	    j = (j + 1) & mask) {
		r = &m->rows[m->tab[j] - 1];
		if (r->node == node && r->tmpl == tmpl)
			return r;
	}
	m->rows = xgrow(m->rows, &m->cap, m->n + 1, sizeof *m->rows);
	r = &m->rows[m->n];
	memset(r, 0, sizeof *r);
	r->node = node;
	r->tmpl = tmpl;
	m->tab[j] = (uint32_t)++m->n;
	return r;
}

/* Fold one file_templates row (a sum_read_sql row) into its node's. */
static void
sum_add(struct sum *m, sqlite3_stmt *s)
{
	struct sum_occ first, last;
	struct sum_row *r;

	r = sum_get(m, sqlite3_column_int64(s, 0),
	    (uint32_t)sqlite3_column_int64(s, 1));
	first.file = last.file = sqlite3_column_int64(s, 2);
	first.line = (uint64_t)sqlite3_column_int64(s, 4);
	first.off = (uint64_t)sqlite3_column_int64(s, 5);
	first.ts = column_ts(s, 6);
	last.line = (uint64_t)sqlite3_column_int64(s, 7);
	last.off = (uint64_t)sqlite3_column_int64(s, 8);
	last.ts = column_ts(s, 9);
	if (r->count == 0 || sum_occ_cmp(&first, &r->first) < 0)
		r->first = first;
	if (r->count == 0 || sum_occ_cmp(&last, &r->last) > 0)
		r->last = last;
	/* (a row of no lines cannot be: count starts at 1) */
	r->count += (uint64_t)sqlite3_column_int64(s, 3);
}

static int
sum_row_order(const void *a, const void *b)
{
	const struct sum_row *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->tmpl < y->tmpl ? -1 : x->tmpl > y->tmpl;
}

static int
sum_read(struct logdb *db, int64_t job, struct sum *m, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(db->db, sum_read_sql, -1, &s, NULL) !=
	    SQLITE_OK)
		return cache_fail(db->cache, "cannot summarise", cause);
	sqlite3_bind_int64(s, 1, job);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		sum_add(m, s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot summarise", cause);
	return 0;
}

static void
bind_occ(sqlite3_stmt *s, int i, const struct sum_occ *o)
{
	sqlite3_bind_int64(s, i, o->file);
	sqlite3_bind_int64(s, i + 1, (sqlite3_int64)o->line);
	sqlite3_bind_int64(s, i + 2, (sqlite3_int64)o->off);
	bind_ts(s, i + 3, o->ts);
}

static int
sum_write(struct logdb *db, int64_t job, const struct sum *m, char **cause)
{
	const struct sum_row *r;
	sqlite3_stmt *s;
	size_t i;
	int rc = 0;

	if (sqlite3_prepare_v2(db->db, sum_put_sql, -1, &s, NULL) !=
	    SQLITE_OK)
		return cache_fail(db->cache, "cannot summarise", cause);
	for (i = 0; i < m->n && rc == 0; i++) {
		r = &m->rows[i];
		sqlite3_bind_int64(s, 1, job);
		bind_id(s, 2, r->node);
		sqlite3_bind_int64(s, 3, r->tmpl);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)r->count);
		bind_occ(s, 5, &r->first);
		bind_occ(s, 9, &r->last);
		rc = run(db, s, "cannot summarise", cause);
	}
	sqlite3_finalize(s);
	return rc;
}

int
logdb_job_summarise(struct logdb *db, int64_t job, char **cause)
{
	struct sum m;
	sqlite3_stmt *s;
	int rc;

	memset(&m, 0, sizeof m);
	if (sqlite3_prepare_v2(db->db, "DELETE FROM node_templates WHERE "
	    "job_id = ?1", -1, &s, NULL) != SQLITE_OK)
		return cache_fail(db->cache, "cannot summarise", cause);
	sqlite3_bind_int64(s, 1, job);
	rc = run(db, s, "cannot summarise", cause);
	sqlite3_finalize(s);
	if (rc == 0 && (rc = sum_read(db, job, &m, cause)) == 0) {
		ts_qsort(m.rows, m.n, sizeof *m.rows, sum_row_order);
		rc = sum_write(db, job, &m, cause);
	}
	free(m.rows);
	free(m.tab);
	return rc;
}

static int
job_rows(struct logdb *db, int64_t job, const char *name,
    int (*fn)(void *, const struct logdb_tmpl_row *, char **), void *arg,
    char **cause)
{
	struct logdb_tmpl_row row;
	sqlite3_stmt *s;
	int rc;

	if ((s = stmt(db, S_TMPLS, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	row.job = name;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		row.id = (uint32_t)sqlite3_column_int64(s, 0);
		row.count = (uint64_t)sqlite3_column_int64(s, 1);
		row.nodes = sqlite3_column_int64(s, 2);
		row.files = sqlite3_column_int64(s, 3);
		row.text = (const char *)sqlite3_column_text(s, 4);
		if (fn(arg, &row, cause) != 0) {
			sqlite3_reset(s);
			return -1;
		}
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read templates", cause);
	return 0;
}

int
logdb_job_templates(struct logdb *db, const struct job_ref *job,
    int (*fn)(void *, const struct logdb_tmpl_row *, char **), void *arg,
    char **cause)
{
	sqlite3_stmt *s;
	int64_t *ids = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc;

	if (job != NULL)
		return job_rows(db, job->id, job->name, fn, arg, cause);
	if ((s = stmt(db, S_JOBS, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		ids = xgrow(ids, &cap, n + 1, sizeof *ids);
		names = xreallocarray(names, cap, sizeof *names);
		ids[n] = sqlite3_column_int64(s, 0);
		names[n++] = xstrdup((const char *)sqlite3_column_text(s, 1));
	}
	sqlite3_reset(s);
	rc = rc == SQLITE_DONE ? 0 : cache_fail(db->cache, "cannot read jobs",
	    cause);
	for (i = 0; i < n; i++) {
		if (rc == 0)
			rc = job_rows(db, ids[i], names[i], fn, arg, cause);
		free(names[i]);
	}
	free(names);
	free(ids);
	return rc;
}

int
logdb_ft_lines(struct logdb *db, int64_t file, uint32_t tmpl,
    uint64_t **lines, size_t *n, char **cause)
{
	const unsigned char *p, *end;
	sqlite3_stmt *s;
	uint64_t v, cur = 0;
	size_t cap = 0;
	int rc;

	*lines = NULL;
	*n = 0;
	if ((s = stmt(db, S_FT_LINES, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, file);
	sqlite3_bind_int64(s, 2, tmpl);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		p = sqlite3_column_blob(s, 0);
		end = p + sqlite3_column_bytes(s, 0);
		while (p != NULL && p < end) {
			if (logdb_varint_get(&p, end, &v) != 0) {
				rc = -1;
				break;
			}
			cur += v;
			*lines = xgrow(*lines, &cap, *n + 1, sizeof **lines);
			(*lines)[(*n)++] = cur;
		}
	}
	sqlite3_reset(s);
	if (rc == -1)
		return ts_fail(cause, "cache '%s': damaged line list of "
		    "file %lld",
		    cache_path(db->cache), (long long)file);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return cache_fail(db->cache, "cannot read lines", cause);
	return 0;
}
