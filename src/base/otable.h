/* base/otable.h — an open-addressing hash table of pointers, each slot holding the
 * member's hash beside it.
 *
 * Made for the cgroup name and serial tables, where a million members in one table is
 * the scale the engine is measured at (bench_engine's scale.*). Three choices follow
 * from that:
 *
 * - A probe compares the hash stored in the slot, so a miss (the usual case for a
 *   mkdir's existence check) touches one cache line of slots and no member. The
 *   chained table it replaces touched a bucket and then every node on the chain.
 * - Linear probing, Robin Hood order (a run is sorted by home slot), deletion by
 *   backward shift: no tombstones, so a table that sees a million mkdir+rmdir pairs
 *   probes no longer than a fresh one, and a probe for an absent member or a removal
 *   stops where the order says the member cannot be, even inside one long run (the
 *   serial table's hash is the serial itself: a million consecutive serials are one
 *   run of a million slots, each member at home).
 * - Growth is incremental. A table that passes 3/4 full allocates one twice its size
 *   and from then on every insert and remove moves a few slots of the old array into
 *   the new one (the old array's moved and removed slots become tombstones so its
 *   probe chains stay whole); lookups try the new array, then the old. No insert pays
 *   for a whole rehash, so there is no pause that grows with the table.
 *
 * The members are the caller's; the table stores their pointers and hashes only. A
 * slot is 16 bytes and the table at most 3/4 full after growth settles, so a member
 * costs 21 to 43 bytes of slots. The table never shrinks (nor did the chained one).
 */
#ifndef UCG_BASE_OTABLE_H
#define UCG_BASE_OTABLE_H

#include <stddef.h>
#include <stdint.h>

struct ucg_oslot {
	uint64_t hash;
	void *ptr; /* NULL: empty */
};

struct ucg_otable {
	/* mask + 1 slots, preceded by a header naming the old array while it is being
	 * moved (otable.c); NULL before the first insert. */
	struct ucg_oslot *slots;
	uint32_t mask;
	uint32_t count; /* members, in either array */
};

typedef int (*ucg_omatch_fn)(const void *member, const void *key);

void ucg_otable_init(struct ucg_otable *t);
/* Frees the slot arrays only; the members belong to the caller. */
void ucg_otable_fini(struct ucg_otable *t);
/* Makes room for one more member (may allocate): call before a change that must not
 * fail half-way; the next ucg_otable_insert then cannot fail. -ENOMEM leaves the
 * table as it was. */
int ucg_otable_reserve(struct ucg_otable *t);
/* Adds ptr (not NULL, not already a member) under hash. 0 or -ENOMEM. */
int ucg_otable_insert(struct ucg_otable *t, void *ptr, uint64_t hash);
/* Removes ptr, inserted under hash; a pointer that is not a member is ignored. */
void ucg_otable_remove(struct ucg_otable *t, const void *ptr, uint64_t hash);
/* The member with this hash for which match(member, key) is non-zero, or NULL. */
void *ucg_otable_find(const struct ucg_otable *t, uint64_t hash, ucg_omatch_fn match,
		      const void *key);
/* Visits every member in no particular order; fn may not modify the table. Stops at,
 * and returns, the first non-zero fn result. */
int ucg_otable_each(const struct ucg_otable *t, int (*fn)(void *member, void *ctx), void *ctx);

#endif
