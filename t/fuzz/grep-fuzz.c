/*
 * grep-fuzz.c -- the raw-text search over any bytes, against matching each
 * line alone.  The input's first line is the pattern, the rest the text;
 * the lines the block search selects (matching, then not matching) must
 * be exactly those whose line alone matches (does not).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "logs/grep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct got {
	uint64_t *line, *off;
	size_t n, cap;
};

static void
add(void *arg, uint64_t line, uint64_t off)
{
	struct got *g = arg;
	size_t cap = g->cap;

	g->line = xgrow(g->line, &cap, g->n + 1, sizeof *g->line);
	g->off = xrealloc(g->off, cap * sizeof *g->off);
	g->cap = cap;
	g->line[g->n] = line;
	g->off[g->n++] = off;
}

/* Each line alone, in an exact-size copy. */
static void
alone(struct grep *g, const char *s, size_t len, int invert, struct got *out)
{
	size_t start = 0, i;
	uint64_t line = 1;

	for (i = 0; i < len; i++) {
		if (s[i] != '\n' && i + 1 < len)
			continue;
		{
			size_t end = s[i] == '\n' ? i : i + 1;
			char *l = xmalloc(end - start + 1);

			memcpy(l, s + start, end - start);
			if (grep_match(g, l, end - start) != invert)
				add(out, line, start);
			free(l);
		}
		start = i + 1;
		line++;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nl = memchr(s, '\n', size);
	struct got a, b;
	struct grep *g;
	char *pat, *why = NULL;
	size_t off, k;
	int inv;

	if (nl == NULL)
		return 0;
	pat = xstrndup(s, (size_t)(nl - s));
	if (strlen(pat) != (size_t)(nl - s) || grep_compile(pat, &g, &off,
	    &why) != 0) {
		free(why);
		free(pat);
		return 0;
	}
	for (inv = 0; inv <= 1; inv++) {
		memset(&a, 0, sizeof a);
		memset(&b, 0, sizeof b);
		grep_buffer(g, nl + 1, size - (size_t)(nl + 1 - s), inv, add, &a);
		alone(g, nl + 1, size - (size_t)(nl + 1 - s), inv, &b);
		if (a.n != b.n)
			abort();
		for (k = 0; k < a.n; k++)
			if (a.line[k] != b.line[k] || a.off[k] != b.off[k])
				abort();
		free(a.line);
		free(a.off);
		free(b.line);
		free(b.off);
	}
	grep_free(g);
	free(pat);
	return 0;
}
