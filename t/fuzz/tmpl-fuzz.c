/*
 * tmpl-fuzz.c -- fuzz target for masking and mining: each line of the
 * input is parsed, masked and matched.  Checks: masking is idempotent on
 * single blanks, no NUL), every id has a text, a second miner fed the
 * same lines gives the same ids (determinism), restoring the
 * templates into a new miner keeps ids and texts, and the memo masks
 * each message, and the message with its digits changed, as tmpl_mask()
 * does.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logs/lineparse.h"
#include "logs/tmpl.h"
#include "base/util.h"

#define MAXLINES 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t
feed(struct tmpl_miner *m, const char *s, size_t n, struct buf *b)
{
	struct lp_line lp;
	uint32_t id;
	size_t i;

	lp_parse(s, n, &lp);
	tmpl_mask(lp.msg, lp.msg_len, b);
	if (strlen(b->s) != b->len || (b->len > 0 && (b->s[0] == ' ' ||
	    b->s[b->len - 1] == ' ')))
		abort();
	for (i = 1; i < b->len; i++)
		if (b->s[i] == ' ' && b->s[i - 1] == ' ')
			abort();
	id = tmpl_match(m, b->s, b->len, NULL);
	if (id == 0 || id > tmpl_max_id(m) || tmpl_text(m, id) == NULL)
		abort();
	return id;
}

/* The memo against tmpl_mask(): the message, then with other digits. */
static void
check_memo(struct tmpl_memo *mo, const char *s, size_t n, struct buf *b)
{
	struct buf want = BUF_INIT, first = BUF_INIT;
	char *v = xmalloc(n + 1);
	size_t i;
	int round, same = 0, same0 = 0;

	for (round = 0; round < 2; round++) {
		for (i = 0; i < n; i++)
			v[i] = round && s[i] >= '0' && s[i] <= '9' ?
			    (char)('0' + (s[i] - '0' + 7) % 10) : s[i];
		tmpl_mask(v, n, &want);
		tmpl_memo_mask(mo, v, n, b, &same);
		if (want.len != b->len || memcmp(want.s, b->s, b->len) != 0)
			abort();
		/* "same": the other digits mask to the same text */
		if (round == 0) {
			same0 = same;
			buf_reset(&first);
			buf_add(&first, want.s, want.len);
		} else if (same0 && (want.len != first.len ||
		    memcmp(want.s, first.s, first.len) != 0))
			abort();
	}
	free(v);
	buf_release(&want);
	buf_release(&first);
}

static void
check_restore(struct tmpl_miner *m)
{
	struct tmpl_miner *r = tmpl_new();
	uint32_t i;
	char *cause = NULL;

	for (i = 1; i <= tmpl_max_id(m); i++) {
		if (tmpl_text(m, i) == NULL)
			continue;
		if (tmpl_restore(r, i, tmpl_text(m, i), &cause) != 0)
			abort();
		if (strcmp(tmpl_text(r, i), tmpl_text(m, i)) != 0)
			abort();
	}
	if (tmpl_max_id(r) != tmpl_max_id(m))
		abort();
	tmpl_free(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tmpl_miner *m = tmpl_new(), *m2;
	struct tmpl_memo *mo = tmpl_memo_new();
	struct buf b = BUF_INIT;
	const char *s, *nl, *end = (const char *)data + size;
	const char *ls[MAXLINES];
	size_t ln[MAXLINES], n = 0, i;
	uint32_t ids[MAXLINES];

	for (s = (const char *)data; s < end && n < MAXLINES; s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		ls[n] = s;
		ln[n] = (size_t)(nl - s);
		ids[n] = feed(m, ls[n], ln[n], &b);
		check_memo(mo, ls[n], ln[n], &b);
		n++;
	}
	m2 = tmpl_new();
	for (i = 0; i < n; i++)
		if (feed(m2, ls[i], ln[i], &b) != ids[i])
			abort();
	tmpl_free(m2);
	check_restore(m);
	buf_release(&b);
	tmpl_memo_free(mo);
	tmpl_free(m);
	return 0;
}
