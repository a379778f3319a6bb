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

/* ------------------------------------------------------------ a bag */

static uint64_t
bag_hash(double x)
{
	uint64_t u;

	x = x == 0 ? 0 : x;	/* -0 and 0 are one value */
	memcpy(&u, &x, sizeof u);
	return ts_mix64(u);
}

static void
bag_rehash(struct stats_bag *b, size_t size)
{
	size_t i, j;

	free(b->tab);
	b->tab = xcalloc(size, sizeof *b->tab);
	b->size = size;
	for (i = 0; i < b->n; i++) {
		for (j = bag_hash(b->v[i]) & (size - 1); b->tab[j] != 0;
		    j = (j + 1) & (size - 1))
			;
		b->tab[j] = i + 1;
	}
}

void
stats_bag_add(struct stats_bag *b, double x)
{
	size_t j;

	b->total++;
	b->sum += x;
	if (b->last != 0 && b->v[b->last - 1] == x) {	/* a run of one value */
		b->c[b->last - 1]++;
		return;
	}
	if ((b->n + 1) * 2 > b->size)
		bag_rehash(b, b->size ? b->size * 2 : 16);
	for (j = bag_hash(x) & (b->size - 1); b->tab[j] != 0;
	    j = (j + 1) & (b->size - 1))
		if (b->v[b->tab[j] - 1] == x) {
			b->c[b->tab[j] - 1]++;
			b->last = b->tab[j];
			return;
		}
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 16;
		b->v = xreallocarray(b->v, b->cap, sizeof *b->v);
		b->c = xreallocarray(b->c, b->cap, sizeof *b->c);
	}
	b->v[b->n] = x;
	b->c[b->n] = 1;
	b->tab[j] = b->last = ++b->n;
}

double
stats_bag_mean(const struct stats_bag *b)
{
	return b->total > 0 ? b->sum / (double)b->total : NAN;
}

double
stats_bag_sd(const struct stats_bag *b)
{
	double m = stats_bag_mean(b), s = 0;
	size_t i;

	if (b->total == 0)
		return NAN;
	for (i = 0; i < b->n; i++)
		s += (double)b->c[i] * (b->v[i] - m) * (b->v[i] - m);
	return sqrt(s / (double)b->total);
}

/* A value and its count, to sort. */
struct vc {
	double v;
	size_t c;
};

static int
cmp_vc(const void *a, const void *b)
{
	return stats_cmp_double(&((const struct vc *)a)->v,
	    &((const struct vc *)b)->v);
}

/* The k-th smallest (0-based) of sorted values with counts. */
static double
vc_kth(const struct vc *s, size_t n, size_t k)
{
	size_t i, seen = 0;

	for (i = 0; i < n; i++) {
		seen += s[i].c;
		if (k < seen)
			return s[i].v;
	}
	return s[n - 1].v;
}

/* stats_quantile() of sorted values with counts, `total` in all. */
static double
vc_quantile(const struct vc *s, size_t n, size_t total, double q)
{
	double pos, a, b;
	size_t lo;

	if (total == 0)
		return NAN;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	pos = q * (double)(total - 1);
	lo = (size_t)pos;
	a = vc_kth(s, n, lo);
	b = lo + 1 < total ? vc_kth(s, n, lo + 1) : a;
	return lo + 1 < total ? a + (pos - (double)lo) * (b - a) : a;
}

static struct vc *
bag_sorted(const struct stats_bag *b)
{
	struct vc *s = xcalloc(b->n + 1, sizeof *s);
	size_t i;

	for (i = 0; i < b->n; i++) {
		s[i].v = b->v[i];
		s[i].c = b->c[i];
	}
	ts_qsort(s, b->n, sizeof *s, cmp_vc);
	return s;
}

double
stats_bag_quantile(const struct stats_bag *b, double q)
{
	struct vc *s = bag_sorted(b);
	double r = vc_quantile(s, b->n, b->total, q);

	free(s);
	return r;
}

double
stats_bag_robust_scale(const struct stats_bag *b, double floor_scale,
    double *median)
{
	struct vc *s = bag_sorted(b);
	double med, scale, sum = 0;
	size_t i;

	med = vc_quantile(s, b->n, b->total, 0.5);
	if (median != NULL)
		*median = med;
	if (b->total == 0) {
		free(s);
		return NAN;
	}
	/* the deviations, with the same counts */
	for (i = 0; i < b->n; i++)
		s[i].v = fabs(s[i].v - med);
	ts_qsort(s, b->n, sizeof *s, cmp_vc);
	scale = 1.4826 * vc_quantile(s, b->n, b->total, 0.5);
	if (!(scale > 0)) {
		for (i = 0; i < b->n; i++)
			sum += (double)s[i].c * s[i].v;
		scale = 1.2533 * sum / (double)b->total;
	}
	free(s);
	return scale > floor_scale ? scale : floor_scale;
}

void
stats_bag_free(struct stats_bag *b)
{
	free(b->v);
	free(b->c);
	free(b->tab);
	memset(b, 0, sizeof *b);
}
