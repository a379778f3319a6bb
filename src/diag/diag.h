/*
 * diag.h -- failure diagnosis of one job from its log events.
 *
 * The input is an in-memory model of a job (struct diag_job) that a loader
 * fills: nodes, templates (events) with their first occurrence, counts per
 * (node, template), per-stream iteration sequences, and what the healthy
 * jobs of the cache say about each template.  diag_run() combines five
 * signals into one score per template and one per node, keeping the
 * reasons as sentences:
 *
 *   cross-job   templates common in healthy runs are demoted, unless their
 *               rate explodes;
 *   spatial     nodes that deviate from their peers (isolation forest on
 *               log-scaled counts, robust z-scores below 8 nodes), the
 *               events that make them deviate, and nodes whose logs stop
 *               early, stop silently or are missing;
 *   temporal    anomalous iterations (DTW against the previous ten), the
 *               final truncated iteration, failure stage and iteration,
 *               onset order (the cause comes first, timeouts follow);
 *   library     the fault category of the event (a prior);
 *   level       error and warning levels, weakly.
 *
 * The result is a view model printed as text, TSV or JSON.
 */
#ifndef TS_DIAG_H
#define TS_DIAG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag/stage.h"

struct faults;
struct fault_rule;

/* Log levels, as in lineparse.h's enum lp_level. */
enum {
	DIAG_LEVEL_NONE = 0, DIAG_LEVEL_DEBUG, DIAG_LEVEL_INFO,
	DIAG_LEVEL_WARN, DIAG_LEVEL_ERROR, DIAG_LEVEL_FATAL
};

struct diag_node {
	char *name;
	int nranks;		/* its streams (rank, launcher, host logs) */
	int nprocs;		/* ranks: placed there by the index (prefixes,
				   NCCL lines, hostfile), or its logs that
				   began init or training, whichever is more */
	int missing;		/* expected but no log at all */
	int pseudo;		/* not a machine: lines of no rank or node
				   (a launcher's output in a combined log) */
	double first_error_ts;	/* first error-level line, NAN if none */
	long absent;		/* a rank placed here that wrote no line
				   while its peers report timeouts (set by
				   diag_run()), -1 none */
	double outside;		/* evidence from outside the logs, [0, 1] */
	char **outside_why;	/* its reasons */
	size_t noutside;
	/* filled by diag_run() from the node's streams: */
	long last_iter;		/* last iteration completed by all its ranks,
				   -1: none logs an iteration line */
	double last_ts;		/* latest time its logs give, NAN unknown
				   (a rank's log gives none) */
	enum stage last_stage;
	int trained;		/* a log of it reached training */
};

/*
 * One iteration of a stream: the template ids logged in it, in order, are
 * stream->events[off .. off + n).
 */
struct diag_iter {
	long iteration;
	size_t off;		/* its first event in the stream's events */
	double ts;		/* when it began: the time of the iteration
				   line before it, else of its first line;
				   NAN unknown */
	double end_ts;		/* the time of its own iteration line, NAN */
	long line;		/* the line of its iteration line, 0 none */
	uint32_t n;		/* its events (a job has as many of these as
				   iteration lines: 48 bytes, not 56) */
	unsigned char truncated;	/* the stream ended inside it */
};

/*
 * An iteration of a stream that the temporal scoring (DTW against the
 * DIAG_WINDOW before it) flagged, or the stream's unfinished last one:
 * what diag_run() still needs of it once the stream is folded.
 */
struct diag_cand {
	long iteration;
	uint32_t *fresh;	/* its ids the stream never logged before */
	size_t nfresh;
	uint32_t *wnew;		/* its ids none of the window before had */
	size_t nwnew;
	int anomalous;		/* set by diag_run() */
};

/* Where a watched iteration's line is in a stream (diag_fold). */
struct diag_at {
	long line;		/* 0: the stream has no such line */
	double end_ts;
};

#define DIAG_WATCH 2
/* An iteration is scored against the DIAG_WINDOW before it (DTW band). */
#define DIAG_WINDOW 10
#define DIAG_BAND 16

/* One log file (usually one rank) and its iterations. */
struct diag_stream {
	size_t node;
	char *path;		/* its name: the file, or "FILE (rank N)" */
	char *file;		/* the file it is a part of, NULL: path */
	struct diag_iter *iters;
	size_t niters, cap;
	uint32_t *events;	/* every iteration's events, back to back */
	size_t nevents, evcap;
	long last_iter;		/* last completed iteration, -1 none */
	double last_ts;
	double last_iter_ts;	/* time of its last iteration line, NAN */
	uint32_t iter_id;	/* that line's template id */
	long iter_line;		/* that line's line, 0 none */
	long last_line;		/* its last line, 0 none */
	enum stage last_stage;
	/* its stretch in the current stage (see diag_span_line()): */
	int in_span;		/* one is open */
	enum stage span_stage;
	size_t span_ord;	/* the how-many-th of its stretches of it */
	double span_start, span_end;	/* epoch seconds, NAN unknown */
	long span_from, span_to;	/* iterations it covers, -1 none */
	size_t nth[STAGE_COUNT];	/* its stretches of each stage so far */
	/*
	 * Once folded (diag_stream_fold()), iters holds only the last
	 * iteration and events only the last few events, the last
	 * iteration's among them; what the others told is kept here and in
	 * the job's fold.
	 */
	int folded;
	size_t nrecs;		/* the iterations it had */
	struct diag_cand *cands;	/* the flagged ones, in order */
	size_t ncands;
	struct diag_cand tail;	/* the unfinished last one (has_tail) */
	int has_tail;
	double best_last;	/* the last one's DTW best similarity */
	double gap_median;	/* median spacing of its iterations' starts */
	size_t ngaps;		/* how many spacings that median has */
	struct diag_at at[DIAG_WATCH];	/* job->watch's iteration lines */
};

/*
 * What the folded streams' iterations leave for the model (src/diag/fold.c):
 * every iteration and when it began, and per cell (node, iteration) the
 * event sequences the streams logged there, each sequence stored once.
 */
struct diag_fold;
struct diverge_run;

/*
 * A stretch of the job in one stage: the n-th stretch of that stage of
 * every stream of a machine (a launcher's lines are no stage of the
 * training), from the earliest start to the latest end, up to the latest
 * iteration the n-th stretch of any stream covers.
 */
struct diag_span {
	enum stage stage;
	double start, end;	/* epoch seconds, NAN unknown */
	long iter_from, iter_to;	/* iterations it covers, -1 none */
};

/* The job's n-th stretches of one stage (job->slots[stage][n]). */
struct diag_slot {
	size_t span;		/* its stretch in job->spans + 1, 0 none */
	long iter_to;		/* the latest iteration of any stream's */
};

/* Where a template was first seen in the job. */
struct diag_first {
	size_t node;
	char *path;		/* relative to the job directory */
	long line;		/* 1-based */
	double ts;		/* NAN when the line had no time */
	enum stage stage;
	long iteration;		/* -1 none */
};

struct diag_tmpl {
	uint32_t id;
	char *text;
	char *sample;		/* a raw message for the fault library, or NULL */
	int level;		/* DIAG_LEVEL_* (the highest seen) */
	char *category;		/* NULL: diag_run() asks the fault library */
	int context;		/* only ever a traceback frame or source line */
	int filler;		/* a traceback header, an underline, ...: what
				   the error's telling line speaks for */
	int progress;		/* a progress bar: times iterations, never an
				   event (stage_progress_bar()) */
	int standin;		/* a cut traceback's innermost frame, speaking
				   for the exception the log lost */
	size_t *trace;		/* the context lines (templates) of its first
				   error: a traceback before it, a C++
				   backtrace after it; owned */
	size_t ntrace;
	struct diag_first first;
	int healthy_jobs;	/* healthy jobs it occurs in */
	int healthy_blind;	/* healthy jobs that cannot speak for it:
				   they log unlike this job (none of its
				   iteration lines) and not it either */
	double healthy_rate;	/* mean count per node (per node-hour when
				   job->hours > 0) in the jobs it occurs in */
};

/* How long an iteration took, as its iteration line says. */
struct diag_time {
	long iteration;
	double ms;
};

/*
 * What one iteration line measured and was set to, where the line says
 * it: the training loss, the grad norm, the hyperparameters.
 */
struct diag_loss {
	long iteration;
	double loss;		/* may be NaN or infinite; NAN when none */
	double gnorm;		/* the same; NAN when none */
	double hp[HP_COUNT];	/* enum stage_hparam */
	int has_loss;
	int has_gnorm;
	unsigned has_hp;	/* bit k: hp[k] was logged */
	size_t tmpl;		/* the iteration line's template */
	long line;		/* its line in losspath */
};

/* A rank the combined logs never name, and its node's name. */
struct diag_absent {
	long rank;
	char *node;
};

struct diag_job {
	char *name;
	char *root;		/* the job's directory, or NULL */
	struct diag_time *times;	/* one stream's iteration durations */
	size_t ntimes, timecap;
	struct diverge_run *losses;	/* the same stream's losses, folded
					   as they came (diverge.h) */
	size_t nlosses;			/* how many */
	char *losspath;			/* the file they were read from */
	struct diag_node *nodes;
	size_t nnodes, nodecap;
	size_t nreal;		/* set by diag_run(): nodes [0, nreal) are
				   machines, the pseudo nodes come after */
	struct diag_tmpl *tmpls;
	size_t ntmpls, tmplcap;
	uint32_t *counts;	/* nnodes x ntmpls, after diag_job_shape() */
	struct diag_stream *streams;
	size_t nstreams, streamcap;
	int nhealthy;		/* healthy jobs in the pool; 0 = no history */
	char **healthy_names;	/* their names (nhealthy of them) */
	double hours;		/* how long its logs ran, when rates are
				   compared per node-hour; 0: per node */
	struct diag_span *spans;	/* the job's stage stretches, in order
					   of their first lines (diag_spans()
					   completes them) */
	size_t nspans, spancap;
	struct diag_slot *slots[STAGE_COUNT];
	size_t nslots[STAGE_COUNT];
	double spans_first, spans_last;	/* the earliest and latest time
					   of any stream's stretch, NAN */
	struct diag_absent *absent;	/* ranks of combined logs that wrote
					   no line, below the highest that did */
	size_t nabsent, absentcap;
	size_t nseen;			/* ranks that did write lines there */
	struct diag_fold *fold;		/* made by the first fold */
	long watch[DIAG_WATCH];		/* iterations whose lines' places the
					   fold keeps (the loss's), -1 none */
	int watch_set;
};

/* An empty job; free with diag_job_free() (NULL is fine). */
struct diag_job *diag_job_new(const char *name);
void diag_job_free(struct diag_job *job);
/*
 * Add a node / template / stream and return its index (strings copied).
 * Nodes may be added after diag_job_shape() (with zero counts); templates
 * may not.
 */
size_t diag_add_node(struct diag_job *job, const char *name);
size_t diag_add_tmpl(struct diag_job *job, uint32_t id, const char *text);
size_t diag_add_stream(struct diag_job *job, size_t node, const char *path);
/* Set a template's first occurrence (path copied). */
void diag_set_first(struct diag_job *job, size_t tmpl, size_t node,
    const char *path, long line, double ts, enum stage stage, long iteration);
/*
 * What the iteration line of `path` (copied; one file per job) at `line`,
 * template index `tmpl`, logged: its loss, grad norm and hyperparameters
 * (`it`, as stage_parse_iter() read it).  Lines with none are ignored.
 */
void diag_add_metrics(struct diag_job *job, long iteration,
    const struct stage_iter *it, size_t tmpl, const char *path, long line);
/*
 * Evidence about node `name` from outside its logs (the network captures):
 * weight in [0, 1] (the strongest counts) and a reason (copied).  Returns
 * 0, or -1 when the job has no such node.
 */
int diag_node_evidence(struct diag_job *job, const char *name, double weight,
    const char *reason);
/*
 * Rank `rank` wrote no line in the job's combined logs though ranks above
 * it did; `node` (copied) is where it ran, or "rank-N" when nothing says.
 * diag_run() makes it a suspect when its peers report timeouts.
 */
void diag_add_absent(struct diag_job *job, long rank, const char *node);
/* Epoch seconds ts as "HH:MM:SS" (UTC, as the reasons print times). */
void diag_clock_str(double ts, char *out, size_t len);
/* Allocate the zeroed count matrix once every node and template is in. */
void diag_job_shape(struct diag_job *job);
/* Add n to the count of template `tmpl` (an index) on node `node`. */
void diag_count(struct diag_job *job, size_t node, size_t tmpl, uint32_t n);
/* Start a new iteration in a stream; returns it (borrowed). */
struct diag_iter *diag_stream_iter(struct diag_job *job, size_t stream,
    long iteration, double ts);
/* Append template id `id` to the stream's current iteration. */
void diag_stream_event(struct diag_job *job, size_t stream, uint32_t id);
/* Add the duration of an iteration (one stream's, in order). */
void diag_add_time(struct diag_job *job, long iteration, double ms);
/*
 * The stream's line at time ts (NAN unknown) in iteration iter is in
 * stage `st`: extend the stream's current stretch, or, when the stage
 * changed, fold it into the job's (job->spans) and start the next.
 */
void diag_span_line(struct diag_job *job, size_t stream, enum stage st,
    double ts, long iter);
/*
 * Record where the stream ended: its last completed iteration, stage,
 * time; its last stretch is folded into the job's.
 */
void diag_stream_end(struct diag_job *job, size_t stream, long last_iter,
    enum stage last_stage, double last_ts);
/*
 * Stream `stream` is complete: score its iterations against each other
 * (DTW), keep what diag_run() needs of the flagged and the last, add the
 * rest to the job's fold and free them.  Its iterations can no longer be
 * added to.  diag_run() folds the streams not folded yet.
 */
void diag_stream_fold(struct diag_job *job, size_t stream);
/*
 * Fix what folding reads of the job before its first stream is folded:
 * the watched iterations (diag_watch_losses(), from the losses known
 * now) and whether it logged durations.  The folds call it when it was
 * not; a loader calls it at a point that does not depend on threads.
 */
void diag_fold_begin(struct diag_job *job);
/*
 * Fold the stream's complete iterations (all but its last, which may still
 * grow) now, before its end: a stream need not hold a long run in memory.
 * What they leave for the verdict (scores, candidates, spacings) waits in
 * the fold until diag_stream_fold(), whose result is the same as if the
 * stream had been folded whole.  The loader calls it each time a stream
 * holds DIAG_PART iterations.
 */
#define DIAG_PART 1024
void diag_stream_part(struct diag_job *job, size_t stream);
/*
 * Fold streams on a worker thread while the caller goes on (the loader
 * replays the next file): NULL when one core is all there is (or
 * diag_set_threads(1)), and then diag_folder_add() folds at once.
 * diag_folder_add() moves stream `stream` out of the job to the worker
 * (waiting while eight are queued); nothing may touch it, the job's fold or
 * the job's losses until diag_folder_finish() has put every stream back
 * and freed the folder.
 */
struct diag_folder;
struct diag_folder *diag_folder_start(struct diag_job *job);
void diag_folder_add(struct diag_folder *fd, struct diag_job *job,
    size_t stream);
/*
 * diag_stream_part() on the worker: the complete iterations move to it
 * (waiting while eight are queued), the stream keeps its last and goes on.
 */
void diag_folder_part(struct diag_folder *fd, struct diag_job *job,
    size_t stream);
void diag_folder_finish(struct diag_folder *fd);
/*
 * Other work the two threads may do while they would wait: fn(arg, 1) is
 * called by the worker when it has nothing to fold, fn(arg, 0) by the
 * caller of diag_folder_add() or diag_folder_part() while the queue is
 * full.  It returns 1 when it did something (then it is asked again), 0
 * when there is nothing to do now; it must be safe on either thread.  Set
 * before the first stream is added.  Setting another (or NULL) waits for
 * the calls of the old one under way, so that its argument may go.
 * diag_folder_poke() wakes a worker that found nothing, when there may be
 * something now.
 */
typedef int diag_folder_idle_fn(void *arg, int worker);
void diag_folder_idle(struct diag_folder *fd, diag_folder_idle_fn *fn,
    void *arg);
void diag_folder_poke(struct diag_folder *fd);
/* Threads the diagnosis may use: 0 one per core (default), 1 no worker. */
void diag_set_threads(int n);
/* The threads the diagnosis uses (diag_set_threads(), else the cores). */
int diag_threads(void);
/*
 * The folded iterations are kept in buckets of 2^k consecutive
 * iterations (k = 0 while the run has at most DIAG_FOLD_COLS of them;
 * past that the width doubles as it grows, so a run's heatmap cells and
 * iterations take the same room whatever its length).
 */
#define DIAG_FOLD_COLS 2048
/* Buckets at most for the folds to come (tests); < 2: DIAG_FOLD_COLS. */
void diag_fold_set_cap(size_t cap);
/* The width of the fold's buckets: 1, or a power of two past the cap. */
long diag_fold_width(const struct diag_job *job);
/*
 * What the streams logged in a cell of the fold: node `node`, the bucket
 * beginning at iteration `at` (-1: the lines before the first), and
 * `iteration` the cell's one iteration (-1 when it holds several or
 * none); event ids[k] logged counts[k] times there, k < n, each event
 * once, in the order of their first lines with the streams in order.
 */
typedef void diag_fold_fn(void *arg, size_t node, long at, long iteration,
    const uint32_t *ids, const uint32_t *counts, size_t n);
/*
 * Call fn for every cell of the folded streams (node, bucket), in no
 * particular order.  A watched iteration (job->watch) in a bucket wider
 * than one has a cell of its own beside its bucket's.
 */
void diag_fold_records(const struct diag_job *job, diag_fold_fn *fn,
    void *arg);
/* The cells diag_fold_records() goes through. */
size_t diag_fold_cells(const struct diag_job *job);
/*
 * Call fn for every bucket of iterations (>= 0) a folded stream logged,
 * in no order, with its first iteration and the earliest time a stream
 * began one of them (NAN unknown).
 */
void diag_fold_iters(const struct diag_job *job,
    void (*fn)(void *arg, long iteration, double start), void *arg);
/*
 * The iterations whose iteration lines diag_run() may name (the loss's
 * candidates): set job->watch from job->losses.  The first fold calls it.
 */
void diag_watch_losses(struct diag_job *job);
/* Free a job's fold (diag_job_free() does). */
void diag_fold_free(struct diag_fold *f);

/*
 * Fold every stream's open stretch into the job's and give each of the
 * job's stretches its latest iteration: job->spans is then complete.
 */
void diag_spans(struct diag_job *job);

struct diag_opts {
	uint64_t seed;		/* isolation forest seed */
	const struct faults *faults;	/* borrowed; NULL: no library */
	double now;		/* a job still running (follow): the time now
				   on the logs' clock; 0: the job is over, its
				   last line is the end */
};

struct diag_node_result {
	size_t node;
	double score;
	char **reasons;
	size_t nreasons;
};

/* One line of an event, where it says what it says. */
struct diag_loc {
	char *path;		/* relative to the job's directory */
	long line;
	size_t node;
};

/*
 * The template of an event of the diagnosis's own, of no log line's
 * template: a hang (progress that stopped), a log that stops silently or
 * early, a rank or node with no line at all.
 */
#define DIAG_SYNTH ((size_t)-1)

struct diag_event_result {
	size_t tmpl;			/* DIAG_SYNTH: its own event */
	char *text;			/* its own event's text (owned) */
	struct diag_first *own;		/* its own event's place (owned) */
	double score;
	uint64_t count;
	const struct diag_first *first;	/* borrowed: ties go to the earliest */
	int one_iter;			/* the event is what one of its lines
					   said (a NaN loss, the last progress
					   line of a hang), in iteration */
	long at_iter;
	char *at_path;			/* that line, NULL: first's (owned) */
	long at_line;
	double at_ts;
	struct diag_loc *locs;		/* its line in at_iter on each rank
					   (owned), when one_iter */
	size_t nlocs;
	const char *category;		/* borrowed, may be NULL */
	const struct fault_rule *rule;	/* borrowed, may be NULL */
	size_t *nodes;			/* indices of nodes it occurs on */
	size_t nnodes;
	char **reasons;
	size_t nreasons;
};

/*
 * How the job ended.  It ran to the end when every rank that trained
 * reached the same last iteration with no error after it (or shut down)
 * and no node is missing.
 */
enum diag_outcome {
	DIAG_FAILED,		/* it did not run to the end: a crash, a
				   hang, a lost node (or logs cut short) */
	DIAG_DEGRADED,		/* it ran to the end, but went wrong (slowed
				   down) from failure_iter on */
	DIAG_COMPLETED,		/* it ran to the end, nothing found */
	DIAG_DIVERGED		/* it ran to the end, but its loss or grad
				   norm exploded or went NaN from
				   failure_iter on, for good */
};

struct diag_result {
	const struct diag_job *job;	/* borrowed */
	enum stage stage;
	enum diag_outcome outcome;
	long failure_iter;		/* -1: none (null) */
	long last_healthy_iter;		/* -1: none (null) */
	struct diag_node_result *nodes;	/* most suspect first */
	size_t nnodes;
	struct diag_event_result *events;	/* highest score first */
	size_t nevents;
	size_t anomalous_iters;		/* iterations flagged on any stream */
	long slow_iter;			/* iterations slowed down from here,
					   -1: no slowdown */
	double slow_before_ms, slow_after_ms;	/* typical durations */
};

/*
 * Diagnose `job` (updated in place: node end state filled from streams).
 * Never fails; an empty job gives an empty result.  Free the result with
 * diag_result_free() before the job.
 */
struct diag_result *diag_run(struct diag_job *job, const struct diag_opts *o);
void diag_result_free(struct diag_result *r);

/* "failed", "degraded", "completed", "diverged" (static strings). */
const char *diag_outcome_name(enum diag_outcome o);

enum diag_format { DIAG_TEXT, DIAG_TSV, DIAG_JSON };
/* "text", "tsv", "json" to a format; 0, or -1 when unknown. */
int diag_format_parse(const char *s, enum diag_format *out);
/*
 * Print the top `top` events and nodes (0: all).  Returns 0, or -1 when
 * writing failed.
 */
int diag_print(FILE *out, const struct diag_result *r, enum diag_format fmt,
    size_t top);

/*
 * Bumped whenever the analysis changes what it finds from the same input,
 * so results kept in a cache by an older build are recomputed.
 */
extern const int diag_revision;

#endif
