/*
 * diverge.c -- finding where a run's training diverged (diverge.h).
 *
 * One pass marks each iteration bad or good against running medians of
 * the good iterations before it (up to twenty, once five are known), so
 * that what went bad never becomes the norm; the stretch of bad
 * iterations that ends the log is the divergence when it is three
 * iterations or more.  Then the hyperparameters logged in the ten
 * iterations up to it are compared step by step.  The pass is made as
 * the records come (diverge_add()), keeping only the windows, the last
 * eleven records and the stretch's onset, failure and the records before
 * its onset: the series itself is never held.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag/diverge.h"
#include "base/stats.h"
#include "base/util.h"

#define WIN DIVERGE_WIN
#define MIN_KNOWN 5	/* good iterations before a median counts */
#define MIN_STRETCH 3	/* bad iterations to the end that make it */
#define JUMP_SPAN DIVERGE_SPAN

static void
win_add(struct diverge_win *w, double v)
{
	if (w->n == WIN) {
		memmove(w->v, w->v + 1, (WIN - 1) * sizeof *w->v);
		w->n--;
	}
	w->v[w->n++] = v;
}

static double
win_median(const struct diverge_win *w)
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

static int
nonfinite(const struct diag_loss *x)
{
	return (x->has_loss && !isfinite(x->loss)) ||
	    (x->has_gnorm && !isfinite(x->gnorm));
}

/*
 * The latest tenfold jump of a hyperparameter up to the onset: x[k] is
 * record base + k, x[last] the onset's, the records before it as far
 * back as JUMP_SPAN + 1.
 */
static void
find_jump(const struct diag_loss *x, size_t base, size_t last,
    struct diverge *d)
{
	size_t onset = base + last, j, lo = onset > JUMP_SPAN ?
	    onset - JUMP_SPAN : 1;
	double a, b, r;
	int k;

	d->jump = -1;
	for (j = onset; j >= lo && j >= 1 && j - 1 >= base && d->jump < 0;
	    j--)
		for (k = 0; k < HP_COUNT; k++) {
			const struct diag_loss *p = &x[j - 1 - base];
			const struct diag_loss *q = &x[j - base];

			if (!(q->has_hp & p->has_hp & (1u << k)))
				continue;
			a = p->hp[k];
			b = q->hp[k];
			if (!(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b))
				continue;
			r = b / a;
			if (r >= 10 || r <= 0.1) {
				d->jump = k;
				d->jump_at = j;
				d->jump_ratio = r;
				d->jump_rec = *q;
				d->jump_prev = *p;
				break;
			}
		}
}

/* The bad stretch begins at record x (index r->n): what it keeps. */
static void
stretch_begin(struct diverge_run *r, const struct diag_loss *x, int bl,
    double lmed, double gmed)
{
	size_t k, have = r->n < JUMP_SPAN + 1 ? r->n : JUMP_SPAN + 1;

	r->onset = r->n;
	r->onset_loss = bl;
	r->lmed = lmed;
	r->gmed = gmed;
	r->has_fail = 0;
	/* the ring's last `have` records, oldest first, then x */
	for (k = 0; k < have; k++)
		r->pre[k] = r->ring[(r->n - have + k) % (JUMP_SPAN + 1)];
	r->pre[have] = *x;
	r->npre = have + 1;
}

/* The first spike: as loss_jump() in diag.c saw it, one record at a time. */
static void
spike_add(struct diverge_run *r, const struct diag_loss *x)
{
	double tmp[WIN], med;

	if (r->spiked || !x->has_loss)
		return;
	if (isnan(x->loss) || isinf(x->loss)) {
		r->spike_med = r->sw.n > 0 ? stats_median(memcpy(tmp, r->sw.v,
		    r->sw.n * sizeof *tmp), r->sw.n) : NAN;
		r->spiked = 1;
		r->spike = *x;
		return;
	}
	if (r->sw.n >= 5) {
		memcpy(tmp, r->sw.v, r->sw.n * sizeof *tmp);
		med = stats_median(tmp, r->sw.n);
		if (med > 0 && x->loss > 5 * med) {
			r->spike_med = med;
			r->spiked = 1;
			r->spike = *x;
			return;
		}
	}
	win_add(&r->sw, x->loss);
}

/*
 * Mark the record bad or good against the running medians of the good
 * ones before it (so that what went bad never becomes the norm), and
 * follow the bad stretch that ends the series.
 */
void
diverge_add(struct diverge_run *r, const struct diag_loss *x)
{
	double lmed = win_median(&r->lw), gmed = win_median(&r->gw);
	int bl = x->has_loss && bad_value(x->loss, lmed, 5);
	int bad = bl || (x->has_gnorm && bad_value(x->gnorm, gmed, 100));

	spike_add(r, x);
	if (!bad) {
		r->nbad = 0;
		if (x->has_loss)
			win_add(&r->lw, x->loss);
		if (x->has_gnorm)
			win_add(&r->gw, x->gnorm);
	} else {
		if (r->nbad == 0)
			stretch_begin(r, x, bl, lmed, gmed);
		if (!r->has_fail && nonfinite(x)) {
			r->has_fail = 1;
			r->fail = r->n;
			r->failrec = *x;
		}
		r->nbad++;
	}
	r->ring[r->n % (JUMP_SPAN + 1)] = *x;
	r->n++;
}

int
diverge_end(const struct diverge_run *r, struct diverge *d)
{
	if (r->n < MIN_STRETCH || r->nbad < MIN_STRETCH)
		return 0;
	memset(d, 0, sizeof *d);
	d->onset = r->onset;
	d->onset_rec = r->pre[r->npre - 1];
	d->fail = r->has_fail ? r->fail : r->onset;
	d->fail_rec = r->has_fail ? r->failrec : d->onset_rec;
	d->onset_loss = r->onset_loss;
	d->loss_med = r->lmed;
	d->gnorm_med = r->gmed;
	d->after = r->n - r->onset - 1;
	find_jump(r->pre, r->onset - (r->npre - 1), r->npre - 1, d);
	return 1;
}

const struct diag_loss *
diverge_spike(const struct diverge_run *r, double *median)
{
	*median = r->spiked ? r->spike_med : NAN;
	return r->spiked ? &r->spike : NULL;
}

int
diverge_find(const struct diag_loss *x, size_t n, struct diverge *d)
{
	struct diverge_run *r = xcalloc(1, sizeof *r);
	size_t i;
	int found;

	for (i = 0; i < n; i++)
		diverge_add(r, &x[i]);
	found = diverge_end(r, d);
	free(r);
	return found;
}
