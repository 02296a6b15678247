/* base/test_otable.c — the open-addressing table against a plain array model: random
 * inserts and removes, hashes that collide on purpose, lookups and walks in the middle
 * of an incremental growth, and allocation failure leaving the table as it was. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/otable.h"
#include "base/prng.h"
#include "harness.h"

#define N 20000

struct item {
	uint64_t key;
	int in; /* the model: a member now */
};

static struct item items[N];

static int key_match(const void *member, const void *key)
{
	return ((const struct item *)member)->key == *(const uint64_t *)key;
}

/* mod > 1 squeezes the hashes into mod values, so runs grow long and wrap around;
 * 1 is the key itself (the engine's serial table: one run as long as the table). */
static uint64_t hash_of(uint64_t key, uint64_t mod)
{
	if (mod == 1)
		return key;
	return mod ? key % mod : key * 0x9e3779b97f4a7c15ull;
}

static int count_one(void *member, void *ctx)
{
	struct item *it = member;

	T_CHECK(it->in);
	(*(size_t *)ctx)++;
	return 0;
}

/* Every member is looked up, and the absent ones are not found -- but with hashes
 * squeezed into a few values (mod > 1) a lookup walks a run of hundreds of slots,
 * so there each call looks up an eighth of them, a different eighth each time (under
 * the sanitizer the full check took 45 s). The walk and the count see them all. */
static void check_all(const struct ucg_otable *t, uint64_t mod, size_t want)
{
	static size_t calls;
	size_t i, seen = 0, bad = 0, stride = mod > 1 ? 8 : 1;

	for (i = calls++ % stride; i < N; i += stride) {
		void *f = ucg_otable_find(t, hash_of(items[i].key, mod), key_match, &items[i].key);

		if (f != (items[i].in ? &items[i] : NULL))
			bad++;
	}
	T_EQ_INT(bad, 0);
	ucg_otable_each(t, count_one, &seen);
	T_EQ_INT(seen, want);
	T_EQ_INT(t->count, want);
}

static void churn(uint64_t mod, uint64_t seed)
{
	struct ucg_otable t;
	struct ucg_prng rng;
	size_t i, live = 0, step;

	ucg_prng_seed(&rng, seed);
	ucg_otable_init(&t);
	for (i = 0; i < N; i++) {
		items[i].key = mod == 1 ? i : i * 7919 + 1;
		items[i].in = 0;
	}
	/* Grow through every size up to N, checking in the middle of the moves too. */
	for (i = 0; i < N; i++) {
		T_EQ_INT(ucg_otable_insert(&t, &items[i], hash_of(items[i].key, mod)), 0);
		items[i].in = 1;
		live++;
		if ((i & (i - 1)) == 0 || i % 977 == 0)
			check_all(&t, mod, live);
	}
	/* Random removes and re-inserts, some during moves (growth after a dip). */
	for (step = 0; step < 4 * N; step++) {
		struct item *it = &items[ucg_prng_below(&rng, N)];

		if (it->in) {
			ucg_otable_remove(&t, it, hash_of(it->key, mod));
			it->in = 0;
			live--;
		} else {
			T_EQ_INT(ucg_otable_insert(&t, it, hash_of(it->key, mod)), 0);
			it->in = 1;
			live++;
		}
		if (step % 4999 == 0)
			check_all(&t, mod, live);
	}
	check_all(&t, mod, live);
	/* Empty it; a removed pointer is no longer found, a stranger is ignored. */
	for (i = 0; i < N; i++) {
		if (items[i].in)
			ucg_otable_remove(&t, &items[i], hash_of(items[i].key, mod));
		items[i].in = 0;
	}
	ucg_otable_remove(&t, &items[0], hash_of(items[0].key, mod));
	check_all(&t, mod, 0);
	ucg_otable_fini(&t);
}

static void test_spread_hashes(void)
{
	churn(0, 1);
}

static void test_colliding_hashes(void)
{
	churn(61, 2); /* 61 hash values for 20,000 members: runs wrap the array */
}

static void test_identity_hashes(void)
{
	churn(1, 3);
}

static void test_equal_hashes(void)
{
	struct ucg_otable t;
	size_t i;

	/* Members whose hashes are all equal are told apart by the match callback. */
	ucg_otable_init(&t);
	for (i = 0; i < 100; i++) {
		items[i].key = i;
		items[i].in = 1;
		T_EQ_INT(ucg_otable_insert(&t, &items[i], 42), 0);
	}
	for (i = 0; i < 100; i++)
		T_CHECK(ucg_otable_find(&t, 42, key_match, &items[i].key) == &items[i]);
	for (i = 0; i < 100; i += 2)
		ucg_otable_remove(&t, &items[i], 42);
	for (i = 0; i < 100; i++)
		T_CHECK(ucg_otable_find(&t, 42, key_match, &items[i].key) ==
			(i % 2 ? &items[i] : NULL));
	T_EQ_INT(t.count, 50);
	ucg_otable_fini(&t);
}

/* Growth that cannot allocate fails the insert and changes nothing; after a reserve
 * that succeeded, the insert cannot fail. */
static void test_enomem(void)
{
	struct ucg_otable t;
	size_t i, n = 0;

	ucg_otable_init(&t);
	for (i = 0; i < 1000; i++) {
		items[i].key = i;
		ucg_alloc_fail_after(0);
		if (ucg_otable_insert(&t, &items[i], hash_of(i, 0)) == 0) {
			ucg_alloc_fail_after(-1);
			n++;
			continue;
		}
		ucg_alloc_fail_after(-1);
		T_EQ_INT(t.count, n);
		T_EQ_INT(ucg_otable_reserve(&t), 0);
		ucg_alloc_fail_after(0);
		T_EQ_INT(ucg_otable_insert(&t, &items[i], hash_of(i, 0)), 0);
		ucg_alloc_fail_after(-1);
		n++;
	}
	for (i = 0; i < 1000; i++)
		T_CHECK(ucg_otable_find(&t, hash_of(i, 0), key_match, &items[i].key) == &items[i]);
	T_EQ_INT(t.count, 1000);
	ucg_otable_fini(&t);
}

int main(void)
{
	T_RUN(test_spread_hashes);
	T_RUN(test_colliding_hashes);
	T_RUN(test_identity_hashes);
	T_RUN(test_equal_hashes);
	T_RUN(test_enomem);
	return t_done();
}
