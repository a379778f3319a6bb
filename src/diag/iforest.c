/*
 * iforest.c -- isolation trees grown and walked in one pass per tree.
 *
 * A tree is an array of nodes; an internal node holds a feature and a
 * split value, a leaf the number of sample points that reached it.  Trees
 * are grown on a subsample and then every one of the n points walks each
 * tree, so scores and attributions cover all points.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag/iforest.h"
#include "base/rng.h"
#include "base/util.h"

struct itree_node {
	int feature;		/* -1 at a leaf */
	double split;
	size_t left, right;	/* child indices */
	size_t size;		/* sample points at a leaf */
};

struct itree {
	struct itree_node *nodes;
	size_t n, cap;
	const double *x;
	size_t d;
	size_t limit;		/* height limit */
	int *varying;		/* scratch: features that vary in a node */
	struct rng *rng;
};

double
iforest_c(size_t n)
{
	double h = 0;
	size_t i;

	if (n < 2)
		return 0;
	if (n == 2)
		return 1;
	if (n <= 4096) {
		for (i = 1; i < n; i++)
			h += 1.0 / (double)i;
	} else
		h = log((double)(n - 1)) + 0.5772156649015329 +
		    1.0 / (2.0 * (double)(n - 1));
	return 2.0 * h - 2.0 * (double)(n - 1) / (double)n;
}

static size_t
tree_add(struct itree *t)
{
	t->nodes = xgrow(t->nodes, &t->cap, t->n + 1, sizeof *t->nodes);
	memset(&t->nodes[t->n], 0, sizeof t->nodes[t->n]);
	t->nodes[t->n].feature = -1;
	return t->n++;
}

/* Features whose values differ among idx[0..m); their number. */
static size_t
find_varying(struct itree *t, const size_t *idx, size_t m)
{
	size_t f, i, nv = 0;

	for (f = 0; f < t->d; f++) {
		double v0 = t->x[idx[0] * t->d + f];

		for (i = 1; i < m; i++)
			if (t->x[idx[i] * t->d + f] != v0) {
				t->varying[nv++] = (int)f;
				break;
			}
	}
	return nv;
}

/* Grow the subtree for idx[0..m) at `depth`; returns its node index. */
static size_t
tree_grow(struct itree *t, size_t *idx, size_t m, size_t depth)
{
	size_t me = tree_add(t), nv, i, lo = 0, left, right;
	double mn, mx, v, split;
	int f;

	t->nodes[me].size = m;
	if (depth >= t->limit || m <= 1 || (nv = find_varying(t, idx, m)) == 0)
		return me;
	f = t->varying[rng_below(t->rng, nv)];
	mn = mx = t->x[idx[0] * t->d + f];
	for (i = 1; i < m; i++) {
		v = t->x[idx[i] * t->d + f];
		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
	}
	split = rng_range(t->rng, mn, mx);
	if (split <= mn)	/* keep the minimum on the left */
		split = mn + (mx - mn) / 2;
	for (i = 0; i < m; i++)	/* partition: < split to the left */
		if (t->x[idx[i] * t->d + f] < split) {
			size_t tmp = idx[i];

			idx[i] = idx[lo];
			idx[lo++] = tmp;
		}
	if (lo == 0 || lo == m)
		return me;
	/* Growing the children may move t->nodes: store after both. */
	left = tree_grow(t, idx, lo, depth + 1);
	right = tree_grow(t, idx + lo, m - lo, depth + 1);
	t->nodes[me].feature = f;
	t->nodes[me].split = split;
	t->nodes[me].left = left;
	t->nodes[me].right = right;
	return me;
}

/* Path length of row p; attribution added to attr (d entries) if any. */
static double
tree_path(const struct itree *t, const double *row, double *attr)
{
	size_t k = 0, depth = 0;

	while (t->nodes[k].feature >= 0) {
		const struct itree_node *nd = &t->nodes[k];
		size_t next = row[nd->feature] < nd->split ? nd->left : nd->right;

		if (attr != NULL)
			attr[nd->feature] += log2((double)nd->size /
			    (double)t->nodes[next].size) / (double)(depth + 1);
		k = next;
		depth++;
	}
	return (double)depth + iforest_c(t->nodes[k].size);
}

/* Draw psi distinct row indices (partial Fisher-Yates). */
static void
subsample(struct rng *r, size_t *perm, size_t n, size_t psi)
{
	size_t i, j, tmp;

	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = 0; i < psi; i++) {
		j = i + (size_t)rng_below(r, n - i);
		tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
}

void
iforest_score(const double *x, size_t n, size_t d, size_t ntrees,
    uint64_t seed, double *score, double *attr)
{
	struct itree t;
	struct rng r;
	size_t psi = n < 256 ? n : 256, i, k, *perm;
	double *hsum, cpsi;

	if (n == 0)
		return;
	if (attr != NULL)
		memset(attr, 0, n * d * sizeof *attr);
	if (n == 1 || ntrees == 0) {
		for (i = 0; i < n; i++)
			score[i] = 0.5;
		return;
	}
	rng_seed(&r, seed);
	memset(&t, 0, sizeof t);
	t.x = x;
	t.d = d;
	t.rng = &r;
	t.varying = xcalloc(d + 1, sizeof *t.varying);
	t.limit = (size_t)ceil(log2((double)psi));
	perm = xcalloc(n, sizeof *perm);
	hsum = xcalloc(n, sizeof *hsum);
	for (k = 0; k < ntrees; k++) {
		t.n = 0;
		subsample(&r, perm, n, psi);
		tree_grow(&t, perm, psi, 0);
		for (i = 0; i < n; i++)
			hsum[i] += tree_path(&t, x + i * d,
			    attr != NULL ? attr + i * d : NULL);
	}
	cpsi = iforest_c(psi);
	for (i = 0; i < n; i++)
		score[i] = pow(2.0, -(hsum[i] / (double)ntrees) / cpsi);
	if (attr != NULL)
		for (i = 0; i < n * d; i++)
			attr[i] /= (double)ntrees;
	free(t.nodes);
	free(t.varying);
	free(perm);
	free(hsum);
}
