/*
 * flowjoin.h -- flow findings of a job's captures as node evidence for
 * the log diagnosis.
 */
#ifndef FLOWJOIN_H
#define FLOWJOIN_H

#include <stdio.h>

struct cache;
struct diag_job;
struct flow_params;
struct flow_set;
struct model_flows;

/*
 * Load the flow set of captures paths[0 .. n), the job `name` rooted at
 * `root` (an absolute path): through the cache c when there is one and the
 * job can be kept there (see flowdb_ingest(); a name taken by another
 * root is a warning, and the set is read without the cache), else with
 * flow_set_load().  Returns 0, or -1 with *cause when a capture cannot be
 * read.
 */
int flowjoin_load(struct cache *c, const char *name, const char *root,
    char *const *paths, size_t n, const struct flow_params *p,
    void (*warn)(void *arg, const char *msg), void *warn_arg,
    struct flow_set *set, char **cause);

/*
 * Load the captures under job->root (if any), analyse them, and add each
 * straggler and each end of a slow link whose host maps to one of the
 * job's nodes as diag_node_evidence().  With a cache (c may be NULL) the
 * job's flow set is taken from it when the captures have not changed, and
 * kept there otherwise.  Unreadable records are reported on `warn` (may
 * be NULL).  Returns how many pieces of evidence were added
 * (0 when there is no capture or no host could be named), or -1 with
 * *cause when a capture cannot be read.  When mf is not NULL, what the
 * captures show is filled in for the model (model_flows_fill()), or why
 * they could not be used.
 */
int flowjoin_evidence(struct diag_job *job, struct cache *c, FILE *warn,
    struct model_flows *mf, char **cause);

#endif
