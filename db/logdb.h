/*
 * logdb.h -- the indexed-log tables of the cache (files, templates,
 * file_templates, checkpoints, node_templates; see db/schema.sql).
 *
 * A struct logdb keeps prepared statements on one cache connection and is
 * used by one thread.  Callers group writes in transactions with
 * cache_begin()/cache_commit(); nothing here begins or commits.
 *
 * Line numbers of a (file, template) are kept as a blob of unsigned LEB128
 * varints: the first line number, then the gap to each next one.
 * logdb_varint_put()/_get() are that encoding.
 */
#ifndef TS_LOGDB_H
#define TS_LOGDB_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

/*
 * The line list of a template in one file grows to this many bytes (of
 * varint gaps: about as many lines) and then stops; its count goes on.
 */
#define LOGDB_LINES_MAX (4u << 20)

struct cache;
struct job_ref;
struct logdb;

/* Append v as a varint to b. */
void logdb_varint_put(struct buf *b, uint64_t v);
/*
 * Decode one varint at *p (not past end) into *v and advance *p.  Returns
 * 0, or -1 on a truncated or overlong varint.
 */
int logdb_varint_get(const unsigned char **p, const unsigned char *end,
    uint64_t *v);

/* Prepare the statements; 0, or -1 with *cause.  Free with logdb_free(). */
int logdb_open(struct cache *c, struct logdb **out, char **cause);
void logdb_free(struct logdb *db);

/*
 * The index's way to the jobs table (db/jobdb.c owns it): the root of job
 * `name` (see jobdb_root()), and finding or creating job `name` rooted at
 * `root` with its indexed time set (see jobdb_index()).
 */
int logdb_job_root(struct logdb *db, const char *name, char **root,
    char **cause);
int logdb_job(struct logdb *db, const char *name, const char *root,
    int64_t *job, char **cause);
/* The same for an index run that may write nothing (jobdb_index_state()). */
int logdb_job_state(struct logdb *db, const char *name, int64_t *job,
    char **root, int *pending, char **cause);
/* Find or create a node of a job. */
int logdb_node(struct logdb *db, int64_t job, const char *name,
    int64_t *node, char **cause);
/* The node `name` of a job, without making it: *node 0 when none. */
int logdb_node_find(struct logdb *db, int64_t job, const char *name,
    int64_t *node, char **cause);
/* The highest template id the cache holds (0: none) in *max. */
int logdb_template_max(struct logdb *db, uint32_t *max, char **cause);
/* Record that `rank` runs on `node` (0: unknown); a known node wins. */
int logdb_rank(struct logdb *db, int64_t job, int rank, int64_t node,
    char **cause);

/* A files row. */
struct logdb_file {
	int64_t id;		/* 0 for a new file */
	char *path;		/* relative; allocated by logdb_files() */
	int64_t node;		/* 0: unknown */
	int rank;		/* -1: unknown */
	int kind;		/* 0 log, 1 host */
	int gz;
	uint64_t size;
	double mtime;
	uint64_t inode;
	uint64_t bytes;
	uint64_t lines;
	int partial;
	int ts_kind;
	double first_ts, last_ts;	/* NaN: none */
	/* What discovery found of it by itself (db/migrate-5.sql). */
	char *found_node;	/* allocated by logdb_files(); NULL: none */
	int found_rank;
	int found_kind;		/* -1: not recorded; 0, 1 its kind; 2 a log
				   only by --log */
	double ctime;		/* NaN: not recorded */
	uint64_t head;		/* scan_file.head when read racy, 0: none */
};

/*
 * The files of a job, sorted by path (strcmp), in an allocated array;
 * free with logdb_free_files().
 */
int logdb_files(struct logdb *db, int64_t job, struct logdb_file **files,
    size_t *n, char **cause);
/* The same on a cache without a struct logdb (one statement, once). */
int logdb_files_of(struct cache *c, int64_t job, struct logdb_file **files,
    size_t *n, char **cause);
void logdb_free_files(struct logdb_file *files, size_t n);
/*
 * The row of file `path` of job `job` as the cache holds it now: 1 with
 * *f filled (free f->path and f->found_node), 0 when there is none, -1
 * with *cause.
 */
int logdb_file_get(struct logdb *db, int64_t job, const char *path,
    struct logdb_file *f, char **cause);
/* Insert (f->id == 0, then sets f->id) or update a files row. */
int logdb_file_put(struct logdb *db, int64_t job, struct logdb_file *f,
    char **cause);
/* Forget what was indexed of a file (its templates and checkpoints). */
int logdb_file_clear(struct logdb *db, int64_t file, char **cause);

/* Call fn for every stored template, in id order. */
int logdb_templates_load(struct logdb *db,
    int (*fn)(void *arg, uint32_t id, const char *text, char **cause),
    void *arg, char **cause);
/* Store (insert or replace) the text of template `id`. */
int logdb_template_put(struct logdb *db, uint32_t id, const char *text,
    char **cause);

struct logdb_occ {
	uint64_t line;
	uint64_t off;
	double ts;		/* NaN: none */
};

/*
 * Add occurrences of template `tmpl` in file `file`: `count` lines whose
 * numbers are in `lines` (varints, first value absolute).  An existing
 * row is extended: its count grows, its last occurrence moves, and the
 * blob continues (the first value is re-encoded as a gap).
 */
int logdb_ft_add(struct logdb *db, int64_t file, uint32_t tmpl,
    uint64_t count, const struct logdb_occ *first,
    const struct logdb_occ *last, const struct buf *lines, char **cause);
/*
 * The same when the file is known to have no row of `tmpl` yet (a file
 * stored or cleared in this transaction, before its first rows): the row
 * is inserted without looking for one first.
 */
int logdb_ft_new(struct logdb *db, int64_t file, uint32_t tmpl,
    uint64_t count, const struct logdb_occ *first,
    const struct logdb_occ *last, const struct buf *lines, char **cause);

/*
 * Record checkpoints at[0..n) of a file (a later one of the same line
 * replaces an earlier), many rows a statement.
 */
int logdb_checkpoints(struct logdb *db, int64_t file,
    const struct logdb_occ *at, size_t n, char **cause);

/*
 * The last checkpoint of `file` at or before line `line` (where to start
 * reading to reach that line: seek to at->off, lines count from at->line).
 * Returns 1 and fills *at, 0 when there is none, -1 with *cause.
 */
int logdb_checkpoint_before(struct logdb *db, int64_t file, uint64_t line,
    struct logdb_occ *at, char **cause);

/*
 * Say that an index of `job` set out to read `nfiles` files, or (nfiles
 * < 0) that it finished: a marker left behind means it was interrupted.
 */
int logdb_job_pending(struct logdb *db, int64_t job, long nfiles,
    char **cause);
/* Rebuild node_templates of a job from its file_templates. */
int logdb_job_summarise(struct logdb *db, int64_t job, char **cause);

/* One row for `templates`. */
struct logdb_tmpl_row {
	const char *job;
	uint32_t id;
	uint64_t count;
	int64_t nodes;		/* distinct known nodes it occurs on */
	int64_t files;
	const char *text;
};

/*
 * Call fn for each template of `job` (every job when NULL, jobs by
 * name), templates by count (highest first) then id.  Returns 0, or -1
 * with *cause.
 */
int logdb_job_templates(struct logdb *db, const struct job_ref *job,
    int (*fn)(void *arg, const struct logdb_tmpl_row *row, char **cause),
    void *arg, char **cause);

/*
 * Every line number of template `tmpl` in file `file`, decoded into an
 * allocated array (free it).  Returns 0 (*n may be 0), or -1.
 */
int logdb_ft_lines(struct logdb *db, int64_t file, uint32_t tmpl,
    uint64_t **lines, size_t *n, char **cause);

#endif
