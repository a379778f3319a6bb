/*
 * linedb.h -- the queries under the merged log and the raw-text search:
 * a job's files with their node names, and the checkpoints of a file
 * (where a line starts, and the latest time seen up to it) looked up by
 * line or by time.
 *
 * A struct linedb keeps prepared statements on one cache connection and
 * is used by one thread.
 */
#ifndef TS_LINEDB_H
#define TS_LINEDB_H

#include <stddef.h>
#include <stdint.h>

struct cache;
struct linedb;

/* A files row of a job, with its node's name. */
struct linedb_file {
	int64_t id;
	char *path;		/* relative to the job's root; allocated */
	char *node;		/* allocated; "" when the file has no node */
	int rank;		/* -1: none */
	int host;		/* a host log (kind 'host') */
	int gz;
	uint64_t size;		/* on disk when indexed */
	double mtime;
	uint64_t lines;		/* lines indexed */
	int ts_kind;		/* enum lp_ts_kind of its first timestamp */
	double first_ts, last_ts;	/* NaN: none */
};

/* A checkpoint: line `line` starts at byte `off`; ts NaN: none yet. */
struct linedb_cp {
	uint64_t line;
	uint64_t off;
	double ts;
};

/* Prepare the statements; 0, or -1 with *cause.  Free with linedb_free(). */
int linedb_open(struct cache *c, struct linedb **out, char **cause);
void linedb_free(struct linedb *db);

/*
 * The files of job `job` (an id), by path (strcmp), in an allocated
 * array; free with linedb_free_files().  Returns 0, or -1 with *cause.
 */
int linedb_files(struct linedb *db, int64_t job, struct linedb_file **files,
    size_t *n, char **cause);
void linedb_free_files(struct linedb_file *files, size_t n);

/*
 * The last checkpoint of `file` at or before line `line` in *at, and the
 * line and offset of the first one after it in *next (next->line 0: none).
 * Returns 1, 0 when the file has none at or before the line, -1 with
 * *cause.
 */
int linedb_cp_at(struct linedb *db, int64_t file, uint64_t line,
    struct linedb_cp *at, struct linedb_cp *next, char **cause);

/*
 * The last checkpoint of `file` whose time (`none` where it has none) is
 * below `t` (at or below when `or_equal`).  Returns 1 with *at, 0 when
 * there is none, -1 with *cause.
 */
int linedb_cp_before(struct linedb *db, int64_t file, double t, double none,
    int or_equal, struct linedb_cp *at, char **cause);

#endif
