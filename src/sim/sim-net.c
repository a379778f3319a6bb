/*
 * sim-net.c -- the frames a capture of a synthetic job would hold.
 *
 * The model, per iteration of sim.c's timeline:
 *  - tensor parallel traffic stays inside a node and is never seen;
 *  - pipeline parallel: for every micro-batch, activations go from stage s
 *    to stage s+1 during the forward half and gradients come back during
 *    the backward half, on a causal schedule (a stage waits for its
 *    neighbour's message; see sim_pipe_schedule()); one message size per node
 *    pair (all the rank pairs between two nodes are aggregated);
 *  - data parallel: a ring all-reduce per gradient bucket (four buckets
 *    of different sizes, so the chunk sizes vary), 2 (dp - 1) steps, each
 *    node sending one chunk to its ring successor per step, on data
 *    dependencies: a member enters when its pipeline is done, the last
 *    when the slowest one is (see ring_schedule()); a rank holds 1/tp of
 *    the stage's gradients, so a node pair that carries the rings of
 *    several TP ranks moves what one node's NIC can (LINK_BPS), not tp
 *    times that; pipeline and DP traffic have their own connections;
 *  - checkpoint saves stream to a storage server (NFS, TCP 2049);
 *  - control: torchrun's rendezvous store on the master's TCP port 29500
 *    (connect at launch, heartbeats every few seconds, close at exit).
 * Collective traffic is RoCEv2 (UDP 4791, an InfiniBand base transport
 * header with opcode, destination QP and PSN, reliable-connected RDMA
 * writes, ECN-capable; congested packets are CE-marked and answered by a
 * CNP) or, with --transport tcp, NCCL's socket transport.
 *
 * Packet sampling: a capture of every packet of a multi-gigabyte
 * all-reduce would be enormous, so each message is recorded as at most
 * MAX_SAMPLES MTU-sized packets spread evenly over its duration (like
 * sFlow-style sampling; TCP ones closer, see message()).  The last sample
 * is the message's last packet, and PSNs and TCP sequence numbers advance
 * by the true message size, so the gaps between recorded packets show how
 * much was sent.  Frames are headers only (snap length 128).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flows/pcapw.h"
#include "sim/sim.h"
#include "base/util.h"

#define SNAPLEN		128
#define MTU_PAYLOAD	4096		/* RoCE path MTU */
#define TCP_MSS		8948		/* jumbo frames */
#define MAX_SAMPLES	4
#define TCP_SPACING	0.0005		/* seconds between TCP samples, at most */
#define TCP_SAMPLES	256
#define NCH		2		/* NCCL channels (QPs) per node pair */
#define LINK_BPS	25e9		/* bytes per second per node NIC */
#define STORAGE		0xffff
#define STORAGE_ADDR	((10u << 24) | (42u << 16) | (200u << 8) | 10u)
#define BUCKETS		4

enum { EV_ROCE, EV_ACK, EV_CNP, EV_TCP };

struct ev {
	double ts;
	uint32_t seq;
	uint16_t src, dst;
	uint8_t type, opcode, ecn, flags;
	uint32_t qp, psn, ack;
	uint32_t len;		/* payload bytes on the wire */
	uint32_t msg;		/* RDMA write: the whole message's length */
	uint16_t sport, dport;
};

struct edge {
	int a, b;		/* nodes, a sends to b */
	int stage;		/* PP: the sending stage */
	int pipe;		/* PP: the first pipeline (d * tp + t) on it */
	int mult;		/* rank pairs aggregated on this node pair */
	uint32_t *psn;		/* PP: per connection and way (pp_conn()) */
	int *local;		/* PP: per rank pair, the local ranks (on
				   their nodes) of its receiver forward and
				   back */
};

struct simnet {
	struct sim_job *j;
	struct pcapw *w;
	struct rng rng;
	struct ev *ev;
	size_t nev, cap;
	uint32_t seq;
	struct edge *pp, *dp;
	size_t npp, ndp;
	uint32_t *psn;		/* per (src, dst, channel) */
	uint32_t *store_seq;	/* per node: its stream to storage */
	double *ready;		/* per node: when its ranks enter the
				   step-end all-reduce (see pp_traffic()) */
	double next_hb;
	double bucket_bytes[BUCKETS];
	double act_bytes;
	double act_cap;		/* bytes a PP message may carry (see sizes()) */
};

static const double bucket_share[BUCKETS] = { 0.34, 0.29, 0.25, 0.12 };

/* ------------------------------------------------------------ layout */

/*
 * The edge from node a to node b, made or with one more rank pair (the
 * one of `pipe` at `stage`); NULL inside a node (invisible).
 */
static struct edge *
add_edge(struct edge **e, size_t *n, int a, int b, int stage, int pipe)
{
	size_t i;

	if (a == b)
		return NULL;
	for (i = 0; i < *n; i++)
		if ((*e)[i].a == a && (*e)[i].b == b) {
			(*e)[i].mult++;
			return &(*e)[i];
		}
	*e = xreallocarray(*e, *n + 1, sizeof **e);
	memset(&(*e)[*n], 0, sizeof **e);
	(*e)[*n].a = a;
	(*e)[*n].b = b;
	(*e)[*n].stage = stage;
	(*e)[*n].pipe = pipe;
	(*e)[*n].mult = 1;
	return &(*e)[(*n)++];
}

static int
rank_of(const struct sim_job *j, int s, int d, int t)
{
	return s * j->o.dp * j->o.tp + d * j->o.tp + t;
}

static void
build_edges(struct simnet *n)
{
	struct sim_job *j = n->j;
	struct edge *e;
	int s, d, t, x, y;

	for (s = 0; s + 1 < j->o.pp; s++)
		for (d = 0; d < j->o.dp; d++)
			for (t = 0; t < j->o.tp; t++) {
				x = rank_of(j, s, d, t);
				y = rank_of(j, s + 1, d, t);
				e = add_edge(&n->pp, &n->npp, sim_rank_node(j, x),
				    sim_rank_node(j, y), s, d * j->o.tp + t);
				if (e == NULL)
					continue;
				e->local = xreallocarray(e->local,
				    (size_t)e->mult, 2 * sizeof *e->local);
				e->local[2 * e->mult - 2] = y % j->o.gpn;
				e->local[2 * e->mult - 1] = x % j->o.gpn;
			}
	for (s = 0; s < j->o.pp && j->o.dp > 1; s++)
		for (d = 0; d < j->o.dp; d++)
			for (t = 0; t < j->o.tp; t++)
				add_edge(&n->dp, &n->ndp,
				    sim_rank_node(j, rank_of(j, s, d, t)),
				    sim_rank_node(j, rank_of(j, s,
				    (d + 1) % j->o.dp, t)), s, d * j->o.tp + t);
}

/* Fixed message sizes: activations per micro-batch, gradient buckets. */
static void
sizes(struct simnet *n)
{
	struct sim_job *j = n->j;
	double steps = 2.0 * (j->o.dp > 1 ? j->o.dp - 1 : 1);
	double total = LINK_BPS * (j->o.iter_ms * 0.18 / 1000) * 0.85 *
	    j->o.dp / steps;
	int k;

	for (k = 0; k < BUCKETS; k++)
		n->bucket_bytes[k] = floor(total * bucket_share[k] / 4096) * 4096;
	/* micro-batch 4 x sequence 4096 x hidden 8192 x bf16, split by tp */
	n->act_bytes = 4.0 * 4096 * 8192 * 2 / j->o.tp;
	/*
	 * A short simulated step would leave the link busy for a whole
	 * forward slot with that; real pipelines overlap a transfer with a
	 * stage's compute, so at most a third of the healthy slot.
	 */
	n->act_cap = floor(LINK_BPS * j->o.iter_ms * 0.8 / 1000 / 3 /
	    (j->o.micro + j->o.pp - 1) / 3 / 4096) * 4096;
}

/* ------------------------------------------------------------ events */

static struct ev *
push(struct simnet *n, double ts, int type, int src, int dst)
{
	struct ev *e;

	n->ev = xgrow(n->ev, &n->cap, n->nev + 1, sizeof *n->ev);
	e = &n->ev[n->nev++];
	memset(e, 0, sizeof *e);
	e->ts = ts;
	e->seq = n->seq++;
	e->type = (uint8_t)type;
	e->src = (uint16_t)src;
	e->dst = (uint16_t)dst;
	return e;
}

/*
 * A connection from node a to node b: its sequence state, the QP its
 * packets are for and the one its ACKs are for, and its TCP ports (the
 * receiving rank's listen port, a port of the sender's own).
 */
struct conn {
	uint32_t *psn;
	uint32_t qp, ackqp;
	uint16_t sport, dport;
};

/* Data-parallel channel ch from a to b (one per channel and node pair). */
static struct conn
dp_conn(struct simnet *n, int a, int b, int ch)
{
	size_t nodes = (size_t)n->j->o.nodes;
	struct conn c;

	c.psn = &n->psn[((size_t)a * nodes + (size_t)b) * NCH + (size_t)ch];
	c.qp = (0x100u + (uint32_t)b * 0x40u + (uint32_t)a * 4u +
	    (uint32_t)ch) & 0xffffffu;
	c.ackqp = (0x100u + (uint32_t)a * 0x40u + (uint32_t)b * 4u +
	    (uint32_t)ch) & 0xffffffu;
	c.sport = (uint16_t)(40000 + (a * 7 + b * 13 + ch) % 20000);
	c.dport = (uint16_t)(50000 + ch);
	return c;
}

/*
 * Pipeline connection k (rank pair k / NCH, channel k % NCH) of edge e,
 * forward (activations, a to b) or back: each rank pair has its own, to
 * the receiving rank's listen port (51000 + its local rank) and QPs of
 * its own.
 */
static struct conn
pp_conn(struct edge *e, int k, int back)
{
	int from = back ? e->b : e->a, to = back ? e->a : e->b;
	struct conn c;

	c.psn = &e->psn[2 * k + back];
	c.qp = (0x10000u + (uint32_t)from * 0x40u + (uint32_t)(2 * k + back)) &
	    0xffffffu;
	c.ackqp = (0x10000u + (uint32_t)to * 0x40u + (uint32_t)(2 * k + back)) &
	    0xffffffu;
	c.sport = (uint16_t)(20000 + (from * 31 + to * 17 + 2 * k + back) %
	    19000);
	c.dport = (uint16_t)(51000 + e->local[2 * (k / NCH) + back]);
	return c;
}

/*
 * One message of `bytes` from a to b on connection c, sent over [t,
 * t+dur].  `ce` is the chance a recorded packet is CE-marked.
 */
static void
message(struct simnet *n, int a, int b, struct conn c, double bytes, double t,
    double dur, double ce)
{
	uint32_t *psn = c.psn, pkts, k, ns, step, idx, last;
	int tcp = n->j->o.transport == SIM_TCP, marked = 0;
	uint32_t unit = tcp ? TCP_MSS : MTU_PAYLOAD;
	struct ev *e;

	pkts = (uint32_t)ceil(bytes / unit);
	if (pkts == 0)
		pkts = 1;
	ns = pkts < MAX_SAMPLES ? pkts : MAX_SAMPLES;
	/*
	 * TCP shows no message boundary but a pause, so a sampled TCP message
	 * keeps its samples closer than the reader's message gap (1 ms):
	 * one every TCP_SPACING, up to TCP_SAMPLES.
	 */
	if (tcp && dur / ns > TCP_SPACING) {
		k = (uint32_t)fmin(ceil(dur / TCP_SPACING), TCP_SAMPLES);
		ns = k < pkts ? k : pkts;
	}
	step = pkts / ns;
	last = (uint32_t)(bytes - (double)(pkts - 1) * unit);
	if (last == 0 || last > unit)
		last = unit;
	for (k = 0; k < ns; k++) {	/* the last sample is the last packet */
		e = push(n, t + dur * k / ns + rng_range(&n->rng, 0, dur / ns / 4),
		    tcp ? EV_TCP : EV_ROCE, a, b);
		e->qp = c.qp;
		idx = k + 1 == ns ? pkts - 1 : k * step;
		e->psn = tcp ? *psn + idx * unit : (*psn + idx) & 0xffffff;
		e->len = k + 1 == ns ? last : unit;
		e->opcode = ns == 1 ? 10 : k == 0 ? 6 : k + 1 == ns ? 8 : 7;
		e->msg = bytes > 4294967295.0 ? 0xffffffffu : (uint32_t)bytes;
		e->ecn = rng_unit(&n->rng) < ce ? 3 : 2;
		marked |= e->ecn == 3;
		e->sport = tcp ? c.sport :
		    (uint16_t)(49152 + (c.qp * 2654435761u >> 18) % 16384);
		e->dport = (uint16_t)(tcp ? c.dport : 4791);
		e->flags = 0x18;	/* PSH ACK */
	}
	*psn = tcp ? *psn + (pkts - 1) * unit + last : (*psn + pkts) & 0xffffff;
	e = push(n, t + dur + 2e-6, tcp ? EV_TCP : EV_ACK, b, a);
	e->qp = c.ackqp;
	e->psn = *psn;
	e->ack = *psn;
	e->sport = tcp ? c.dport : (uint16_t)(49152 + (c.ackqp % 16384));
	e->dport = tcp ? c.sport : 4791;
	e->flags = (uint8_t)(0x10 | (tcp && marked ? 0x40 : 0));	/* ECE */
	e->ecn = 2;
	if (marked && !tcp) {
		e = push(n, t + dur / 2 + 5e-5, EV_CNP, b, a);
		e->qp = c.qp;
		e->sport = (uint16_t)(49152 + (c.qp % 16384));
		e->dport = 4791;
	}
}

/* A small TCP segment (control, storage). */
static void
tcp_seg(struct simnet *n, double t, int a, int b, uint16_t sport,
    uint16_t dport, uint8_t flags, uint32_t seq, uint32_t len)
{
	struct ev *e = push(n, t, EV_TCP, a, b);

	e->sport = sport;
	e->dport = dport;
	e->flags = flags;
	e->psn = seq;
	e->ack = seq ^ 0x5a5a5a5au;
	e->len = len;
}

/* ------------------------------------------------------------ traffic */

static int
slow_edge(struct simnet *n, int a, int b, long iter)
{
	struct sim_fault *f = sim_find_fault(n->j, SIM_SLOW_LINK);

	return f != NULL && iter >= f->iter &&
	    ((f->node == a && f->peer == b) || (f->node == b && f->peer == a));
}

/* The slowdown of node pair a-b's messages from a slow NIC (1: none). */
static double
nic_factor(struct simnet *n, int a, int b, long iter)
{
	struct sim_fault *f = sim_find_fault(n->j, SIM_SLOW_NIC);

	return f != NULL && iter >= f->iter &&
	    (f->node == a || f->node == b) ? f->factor : 1;
}

/*
 * The slowdown of pipeline transfers between nodes a and b: a slow NIC
 * of either, or the slow link between them.
 */
static double
pp_factor(struct simnet *n, int a, int b, long iter)
{
	struct sim_fault *f = sim_find_fault(n->j, SIM_SLOW_LINK);

	return nic_factor(n, a, b, iter) * (f != NULL && iter >= f->iter &&
	    ((f->node == a && f->peer == b) || (f->node == b &&
	    f->peer == a)) ? f->factor : 1);
}

/*
 * n->ready[node]: when the node's ranks enter the step-end all-reduce.
 * A pipeline is done when stage 0 is done with its last backward
 * (bwd[m - 1] of its schedule); the slowest pipeline is done at
 * it->compute_end, and the others that much earlier.  A node waits for
 * the latest of the pipelines through it.
 */
static void
entry_times(struct simnet *n, const struct sim_iter *it, const double *bwd)
{
	const struct sim_job *j = n->j;
	int m = j->o.micro, pp = j->o.pp, s, np = j->o.dp * j->o.tp, i;
	size_t sz = (size_t)pp * (size_t)m;
	double last = 0, r;

	for (i = 0; i < np; i++)
		if (bwd[(size_t)i * sz + (size_t)m - 1] > last)
			last = bwd[(size_t)i * sz + (size_t)m - 1];
	for (i = 0; i < j->o.nodes; i++)
		n->ready[i] = -INFINITY;
	for (i = 0; i < np; i++) {
		r = it->compute_end - (last - bwd[(size_t)i * sz + (size_t)m - 1]);
		for (s = 0; s < pp; s++) {
			int node = sim_rank_node(j, rank_of(j, s, i / j->o.tp,
			    i % j->o.tp));

			if (r > n->ready[node])
				n->ready[node] = r;
		}
	}
}

/* Activations forward, gradients backward, per micro-batch. */
static void
pp_traffic(struct simnet *n, const struct sim_iter *it)
{
	struct sim_job *j = n->j;
	int m = j->o.micro, pp = j->o.pp, k, ch, s;
	size_t i, np = (size_t)j->o.dp * (size_t)j->o.tp, sz = (size_t)pp * m;
	double *slot = xcalloc(np * (size_t)pp, sizeof *slot);
	double *fwd = xcalloc(np * sz, sizeof *fwd);
	double *bwd = xcalloc(np * sz, sizeof *bwd);
	double bytes, dur, nf, *f, *b, *sl;
	struct edge *e;

	for (i = 0; i < np; i++)
		sim_pipe_schedule(j, it->node_ms, (int)i,
		    slot + i * (size_t)pp, fwd + i * sz, bwd + i * sz);
	entry_times(n, it, bwd);
	for (i = 0; i < n->npp; i++) {
		e = &n->pp[i];
		s = e->stage;
		f = fwd + (size_t)e->pipe * sz;
		b = bwd + (size_t)e->pipe * sz;
		sl = slot + (size_t)e->pipe * (size_t)pp;
		/* each rank pair its share; together as fast as the NIC */
		bytes = fmin(n->act_bytes * e->mult, n->act_cap) / NCH /
		    e->mult;
		dur = bytes * e->mult / (LINK_BPS / NCH);
		if (e->psn == NULL)
			e->psn = xcalloc((size_t)e->mult * NCH * 2,
			    sizeof *e->psn);
		/*
		 * A slow NIC or link stretches the transfer, up to most of
		 * the time before the next one (the schedule does not wait
		 * on it).
		 */
		nf = pp_factor(n, e->a, e->b, it->n);
		for (k = 0; k < m; k++)
			for (ch = 0; ch < NCH * e->mult; ch++) {
				message(n, e->a, e->b, pp_conn(e, ch, 0), bytes,
				    it->start + f[s * m + k],
				    fmin(fmin(dur, sl[s]) * nf, 0.9 * sl[s]),
				    0.002);
				message(n, e->b, e->a, pp_conn(e, ch, 1), bytes,
				    it->start + b[(s + 1) * m + k],
				    fmin(fmin(dur, 2 * sl[s + 1]) * nf,
				    1.8 * sl[s + 1]), 0.002);
			}
	}
	free(slot);
	free(fwd);
	free(bwd);
}

/*
 * The stage whose DP ring holds the slow link in iteration `iter`, or -1.
 * Only that ring is slowed; the other stages' rings run at their healthy
 * pace and then wait for it.
 */
static int
slow_stage(struct simnet *n, long iter)
{
	size_t i;

	for (i = 0; i < n->ndp; i++)
		if (slow_edge(n, n->dp[i].a, n->dp[i].b, iter) ||
		    nic_factor(n, n->dp[i].a, n->dp[i].b, iter) > 1)
			return n->dp[i].stage;
	return -1;
}

/*
 * How long hop a -> b of a ring takes to move one step's chunk, and the
 * chance its recorded packets are CE-marked: a slow link's hop fills
 * the step, a slow NIC's paces it, the others move at line rate (their
 * healthy time; in the slowed ring, `pace` times shorter than its step)
 * and then wait.
 */
static double
hop_dur(struct simnet *n, int a, int b, long iter, double stepdur, double pace,
    double *ce)
{
	*ce = 0.003;
	if (slow_edge(n, a, b, iter)) {
		*ce = 0.35;
		return stepdur * 0.97;
	}
	if (nic_factor(n, a, b, iter) > 1)
		return stepdur * 0.85;
	return stepdur * 0.85 / pace;
}

/*
 * The ring all-reduce of stage `st`, TP index `ti`: one ring per gradient
 * bucket, 2 (dp - 1) steps each, taken as one sequence of g < G steps.
 * t[d * G + g] is when member d sends its step-g chunk to member d + 1:
 * the first step once both have entered (n->ready), a later one once
 * the chunk from d - 1 has arrived and a step's time after its own last
 * send.  So members that are ready start while a late one holds back
 * the chunks that pass through it, as a real ring does; with all ready
 * at once every step takes its time.  Hops inside a node take part but
 * are not on the wire.
 */
static void
ring_schedule(struct simnet *n, const struct sim_iter *it, int st, int ti,
    double ar, double pace, double *t)
{
	const struct sim_job *j = n->j;
	int dp = j->o.dp, steps = 2 * (dp - 1), G = BUCKETS * steps, d, g;
	int *node = xcalloc((size_t)dp, sizeof *node);
	double stepdur, prev = 0, ce, arrive;

	for (d = 0; d < dp; d++)
		node[d] = sim_rank_node(j, rank_of(j, st, d, ti));
	for (g = 0; g < G; g++) {
		stepdur = ar * bucket_share[g / steps] / steps;
		for (d = 0; d < dp; d++) {
			int p = (d + dp - 1) % dp;
			double *x = &t[(size_t)d * (size_t)G + (size_t)g];

			if (g == 0) {
				*x = fmax(n->ready[node[d]],
				    n->ready[node[(d + 1) % dp]]);
				continue;
			}
			arrive = t[(size_t)p * (size_t)G + (size_t)g - 1] +
			    hop_dur(n, node[p], node[d], it->n, prev, pace, &ce);
			*x = fmax(t[(size_t)d * (size_t)G + (size_t)g - 1] + prev,
			    arrive);
		}
		prev = stepdur;
	}
	free(node);
}

/* One ring all-reduce per bucket at the end of the step. */
static void
dp_traffic(struct simnet *n, const struct sim_iter *it)
{
	struct sim_job *j = n->j;
	struct sim_fault *f = sim_find_fault(j, SIM_SLOW_LINK);
	int steps = 2 * (j->o.dp - 1), G = BUCKETS * steps, s, k, ch, g, d;
	int slow = slow_stage(n, it->n), st, ti, nr = j->o.pp * j->o.tp;
	double ar, stepdur, chunk, dur, ce, pace, *t;
	struct edge *e;
	size_t i;

	if (steps <= 0 || n->ndp == 0)
		return;
	if (f == NULL)
		f = sim_find_fault(j, SIM_SLOW_NIC);
	t = xcalloc((size_t)nr * (size_t)j->o.dp * (size_t)G, sizeof *t);
	for (st = 0; st < j->o.pp; st++)
		for (ti = 0; ti < j->o.tp; ti++) {
			ar = it->ar_ms / 1000;
			pace = 1;
			if (slow >= 0 && st != slow)
				ar /= f->factor;
			else if (slow >= 0)
				pace = f->factor;
			ring_schedule(n, it, st, ti, ar, pace, t +
			    (size_t)(st * j->o.tp + ti) * (size_t)j->o.dp *
			    (size_t)G);
		}
	for (i = 0; i < n->ndp; i++) {
		double *et;

		e = &n->dp[i];
		d = e->pipe / j->o.tp;
		ti = e->pipe % j->o.tp;
		et = t + ((size_t)(e->stage * j->o.tp + ti) * (size_t)j->o.dp +
		    (size_t)d) * (size_t)G;
		ar = it->ar_ms / 1000;
		pace = 1;
		if (slow >= 0 && e->stage != slow)
			ar /= f->factor;
		else if (slow >= 0)
			pace = f->factor;
		for (k = g = 0; k < BUCKETS; k++) {
			stepdur = ar * bucket_share[k] / steps;
			chunk = n->bucket_bytes[k] / j->o.dp * e->mult /
			    j->o.tp / NCH;
			dur = hop_dur(n, e->a, e->b, it->n, stepdur, pace, &ce);
			for (s = 0; s < steps; s++, g++)
				for (ch = 0; ch < NCH; ch++)
					message(n, e->a, e->b,
					    dp_conn(n, e->a, e->b, ch), chunk, et[g] +
					    rng_range(&n->rng, 0, stepdur * 0.02),
					    dur, ce);
		}
	}
	free(t);
}

/* Every node streams its shard to the storage server. */
static void
ckpt_traffic(struct simnet *n, const struct sim_iter *it)
{
	struct sim_job *j = n->j;
	struct sim_fault *f = sim_find_fault(j, SIM_CKPT_SAVE_IO);
	double span = it->ckpt_end - it->end, t;
	int a, k;
	uint16_t sport;

	for (a = 0; a < j->o.nodes; a++) {
		sport = (uint16_t)(700 + a % 300);
		for (k = 0; k < 48; k++) {
			t = it->end + 0.05 + span * 0.9 * k / 48;
			if (f != NULL && f->node == a && f->iter == it->n &&
			    t > f->ts - 1.2)
				break;
			tcp_seg(n, t, a, STORAGE, sport, 2049, 0x18,
			    n->store_seq[a], TCP_MSS);
			n->store_seq[a] += 400u * 1024 * 1024 / 48;
		}
		if (f != NULL && f->node == a && f->iter == it->n)
			for (k = 0; k < 4; k++)	/* retransmissions, backing off */
				tcp_seg(n, f->ts - 1.2 + 0.2 * ((1 << k) - 1), a,
				    STORAGE, sport, 2049, 0x18, n->store_seq[a],
				    TCP_MSS);
	}
}

/* Rendezvous store heartbeats from every node up to `until`. */
static void
heartbeats(struct simnet *n, double until, double stop_dead_at)
{
	struct sim_job *j = n->j;
	int a;

	while (n->next_hb < until) {
		for (a = 1; a < j->o.nodes; a++) {
			if (j->dead_node[a] && n->next_hb > stop_dead_at)
				continue;
			tcp_seg(n, n->next_hb + a * 0.0013, a, 0, (uint16_t)(41000 + a),
			    29500, 0x18, (uint32_t)(uint64_t)(n->next_hb * 1000),
			    62);
			tcp_seg(n, n->next_hb + a * 0.0013 + 0.0002, 0, a, 29500,
			    (uint16_t)(41000 + a), 0x18,
			    (uint32_t)(uint64_t)(n->next_hb * 999),
			    17);
		}
		n->next_hb += 5;
	}
}

/* ------------------------------------------------------------ frames */

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static void
put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint32_t
addr_of(const struct simnet *n, int node)
{
	return node == STORAGE ? STORAGE_ADDR : n->j->node_addr[node];
}

static void
eth_ip(const struct simnet *n, const struct ev *e, uint8_t *f, int proto,
    uint32_t iplen, uint8_t tos)
{
	uint32_t src = addr_of(n, e->src), dst = addr_of(n, e->dst), sum = 0;
	int i;

	f[0] = 0x02; f[1] = 0x42; put32(f + 2, dst);
	f[6] = 0x02; f[7] = 0x42; put32(f + 8, src);
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	f[15] = tos;
	put16(f + 16, iplen);
	put16(f + 18, e->seq & 0xffff);
	put16(f + 20, 0x4000);
	f[22] = 64;
	f[23] = (uint8_t)proto;
	put32(f + 26, src);
	put32(f + 30, dst);
	for (i = 14; i < 34; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(f + 24, ~sum & 0xffff);
}

/* RoCEv2: UDP 4791, BTH, then RETH / AETH / CNP padding; ICRC after. */
static uint32_t
roce_frame(const struct simnet *n, const struct ev *e, uint8_t *f)
{
	uint32_t ext = 0, pay = 0, udplen;
	uint8_t op = e->type == EV_ACK ? 17 : e->type == EV_CNP ? 0x81 :
	    e->opcode;
	uint8_t tos = e->type == EV_CNP ? 0xc0 : (uint8_t)(0x68 | e->ecn);

	if (op == 6 || op == 10)
		ext = 16;		/* RETH */
	else if (op == 17)
		ext = 4;		/* AETH */
	else if (op == 0x81)
		ext = 16;		/* CNP reserved bytes */
	if (e->type == EV_ROCE)
		pay = e->len;
	udplen = 8 + 12 + ext + pay + 4;
	eth_ip(n, e, f, 17, 20 + udplen, tos);
	put16(f + 34, e->sport);
	put16(f + 36, 4791);
	put16(f + 38, udplen);
	f[42] = op;
	f[43] = (uint8_t)(op == 8 || op == 10 ? 0x40 : 0);
	put16(f + 44, 0xffff);
	put24(f + 47, e->qp);
	f[50] = (uint8_t)(op == 8 || op == 10 ? 0x80 : 0);
	put24(f + 51, op == 0x81 ? 0 : e->psn);
	if (op == 6 || op == 10) {
		put32(f + 54, 0x7f00u + e->qp);
		put32(f + 58, e->psn * 4096u);
		put32(f + 62, 0x2000u + e->qp);
		put32(f + 66, e->msg);
	} else if (op == 17) {
		f[54] = 0x1f;
		put24(f + 55, e->psn);
	}
	return 14 + 20 + udplen;
}

static uint32_t
tcp_frame(const struct simnet *n, const struct ev *e, uint8_t *f)
{
	eth_ip(n, e, f, 6, 40 + e->len, (uint8_t)(e->dport == 29500 ||
	    e->sport == 29500 || e->dport == 2049 ? 0 : e->ecn));
	put16(f + 34, e->sport);
	put16(f + 36, e->dport);
	put32(f + 38, e->psn);
	put32(f + 42, e->ack);
	f[46] = 0x50;
	f[47] = e->flags;
	put16(f + 48, 502);
	return 54 + e->len;
}

static int
cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort the pending events, drop those after `cut` (0: none), write. */
static int
flush_events(struct simnet *n, double cut, char **cause)
{
	uint8_t f[SNAPLEN];
	uint32_t wire;
	size_t i;

	ts_qsort(n->ev, n->nev, sizeof *n->ev, cmp_ev);
	for (i = 0; i < n->nev; i++) {
		if (cut > 0 && n->ev[i].ts > cut)
			break;
		memset(f, 0, sizeof f);
		if (n->ev[i].type == EV_TCP)
			wire = tcp_frame(n, &n->ev[i], f);
		else
			wire = roce_frame(n, &n->ev[i], f);
		if (pcapw_frame(n->w, n->ev[i].ts, f, SNAPLEN, wire, cause) != 0)
			return -1;
	}
	n->nev = 0;
	return 0;
}

/* ------------------------------------------------------------ driver */

struct simnet *
simnet_open(struct sim_job *j, const char *path, char **cause)
{
	struct simnet *n = xcalloc(1, sizeof *n);

	n->j = j;
	if ((n->w = pcapw_open(path, SNAPLEN, cause)) == NULL) {
		free(n);
		return NULL;
	}
	rng_seed(&n->rng, j->o.seed * 0xd1342543de82ef95ULL + 11);
	n->psn = xcalloc((size_t)j->o.nodes * (size_t)j->o.nodes * NCH,
	    sizeof *n->psn);
	n->store_seq = xcalloc((size_t)j->o.nodes, sizeof *n->store_seq);
	n->ready = xcalloc((size_t)j->o.nodes, sizeof *n->ready);
	build_edges(n);
	sizes(n);
	return n;
}

void
simnet_free(struct simnet *n)
{
	size_t i;

	if (n == NULL)
		return;
	pcapw_close(n->w, NULL);
	free(n->ev);
	for (i = 0; i < n->npp; i++) {
		free(n->pp[i].psn);
		free(n->pp[i].local);
	}
	free(n->pp);
	free(n->dp);
	free(n->psn);
	free(n->store_seq);
	free(n->ready);
	free(n);
}

/* Every node joins the rendezvous; NCCL's bootstrap connects the rings. */
int
simnet_launch(struct simnet *n, char **cause)
{
	struct sim_job *j = n->j;
	double t = j->t0 + 1;
	int a;
	size_t i;

	for (a = 1; a < j->o.nodes; a++) {
		uint16_t sp = (uint16_t)(41000 + a);

		tcp_seg(n, t + a * 0.003, a, 0, sp, 29500, 0x02, 1000u * a, 0);
		tcp_seg(n, t + a * 0.003 + 1e-4, 0, a, 29500, sp, 0x12, 7u * a, 0);
		tcp_seg(n, t + a * 0.003 + 2e-4, a, 0, sp, 29500, 0x10,
		    1000u * a + 1, 0);
		tcp_seg(n, t + a * 0.003 + 3e-4, a, 0, sp, 29500, 0x18,
		    1000u * a + 1, 180);
	}
	for (i = 0; i < n->ndp + n->npp; i++) {
		struct edge *e = i < n->ndp ? &n->dp[i] : &n->pp[i - n->ndp];
		uint16_t sp = (uint16_t)(43000 + i % 20000);

		tcp_seg(n, j->t0 + 3.1 + i * 1e-3, e->a, e->b, sp, 45000, 0x02, 1, 0);
		tcp_seg(n, j->t0 + 3.1 + i * 1e-3 + 5e-5, e->b, e->a, 45000, sp,
		    0x12, 2, 0);
	}
	n->next_hb = j->t0 + 5;
	if (j->crashed) {
		heartbeats(n, j->crash_ts, j->crash_ts);
		return flush_events(n, 0, cause);
	}
	heartbeats(n, j->train_start, 0);
	return flush_events(n, 0, cause);
}

int
simnet_iter(struct simnet *n, const struct sim_iter *it, int capture,
    char **cause)
{
	double stop = it->crash_ts > 0 ? it->crash_ts : it->ckpt_end;

	if (!capture) {
		n->next_hb = stop;
		return 0;
	}
	pp_traffic(n, it);
	dp_traffic(n, it);
	if (it->ckpt)
		ckpt_traffic(n, it);
	heartbeats(n, stop, 0);
	return flush_events(n, it->crash_ts, cause);
}

uint64_t
simnet_bytes(const struct simnet *n)
{
	return pcapw_bytes(n->w);
}

/* After a crash: heartbeats until the peers time out, then goodbyes. */
int
simnet_finish(struct simnet *n, char **cause)
{
	struct sim_job *j = n->j;
	double end = j->crashed ? j->crash_ts + 602.5 : j->end_ts + 1;
	int a, rc;

	if (j->crashed)
		heartbeats(n, end - 1, j->crash_ts);
	for (a = 1; a < j->o.nodes; a++)
		if (!j->dead_node[a])
			tcp_seg(n, end + a * 0.002, a, 0, (uint16_t)(41000 + a),
			    29500, 0x11, 5000u * a, 0);
	rc = flush_events(n, 0, cause);
	if (pcapw_close(n->w, rc == 0 ? cause : NULL) != 0)
		rc = -1;
	n->w = NULL;
	simnet_free(n);
	return rc;
}
