/*
 * flowan.h -- flow analysis: jobs, parallel groups, iteration timeline and
 * diagnosis from the messages of a capture (struct flow_set, flowasm.h).
 *
 * flowan_analyse() turns a flow_set into a view model (struct flowan) that
 * the text, TSV and JSON printers and the screen all read.  Hosts are named
 * by their index into the flow_set's host table; the flow_set is borrowed
 * and must outlive the result.
 */
#ifndef TS_FLOWAN_H
#define TS_FLOWAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "flows/flowasm.h"

enum flowan_type {
	FLOWAN_OTHER = 0,	/* control, handshakes, too little traffic */
	FLOWAN_DP,		/* data parallel: collective bursts */
	FLOWAN_PP		/* pipeline: repeated point-to-point transfers */
};

enum flowan_kind {
	FLOWAN_STRAGGLER,
	FLOWAN_SLOW_LINK,
	FLOWAN_SLOW_GROUP,
	FLOWAN_SLOW_ITERATION,
	FLOWAN_CONGESTION,
	FLOWAN_STALL,		/* step-ending collectives stop, traffic goes on */
	FLOWAN_SLOW_NIC		/* all of a host's links slow down together */
};

struct flowan_params {
	double gap;		/* step gap in seconds; 0: found per series */
	double min_share;	/* pairs below this share of a host's top pair are control (0: off, the default) */
	uint64_t min_bytes;	/* pairs with fewer significant bytes are control */
};

/* One host pair (a < b) and what its traffic looks like. */
struct flowan_pair {
	uint32_t a, b;
	enum flowan_type type;
	enum flowan_type raw_type;	/* before the transitive refinement */
	int split;		/* one of two pairs of its hosts: their
				   pipeline and their DP connections */
	uint64_t bytes;		/* all bytes both ways */
	uint64_t sig_bytes;	/* bytes in significant messages */
	uint64_t sig_ab;	/* of which from a to b */
	size_t nsig;		/* significant messages */
	uint64_t sig_min;	/* the size from which a message is significant */
	double gap;		/* its step gap (flowan_series_gap()) */
	size_t nsteps;		/* steps found by the gap split */
	int mode_sizes;		/* Mode(N_k): distinct sizes per step */
	double per_dir;		/* median significant messages per direction per step */
	double modal;		/* share of messages within 1 % of the modal size */
	double both;		/* share of messages overlapping the other way */
	double thr;		/* median throughput of its large messages, bytes/s */
	uint32_t ce, cnp;
	/*
	 * The rank endpoints of its significant traffic on each host:
	 * end[0] at a (what b sends), end[1] at b, sorted and distinct: the
	 * receiving TCP or UDP port (a rank listens on a port of its own),
	 * or for RoCE the destination QP (one a connection, so QPs count
	 * connections, not ranks: end_qp is 1).  nconn: its connections.
	 */
	uint32_t *end[2];
	size_t nend[2], nconn;
	int end_qp;
	size_t *msgs;		/* its significant messages (indices), by start */
	size_t *all;		/* all its messages (indices), by start */
	size_t nall;
};

struct flowan_iter {
	int index;		/* 1-based */
	double start, end;	/* epoch seconds */
	double comm;		/* seconds of step-ending DP communication */
	double end_max;		/* the latest the step can have ended: the
				   first message of the job after `end` (the
				   optimizer step after the last collective is
				   not on the wire); NAN when none follows */
	int ckpt;		/* FLOWAN_CKPT_*: a checkpoint save's pause */
};

enum {
	FLOWAN_CKPT_NONE,
	FLOWAN_CKPT_WRITES,	/* slow, with writes out of the job (storage) */
	FLOWAN_CKPT_CADENCE	/* slow at a fixed cadence, nothing else slow */
};

struct flowan_finding {
	enum flowan_kind kind;
	char *subject;		/* "10.0.0.3", "10.0.0.3-10.0.0.4", "group 2" */
	int *iters;		/* iteration indices concerned */
	int from;		/* first iteration of the longest run of them */
	size_t niters;
	double magnitude;	/* seconds of delay, or a ratio; see reasons */
	char **reasons;
	size_t nreasons;
};

/* Per host of a job: median seconds per iteration. */
struct flowan_host {
	uint32_t host;
	double comm;		/* sending or receiving significant messages */
	double compute;		/* idle time that ends in one of its sends */
};

/* A group of hosts: a DP group, or a pipeline with hosts in stage order. */
struct flowan_group {
	uint32_t *hosts;
	size_t n;
};

struct flowan_job {
	char id[17];		/* hex FNV-1a of the sorted host addresses */
	uint32_t *hosts;	/* sorted by address */
	size_t nhosts;
	struct flowan_group *dp;
	size_t ndp;
	struct flowan_group *pp;
	size_t npp;
	struct flowan_pair *pairs;
	size_t npairs;
	struct flowan_iter *iters;
	size_t niters;
	struct flowan_finding *findings;
	size_t nfindings;
	double period;		/* median iteration duration */
	double ckpt_bytes;	/* median bytes a checkpoint save writes out
				   of the job (FLOWAN_CKPT_WRITES) */
	struct flowan_host *hstat;	/* one per job host, same order */
	double *gcomm;		/* [iter * ndp + g]: group g's step-end burst, s */
	double *gbytes;		/* [iter * ndp + g]: the bytes that burst moved */
	double *hcomp;		/* [host * niters + iter]: compute seconds */
	double *hcomm;		/* [host * niters + iter]: communication seconds */
};

struct flowan {
	const struct flow_set *set;	/* borrowed */
	char **names;		/* optional node name per host (borrowed) */
	struct flowan_job *jobs;
	size_t njobs;
	uint64_t control_bytes;	/* bytes dropped as control or storage */
	const char *name;	/* the job's name when the captures are one
				   job's (borrowed; NULL: by id only) */
};

void flowan_params_default(struct flowan_params *p);

/*
 * Analyse `set` (borrowed, must outlive *fa).  Fills *fa; free with
 * flowan_free().  Returns 0; -1 with *cause only on inconsistent input.
 */
int flowan_analyse(struct flowan *fa, const struct flow_set *set,
    const struct flowan_params *p, char **cause);
/* The same, with node names per host (borrowed; NULL or NULL entries). */
int flowan_analyse_named(struct flowan *fa, const struct flow_set *set,
    char **names, const struct flowan_params *p, char **cause);
void flowan_free(struct flowan *fa);

/*
 * The step gap of a series of gaps (seconds): a two-cluster split of
 * log(gap) at the widest valley between consecutive sorted gaps, at least
 * 4x wide, with at least 3 gaps above it and at least half as many below
 * as above (gaps under 0.1 ms count as 0.1 ms).  Returns the geometric
 * middle of the valley, or 0 when there is none.
 */
double flowan_gap_threshold(const double *gaps, size_t n);

/*
 * Lagged Bayesian online change-point detection on log(gap) with a
 * Normal-Gamma prior and hazard `hazard`: out[i] receives the posterior
 * probability, given the data up to i + lag, that a new run starts at i.
 * Used as a cross-check of flowan_gap_threshold() in the tests.
 */
void flowan_bocd(const double *gaps, size_t n, double hazard, size_t lag,
    double *out);

/* qsort comparator for uint64_t. */
int flowan_cmp_u64(const void *a, const void *b);

/* A stretch of one pair's traffic: a message, or a paced transfer. */
struct flowan_span {
	double start, end;	/* epoch seconds */
	double bytes;		/* payload (or IP) bytes */
	size_t n;		/* messages: > 1 for a paced transfer */
};

/*
 * A burst with under FLOWAN_FRAG_SHARE of the usual burst's bytes is a
 * fragment of the burst after it (a ring whose member is late runs its
 * first steps without it, then waits).  flowan_usual_burst() is the
 * usual burst of b[0..n) (bytes of bursts): the byte-weighted median,
 * the size from which bursts hold half the bytes.  flowan_join_small()
 * adds each fragment of b[0..n) (in time order) to the one after it and
 * returns how many are left.
 */
#define FLOWAN_FRAG_SHARE	0.25
double flowan_usual_burst(const double *b, size_t n);
size_t flowan_join_small(double *b, size_t n);

/*
 * The step gap of spans sp[0..n) (sorted by start): `fixed` when it is
 * > 0; else, of the valleys of the gaps between them (see
 * flowan_gap_threshold()), the widest one whose bursts move the same
 * bytes (a step moves the same gradients, or the same micro-batches,
 * every time), or the widest of all when none does; INFINITY when there
 * is no gap to split on.
 */
double flowan_span_gap(const struct flowan_span *sp, size_t n, double fixed);
/*
 * The step gap of the messages s->msgs[m[0..n)] (sorted by start), as
 * flowan_span_gap() of one span a message.
 */
double flowan_series_gap(const struct flow_set *s, const size_t *m,
    size_t n, double fixed);
/*
 * The messages s->msgs[m[0..n)] of one host pair as spans (*out,
 * allocated; the return is how many), sorted by start, each paced
 * transfer one span: consecutive messages of one connection and
 * direction that a rate limiter let through in pieces, with silences
 * under `within` (the pair's step gap; see flowan.c).  Only messages of
 * at least `min` bytes count.
 */
size_t flowan_paced(const struct flow_set *s, const size_t *m, size_t n,
    uint64_t min, double within, struct flowan_span **out);

const char *flowan_type_name(enum flowan_type t);
const char *flowan_kind_name(enum flowan_kind k);
/* The address (or node name) of host h, in a static buffer per call slot. */
const char *flowan_host_name(const struct flowan *fa, uint32_t h);

/* Printers: a readable summary, tab-separated rows, or a JSON document. */
void flowan_print_text(const struct flowan *fa, FILE *out);
void flowan_print_tsv(const struct flowan *fa, FILE *out);
void flowan_print_json(const struct flowan *fa, FILE *out);

/*
 * flownames.c: node names for the hosts of `set` from NCCL init lines in
 * the logs under `dir` and hosts-style files there.  Returns an array of
 * set->nhosts names (NULL where unknown; free with flowan_names_free()),
 * or NULL when no host got a name.
 */
char **flowan_names_from_dir(const struct flow_set *set, const char *dir);
void flowan_names_free(char **names, size_t n);
/*
 * Scan `len` bytes of text (lines of a log, or of a hosts file when
 * hostsfile != 0) and fill names[] (set->nhosts entries, allocated
 * strings) for hosts still unnamed.
 */
void flowan_names_scan_text(const struct flow_set *set, char **names,
    const char *text, size_t len, int hostsfile);

/* qsort comparator for char *. */
int flowan_cmp_str(const void *a, const void *b);

/*
 * Whether pipeline group g of job is a chain: no host with three PP
 * peers in it.  After flowan_analyse(), a group that is none holds rank
 * pipelines that interleave over its hosts and that the wire did not
 * tell apart (RoCE QPs name connections, not ranks).
 */
int flowan_pp_chain(const struct flowan_job *job, const struct flowan_group *g);

/*
 * flowtl.c: iterations, pipeline order, per-host compute/communication
 * and findings of one job whose pairs and groups are filled in.
 */
void flowan_timeline(const struct flowan *fa, struct flowan_job *job,
    const struct flowan_params *p);

#endif
