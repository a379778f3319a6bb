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
};

/*
 * Look for a divergence in x[0 .. n) (one stream's iterations in order).
 * Returns 1 and fills *d when the run diverged, 0 otherwise.
 */
int diverge_find(const struct diag_loss *x, size_t n, struct diverge *d);

#endif
