/*
 * pane.h -- a pane of the screen is a file behind a table of operations.
 *
 * Each pane (src/view/pane-NAME.c) fills one struct pane_ops; pane.c
 * holds the table, one entry per enum view_pane, and the few functions
 * that call through it.  Nothing else asks which pane is which: the view
 * state (view.c), the screen (draw.c) and the commands know a pane only
 * by its operations and flags (t/layering.sh checks it).
 *
 * A pane has selectable rows.  Most build them once per view state into
 * a struct rows (rows.c) that drawing, the drill target, search and
 * export then read; a pane whose rows are too many to hold (the lines
 * of a whole job) answers the same questions on demand instead: its
 * nrows() may be large, its draw() reads only the rows it shows, and its
 * find() may answer later.
 */
#ifndef TS_PANE_H
#define TS_PANE_H

#include <stddef.h>
#include <stdio.h>

#include "view/view.h"

struct canvas;
struct json;
struct rows;
struct view_target;

/* Where a pane draws: the canvas, its first row, and how many it has. */
struct area {
	struct canvas *cv;
	int row0;
	int nrows;		/* < 0: no limit (the whole pane, for export) */
	int w;
	FILE *out;		/* export: rows may be written out as they are
				   drawn (draw_flush()); NULL: kept */
	long *map;		/* the pane row of each canvas row, or NULL */
	int nmap;
};

/* The flags of a pane. */
enum {
	PF_JOB = 1,		/* shows the open job: none without one */
	PF_HSCROLL = 2,		/* its text scrolls sideways */
	PF_REDRAW_ROWS = 4,	/* its rows come from outside the model (the
				   cache): read again at every draw */
	PF_RAW = 8,		/* its search reads the job's raw lines */
	PF_MERGED = 16		/* its rows are the merged log: goto time and
				   goto iter put its cursor there, and its
				   place is saved as `goto line KEY` */
};

/* What a search found. */
enum {
	FIND_NONE = 0,		/* no row matches */
	FIND_FOUND = 1,		/* *row matches */
	FIND_LATER = 2		/* the pane is still looking: it moves the
				   cursor itself when it finds the row */
};

struct pane_ops {
	const char *name;	/* as `pane NAME` takes it */
	int flags;		/* PF_* */
	/*
	 * Build the rows of the current view state into r (zeroed), for
	 * rows_get(); NULL when the pane keeps its rows itself.
	 */
	void (*build)(struct view *v, struct rows *r);
	/* Selectable rows; NULL: those of build(). */
	size_t (*nrows)(struct view *v);
	/*
	 * Draw the pane into a from its scroll offset, as many rows as fit
	 * (all when a->nrows < 0); count the selectable rows shown in
	 * v->page.  *used counts the area's rows taken.
	 */
	void (*draw)(struct view *v, struct area *a, int *used);
	/* What row r leads to: 0, or -1 when nothing (*t zeroed, node -1). */
	int (*target)(struct view *v, size_t r, struct view_target *t);
	/* Whether row r matches the compiled pattern re; NULL: never. */
	int (*match)(struct view *v, size_t r, void *re);
	/*
	 * The next row matching re from the cursor (dir 1 down, -1 up, 0 the
	 * cursor's row first), wrapping: FIND_*.  NULL: match() row by row.
	 */
	int (*find)(struct view *v, void *re, int dir, size_t *row);
	/*
	 * Every row as JSON (into j) or TSV (to out): 0, or -1 with *cause.
	 * NULL: the pane is text only.
	 */
	int (*data)(struct view *v, struct json *j, FILE *out, int tsv,
	    char **cause);
	/*
	 * Move the cursor as view_move() is asked (NULL: by row index in
	 * the rows of nrows()): 0, or -1 with *cause.
	 */
	int (*move)(struct view *v, const char *how, char **cause);
	/*
	 * Move the column cursor as view_column() is asked: 0, or -1 with
	 * *cause.  NULL: the pane has no columns.
	 */
	int (*column)(struct view *v, const char *how, char **cause);
	/*
	 * The cell under the column cursor and the row's, in words, into
	 * buf: 1, or 0 when no column is chosen (NULL: no columns).
	 */
	int (*cell)(struct view *v, char *buf, size_t len);
	/* The stable key of row r, allocated; NULL: none (NULL: no keys). */
	char *(*key)(struct view *v, size_t r);
	/*
	 * What the status line says of the pane after its name (the cursor's
	 * place, hidden lines, the search) into buf; NULL: "ROW/ROWS".
	 */
	void (*status)(struct view *v, char *buf, size_t len);
	/* Forget what the pane keeps itself (v->own[]); NULL: nothing. */
	void (*release)(struct view *v);
	/* The column a bookmarked row's '*' is drawn in (a blank one). */
	int markcol;
};

extern const struct pane_ops pane_events;
extern const struct pane_ops pane_heatmap;
extern const struct pane_ops pane_timeline;
extern const struct pane_ops pane_groups;
extern const struct pane_ops pane_lines;
extern const struct pane_ops pane_jobs;
extern const struct pane_ops pane_log;

/* The operations of pane p (of the jobs pane when p is out of range). */
const struct pane_ops *pane_get(enum view_pane p);
/*
 * The active pane of v: the jobs pane when it needs a job and none is
 * open.
 */
const struct pane_ops *pane_active(const struct view *v);
/* Every pane's release(): what they keep is forgotten. */
void pane_release_all(struct view *v);
/* The next row matching re, as pane_ops.find() says (FIND_*). */
int pane_find(struct view *v, void *re, int dir, size_t *row);

/*
 * The shared drawing helpers (draw.c).
 */

/* The next row of the area (a canvas row is added), or -1 when it is full. */
int draw_row(struct area *a, int *used);
/* Note that canvas row `row` shows pane row r (for the screen's map). */
void draw_map(struct area *a, int row, long r);
/*
 * Export: write the rows drawn so far to a->out and drop them from the
 * canvas, the area going on as before.  0, or -1 when writing failed.
 */
int draw_flush(struct area *a, int *used);
/* Draw path in w columns from col; a path too long keeps its tail. */
void draw_tail(struct canvas *cv, int row, int col, int w, int style,
    const char *path);
/* A time of day "HH:MM:SS" of epoch seconds ts into buf, "-" for NAN. */
void draw_clock(double ts, char *buf, size_t len);
/*
 * Draw template t with its variable parts (<*>) in CS_VAR from col up
 * to end, without its first `skip` columns.
 */
void draw_template(struct canvas *cv, int row, int col, int end, int style,
    const char *t, int skip);
/* A score in [0, 1] as a bar of w cells in eighths of a block. */
void draw_bar(struct canvas *cv, int row, int col, int w, double s);
/*
 * Wrap len bytes of text into the area from column col after `label`
 * (drawn bold on the first row; may be NULL), at most maxrows rows; the
 * last row shows an ellipsis when text is left over.
 */
void draw_wrap(struct area *a, int *used, int col, int style,
    const char *label, const char *text, size_t len, int maxrows);
/* Rows draw_wrap() would take on cv for text in width w, at most maxrows. */
int draw_wrap_rows(const struct canvas *cv, int w, int col,
    const char *label, const char *text, int maxrows);

#endif
