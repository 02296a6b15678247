/* base/prng.h — a seeded pseudo-random generator: xoshiro256** seeded by splitmix64.
 *
 * The state is a plain struct owned by the caller (no global generator), so two
 * simulations in one process never disturb each other and the same seed always gives
 * the same sequence on every platform (integer arithmetic only; the double helper
 * uses the top 53 bits exactly).
 */
#ifndef UCG_BASE_PRNG_H
#define UCG_BASE_PRNG_H

#include <stdint.h>

struct ucg_prng {
	uint64_t s[4];
};

/* Seeds the generator: the four state words come from splitmix64(seed). */
void ucg_prng_seed(struct ucg_prng *p, uint64_t seed);
/* The next 64 random bits. */
uint64_t ucg_prng_next(struct ucg_prng *p);
/* Uniform in [0, bound) without modulo bias; bound 0 returns 0. */
uint64_t ucg_prng_below(struct ucg_prng *p, uint64_t bound);
/* Uniform in [0, 1). */
double ucg_prng_double(struct ucg_prng *p);
/* One splitmix64 step: advances *state and returns a well-mixed word. */
uint64_t ucg_splitmix64(uint64_t *state);

#endif
