/*
 * view.h -- the investigation's view state and the six panes.
 *
 * A struct view is one investigation: the cache, the job model it looks
 * at (src/model.h), and the view state that the commands `pane`,
 * `filter`, `sort`, `drill`, `back`, `goto`, `search`, `context` and the
 * cursor motions change.  view_draw() renders the whole screen (a header
 * line, the active pane and a status line) into a canvas; the terminal
 * painter (ui/) and the headless `view` and `export` commands both draw
 * from it, so they show the same text.
 *
 * The panes:
 *   events    the ranked suspicious events, with the selected one's
 *             reasons and fault-library texts below the list;
 *   heatmap   nodes x iterations (or time), suspect nodes first;
 *   timeline  the stages on a time axis, iteration ticks, durations;
 *   groups    data-parallel groups and pipelines from the captures;
 *   lines     the raw lines behind an event, node or iteration;
 *   jobs      the jobs in the cache;
 *   log       every raw line of the job in time order (the merged log).
 */
#ifndef TS_VIEW_H
#define TS_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cache;
struct canvas;
struct model;

enum view_pane {
	PANE_EVENTS, PANE_HEATMAP, PANE_TIMELINE, PANE_GROUPS, PANE_LINES,
	PANE_JOBS, PANE_LOG, PANE_COUNT
};

enum view_sort { SORT_SCORE, SORT_TIME, SORT_COUNT, SORT_NODES };

enum view_fkind {
	VF_NODE, VF_STAGE, VF_ITER, VF_CATEGORY, VF_TEXT, VF_EVENT
};

struct view_filter {
	enum view_fkind kind;
	int negate;
	char *arg;		/* as the user typed it, for `filters` */
	long a, b;		/* iteration range; stage; node index */
	void *re;		/* pcre2_code for VF_TEXT, VF_NODE patterns */
};

/* What the lines pane shows. */
enum view_lsrc {
	LS_NONE,
	LS_EVENT,		/* every line of an event (on a node, -1 all) */
	LS_FILE			/* one file around a line */
};

struct view_state {
	enum view_pane pane;
	struct view_filter *filters;
	size_t nfilters;
	enum view_sort sort;
	int cursor[PANE_COUNT];
	int top[PANE_COUNT];
	int hscroll[PANE_COUNT];	/* text columns scrolled off the left */
	int context;		/* lines of context in the lines pane */
	/* the lines pane's source */
	enum view_lsrc lsrc;
	uint32_t l_event;	/* template id */
	long l_node;		/* model node, -1 any */
	char *l_path;		/* LS_FILE: path relative to the root */
	long l_line;
	char *lg_pos;		/* the log pane's row: "PATH:LINE", "@EPOCH"
				   (the first line at that time), "first",
				   "last"; NULL: at the failure */
	long hm_group;		/* heatmap: the unfolded group's first node
				   (in row order), -1 none */
	long hm_count;		/* its nodes */
	int hm_col;		/* heatmap: a column is chosen (HM_COL_*) */
	double hm_at;		/* the iteration (or second) it holds: the
				   column holding it is the cursor's, however
				   the columns are cut */
};

/* What the heatmap's column cursor holds. */
enum { HM_COL_NONE, HM_COL_ITER, HM_COL_TIME };

struct rows;
struct view_line;

struct view {
	struct cache *cache;	/* borrowed */
	struct model *m;	/* owned; NULL: no job open */
	char *job;		/* its name */
	int64_t job_id;		/* its id in the cache; 0: unknown (found
				   by name when needed) */
	int async;		/* slow answers come in the background (the
				   screen); 0: at once (batch, export) */
	struct view_state st;
	unsigned long gen;	/* moves on with every change of st or m
				   that changes a pane's rows */
	struct rows *rows[PANE_COUNT];	/* each pane's, as last built */
	struct view_state *hist;	/* `back` history, oldest first */
	size_t nhist;
	char *search;		/* the pattern, as typed */
	void *search_re;	/* pcre2_code */
	int width, height;	/* of the last draw */
	int page;		/* list rows the active pane showed */
	int hwide;		/* the widest text it cut, in columns past
				   its room (how far a scroll can go) */
	int hwide_pane;		/* the pane that measured it + 1; 0 none */
	int ascii;		/* ASCII glyphs */
	char *message;		/* shown on the status line once */
	/* the lines pane's rows, filled on demand */
	struct view_line *lines;
	size_t nlines;
	size_t text_lo, text_hi;	/* only rows in [lo, hi) hold text */
	int lines_valid;
	int lines_seek;		/* the next build puts the cursor on the
				   first line of the event */
	char *lines_error;
	uint64_t lines_hidden;	/* rows the filters hid */
	/* what panes keep themselves (freed by their release()) */
	void *own[PANE_COUNT];
	struct viewlog *vlog;	/* the job's raw lines, on first use */
	int find_pending;	/* a search waits for its answer: the pane
				   + 1 that asked, 0 none */
	int find_dir;
	/* the pane row on each screen row of the last draw, -1 none */
	long *rowmap;
	int nrowmap;
	struct viewjob *live;	/* the job indexed and diagnosed in the
				   background (viewjob.c), or NULL */
	char *warned;		/* its warnings not taken, or NULL */
	/* the session: every command that changed the view, to replay */
	char **log;
	size_t nlog;
	/* bookmarks ("PATH:LINE", "event:ID"), in the order marked */
	char **marks;
	size_t nmarks;
	long mark_at;		/* the one last gone to, -1 none */
	char *clip;		/* OSC 52 bytes the screen is to send, or NULL */
	size_t nclip;
};

void view_init(struct view *v, struct cache *c);
void view_release(struct view *v);

/* Look at model m (taken) of job `name`; the view state starts afresh. */
void view_set_model(struct view *v, const char *name, struct model *m);

/* "events", ... (static); the pane of a name or prefix, -1. */
const char *view_pane_name(enum view_pane p);
int view_pane_parse(const char *s);

/*
 * Draw the screen at width x height into cv (reset, width set).  With
 * height <= 0 the pane is drawn whole (every row, for export): no status
 * line.  Returns the number of canvas rows.
 */
int view_draw(struct view *v, struct canvas *cv, int width, int height);

/*
 * The table-like panes (events, heatmap, groups, jobs) as JSON, or TSV
 * when tsv: every row, as the filters and sort leave them.  Returns 0,
 * or -1 with *cause.
 */
int view_data(struct view *v, FILE *out, int tsv, char **cause);

/*
 * The state commands; each returns 0, or -1 with *cause.  view_pane()
 * also takes "next" and "prev".
 */
int view_pane(struct view *v, const char *name, char **cause);
int view_filter(struct view *v, const char *spec, int negate, char **cause);
int view_unfilter(struct view *v, const char *which, char **cause);
/* The filters as text, one per line, numbered (allocated). */
char *view_filters_text(const struct view *v);
int view_sort(struct view *v, const char *key, char **cause);
/*
 * Move the cursor: "down", "up", "pgdn", "pgup", "halfdn", "halfup",
 * "top", "bottom", "+N" or "-N" rows from where it is, or to row N.
 */
int view_move(struct view *v, const char *how, char **cause);
/*
 * view_move() also moves the column cursor of a pane with columns (the
 * heatmap): "left", "right", "first", "last", "column=off" (no column:
 * a drill opens the row's lines), or "column=N", onto the column
 * holding iteration N (a time HH:MM:SS or epoch second N when the
 * columns are times); the moves fail on a pane without columns.
 * view_column() is that move alone, its word without "column=".
 * view_move_is_column() says whether a word of view_move() is one.
 */
int view_column(struct view *v, const char *how, char **cause);
int view_move_is_column(const char *how);
int view_drill(struct view *v, char **cause);
/* Back through the drill history; with or_quit, 1 when it is empty. */
int view_back(struct view *v, int or_quit, char **cause);
int view_context(struct view *v, long n, char **cause);
/*
 * Scroll the text of the events and lines panes sideways: "left",
 * "right" (a quarter of the screen), "home", or to column N.
 */
int view_scroll(struct view *v, const char *how, char **cause);
int view_goto(struct view *v, const char *what, const char *arg,
    char **cause);
int view_search(struct view *v, const char *pattern, char **cause);
/* Move to the next (dir 1) or previous (-1) row matching the search. */
int view_search_next(struct view *v, int dir, char **cause);

/*
 * Open job `name` without waiting: directory dir (NULL: none) is indexed
 * and the job diagnosed in the background, with `threads` index workers
 * (0: one per core); with follow, again every few seconds.  The view
 * looks at the model when it comes (view_poll()); the status line says
 * what runs meanwhile.  The view becomes async.  Returns 0, or -1 with
 * *cause.
 */
int view_open_live(struct view *v, const char *dir, const char *name,
    int follow, int threads, char **cause);
/*
 * Follow the open job (on) or stop (off): its directory is indexed
 * again every few seconds (lines still being written wait for their
 * newline), and a newer diagnosis replaces the model, the cursor kept on
 * its row.  In batch use (not async) `on` does one such round at once.
 * Returns 0, or -1 with *cause.
 */
int view_follow(struct view *v, int on, char **cause);

/*
 * The warnings of the job indexed and diagnosed in the background since
 * the last call, as "trainscope: CMD: ..." lines (the caller's to free),
 * or NULL.  view_poll() gathers them.
 */
char *view_take_warnings(struct view *v);
/*
 * Take in what the background answered (the screen calls it between
 * keys; view_draw() does too).  Returns nonzero when the screen should
 * be drawn again.
 */
int view_poll(struct view *v);
/*
 * Whether an answer is awaited, and a descriptor that becomes readable
 * when one comes (-1: none): a screen waits on it with the keyboard.
 */
int view_busy(const struct view *v);
int view_wake_fd(const struct view *v);
/*
 * The stable key of the cursor's row of the active pane ("PATH:LINE" in
 * the log and lines panes), allocated; NULL when its rows have none.
 */
char *view_row_key(struct view *v);
/*
 * Draw the pane whole at width into cv, writing the rows to out as they
 * are drawn (a pane of millions of rows never sits in the canvas).
 * Returns 0, or -1 when writing failed.
 */
int view_write(struct view *v, struct canvas *cv, int width, FILE *out);

/*
 * What a click at screen row y, column x of the last draw means, as a
 * command line (allocated): "pane NAME" on a tab, "move +N" or "move -N"
 * on a row of the pane's list; NULL elsewhere.
 */
char *view_click(const struct view *v, int y, int x);

/*
 * Words that may follow command cmd at the prompt and begin with word:
 * panes, sort keys, filters (node=, stage=, category=, iter=), nodes,
 * jobs, as cmd takes them.  Returns how many; *out is allocated (NULL
 * ended).
 */
size_t view_complete(const struct view *v, const char *cmd,
    const char *word, char ***out);

#endif
