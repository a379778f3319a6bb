/*
 * flowdb.h -- flow sets in the cache.
 *
 * A job's flow set (src/flows/flowset.h) is stored whole: its captures,
 * totals, hosts and messages replace whatever the job had, in one
 * transaction, so a failed store never loses the previous set.  This is
 * storage only: reading captures, and deciding whether a stored set
 * still stands for them, is the flow join's (src/flows/flowjoin.h).
 */
#ifndef TS_FLOWDB_H
#define TS_FLOWDB_H

#include "flows/flowset.h"

struct cache;

/*
 * Replace job_id's flow set with `set`, made with parameters p (NULL: the
 * defaults).  Capture paths are stored as the set has them.  Returns 0,
 * or -1 with *cause (nothing changed; also when there is no such job).
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
 * What a stored set was made from, without its hosts and messages: the
 * totals and capture rows of job_id's set in *set (as flowdb_load();
 * free with flow_set_free()), the parameters in *p and the
 * FLOW_ASM_VERSION that assembled it in *version.  Returns 1, 0 when the
 * job has no set, -1 with *cause.
 */
int flowdb_captures(struct cache *c, long long job_id, struct flow_set *set,
    struct flow_params *p, int *version, char **cause);

#endif
