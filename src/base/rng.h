/*
 * rng.h -- a small, fast, seedable pseudo-random generator (xoshiro256**
 * seeded through splitmix64).  Deterministic across platforms: the
 * simulator and the isolation forest depend on that for reproducible
 * output.
 */
#ifndef TS_RNG_H
#define TS_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform integer in [0, n); n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Uniform double in [0, 1). */
double rng_unit(struct rng *r);
/* Uniform double in [lo, hi). */
double rng_range(struct rng *r, double lo, double hi);
/* Standard normal (Box-Muller, no cached second value: stays stateless). */
double rng_normal(struct rng *r);

#endif
