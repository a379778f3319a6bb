/*
 * jobmodel.h -- the model of a job, from the cache to struct model.
 *
 * job_model() runs what `diagnose` runs (load, captures, scorer, fault
 * library), records the outcome in the cache as `diagnose` does, and
 * returns the model the views read.  The model is kept in the cache
 * under a key of everything it was computed from (the trainscope
 * version, the fault library, the options, the job's indexed files,
 * captures and mark, and the healthy pool): an unchanged job is read
 * back instead of computed; any change makes the kept one stale.
 */
#ifndef TS_JOBMODEL_H
#define TS_JOBMODEL_H

#include <stddef.h>
#include <stdio.h>

struct cache;
struct job_ref;
struct model;

enum {
	JOBMODEL_NO_FLOWS = 1,	/* leave the captures out */
	JOBMODEL_FRESH = 2,	/* compute, do not read a stored model */
	JOBMODEL_LIVE = 4	/* the job still runs (follow): its silence
				   lasts until now, the wall clock put on the
				   logs' clock by its newest file; computed,
				   never kept */
};

/*
 * The model of job `job` (found with jobdb_find(); borrowed: nothing
 * looks the job up again), compared with the healthy pool and
 * baselines[0 .. nbase).  Warnings (fault library, captures left out, a
 * cache that cannot keep the outcome) go to `err` (may be NULL) as
 * "trainscope: CMD: ..." lines, naming the command `cmd` (may be NULL).
 * Returns 0 and sets *out (free with model_free()), or -1 with *cause.
 */
int job_model_ref(struct cache *c, const struct job_ref *job,
    const char *const *baselines, size_t nbase, int flags, FILE *err,
    const char *cmd, struct model **out, char **cause);

/*
 * What job_model_kept() read back: the model, the key it was kept under
 * and the fault library the key was made with, for the caller to hand
 * to job_model_ref_kept() of the same job.
 */
struct job_kept;

/*
 * Whether job_model_ref() of `job` with `flags` (and no baselines) would
 * read back a model kept in the cache instead of computing one: 1 yes,
 * 0 no (also when that cannot be told).  Costs the fault library, the
 * key and a decode; on 1, when kept is not NULL, *kept holds what was
 * read (free with job_kept_free(), or hand it to job_model_ref_kept(),
 * which then neither loads the library nor decodes the model again);
 * else *kept is NULL.  On 0 the fault library's errors are said to `err`
 * (may be NULL) as job_model_ref() says them, for a caller that computes
 * the model where nothing can be said (behind the screen).
 */
int job_model_kept(struct cache *c, const struct job_ref *job, int flags,
    FILE *err, const char *cmd, struct job_kept **kept);

/*
 * job_model_ref() handed `kept` (taken: freed here whatever happens; may
 * be NULL), what job_model_kept() read of the same job and cache: its
 * fault library is used (as it was loaded then), and its model when the
 * key, made now, is still the one it was kept under (a job that changed
 * since is read afresh).
 * A kept of another job or cache is only freed.
 */
int job_model_ref_kept(struct cache *c, const struct job_ref *job,
    const char *const *baselines, size_t nbase, int flags, FILE *err,
    const char *cmd, struct job_kept *kept, struct model **out,
    char **cause);

/* Free what job_model_kept() gave; NULL is fine. */
void job_kept_free(struct job_kept *kept);

/*
 * job_model_ref() of the job `name` (a name or an indexed directory),
 * found once here.  Returns 0 and sets *out, or -1 with *cause (also
 * "no job 'NAME' (index it first)").
 */
int job_model(struct cache *c, const char *name,
    const char *const *baselines, size_t nbase, int flags, FILE *err,
    const char *cmd, struct model **out, char **cause);

#endif
