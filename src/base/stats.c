/*
 * stats.c -- mean, deviation, quantiles and robust scores.
 *
 * Robust scale is median/MAD; plain 3-sigma cannot flag anything among
 * ten or fewer points (Samuelson's bound), so callers use robust z-scores
 * and handle small groups explicitly.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/stats.h"
#include "base/util.h"

int
stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
stats_mean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double
stats_sd(const double *v, size_t n)
{
	double m = stats_mean(v, n), s = 0;
	size_t i;

	if (n == 0)
		return NAN;
	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return sqrt(s / (double)n);
}

/*
 * Can the order statistics of v be found by selection, without sorting?
 * Only when no two values compare equal without being the same number:
 * a NaN compares equal to everything, -0 equals 0.
 */
static int
selectable(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]) || (v[i] == 0 && signbit(v[i])))
			return 0;
	return 1;
}

/*
 * Put the k-th smallest of c[0..n) at c[k], the smaller ones before it
 * and the others after it (Hoare's selection, median-of-three pivots).
 */
static void
select_kth(double *c, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1, i, j;
	double p, t;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c[mid] < c[lo]) { t = c[mid]; c[mid] = c[lo]; c[lo] = t; }
		if (c[hi] < c[lo]) { t = c[hi]; c[hi] = c[lo]; c[lo] = t; }
		if (c[hi] < c[mid]) { t = c[hi]; c[hi] = c[mid]; c[mid] = t; }
		p = c[mid];
		i = lo;
		j = hi;
		while (i <= j) {
			while (c[i] < p)
				i++;
			while (p < c[j])
				j--;
			if (i <= j) {
				t = c[i]; c[i] = c[j]; c[j] = t;
				i++;
				if (j-- == 0)
					break;
			}
		}
		if (k <= j && j != (size_t)-1)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

/* The lo-th and (lo + 1)-th smallest of c[0..n) (c is reordered). */
static void
order_stats(double *c, size_t n, size_t lo, double *a, double *b)
{
	size_t i;

	if (!selectable(c, n)) {
		ts_qsort(c, n, sizeof *c, stats_cmp_double);
		*a = c[lo];
		*b = lo + 1 < n ? c[lo + 1] : c[lo];
		return;
	}
	select_kth(c, n, lo);
	*a = c[lo];
	*b = *a;
	for (i = lo + 1; i < n; i++)
		if (i == lo + 1 || c[i] < *b)
			*b = c[i];
}

double
stats_quantile(const double *v, size_t n, double q)
{
	double *c, pos, a, b;
	size_t lo;

	if (n == 0)
		return NAN;
	c = xmalloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	order_stats(c, n, lo, &a, &b);
	free(c);
	return lo + 1 < n ? a + (pos - (double)lo) * (b - a) : a;
}

double
stats_median(const double *v, size_t n)
{
	return stats_quantile(v, n, 0.5);
}

double
stats_mad(const double *v, size_t n)
{
	double med, *d, r;
	size_t i;

	if (n == 0)
		return NAN;
	med = stats_median(v, n);
	d = xmalloc(n * sizeof *d);
	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - med);
	r = 1.4826 * stats_median(d, n);
	free(d);
	return r;
}

double
stats_robust_scale(const double *v, size_t n, double floor_scale,
    double *median)
{
	double med, scale, s = 0;
	size_t i;

	med = stats_median(v, n);
	if (median != NULL)
		*median = med;
	if (n == 0)
		return NAN;
	scale = stats_mad(v, n);
	if (!(scale > 0)) {
		for (i = 0; i < n; i++)
			s += fabs(v[i] - med);
		scale = 1.2533 * s / (double)n;
	}
	if (!(scale > floor_scale))
		scale = floor_scale;
	return scale;
}

double
stats_robust_z(double x, const double *v, size_t n, double floor_scale)
{
	double med, scale;

	if (n == 0)
		return NAN;
	scale = stats_robust_scale(v, n, floor_scale, &med);
	if (!(scale > 0))
		return x == med ? 0 : (x > med ? INFINITY : -INFINITY);
	return (x - med) / scale;
}
