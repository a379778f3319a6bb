/*
 * diverge.c -- finding where a run's training diverged (diverge.h).
 *
 * One pass marks each iteration bad or good against running medians of
 * the good iterations before it (up to twenty, once five are known), so
 * that what went bad never becomes the norm; the stretch of bad
 * iterations that ends the log is the divergence when it is three
 * iterations or more.  Then the hyperparameters logged in the ten
 * iterations up to it are compared step by step.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diverge.h"
#include "base/stats.h"
#include "base/util.h"

#define WIN 20		/* good iterations a running median covers */
#define MIN_KNOWN 5	/* good iterations before a median counts */
#define MIN_STRETCH 3	/* bad iterations to the end that make it */
#define JUMP_SPAN 10	/* iterations before it a jump is looked for */

/* A window of recent good values and its median (NAN until MIN_KNOWN). */
struct win {
	double v[WIN];
	size_t n;
};

static void
win_add(struct win *w, double v)
{
	if (w->n == WIN) {
		memmove(w->v, w->v + 1, (WIN - 1) * sizeof *w->v);
		w->n--;
	}
	w->v[w->n++] = v;
}

static double
win_median(const struct win *w)
{
	double tmp[WIN];

	if (w->n < MIN_KNOWN)
		return NAN;
	memcpy(tmp, w->v, w->n * sizeof *tmp);
	return stats_median(tmp, w->n);
}

/* Is v bad: not finite, or over k times a known median? */
static int
bad_value(double v, double med, double k)
{
	return !isfinite(v) || (med > 0 && v > k * med);
}

/*
 * Mark each iteration bad (1) or good; bad_loss[i] says the loss was the
 * bad one.  The medians before each are kept in lmed[i], gmed[i].
 */
static void
mark(const struct diag_loss *x, size_t n, unsigned char *bad,
    unsigned char *bad_loss, double *lmed, double *gmed)
{
	struct win lw, gw;
	size_t i;

	memset(&lw, 0, sizeof lw);
	memset(&gw, 0, sizeof gw);
	for (i = 0; i < n; i++) {
		lmed[i] = win_median(&lw);
		gmed[i] = win_median(&gw);
		bad_loss[i] = x[i].has_loss && bad_value(x[i].loss, lmed[i], 5);
		bad[i] = bad_loss[i] || (x[i].has_gnorm &&
		    bad_value(x[i].gnorm, gmed[i], 100));
		if (bad[i])
			continue;
		if (x[i].has_loss)
			win_add(&lw, x[i].loss);
		if (x[i].has_gnorm)
			win_add(&gw, x[i].gnorm);
	}
}

static int
nonfinite(const struct diag_loss *x)
{
	return (x->has_loss && !isfinite(x->loss)) ||
	    (x->has_gnorm && !isfinite(x->gnorm));
}

/* The latest tenfold jump of a hyperparameter up to index `onset`. */
static void
find_jump(const struct diag_loss *x, size_t onset, struct diverge *d)
{
	size_t j, lo = onset > JUMP_SPAN ? onset - JUMP_SPAN : 1;
	double a, b, r;
	int k;

	d->jump = -1;
	for (j = onset; j >= lo && j >= 1 && d->jump < 0; j--)
		for (k = 0; k < HP_COUNT; k++) {
			if (!(x[j].has_hp & x[j - 1].has_hp & (1u << k)))
				continue;
			a = x[j - 1].hp[k];
			b = x[j].hp[k];
			if (!(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
				continue;
			r = b / a;
			if (r >= 10 || r <= 0.1) {
				d->jump = k;
				d->jump_at = j;
				d->jump_ratio = r;
				break;
			}
		}
}

int
diverge_find(const struct diag_loss *x, size_t n, struct diverge *d)
{
	unsigned char *bad, *bad_loss;
	double *lmed, *gmed;
	size_t s, i;
	int found = 0;

	if (n < MIN_STRETCH)
		return 0;
	bad = xcalloc(n, 1);
	bad_loss = xcalloc(n, 1);
	lmed = xcalloc(n, sizeof *lmed);
	gmed = xcalloc(n, sizeof *gmed);
	mark(x, n, bad, bad_loss, lmed, gmed);
	for (s = n; s > 0 && bad[s - 1]; s--)
		;
	if (n - s >= MIN_STRETCH) {
		memset(d, 0, sizeof *d);
		d->onset = s;
		for (i = s; i < n && !nonfinite(&x[i]); i++)
			;
		d->fail = i < n ? i : s;
		d->onset_loss = bad_loss[s];
		d->loss_med = lmed[s];
		d->gnorm_med = gmed[s];
		find_jump(x, s, d);
		found = 1;
	}
	free(bad);
	free(bad_loss);
	free(lmed);
	free(gmed);
	return found;
}
