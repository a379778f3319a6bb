/*
 * stats.h -- robust and classical statistics on arrays of doubles.
 *
 * None of these modify their input: they copy when they need to sort.
 * With n == 0 they return NAN.
 */
#ifndef TS_STATS_H
#define TS_STATS_H

#include <stddef.h>

double stats_mean(const double *v, size_t n);
/* Population standard deviation: sqrt(sum((x - mean)^2) / n). */
double stats_sd(const double *v, size_t n);
double stats_median(const double *v, size_t n);
/* Linear-interpolated quantile, q in [0, 1]. */
double stats_quantile(const double *v, size_t n, double q);
/* Median absolute deviation, scaled by 1.4826 to estimate sigma. */
double stats_mad(const double *v, size_t n);
/*
 * Robust z-score of x against v: (x - median) / (1.4826 * MAD).  When the
 * MAD is 0 the scale falls back to the mean absolute deviation (times
 * 1.2533), then to `floor_scale`; so identical peers still give a finite,
 * large score for a differing point.
 */
double stats_robust_z(double x, const double *v, size_t n, double floor_scale);
/*
 * The scale stats_robust_z() divides by, and the median in *median (may be
 * NULL): MAD, else 1.2533 x mean absolute deviation, at least floor_scale.
 */
double stats_robust_scale(const double *v, size_t n, double floor_scale,
    double *median);

/*
 * A bag of doubles: each distinct value once, with how many times it was
 * added.  A series that repeats a few values (an iteration's DTW score)
 * takes room for its distinct values, not its length.  Its statistics are
 * the ones above over the values added: the mean is summed in the order
 * they came (so equal to stats_mean() of that series); the others agree
 * with their array versions up to the rounding of a sum taken in another
 * order.  A zero bag is empty; values must not be NaN.
 */
struct stats_bag {
	double *v;		/* the distinct values */
	size_t *c;		/* how many of each */
	size_t n, cap;
	size_t *tab;		/* open addressing: index + 1, 0 empty */
	size_t size;
	size_t total;		/* values added */
	double sum;		/* their sum, in the order added */
	size_t last;		/* the index of the last one added + 1 */
};

void stats_bag_add(struct stats_bag *b, double x);
/* The mean, population SD, quantile (as stats_quantile()), NAN empty. */
double stats_bag_mean(const struct stats_bag *b);
double stats_bag_sd(const struct stats_bag *b);
double stats_bag_quantile(const struct stats_bag *b, double q);
/* As stats_robust_scale() over the values added. */
double stats_bag_robust_scale(const struct stats_bag *b, double floor_scale,
    double *median);
void stats_bag_free(struct stats_bag *b);

/* qsort comparator for doubles. */
int stats_cmp_double(const void *a, const void *b);

#endif
