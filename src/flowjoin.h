/*
 * flowjoin.h -- flow findings of a job's captures as node evidence for
 * the log diagnosis.
 */
#ifndef FLOWJOIN_H
#define FLOWJOIN_H

#include <stdio.h>

struct diag_job;

/*
 * Load the captures under job->root (if any), analyse them, and add each
 * straggler and each end of a slow link whose host maps to one of the
 * job's nodes as diag_node_evidence().  Unreadable records are reported on
 * `warn` (may be NULL).  Returns how many pieces of evidence were added
 * (0 when there is no capture or no host could be named), or -1 with
 * *cause when a capture cannot be read.
 */
int flowjoin_evidence(struct diag_job *job, FILE *warn, char **cause);

#endif
