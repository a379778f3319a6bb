/*
 * lineparse-fuzz.c -- fuzz target for the line parser: any bytes, as one
 * line and as each of its newline-separated lines.  The message must lie
 * inside the input and the fields must be in range.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "logs/lineparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

	one(s, size);
	while (s < end) {
		nl = memchr(s, '\n', (size_t)(end - s));
		if (nl == NULL)
			nl = end;
		one(s, (size_t)(nl - s));
		s = nl + 1;
	}
	return 0;
}
