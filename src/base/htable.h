/* base/htable.h — an intrusive chained hash table.
 *
 * Members embed a struct ucg_hnode and carry their own key; the caller computes the
 * hash and supplies an equality callback on lookup. The table grows (doubling) when
 * the load passes 1, so lookups stay O(1) on average. Growth may fail with -ENOMEM,
 * in which case the insert fails and the table is unchanged.
 */
#ifndef UCG_BASE_HTABLE_H
#define UCG_BASE_HTABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ucg_hnode {
	struct ucg_hnode *next;
	uint64_t hash;
};

struct ucg_htable {
	struct ucg_hnode **buckets;
	/* 32 bits each: every cgroup embeds a table of its children, and a million
	 * cgroups are the scale the engine is measured at (bench_engine's scale.*). */
	uint32_t nbuckets; /* a power of two, 0 before the first insert */
	uint32_t count;
};

typedef int (*ucg_hmatch_fn)(const struct ucg_hnode *node, const void *key);

void ucg_htable_init(struct ucg_htable *t);
/* Frees the bucket array only; members belong to the caller. */
void ucg_htable_fini(struct ucg_htable *t);
/* Makes room for one more entry (may allocate): call before a change that must not
 * fail half-way, then ucg_htable_insert cannot fail. */
int ucg_htable_reserve(struct ucg_htable *t);
int ucg_htable_insert(struct ucg_htable *t, struct ucg_hnode *n, uint64_t hash);
void ucg_htable_remove(struct ucg_htable *t, struct ucg_hnode *n);
struct ucg_hnode *ucg_htable_find(const struct ucg_htable *t, uint64_t hash,
				  ucg_hmatch_fn match, const void *key);
/* Visits every member; fn may not modify the table. Stops when fn returns non-zero. */
int ucg_htable_each(const struct ucg_htable *t, int (*fn)(struct ucg_hnode *n, void *ctx),
		    void *ctx);

/* The hashes are inline: every name, path and tid lookup starts with one, and a call
 * (two, with the avalanche) cost as much as hashing a short name. */
static inline uint64_t ucg_hash_u64(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	v *= 0xc4ceb9fe1a85ec53ull;
	v ^= v >> 33;
	return v;
}

/* Eight bytes per step (a multiply and a shift each), then the avalanche above: a
 * byte-at-a-time loop was a path lookup's main cost. The length seeds the state so
 * "a" and "a\0" differ. */
static inline uint64_t ucg_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ull ^ seed ^ ((uint64_t)len * 0x9e3779b97f4a7c15ull);
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	if (len) {
		/* the tail gathered in a register: a short memcpy into a zeroed word made
		 * the load after it wait for the store (a stall per short name) */
		size_t i;

		for (w = 0, i = 0; i < len; i++)
			w |= (uint64_t)p[i] << (8 * i);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return ucg_hash_u64(h);
}

#endif
