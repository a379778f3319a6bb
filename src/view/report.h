/*
 * report.h -- the failure report of a job the views look at, for a ticket
 * (view/cmd-report.c; the `report` command writes it).
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <stdio.h>

struct view;

/*
 * Write the report of v's job (v->m must be set; v->cache may be NULL: no
 * sample lines then) to f, as plain text or, when md is nonzero,
 * Markdown; `paths` adds the job's directory.  Every string of the model
 * and every log line is made inert, and in Markdown escaped or fenced.
 * The view state is left as it was.  Returns 0, or -1 when f has an
 * error.
 */
int report_write(FILE *f, struct view *v, int md, int paths);

#endif
