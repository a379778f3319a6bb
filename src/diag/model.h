/*
 * model.h -- the model of one diagnosed job that every view reads.
 *
 * A struct model is self-contained (it owns copies of every string) and
 * holds what the diagnosis concluded and what the panes draw: the job's
 * outcome, stage and failure iteration, and the healthy runs it was
 * compared with; its nodes with their suspicion and reasons; the ranked
 * events with their reasons, fault-library texts and traces (and the
 * diagnosis's own events: a hang, a rank that stops, a missing node);
 * the iterations with their durations; a sparse per-node summary of each
 * iteration (or, for logs without iterations, of each moment) for
 * the heatmap; the spans of the training stages for the timeline; and
 * what the job's network captures show (hosts, data-parallel groups,
 * pipelines, iterations, findings) for the groups pane.
 *
 * model_build() makes one from a diagnosis (src/diag.h) and, optionally,
 * what a flow analysis found; the view models (view.h) read nothing else.
 */
#ifndef TS_MODEL_H
#define TS_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"

struct diag_job;
struct diag_result;
struct flowan;
struct json;

/*
 * Event ids from here up are the diagnosis's own events, of no template
 * (a hang, a rank that stops silently, a log that ends early, a node or
 * rank with no line at all): 'lines --event' has nothing for them; their
 * place is path:line (or none), their lines `locs`.
 */
#define MODEL_EVENT_OWN 0xffff0000u

/* A line of an event: where it says what it says on one rank. */
struct model_loc {
	char *path;		/* relative to the job's directory */
	long line;		/* 1-based */
	uint32_t node;		/* index into model.nodes */
};

struct model_event {
	uint32_t id;		/* template id, stable across jobs */
	char *text;		/* the template; variable parts read <*> */
	double score;		/* [0, 1] */
	uint64_t count;		/* lines in the job */
	int level;		/* DIAG_LEVEL_* (highest seen) */
	char *category;		/* fault category, NULL: none */
	char *rule;		/* fault library rule, NULL: none */
	char *explain;		/* the rule's "means" text, NULL */
	char *action;		/* the rule's "do" text, NULL */
	uint32_t *nodes;	/* indices into model.nodes */
	size_t nnodes;
	char *path;		/* first occurrence: file, relative to root */
	long line;		/* 1-based */
	double ts;		/* epoch seconds, NAN unknown */
	int stage;		/* enum stage */
	long iteration;		/* -1: none */
	char **reasons;
	size_t nreasons;
	char **trace;		/* the context lines of its error (a
				   traceback's header, frames and source
				   lines; a C++ backtrace), as templates */
	size_t ntrace;
	struct model_loc *locs;	/* an event of one iteration (a NaN grad
				   norm): its line there on each rank; the
				   first (path, line) above is the
				   reference rank's */
	size_t nlocs;
};

struct model_node {
	char *name;
	double score;		/* suspicion in [0, 1] */
	int rank;		/* place among the suspects, 1-based; 0 none */
	char **reasons;
	size_t nreasons;
	int missing;		/* expected, but no log at all */
	int pseudo;		/* lines of no machine (a launcher's) */
	long last_iter;		/* last iteration all its ranks completed */
	double last_ts;		/* when its logs end, NAN unknown */
	int last_stage;		/* enum stage its logs end in */
	double first_error_ts;	/* NAN: no error */
	int nranks;		/* ranks its logs show */
};

enum {
	MODEL_ITER_ANOMALOUS = 1,	/* a stream's events broke pattern */
	MODEL_ITER_FAILURE = 2,		/* the failure iteration */
	MODEL_ITER_SLOW = 4		/* in the slowed-down part of the run */
};

struct model_iter {
	long iteration;
	double start;		/* epoch seconds, NAN unknown */
	double ms;		/* duration its line gives, NAN unknown */
	unsigned flags;		/* MODEL_ITER_* */
};

enum {
	MODEL_MARK_ERROR = 1,	/* an error-level event */
	MODEL_MARK_WARN = 2,	/* a warning-level event */
	MODEL_MARK_NEW = 4,	/* an event no healthy run has */
	MODEL_MARK_END = 8,	/* the node's log ends here, before its peers' */
	MODEL_MARK_ANOMALOUS = 16,	/* the iteration broke pattern here */
	MODEL_MARK_LAG = 32,	/* the network shows the node lagging */
	MODEL_MARK_STOP = 64	/* the node's rank stops here (silently,
				   early, or never wrote): an own event's
				   mark, above the timeouts it causes */
};

/*
 * One cell of the heatmap: node `node` at `at` (an iteration number, or
 * epoch seconds when the model is by time).  Only cells with something
 * to show are kept, sorted by node, then `at`.
 */
struct model_mark {
	uint32_t node;
	double at;
	uint8_t level;		/* 1..7 */
	uint8_t flags;		/* MODEL_MARK_* */
	uint32_t event;		/* its strongest event (index), UINT32_MAX */
	uint32_t n;		/* events in the cell */
};

/* A stage of the job from when its first rank entered it to the last left. */
struct model_span {
	int stage;		/* enum stage */
	double start, end;	/* epoch seconds, NAN unknown */
	long iter_from, iter_to;	/* iterations it covers, -1 none */
};

/* A host of the job's captures. */
struct model_fhost {
	char *addr;		/* IP address as in the capture */
	char *name;		/* node name, NULL unknown */
	int node;		/* index into model.nodes, -1 none */
	double comm;		/* median seconds per iteration communicating */
	double compute;		/* median seconds per iteration computing */
	unsigned flags;		/* MODEL_FHOST_* */
};

enum {
	MODEL_FHOST_STRAGGLER = 1,
	MODEL_FHOST_SLOW_LINK = 2,
	MODEL_FHOST_CONGESTED = 4
};

/* A data-parallel group, or a pipeline with its hosts in stage order. */
struct model_fgroup {
	uint32_t *hosts;	/* indices into flows.hosts */
	size_t n;
	double step;		/* median step-ending burst, seconds */
	int slow;		/* a finding names the group */
};

/*
 * An iteration of the captures (capture iteration k is iters[k - 1]),
 * with the logs' view of it where model_join_iters() matched them: the
 * timeline draws the wire's span (start..end) beside the logs' duration
 * and says how far apart they are (end - start less log_ms).
 */
struct model_fiter {
	double start, end;	/* epoch seconds */
	double comm;		/* seconds of step-ending communication */
	double end_max;		/* the latest the step can have ended (the
				   optimizer step is not on the wire), NAN */
	uint8_t ckpt;		/* FLOWAN_CKPT_*: a checkpoint save's pause */
	long log_iter;		/* the logs' number for it, -1 not joined */
	double log_ms;		/* how long the logs say it took, NAN unknown */
};

/* How the captures' iterations were matched to the logs'. */
enum {
	MODEL_JOIN_NONE,	/* not: no log iterations, or none that match */
	MODEL_JOIN_TIME,	/* by the times of the iteration lines */
	MODEL_JOIN_DURATION	/* by the durations the lines give */
};

struct model_finding {
	char *kind;		/* "straggler", "slow-link", ... */
	char *subject;		/* "10.0.0.3", "10.0.0.3-10.0.0.4", "group 2" */
	int from;		/* first iteration of the capture concerned */
	size_t niters;		/* iterations concerned */
	double magnitude;
	char **reasons;
	size_t nreasons;
};

struct model_flows {
	int present;		/* the job directory has captures */
	char *error;		/* why they could not be used, NULL */
	size_t njobs;		/* training jobs recognised in them */
	uint64_t control_bytes;	/* set aside as control and storage */
	double period;		/* median iteration, seconds; 0 none */
	struct model_fhost *hosts;	/* of the job shown */
	size_t nhosts;
	struct model_fgroup *dp;
	size_t ndp;
	struct model_fgroup *pp;
	size_t npp;
	struct model_fiter *iters;
	size_t niters;
	struct model_finding *findings;
	size_t nfindings;
	int join;		/* MODEL_JOIN_*: iters[] matched to the logs' */
	long join_offset;	/* log iteration = capture iteration + this */
	double join_ms;		/* median of the wire's duration less the
				   logs', ms, over the joined iterations; NAN */
	double join_pct;	/* the same in % of the logs' duration; NAN */
};

struct model {
	char *name;
	char *root;		/* the job's directory */
	int stage;		/* enum stage of the failure */
	int outcome;		/* enum diag_outcome */
	long failure_iter;	/* -1: none */
	long last_healthy_iter;	/* -1: none */
	int nhealthy;		/* healthy runs compared */
	char **healthy_runs;	/* their names (may be fewer: none kept) */
	size_t nhealthy_runs;
	size_t anomalous;	/* anomalous iterations over all streams */
	uint64_t names_stamp;	/* the hosts files that named the captures'
				   hosts, as they were (jobmodel.c) */
	long slow_iter;		/* -1: no slowdown */
	double slow_before_ms, slow_after_ms;
	double first_ts, last_ts;	/* the logs' time range, NAN unknown */
	int by_time;		/* marks are at times, not iterations */
	long iter_width;	/* iterations a mark and an iteration record
				   stand for: 1, or on a run longer than
				   DIAG_FOLD_COLS iterations a power of two
				   (buckets: `iteration` and a mark's `at`
				   are a bucket's first iteration) */
	struct model_node *nodes;
	size_t nnodes;
	size_t nreal;		/* nodes[0 .. nreal) are machines */
	uint32_t *suspects;	/* node indices, most suspect first */
	size_t nsuspects;
	struct model_event *events;	/* highest score first */
	size_t nevents;
	struct model_iter *iters;	/* by iteration */
	size_t niters;
	struct model_mark *marks;
	size_t nmarks;
	struct model_span *spans;	/* by start */
	size_t nspans;
	struct model_flows flows;
	char **notes;		/* things the user should know (partial data) */
	size_t nnotes;
};

/*
 * Build the model of a diagnosis: `job` and `r` (borrowed; r->job must be
 * job).  `flows` (may be NULL) is what model_flows_fill() made of the
 * job's captures; it is moved into the model and left empty.  Never
 * fails.  Free with model_free().
 */
struct model *model_build(const struct diag_job *job,
    const struct diag_result *r, struct model_flows *flows);
void model_free(struct model *m);

/*
 * Fill *mf from a flow analysis of the job's captures with node names
 * per host (names may be NULL): the recognised job that shares most hosts
 * with `job`'s nodes (the largest when none does).
 */
void model_flows_fill(struct model_flows *mf, const struct flowan *fa,
    char **names, const struct diag_job *job);
/* Release what *mf holds and zero it. */
void model_flows_release(struct model_flows *mf);
/*
 * modeljoin.c: match the captures' iterations (m->flows.iters) to the
 * logs' (m->iters) by the times of the iteration lines, else by their
 * durations, and fill log_iter and log_ms of each, and the flows' join,
 * join_offset, join_ms and join_pct (MODEL_JOIN_NONE, -1 and NAN where
 * nothing matches).  model_build() calls it.  Never fails.
 */
void model_join_iters(struct model *m);
/* "time", "durations", or NULL for MODEL_JOIN_NONE. */
const char *model_join_name(int join);
/*
 * Write, inside an open JSON object, the keys "join" (how the captures'
 * iterations met the logs': by, offset, disagreement_ms and _pct; null
 * when they did not) and "iteration_times" (each capture iteration:
 * capture and log numbers, start, end, wire_ms, log_ms and their
 * disagreement_ms).
 */
void model_json_join(struct json *j, const struct model *m);
/*
 * The timeline as data: a JSON object (into j, begun by the caller) of
 * the stages, the logs' iterations and the captures' joined to them
 * (model_json_join()), or with tsv != 0 the captures' iterations as TSV
 * rows to out.  Returns 0, or -1 when writing failed.
 */
int model_timeline_data(struct json *j, FILE *out, const struct model *m,
    int tsv);

/* Encode a model into *out (allocated, *len bytes); see modelio.c. */
void model_encode(const struct model *m, unsigned char **out, size_t *len);
/*
 * Decode bytes made by model_encode().  Returns the model, or NULL when
 * the bytes are not a whole, consistent model of this encoding or their
 * checksum does not match (a number changed since they were written).
 */
struct model *model_decode(const unsigned char *p, size_t len);

/*
 * Print the diagnosis in the model: the outcome, the top `top` nodes and
 * events (0: all), as text, TSV or JSON (enum diag_format); modelout.c.
 * Returns 0, or -1 when writing failed.
 */
int model_print(FILE *out, const struct model *m, int fmt, size_t top);

/*
 * Write event i of the model as a JSON object; its "position" is i + 1,
 * its place in the ranked list (as diagnose and `lines --event N` count).
 */
void model_json_event(struct json *j, const struct model *m, size_t i);

/* Add a note (copied) to the model. */
void model_note(struct model *m, const char *fmt, ...) TS_PRINTF(2, 3);

/* The index of the node called `name`, or -1. */
long model_node_index(const struct model *m, const char *name);
/* The index of the event of template id `id`, or -1. */
long model_event_index(const struct model *m, uint32_t id);
/* Is event e one of the diagnosis's own (no template)? */
int model_event_own(const struct model_event *e);
/*
 * The first iteration of the bucket of iteration `it` (it itself when
 * m->iter_width is 1 or it < 0).
 */
long model_bucket(const struct model *m, long it);
/* The index of the record of iteration `it` (of its bucket), or -1. */
long model_iter_index(const struct model *m, long it);
/*
 * The healthy runs compared, in words: "2 healthy runs compared (run1,
 * run3)", names as far as len allows ("and N more"), into buf, which is
 * returned.  Names are raw: print them inert.
 */
const char *model_healthy_str(const struct model *m, char *buf, size_t len);
/*
 * Where the job failed, as words after "failed": "in iteration 41",
 * "before its first iteration" (failure iteration 0), or "" when the logs
 * name no iteration at all.  Written into buf, which is returned.
 */
const char *model_fail_when(const struct model *m, char *buf, size_t len);
/*
 * The capture's checkpoint saves in words: "checkpoint saves at
 * iterations 20, 40 (pauses, not a slowdown)", into buf; "" when none.
 */
const char *model_flows_ckpt(const struct model_flows *f, char *buf,
    size_t len);

#endif
