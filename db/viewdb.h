/*
 * viewdb.h -- the queries the views make of the cache: the jobs it
 * holds, and where the lines of an event are.
 */
#ifndef TS_VIEWDB_H
#define TS_VIEWDB_H

#include <stddef.h>
#include <stdint.h>

struct cache;

/* One job of the cache, for the jobs pane. */
struct viewdb_job {
	const char *name;
	const char *root;
	int64_t files;		/* log files */
	int64_t bytes;		/* their size on disk */
	int64_t lines;
	int64_t nodes;
	const char *outcome;	/* "failed", "degraded", "completed" or "" */
	const char *marked;	/* "good", "bad" or "" */
	double indexed;		/* epoch seconds, NAN: never (flows only) */
};

/* Call fn for each job by name; nonzero from fn stops the walk. */
int viewdb_each_job(struct cache *c,
    int (*fn)(void *arg, const struct viewdb_job *j), void *arg,
    char **cause);

/* The files of a job where template `tmpl` occurs, and on which lines. */
struct viewdb_occ {
	int64_t file;
	const char *path;	/* relative to the job's root */
	const char *node;	/* "" when the file has no known node */
	uint64_t *lines;	/* ascending */
	size_t nlines;
	double first_ts;	/* NAN unknown */
	uint64_t file_lines;	/* lines the file had when indexed */
};

/*
 * Call fn for each file of job `job` (a name) holding template `tmpl`,
 * by first time then path.  Returns 0, or -1 with *cause.
 */
int viewdb_event_files(struct cache *c, const char *job, uint32_t tmpl,
    int (*fn)(void *arg, const struct viewdb_occ *o), void *arg,
    char **cause);

/* The file id, gzip flag and line count of a job's file; 1, 0 none, -1. */
int viewdb_file(struct cache *c, const char *job, const char *path,
    int64_t *id, int *gz, uint64_t *lines, char **cause);

/*
 * The last checkpoint of file `file` at or before line `line`: the line
 * it is at and its byte offset (the line starts there).  Returns 1, 0
 * when there is none (read from the start), -1 with *cause.
 */
int viewdb_checkpoint(struct cache *c, int64_t file, uint64_t line,
    uint64_t *at_line, uint64_t *off, char **cause);

/* What the index saw of a file on the disk when it read it. */
struct viewdb_disk {
	int64_t size;
	double mtime;
	int64_t inode;
	int gz;			/* offsets are of the uncompressed text */
};

/*
 * The size, mtime and inode file `file` (an id) had when it was indexed,
 * and whether it is gzip.
 * Returns 1, 0 when there is no such file, -1 with *cause.
 */
int viewdb_file_disk(struct cache *c, int64_t file, struct viewdb_disk *d,
    char **cause);

#endif
