/* controllers/counter.c — a hierarchical resource counter, after the kernel's
 * mm/page_counter.c model.
 *
 * Model. Each cgroup that accounts a resource has one counter; counters form the same
 * tree as the cgroups. usage(c) is the sum of what was charged at c and below, so a
 * charge walks from c to the root adding n at every level and must respect every
 * level's max. The walk is bottom-up and level by level: if level k refuses, levels
 * 0..k-1 have already been charged and are rolled back, and only level k counts the
 * failure (failcnt), because the limit that was hit is its own. The watermark of each
 * level is raised as soon as that level is charged and is not lowered by the
 * rollback; the kernel does the same and it is visible (pids.peak above an
 * ancestor's pids.max).
 *
 * Limits. A charge fails when usage + n > max. Setting max below the current usage
 * fails with EBUSY; the memory controller first reclaims, and pids, whose limit may be
 * lower than its count, bypasses the check.
 *
 * Limits of this model: single-threaded (the engine serialises everything), 64-bit
 * unsigned units, no protection (min/low) tracking — v1 has no memory.min/low.
 */
#include "controllers/counter.h"

#include <errno.h>
#include <stddef.h>

void ucg_counter_init(struct ucg_counter *c, struct ucg_counter *parent, uint64_t max)
{
	c->usage = 0;
	c->max = max;
	c->watermark = 0;
	c->failcnt = 0;
	c->parent = parent;
}

int ucg_counter_try_charge(struct ucg_counter *c, uint64_t n, struct ucg_counter **ret_failed)
{
	struct ucg_counter *it, *failed = NULL;

	for (it = c; it; it = it->parent) {
		/* usage + n > max, written so that it cannot overflow */
		if (n > it->max || it->usage > it->max - n) {
			failed = it;
			break;
		}
		it->usage += n;
		if (it->usage > it->watermark)
			it->watermark = it->usage;
	}
	if (!failed)
		return 0;
	failed->failcnt++;
	for (it = c; it != failed; it = it->parent)
		it->usage -= n;
	if (ret_failed)
		*ret_failed = failed;
	return -ENOMEM;
}

void ucg_counter_charge(struct ucg_counter *c, uint64_t n)
{
	for (struct ucg_counter *it = c; it; it = it->parent) {
		it->usage = it->usage > UINT64_MAX - n ? UINT64_MAX : it->usage + n;
		if (it->usage > it->watermark)
			it->watermark = it->usage;
	}
}

int ucg_counter_uncharge(struct ucg_counter *c, uint64_t n)
{
	int ret = 0;

	for (struct ucg_counter *it = c; it; it = it->parent) {
		if (it->usage < n) {
			it->usage = 0;
			ret = -ERANGE;
		} else {
			it->usage -= n;
		}
	}
	return ret;
}

int ucg_counter_set_max(struct ucg_counter *c, uint64_t max)
{
	if (c->usage > max)
		return -EBUSY;
	c->max = max;
	return 0;
}

void ucg_counter_set_max_unchecked(struct ucg_counter *c, uint64_t max)
{
	c->max = max;
}

void ucg_counter_reset_watermark(struct ucg_counter *c)
{
	c->watermark = c->usage;
}

void ucg_counter_reset_failcnt(struct ucg_counter *c)
{
	c->failcnt = 0;
}

uint64_t ucg_counter_hierarchical_max(const struct ucg_counter *c)
{
	uint64_t m = UINT64_MAX;

	for (const struct ucg_counter *it = c; it; it = it->parent)
		if (it->max < m)
			m = it->max;
	return m;
}
