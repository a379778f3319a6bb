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
	VT_NONE, VT_EVENT, VT_NODE, VT_GROUP, VT_ITER, VT_LINE, VT_JOB,
	VT_CELL			/* a node in a column of the heatmap */
};

struct view_target {
	int kind;
	uint32_t id;		/* VT_EVENT: template id */
	long node;		/* VT_NODE, VT_GROUP, VT_CELL; VT_EVENT: -1
				   any */
	long iter;		/* VT_ITER; VT_LINE: the line */
	double from, to;	/* VT_CELL: its iterations [from, to], or
				   seconds [from, to) with by_time */
	double start;		/* VT_CELL: when its first iteration began,
				   NAN unknown */
	int by_time;
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

/*
 * The view's filters as they act on raw lines (rawfilt.c): node=NAME by
 * the node of the line's file, stage= and iter= by the line's tags from
 * the stage tracker, /RE/ by its raw text (case-insensitive), -v the
 * others; category= says nothing of lines.
 */
struct buf;
struct grep;
struct grep_hit;
struct linetag;
struct lm_file;
struct lm_row;
struct logmerge;
struct rawf;
struct view_filter;

/*
 * The filters f[0 .. n) of model m's view, copied (a set may go to
 * another thread).  NULL with *cause (may be NULL) when a pattern does
 * not compile for raw lines.  Free with rawf_free().
 */
struct rawf *rawf_new(const struct view_filter *f, size_t n,
    const struct model *m, char **cause);
void rawf_free(struct rawf *rf);
/* Whether any filter acts on lines; on lines one by one (not by file). */
int rawf_any(const struct rawf *rf);
int rawf_lines(const struct rawf *rf);
/* Whether the node filters keep the lines of file lf. */
int rawf_file(const struct rawf *rf, const struct lm_file *lf);
/*
 * Whether the filters keep row (1) or not (0), or -1 with *cause.  The
 * text is read into *text when a pattern needs it and *have is 0 (then
 * *have is 1); the tags come from t (a file's first costs a replay).
 */
int rawf_pass(const struct rawf *rf, struct logmerge *m, struct linetag *t,
    const struct lm_row *row, struct buf *text, int *have, char **cause);
/*
 * The lines of the job the filters keep, in *n (by a raw search over
 * the job, unless only nodes are filtered).  Stops when *cancel turns
 * nonzero (may be NULL).  Returns 0, or -1 with *cause.
 */
int rawf_count(struct rawf *rf, struct logmerge *m, struct linetag *t,
    const int *cancel, uint64_t *n, char **cause);
/*
 * grep_each() of g over the lines the filters keep; with tags each line
 * comes with its stage and iteration (each file replayed once).
 */
int rawf_each(const struct rawf *rf, struct grep *g, struct logmerge *m,
    struct linetag *t, int tags, const int *cancel,
    int (*fn)(void *arg, const struct grep_hit *hit, char **cause), void *arg,
    char **cause);

/*
 * Slow questions about the raw lines (viewbg.c): on the screen each kind
 * runs on a thread of its own, with its own cache connection and merge;
 * in batch use viewbg_run() answers at once.
 */
enum { VBG_TAGS, VBG_SEARCH, VBG_COUNT, VBG_KINDS };

/* Matches kept of a search (more are counted, not kept). */
#define VBG_HITS_MAX	(1u << 20)

/* A match of the search: where the merged log has it. */
struct viewbg_hit {
	double eff;
	size_t file;
	uint64_t line;
};

struct viewbg_task {
	int kind;		/* VBG_* */
	unsigned long id;	/* the asker's */
	/* the question */
	struct lm_row *rows;	/* VBG_TAGS: file, line and rank are read */
	size_t nrows;
	char *pattern;		/* VBG_SEARCH */
	struct rawf *filt;	/* VBG_SEARCH, VBG_COUNT: the filters */
	/* the answer */
	int *stage;		/* VBG_TAGS: a row's, -1 none */
	long *iter;
	struct viewbg_hit *hits;	/* VBG_SEARCH: in merged order */
	size_t nhits, cap;
	uint64_t count;		/* VBG_SEARCH: matches; VBG_COUNT: lines kept */
	char *error;
};
struct viewbg;

/*
 * The background of job `job` (name, root) of the cache file `cache`.
 * Threads start when first asked.  viewbg_free() cancels what runs and
 * waits for the threads.
 */
struct viewbg *viewbg_new(const char *cache, int64_t job, const char *name,
    const char *root);
void viewbg_free(struct viewbg *bg);
/*
 * Ask task t (taken): it replaces a task of its kind that waits, and a
 * search or count of its kind under way is cancelled.  Returns 0, or -1
 * with *cause when no thread could start (t stays the caller's).
 */
int viewbg_post(struct viewbg *bg, struct viewbg_task *t, char **cause);
/* The last answered task of a kind (the caller's), or NULL. */
struct viewbg_task *viewbg_take(struct viewbg *bg, int kind);
/* Whether a task waits, runs or has an answer not taken. */
int viewbg_busy(struct viewbg *bg);
/* A descriptor that becomes readable when a task is answered. */
int viewbg_fd(const struct viewbg *bg);
/* Answer t here, on m and t's tagger (cancel may be NULL). */
void viewbg_run(struct viewbg_task *t, struct logmerge *m,
    struct linetag *tags, const int *cancel);
void viewbg_task_free(struct viewbg_task *t);

/*
 * The open job's raw lines as the view sees them (viewlog.c): its merged
 * log, tags, the filters on lines, the lines they keep, the raw search.
 */
struct viewlog;

/* States of an answer. */
enum { VLS_NONE, VLS_RUNNING, VLS_READY, VLS_ERROR };
/* What viewlog_poll() took in. */
enum { VL_TAGS = 1, VL_SEARCH = 2, VL_COUNT = 4 };

/*
 * The view's (v->vlog), opened on first use from the job the view has
 * open; NULL with *cause.  Freed by view_release() and a new job.
 */
struct viewlog *viewlog_get(struct view *v, char **cause);
void viewlog_free(struct viewlog *vl);
struct logmerge *viewlog_merge(struct viewlog *vl);
struct linetag *viewlog_tagger(struct viewlog *vl);
/*
 * The stage and iteration of a row: 1 with them (-1: none), or 0 when
 * they are not known yet (the screen: asked by viewlog_ask_tags()).
 */
int viewlog_tag(struct viewlog *vl, const struct lm_row *row, int *stage,
    long *iter);
/* Ask the background for the tags viewlog_tag() did not know. */
void viewlog_ask_tags(struct viewlog *vl);
/* The filters of v on lines (borrowed: until the filters change). */
struct rawf *viewlog_filter(struct viewlog *vl, const struct view *v);
/* Why a filter does not work on lines, or NULL. */
const char *viewlog_filter_error(const struct viewlog *vl);
/* rawf_pass() of v's filters. */
int viewlog_pass(struct viewlog *vl, const struct view *v,
    const struct lm_row *row, struct buf *text, int *have, char **cause);
/*
 * The lines of the job v's filters keep, in *kept: VLS_READY, or
 * VLS_RUNNING (asked), VLS_ERROR.
 */
int viewlog_kept(struct viewlog *vl, const struct view *v, uint64_t *kept);
/*
 * Search the job's raw lines that v's filters keep for `pattern`, unless
 * that search is made or under way: VLS_RUNNING, VLS_READY, VLS_ERROR.
 */
int viewlog_search(struct viewlog *vl, const struct view *v,
    const char *pattern);
/* The search's matches kept (*n), all it found (*all), its error. */
const struct viewbg_hit *viewlog_hits(const struct viewlog *vl, size_t *n,
    uint64_t *all, const char **error);
/* The first match at or after row r in merged order (n: none). */
size_t viewlog_hit_lower(const struct viewlog *vl, const struct lm_row *r);
/*
 * The match after row r (dir 1), before it (-1), or at or after it (0),
 * round the ends; -1 when there is none.
 */
long viewlog_hit_next(const struct viewlog *vl, const struct lm_row *r,
    int dir);
/* The match that row r is, or -1. */
long viewlog_hit_at(const struct viewlog *vl, const struct lm_row *r);
/*
 * Append to buf what the search says of row cur (NULL: none): "match 3
 * of 41", "41 matches", "no match for /RE/", "searching /RE/".  Starts
 * the search when the pattern or the filters changed.
 */
void viewlog_search_status(struct viewlog *vl, const struct view *v,
    const struct lm_row *cur, char *buf, size_t len);
/* Take the background's answers in: VL_* of what changed. */
int viewlog_poll(struct viewlog *vl);
/* Whether an answer is awaited; the descriptor that wakes for it, -1. */
int viewlog_busy(const struct viewlog *vl);
int viewlog_fd(const struct viewlog *vl);

/*
 * The lines pane's search of the job's raw lines (the next match in the
 * merged order; one outside its rows opens its file around it), its
 * status (ROW/ROWS, hidden rows, the search), a row's PATH:LINE.
 */
int view_lines_find(struct view *v, void *re, int dir, size_t *row);
void view_lines_status(struct view *v, char *buf, size_t len);
char *view_lines_key(struct view *v, size_t r);
/* Save the state on the `back` history (a drill does it first). */
void view_push(struct view *v);

/* A compiled case-insensitive PCRE2 pattern, or NULL with *cause. */
void *view_regex(const char *pattern, char **cause);
/* Whether re matches s; the first match's byte range. */
int view_regex_find(void *re, const char *s, size_t len, size_t *start,
    size_t *end);

/*
 * A job indexed and diagnosed in the background (viewjob.c): once, or
 * every few seconds under follow.  One thread with its own cache
 * connection; the models it makes wait to be taken.
 */
struct viewjob;

/*
 * Start indexing directory dir (NULL: none) as job `name` with `threads`
 * workers (0: one per core), then diagnose it, in cache file `cache`;
 * again and again while follow is on.  NULL with *cause when no thread
 * could start.
 */
struct viewjob *viewjob_start(const char *cache, const char *dir,
    const char *name, int follow, int threads, char **cause);
/*
 * Stop it: the index is cancelled; a diagnosis under way is waited for a
 * moment, then left to end on its own.  NULL is fine.
 */
void viewjob_free(struct viewjob *j);
/* Follow on (again every few seconds) or off (after the round). */
void viewjob_follow(struct viewjob *j, int on);
int viewjob_following(struct viewjob *j);
/*
 * The newest model not taken (the caller's, free with model_free()), or
 * NULL; its job's id in *id.  *error: why the last round failed, *note:
 * files read again from their start (both allocated, or NULL).
 */
struct model *viewjob_take(struct viewjob *j, int64_t *id, char **error,
    char **note);
/*
 * The warnings of its index and diagnosis said since the last call, as
 * "trainscope: CMD: ..." lines (each said once however many rounds say
 * it again), allocated; NULL when none.
 */
char *viewjob_take_warnings(struct viewjob *j);
/*
 * What it does now into buf ("indexing: 3/40 files, 12%", "diagnosing",
 * "" between rounds), and in *last when the job's newest file was last
 * written (epoch seconds, NAN unknown).  Returns whether anything is
 * under way or waits to be taken.
 */
int viewjob_status(struct viewjob *j, char *buf, size_t len, double *last);
/* Wait for the round under way to end. */
void viewjob_wait(struct viewjob *j);
/* A descriptor that becomes readable when a round ends. */
int viewjob_fd(const struct viewjob *j);
/* The job's name (borrowed). */
const char *viewjob_name(const struct viewjob *j);
/*
 * The view's side: take in a model the background made (the first is
 * looked at afresh, a newer one of the same job keeps the view state and
 * the cursor's row); nonzero when the screen should be drawn again.
 */
int view_live_poll(struct view *v);
/* Whether the background works on the view's job. */
int view_live_busy(const struct view *v);
/*
 * What it does now, for the status line, into doing ("" nothing), and
 * what the header says under follow ("following · last line 4 s ago",
 * "" not following) into head.
 */
void view_live_text(struct view *v, char *doing, size_t dlen, char *head,
    size_t hlen);
/* Whether the background follows the view's job. */
int view_following(const struct view *v);

#endif
