/*
 * iforest.h -- isolation forest (Liu, Ting and Zhou, 2008) with per-feature
 * attribution.
 *
 * Fit and score on the same points (transductive): each of `ntrees` trees
 * is grown on a subsample of psi = min(256, n) points drawn without
 * replacement, to height limit ceil(log2 psi), splitting on a random
 * feature (among those that still vary in the node) at a uniform random
 * value between its minimum and maximum.  A point's path length is its
 * depth plus c(size) at a leaf that holds more than one point; the score
 * is 2^(-E[h] / c(psi)), in (0, 1], higher meaning more isolated.
 * Deterministic for a given seed (src/rng.h).
 */
#ifndef TS_IFOREST_H
#define TS_IFOREST_H

#include <stddef.h>
#include <stdint.h>

/*
 * Average path length of an unsuccessful search in a binary search tree
 * of n points: 2 H(n - 1) - 2 (n - 1) / n, with c(2) = 1, c(n < 2) = 0.
 */
double iforest_c(size_t n);

/*
 * Score the n points of x (row-major, n rows of d features) into score[n].
 * When attr is not NULL it receives n * d attributions: for each point,
 * how much each feature served to isolate it, as the sum over the splits
 * on its paths of log2(points in the node / points in the child it goes
 * to) / (depth + 1), averaged over the trees: a split that cuts the point
 * off from most of its peers near the root counts most, an even split
 * deep down little.  n == 0 does nothing; n == 1 scores 0.5.
 */
void iforest_score(const double *x, size_t n, size_t d, size_t ntrees,
    uint64_t seed, double *score, double *attr);

#endif
