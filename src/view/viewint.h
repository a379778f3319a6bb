/*
 * viewint.h -- what view.c, panes.c and viewlines.c share.
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
	char *text;		/* NULL: not read yet */
	int hit;		/* the line itself, not context */
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
/* Whether row r of the active pane matches the search. */
int view_row_matches(struct view *v, int r);
/* Put the cursor on node n of the heatmap. */
int view_select_node(struct view *v, long n, char **cause);
/* Put the cursor on the iteration at time HH:MM:SS. */
int view_select_time(struct view *v, const char *hms, char **cause);
/* Load the model of a job for a drill from the jobs pane. */
int view_open_job(struct view *v, const char *name, struct model **out,
    char **cause);

/* The lines pane's rows: (re)build the list, read the text of a range. */
void view_lines_clear(struct view *v);
int view_lines_build(struct view *v);
void view_lines_fill(struct view *v, size_t from, size_t to);

/* A compiled case-insensitive PCRE2 pattern, or NULL with *cause. */
void *view_regex(const char *pattern, char **cause);
/* Whether re matches s; the first match's byte range. */
int view_regex_find(void *re, const char *s, size_t len, size_t *start,
    size_t *end);

#endif
