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

#include "stats.h"
#include "util.h"

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

double
stats_quantile(const double *v, size_t n, double q)
{
	double *c, pos, r;
	size_t lo;

	if (n == 0)
		return NAN;
	c = xmalloc(n * sizeof *c);
	memcpy(c, v, n * sizeof *c);
	ts_qsort(c, n, sizeof *c, stats_cmp_double);
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	pos = q * (double)(n - 1);
	lo = (size_t)pos;
	r = lo + 1 < n ? c[lo] + (pos - (double)lo) * (c[lo + 1] - c[lo]) : c[lo];
	free(c);
	return r;
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
