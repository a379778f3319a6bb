/*
 * dtw.h -- similarity of event sequences and anomalous iterations.
 *
 * Each iteration of a stream is the sequence of template ids logged in it.
 * Two sequences are compared by dynamic time warping with a 0/1 local
 * cost (0 when the ids are equal) inside a Sakoe-Chiba band, normalised
 * by the longer length, so similarity = 1 - distance / max(|a|, |b|) lies
 * in [0, 1] and identical sequences score 1.
 */
#ifndef TS_DTW_H
#define TS_DTW_H

#include <stddef.h>
#include <stdint.h>

/*
 * Similarity of a[0..na) and b[0..nb) in [0, 1].  `band` is the half
 * width of the Sakoe-Chiba band (widened to |na - nb| so a path exists);
 * 0 means no band.  Two empty sequences are identical (1); one empty
 * sequence against a non-empty one scores 0.
 */
double dtw_similarity(const uint32_t *a, size_t na, const uint32_t *b,
    size_t nb, size_t band);

/*
 * Score n iterations in order: score[i] is the mean similarity of
 * sequence i to the (up to) `window` sequences before it, best[i] the
 * largest of them (best may be NULL).  The first iteration has nothing to
 * compare with and scores 1.
 */
void dtw_iter_scores(const uint32_t *const *seqs, const size_t *lens,
    size_t n, size_t window, size_t band, double *score, double *best);

/*
 * Flag anomalous iterations: score[i] < mean - 3 sd over iterations 1..n-1
 * (three-sigma rule), or, since three sigma can never be exceeded among
 * ten or fewer points, a robust z-score below -3 (median/MAD); in both
 * cases only when no iteration of the window was similar (best[i] < 0.9,
 * so periodic events such as checkpoints are not flagged).  best may be
 * NULL.  Sets flags[i] to 0/1 and returns the number flagged.
 */
size_t dtw_flag(const double *score, const double *best, size_t n,
    int *flags);

/*
 * dtw_flag() for a series seen once, in order, and not kept: the scores
 * of iterations 1..n-1 go into a bag (base/stats.h); dtw_flag_init()
 * takes the three-sigma and robust lines from it, and dtw_flagged() then
 * says whether an iteration with that score and best would be flagged.
 */
struct dtw_flagger {
	int usable;		/* at least two iterations */
	double mean, sd, z0, z1;
};

struct stats_bag;
void dtw_flag_init(struct dtw_flagger *fl, const struct stats_bag *scores);
int dtw_flagged(const struct dtw_flagger *fl, double score, double best);

#endif
