/*
 * flowjoin.h -- a job's flow set, loaded through the cache, and its
 * findings as node evidence for the log diagnosis.
 */
#ifndef FLOWJOIN_H
#define FLOWJOIN_H

#include <stdio.h>

struct cache;
struct diag_job;
struct flow_params;
struct flow_set;
struct job_ref;
struct model_flows;

/*
 * Load the flow set of captures paths[0 .. n) (p NULL: the default
 * parameters).  With a cache c and the job they belong to (both may be
 * NULL), the set stored for the job is used when it was made with p by
 * this assembly from exactly these files as they are now; otherwise the
 * captures are read with flow_set_load() (warnings to warn) and the set
 * is stored for the job.  The cache never costs the set: a stored set
 * that cannot be read is made again, and one that cannot be stored (a
 * read-only or full cache) is still returned; both are warnings.
 * Returns 0 (*set initialised; free with flow_set_free()), or -1 with
 * *cause when a capture cannot be read (the cache keeps the previous
 * set).
 */
int flowjoin_load(struct cache *c, const struct job_ref *job,
    char *const *paths, size_t n, const struct flow_params *p,
    void (*warn)(void *arg, const char *msg), void *warn_arg,
    struct flow_set *set, char **cause);

/*
 * The captures under root, as flow_find_captures() finds them, in *paths
 * (free with flow_paths_free()).  With the ref of the job indexed from
 * root (may be NULL), a file it holds as a log, unchanged since it was
 * read, is not opened: discovery found it no capture then.  Returns 0,
 * or -1 with *cause when root cannot be read.
 */
int flowjoin_captures(const struct job_ref *ref, const char *root,
    char ***paths, size_t *n, char **cause);

/*
 * Load the captures under job->root (if any; found with
 * flowjoin_captures(), the ref's logs not probed again), analyse them,
 * and add each straggler and each end of a slow link whose host maps to
 * one of the job's nodes as diag_node_evidence().  With a cache c and the
 * job's ref (both may be NULL) the job's flow set is taken from the cache
 * when the captures have not changed, and kept there otherwise
 * (flowjoin_load()).
 * Unreadable records are reported on `warn` (may be NULL).  Returns how
 * many pieces of evidence were added (0 when there is no capture or no
 * host could be named), or -1 with *cause when a capture cannot be read.
 * When mf is not NULL, what the captures show is filled in for the model
 * (model_flows_fill()), or why they could not be used.
 */
int flowjoin_evidence(struct diag_job *job, struct cache *c,
    const struct job_ref *ref, FILE *warn, struct model_flows *mf,
    char **cause);

#endif
