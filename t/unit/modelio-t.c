/*
 * modelio-t.c -- a model as bytes and back: the round trip of every field
 * (odd doubles and extreme integers bit for bit, empty arrays, marks out
 * of order), the size of a mark, and damage (a flipped bit anywhere, a
 * cut, a byte changed under a good checksum, a field in a form the writer
 * never writes, a count the bytes cannot hold) that must read as no model.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "diag/model.h"
#include "base/util.h"
#include "tap.h"

#define NDBL (sizeof dbl_bits / sizeof dbl_bits[0])

/*
 * Doubles a model may hold, as bits: whole ones near the limits of the
 * short form, -0.0, fractions, the huge and the tiny, infinities and
 * NaNs with and without sign and payload.
 */
static const uint64_t dbl_bits[] = {
	0x0000000000000000ull,	/* 0 */
	0x8000000000000000ull,	/* -0.0 */
	0x3ff0000000000000ull,	/* 1 */
	0xbff0000000000000ull,	/* -1 */
	0x3fe0000000000000ull,	/* 0.5 */
	0x40896a0000000000ull,	/* 813.25 */
	0x41d98c1a4c8f5c29ull,	/* 1714557614.24 */
	0x432ffffffffffffeull,	/* 2^52 - 1 */
	0xc32ffffffffffffeull,	/* -(2^52 - 1) */
	0x4330000000000000ull,	/* 2^52 */
	0xc330000000000000ull,	/* -2^52 */
	0x4340000000000000ull,	/* 2^53 */
	0x7e37e43c8800759cull,	/* 1e300 */
	0x0000000000000001ull,	/* the smallest denormal */
	0x7ff0000000000000ull,	/* inf */
	0xfff0000000000000ull,	/* -inf */
	0x7ff8000000000000ull,	/* NAN */
	0xfff8000000000000ull,	/* -NAN, 0.0 / 0.0 on x86 */
	0x7ff0000000000001ull,	/* a signalling NaN */
	0x7ff8dead0000beefull,	/* a NaN with a payload */
	0xfffdead00000beefull,	/* and with its sign */
	0x42a2309ce5400000ull,	/* 10^13, whole */
	0x4197d78400000000ull,	/* 10^8 */
};

static double
dbl(size_t i)
{
	double x;

	memcpy(&x, &dbl_bits[i % NDBL], sizeof x);
	return x;
}

static int
same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static char **
strings(size_t n, const char *first)
{
	char **v = xcalloc(n + 1, sizeof *v);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = xasprintf("%s %zu", first, i);
	return v;
}

static uint32_t *
indices(size_t n, uint32_t mod)
{
	uint32_t *v = xcalloc(n + 1, sizeof *v);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (uint32_t)((n - i) % mod);
	return v;
}

static void
sample_events(struct model *m)
{
	struct model_event *e;
	size_t i;

	m->nevents = 3;
	m->events = xcalloc(3, sizeof *m->events);
	for (i = 0; i < 3; i++) {
		e = &m->events[i];
		e->id = i == 2 ? MODEL_EVENT_OWN + 1 : 9 + (uint32_t)i;
		e->text = xasprintf("NVRM: Xid <*> %zu", i);
		e->score = dbl(i + 3);
		e->count = i == 0 ? UINT64_MAX : 3;
		e->level = i == 1 ? INT_MAX : -INT_MAX;
		e->nodes = indices(2, 3);
		e->nnodes = 2;
		e->line = i == 0 ? LONG_MAX : 8;
		e->ts = dbl(i + 14);
		e->stage = 4;
		e->iteration = i == 2 ? LONG_MIN : -1;
	}
	e = &m->events[0];
	e->category = xstrdup("xid");
	e->rule = xstrdup("xid-79");
	e->explain = xstrdup("the GPU fell off the bus");
	e->action = xstrdup("drain the node");
	e->path = xstrdup("host/node-1.log");
	e->reasons = strings(2, "only on");
	e->nreasons = 2;
	e->trace = strings(3, "  File <*>, line <*>");
	e->ntrace = 3;
	e->nlocs = 2;
	e->locs = xcalloc(2, sizeof *e->locs);
	e->locs[0].path = xstrdup("host/node-0.log");
	e->locs[0].line = LONG_MIN;
	e->locs[1].path = xstrdup("");
	e->locs[1].line = 1;
	e->locs[1].node = 2;
	m->events[1].text[0] = '\t';	/* any byte but NUL is kept */
}

static void
sample_nodes(struct model *m)
{
	size_t i;

	m->nnodes = 3;
	m->nreal = 2;
	m->nodes = xcalloc(3, sizeof *m->nodes);
	for (i = 0; i < 3; i++) {
		struct model_node *n = &m->nodes[i];

		n->name = xasprintf("node-%zu", i);
		n->score = 0.5 + 0.25 * (double)i;
		n->rank = (int)i - 1;
		n->reasons = strings(i, "reason");
		n->nreasons = i;
		n->missing = i == 1;
		n->pseudo = i == 2;
		n->last_iter = i == 0 ? LONG_MAX : LONG_MIN;
		n->last_ts = dbl(i + 16);
		n->last_stage = 5;
		n->first_error_ts = dbl(i + 19);
		n->nranks = 8;
	}
	m->nsuspects = 2;
	m->suspects = xcalloc(2, sizeof *m->suspects);
	m->suspects[0] = 1;
}

/* Marks over every double, in and out of order, and every step. */
static void
sample_marks(struct model *m)
{
	size_t i, n = 2 * NDBL + 4;

	m->nmarks = n;
	m->marks = xcalloc(n, sizeof *m->marks);
	for (i = 0; i < n; i++) {
		struct model_mark *k = &m->marks[i];

		k->node = i < NDBL ? 0 : i < n - 2 ? 1 : 2;
		k->at = i < NDBL ? dbl(i) : dbl(2 * NDBL - 1 - i);
		k->level = (uint8_t)(i % 8);
		k->flags = (uint8_t)(i * 37);
		k->event = i % 3 == 0 ? UINT32_MAX : (uint32_t)(i % 3);
		k->n = i == 1 ? UINT32_MAX : (uint32_t)i * 1000;
	}
	m->marks[n - 2].at = 5;		/* backwards within the node */
	m->marks[n - 1].at = -70;
}

static void
sample_flows(struct model_flows *f)
{
	size_t i;

	f->present = 1;
	f->error = xstrdup("no packets of the job");
	f->njobs = SIZE_MAX;
	f->control_bytes = 1ull << 63;
	f->period = 1.25;
	f->nhosts = 2;
	f->hosts = xcalloc(2, sizeof *f->hosts);
	for (i = 0; i < 2; i++) {
		f->hosts[i].addr = xasprintf("10.0.0.%zu", i);
		f->hosts[i].name = i == 0 ? xstrdup("node-0") : NULL;
		f->hosts[i].node = i == 0 ? 0 : -1;
		f->hosts[i].comm = dbl(i + 4);
		f->hosts[i].compute = dbl(i + 17);
		f->hosts[i].flags = i == 0 ? UINT32_MAX : 0;
	}
	f->ndp = 1;
	f->dp = xcalloc(1, sizeof *f->dp);
	f->dp[0].hosts = indices(2, 2);
	f->dp[0].n = 2;
	f->dp[0].step = 0.003;
	f->dp[0].slow = 1;
	f->npp = 1;
	f->pp = xcalloc(1, sizeof *f->pp);
	f->pp[0].step = NAN;
	f->niters = NDBL;
	f->iters = xcalloc(NDBL, sizeof *f->iters);
	for (i = 0; i < NDBL; i++) {
		f->iters[i].start = dbl(i);
		f->iters[i].end = dbl(i + 1);
		f->iters[i].comm = dbl(i + 2);
		f->iters[i].end_max = dbl(i + 3);
		f->iters[i].ckpt = (uint8_t)(255 - i);
		f->iters[i].log_iter = i == 0 ? LONG_MIN : (long)i - 1;
		f->iters[i].log_ms = dbl(i + 4);
	}
	f->nfindings = 1;
	f->findings = xcalloc(1, sizeof *f->findings);
	f->findings[0].kind = xstrdup("straggler");
	f->findings[0].subject = xstrdup("10.0.0.1");
	f->findings[0].from = -INT_MAX;
	f->findings[0].niters = 12;
	f->findings[0].magnitude = -0.0;
	f->findings[0].reasons = strings(1, "late by");
	f->findings[0].nreasons = 1;
	f->join = MODEL_JOIN_DURATION;
	f->join_offset = LONG_MIN;
	f->join_ms = -NAN;
	f->join_pct = INFINITY;
}

/* A model with every field set, odd values in many. */
static struct model *
sample(void)
{
	struct model *m = xcalloc(1, sizeof *m);
	size_t i;

	m->name = xstrdup("job-1");
	m->root = xstrdup("/jobs/job-1");
	m->stage = INT_MAX;
	m->outcome = -INT_MAX;
	m->failure_iter = LONG_MAX;
	m->last_healthy_iter = LONG_MIN;
	m->nhealthy = 2;
	m->healthy_runs = strings(2, "run");
	m->nhealthy_runs = 2;
	m->anomalous = SIZE_MAX;
	m->names_stamp = UINT64_MAX;
	m->slow_iter = -1;
	m->slow_before_ms = 812.5;
	m->slow_after_ms = 1e300;
	m->first_ts = 1.7e9;
	m->last_ts = NAN;
	m->by_time = 1;
	m->iter_width = 1L << 40;
	sample_nodes(m);
	sample_events(m);
	m->niters = NDBL;
	m->iters = xcalloc(NDBL, sizeof *m->iters);
	for (i = 0; i < NDBL; i++) {
		m->iters[i].iteration = i == 0 ? LONG_MIN : i == NDBL - 1 ?
		    LONG_MAX : (long)(i * i) - 50;
		m->iters[i].start = dbl(i);
		m->iters[i].ms = dbl(NDBL - 1 - i);
		m->iters[i].flags = (unsigned)i;
	}
	sample_marks(m);
	m->nspans = 3;
	m->spans = xcalloc(3, sizeof *m->spans);
	m->spans[0].stage = -1;
	m->spans[0].start = NAN;
	m->spans[0].end = 1714557614.81;
	m->spans[0].iter_from = m->spans[0].iter_to = -1;
	m->spans[1].iter_from = LONG_MAX;
	m->spans[1].iter_to = LONG_MIN;
	m->spans[2].iter_from = 4;
	m->spans[2].iter_to = 7;
	sample_flows(&m->flows);
	m->nnotes = 1;
	m->notes = strings(1, "note");
	return m;
}

/* Do the doubles and the extreme integers come back as they were? */
static int
same_numbers(const struct model *a, const struct model *b)
{
	size_t i;

	for (i = 0; i < a->nmarks; i++)
		if (!same_bits(a->marks[i].at, b->marks[i].at) ||
		    a->marks[i].event != b->marks[i].event ||
		    a->marks[i].n != b->marks[i].n ||
		    a->marks[i].node != b->marks[i].node)
			return 0;
	for (i = 0; i < a->niters; i++)
		if (!same_bits(a->iters[i].start, b->iters[i].start) ||
		    !same_bits(a->iters[i].ms, b->iters[i].ms) ||
		    a->iters[i].iteration != b->iters[i].iteration)
			return 0;
	for (i = 0; i < a->flows.niters; i++)
		if (!same_bits(a->flows.iters[i].end_max,
		    b->flows.iters[i].end_max) ||
		    a->flows.iters[i].log_iter != b->flows.iters[i].log_iter)
			return 0;
	return b->spans[1].iter_from == LONG_MAX &&
	    b->spans[1].iter_to == LONG_MIN &&
	    b->names_stamp == UINT64_MAX && b->anomalous == SIZE_MAX &&
	    b->stage == INT_MAX && b->outcome == -INT_MAX &&
	    b->events[0].count == UINT64_MAX &&
	    b->events[0].locs[0].line == LONG_MIN &&
	    b->flows.control_bytes == 1ull << 63 &&
	    b->flows.hosts[0].flags == UINT32_MAX &&
	    same_bits(b->flows.join_ms, -NAN) &&
	    same_bits(b->flows.findings[0].magnitude, -0.0) &&
	    same_bits(b->last_ts, NAN) && b->iter_width == 1L << 40;
}

/*
 * Bytes [0, at) of p, then n bytes of `put`, then p's from at + cut up to
 * its checksum, then the checksum of all that: *len bytes.
 */
static unsigned char *
splice(const unsigned char *p, size_t plen, size_t at, size_t cut,
    const void *put, size_t n, size_t *len)
{
	size_t body = plen - 4 - cut + n;
	unsigned char *b = xmalloc(body + 4);
	uint32_t crc;
	int i;

	memcpy(b, p, at);
	memcpy(b + at, put, n);
	memcpy(b + at + n, p + at + cut, plen - 4 - at - cut);
	crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), b, (uInt)body);
	for (i = 0; i < 4; i++)
		b[body + (size_t)i] = (unsigned char)(crc >> (8 * i));
	*len = body + 4;
	return b;
}

/* Does the spliced encoding of m read as a model? */
static int
reads(const struct model *m, size_t at, size_t cut, const void *put,
    size_t n)
{
	unsigned char *bytes, *b;
	struct model *back;
	size_t len, blen;

	model_encode(m, &bytes, &len);
	b = splice(bytes, len, at, cut, put, n, &blen);
	back = model_decode(b, blen);
	free(bytes);
	free(b);
	model_free(back);
	return back != NULL;
}

static void
test_round_trip(const struct model *m, const char *what)
{
	unsigned char *bytes, *again = NULL;
	struct model *back;
	size_t len, n = 0;
	char *s;

	model_encode(m, &bytes, &len);
	back = model_decode(bytes, len);
	ok(back != NULL, s = xasprintf("%s reads back", what));
	free(s);
	if (back != NULL)
		model_encode(back, &again, &n);
	ok(again != NULL && n == len && memcmp(again, bytes, len) == 0,
	    s = xasprintf("%s writes the same bytes again", what));
	free(s);
	free(again);
	free(bytes);
	model_free(back);
}

static void
test_every_field(void)
{
	struct model *m = sample(), *back;
	unsigned char *bytes;
	size_t len;

	test_round_trip(m, "a model with every field set");
	model_encode(m, &bytes, &len);
	back = model_decode(bytes, len);
	ok(back != NULL, "and its fields");
	if (back != NULL) {
		ok(same_numbers(m, back), "doubles (NaNs, -0.0, infinities, "
		    "fractions, the huge) bit for bit, extreme integers");
		is_str(back->events[1].text, "\tVRM: Xid <*> 1", "its strings");
		ok(back->events[1].rule == NULL && back->flows.hosts[1].name ==
		    NULL && *back->events[0].locs[1].path == '\0',
		    "NULL and empty strings apart");
		ok(back->nodes[0].nreasons == 0 && back->nodes[0].reasons !=
		    NULL && back->flows.pp[0].n == 0, "empty arrays");
	}
	model_free(back);
	free(bytes);
	model_free(m);
}

static void
test_empty(void)
{
	struct model *m = xcalloc(1, sizeof *m);
	unsigned char *bytes;
	size_t len;

	m->name = xstrdup("j");
	test_round_trip(m, "a model of nothing");
	model_encode(m, &bytes, &len);
	is_int((long)len, 52, "a model of nothing is the magic, a byte a "
	    "field and the checksum");
	free(bytes);
	model_free(m);
}

/* Many marks a step apart cost 6 bytes each; many whole doubles 1. */
static void
test_compact(void)
{
	struct model *m = xcalloc(1, sizeof *m);
	unsigned char *bytes;
	size_t len, i, n = 5000;

	m->name = xstrdup("j");
	m->nnodes = m->nreal = 1;
	m->nodes = xcalloc(1, sizeof *m->nodes);
	m->nodes[0].name = xstrdup("node-0");
	m->nevents = 1;
	m->events = xcalloc(1, sizeof *m->events);
	m->events[0].text = xstrdup("x");
	m->nmarks = n;
	m->marks = xcalloc(n, sizeof *m->marks);
	for (i = 0; i < n; i++) {
		m->marks[i].at = (double)(100000 + i);
		m->marks[i].level = 3;
		m->marks[i].event = i % 2 ? 0 : UINT32_MAX;
		m->marks[i].n = 100;
	}
	model_encode(m, &bytes, &len);
	printf("# %zu bytes for %zu marks\n", len, n);
	ok(len < 6 * n + 100, "a mark a step after the last is 6 bytes");
	free(bytes);
	test_round_trip(m, "a model of many marks");
	model_free(m);
}

static void
test_damage(void)
{
	struct model *m = sample(), *back;
	unsigned char *bytes;
	size_t len, n, bit, served = 0, cut = 0;

	model_encode(m, &bytes, &len);
	for (bit = 0; bit < len * 8; bit++) {
		bytes[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		if ((back = model_decode(bytes, len)) != NULL) {
			served++;
			model_free(back);
		}
		bytes[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	printf("# %zu bit flips tried\n", len * 8);
	is_int((long)served, 0, "no bit flipped anywhere in the bytes gives a "
	    "model (numbers included: the checksum)");
	for (n = 0; n < len; n++)
		if ((back = model_decode(bytes, n)) != NULL) {
			cut++;
			model_free(back);
		}
	is_int((long)cut, 0, "no cut of the bytes gives a model");
	memcpy(bytes, "TSMODEL5", 8);
	ok(model_decode(bytes, len) == NULL, "the encoding before varints is "
	    "no model: computed again");
	free(bytes);
	model_free(m);
}

/*
 * Every byte set to values a varint and a tag care about, the checksum
 * made good: no model, or one that writes those very bytes again.
 */
static void
test_changed_bytes(void)
{
	static const unsigned char vals[] = { 0x00, 0x01, 0x02, 0x7f, 0x80,
	    0xff };
	struct model *m = sample(), *back;
	unsigned char *bytes, *b, *again;
	size_t len, blen, n, i, k, read = 0, bad = 0;

	model_encode(m, &bytes, &len);
	for (i = 8; i < len - 4; i++)
		for (k = 0; k < sizeof vals; k++) {
			b = splice(bytes, len, i, 1, &vals[k], 1, &blen);
			if ((back = model_decode(b, blen)) != NULL) {
				read++;
				model_encode(back, &again, &n);
				bad += n != blen || memcmp(again, b, n) != 0;
				free(again);
				model_free(back);
			}
			free(b);
		}
	printf("# %zu changed bytes read as a model\n", read);
	is_int((long)bad, 0, "a byte changed under a good checksum gives no "
	    "model or one that writes the same bytes");
	free(bytes);
	model_free(m);
}

/* v as a varint into c: its length. */
static size_t
varint(uint64_t v, unsigned char *c)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		c[n++] = (unsigned char)(v | 0x80);
	c[n++] = (unsigned char)v;
	return n;
}

/* Does m with the varint v in place of the byte at `at` read? */
static int
reads_varint(const struct model *m, size_t at, uint64_t v)
{
	unsigned char c[10];

	return reads(m, at, 1, c, varint(v, c));
}

/*
 * Forms the writer never writes, and counts too large, read as no model.
 * A model of nothing but its name "j" has its name at bytes 8 and 9,
 * stage at 11, names_stamp at 18, slow_before_ms at 20, the marks'
 * count at 31.
 */
static void
test_forms(void)
{
	static const unsigned char raw0[9] = { 0 }, raw_nan[9] = { 0, 0, 0,
	    0, 0, 0, 0, 0xf8, 0x7f }, raw_half[9] = { 0, 0, 0, 0, 0, 0, 0,
	    0xe0, 0x3f }, long_name[2] = { 0x82, 0x00 }, over64[10] = { 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 },
	    eleven[11] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	    0x80, 0x80, 0x00 };
	const uint64_t w52 = 1ull << 52;
	struct model *m = xcalloc(1, sizeof *m);

	m->name = xstrdup("j");
	ok(reads(m, 20, 1, raw_half, 9), "a fraction as its 8 bytes reads");
	ok(!reads(m, 20, 1, raw0, 9), "a whole double as 8 bytes does not");
	ok(!reads(m, 20, 1, raw_nan, 9), "nor the default NaN as 8 bytes");
	ok(!reads_varint(m, 20, 6), "nor a double of an unknown tag");
	ok(reads_varint(m, 20, (w52 - 1) << 2 | 1),
	    "a whole double of 2^52 - 1 reads");
	ok(!reads_varint(m, 20, w52 << 2 | 1), "one of 2^52 does not");
	ok(!reads(m, 8, 1, long_name, 2), "nor a varint longer than it needs");
	ok(reads_varint(m, 18, UINT64_MAX), "a varint of 64 bits reads");
	ok(!reads(m, 18, 1, over64, 10), "one past 64 bits does not");
	ok(!reads(m, 18, 1, eleven, 11), "nor one of 11 bytes");
	ok(reads_varint(m, 11, 2 * (uint64_t)INT_MAX), "an int of INT_MAX "
	    "reads");
	ok(!reads_varint(m, 11, 2 * (uint64_t)INT_MAX + 2), "one past it "
	    "does not");
	ok(!reads_varint(m, 31, 1ull << 40), "nor a count of 2^40 marks");
	ok(!reads_varint(m, 31, 3), "nor 3 marks in the 16 bytes left");
	m->notes = xcalloc(2, sizeof *m->notes);
	m->nnotes = 1;
	ok(!reads(m, 8, 0, "", 0), "nor a NULL among a model's strings");
	model_free(m);
}

int
main(void)
{
	test_every_field();
	test_empty();
	test_compact();
	test_damage();
	test_changed_bytes();
	test_forms();
	return done_testing();
}
