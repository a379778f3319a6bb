/*
 * sim.h -- the synthetic training job generator behind `simulate`.
 *
 * sim.c resolves options into a job (topology, faults, clocks) and drives
 * the timeline one iteration at a time; sim-log.c turns each step into the
 * text the frameworks, the launcher, NCCL and the kernel would have
 * written; sim-net.c turns it into the frames a capture would have seen.
 * The three share the structures below; nothing outside them should.
 */
#ifndef TS_SIM_H
#define TS_SIM_H

#include <stdint.h>
#include <stdio.h>

#include "base/rng.h"

enum sim_format { SIM_MEGATRON, SIM_DEEPSPEED, SIM_HF };
enum sim_layout { SIM_PER_RANK, SIM_PER_NODE, SIM_COMBINED };
enum sim_prefix { SIM_PFX_SRUN, SIM_PFX_DEFAULT, SIM_PFX_RANK };
enum sim_transport { SIM_ROCE, SIM_TCP };

enum sim_kind {
	SIM_IB_LINK_DOWN, SIM_GPU_XID79, SIM_ECC, SIM_CUDA_OOM, SIM_NAN_LOSS,
	SIM_CKPT_SAVE_IO, SIM_CKPT_LOAD_MISSING, SIM_CONFIG_ERROR, SIM_HANG,
	SIM_DATALOADER_STALL, SIM_STRAGGLER, SIM_SLOW_LINK, SIM_NODE_LOST,
	SIM_SLOW_NIC,
	SIM_NKINDS
};

/* Where in the job's life a fault strikes. */
enum sim_stage { SIM_ST_NONE, SIM_ST_INIT, SIM_ST_LOAD, SIM_ST_TRAIN,
	SIM_ST_SAVE };

struct sim_fault {
	int kind;
	int node;	/* -1 until resolved: chosen by the seed */
	long iter;	/* -1 until resolved */
	int rank;	/* the rank hit first */
	int peer;	/* slow-link: the node at the other end */
	double ts;	/* injection time, epoch seconds */
	double factor;	/* straggler / slow-link slowdown; slow-nic: the
			   NIC moves 1/factor of its rate */
};

struct sim_opts {
	int nodes, gpn, dp, pp, tp;
	long iters;
	double iter_ms;
	int micro;
	int format, layout, prefix, transport;
	int gzip, healthy, flows;
	double skew_ms;
	uint64_t seed;
	uint64_t size;		/* 0: --iters decides */
	long capture_iters;	/* 0: capture every iteration */
	struct sim_fault *faults;
	size_t nfaults;
};

/* A root-cause line: path relative to the job directory, 1-based line. */
struct sim_cause {
	char *path;
	long line;
	char *what;	/* a substring the line carries */
};

/* One iteration as it happened (true times, epoch seconds). */
struct sim_iter {
	long n;
	double start, end;
	double compute_end;	/* the DP all-reduce starts here */
	double *node_ms;	/* per node: compute time of this iteration */
	double ar_ms;		/* all-reduce duration */
	int ckpt;		/* a checkpoint save follows */
	double ckpt_end;
	double loss, gnorm, lr;
	double crash_ts;	/* > 0: a crash fault strikes inside */
};

struct sim_job {
	struct sim_opts o;
	int world;
	char **node_name;
	char **node_ip;
	uint32_t *node_addr;
	double *skew;		/* per node clock offset, seconds */
	int *pid;		/* per rank */
	double t0;		/* launch time */
	double train_start;
	long save_interval;
	long gbs;
	struct rng rng;

	/* The outcome. */
	int crashed;
	int crash_stage;
	long crash_iter;	/* iteration in progress at the crash, or 0 */
	double crash_ts;
	double end_ts;
	int *dead_node;		/* node-lost: its logs end */
	struct sim_cause *causes;
	size_t ncauses, causes_cap;

	/* The timeline, for truth.json. */
	double *it_start, *it_end;
	float *it_node_ms;
	long nit;
	size_t it_cap;
	uint64_t log_bytes;
};

/* Fault kind names, in enum order. */
extern const char *const sim_kind_names[SIM_NKINDS];
/* Nonzero when the kind ends the job. */
int sim_kind_crashes(int kind);

/*
 * Parse "KIND[@node][:iter]" (node as a number or a node name like
 * node-003) into *f.  Returns 0, or -1 with *cause set.
 */
int sim_parse_fault(const char *s, struct sim_fault *f, char **cause);
/* Parse "10G", "512M", "4096" (bytes); 0 or -1 with *cause set. */
int sim_parse_size(const char *s, uint64_t *out, char **cause);

/* Fill *o with the defaults (8 nodes x 8 GPUs, tp 8, pp 2, ...). */
void sim_opts_defaults(struct sim_opts *o);
/*
 * Check and complete the options (derive dp/pp/tp, check faults against
 * the topology).  Returns 0, or -1 with *cause set.
 */
int sim_opts_check(struct sim_opts *o, char **cause);
/*
 * Generate the job into `outdir` (created; must not exist or be empty).
 * A one-line summary goes to `out`, progress to `progress` and a word on a
 * large capture to `err` when they are not NULL.  Returns 0, or -1 with *cause set.
 */
int sim_run(const struct sim_opts *o, const char *outdir, FILE *out,
    FILE *progress, FILE *err, char **cause);

/*
 * What a capture of `n` iterations of `per_iter` bytes each comes to,
 * where `avail` bytes are free: SIM_CAP_OK, SIM_CAP_LARGE (worth a word
 * before the user waits for it) or SIM_CAP_NOROOM (it would fill the
 * disk).
 */
enum { SIM_CAP_OK, SIM_CAP_LARGE, SIM_CAP_NOROOM };
#define SIM_CAP_LARGE_BYTES	1000000000ULL
int sim_capture_verdict(uint64_t per_iter, long n, uint64_t avail);

/* Topology helpers (Megatron order: tp fastest, then dp, then pp). */
int sim_rank_node(const struct sim_job *j, int rank);
int sim_rank_stage(const struct sim_job *j, int rank);
int sim_rank_dp(const struct sim_job *j, int rank);
/*
 * Pipeline `pipe`'s (d * tp + t) schedule in an iteration whose nodes
 * compute node_ms[] milliseconds: GPipe-like (every forward, then every
 * backward) and causal: a stage works on micro-batch k once its
 * neighbour has sent k (the stage before in the forward half, the one
 * after in the backward half) and it is done with k - 1.  A stage's
 * forward takes a third of its compute time over m + pp - 1 slots
 * (slot[s]), its backward twice that.  fwd[s * m + k] and bwd[s * m + k]
 * (pp * micro each) say when stage s is done with k and sends it on, in
 * seconds from the iteration's start; the pipeline is done at bwd[m - 1]
 * (stage 0's last backward).  So a slow stage holds up the stages after
 * it without making them compute longer: they wait for its messages.
 */
void sim_pipe_schedule(const struct sim_job *j, const double *node_ms,
    int pipe, double *slot, double *fwd, double *bwd);
/*
 * A rank on another node that `rank`'s node exchanges traffic with, at
 * the other end of its busiest link: where the DP ring of `rank`, else
 * of another rank of its node, goes on to; else, where the rings stay
 * inside the node, a next pipeline stage of one of its ranks, else a
 * stage before.  -1 when none of the node's traffic leaves it.
 */
int sim_peer_rank(const struct sim_job *j, int rank);
/* The node of sim_peer_rank() of node's first rank; `node` when none. */
int sim_peer_node(const struct sim_job *j, int node);
/* Record a root-cause line (strings copied). */
void sim_add_cause(struct sim_job *j, const char *path, long line,
    const char *what);
/* The fault of `kind` in the job, or NULL. */
struct sim_fault *sim_find_fault(struct sim_job *j, int kind);

/* sim-log.c: the text. */
struct simlog;
/* Open every log file under `dir`; NULL with *cause set on failure. */
struct simlog *simlog_open(struct sim_job *j, const char *dir, char **cause);
/* Launch: launcher, banner, NCCL init; may end the job (init faults). */
int simlog_launch(struct simlog *l, char **cause);
/* One iteration's lines on every live rank. */
int simlog_iter(struct simlog *l, const struct sim_iter *it, char **cause);
/* The end: cascades, tracebacks, launcher summaries; closes the files. */
int simlog_finish(struct simlog *l, char **cause);
/* Free without finishing (error paths).  Accepts NULL. */
void simlog_free(struct simlog *l);
/* The log file of `rank`, relative to the job directory (allocated). */
char *simlog_rank_path(const struct sim_job *j, int rank);
/* Bytes one iteration adds to the logs, roughly (for --size). */
uint64_t simlog_iter_bytes(struct sim_job *j);

/* sim-net.c: the capture. */
struct simnet;
struct simnet *simnet_open(struct sim_job *j, const char *path,
    char **cause);
/* Frames of launch (rendezvous) up to the first iteration. */
int simnet_launch(struct simnet *n, char **cause);
/* Frames of one iteration and the checkpoint after it. */
int simnet_iter(struct simnet *n, const struct sim_iter *it, int capture,
    char **cause);
/* Bytes of the capture so far. */
uint64_t simnet_bytes(const struct simnet *n);
/* Teardown frames, flush and close.  Frees n. */
int simnet_finish(struct simnet *n, char **cause);
void simnet_free(struct simnet *n);

#endif
