/*
 * modelio.c -- a model as bytes and back, for the cache (see model.h).
 *
 * One walker describes the layout and serves both ways: writing appends
 * each field to a buffer, reading takes it back with every length checked
 * against what is left, so damaged or truncated bytes give NULL, never a
 * crash, and no count is believed beyond what the bytes left can hold.
 *
 * The bytes: the magic, the fields in the walker's order, the CRC-32 of
 * all before it.  An integer is a LEB128 varint (seven bits a byte, low
 * bits first, the top bit set on every byte but the last), a signed one
 * zigzag-coded first (0, -1, 1, -2 as 0, 1, 2, 3).  A double is a varint
 * too: odd, zigzag(k) << 1 | 1, for a double that is exactly the integer
 * k with |k| < 2^52 (not -0.0); 2 and 4 for the default NaN and its
 * negative; 0 and then its 8 bytes, little-endian, for any other (other
 * NaNs, infinities, fractions), so every double comes back bit for bit.
 * A byte-sized field is its byte; a string is its length plus one (0 for
 * NULL) and its bytes; an array its count, then its elements.  Sorted
 * arrays code a number as its step from the element before: a heatmap
 * mark its node (a signed step from the previous mark's) and its `at`
 * (when both it and the previous mark's are whole, the odd form holds
 * zigzag(k - previous k)), and its event plus one (no event, all ones,
 * is 0); an iteration its number; a span its first iteration (from the
 * previous span's) and its last (from its own first).  A mark a step
 * after the last is 6 bytes.
 *
 * Every value has one encoding: the reader refuses a varint longer than
 * it needs and a double not in the form the writer chooses, so bytes
 * that read back write again the same.  The CRC-32 at the end makes a
 * model whose numbers were changed but whose layout is intact (a flipped
 * bit on the disk, a hand edit) read as damaged, and the caller computes
 * it again.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diag/model.h"
#include "base/util.h"

#define MAGIC "TSMODEL6"
#define CRC_LEN 4

/* The double tags that are not an integer (which are odd). */
#define DBL_RAW 0		/* its 8 bytes follow */
#define DBL_NAN 2		/* the default NaN, bits 0x7ff8 0000 0000 0000 */
#define DBL_NEGNAN 4		/* the same with the sign set (0.0 / 0.0) */
#define NAN_BITS 0x7ff8000000000000ull
#define NEGNAN_BITS 0xfff8000000000000ull

struct mio {
	int writing;
	unsigned char *w;		/* writing: the bytes so far */
	size_t len, cap;
	const unsigned char *p, *end;	/* reading */
	int err;
};

/* Reading: the bytes are bad; every later read fails at once. */
static void
fail(struct mio *io)
{
	io->err = 1;
	io->p = io->end;
}

/* Signed to zigzag and back, in two's complement bits. */
static uint64_t
zig(uint64_t x)
{
	return (x << 1) ^ (0 - (x >> 63));
}

static uint64_t
unzig(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Writing: where the next n bytes go (io->len moves on when written). */
static unsigned char *
room(struct mio *io, size_t n)
{
	if (io->cap - io->len < n)
		io->w = xgrow(io->w, &io->cap, io->len + n, 1);
	return io->w + io->len;
}

static void
put_bytes(struct mio *io, const void *s, size_t n)
{
	memcpy(room(io, n), s, n);
	io->len += n;
}

/* Writing: v as a varint. */
static void
put_varint(struct mio *io, uint64_t v)
{
	unsigned char *c = room(io, 10);
	size_t n = 0;

	while (v >= 0x80) {
		c[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	c[n++] = (unsigned char)v;
	io->len += n;
}

/* Reading: a varint of at most 64 bits in its shortest form. */
static uint64_t
get_varint(struct mio *io)
{
	const unsigned char *p = io->p;
	uint64_t v = 0;
	unsigned shift, c;

	if (p < io->end && *p < 0x80) {
		io->p++;
		return *p;
	}
	for (shift = 0;; shift += 7) {
		if (p == io->end || shift > 63) {
			fail(io);
			return 0;
		}
		c = *p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (c < 0x80)
			break;
	}
	if (c == 0 || (shift == 63 && c > 1)) {
		fail(io);	/* longer than it needs, or past 64 bits */
		return 0;
	}
	io->p = p;
	return v;
}

static void
u64(struct mio *io, uint64_t *v)
{
	if (io->writing)
		put_varint(io, *v);
	else
		*v = get_varint(io);
}

static void
u32(struct mio *io, uint32_t *v)
{
	uint64_t x = *v;

	u64(io, &x);
	if (x > UINT32_MAX)
		fail(io);
	*v = (uint32_t)x;
}

static void
i64(struct mio *io, long *v)
{
	uint64_t z = zig((uint64_t)*v);

	u64(io, &z);
	*v = (long)unzig(z);
}

static void
int32(struct mio *io, int *v)
{
	uint64_t z = zig((uint64_t)(int64_t)*v);
	int64_t x;

	u64(io, &z);
	x = (int64_t)unzig(z);
	if (x < -2147483647 || x > 2147483647)
		fail(io);
	*v = (int)x;
}

static void
sz(struct mio *io, size_t *v)
{
	uint64_t x = *v;

	u64(io, &x);
	*v = (size_t)x;
}

/*
 * A number coded as the step from `prev` (wrapping, so any two 64-bit
 * values): returns v when writing, the number read when reading.
 */
static uint64_t
after(struct mio *io, uint64_t v, uint64_t prev)
{
	uint64_t z = zig(v - prev);

	u64(io, &z);
	return prev + unzig(z);
}

static void
u8(struct mio *io, uint8_t *v)
{
	if (io->writing) {
		*room(io, 1) = *v;
		io->len++;
	} else if (io->p == io->end) {
		fail(io);
		*v = 0;
	} else
		*v = *io->p++;
}

/* Is x exactly the integer *k, |*k| < 2^52, and not -0.0? */
static int
whole(double x, int64_t *k)
{
	if (!(fabs(x) < 0x1p52))
		return 0;
	*k = (int64_t)x;
	return (double)*k == x && (*k != 0 || !signbit(x));
}

static void
put_double(struct mio *io, double x, int64_t base)
{
	unsigned char *c;
	uint64_t bits;
	int64_t k;
	int i;

	memcpy(&bits, &x, sizeof bits);
	if (whole(x, &k))
		put_varint(io, zig((uint64_t)(k - base)) << 1 | 1);
	else if (bits == NAN_BITS || bits == NEGNAN_BITS)
		put_varint(io, bits == NAN_BITS ? DBL_NAN : DBL_NEGNAN);
	else {
		c = room(io, 9);
		c[0] = DBL_RAW;
		for (i = 0; i < 8; i++)
			c[1 + i] = (unsigned char)(bits >> (8 * i));
		io->len += 9;
	}
}

/* Reading: the 8 bytes of a double of no shorter form. */
static double
get_raw_double(struct mio *io)
{
	uint64_t bits = 0;
	int64_t k;
	double x;
	int i;

	if (io->end - io->p < 8) {
		fail(io);
		return 0;
	}
	for (i = 0; i < 8; i++)
		bits |= (uint64_t)io->p[i] << (8 * i);
	io->p += 8;
	memcpy(&x, &bits, sizeof x);
	if (whole(x, &k) || bits == NAN_BITS || bits == NEGNAN_BITS)
		fail(io);
	return x;
}

static double
get_double(struct mio *io, int64_t base)
{
	uint64_t t = get_varint(io), bits;
	int64_t k;
	double x;

	if (t & 1) {
		if (t >> 1 >= 1ull << 54)	/* a step of 2^53 or more */
			goto bad;
		k = base + (int64_t)unzig(t >> 1);
		if (k <= -(1ll << 52) || k >= 1ll << 52)
			goto bad;
		return (double)k;
	}
	if (t == DBL_RAW)
		return get_raw_double(io);
	if (t != DBL_NAN && t != DBL_NEGNAN)
		goto bad;
	bits = t == DBL_NAN ? NAN_BITS : NEGNAN_BITS;
	memcpy(&x, &bits, sizeof x);
	return x;
bad:
	fail(io);
	return 0;
}

/*
 * A double; a whole one as the step from the integer `base` (|base| <
 * 2^52), which the reader must know as the writer did.
 */
static void
dbl_after(struct mio *io, double *v, int64_t base)
{
	if (io->writing)
		put_double(io, *v, base);
	else
		*v = get_double(io, base);
}

static void
f64(struct mio *io, double *v)
{
	dbl_after(io, v, 0);
}

static void
str(struct mio *io, char **s)
{
	uint64_t n = *s == NULL ? 0 : (uint64_t)strlen(*s) + 1;

	u64(io, &n);
	if (io->writing) {
		if (n > 0)
			put_bytes(io, *s, n - 1);
		return;
	}
	*s = NULL;
	if (n-- == 0)
		return;
	if (n >= UINT32_MAX || n > (size_t)(io->end - io->p) ||
	    memchr(io->p, '\0', n) != NULL) {
		fail(io);
		return;
	}
	*s = xstrndup((const char *)io->p, n);
	io->p += n;
}

/*
 * The count of an array of elements of `size` bytes in memory and at
 * least `least` bytes encoded; when reading, allocate it (zeroed) once
 * the count is known to fit what is left.
 */
static void
array(struct mio *io, void **a, size_t *n, size_t size, size_t least)
{
	sz(io, n);
	if (io->writing)
		return;
	*a = NULL;
	if (io->err || *n > (size_t)(io->end - io->p) / least) {
		fail(io);
		*n = 0;
		return;
	}
	*a = xcalloc(*n + 1, size);
}

/* Strings, none of them NULL. */
static void
strv(struct mio *io, char ***v, size_t *n)
{
	size_t i;

	array(io, (void **)v, n, sizeof **v, 1);
	for (i = 0; i < *n; i++) {
		str(io, &(*v)[i]);
		if (!io->writing && (*v)[i] == NULL)
			fail(io);
	}
}

static void
u32v(struct mio *io, uint32_t **v, size_t *n)
{
	size_t i;

	array(io, (void **)v, n, sizeof **v, 1);
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
	array(io, (void **)&e->locs, &e->nlocs, sizeof *e->locs, 3);
	for (i = 0; i < e->nlocs; i++) {
		str(io, &e->locs[i].path);
		i64(io, &e->locs[i].line);
		u32(io, &e->locs[i].node);
		if (!io->writing && e->locs[i].path == NULL)
			io->err = 1;
	}
	if (!io->writing && e->text == NULL)
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
	if (!io->writing && n->name == NULL)
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
	array(io, (void **)&f->hosts, &f->nhosts, sizeof *f->hosts, 6);
	for (i = 0; i < f->nhosts; i++) {
		struct model_fhost *h = &f->hosts[i];

		str(io, &h->addr);
		str(io, &h->name);
		int32(io, &h->node);
		f64(io, &h->comm);
		f64(io, &h->compute);
		u32(io, &h->flags);
		if (!io->writing && h->addr == NULL)
			io->err = 1;
	}
	array(io, (void **)&f->dp, &f->ndp, sizeof *f->dp, 3);
	for (i = 0; i < f->ndp; i++)
		walk_group(io, &f->dp[i]);
	array(io, (void **)&f->pp, &f->npp, sizeof *f->pp, 3);
	for (i = 0; i < f->npp; i++)
		walk_group(io, &f->pp[i]);
	array(io, (void **)&f->iters, &f->niters, sizeof *f->iters, 7);
	for (i = 0; i < f->niters; i++) {
		f64(io, &f->iters[i].start);
		f64(io, &f->iters[i].end);
		f64(io, &f->iters[i].comm);
		f64(io, &f->iters[i].end_max);
		u8(io, &f->iters[i].ckpt);
		i64(io, &f->iters[i].log_iter);
		f64(io, &f->iters[i].log_ms);
	}
	array(io, (void **)&f->findings, &f->nfindings, sizeof *f->findings, 6);
	for (i = 0; i < f->nfindings; i++) {
		struct model_finding *d = &f->findings[i];

		str(io, &d->kind);
		str(io, &d->subject);
		int32(io, &d->from);
		sz(io, &d->niters);
		f64(io, &d->magnitude);
		strv(io, &d->reasons, &d->nreasons);
		if (!io->writing && (d->kind == NULL || d->subject == NULL))
			io->err = 1;
	}
	int32(io, &f->join);
	i64(io, &f->join_offset);
	f64(io, &f->join_ms);
	f64(io, &f->join_pct);
}

/* The iterations: each number as the step from the one before. */
static void
walk_iters(struct mio *io, struct model *m)
{
	uint64_t prev = 0;
	size_t i;

	array(io, (void **)&m->iters, &m->niters, sizeof *m->iters, 4);
	for (i = 0; i < m->niters; i++) {
		struct model_iter *t = &m->iters[i];

		t->iteration = (long)after(io, (uint64_t)t->iteration, prev);
		prev = (uint64_t)t->iteration;
		f64(io, &t->start);
		f64(io, &t->ms);
		u32(io, &t->flags);
	}
}

/*
 * The heatmap's marks: the node as the step from the previous mark's,
 * `at` (when whole) from the previous `at` when that was whole, the
 * event plus one.
 */
static void
walk_marks(struct mio *io, struct model *m)
{
	uint64_t node = 0, x;
	int64_t at = 0;
	uint32_t ev;
	size_t i;

	array(io, (void **)&m->marks, &m->nmarks, sizeof *m->marks, 6);
	for (i = 0; i < m->nmarks; i++) {
		struct model_mark *k = &m->marks[i];

		x = after(io, k->node, node);
		if (x > UINT32_MAX)
			fail(io);
		k->node = (uint32_t)(node = x);
		dbl_after(io, &k->at, at);
		if (!whole(k->at, &at))
			at = 0;
		u8(io, &k->level);
		u8(io, &k->flags);
		ev = k->event + 1;
		u32(io, &ev);
		k->event = ev - 1;
		u32(io, &k->n);
	}
}

/* The stages' spans: iterations as steps, from the span before. */
static void
walk_spans(struct mio *io, struct model *m)
{
	uint64_t from = 0;
	size_t i;

	array(io, (void **)&m->spans, &m->nspans, sizeof *m->spans, 5);
	for (i = 0; i < m->nspans; i++) {
		struct model_span *s = &m->spans[i];

		int32(io, &s->stage);
		f64(io, &s->start);
		f64(io, &s->end);
		s->iter_from = (long)after(io, (uint64_t)s->iter_from, from);
		from = (uint64_t)s->iter_from;
		s->iter_to = (long)after(io, (uint64_t)s->iter_to, from);
	}
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
	array(io, (void **)&m->nodes, &m->nnodes, sizeof *m->nodes, 11);
	for (i = 0; i < m->nnodes; i++)
		walk_node(io, &m->nodes[i]);
	sz(io, &m->nreal);
	u32v(io, &m->suspects, &m->nsuspects);
	array(io, (void **)&m->events, &m->nevents, sizeof *m->events, 18);
	for (i = 0; i < m->nevents; i++)
		walk_event(io, &m->events[i]);
	walk_iters(io, m);
	walk_marks(io, m);
	walk_spans(io, m);
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

/* Append the CRC-32 of the bytes written, little-endian. */
static void
crc_put(struct mio *io)
{
	uint32_t crc = crc_of(io->w, io->len);
	unsigned char *c = room(io, CRC_LEN);
	int i;

	for (i = 0; i < CRC_LEN; i++)
		c[i] = (unsigned char)(crc >> (8 * i));
	io->len += CRC_LEN;
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

	memset(&io, 0, sizeof io);
	io.writing = 1;
	put_bytes(&io, MAGIC, 8);
	/* the walker only reads the model when writing */
	walk(&io, (struct model *)m);
	crc_put(&io);
	*len = io.len;
	*out = io.w;
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
