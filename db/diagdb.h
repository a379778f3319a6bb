/*
 * diagdb.h -- the diagnosis's view of the cache.
 *
 * diagdb_load() builds the in-memory model of src/diag.h from what the
 * indexer stored: nodes and their log files (files of no known node are
 * left out when the job has nodes, and each becomes its own node when it
 * has none), counts per node and template, the first occurrence of every
 * template, per-file template sequences cut into iterations by the stage
 * tracker of src/stage.h, and the healthy pool (jobs marked good or that
 * ended cleanly, plus --baseline jobs) with each template's share and rate
 * there.  One raw line per template is read back from the log (its first
 * occurrence) for its level and for the fault library.
 */
#ifndef TS_DIAGDB_H
#define TS_DIAGDB_H

#include <stddef.h>
#include <stdint.h>

struct cache;
struct diag_job;
struct diag_result;

/*
 * Load job `name` (a job name, or the directory of an indexed job) with
 * the healthy pool plus the jobs named in baselines[0 .. nbase) (names or
 * directories).  The model's name is the job's name in the cache.  Returns 0 and sets *out (free with
 * diag_job_free()), or -1 with *cause ("no job 'NAME'", a cache error).
 */
int diagdb_load(struct cache *c, const char *name,
    const char *const *baselines, size_t nbase, struct diag_job **out,
    char **cause);

/*
 * Record the user's verdict on a job: "good", "bad" or NULL to forget it.
 * Returns 0, or -1 with *cause.
 */
int diagdb_mark(struct cache *c, const char *name, const char *verdict,
    char **cause);

/*
 * Record what the diagnosis concluded: the job's outcome ('healthy' when
 * it ended cleanly: no failure iteration and every node in shutdown or
 * past its last iteration without errors; else 'failed'), and the stage
 * and iteration of each template's first occurrence in node_templates.
 * Returns 0, or -1 with *cause.
 */
int diagdb_store(struct cache *c, const struct diag_job *job,
    const struct diag_result *r, char **cause);

/*
 * The template of line `line` (1-based) of file `path` of job `job`.
 * Returns 1 and sets *id, 0 when the line has none (or no such file).
 */
int diagdb_line_template(struct cache *c, const char *job, const char *path,
    uint64_t line, uint32_t *id, char **cause);

#endif
