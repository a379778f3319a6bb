/*
 * flowdb.h -- flow sets in the cache.
 *
 * A job's flow set (src/flows/flowasm.h) is stored whole: its captures, totals,
 * hosts and messages replace whatever the job had, in one transaction, so
 * a failed ingest never loses the previous set.  flowdb_ingest() is what
 * the flow analysis calls: it reuses the stored set when nothing changed
 * and reads the captures otherwise.
 */
#ifndef TS_FLOWDB_H
#define TS_FLOWDB_H

#include "flows/flowasm.h"

struct cache;

/*
 * Replace job_id's flow set with `set`, made with parameters p.  Capture
 * paths under the job's root are stored relative to it.  Returns 0, or
 * -1 with *cause (nothing changed).
 */
int flowdb_store(struct cache *c, long long job_id, const struct flow_set *set,
    const struct flow_params *p, char **cause);

/*
 * Load job_id's stored flow set into *set (initialised here; free with
 * flow_set_free()) and, when p is not NULL, the parameters it was made
 * with.  Capture paths come back as stored.  Returns 1 when loaded, 0
 * when the job has none (set is empty), -1 with *cause on error.
 */
int flowdb_load(struct cache *c, long long job_id, struct flow_set *set,
    struct flow_params *p, char **cause);

/*
 * 1 when job_id's stored set was made with parameters p, by this
 * FLOW_ASM_VERSION, from exactly the files paths[0..n) (any order), each
 * with the size and mtime it has now; 0 otherwise (including a file that
 * is gone); -1 with *cause on error.
 */
int flowdb_fresh(struct cache *c, long long job_id, const char *const *paths,
    size_t n, const struct flow_params *p, char **cause);

/*
 * Find or create the job `name` rooted at `root` (an absolute path) for a
 * flow set: *job_id.  A job of that name with another root is refused.
 * Returns 0, or -1 with *cause.
 */
int flowdb_job(struct cache *c, const char *name, const char *root,
    long long *job_id, char **cause);

/*
 * The flow set of job_id from captures paths[0..n): loaded from the cache
 * when flowdb_fresh() says so (*reused = 1), else read with
 * flow_set_load() (warnings to warn) and stored (*reused = 0).  The cache
 * never costs the set: a stored set that cannot be read is made again, and
 * one that cannot be stored (a read-only or full cache) is still returned;
 * both are warnings.  p may be NULL for the defaults.  Returns 0, or -1
 * with *cause when the captures cannot be read (the cache keeps the
 * previous set).
 */
int flowdb_ingest(struct cache *c, long long job_id, const char *const *paths,
    size_t n, const struct flow_params *p,
    void (*warn)(void *arg, const char *msg), void *warn_arg,
    struct flow_set *set, int *reused, char **cause);

#endif
