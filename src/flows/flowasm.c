/*
 * flowasm.c -- records to flows to messages.
 *
 * Hosts get numbers in order of first appearance (a hash of addresses).
 * Live flows sit in a chained hash keyed by (source host, destination
 * host, ports, protocol, RoCE QP); each holds the message being built.
 * A record more than msg_gap after the open message's last data closes
 * it and opens the next, except that a RoCE message whose last packet was
 * a FIRST or MIDDLE one stays open up to ROCE_HOLD for its LAST (sampled
 * captures keep a few packets of a long message, far apart); a flow silent for idle_timeout ends, and a sweep
 * every idle_timeout of capture time frees ended flows, so memory follows
 * the number of live flows.  Finished messages are appended to the set
 * and sorted by start at the end.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "flows/flowasm.h"
#include "flows/flowread.h"
#include "base/util.h"

/* The longest wait for the rest of a RoCE message, seconds. */
#define ROCE_HOLD	0.05
/* The fastest a message is believed to move, bytes per second. */
#define MAX_RATE	1e11

struct flow_key {
	uint32_t src, dst;
	uint32_t qp;
	uint16_t sport, dport;
	uint8_t proto;
};

struct live {
	struct flow_key k;
	uint32_t next;		/* chain: index + 1, 0 ends */
	double last;		/* last record of any kind */
	int open;		/* msg holds a message being built */
	int more;		/* RoCE: its last packet was a FIRST or MIDDLE */
	int hasseq;		/* TCP: seq0 and seqend are set */
	uint32_t seq0, seqend;	/* TCP: sequence span of the message's data */
	int prevseq;		/* TCP: prevend is the last message's seqend */
	uint32_t prevend;
	double prevtime;	/* when the last message ended */
	double lead;		/* seq0 was pulled back over this much time */
	uint64_t rdma;		/* RoCE: RETH DMA lengths in the message */
	struct flow_msg msg;
};

struct flow_asm {
	struct flow_set *set;
	struct flow_params p;
	size_t msgcap;

	uint32_t *hbucket;	/* hosts: index + 1, open addressing */
	size_t hmask;
	size_t hostcap;

	uint32_t *fbucket;	/* live flows: chain heads, index + 1 */
	size_t fmask;
	struct live *pool;
	size_t npool, poolcap;
	uint32_t freelist;	/* index + 1 */
	size_t nlive, peak;

	double now, swept;	/* latest record time, last sweep (per file) */
	int any, timed;
};


static uint64_t
addr_hash(const struct flow_addr *a)
{
	uint64_t x, y;

	memcpy(&x, a->b, 8);
	memcpy(&y, a->b + 8, 8);
	return ts_mix64(x ^ ts_mix64(y));
}

static void
host_rehash(struct flow_asm *a)
{
	size_t i, j, n = (a->hmask + 1) * 2;

	free(a->hbucket);
	a->hbucket = xcalloc(n, sizeof *a->hbucket);
	a->hmask = n - 1;
	for (i = 0; i < a->set->nhosts; i++) {
		j = addr_hash(&a->set->hosts[i]) & a->hmask;
		while (a->hbucket[j] != 0)
			j = (j + 1) & a->hmask;
		a->hbucket[j] = (uint32_t)i + 1;
	}
}

/* The number of host `addr`, adding it when new. */
static uint32_t
host_index(struct flow_asm *a, const struct flow_addr *addr)
{
	struct flow_set *set = a->set;
	size_t j = addr_hash(addr) & a->hmask;
	uint32_t h;

	while ((h = a->hbucket[j]) != 0) {
		if (memcmp(set->hosts[h - 1].b, addr->b, 16) == 0)
			return h - 1;
		j = (j + 1) & a->hmask;
	}
	set->hosts = xgrow(set->hosts, &a->hostcap, set->nhosts + 1,
	    sizeof *set->hosts);
	set->hosts[set->nhosts] = *addr;
	a->hbucket[j] = (uint32_t)++set->nhosts;
	if (set->nhosts * 2 > a->hmask)
		host_rehash(a);
	return (uint32_t)set->nhosts - 1;
}

static size_t
key_hash(const struct flow_key *k, size_t mask)
{
	uint64_t h = (uint64_t)k->src << 32 | k->dst;

	h ^= ts_mix64((uint64_t)k->sport << 40 | (uint64_t)k->dport << 24 |
	    (uint64_t)k->proto << 16) ^ ts_mix64(k->qp);
	return (size_t)(ts_mix64(h) & mask);
}

static int
key_eq(const struct flow_key *x, const struct flow_key *y)
{
	return x->src == y->src && x->dst == y->dst && x->qp == y->qp &&
	    x->sport == y->sport && x->dport == y->dport &&
	    x->proto == y->proto;
}

/*
 * A sampled capture (sFlow, ERSPAN with a sampling rate, a busy
 * collector) keeps some packets of a message.  What was sent shows in
 * the sequence numbers: the span of TCP sequence numbers, or the DMA
 * length that an RDMA WRITE states in its first packet.  When that says
 * more than the recorded payload, it is the message's size.  Bytes
 * skipped between two messages of a TCP flow were sent before the second
 * one's first recorded packet: they are counted in it.
 */
static void
msg_true_size(struct live *f)
{
	struct flow_msg *m = &f->msg;
	uint64_t span = f->hasseq ? (uint32_t)(f->seqend - f->seq0) : 0;

	if (f->rdma > span)
		span = f->rdma;
	/* No link moves 100 GB/s: a larger span is a reused port, not data. */
	if (span > m->payload &&
	    (double)span <= MAX_RATE * (m->end - m->start + f->lead)) {
		m->bytes += span - m->payload;
		m->payload = span;
	}
	if (f->hasseq) {
		f->prevseq = 1;
		f->prevend = f->seqend;
		f->prevtime = m->end;
	}
}

static void
emit_msg(struct flow_asm *a, struct live *f)
{
	struct flow_set *set = a->set;

	if (!f->open)
		return;
	msg_true_size(f);
	set->msgs = xgrow(set->msgs, &a->msgcap, set->nmsgs + 1,
	    sizeof *set->msgs);
	set->msgs[set->nmsgs++] = f->msg;
	f->open = 0;
}

static void
flow_grow(struct flow_asm *a)
{
	size_t i, n = (a->fmask + 1) * 2, j;

	free(a->fbucket);
	a->fbucket = xcalloc(n, sizeof *a->fbucket);
	a->fmask = n - 1;
	for (i = 0; i < a->npool; i++) {
		if (a->pool[i].last < 0)	/* on the free list */
			continue;
		j = key_hash(&a->pool[i].k, a->fmask);
		a->pool[i].next = a->fbucket[j];
		a->fbucket[j] = (uint32_t)i + 1;
	}
}

/* Find the live flow for k, creating it when missing. */
static struct live *
flow_get(struct flow_asm *a, const struct flow_key *k, double t)
{
	size_t j = key_hash(k, a->fmask);
	uint32_t i;
	struct live *f;

	for (i = a->fbucket[j]; i != 0; i = a->pool[i - 1].next)
		if (key_eq(&a->pool[i - 1].k, k))
			return &a->pool[i - 1];
	if (a->freelist != 0) {
		i = a->freelist;
		a->freelist = a->pool[i - 1].next;
	} else {
		a->pool = xgrow(a->pool, &a->poolcap, a->npool + 1,
		    sizeof *a->pool);
		i = (uint32_t)++a->npool;
	}
	f = &a->pool[i - 1];
	memset(f, 0, sizeof *f);
	f->k = *k;
	f->last = t;
	f->next = a->fbucket[j];
	a->fbucket[j] = i;
	if (++a->nlive > a->peak)
		a->peak = a->nlive;
	a->set->nflows++;
	if (a->nlive > a->fmask)
		flow_grow(a);
	return f;
}

/* End flows idle since before `limit` (all when limit is +inf). */
static void
sweep(struct flow_asm *a, double limit, int all)
{
	size_t j;
	uint32_t *pp, i;
	struct live *f;

	for (j = 0; j <= a->fmask; j++) {
		pp = &a->fbucket[j];
		while ((i = *pp) != 0) {
			f = &a->pool[i - 1];
			if (!all && f->last >= limit) {
				pp = &f->next;
				continue;
			}
			emit_msg(a, f);
			*pp = f->next;
			f->last = -1;
			f->next = a->freelist;
			a->freelist = i;
			a->nlive--;
		}
	}
}

static void
msg_start(struct live *f, const struct flow_rec *r)
{
	struct flow_msg *m = &f->msg;

	memset(m, 0, sizeof *m);
	m->src = f->k.src;
	m->dst = f->k.dst;
	m->sport = f->k.sport;
	m->dport = f->k.dport;
	m->proto = f->k.proto;
	m->qp = f->k.qp;
	m->start = r->start;
	m->end = r->end;
	f->open = 1;
	f->hasseq = 0;
	f->rdma = 0;
	f->lead = 0;
}

/* Widen f's TCP sequence span by data record r. */
static void
seq_add(struct live *f, const struct flow_rec *r)
{
	uint32_t end = r->seq + (uint32_t)r->payload;

	if (!(r->flags & FLOW_F_SEQ) || r->payload == 0 ||
	    r->payload > 0x7fffffff)
		return;
	if (!f->hasseq) {	/* unseen bytes since the last message: ours */
		f->seq0 = r->seq;
		if (f->prevseq && (int32_t)(r->seq - f->prevend) > 0) {
			f->seq0 = f->prevend;
			f->lead = r->start - f->prevtime;
		}
		f->seqend = end;
		f->hasseq = 1;
		return;
	}
	if ((int32_t)(end - f->seqend) > 0)
		f->seqend = end;
}

static void
msg_add(struct live *f, const struct flow_rec *r, int data)
{
	struct flow_msg *m = &f->msg;

	if (data) {
		seq_add(f, r);
		f->rdma += r->rdma_len;
		if (r->start < m->start)
			m->start = r->start;
		if (r->end > m->end)
			m->end = r->end;
	}
	m->bytes += r->bytes;
	m->payload += r->payload;
	m->pkts += r->pkts;
	m->flags |= r->flags & (uint8_t)~FLOW_F_PAYLOAD;
	m->ce += r->ce;
	m->cnp += r->cnp;
}

/*
 * 1 when a RoCE record's BTH opcode (RC or UC) is a FIRST or MIDDLE
 * packet of a multi-packet SEND or RDMA WRITE: more of the message follows.
 */
static int
roce_more(const struct flow_rec *r)
{
	unsigned op = r->bth_opcode & 0x1f;

	if (!(r->flags & FLOW_F_ROCE) || (r->flags & FLOW_F_CNP) ||
	    r->bth_opcode >= 0x40)
		return 0;
	return op == 0 || op == 1 || op == 6 || op == 7;
}

/*
 * A TCP segment without payload, SYN, FIN or RST, or a RoCE RC
 * ACKNOWLEDGE (BTH, AETH and ICRC only): it says that data arrived and
 * carries none.
 */
#define BTH_RC_ACK	0x11
static int
pure_ack(const struct flow_rec *r)
{
	if (r->flags & FLOW_F_ROCE)
		return r->bth_opcode == BTH_RC_ACK;
	return r->proto == IPPROTO_TCP && (r->flags & FLOW_F_PAYLOAD) &&
	    r->payload == 0 &&
	    (r->flags & (FLOW_F_SYN | FLOW_F_FIN | FLOW_F_RST)) == 0;
}

void
flow_asm_add(struct flow_asm *a, const struct flow_rec *r)
{
	struct flow_set *set = a->set;
	struct flow_key k;
	struct live *f;
	int ack = pure_ack(r);

	if (!a->any || r->start < set->first)
		set->first = r->start;
	if (!a->any || r->end > set->last)
		set->last = r->end;
	if (!a->timed || r->start > a->now)
		a->now = r->start;
	if (!a->timed)
		a->swept = r->start;
	a->any = a->timed = 1;
	set->nrecs++;
	set->bytes += r->bytes;
	set->pkts += r->pkts;

	memset(&k, 0, sizeof k);
	k.src = host_index(a, &r->src);
	k.dst = host_index(a, &r->dst);
	k.sport = r->sport;
	k.dport = r->dport;
	k.proto = r->proto;
	k.qp = r->qp;
	f = flow_get(a, &k, r->start);
	if (r->start - f->last > a->p.idle_timeout) {
		emit_msg(a, f);		/* the old flow ended: a new one */
		set->nflows++;
	}
	if (r->start > f->last)
		f->last = r->start;
	if (f->open && (r->start - f->msg.end <= a->p.msg_gap ||
	    (f->more && r->start - f->msg.end <= ROCE_HOLD)))
		msg_add(f, r, !ack);
	else if (ack) {
		set->ack_pkts += r->pkts;
		set->ack_bytes += r->bytes;
	} else {
		emit_msg(a, f);
		msg_start(f, r);
		msg_add(f, r, 1);
	}
	if (r->flags & FLOW_F_ROCE && !(r->flags & FLOW_F_CNP))
		f->more = roce_more(r);
	if (a->now - a->swept > a->p.idle_timeout) {
		sweep(a, a->now - a->p.idle_timeout, 0);
		a->swept = a->now;
	}
}

struct flow_asm *
flow_asm_new(struct flow_set *set, const struct flow_params *p)
{
	struct flow_asm *a = xcalloc(1, sizeof *a);

	memset(set, 0, sizeof *set);
	a->set = set;
	if (p != NULL)
		a->p = *p;
	else
		flow_params_default(&a->p);
	a->hmask = 63;
	a->hbucket = xcalloc(a->hmask + 1, sizeof *a->hbucket);
	a->fmask = 1023;
	a->fbucket = xcalloc(a->fmask + 1, sizeof *a->fbucket);
	return a;
}

void
flow_asm_end_file(struct flow_asm *a)
{
	sweep(a, 0, 1);
	a->timed = 0;
}

size_t
flow_asm_live(const struct flow_asm *a)
{
	return a->nlive;
}

size_t
flow_asm_peak(const struct flow_asm *a)
{
	return a->peak;
}

static int
msg_cmp(const void *x, const void *y)
{
	const struct flow_msg *m = x, *n = y;

	if (m->start != n->start)
		return m->start < n->start ? -1 : 1;
	if (m->src != n->src)
		return m->src < n->src ? -1 : 1;
	if (m->dst != n->dst)
		return m->dst < n->dst ? -1 : 1;
	if (m->sport != n->sport)
		return m->sport < n->sport ? -1 : 1;
	if (m->dport != n->dport)
		return m->dport < n->dport ? -1 : 1;
	return (m->qp > n->qp) - (m->qp < n->qp);
}

void
flow_asm_finish(struct flow_asm *a)
{
	sweep(a, 0, 1);
	if (a->set->nmsgs > 1)
		ts_qsort(a->set->msgs, a->set->nmsgs, sizeof *a->set->msgs,
		    msg_cmp);
	free(a->hbucket);
	free(a->fbucket);
	free(a->pool);
	free(a);
}

static void
asm_emit(void *arg, const struct flow_rec *r)
{
	flow_asm_add(arg, r);
}

/* Read one file into the assembler, recording it in set->caps. */
static int
load_one(struct flow_asm *a, const char *path, struct flow_sink *s,
    char **cause)
{
	struct flow_set *set = a->set;
	struct flow_readinfo info;
	struct flow_capture *c;
	struct stat st;

	if (stat(path, &st) != 0)
		return ts_fail(cause, "cannot open '%s': %s", path,
		    strerror(errno));
	if (flow_read_file(path, s, &info, cause) != 0)
		return -1;
	flow_asm_end_file(a);
	set->caps = xreallocarray(set->caps, set->ncaps + 1,
	    sizeof *set->caps);
	c = &set->caps[set->ncaps++];
	c->path = xstrdup(path);
	c->format = info.format;
	c->size = (uint64_t)st.st_size;
	c->mtime = (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
	c->records = info.records;
	c->skipped = info.skipped;
	c->first = info.first;
	c->last = info.last;
	return 0;
}

int
flow_set_load(struct flow_set *set, const char *const *paths, size_t n,
    const struct flow_params *p, void (*warn)(void *arg, const char *msg),
    void *warn_arg, char **cause)
{
	struct flow_sink s;
	struct flow_asm *a = flow_asm_new(set, p);
	size_t i;

	memset(&s, 0, sizeof s);
	s.emit = asm_emit;
	s.arg = a;
	s.warn = warn;
	s.warn_arg = warn_arg;
	for (i = 0; i < n; i++) {
		if (load_one(a, paths[i], &s, cause) != 0) {
			flow_asm_finish(a);
			flow_set_free(set);
			return -1;
		}
	}
	set->nwarn = s.nwarn;
	flow_asm_finish(a);
	return 0;
}
