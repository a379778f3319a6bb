/*
 * tmpl-bench.c -- lines per second of header parsing, masking and
 * matching, against a baseline that only finds the lines.
 *
 *	tmpl-bench FILE [REPEAT]
 *
 * The file is read into memory once (REPEAT times over, default 1) and
 * each stage runs over all its lines: the baseline (find newlines, touch
 * each line), lp_parse(), lp_parse()+tmpl_mask(), the whole
 * lp_parse()+tmpl_mask()+tmpl_match(), and the per-thread memos that
 * index uses, lp_memo_parse() and lp_memo_parse()+tmpl_memo_mask() (the
 * same results; faster where lines repeat but for their numbers).
 * Prints one row per stage with
 * lines/s, MB/s and the ratio of its time to the baseline's.  Times
 * are the thread's CPU time, so other processes on the machine disturb
 * them less than wall-clock time would.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "logs/lineparse.h"
#include "logs/tmpl.h"
#include "base/util.h"

static char *data;
static size_t len, nlines;
static volatile size_t sink;

static double
cputime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
stage(int level, struct tmpl_miner *m, struct buf *b)
{
	const char *s = data, *end = data + len, *nl;
	struct lp_memo *lm = level >= 4 ? lp_memo_new() : NULL;
	struct tmpl_memo *tm = level >= 5 ? tmpl_memo_new() : NULL;
	struct lp_line lp;
	size_t acc = 0, n;

	for (; s < end; s = nl + 1) {
		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		n = (size_t)(nl - s);
		if (level == 0) {
			acc += n + (n ? (unsigned char)s[0] : 0);
			continue;
		}
		if (level >= 4) {
			acc += lp_memo_parse(lm, s, n, &lp) + lp.msg_len;
			if (level >= 5)
				acc += tmpl_memo_mask(tm, lp.msg, lp.msg_len, b,
				    NULL);
			continue;
		}
		lp_parse(s, n, &lp);
		acc += lp.msg_len;
		if (level >= 2)
			tmpl_mask(lp.msg, lp.msg_len, b);
		if (level >= 3)
			acc += tmpl_match(m, b->s, b->len, NULL);
	}
	sink = acc;
	lp_memo_free(lm);
	tmpl_memo_free(tm);
}

int
main(int argc, char **argv)
{
	static const char *names[] = { "baseline (split lines)", "lp_parse",
	    "lp_parse+mask", "lp_parse+mask+match", "memo: parse",
	    "memo: parse+mask" };
	struct buf b = BUF_INIT, in = BUF_INIT;
	struct tmpl_miner *m;
	double t0, t[6];
	FILE *f;
	char tmp[65536];
	size_t n, i;
	int level, rep = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL) {
		fprintf(stderr, "usage: tmpl-bench FILE [REPEAT]\n");
		return 2;
	}
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		buf_add(&in, tmp, n);
	fclose(f);
	n = in.len;
	buf_grow(&in, n * (rep > 1 ? (size_t)rep : 1));
	for (; rep > 1; rep--)
		buf_add(&in, in.s, n);	/* no realloc: grown above */
	data = in.s;
	len = in.len;
	for (i = 0; i < len; i++)
		nlines += data[i] == '\n';
	for (level = 0; level < 6; level++) {
		m = tmpl_new();
		t0 = cputime();
		stage(level, m, &b);
		t[level] = cputime() - t0;
		if (level == 3)
			printf("# %u templates\n", tmpl_max_id(m));
		tmpl_free(m);
	}
	printf("# %zu lines, %.1f MB\n", nlines, len / 1e6);
	printf("%-24s %12s %10s %8s\n", "stage", "lines/s", "MB/s", "x base");
	for (level = 0; level < 6; level++)
		printf("%-24s %12.0f %10.1f %8.1f\n", names[level],
		    nlines / t[level], len / 1e6 / t[level], t[level] / t[0]);
	buf_release(&b);
	buf_release(&in);
	return 0;
}
