/* sim/mem_memcg.c — the memory model's charging and reclaim: each page charged to a
 * memory cgroup through the controller's charge loop (failcnt as the kernel counts
 * it), memcg reclaim of a refusing cgroup's subtree (clean page cache, anon to swap,
 * writeback of dirty pages and waiting on it), global reclaim when RAM runs out
 * (soft-limit first, then LRU order), and the OOM killer. The rules and their limits
 * are described at the top of mem.c ("Charging", "OOM", "Global pressure").
 */
#include "sim/mem_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

void sim_memcg_add(struct sim_cg *cg, int64_t pages)
{
	for (; cg; cg = cg->parent) {
		cg->mem_pages += pages;
		if (cg->mem_pages > cg->mem_peak)
			cg->mem_peak = cg->mem_pages;
	}
}

static struct sim_task *largest_in(struct sim *s, struct sim_cg *top)
{
	struct sim_task *best = NULL;
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];

		if (!t->alive || t->kthread)
			continue;
		if (top && !sim_cg_is_under(sim_task_cg(s, t, UCG_SS_memory), top))
			continue;
		if (!best || t->anon_pages > best->anon_pages)
			best = t;
	}
	return best;
}

void sim_oom_kill(struct sim *s, struct sim_task *t, struct sim_cg *where, int line)
{
	(void)line;
	ucg_buf_puts(&s->log, "[");
	sim_format_time(s->now, &s->log);
	sim_logf(s, "] oom-kill: %s (tid %d, %" PRIu64 " anon pages)", t->name, t->tid,
		 t->anon_pages);
	if (where) {
		sim_logf(s, " by %s:%s\n", where->hier->name, sim_cg_path(where));
		where->oom_kills++;
	} else {
		ucg_buf_puts(&s->log, " by global memory pressure\n");
		s->global_oom_kills++;
	}
	sim_task_exit(s, t);
}

/* Lists t in s->anon_tasks, in creation order (a task's first anon pages usually
 * come after those of every task listed, so this is an append). */
static void anon_list(struct sim *s, struct sim_task *t)
{
	size_t j;

	if (s->nanon_tasks == s->canon_tasks) {
		size_t n = s->canon_tasks ? 2 * s->canon_tasks : 16;
		struct sim_task **v = ucg_realloc(s->anon_tasks, n * sizeof(*v));

		if (!v) {
			s->anon_list_lost = true;
			return;
		}
		s->anon_tasks = v;
		s->canon_tasks = n;
	}
	for (j = s->nanon_tasks; j > 0 && s->anon_tasks[j - 1]->idx > t->idx; j--)
		s->anon_tasks[j] = s->anon_tasks[j - 1];
	s->anon_tasks[j] = t;
	s->nanon_tasks++;
	t->anon_listed = true;
}

/* Books n anon pages charged to cg on t. */
void sim_memcg_anon_record(struct sim *s, struct sim_task *t, struct sim_cg *cg, uint64_t n)
{
	int i;

	if (!t->anon_listed)
		anon_list(s, t);
	for (i = 0; i < 4; i++)
		if (t->anon_cg[i] == cg || (!t->anon_cg[i] && !t->anon_n[i]) || i == 3)
			break;
	/* more than four cgroups: the last slot takes the rest (the total stays exact) */
	t->anon_cg[i] = cg;
	t->anon_n[i] += n;
	t->anon_pages += n;
	s->anon_used += n;
	sim_memcg_add(cg, (int64_t)n);
}

/* memory.swappiness of cg (60 once removed). */
static unsigned cg_swappiness(struct sim_cg *cg)
{
	struct ucg_memory_state ms;

	return cg->ucg && ucg_memory_get(cg->ucg, &ms) == 0 ? ms.swappiness : 60;
}

/* Moves up to want resident anon pages charged under top to swap, task by task (the
 * one with the most resident pages there first: anon LRU order is not modelled).
 * Pages of a memcg with swappiness 0 stay (v1 memcg reclaim does not scan anon
 * then). Returns the pages swapped. Only the tasks that ever had anon pages are
 * looked at (s->anon_tasks, in the order of s->tasks, so ties go the same way). */
static uint64_t swap_out(struct sim *s, struct sim_cg *top, uint64_t want)
{
	uint64_t done = 0;

	/* swappiness per cgroup, read once per call */
	struct sim_cg *seen[16];
	unsigned swp[16], nseen = 0, j;

	while (done < want && s->swap_used < s->swap_pages) {
		struct sim_task *best = NULL;
		int bi = -1;
		uint64_t bres = 0, n;
		size_t k, nk = s->anon_list_lost ? s->ntasks : s->nanon_tasks;
		int i;

		for (k = 0; k < nk; k++) {
			struct sim_task *t = s->anon_list_lost ? s->tasks[k] : s->anon_tasks[k];

			if (!t->alive)
				continue;
			for (i = 0; i < 4; i++) {
				struct sim_cg *c = t->anon_cg[i];
				uint64_t res = t->anon_n[i] - t->anon_swap[i];

				unsigned sw = 60;

				if (!c || res <= bres || !sim_cg_is_under(c, top))
					continue;
				for (j = 0; j < nseen && seen[j] != c; j++)
					;
				if (j < nseen) {
					sw = swp[j];
				} else {
					sw = cg_swappiness(c);
					if (nseen < 16) {
						seen[nseen] = c;
						swp[nseen++] = sw;
					}
				}
				if (sw) {
					best = t;
					bi = i;
					bres = res;
				}
			}
		}
		if (!best)
			break;
		n = want - done;
		if (n > bres)
			n = bres;
		if (n > s->swap_pages - s->swap_used)
			n = s->swap_pages - s->swap_used;
		if (!best->anon_cg[bi]->ucg || ucg_memory_swap_out(best->anon_cg[bi]->ucg, n) < 0)
			break;
		best->anon_swap[bi] += n;
		s->anon_used -= n;
		s->swap_used += n;
		sim_memcg_add(best->anon_cg[bi], -(int64_t)n);
		done += n;
	}
	return done;
}

/* Memcg reclaim for a charge refused by top, as v1's try_to_free_mem_cgroup_pages:
 * up to want pages, clean page cache of top's subtree first (oldest first on the
 * LRU), then anon to swap when may_swap; dirty pages found are written back (they
 * cannot be dropped before), and *ret_wait says the charger must wait on that
 * writeback, as v1 memcg reclaim waits on pages under writeback. Returns the pages
 * freed now. */
/* Whether cg or a descendant (a removed one too: its pages keep it as their memcg)
 * has page-cache pages charged; every such page is on the LRU (installed there,
 * taken off only when evicted) */
static bool cache_under(const struct sim_cg *cg)
{
	return cg->cache_tree > 0;
}

/* Whether a page of memcg cg is under top: the walks below meet the pages of one
 * cgroup in runs, so the last answer is kept (*last, *in; the tree does not change
 * during a walk) */
static inline bool under_top(struct sim_cg *cg, struct sim_cg *top, struct sim_cg **last, bool *in)
{
	if (cg != *last) {
		*last = cg;
		*in = cg && sim_cg_is_under(cg, top);
	}
	return *in;
}

/* The memcgs under top (removed ones too: their pages stay charged there) with
 * pages on their act lists; NULL when out of memory (*n 0: an empty array) */
static struct sim_cg **act_lists_under(struct sim *s, struct sim_cg *top, size_t *n)
{
	struct sim_cg **v = ucg_malloc((s->ncgs ? s->ncgs : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < s->ncgs; i++)
		if (s->cgs[i]->act.head != SIM_NO_FRAME && sim_cg_is_under(s->cgs[i], top))
			v[(*n)++] = s->cgs[i];
	return v;
}

/* The oldest page at the lists' heads */
static uint32_t act_lists_first(struct sim *s, struct sim_cg *const *lists, size_t n)
{
	uint32_t best = SIM_NO_FRAME;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t h = lists[i]->act.head;

		if (h != SIM_NO_FRAME && (best == SIM_NO_FRAME ||
					  sim_fr_act(s, h)->lru_seq < sim_fr_act(s, best)->lru_seq))
			best = h;
	}
	return best;
}

static uint64_t memcg_reclaim(struct sim *s, struct sim_cg *top, uint64_t want, bool may_swap,
			      bool *ret_wait)
{
	struct sim_hier *mh = sim_mem_hier(s);
	uint64_t done = 0, scanned = 0, swapped;
	struct sim_cg_run run = { NULL, 0, 0, 0 };
	struct sim_cg *last = NULL, **lists = NULL;
	size_t nlists = 0;
	bool in = false, by_act, own;
	int64_t left;
	uint32_t f, next;

	*ret_wait = false;
	/* the walk stops once it has met every page under top it would act on: the
	 * rest it would pass over */
	left = top->reclaim_tree;
	if (left > 0 && !s->act_on)
		sim_act_start(s); /* without room for it, the walk follows the LRU */
	/* the pages it would act on, in LRU order: top's own act list when no cgroup
	 * under it holds page cache, else the lists of those under it merged; every
	 * page met leaves its list, so each walk starts at the heads (the other
	 * tenants' pages, interleaved in the LRU, are not met at all) */
	by_act = s->act_on;
	own = by_act && top->cache_tree == top->cache_local;
	if (by_act && !own && !(lists = act_lists_under(s, top, &nlists)))
		by_act = false; /* out of memory: the LRU */
	if (own)
		f = top->act.head;
	else
		f = by_act ? act_lists_first(s, lists, nlists) : s->lru.head;
	for (; f != SIM_NO_FRAME && done < want && left > 0; f = next) {
		struct sim_frame *fr = sim_fr(s, f);

		next = own ? sim_act_link(s, f)->next : fr->lru.next;
		if (!under_top(fr->memcg, top, &last, &in) || !sim_reclaim_counted(fr->flags)) {
			if (by_act && !own)
				break; /* never: the lists hold only such pages */
			continue;
		}
		left--;
		if (fr->flags & (SIM_PG_DIRTY | SIM_PG_WRITEBACK)) {
			/* scanned, not freed; once: the kernel activates a dirty page
			 * met by memcg reclaim (PG_reclaim), so it is not met again
			 * round after round while it stays at the LRU head here */
			scanned++; /* counted: not met before */
			sim_cache_scanned_run(s, f, &run);
		} else {
			sim_cache_evict_run(s, f, &run);
			scanned++;
			done++;
		}
		if (by_act && !own)
			next = act_lists_first(s, lists, nlists);
	}
	sim_cg_run_flush(s, &run);
	ucg_free(lists);
	if (done < want && may_swap) {
		/* anon is scanned only where it can go (swappiness > 0, swap left) */
		swapped = swap_out(s, top, want - done);
		done += swapped;
		scanned += swapped;
	}
	if (done < want && cache_under(top) && (s->dirty_on || sim_dirty_list_start(s))) {
		/* what the LRU walk below does, over the dirty pages only: it waits when
		 * a page under top is dirty or under writeback, and starts writeback on
		 * the dirty ones in LRU order while requests may start */
		uint32_t kept = SIM_NO_FRAME; /* the last page visited still dirty */

		*ret_wait = top->unclean_tree > 0;
		for (f = s->dl.head; f != SIM_NO_FRAME && s->flush_inflight < s->flush_max_inflight;
		     f = kept != SIM_NO_FRAME ? sim_dl_link(s, kept)->next : s->dl.head) {
			struct sim_frame *fr = sim_fr(s, f);

			if (under_top(fr->memcg, top, &last, &in))
				sim_writeback_one(s, f); /* f and the pages after it may go */
			if (fr->flags & SIM_PG_DIRTY)
				kept = f;
		}
	} else if (done < want && cache_under(top)) {
		for (f = s->lru.head; f != SIM_NO_FRAME; f = next) {
			struct sim_frame *fr = sim_fr(s, f);

			/* once it waits and no more writeback can start, the rest of the
			 * walk would change nothing */
			if (*ret_wait && s->flush_inflight >= s->flush_max_inflight)
				break;
			next = fr->lru.next;
			if (!under_top(fr->memcg, top, &last, &in))
				continue;
			if (fr->flags & SIM_PG_DIRTY) {
				*ret_wait = true;
				if (s->flush_inflight < s->flush_max_inflight)
					sim_writeback_one(s, f);
			} else if (fr->flags & SIM_PG_WRITEBACK) {
				*ret_wait = true;
			}
		}
	}
	/* memory.pressure_level: the round's efficiency, reported for its target. A
	 * round that waits on writeback is not: the kernel's waits inside the scan and
	 * then reclaims the pages it waited on, an efficiency this model does not see
	 * (the round after the wait reports) */
	if (mh && !*ret_wait)
		ucg_memory_vmpressure(top->ucg, scanned, done, done < want);
	return done;
}

#define MEMCG_CHARGE_BATCH 64 /* the kernel's per-CPU charge batch */
#define MAX_RECLAIM_RETRIES 16
#define RECLAIM_BATCH 32 /* SWAP_CLUSTER_MAX: what memcg reclaim asks for */

/* One kernel charge of n pages (a page fault: n = 1; a page-cache folio: n up to 64)
 * below a margin of 64, the kernel's try_charge_memcg: the batch attempt (64 pages,
 * when n is smaller) and the exact one each count a failure where they are refused;
 * then reclaim (at least 32 pages) and retry; one more retry after draining the
 * per-CPU stocks; free retries while reclaim makes progress (n <= 8); then 16
 * retries; then the OOM killer, and 16 more retries after a kill. Returns 0, -EAGAIN
 * (wait for writeback, then retry), -ENOMEM (refused under oom_kill_disable) or
 * -ESRCH (t was killed). */
static int fault_charge(struct sim *s, struct sim_task *t, struct sim_cg *cg,
			enum ucg_mem_kind kind, uint64_t n)
{
	struct sim_hier *mh = sim_mem_hier(s);
	int retries = MAX_RECLAIM_RETRIES, r;
	bool drained = false, passed_oom = false;

	if (t->mem_waited) {
		/* the kernel waited on writeback inside reclaim, then reclaimed the pages
		 * and retried: no attempt fails in between */
		bool wait;

		t->mem_waited = false;
		memcg_reclaim(s, cg, n > RECLAIM_BATCH ? n : RECLAIM_BATCH, true, &wait);
		drained = true;
	} else if (n < MEMCG_CHARGE_BATCH) {
		/* the batch of 64 does not fit (the caller saw a margin under 64): refused */
		ucg_memory_try_charge(cg->ucg, kind, MEMCG_CHARGE_BATCH, NULL);
	}
	for (;;) {
		struct ucg_charge_result res;
		struct sim_cg *refuser;
		struct sim_task *victim;
		uint64_t reclaimed, margin = 0;
		bool wait;

		memset(&res, 0, sizeof(res));
		r = cg->ucg ? ucg_memory_try_charge(cg->ucg, kind, n, &res) : -ENOENT;
		refuser = r == -ENOMEM ? sim_cg_of(s, res.cgroup) : NULL;
		if (r != -ENOMEM)
			return r;
		if (!refuser)
			refuser = mh->root;
		reclaimed = memcg_reclaim(s, refuser, n > RECLAIM_BATCH ? n : RECLAIM_BATCH,
					  !res.memsw, &wait);
		if (cg->ucg && ucg_memory_margin(cg->ucg, &margin) == 0 && margin >= n)
			continue;
		if (!drained) {
			drained = true;
			continue;
		}
		if (reclaimed && n <= 8) /* PAGE_ALLOC_COSTLY_ORDER: small charges */
			continue;
		if (wait) {
			t->mem_waited = true;
			return -EAGAIN;
		}
		if (retries-- > 0)
			continue;
		if (passed_oom && !t->alive)
			return -ESRCH;
		refuser->mem_refused++;
		if (ucg_memory_oom(refuser->ucg) == 1) {
			ucg_buf_puts(&s->log, "[");
			sim_format_time(s->now, &s->log);
			sim_logf(s, "] %s (tid %d) waits under OOM in %s:%s (oom_kill_disable)\n",
				 t->name, t->tid, mh->name, sim_cg_path(refuser));
			return -ENOMEM;
		}
		victim = largest_in(s, refuser);
		if (!victim)
			victim = t;
		sim_oom_kill(s, victim, refuser, 0);
		if (victim == t)
			return -ESRCH; /* the dying task's charge ends (19 failures per OOM, measured) */
		passed_oom = true;
		retries = MAX_RECLAIM_RETRIES;
	}
}

/* Charges pages of kind to t's memcg the kernel's way: anon as that many page
 * faults of one page each (fault_charge near the limit), page cache as one folio of
 * all the pages (at most 64: one step of a stream). *ret_done: pages charged, all of
 * them on success; on failure anon pages charged stay booked on t, page cache is the
 * caller's to return. Returns 0 or fault_charge's error. *ret_cg is the cgroup
 * charged (NULL without a memory hierarchy). */
int sim_memcg_charge(struct sim *s, struct sim_task *t, enum ucg_mem_kind kind, uint64_t pages,
		     struct sim_cg **ret_cg, uint64_t *ret_done)
{
	struct sim_hier *mh = sim_mem_hier(s);
	struct sim_cg *cg;
	uint64_t done = 0;
	int r = 0;

	*ret_cg = NULL;
	*ret_done = 0;
	if (!mh || pages == 0)
		return 0;
	cg = sim_task_cg(s, t, UCG_SS_memory);
	if (!cg)
		return 0;
	*ret_cg = cg;
	while (done < pages) {
		uint64_t margin = 0, bulk;

		/* while 64 more pages fit, faults take a batch of 64 (one page used, the
		 * rest kept in the per-CPU stock for the next faults): no failure. The
		 * stock is empty when an allocation starts, so batches cover the margin
		 * down to margin mod 64; below that each fault's batch attempt fails. */
		r = cg->ucg ? ucg_memory_margin(cg->ucg, &margin) : -ENOENT;
		if (r < 0)
			break;
		bulk = margin >= MEMCG_CHARGE_BATCH ? margin - margin % MEMCG_CHARGE_BATCH : 0;
		if (bulk > pages - done)
			bulk = pages - done;
		if (kind != UCG_MEM_ANON && bulk < pages)
			bulk = 0; /* a folio is charged whole */
		if (bulk) {
			r = cg->ucg ? ucg_memory_try_charge(cg->ucg, kind, bulk, NULL) : -ENOENT;
			if (r < 0)
				break;
			if (kind == UCG_MEM_ANON)
				sim_memcg_anon_record(s, t, cg, bulk);
			done += bulk;
			continue;
		}
		if (kind != UCG_MEM_ANON) {
			r = fault_charge(s, t, cg, kind, pages);
			if (r == 0)
				done = pages;
			break;
		}
		/* below the batch but above nothing, each fault's batch attempt fails
		 * and its page fits: the controller takes such faults as a run */
		if (!t->mem_waited && cg->ucg) {
			uint64_t run = ucg_memory_fault_run(cg->ucg, kind, pages - done,
							    MEMCG_CHARGE_BATCH);

			if (run) {
				sim_memcg_anon_record(s, t, cg, run);
				done += run;
				continue;
			}
		}
		r = fault_charge(s, t, cg, kind, 1);
		if (r < 0)
			break;
		sim_memcg_anon_record(s, t, cg, 1);
		done++;
	}
	*ret_done = done;
	return r;
}

/* Global reclaim's vmpressure: v1 reports it for the root memcg only (shrink_node's
 * target is the root; the per-memcg reports are cgroup2's). */
static void global_vmpressure(struct sim *s, uint64_t scanned, uint64_t reclaimed, bool fell_short)
{
	struct sim_hier *mh = sim_mem_hier(s);

	if (mh && (scanned || fell_short))
		ucg_memory_vmpressure(mh->root->ucg, scanned, reclaimed, fell_short);
}

/* Makes room for n more pages in RAM; false when even OOM could not. */
bool sim_mem_make_room(struct sim *s, uint64_t n, struct sim_task *t)
{
	/* pages scanned and freed; skipped holds the pages passed over before the last
	 * victim: they stay at the LRU head and are counted as scanned once */
	uint64_t scanned = 0, freed = 0, skipped = 0;
	/* whether a cgroup is above its soft limit: once none is, none gets above it
	 * here (evictions and OOM kills only lower usage), so it is not asked again */
	bool soft = false, soft_known = false;

	if (t &&
	    s->anon_used + s->cache_used + n > s->mem_pages) /* direct reclaim: cpuset fmeter */
		ucg_cpuset_memory_pressure_bump(sim_task_ucg(s, t, UCG_SS_cpuset),
						(uint64_t)(s->now / SIM_SEC));
	while (s->anon_used + s->cache_used + n > s->mem_pages) {
		uint32_t f, victim = SIM_NO_FRAME;
		uint64_t passed = 0;
		size_t i;

		/* soft-limit reclaim first: a clean page of a cgroup above its soft limit */
		if (soft || !soft_known) {
			soft = false;
			for (i = 0; i < s->ncgs && !soft; i++) {
				struct sim_cg *cg = s->cgs[i];

				if (!(cg->hier->ss_mask & (1u << UCG_SS_memory)) || cg->removed)
					continue;
				sim_cg_refresh(s, cg);
				soft = cg->soft_limit != UINT64_MAX &&
				       (uint64_t)cg->mem_pages > cg->soft_limit;
			}
			soft_known = true;
		}
		for (f = s->lru.head; f != SIM_NO_FRAME; f = sim_fr(s, f)->lru.next) {
			struct sim_frame *fr = sim_fr(s, f);
			struct sim_cg *cg;

			if (fr->flags & (SIM_PG_DIRTY | SIM_PG_WRITEBACK)) {
				passed++;
				continue;
			}
			if (!soft) {
				victim = f;
				break;
			}
			for (cg = fr->memcg; cg; cg = cg->parent)
				if (cg->soft_limit != UINT64_MAX &&
				    (uint64_t)cg->mem_pages > cg->soft_limit)
					break;
			if (cg) {
				victim = f;
				break;
			}
			if (victim == SIM_NO_FRAME)
				victim = f; /* fall back to the oldest clean page */
		}
		if (passed > skipped) {
			scanned += passed - skipped;
			skipped = passed;
		}
		if (victim != SIM_NO_FRAME) {
			sim_cache_evict(s, victim, true);
			scanned++;
			freed++;
			continue;
		}
		global_vmpressure(s, scanned, freed, true); /* nothing left: priority 0 */
		scanned = freed = 0;
		{
			struct sim_task *big = largest_in(s, NULL);

			if (!big || big->anon_pages == 0)
				return false;
			sim_oom_kill(s, big, NULL, 0);
			if (big == t)
				return false;
		}
	}
	global_vmpressure(s, scanned, freed, false);
	return true;
}
