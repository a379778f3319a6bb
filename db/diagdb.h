/*
 * diagdb.h -- the diagnosis's queries on the cache.
 *
 * Only rows go in and out here, of a job found once (db/jobdb.h) and
 * named by its id: its nodes, log files, ranks and per-file template rows
 * (with their line-number blobs), the healthy pool, the outcome and stage
 * tags the diagnosis writes back, and the stored results of a diagnosis
 * keyed by what they were computed from.  Building a job's model from these rows (reading raw lines,
 * tracking stages, splitting combined logs) is the core's work
 * (src/diag/jobload.c).
 *
 * The row callbacks get borrowed strings and blobs, valid only during the
 * call; returning nonzero from a callback stops the walk and is returned.
 */
#ifndef TS_DIAGDB_H
#define TS_DIAGDB_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct cache;
struct diag_job;
struct diag_result;

/* The nodes of a job, by name. */
int diagdb_each_node(struct cache *c, int64_t job,
    int (*fn)(void *arg, int64_t id, const char *name), void *arg,
    char **cause);

/* A log file of a job (files.kind = 'log'). */
struct diagdb_file {
	int64_t id;
	const char *path;	/* relative to the job's root */
	int64_t node;		/* nodes.id, 0: no known node */
	uint64_t lines;
	double last_ts;		/* NAN: none */
};
/* The job's log files, by path. */
int diagdb_each_log_file(struct cache *c, int64_t job,
    int (*fn)(void *arg, const struct diagdb_file *f), void *arg,
    char **cause);

/* A file_templates row of a log file, with the template's text. */
struct diagdb_row {
	int64_t file;
	uint32_t tmpl;
	const char *text;	/* the first row of each template only, and
				   not when it has no text: else NULL */
	uint64_t count;
	uint64_t first_line, first_off, last_line, last_off;
	double first_ts, last_ts;	/* NAN: none */
};
/*
 * Every row of the job's log files, by file id then template id, without
 * their line numbers (diagdb_file_lines() reads those, a file at a time).
 */
int diagdb_each_row(struct cache *c, int64_t job,
    int (*fn)(void *arg, const struct diagdb_row *r), void *arg,
    char **cause);
/*
 * The line numbers of each template of file `file` (varint deltas, as
 * logdb stores them), by template id.  Returns 0, or -1 with *cause.
 */
int diagdb_file_lines(struct cache *c, int64_t file,
    int (*fn)(void *arg, uint32_t tmpl, const unsigned char *lines,
    size_t len), void *arg, char **cause);

/* The ranks of a job that have a known node. */
int diagdb_each_rank(struct cache *c, int64_t job,
    int (*fn)(void *arg, long rank, int64_t node), void *arg, char **cause);

/*
 * The candidates of job `job`'s healthy pool: jobs marked good, or whose
 * diagnosis was "completed" and are not marked, and the runs named for it
 * (diagdb_mark_for()), other than the job itself, by id.  *ids is
 * allocated (free it).  Returns 0, or -1 with *cause.
 */
int diagdb_pool(struct cache *c, int64_t job, int64_t **ids, size_t *n,
    char **cause);
/* What says whether a run is of the same job as another (jobload.c). */
struct diagdb_shape {
	char *name;
	char *root;
	char *log;		/* its first process log (by rank, then path),
				   relative to root; NULL none */
	long nodes;		/* its nodes */
	long ranks;		/* ranks the index placed, else its logs */
};

/*
 * The name, root, first log and node and rank counts of job `job`.
 * Returns 0 (release with diagdb_shape_release()), or -1 with *cause.
 */
int diagdb_job_shape(struct cache *c, int64_t job, struct diagdb_shape *out,
    char **cause);
void diagdb_shape_release(struct diagdb_shape *s);

/*
 * How long job `job` logged: the span in seconds from the first to the
 * last time of its files whose timestamps are of kind `ts_kind` (the
 * files table's), 0 when none.  Returns 0, or -1 with *cause.
 */
int diagdb_job_span(struct cache *c, int64_t job, int ts_kind, double *secs,
    char **cause);
/*
 * For a healthy job h: how many nodes its logs come from (files of no
 * known node count one each) in *nodes, and fn for each of its templates
 * with the number of lines (*nodes is set before the first call).
 */
int diagdb_template_sums(struct cache *c, int64_t h, double *nodes,
    int (*fn)(void *arg, uint32_t tmpl, uint64_t count), void *arg,
    char **cause);

/*
 * Name run `run` a healthy run of job `job` (both job ids): it joins the
 * job's pool whatever its shape.  Returns 0, or -1 with *cause.
 */
int diagdb_mark_for(struct cache *c, int64_t run, int64_t job,
    char **cause);
/* Forget the jobs run `run` (a job id) was named a healthy run of. */
int diagdb_unmark_for(struct cache *c, int64_t run, char **cause);
/*
 * The runs named healthy runs of job `job` (mark --for), by id; *ids is
 * allocated (free it).  Returns 0, or -1 with *cause.
 */
int diagdb_named(struct cache *c, int64_t job, int64_t **ids, size_t *n,
    char **cause);

/* What diagdb_store() writes: the outcome and each template's first tag. */
struct diagdb_tag {
	uint32_t tmpl;
	const char *path;	/* of its first occurrence */
	long line;
	const char *stage;
	long iteration;		/* -1: none */
};
/*
 * Record what the diagnosis of job `job` (an id) concluded: its outcome
 * ("completed", "degraded" or "failed"; see jobdb_set_outcome()) and the
 * stage and iteration of each template's first occurrence in
 * node_templates, in one transaction.  Returns 0, or -1 with *cause.
 */
int diagdb_store(struct cache *c, int64_t job, const char *outcome,
    const struct diagdb_tag *tags, size_t ntags, char **cause);

/*
 * The template of line `line` (1-based) of file `path` of job `job`.
 * Returns 1 and sets *id, 0 when the line has none (or no such file).
 */
int diagdb_line_template(struct cache *c, const char *job, const char *path,
    uint64_t line, uint32_t *id, char **cause);

/*
 * Append to `out` a description of everything a diagnosis of job `job`
 * rests on in the cache: every file row (path, size, mtime, inode, bytes,
 * lines), the job's mark, its capture rows, and for each job of its
 * healthy pool the same summary.  Two descriptions are equal only when
 * none of that changed.  Returns 0, or -1 with *cause.
 */
int diagdb_stamp(struct cache *c, int64_t job, struct buf *out,
    char **cause);

/*
 * A stored result of job `job`.  Returns 1 and sets *blob (allocated) and
 * *len when one is stored under exactly `key`, 0 when none is (or only a
 * stale one), -1 with *cause.
 */
int diagdb_result_get(struct cache *c, int64_t job, const char *key,
    void **blob, size_t *len, char **cause);
/* Store a result under `key`, replacing the job's earlier one. */
int diagdb_result_put(struct cache *c, int64_t job, const char *key,
    const void *blob, size_t len, char **cause);

#endif
