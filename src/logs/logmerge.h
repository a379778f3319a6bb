/*
 * logmerge.h -- one time-ordered log of a whole job: every line of every
 * log file of every rank and of the host logs, merged, read on demand.
 *
 * ORDER.  Each line has an effective time, its sort key:
 *  - a line with a time of its own takes the latest time seen in its file
 *    so far (its own, unless a line before it was stamped later: a file is
 *    never reordered within itself, as a merge of files must not be);
 *  - a line without a time of its own takes the time of the timed line
 *    before it in its file; lines before a file's first timed line take
 *    that first time and so sit just before it;
 *  - a file with no time at all (no timestamps, or only dmesg's seconds
 *    since boot) sits whole at the time it was last written (its mtime
 *    when indexed), held within the job's span of times: a rank log
 *    without timestamps shows beside the other ranks' last lines, which is
 *    where a crash leaves its traceback;
 *  - syslog times without a year take the year of the job's last time.
 * Rows are ordered by (effective time, file, line), files by path, so ties
 * fall in a stable order and each file's lines stay in file order.  Only
 * timestamps of the kind of a file's first one count as its times.
 *
 * POSITIONS.  A row is keyed by its file and line ("PATH:LINE"), which
 * survives a restart: lm_seek_line() goes back to it.
 *
 * COST.  Lines are read from the files through the cache's checkpoints
 * (where a line starts and the latest time up to it; one at least every
 * 1024 lines and 16 KiB): a file's lines are decoded (offset, length,
 * own time, key, rank; the text is not kept) between two checkpoints,
 * as far as needed, into an LRU of about one such chunk a file (at most
 * 4096), and files are opened through an LRU of 64 descriptors, so
 * memory and open files follow the number of files, not their size.
 * Seeking costs one checkpoint query and part of one chunk for each
 * file; a step forward or back decodes at most a few lines of one file
 * and compares the heads (tails) of every file.  Gzip files are read
 * through zlib: a step forward streams on, but going back within a file
 * inflates it again from its start.
 */
#ifndef TS_LOGMERGE_H
#define TS_LOGMERGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"

struct cache;
struct logmerge;
struct lm_cursor;

/* A file of the merge (read-only, owned by the merge). */
struct lm_file {
	int64_t id;		/* files.id in the cache */
	const char *path;	/* relative to the job's root */
	const char *node;	/* "" when the file has no known node */
	int rank;		/* the file's rank, -1 none */
	int host;		/* a host log (dmesg, syslog, journal) */
	int gz;
	uint64_t lines;		/* lines when indexed */
	uint64_t size;		/* bytes on disk when indexed */
	int timed;		/* its lines carry times we order by */
	double anchor;		/* untimed: the time the whole file sits at */
	double shift;		/* added to its stored times (no year) */
};

/* One row of the merge. */
struct lm_row {
	size_t file;		/* index of its lm_file */
	const char *path;	/* borrowed from the merge */
	const char *node;	/* borrowed; "" none */
	uint64_t line;		/* 1-based */
	uint64_t off;		/* byte offset of its start (uncompressed) */
	uint64_t len;		/* its bytes, without the newline */
	double own;		/* its own time, NaN: none */
	double eff;		/* its effective time (the sort key) */
	int rank;		/* the line's rank prefix, else the file's, -1 */
};

/*
 * The merge of job `job` (a name or an indexed directory).  Returns 0 and
 * sets *out (free with lm_free()), or -1 with *cause ("no job 'X'...").
 * The cache is borrowed and must outlive the merge.
 */
int lm_open(struct cache *c, const char *job, struct logmerge **out,
    char **cause);
/*
 * The merge of the job with id `job` in the cache, named `name`, its
 * files relative to `root` (a caller that has found the job already
 * hands it on: nothing is looked up by name).  Returns 0 and sets *out,
 * or -1 with *cause.  A job without files gives an empty merge.
 */
int lm_open_job(struct cache *c, int64_t job, const char *name,
    const char *root, struct logmerge **out, char **cause);
void lm_free(struct logmerge *m);

/* The job's name and root directory (borrowed). */
const char *lm_job(const struct logmerge *m);
const char *lm_root(const struct logmerge *m);
size_t lm_nfiles(const struct logmerge *m);
const struct lm_file *lm_file(const struct logmerge *m, size_t i);
/* The earliest and latest time of the job's timed files (NaN: none). */
void lm_span(const struct logmerge *m, double *first, double *last);
/* Every file's lines when indexed, summed: the rows of the merge. */
uint64_t lm_total(const struct logmerge *m);
/*
 * A time as a user types it, into epoch seconds *t: @EPOCH, YYYY-MM-DD
 * HH:MM:SS[.FFF] (or with a T), or HH:MM:SS[.FFF] on the job's last day
 * (the day before when that is more than 12 hours past the job's end).
 * Returns 0, or -1 with *cause.
 */
int lm_parse_time(const struct logmerge *m, const char *s, double *t,
    char **cause);
/* The index of the file at `path`, or -1. */
long lm_find_file(const struct logmerge *m, const char *path);

/*
 * The row of line `line` of file `file`: 1 with *row, 0 when the file
 * has no such line (now), -1 with *cause.  Costs a chunk decode unless
 * the chunk is cached.
 */
int lm_line(struct logmerge *m, size_t file, uint64_t line,
    struct lm_row *row, char **cause);
/*
 * The text of a row into `out` (replacing its contents; at most 64 KiB,
 * no newline or trailing CR).  Returns 0, or -1 with *cause when the file
 * cannot be read or has changed under the row.
 */
int lm_text(struct logmerge *m, const struct lm_row *row, struct buf *out,
    char **cause);

/*
 * "PATH:LINE" of a row (allocated): a position that can be saved as text
 * and given back to lm_parse_pos() and lm_seek_line().
 */
char *lm_pos(const struct logmerge *m, const struct lm_row *row);
/*
 * Read "PATH:LINE" (the last colon splits; a path with colons is fine).
 * Returns 0 with *file and *line, or -1 with *cause ("no file 'P' in
 * job J", "'X' is not PATH:LINE").
 */
int lm_parse_pos(const struct logmerge *m, const char *pos, size_t *file,
    uint64_t *line, char **cause);

/*
 * A cursor over the merge: always on a row unless the job has no line.
 * Several cursors may share a merge (one thread).
 */
struct lm_cursor *lm_cursor_new(struct logmerge *m);
void lm_cursor_free(struct lm_cursor *cur);
/* Put dst where src is (both cursors of one merge): no read, no query. */
void lm_cursor_copy(struct lm_cursor *dst, const struct lm_cursor *src);
/*
 * The rows of the merge before the cursor's row: its place in the whole
 * merged log, from 0.  With `want` (one flag a file, NULL: all) only the
 * rows of the files it flags count.  No read: each file's boundary says.
 */
uint64_t lm_index(const struct lm_cursor *cur, const unsigned char *want);

/* Put the cursor on the first row, the last row; 0, or -1 with *cause. */
int lm_seek_first(struct lm_cursor *cur, char **cause);
int lm_seek_last(struct lm_cursor *cur, char **cause);
/*
 * Put the cursor on the first row whose effective time is at or after
 * `t` (epoch seconds), or on the last row when there is none.
 */
int lm_seek_time(struct lm_cursor *cur, double t, char **cause);
/*
 * Put the cursor on line `line` of file `file` (on the file's last line
 * when it has fewer now).  Returns 0, or -1 with *cause.
 */
int lm_seek_line(struct lm_cursor *cur, size_t file, uint64_t line,
    char **cause);

/*
 * Move one row forward or back: 1 moved, 0 already on the last (first)
 * row, -1 with *cause.  lm_prev() undoes lm_next() exactly.
 */
int lm_next(struct lm_cursor *cur, char **cause);
int lm_prev(struct lm_cursor *cur, char **cause);

/* The row under the cursor: 1 with *row, 0 when the job has no line. */
int lm_row(const struct lm_cursor *cur, struct lm_row *row);

#endif
