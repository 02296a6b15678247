/* controllers/counter.h — the hierarchical counter shared by memory, memsw, hugetlb
 * and pids.
 *
 * A counter counts units (pages, huge pages as 4 KiB pages, tasks) against a limit
 * and is linked to its parent's counter, so every charge is also a charge of every
 * ancestor up to the root. See counter.c for the model. Units are plain integers;
 * the caller chooses them and what "unlimited" is (UCG_PAGE_COUNTER_MAX for the
 * memory families, which reads back as MEMMAX).
 *
 * Fields are owned by the controller that embeds the counter and are changed only
 * through these functions, except that pids, whose limit may be set below the
 * current count, stores max with ucg_counter_set_max_unchecked().
 */
#ifndef UCG_CONTROLLERS_COUNTER_H
#define UCG_CONTROLLERS_COUNTER_H

#include "base/memparse.h" /* UCG_PAGE_SIZE */

#include <stdint.h>

/* The kernel's PAGE_COUNTER_MAX, LONG_MAX / PAGE_SIZE: the largest limit a memory
 * counter can hold, and its "unlimited". Times UCG_PAGE_SIZE it is MEMMAX. */
#define UCG_PAGE_COUNTER_MAX ((uint64_t)INT64_MAX / UCG_PAGE_SIZE)
/* MEMMAX, 2^63 - 4096: how an unlimited memory-type counter reads in bytes. */
#define UCG_MEMMAX (UCG_PAGE_COUNTER_MAX * UCG_PAGE_SIZE)

struct ucg_counter {
	uint64_t usage;     /* units charged here and in every descendant */
	uint64_t max;       /* limit: a charge making usage > max fails */
	uint64_t watermark; /* highest usage seen since the last reset (max_usage, peak) */
	uint64_t failcnt;   /* charges refused by this counter's own limit */
	struct ucg_counter *parent; /* NULL at the root; owned by the caller's tree */
};

/* Initialises c with usage, watermark and failcnt 0, limit max, linked to parent
 * (NULL for a root). The parent must outlive c. */
void ucg_counter_init(struct ucg_counter *c, struct ucg_counter *parent, uint64_t max);

/* Charges n units to c and every ancestor. If some counter on the way would exceed
 * its max, everything charged so far is rolled back, that counter's failcnt is
 * increased by one, *ret_failed (if not NULL) is set to it, and -ENOMEM is returned;
 * the caller decides what to report (ENOMEM, EAGAIN for pids, SIGBUS for hugetlb).
 * The counters below the one that refused keep their raised watermark, as in the
 * kernel (pids.peak can exceed an ancestor's max). Returns 0 on success. O(depth). */
int ucg_counter_try_charge(struct ucg_counter *c, uint64_t n, struct ucg_counter **ret_failed);

/* Charges n units to c and every ancestor ignoring limits (pids on attach, forced
 * memory charges). Usage saturates at UINT64_MAX. */
void ucg_counter_charge(struct ucg_counter *c, uint64_t n);

/* Takes n units back from c and every ancestor. Returns 0, or -ERANGE if some level
 * had less than n (a caller bug; that level is clamped to 0, the kernel warns). */
int ucg_counter_uncharge(struct ucg_counter *c, uint64_t n);

/* Sets the limit. Returns -EBUSY if usage is above the new max and changes nothing:
 * lowering memory.limit_in_bytes below usage needs the caller to reclaim (and so
 * uncharge) first and then retry, failing the write with EBUSY when it cannot. */
int ucg_counter_set_max(struct ucg_counter *c, uint64_t max);
/* Sets the limit even below usage (pids.max); new charges then fail. */
void ucg_counter_set_max_unchecked(struct ucg_counter *c, uint64_t max);

/* The write to max_usage_in_bytes: watermark = current usage (not 0). */
void ucg_counter_reset_watermark(struct ucg_counter *c);
/* The write to failcnt: failcnt = 0. */
void ucg_counter_reset_failcnt(struct ucg_counter *c);

/* The smallest max on the path from c to the root: memory.stat's
 * hierarchical_memory_limit (in units). */
uint64_t ucg_counter_hierarchical_max(const struct ucg_counter *c);

#endif
