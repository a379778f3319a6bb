/* dtw-t.c -- DTW similarity and anomalous iterations. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "diag/dtw.h"
#include "tap.h"

int
main(void)
{
	static const uint32_t a[] = { 1, 2, 3, 4, 5 };
	static const uint32_t b[] = { 1, 2, 9, 9, 3, 4, 5 };
	static const uint32_t c[] = { 7, 7, 7 };
	static const uint32_t it[] = { 10 };
	static const uint32_t ck[] = { 11, 12, 10 };
	static const uint32_t bad[] = { 20, 21, 22 };
	const uint32_t *seqs[30];
	size_t lens[30], i, n;
	double score[30], best[30];
	int flags[30];

	ok(dtw_similarity(a, 5, a, 5, 0) == 1, "identical sequences: 1");
	ok(dtw_similarity(a, 5, a, 5, 1) == 1, "identical, narrow band: 1");
	ok(dtw_similarity(a, 5, b, 7, 2) < 1 && dtw_similarity(a, 5, b, 7, 2) >
	    0.5, "inserted events lower it");
	ok(dtw_similarity(a, 5, c, 3, 0) == 0, "nothing in common: 0");
	ok(dtw_similarity(a, 0, a, 0, 0) == 1, "two empty: 1");
	ok(dtw_similarity(a, 5, a, 0, 0) == 0, "empty vs events: 0");
	ok(fabs(dtw_similarity(a, 5, b, 7, 0) - dtw_similarity(b, 7, a, 5, 0))
	    < 1e-12, "symmetric");

	/* 25 iterations, a checkpoint every 5, a bad one at 20, truncated end */
	for (i = 0; i < 25; i++) {
		seqs[i] = i % 5 == 4 ? ck : it;
		lens[i] = i % 5 == 4 ? 3 : 1;
	}
	seqs[20] = bad;
	lens[20] = 3;
	seqs[25] = it;
	lens[25] = 0;	/* the final, truncated iteration: nothing logged */
	n = 26;
	dtw_iter_scores(seqs, lens, n, 10, 4, score, best);
	ok(score[0] == 1, "first iteration scores 1");
	ok(score[3] == 1, "steady iterations score 1");
	ok(dtw_flag(score, best, n, flags) >= 1, "something flagged");
	ok(flags[20], "the deviating iteration is flagged");
	ok(flags[25], "the truncated final iteration is flagged");
	ok(!flags[9] && !flags[14], "periodic checkpoints are not flagged");
	ok(!flags[3] && !flags[21], "normal iterations are not flagged");

	/* few iterations: three sigma alone could not flag this */
	for (i = 0; i < 5; i++) {
		seqs[i] = it;
		lens[i] = 1;
	}
	seqs[5] = bad;
	lens[5] = 3;
	dtw_iter_scores(seqs, lens, 6, 10, 0, score, best);
	dtw_flag(score, best, 6, flags);
	ok(flags[5] && !flags[4], "robust rule flags with six iterations");
	return done_testing();
}
