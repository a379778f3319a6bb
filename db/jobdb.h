/*
 * jobdb.h -- the jobs of the cache, each resolved once into a job_ref.
 *
 * This module owns the jobs table: it finds a job from what the user
 * typed (its name, or the directory it was indexed from), creates one
 * for an index run or a flow set, records the outcome of a diagnosis and
 * the user's mark, and forgets a job.  No other module writes a jobs row
 * or finds a job by its name or root (t/layering.sh checks it); other
 * queries take a job's id.
 *
 * A struct job_ref is a job resolved once: its row, what the cache knows
 * of its files (the files rows: ids, paths, sizes, mtimes, lines, time
 * ranges) and whether an index run of it stopped before the end.  The
 * model, the loader and the flow join are handed one and never look the
 * job up again.  jobdb_refresh() reads it again by id, in two queries,
 * and says whether anything changed: after the job is indexed again, or
 * while it is followed.
 */
#ifndef TS_JOBDB_H
#define TS_JOBDB_H

#include <stddef.h>
#include <stdint.h>

struct cache;
struct logdb_file;

struct job_ref {
	int64_t id;
	char *name;		/* as the cache spells it; allocated */
	char *root;		/* absolute; its files' paths are relative to it */
	int has_logs;		/* 0: made by `flows` alone, never indexed */
	double indexed;		/* last indexed, epoch seconds; NAN never */
	long pending;		/* files an index run set out to read and did
				   not finish (0: none, or it finished) */
	struct logdb_file *files;	/* its files rows by path (db/logdb.h) */
	size_t nfiles;
};

/*
 * Resolve `what`: the job of that name, or else the job whose root is
 * the real path of `what` (a directory that was indexed).  Returns 1 and
 * fills *ref (release with jobdb_release()), 0 when no job is that (*ref
 * is empty), -1 with *cause.
 */
int jobdb_find(struct cache *c, const char *what, struct job_ref *ref,
    char **cause);

/*
 * Read ref's job again by its id: the row and the files as the cache
 * holds them now.  Returns 1 when anything changed (*ref is updated), 0
 * when nothing did, -1 with *cause (a cache error, or the job is gone:
 * *ref is left as it was).
 */
int jobdb_refresh(struct cache *c, struct job_ref *ref, char **cause);

/* Free what a job_ref holds and empty it; an empty one is fine. */
void jobdb_release(struct job_ref *ref);

/*
 * For an index run, inside its transaction: find or create the job
 * `name` rooted at `root` (absolute), set its root and its last indexed
 * time to now.  Returns 0 and sets *id, or -1 with *cause.
 */
int jobdb_index(struct cache *c, const char *name, const char *root,
    int64_t *id, char **cause);

/*
 * For an index run that may write nothing: the job called `name`, its id
 * in *id (0 when there is none), its root in *root (allocated, NULL when
 * none) and in *pending whether an index run of it stopped before the
 * end.  Returns 0, or -1 with *cause.
 */
int jobdb_index_state(struct cache *c, const char *name, int64_t *id,
    char **root, int *pending, char **cause);

/*
 * The root of the job called `name`: *root allocated (free it), NULL
 * when there is no such job.  Returns 0, or -1 with *cause.
 */
int jobdb_root(struct cache *c, const char *name, char **root,
    char **cause);

/*
 * For a flow set: find or create the job `name` rooted at `root` (an
 * absolute path) and fill *ref (release with jobdb_release()).  A job of
 * that name with another root is refused.  Returns 0, or -1 with *cause.
 */
int jobdb_flows(struct cache *c, const char *name, const char *root,
    struct job_ref *ref, char **cause);

/*
 * Record the user's verdict on job `name`: "good", "bad" or NULL to
 * forget it.  Returns 0, or -1 with *cause (also "no job 'NAME'").
 */
int jobdb_mark(struct cache *c, const char *name, const char *verdict,
    char **cause);

/*
 * Record the outcome of a diagnosis of job `id` ("completed", "degraded"
 * or "failed"), inside the caller's transaction or alone.  Returns 0, or
 * -1 with *cause.
 */
int jobdb_set_outcome(struct cache *c, int64_t id, const char *outcome,
    char **cause);

/*
 * Remove job `name` and all that is its own (files, line lists,
 * checkpoints, node summaries, captures, flow sets, kept results, an
 * unfinished index run's marker) in one transaction.  The templates
 * stay: they are shared by every job.  Returns 1, 0 when there is no
 * such job, -1 with *cause.
 */
int jobdb_forget(struct cache *c, const char *name, char **cause);

#endif
