/*
 * diverge.h -- a run whose training diverged.
 *
 * The loss and grad norm its iteration lines logged (struct diag_loss, in
 * iteration order) say whether the training went wrong for good: from
 * some iteration on, to the end of the log, each one is non-finite or
 * exploded (the loss over five times, the grad norm over a hundred times
 * the running median of the good iterations before).  A spike that comes
 * back down (warm-up) or one skipped step (an fp16 loss-scale backoff) is
 * no divergence.  The failure iteration is the first of that stretch
 * whose loss or grad norm is not finite, else its first.  A logged
 * hyperparameter that jumped tenfold or more (up or down) in the ten
 * iterations up to the stretch is what changed just before it.
 *
 * The series is read as it streams by (struct diverge_run): what the
 * decision needs is a window of recent good values, the last few
 * records and the bad stretch going on so far, so a run of any length
 * takes the same room.  So is the first spike a run that did not go on
 * to the end shows (diverge_spike()).
 */
#ifndef TS_DIVERGE_H
#define TS_DIVERGE_H

#include <stddef.h>

#include "diag/diag.h"

struct diverge {
	size_t onset;		/* index of the stretch's first iteration */
	size_t fail;		/* index of the failure iteration */
	int onset_loss;		/* the loss (1) or the grad norm (0) went bad
				   first */
	double loss_med;	/* running medians before the onset, NAN */
	double gnorm_med;
	int jump;		/* enum stage_hparam that jumped, -1 none */
	size_t jump_at;		/* index of the iteration it jumped in */
	double jump_ratio;	/* new value / old */
	/* the records named above, copied: */
	struct diag_loss onset_rec, fail_rec;
	struct diag_loss jump_rec, jump_prev;	/* jump_at's and the one
						   before it (jump >= 0) */
	size_t after;		/* records after the onset, to the end */
};

#define DIVERGE_WIN 20		/* good values a running median covers */
#define DIVERGE_SPAN 10		/* iterations before it a jump is looked for */

/* A window of recent values (the last DIVERGE_WIN). */
struct diverge_win {
	double v[DIVERGE_WIN];
	size_t n;
};

/* The loss series folded as it streams by; zero it to begin. */
struct diverge_run {
	size_t n;			/* records seen */
	struct diverge_win lw, gw;	/* the good losses, grad norms */
	struct diag_loss ring[DIVERGE_SPAN + 1];	/* the last records */
	/* the bad stretch that ends the series so far (nbad 0: none) */
	size_t nbad, onset, fail;
	int onset_loss, has_fail;
	double lmed, gmed;		/* the medians before its onset */
	struct diag_loss pre[DIVERGE_SPAN + 2];	/* the records up to its
						   onset (the last) */
	size_t npre;
	struct diag_loss failrec;
	/* the first spike (diverge_spike()) */
	struct diverge_win sw;		/* the losses before it */
	int spiked;
	struct diag_loss spike;
	double spike_med;
};

/* Add record *x, the next of the series, to r. */
void diverge_add(struct diverge_run *r, const struct diag_loss *x);
/*
 * Did the series r has seen diverge?  Returns 1 and fills *d (indices
 * into the series, and copies of the records they name), or 0.
 */
int diverge_end(const struct diverge_run *r, struct diverge *d);
/*
 * The first record whose loss is NaN or infinite, or more than five
 * times the median of the (up to twenty) losses before it, once five
 * are known; *median is that median (NAN: none before).  NULL: none.
 * Points into r.
 */
const struct diag_loss *diverge_spike(const struct diverge_run *r,
    double *median);
/*
 * Look for a divergence in x[0 .. n) (one stream's iterations in order):
 * diverge_add() of each, then diverge_end().
 */
int diverge_find(const struct diag_loss *x, size_t n, struct diverge *d);

#endif
