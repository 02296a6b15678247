/* base/prng.c — xoshiro256** (Blackman and Vigna, 2018) seeded with splitmix64.
 * Written from the published recurrences; see prng.h. */
#include "base/prng.h"

uint64_t ucg_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void ucg_prng_seed(struct ucg_prng *p, uint64_t seed)
{
	uint64_t st = seed;
	int i;

	for (i = 0; i < 4; i++)
		p->s[i] = ucg_splitmix64(&st);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t ucg_prng_next(struct ucg_prng *p)
{
	uint64_t *s = p->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t ucg_prng_below(struct ucg_prng *p, uint64_t bound)
{
	uint64_t threshold, r;

	if (bound == 0)
		return 0;
	/* Reject the low values that would make the modulo uneven. */
	threshold = (0 - bound) % bound;
	do
		r = ucg_prng_next(p);
	while (r < threshold);
	return r % bound;
}

double ucg_prng_double(struct ucg_prng *p)
{
	return (double)(ucg_prng_next(p) >> 11) * (1.0 / 9007199254740992.0);
}
