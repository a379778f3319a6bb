/*
 * report.h -- the failure report of a job the views look at, for a ticket
 * (view/cmd-report.c; the `report` command writes it).
 */
#ifndef TS_REPORT_H
#define TS_REPORT_H

#include <stdio.h>

struct view;

enum {
	REPORT_PATHS = 1,	/* the job's directory too */
	REPORT_FULL = 2		/* every suspect, event and iteration */
};

/*
 * Write the report of v's job (v->m must be set; v->cache may be NULL: no
 * sample lines then) to f, as plain text or, when md is nonzero,
 * Markdown; flags are REPORT_*.  It opens with a verdict line; without
 * REPORT_FULL it is short (suspects from a score of 0.2, consequences
 * under their cause, the heatmap folded, the iterations that matter).
 * Every string of the model and every log line is made inert, and in
 * Markdown escaped or fenced.  The view state is left as it was.
 * Returns 0, or -1 when f has an error.
 */
int report_write(FILE *f, struct view *v, int md, int flags);

#endif
