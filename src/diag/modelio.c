/*
 * modelio.c -- a model as bytes and back, for the cache (see model.h).
 *
 * One walker describes the layout and serves both ways: writing appends
 * each field to a buffer, reading takes it back with every length checked
 * against what is left, so damaged or truncated bytes give NULL, never a
 * crash.  Numbers are little-endian; a string is its length (u32, all
 * ones for NULL) and its bytes; an array is its count, then its elements.
 * The bytes end with the CRC-32 of all before them: a model whose numbers
 * were changed but whose layout is intact (a flipped bit on the disk, a
 * hand edit) reads as damaged, and the caller computes it again.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diag/model.h"
#include "base/util.h"

#define MAGIC "TSMODEL5"
#define CRC_LEN 4

struct mio {
	struct buf *out;		/* writing */
	const unsigned char *p, *end;	/* reading */
	int err;
};

static void
raw(struct mio *io, void *v, size_t n)
{
	if (io->out != NULL) {
		buf_add(io->out, v, n);
		return;
	}
	if (io->err || (size_t)(io->end - io->p) < n) {
		io->err = 1;
		memset(v, 0, n);
		return;
	}
	memcpy(v, io->p, n);
	io->p += n;
}

static void
u64(struct mio *io, uint64_t *v)
{
	unsigned char b[8];
	int i;

	if (io->out != NULL)
		for (i = 0; i < 8; i++)
			b[i] = (unsigned char)(*v >> (8 * i));
	raw(io, b, 8);
	if (io->out == NULL)
		for (*v = 0, i = 0; i < 8; i++)
			*v |= (uint64_t)b[i] << (8 * i);
}

static void
u32(struct mio *io, uint32_t *v)
{
	uint64_t x = *v;

	u64(io, &x);
	if (x > UINT32_MAX)
		io->err = 1;
	*v = (uint32_t)x;
}

static void
i64(struct mio *io, long *v)
{
	uint64_t x = (uint64_t)*v;

	u64(io, &x);
	*v = (long)x;
}

static void
int32(struct mio *io, int *v)
{
	uint64_t x = (uint64_t)(int64_t)*v;

	u64(io, &x);
	if ((int64_t)x < -2147483647 || (int64_t)x > 2147483647)
		io->err = 1;
	*v = (int)(int64_t)x;
}

static void
u8(struct mio *io, uint8_t *v)
{
	raw(io, v, 1);
}

static void
f64(struct mio *io, double *v)
{
	uint64_t x;

	memcpy(&x, v, sizeof x);
	u64(io, &x);
	memcpy(v, &x, sizeof x);
}

static void
sz(struct mio *io, size_t *v)
{
	uint64_t x = *v;

	u64(io, &x);
	*v = (size_t)x;
}

static void
str(struct mio *io, char **s)
{
	uint32_t n = *s == NULL ? UINT32_MAX : (uint32_t)strlen(*s);

	u32(io, &n);
	if (io->out != NULL) {
		if (*s != NULL)
			buf_add(io->out, *s, n);
		return;
	}
	*s = NULL;
	if (io->err || n == UINT32_MAX)
		return;
	if ((size_t)(io->end - io->p) < n || memchr(io->p, '\0', n) != NULL) {
		io->err = 1;
		return;
	}
	*s = xstrndup((const char *)io->p, n);
	io->p += n;
}

/*
 * The count of an array of elements of `size` bytes; when reading,
 * allocate it (zeroed) once the count is known to fit what is left.
 */
static void
array(struct mio *io, void **a, size_t *n, size_t size)
{
	sz(io, n);
	if (io->out != NULL)
		return;
	*a = NULL;
	if (io->err || *n > (size_t)(io->end - io->p)) {
		io->err = 1;
		*n = 0;
		return;
	}
	*a = xcalloc(*n + 1, size);
}

static void
strv(struct mio *io, char ***v, size_t *n)
{
	size_t i;

	array(io, (void **)v, n, sizeof **v);
	for (i = 0; i < *n; i++)
		str(io, &(*v)[i]);
}

static void
u32v(struct mio *io, uint32_t **v, size_t *n)
{
	size_t i;

	array(io, (void **)v, n, sizeof **v);
	for (i = 0; i < *n; i++)
		u32(io, &(*v)[i]);
}

static void
walk_event(struct mio *io, struct model_event *e)
{
	size_t i;

	u32(io, &e->id);
	str(io, &e->text);
	f64(io, &e->score);
	u64(io, &e->count);
	int32(io, &e->level);
	str(io, &e->category);
	str(io, &e->rule);
	str(io, &e->explain);
	str(io, &e->action);
	u32v(io, &e->nodes, &e->nnodes);
	str(io, &e->path);
	i64(io, &e->line);
	f64(io, &e->ts);
	int32(io, &e->stage);
	i64(io, &e->iteration);
	strv(io, &e->reasons, &e->nreasons);
	strv(io, &e->trace, &e->ntrace);
	array(io, (void **)&e->locs, &e->nlocs, sizeof *e->locs);
	for (i = 0; i < e->nlocs; i++) {
		str(io, &e->locs[i].path);
		i64(io, &e->locs[i].line);
		u32(io, &e->locs[i].node);
		if (io->out == NULL && e->locs[i].path == NULL)
			io->err = 1;
	}
	if (io->out == NULL && e->text == NULL)
		io->err = 1;
}

static void
walk_node(struct mio *io, struct model_node *n)
{
	str(io, &n->name);
	f64(io, &n->score);
	int32(io, &n->rank);
	strv(io, &n->reasons, &n->nreasons);
	int32(io, &n->missing);
	int32(io, &n->pseudo);
	i64(io, &n->last_iter);
	f64(io, &n->last_ts);
	int32(io, &n->last_stage);
	f64(io, &n->first_error_ts);
	int32(io, &n->nranks);
	if (io->out == NULL && n->name == NULL)
		io->err = 1;
}

static void
walk_group(struct mio *io, struct model_fgroup *g)
{
	u32v(io, &g->hosts, &g->n);
	f64(io, &g->step);
	int32(io, &g->slow);
}

static void
walk_flows(struct mio *io, struct model_flows *f)
{
	size_t i;

	int32(io, &f->present);
	str(io, &f->error);
	sz(io, &f->njobs);
	u64(io, &f->control_bytes);
	f64(io, &f->period);
	array(io, (void **)&f->hosts, &f->nhosts, sizeof *f->hosts);
	for (i = 0; i < f->nhosts; i++) {
		struct model_fhost *h = &f->hosts[i];

		str(io, &h->addr);
		str(io, &h->name);
		int32(io, &h->node);
		f64(io, &h->comm);
		f64(io, &h->compute);
		u32(io, &h->flags);
		if (io->out == NULL && h->addr == NULL)
			io->err = 1;
	}
	array(io, (void **)&f->dp, &f->ndp, sizeof *f->dp);
	for (i = 0; i < f->ndp; i++)
		walk_group(io, &f->dp[i]);
	array(io, (void **)&f->pp, &f->npp, sizeof *f->pp);
	for (i = 0; i < f->npp; i++)
		walk_group(io, &f->pp[i]);
	array(io, (void **)&f->iters, &f->niters, sizeof *f->iters);
	for (i = 0; i < f->niters; i++) {
		f64(io, &f->iters[i].start);
		f64(io, &f->iters[i].end);
		f64(io, &f->iters[i].comm);
		f64(io, &f->iters[i].end_max);
		u8(io, &f->iters[i].ckpt);
		i64(io, &f->iters[i].log_iter);
		f64(io, &f->iters[i].log_ms);
	}
	array(io, (void **)&f->findings, &f->nfindings, sizeof *f->findings);
	for (i = 0; i < f->nfindings; i++) {
		struct model_finding *d = &f->findings[i];

		str(io, &d->kind);
		str(io, &d->subject);
		int32(io, &d->from);
		sz(io, &d->niters);
		f64(io, &d->magnitude);
		strv(io, &d->reasons, &d->nreasons);
		if (io->out == NULL && (d->kind == NULL || d->subject == NULL))
			io->err = 1;
	}
	int32(io, &f->join);
	i64(io, &f->join_offset);
	f64(io, &f->join_ms);
	f64(io, &f->join_pct);
}

static void
walk(struct mio *io, struct model *m)
{
	size_t i;

	str(io, &m->name);
	str(io, &m->root);
	int32(io, &m->stage);
	int32(io, &m->outcome);
	i64(io, &m->failure_iter);
	i64(io, &m->last_healthy_iter);
	int32(io, &m->nhealthy);
	strv(io, &m->healthy_runs, &m->nhealthy_runs);
	sz(io, &m->anomalous);
	u64(io, &m->names_stamp);
	i64(io, &m->slow_iter);
	f64(io, &m->slow_before_ms);
	f64(io, &m->slow_after_ms);
	f64(io, &m->first_ts);
	f64(io, &m->last_ts);
	int32(io, &m->by_time);
	i64(io, &m->iter_width);
	array(io, (void **)&m->nodes, &m->nnodes, sizeof *m->nodes);
	for (i = 0; i < m->nnodes; i++)
		walk_node(io, &m->nodes[i]);
	sz(io, &m->nreal);
	u32v(io, &m->suspects, &m->nsuspects);
	array(io, (void **)&m->events, &m->nevents, sizeof *m->events);
	for (i = 0; i < m->nevents; i++)
		walk_event(io, &m->events[i]);
	array(io, (void **)&m->iters, &m->niters, sizeof *m->iters);
	for (i = 0; i < m->niters; i++) {
		i64(io, &m->iters[i].iteration);
		f64(io, &m->iters[i].start);
		f64(io, &m->iters[i].ms);
		u32(io, &m->iters[i].flags);
	}
	array(io, (void **)&m->marks, &m->nmarks, sizeof *m->marks);
	for (i = 0; i < m->nmarks; i++) {
		u32(io, &m->marks[i].node);
		f64(io, &m->marks[i].at);
		u8(io, &m->marks[i].level);
		u8(io, &m->marks[i].flags);
		u32(io, &m->marks[i].event);
		u32(io, &m->marks[i].n);
	}
	array(io, (void **)&m->spans, &m->nspans, sizeof *m->spans);
	for (i = 0; i < m->nspans; i++) {
		int32(io, &m->spans[i].stage);
		f64(io, &m->spans[i].start);
		f64(io, &m->spans[i].end);
		i64(io, &m->spans[i].iter_from);
		i64(io, &m->spans[i].iter_to);
	}
	walk_flows(io, &m->flows);
	strv(io, &m->notes, &m->nnotes);
}

/* The CRC-32 of n bytes at p. */
static uint32_t
crc_of(const unsigned char *p, size_t n)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	while (n > 0) {
		uInt k = n > 1u << 30 ? 1u << 30 : (uInt)n;

		crc = crc32(crc, p, k);
		p += k;
		n -= k;
	}
	return (uint32_t)crc;
}

/* Append the CRC-32 of what b holds, little-endian. */
static void
crc_put(struct buf *b)
{
	uint32_t crc = crc_of((const unsigned char *)b->s, b->len);
	unsigned char c[CRC_LEN];
	int i;

	for (i = 0; i < CRC_LEN; i++)
		c[i] = (unsigned char)(crc >> (8 * i));
	buf_add(b, c, CRC_LEN);
}

/* Do the last CRC_LEN of n bytes hold the CRC-32 of those before them? */
static int
crc_ok(const unsigned char *p, size_t n)
{
	uint32_t want = 0;
	int i;

	for (i = 0; i < CRC_LEN; i++)
		want |= (uint32_t)p[n - CRC_LEN + (size_t)i] << (8 * i);
	return crc_of(p, n - CRC_LEN) == want;
}

void
model_encode(const struct model *m, unsigned char **out, size_t *len)
{
	struct mio io;
	struct buf b;

	memset(&io, 0, sizeof io);
	buf_init(&b);
	buf_add(&b, MAGIC, 8);
	io.out = &b;
	/* the walker only reads the model when writing */
	walk(&io, (struct model *)m);
	crc_put(&b);
	*len = b.len;
	*out = (unsigned char *)buf_detach(&b);
}

/* Indices the views follow must point inside their arrays. */
static int
consistent(const struct model *m)
{
	size_t i, k;

	if (m->name == NULL || m->nreal > m->nnodes)
		return 0;
	for (i = 0; i < m->nsuspects; i++)
		if (m->suspects[i] >= m->nnodes)
			return 0;
	for (i = 0; i < m->nevents; i++) {
		for (k = 0; k < m->events[i].nnodes; k++)
			if (m->events[i].nodes[k] >= m->nnodes)
				return 0;
		for (k = 0; k < m->events[i].nlocs; k++)
			if (m->events[i].locs[k].node >= m->nnodes)
				return 0;
	}
	for (i = 0; i < m->nmarks; i++)
		if (m->marks[i].node >= m->nnodes || (m->marks[i].event !=
		    UINT32_MAX && m->marks[i].event >= m->nevents) ||
		    m->marks[i].level > 7)
			return 0;
	for (i = 0; i < m->flows.nhosts; i++)
		if (m->flows.hosts[i].node >= (int)m->nnodes ||
		    m->flows.hosts[i].node < -1)
			return 0;
	for (i = 0; i < m->flows.ndp + m->flows.npp; i++) {
		const struct model_fgroup *g = i < m->flows.ndp ?
		    &m->flows.dp[i] : &m->flows.pp[i - m->flows.ndp];

		for (k = 0; k < g->n; k++)
			if (g->hosts[k] >= m->flows.nhosts)
				return 0;
	}
	for (i = 1; i < m->niters; i++)
		if (m->iters[i].iteration <= m->iters[i - 1].iteration)
			return 0;
	if (m->flows.join < MODEL_JOIN_NONE ||
	    m->flows.join > MODEL_JOIN_DURATION)
		return 0;
	for (i = 1; i < m->nmarks; i++)
		if (m->marks[i].node < m->marks[i - 1].node)
			return 0;
	return 1;
}

struct model *
model_decode(const unsigned char *p, size_t len)
{
	struct model *m;
	struct mio io;

	if (len < 8 + CRC_LEN || memcmp(p, MAGIC, 8) != 0 || !crc_ok(p, len))
		return NULL;
	memset(&io, 0, sizeof io);
	io.p = p + 8;
	io.end = p + len - CRC_LEN;
	m = xcalloc(1, sizeof *m);
	walk(&io, m);
	if (io.err || io.p != io.end || !consistent(m)) {
		model_free(m);
		return NULL;
	}
	return m;
}
