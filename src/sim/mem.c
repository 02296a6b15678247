/* sim/mem.c — the memory model: anonymous memory, hugetlb, the page cache, dirty
 * pages and the flusher that writes them back.
 *
 * Machine. `memory SIZE` pages of RAM (default 1 GiB), `set swap SIZE` of swap
 * (default none, as the reference machine). Used = resident anon + page cache. A
 * page-cache page lives in a frame of a global LRU list (oldest first); anonymous
 * pages are counted, not placed.
 *
 * Charging. Every page is charged to a memory cgroup through the controller's API
 * (controllers/charge.h): anon pages to the allocating task's memcg, page-cache pages
 * to the memcg of the first task that touched them (read or write), as the kernel
 * does; a page stays charged to that cgroup until it is freed (refund on free, to
 * the same cgroup, as move_charge_at_immigrate = 0). The controller holds the
 * counters, limits, failcnt, memsw and oom_control; the model runs the kernel's
 * charge loop (try_charge_memcg) against them one attempt at a time
 * (ucg_memory_try_charge), so memory.failcnt counts what the kernel's does:
 *  - anon is charged as page faults of one page: while 64 pages fit, faults take a
 *    batch of 64 and feed the per-CPU stock (no failure; the stock is empty when an
 *    allocation starts, so this covers the margin down to margin mod 64); below that
 *    each fault's batch attempt fails (1 failure) before the exact one;
 *  - page cache is charged one folio per stream step (up to 64 pages);
 *  - a refused exact attempt: memcg reclaim of the refusing cgroup's subtree (at
 *    least 32 pages, SWAP_CLUSTER_MAX), retry; one more retry after draining stocks;
 *    free retries while reclaim progresses for charges of 8 pages or less; then 16
 *    retries (MAX_RECLAIM_RETRIES); then OOM. Every refused attempt is a failure in
 *    the refusing cgroup's memory.failcnt (a memsw refusal counts none, as 6.18).
 *    With nothing to reclaim a refused fault costs 19 failures, the kernel's figure
 *    here (docs/controllers-verified.md).
 * Memcg reclaim takes, in order: clean page cache of the subtree, oldest first on
 * the LRU; anon pages to swap, when the machine has swap left, the memory (not the
 * memsw) limit refused and the pages' memcg has swappiness > 0 (v1 memcg reclaim
 * leaves anon alone at swappiness 0), the task with the most resident pages there
 * first (no anon LRU); swapped pages leave memory.usage_in_bytes and stay in
 * memsw.usage_in_bytes (memory.stat swap). Dirty pages cannot be dropped: reclaim
 * starts their writeback and the charger waits for it (v1 memcg reclaim waits on
 * pages under writeback), a buffered writer like a blocked writer, an allocation
 * until the next writeback completion; then the cleaned pages are reclaimed without
 * another failed attempt. Swapped pages are never swapped back in.
 *
 * OOM. After the retries: with oom_kill_disable 0 the model kills the task with the
 * most anonymous memory in the refusing cgroup's subtree (the kernel's badness
 * reduced to rss) and retries (16 more); if that was the charging task its charge
 * ends there. With oom_kill_disable 1 the rest of the allocation is refused, under_oom
 * reads 1 and the task carries on (the kernel would put it to sleep until memory is
 * freed; the model does not block it).
 *
 * Global pressure. When used + new > RAM, clean page-cache pages are evicted, first
 * those charged to cgroups above their memory.soft_limit_in_bytes (soft-limit
 * reclaim), then in global LRU order. Dirty pages cannot be evicted before writeback.
 * If nothing can be evicted, the largest task in the machine is OOM-killed.
 *
 * Dirty pages and writeback. A buffered write dirties pages; each dirty page gets the
 * ownership record of the run's charging design (charging.c) and, on the side, the
 * blkio cgroup of the dirtier (the "origin", which the simulator uses only to score
 * the designs). Thresholds as vm.dirty_*: dirtyable = RAM - anon;
 *     background = dirty_background_ratio% of dirtyable (default 10),
 *     limit      = dirty_ratio% of dirtyable (default 20).
 * Above background the flusher is kicked; a writer above the limit blocks (the
 * balance_dirty_pages throttle reduced to "wait until below") until writeback brings
 * dirty pages under it. The flusher (kthread tid 2, in the root cgroups) also wakes
 * every writeback_interval (5 s) and writes pages dirtied more than dirty_expire
 * (30 s) ago. It writes in dirtying order, extending each request over the following
 * dirty pages of the same file up to 256 KiB while they resolve to the same charged
 * cgroup, with at most 16 requests in flight.
 *
 * Limits. No swap-in, no LRU active/inactive aging, no refaults, no mmap'd file pages, no
 * per-memcg dirty limits or per-memcg writeback (cgroup writeback of later kernels is
 * only approximated by the "inode" design), no dirty-page rate limiting beyond
 * blocking at the limit. Hugetlb pages are charged to the hugetlb controller but the
 * machine's huge page pool is unlimited and separate from RAM.
 *
 * Files. This one: the machine and tasks' anonymous and hugetlb memory; mem_memcg.c:
 * charging, memcg and global reclaim, OOM; mem_pagecache.c: the page cache and its
 * lists; mem_writeback.c: dirty limits and the flusher; mem_impl.h: what they share.
 */
#include "sim/mem_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"

int sim_mem_init(struct sim *s)
{
	struct sim_task *fl;
	int r;

	s->mem_pages = (1ull << 30) / SIM_PAGE;
	s->dirty_ratio = 20;
	s->dirty_bg_ratio = 10;
	s->dirty_expire = 30 * SIM_SEC;
	s->wb_interval = 5 * SIM_SEC;
	s->flush_max_inflight = 16;
	s->flush_ev.fire = sim_flush_fire;
	sim_ilist_init(&s->lru);
	sim_ilist_init(&s->dl);
	s->free_head = SIM_NO_FRAME;
	s->rec_size = sim_charging_record_size(s->cfg.charging);
	r = sim_task_new(s, "flush", 0, NULL, true, &fl);
	if (r < 0)
		return r;
	s->flusher = fl;
	return 0;
}

void sim_mem_fini(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++) {
		uint64_t c;

		for (c = 0; c < s->files[i]->nmap; c++)
			ucg_free(s->files[i]->map[c]);
		ucg_free(s->files[i]->map);
		ucg_free(s->files[i]->name);
		ucg_free(s->files[i]);
	}
	ucg_free(s->files);
	sim_frames_fini(s);
	ucg_free(s->dirty_fifo);
}

/* ---- anonymous memory -------------------------------------------------------------- */

int sim_mem_alloc(struct sim *s, struct sim_task *t, uint64_t pages, int line)
{
	struct sim_cg *cg;
	uint64_t done;
	int r;

	if (!sim_mem_make_room(s, pages, t)) {
		if (!t->alive)
			return 0;
		return sim_fail(s, line, -ENOMEM, "alloc: %s", t->name);
	}
	if (!t->alive)
		return 0;
	/* charged pages are booked on t as they are charged (reclaim may swap them) */
	r = sim_memcg_charge(s, t, UCG_MEM_ANON, pages, &cg, &done);
	if (!t->alive)
		return 0; /* killed while charging: its exit returned what it had */
	if (!cg)
		sim_memcg_anon_record(s, t, NULL, pages);
	if (r == -EAGAIN) {
		/* memcg reclaim waits on writeback: the rest is charged when it completes */
		if (!t->alloc_wait) {
			t->next_alloc_wait = s->alloc_waiters;
			s->alloc_waiters = t;
		}
		t->alloc_wait += pages - done;
		return 0;
	}
	if (r == -ENOMEM || r == -ESRCH)
		return 0; /* refused or killed: logged, the run goes on */
	if (r < 0)
		return sim_fail(s, line, r, "alloc: %s", t->name);
	return 0;
}

int sim_mem_free(struct sim *s, struct sim_task *t, uint64_t pages)
{
	struct sim_hier *mh = sim_mem_hier(s);
	int i;

	if (pages > t->anon_pages)
		pages = t->anon_pages;
	for (i = 3; i >= 0 && pages; i--) {
		uint64_t n = t->anon_n[i] < pages ? t->anon_n[i] : pages;
		uint64_t resident = t->anon_n[i] - t->anon_swap[i];
		uint64_t nres = n < resident ? n : resident, nswap = n - nres;

		if (!n)
			continue;
		if (t->anon_cg[i] && mh) {
			if (nres)
				ucg_memory_uncharge(t->anon_cg[i]->ucg, UCG_MEM_ANON, nres);
			if (nswap)
				ucg_memory_swap_free(t->anon_cg[i]->ucg, nswap);
		}
		sim_memcg_add(t->anon_cg[i], -(int64_t)nres);
		t->anon_n[i] -= n;
		t->anon_swap[i] -= nswap;
		if (!t->anon_n[i])
			t->anon_cg[i] = NULL;
		t->anon_pages -= n;
		s->anon_used -= nres;
		s->swap_used -= nswap;
		pages -= n;
	}
	return 0;
}

int sim_mem_hugetlb(struct sim *s, struct sim_task *t, int64_t npages, int line)
{
	struct ucg_charge_result res;
	int r;

	if (npages < 0) {
		uint64_t n = (uint64_t)-npages;

		if (n > t->huge_pages)
			n = t->huge_pages;
		if (n)
			ucg_hugetlb_uncharge(sim_task_ucg(s, t, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, n);
		t->huge_pages -= n;
		return 0;
	}
	memset(&res, 0, sizeof(res));
	r = ucg_hugetlb_charge(sim_task_ucg(s, t, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false,
			       (uint64_t)npages, &res);
	if (r == -ENOMEM) {
		/* a hugetlb fault past the limit is SIGBUS */
		ucg_buf_puts(&s->log, "[");
		sim_format_time(s->now, &s->log);
		sim_logf(s, "] %s (tid %d) killed by SIGBUS: hugetlb limit\n", t->name, t->tid);
		sim_task_exit(s, t);
		return 0;
	}
	if (r < 0)
		return sim_fail(s, line, r, "hugetlb: %s", t->name);
	t->huge_pages += (uint64_t)npages;
	return 0;
}

void sim_task_release_mem(struct sim *s, struct sim_task *t)
{
	sim_mem_free(s, t, t->anon_pages);
	if (t->huge_pages) {
		ucg_hugetlb_uncharge(sim_task_ucg(s, t, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false,
				     t->huge_pages);
		t->huge_pages = 0;
	}
}
