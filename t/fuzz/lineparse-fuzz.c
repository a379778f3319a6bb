/*
 * lineparse-fuzz.c -- fuzz target for the line parser: any bytes, as one
 * line and as each of its newline-separated lines.  The message must lie
 * inside the input and the fields must be in range; the memo must parse
 * each line, and the line with its digits changed, as lp_parse() does,
 * and give one shape only to lines of one skeleton.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logs/lineparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
same(const struct lp_line *a, const struct lp_line *b, const char *s,
    const char *t)
{
	return a->msg - s == b->msg - t && a->msg_len == b->msg_len &&
	    (a->ts == b->ts || (a->ts != a->ts && b->ts != b->ts)) &&
	    a->ts_kind == b->ts_kind && a->tz_known == b->tz_known &&
	    a->level == b->level && a->rank == b->rank &&
	    a->host_len == b->host_len &&
	    (a->host == NULL) == (b->host == NULL) &&
	    (a->host == NULL || a->host - s == b->host - t);
}

/* The shapes the memo gave in this input, and their skeletons. */
#define MAXSHAPES 64
static uint64_t shapes[MAXSHAPES];
static char *skel[MAXSHAPES];
static size_t skellen[MAXSHAPES], nshapes;

/* One shape, one skeleton. */
static void
shape_seen(uint64_t shape, const char *k, size_t n)
{
	size_t i;

	if (shape == 0)
		return;
	for (i = 0; i < nshapes; i++)
		if (shapes[i] == shape) {
			if (skellen[i] != n || memcmp(skel[i], k, n) != 0)
				abort();
			return;
		}
	if (nshapes < MAXSHAPES) {
		shapes[nshapes] = shape;
		skel[nshapes] = malloc(n + 1);
		memcpy(skel[nshapes], k, n);
		skellen[nshapes++] = n;
	}
}

/* The memo against lp_parse(): the line, then with other digits. */
static void
memo(struct lp_memo *mo, const char *s, size_t n)
{
	struct lp_line want, got;
	char *v = malloc(n + 1);
	uint64_t shape;
	size_t i;
	int round;

	for (round = 0; round < 3; round++) {
		for (i = 0; i < n; i++)
			v[i] = round && s[i] >= '0' && s[i] <= '9' ? (char)('0' +
			    (s[i] - '0' + 3 * round) % 10) : s[i];
		lp_parse(v, n, &want);
		shape = lp_memo_parse(mo, v, n, &got);
		if (!same(&want, &got, v, v))
			abort();
		for (i = 0; i < n; i++)
			v[i] = v[i] >= '0' && v[i] <= '9' ? '0' : v[i];
		shape_seen(shape, v, n);
	}
	free(v);
}

static void
one(const char *s, size_t n)
{
	struct lp_line lp;
	size_t t;

	lp_parse(s, n, &lp);
	if (lp.msg < s || lp.msg_len > n || lp.msg + lp.msg_len != s + n)
		abort();
	if (lp.level > LP_LEVEL_FATAL || lp.ts_kind > LP_TS_UPTIME ||
	    lp.rank < -1 || lp.ts != lp.ts)
		abort();
	if (lp_level_name(lp.level) == NULL)
		abort();
	if ((t = lp_time_len(s, n)) > n)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl, *end = s + size;
	struct lp_memo *mo = lp_memo_new();

	one(s, size);
	memo(mo, s, size);
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		one(s, (size_t)(nl - s));
		memo(mo, s, (size_t)(nl - s));
		s = nl + 1;
	}
	lp_memo_free(mo);
	while (nshapes > 0)
		free(skel[--nshapes]);
	return 0;
}
