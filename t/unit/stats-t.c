/* stats-t.c -- robust statistics and the random generator. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/stats.h"
#include "tap.h"

#define near(a, b) (fabs((a) - (b)) < 1e-9)

/* The quantile by a full sort, to check the selection against. */
static double
sorted_quantile(const double *v, size_t n, double q)
{
	double c[512], pos;
	size_t lo;

	memcpy(c, v, n * sizeof *c);
	qsort(c, n, sizeof *c, stats_cmp_double);
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	return lo + 1 < n ? c[lo] + (pos - (double)lo) * (c[lo + 1] - c[lo]) :
	    c[lo];
}

/* Random arrays, many ties, every size up to 300: selection == sorting. */
static void
test_selection(void)
{
	static const double qs[] = { 0, 0.1, 0.25, 0.5, 0.75, 0.9, 1 };
	double v[512];
	struct rng r;
	size_t n, i, k, bad = 0, runs = 0;

	rng_seed(&r, 7);
	for (n = 1; n <= 300; n++) {
		for (i = 0; i < n; i++)
			v[i] = n % 3 == 0 ? (double)(rng_next(&r) % 5) :
			    n % 3 == 1 ? (double)i : rng_unit(&r) - 0.5;
		if (n == 77)
			v[n / 2] = NAN;		/* sorted, not selected */
		for (k = 0; k < sizeof qs / sizeof qs[0]; k++, runs++) {
			double a = stats_quantile(v, n, qs[k]);
			double b = sorted_quantile(v, n, qs[k]);

			if (!(a == b || (isnan(a) && isnan(b))))
				bad++;
		}
	}
	ok(bad == 0 && runs == 2100,
	    "quantiles by selection equal those by sorting");
}

/*
 * A bag gives the array's statistics: series of few values repeated (in
 * runs and shuffled), many distinct values, one value, -0 with 0.
 */
static void
test_bag(void)
{
	struct rng r;
	struct stats_bag bag;
	double v[500], med, med2, sc, sc2;
	size_t n, i, k;
	int good = 1, q;

	rng_seed(&r, 7);
	for (k = 0; k < 4; k++) {
		memset(&bag, 0, sizeof bag);
		n = k == 3 ? 1 : 500;
		for (i = 0; i < n; i++) {
			v[i] = k == 0 ? (double)rng_below(&r, 4) / 4 :
			    k == 1 ? (i / 50 % 3 == 0 ? 0.5 : 1) :
			    k == 2 ? rng_unit(&r) : 0.25;
			stats_bag_add(&bag, v[i]);
		}
		good &= bag.total == n && stats_bag_mean(&bag) ==
		    stats_mean(v, n);
		good &= near(stats_bag_sd(&bag), stats_sd(v, n));
		for (q = 0; q <= 4; q++)
			good &= stats_bag_quantile(&bag, q / 4.0) ==
			    stats_quantile(v, n, q / 4.0);
		sc = stats_robust_scale(v, n, 0.05, &med);
		sc2 = stats_bag_robust_scale(&bag, 0.05, &med2);
		good &= med == med2 && near(sc, sc2);
		good &= k != 2 || bag.n == n;
		good &= k == 2 || bag.n <= 4;
		stats_bag_free(&bag);
	}
	ok(good, "bag: mean, sd, quantiles, median and robust scale as the "
	    "array's; one entry per distinct value");
	memset(&bag, 0, sizeof bag);
	stats_bag_add(&bag, 0.0);
	stats_bag_add(&bag, -0.0);
	ok(bag.n == 1 && bag.c[0] == 2 && isnan(stats_bag_quantile(
	    &(struct stats_bag){ 0 }, 0.5)), "bag: -0 is 0; empty is NaN");
	stats_bag_free(&bag);
}

int
main(void)
{
	double v[] = { 5, 1, 3, 2, 4 }, same[] = { 7, 7, 7, 7 };
	double out[] = { 10, 10.1, 9.9, 10, 30 };
	struct rng a, b;
	int i, equal = 1, inrange = 1;

	test_selection();

	ok(near(stats_median(v, 5), 3), "median of odd count");
	ok(near(stats_median(v, 4), 2.5), "median of even count");
	ok(near(stats_mean(v, 5), 3), "mean");
	ok(near(stats_sd(v, 5), sqrt(2)), "population sd");
	ok(near(stats_quantile(v, 5, 0.25), 2), "quantile");
	ok(near(stats_mad(v, 5), 1.4826), "scaled MAD");
	ok(isnan(stats_median(v, 0)), "empty input is NaN");
	ok(stats_robust_z(30, out, 5, 0) > 10, "outlier gets a large robust z");
	ok(fabs(stats_robust_z(10, out, 5, 0)) < 1, "inlier gets a small one");
	ok(isfinite(stats_robust_z(8, same, 4, 0.5)) &&
	    stats_robust_z(8, same, 4, 0.5) > 1,
	    "identical peers: finite score through the floor scale");

	rng_seed(&a, 42);
	rng_seed(&b, 42);
	for (i = 0; i < 1000; i++) {
		uint64_t x = rng_next(&a);
		double u;

		if (x != rng_next(&b))
			equal = 0;
		u = rng_unit(&a);
		(void)rng_unit(&b);
		if (!(u >= 0 && u < 1) || rng_below(&a, 7) >= 7)
			inrange = 0;
		(void)rng_below(&b, 7);
	}
	ok(equal, "same seed, same sequence");
	ok(inrange, "rng_unit in [0,1), rng_below in range");
	rng_seed(&a, 1);
	rng_seed(&b, 2);
	ok(rng_next(&a) != rng_next(&b), "different seeds differ");
	test_bag();
	return done_testing();
}
