/*
 * linetag.h -- the stage and iteration of any raw line of a job, for the
 * merged log and the raw-text search's filters.
 *
 * The tags are what the per-stream stage tracker (stage.h) says of the
 * line: a file is one stream, a combined log one stream per rank prefix.
 * Today they come from replaying the line's whole file through the
 * tracker once (then kept for the last few files asked about); the
 * interface does not say so, so stored change points can take its place.
 */
#ifndef TS_LINETAG_H
#define TS_LINETAG_H

#include "diag/stage.h"

struct logmerge;
struct lm_row;
struct linetag;

/* A tagger of the merge's rows (borrowed; outlive the tagger). */
struct linetag *linetag_new(struct logmerge *m);
void linetag_free(struct linetag *t);

/*
 * The stage of a row and the iteration it belongs to (*iter -1: none,
 * before the stream's first iteration line).  Costs one read of the
 * row's file the first time the file is asked about.  Returns 0, or -1
 * with *cause when the file cannot be read.
 */
int linetag_get(struct linetag *t, const struct lm_row *row,
    enum stage *stage, long *iter, char **cause);

#endif
