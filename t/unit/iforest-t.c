/* iforest-t.c -- isolation forest: outliers first, determinism, c(n). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag/iforest.h"
#include "base/rng.h"
#include "tap.h"

#define N 64
#define D 5

int
main(void)
{
	double x[N * D], s1[N], s2[N], attr[N * D];
	struct rng r;
	size_t i, j, best = 0, second = 0;
	int same = 1;

	ok(fabs(iforest_c(2) - 1) < 1e-12, "c(2) = 1");
	ok(iforest_c(1) == 0, "c(1) = 0");
	ok(fabs(iforest_c(256) - (2 * (log(255) + 0.5772156649 + 1.0 / 510 -
	    1.0 / (12.0 * 255 * 255)) - 2.0 * 255 / 256)) < 1e-3,
	    "c(256) matches the harmonic approximation");

	rng_seed(&r, 7);
	for (i = 0; i < N; i++)
		for (j = 0; j < D; j++)
			x[i * D + j] = 10 + rng_normal(&r);
	x[17 * D + 3] = 40;	/* one node with an exploding event */
	iforest_score(x, N, D, 100, 42, s1, attr);
	iforest_score(x, N, D, 100, 42, s2, NULL);
	for (i = 0; i < N; i++) {
		if (s1[i] != s2[i])
			same = 0;
		if (s1[i] > s1[best])
			best = i;
	}
	ok(same, "same seed, same scores");
	is_int(best, 17, "the outlier ranks first");
	ok(s1[17] > 0.6, "and its score is high");
	for (j = 0; j < D; j++)
		if (attr[17 * D + j] > attr[17 * D + second])
			second = j;
	is_int(second, 3, "attribution names the feature that isolates it");
	iforest_score(x, N, D, 100, 43, s2, NULL);
	for (i = 0, best = 0; i < N; i++)
		if (s2[i] > s2[best])
			best = i;
	is_int(best, 17, "another seed agrees on the outlier");

	/* identical points: no splits, everyone equal */
	for (i = 0; i < N * D; i++)
		x[i] = 1;
	iforest_score(x, N, D, 10, 1, s1, NULL);
	ok(s1[0] == s1[N - 1], "identical points score the same");
	iforest_score(x, 1, D, 10, 1, s1, NULL);
	ok(s1[0] == 0.5, "a single point scores 0.5");

	/* many distinct points and features: trees grow (and move) a lot */
	{
		size_t bn = 300, bd = 40;
		double *bx = calloc(bn * bd, sizeof *bx), *bs = calloc(bn,
		    sizeof *bs);

		alarm(20);	/* a broken tree would loop forever */
		for (i = 0; i < bn * bd; i++)
			bx[i] = rng_unit(&r) * 10;
		iforest_score(bx, bn, bd, 100, 5, bs, NULL);
		for (i = 0, same = 1; i < bn; i++)
			same &= bs[i] > 0 && bs[i] <= 1;
		ok(same, "300 x 40 points score in (0, 1]");
		free(bx);
		free(bs);
	}
	return done_testing();
}
