/* base/otable.c — open-addressing hash table with incremental growth (see otable.h).
 *
 * The slot array is allocated with a header in front of it: while a growth is being
 * moved, the header names the old array and how far the move has come. Slots of the
 * old array that were moved or removed hold a tombstone, which a probe steps over, so
 * the chains of members not yet moved stay whole; its empty slots never change, so a
 * probe there still ends. The new array has no tombstones: a removal shifts the rest
 * of its run back.
 */
#include "base/otable.h"
#include "base/alloc.h"

#include <errno.h>

/* Old slots moved per insert or remove. A growth starts at 3/8 of the new capacity
 * and the next is due at 3/4, at least 3/8 of the capacity inserts later; moving the
 * old half at 8 a step takes 1/16 of it, so inserts never catch up with a move. */
#define MOVE_STEP 8
#define MAX_SLOTS (UINT32_C(1) << 31)

static const char tombstone;
#define TOMB ((void *)&tombstone)

struct ohead {
	struct ucg_oslot *old; /* NULL when no move is under way */
	uint32_t old_mask;
	uint32_t cursor; /* old slots below this one have been moved */
	size_t bytes;    /* of the allocation, header included; 0: from ucg_calloc */
	size_t pad;      /* keeps the slots 16-byte aligned */
};

/* Arrays this big or bigger come from ucg_bulk_alloc: a growth then maps its pages
 * in one call instead of faulting them in one by one as the move fills them. */
#define BULK_BYTES (256u << 10)

static struct ohead *head_of(const struct ucg_oslot *s)
{
	return (struct ohead *)s - 1;
}

static struct ucg_oslot *slots_new(size_t n)
{
	size_t bytes = sizeof(struct ohead) + n * sizeof(struct ucg_oslot);
	struct ohead *hd = bytes >= BULK_BYTES ? ucg_bulk_alloc(bytes) : ucg_calloc(1, bytes);

	if (!hd)
		return NULL;
	hd->bytes = bytes >= BULK_BYTES ? bytes : 0;
	return (struct ucg_oslot *)(hd + 1);
}

static void slots_free(struct ucg_oslot *s)
{
	struct ohead *hd = s ? head_of(s) : NULL;

	if (hd && hd->bytes)
		ucg_bulk_free(hd, hd->bytes);
	else if (hd)
		ucg_free(hd);
}

void ucg_otable_init(struct ucg_otable *t)
{
	t->slots = NULL;
	t->mask = 0;
	t->count = 0;
}

void ucg_otable_fini(struct ucg_otable *t)
{
	if (t->slots)
		slots_free(head_of(t->slots)->old);
	slots_free(t->slots);
	ucg_otable_init(t);
}

/* How far s[i] sits from its home slot. */
static uint32_t displacement(const struct ucg_oslot *s, uint32_t mask, uint32_t i)
{
	return (i - (uint32_t)s[i].hash) & mask;
}

/* Into an array with room and no tombstones; ptr is not there yet. Robin Hood: the
 * newcomer takes the slot of the first member that sits closer to its home than the
 * newcomer would, and that member moves on. So a run is sorted by home slot. */
static void put(struct ucg_oslot *s, uint32_t mask, void *ptr, uint64_t hash)
{
	struct ucg_oslot cur = { hash, ptr }, tmp;
	uint32_t i = (uint32_t)hash & mask, dist = 0;

	for (;; i = (i + 1) & mask, dist++) {
		uint32_t d;

		if (!s[i].ptr) {
			s[i] = cur;
			return;
		}
		d = displacement(s, mask, i);
		if (d < dist) {
			tmp = s[i];
			s[i] = cur;
			cur = tmp;
			dist = d;
		}
	}
}

/* The slot holding a member with this hash for which ok(slot) holds, or -1. The
 * probe ends at an empty slot or, runs being sorted by home, at a member closer to
 * its home than this hash's would be. */
static int64_t probe(const struct ucg_oslot *s, uint32_t mask, uint64_t hash,
		     int (*ok)(const struct ucg_oslot *slot, const void *arg), const void *arg)
{
	uint32_t i = (uint32_t)hash & mask, dist = 0;

	for (; s[i].ptr && displacement(s, mask, i) >= dist; i = (i + 1) & mask, dist++)
		if (s[i].hash == hash && s[i].ptr != TOMB && ok(&s[i], arg))
			return i;
	return -1;
}

static void move_some(struct ucg_otable *t, uint32_t n)
{
	struct ohead *hd;

	if (!t->slots || !(hd = head_of(t->slots))->old)
		return;
	for (; n && hd->cursor <= hd->old_mask; n--) {
		struct ucg_oslot *o = &hd->old[hd->cursor++];

		if (o->ptr && o->ptr != TOMB) {
			put(t->slots, t->mask, o->ptr, o->hash);
			o->ptr = TOMB;
		}
	}
	if (hd->cursor > hd->old_mask) {
		slots_free(hd->old);
		hd->old = NULL;
		hd->old_mask = 0;
		hd->cursor = 0;
	}
}

int ucg_otable_reserve(struct ucg_otable *t)
{
	uint64_t cap = t->slots ? (uint64_t)t->mask + 1 : 0, ncap;
	struct ucg_oslot *ns;

	if (((uint64_t)t->count + 1) * 4 <= cap * 3)
		return 0;
	if (cap >= MAX_SLOTS)
		return -ENOMEM;
	ncap = cap ? cap * 2 : 8;
	ns = slots_new(ncap);
	if (!ns)
		return -ENOMEM;
	if (t->slots) {
		struct ohead *hd = head_of(ns);

		/* A move still under way (removes between inserts can stretch one out)
		 * finishes first: only one old array at a time. */
		move_some(t, UINT32_MAX);
		hd->old = t->slots;
		hd->old_mask = t->mask;
		hd->cursor = 0;
	}
	t->slots = ns;
	t->mask = (uint32_t)(ncap - 1);
	return 0;
}

int ucg_otable_insert(struct ucg_otable *t, void *ptr, uint64_t hash)
{
	int r = ucg_otable_reserve(t);

	if (r < 0)
		return r;
	move_some(t, MOVE_STEP);
	put(t->slots, t->mask, ptr, hash);
	t->count++;
	return 0;
}

/* Empties s[i]: the rest of the run moves back one slot, up to its end or to a
 * member already at home (runs are sorted by home, so none after it may move). A
 * scan to the end of the run would make removal from one long run quadratic, and
 * consecutive serials (engine/cgroup.c) make exactly such a run. */
static void shift_out(struct ucg_oslot *s, uint32_t mask, uint32_t i)
{
	uint32_t j;

	for (j = (i + 1) & mask; s[j].ptr && displacement(s, mask, j); j = (j + 1) & mask) {
		s[i] = s[j];
		i = j;
	}
	s[i].ptr = NULL;
	s[i].hash = 0;
}

static int same_ptr(const struct ucg_oslot *slot, const void *ptr)
{
	return slot->ptr == ptr;
}

void ucg_otable_remove(struct ucg_otable *t, const void *ptr, uint64_t hash)
{
	struct ohead *hd;
	int64_t i;

	if (!t->slots)
		return;
	i = probe(t->slots, t->mask, hash, same_ptr, ptr);
	if (i >= 0) {
		shift_out(t->slots, t->mask, (uint32_t)i);
		t->count--;
	} else if ((hd = head_of(t->slots))->old) {
		/* The old array keeps its places: a tombstone, no shifting. */
		i = probe(hd->old, hd->old_mask, hash, same_ptr, ptr);
		if (i >= 0) {
			hd->old[i].ptr = TOMB;
			t->count--;
		}
	}
	move_some(t, MOVE_STEP);
}

struct match_arg {
	ucg_omatch_fn match;
	const void *key;
};

static int matches(const struct ucg_oslot *slot, const void *arg)
{
	const struct match_arg *m = arg;

	return m->match(slot->ptr, m->key);
}

void *ucg_otable_find(const struct ucg_otable *t, uint64_t hash, ucg_omatch_fn match,
		      const void *key)
{
	struct match_arg m = { match, key };
	const struct ohead *hd;
	int64_t i;

	if (!t->slots)
		return NULL;
	i = probe(t->slots, t->mask, hash, matches, &m);
	if (i >= 0)
		return t->slots[i].ptr;
	hd = head_of(t->slots);
	if (!hd->old)
		return NULL;
	i = probe(hd->old, hd->old_mask, hash, matches, &m);
	return i >= 0 ? hd->old[i].ptr : NULL;
}

static int each_in(const struct ucg_oslot *s, uint64_t n, int (*fn)(void *member, void *ctx),
		   void *ctx)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		if (s[i].ptr && s[i].ptr != TOMB) {
			int r = fn(s[i].ptr, ctx);

			if (r)
				return r;
		}
	}
	return 0;
}

int ucg_otable_each(const struct ucg_otable *t, int (*fn)(void *member, void *ctx), void *ctx)
{
	const struct ohead *hd;
	int r;

	if (!t->slots)
		return 0;
	r = each_in(t->slots, (uint64_t)t->mask + 1, fn, ctx);
	hd = head_of(t->slots);
	if (!r && hd->old)
		r = each_in(hd->old, (uint64_t)hd->old_mask + 1, fn, ctx);
	return r;
}
