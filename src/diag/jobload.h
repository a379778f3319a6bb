/*
 * jobload.h -- building a job's diagnosis model from the cache.
 *
 * jobload() fills the in-memory model of src/diag.h from what the indexer
 * stored: nodes and their log files (files of no known node are split by
 * the rank prefix of their lines, each rank becoming a node through the
 * ranks table or the job's hostfile), counts per node and template, the
 * first occurrence of every template, per-file template sequences cut
 * into iterations by the stage tracker (src/stage.h), the iteration
 * durations, and the healthy pool -- the runs of the same job (pool.h)
 * marked good or that ended cleanly, the runs named for it with mark
 * --for, and the --baseline jobs -- with each template's share and rate
 * there and the runs' names.  One raw line per template is read back from its log (its first
 * occurrence) for its level and for the fault library.
 */
#ifndef TS_JOBLOAD_H
#define TS_JOBLOAD_H

#include <stddef.h>

struct cache;
struct diag_job;
struct diag_result;
struct job_ref;

/*
 * Load the job `ref` (found with jobdb_find(); its files are taken from
 * it, borrowed) with the healthy pool plus the jobs named in
 * baselines[0 .. nbase) (names or directories).  The model's name is the
 * job's name in the cache.  Returns 0 and sets *out (free with
 * diag_job_free()), or -1 with *cause (a job made by `flows` alone, an
 * unknown baseline, a cache error).
 */
int jobload(struct cache *c, const struct job_ref *ref,
    const char *const *baselines, size_t nbase, struct diag_job **out,
    char **cause);

/*
 * Record what the diagnosis of job `ref` concluded in the cache: its
 * outcome in diagnose's words ("completed", "degraded" or "failed"; a
 * completed run joins the healthy pool) and the stage and iteration of
 * each template's first occurrence.  Returns 0, or -1 with *cause.
 */
int jobload_store(struct cache *c, const struct job_ref *ref,
    const struct diag_job *job, const struct diag_result *r, char **cause);

#endif
