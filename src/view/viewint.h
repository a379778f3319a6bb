/*
 * viewint.h -- what the files of the view share: the lines pane's rows,
 * drill targets, the row model and patterns.
 */
#ifndef TS_VIEWINT_H
#define TS_VIEWINT_H

#include <stddef.h>
#include <stdint.h>

struct model;
struct view;

/* A row of the lines pane. */
struct view_line {
	int64_t file;
	char *path;		/* relative to the job's root (shared per file) */
	uint64_t line;
	char *text;		/* NULL: not read yet; NUL-terminated, but a
				   NUL of the line may come before len */
	size_t len;
	int hit;		/* the line itself, not context */
	int trace;		/* context that is its error's trace (the
				   traceback before it) */
};

/* What a pane's row leads to. */
enum {
	VT_NONE, VT_EVENT, VT_NODE, VT_GROUP, VT_ITER, VT_LINE, VT_JOB
};

struct view_target {
	int kind;
	uint32_t id;		/* VT_EVENT: template id */
	long node;		/* VT_NODE, VT_GROUP; VT_EVENT: -1 any */
	long iter;		/* VT_ITER; VT_LINE: the line */
	const char *name;	/* VT_JOB: the job; VT_LINE: the path */
	char *owned;		/* free after use */
	const char *why;	/* none: why not (static), NULL: nothing */
};

/* The drill target of the cursor's row; 0, or -1 when there is none. */
int view_target(struct view *v, struct view_target *t);
/*
 * The events the filters leave, in the sort's order: indices into the
 * model's events (allocated, *n of them).
 */
size_t *view_event_rows(const struct view *v, size_t *n);
/* Selectable rows of the active pane; rows visible at the last draw. */
int view_nrows(struct view *v);
int view_page(const struct view *v);

/*
 * The row model (rows.c).  A row of a list pane is an item of the model
 * (an event, a node, an iteration, a host, a job), or a fold of several
 * (the heatmap's groups of nodes).  A pane's rows are built once for a
 * view state and kept until the state, the model or the screen's height
 * changes; every later question reads them.
 */
struct row {
	size_t item;		/* index into the model's list the pane shows;
				   a fold: into rows.members */
	size_t n;		/* 0: one item; a fold: members[item .. +n) */
};

struct rows {
	struct row *row;
	size_t n;
	size_t *members;	/* what folds point into (the heatmap's nodes
				   in row order) */
	size_t nmembers;
	void *aux;		/* the pane's own data of its rows */
	void (*aux_free)(void *aux);
	char *error;		/* why the rows could not be read, NULL */
	/* what they were built for */
	int valid;
	unsigned long gen;
	int height;
};

/*
 * The rows of the active pane, built if they are not (NULL when the pane
 * keeps its rows itself).  Borrowed: valid until the next change of the
 * view state.
 */
const struct rows *rows_get(struct view *v);
/* Forget the rows of pane p, or of every pane (p < 0). */
void rows_drop(struct view *v, int p);
/* Add a row of item (n: a fold of n members from item). */
void rows_add(struct rows *r, size_t item, size_t n);
/* Free what r holds and zero it. */
void rows_release(struct rows *r);
/* The builders of the list panes' rows (pane_ops.build). */
void rows_events(struct view *v, struct rows *r);
void rows_heatmap(struct view *v, struct rows *r);
void rows_timeline(struct view *v, struct rows *r);
void rows_groups(struct view *v, struct rows *r);
/*
 * The heatmap's rows for `room` rows of screen (< 0: no limit): suspects
 * first, the others folded into groups when they do not fit.
 */
void rows_heatmap_fold(const struct view *v, struct rows *r, int room);
/* The heatmap's rows the screen shows at height h (< 0: no limit). */
int rows_heatmap_room(int h);
/* Whether node n of m is a suspect the heatmap puts first. */
int rows_suspect(const struct model *m, size_t n);
/*
 * The iterations the filters keep: [*a, *b]; 0 when no filter limits
 * them (LONG_MIN, LONG_MAX).
 */
int rows_iter_range(const struct view *v, long *a, long *b);
/*
 * What of a model's numbers the panes take as they are (a model read
 * back from the cache may hold any): an iteration number in [0, 2^53];
 * the first and last such of the model's iterations (0 when none); a
 * score as [0, 1] (no number: 0); a duration in ms, finite and >= 0.
 */
int rows_iter_ok(long it);
int rows_iter_span(const struct model *m, long *first, long *last);
double rows_score(double s);
int rows_ms_ok(double ms);

/* The lines pane's rows: (re)build the list, read the text of a range. */
void view_lines_clear(struct view *v);
int view_lines_build(struct view *v);
void view_lines_fill(struct view *v, size_t from, size_t to);
/*
 * Read the texts of rows [from, to) in order from their files, without
 * keeping them: fn(arg, row, text, len) for each, the text borrowed for
 * the call (or why the row has none).  A nonzero return from fn stops;
 * returns it, or 0.  Each file is read once, from the checkpoint before
 * its first row.
 */
int view_lines_scan(struct view *v, size_t from, size_t to,
    int (*fn)(void *arg, size_t row, const char *s, size_t len), void *arg);

/* A compiled case-insensitive PCRE2 pattern, or NULL with *cause. */
void *view_regex(const char *pattern, char **cause);
/* Whether re matches s; the first match's byte range. */
int view_regex_find(void *re, const char *s, size_t len, size_t *start,
    size_t *end);

#endif
