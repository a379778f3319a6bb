/*
 * dtw.c -- banded DTW over template-id sequences, iteration scoring.
 *
 * The DTW table is kept as two rows, so memory is O(min band, length) and
 * time O(length x band).  Scores follow L4: each iteration against the
 * ones before it in a sliding window, then a three-sigma rule over all
 * iterations, made robust for short runs.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag/dtw.h"
#include "base/stats.h"
#include "base/util.h"

/* Rows of sequences shorter than this live on the stack. */
#define DTW_STACK 128

double
dtw_similarity(const uint32_t *a, size_t na, const uint32_t *b, size_t nb,
    size_t band)
{
	double rows[2 * DTW_STACK], *prev, *cur, *tmp, d, best;
	size_t i, j, lo, hi, w, m = na > nb ? na : nb;

	if (na == 0 && nb == 0)
		return 1;
	if (na == 0 || nb == 0)
		return 0;
	if (na == nb && memcmp(a, b, na * sizeof *a) == 0)
		return 1;	/* the common case: a steady iteration */
	w = na > nb ? na - nb : nb - na;
	if (band == 0 || band < w)
		band = band == 0 ? m : w;
	/* iterations are short: their two rows fit on the stack */
	if (nb < DTW_STACK) {
		prev = rows;
		cur = rows + DTW_STACK;
	} else {
		prev = xcalloc(nb + 1, sizeof *prev);
		cur = xcalloc(nb + 1, sizeof *cur);
	}
	for (j = 0; j <= nb; j++)
		prev[j] = INFINITY;
	prev[0] = 0;
	for (i = 1; i <= na; i++) {
		for (j = 0; j <= nb; j++)
			cur[j] = INFINITY;
		lo = i > band ? i - band : 1;
		hi = i + band < nb ? i + band : nb;
		for (j = lo; j <= hi; j++) {
			best = prev[j - 1];
			if (prev[j] < best)
				best = prev[j];
			if (cur[j - 1] < best)
				best = cur[j - 1];
			cur[j] = best + (a[i - 1] == b[j - 1] ? 0 : 1);
		}
		tmp = prev;
		prev = cur;
		cur = tmp;
	}
	d = prev[nb];
	if (nb >= DTW_STACK) {
		free(prev);
		free(cur);
	}
	if (!isfinite(d) || d > (double)m)
		d = (double)m;
	return 1.0 - d / (double)m;
}

void
dtw_iter_scores(const uint32_t *const *seqs, const size_t *lens, size_t n,
    size_t window, size_t band, double *score, double *best)
{
	size_t i, k, from;
	double s, sum, mx;

	for (i = 0; i < n; i++) {
		from = i > window ? i - window : 0;
		sum = 0;
		mx = 0;
		for (k = from; k < i; k++) {
			s = dtw_similarity(seqs[i], lens[i], seqs[k], lens[k],
			    band);
			sum += s;
			mx = s > mx ? s : mx;
		}
		score[i] = i == 0 ? 1 : sum / (double)(i - from);
		if (best != NULL)
			best[i] = i == 0 ? 1 : mx;
	}
}

/*
 * stats_robust_z(x, v, n, floor) is z0 + x * (z1 - z0); compute z0 and z1
 * with one median and one MAD instead of two of each per point.
 */
static void
robust_line(double med, double scale, double *z0, double *z1)
{
	*z0 = -med / scale;
	*z1 = (1 - med) / scale;
}

int
dtw_flagged(const struct dtw_flagger *fl, double score, double best)
{
	double z = fl->z0 + score * (fl->z1 - fl->z0);

	if (!fl->usable || (!isnan(best) && best >= 0.9))
		return 0;
	return score < fl->mean - 3 * fl->sd || (z < -3 && score < fl->mean);
}

size_t
dtw_flag(const double *score, const double *best, size_t n, int *flags)
{
	struct dtw_flagger fl;
	double med, scale;
	size_t i, nflag = 0;

	memset(flags, 0, n * sizeof *flags);
	if (n < 2)
		return 0;
	fl.usable = 1;
	fl.mean = stats_mean(score + 1, n - 1);
	fl.sd = stats_sd(score + 1, n - 1);
	scale = stats_robust_scale(score + 1, n - 1, 0.05, &med);
	robust_line(med, scale, &fl.z0, &fl.z1);
	for (i = 1; i < n; i++)
		if (dtw_flagged(&fl, score[i], best != NULL ? best[i] : NAN)) {
			flags[i] = 1;
			nflag++;
		}
	return nflag;
}

void
dtw_flag_init(struct dtw_flagger *fl, const struct stats_bag *scores)
{
	double med, scale;

	memset(fl, 0, sizeof *fl);
	if (scores->total < 1)
		return;		/* fewer than two iterations */
	fl->usable = 1;
	fl->mean = stats_bag_mean(scores);
	fl->sd = stats_bag_sd(scores);
	scale = stats_bag_robust_scale(scores, 0.05, &med);
	robust_line(med, scale, &fl->z0, &fl->z1);
}
