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
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

#define WB_MAX_PAGES 64

static void flush_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);
static bool over_background(struct sim *s);

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
	s->flush_ev.fire = flush_fire;
	sim_ilist_init(&s->lru);
	sim_ilist_init(&s->act);
	s->act_hint = SIM_NO_FRAME;
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

/* ---- memcg charging ---------------------------------------------------------------- */

static struct sim_hier *mem_hier(struct sim *s)
{
	return sim_hier_of(s, SIM_SS_MEMORY);
}

static void cg_mem_add(struct sim_cg *cg, int64_t pages)
{
	for (; cg; cg = cg->parent) {
		cg->mem_pages += pages;
		if (cg->mem_pages > cg->mem_peak)
			cg->mem_peak = cg->mem_pages;
	}
}

/* Whether memcg reclaim's LRU walk would act on a page with these flags: evict it
 * (clean) or count it scanned (dirty or under writeback, not yet met). sim_cg's
 * reclaim_tree counts such pages under each cgroup, so the walk can stop once it has
 * met them all; and once a memcg reclaim has had page cache to walk, they are also on
 * the "act" list, in LRU order, which the walk follows instead of the whole LRU (a
 * page off it, met by the walk, would change nothing). Before that the list is not
 * kept (workloads without memcg reclaim of page cache pay nothing for it). */
static inline bool reclaim_counted(uint32_t fl)
{
	return !(fl & SIM_PG_SCANNED) || !(fl & (SIM_PG_DIRTY | SIM_PG_WRITEBACK));
}

/* the three lists' links, for sim_ilist_* */
static inline struct sim_ilink *lru_link(const struct sim *s, uint32_t f)
{
	return &sim_fr(s, f)->lru;
}

static inline struct sim_ilink *act_link(const struct sim *s, uint32_t f)
{
	return &sim_fr_act(s, f)->link;
}

static inline struct sim_ilink *dl_link(const struct sim *s, uint32_t f)
{
	return &s->frame_dl[f].link;
}

static void act_unlink_on(struct sim *s, uint32_t f)
{
	sim_ilist_unlink(s, &s->act, act_link, f);
	if (s->act_hint == f)
		s->act_hint = act_link(s, f)->prev;
	sim_fr(s, f)->flags &= ~SIM_PG_ACT;
}

static inline void act_unlink(struct sim *s, uint32_t f)
{
	if (sim_fr(s, f)->flags & SIM_PG_ACT)
		act_unlink_on(s, f);
}

/* Puts f on the act list before the first page that joined the LRU after it. A page
 * that joins the LRU goes straight to the tail; one found here is one whose
 * writeback ended. Writeback ends roughly in LRU order, so the search starts from
 * the page put back last when that one is older. */
static void act_insert(struct sim *s, uint32_t f)
{
	struct sim_frame_act *a = sim_fr_act(s, f);
	uint32_t at = s->act.head;

	if (s->act_hint != SIM_NO_FRAME && sim_fr_act(s, s->act_hint)->lru_seq < a->lru_seq)
		at = s->act_hint;

	while (at != SIM_NO_FRAME && sim_fr_act(s, at)->lru_seq < a->lru_seq)
		at = act_link(s, at)->next;
	sim_ilist_insert(s, &s->act, act_link, f, at);
	sim_fr(s, f)->flags |= SIM_PG_ACT;
	s->act_hint = f;
}

static void act_append(struct sim *s, uint32_t f)
{
	sim_fr_act(s, f)->lru_seq = ++s->lru_seq;
	sim_ilist_append(s, &s->act, act_link, f);
	sim_fr(s, f)->flags |= SIM_PG_ACT;
}

/* The dirty list: every page with SIM_PG_DIRTY, in LRU order, so that memcg reclaim
 * finds the dirty pages to write back without walking the LRU past the clean pages
 * and those under writeback; with unclean_tree, which says whether it must wait.
 * Kept once a memcg reclaim has looked for dirty pages (dirty_start); a page joins
 * its tail when it is dirtied (it is then at the LRU's tail, or about to go there)
 * and when a dirty page moves to the LRU's tail. */
static inline bool unclean(uint32_t fl)
{
	return fl & (SIM_PG_DIRTY | SIM_PG_WRITEBACK);
}

static void dl_unlink(struct sim *s, uint32_t f)
{
	sim_ilist_unlink(s, &s->dl, dl_link, f);
}

static void dl_append(struct sim *s, uint32_t f)
{
	sim_ilist_append(s, &s->dl, dl_link, f);
}

/* The dirty list's and unclean_tree's side of f's flags going from old to fl */
static __attribute__((noinline)) void dirty_flags(struct sim *s, uint32_t f, uint32_t old, uint32_t fl)
{
	struct sim_frame *fr = sim_fr(s, f);

	if ((old ^ fl) & SIM_PG_DIRTY) {
		if (fl & SIM_PG_DIRTY)
			dl_append(s, f);
		else
			dl_unlink(s, f);
	}
	if (unclean(old) != unclean(fl) && fr->memcg)
		SIM_CG_UP(fr->memcg, unclean_tree, unclean(fl) ? 1 : -1);
}

/* Starts keeping the dirty list and unclean_tree; false when out of memory. */
static bool dirty_start(struct sim *s)
{
	uint32_t f;

	if (!sim_frames_dl_alloc(s))
		return false;
	for (f = s->lru.head; f != SIM_NO_FRAME; f = sim_fr(s, f)->lru.next) {
		struct sim_frame *fr = sim_fr(s, f);

		if (fr->flags & SIM_PG_DIRTY)
			dl_append(s, f);
		if (unclean(fr->flags) && fr->memcg)
			SIM_CG_UP(fr->memcg, unclean_tree, 1);
	}
	s->dirty_on = true;
	return true;
}

/* reclaim_tree's and the act list's side of f's flags going from old to fl */
static __attribute__((noinline)) void scanned_flags(struct sim *s, uint32_t f, uint32_t old, uint32_t fl)
{
	struct sim_frame *fr = sim_fr(s, f);
	bool was, now;

	was = reclaim_counted(old);
	now = reclaim_counted(fl);
	if (was == now)
		return;
	if (fr->memcg)
		SIM_CG_UP(fr->memcg, reclaim_tree, now ? 1 : -1);
	if (!s->act_on)
		return;
	if (now)
		act_insert(s, f);
	else
		act_unlink(s, f);
}

/* Sets a cached page's flags, keeping reclaim_tree, the act list and the dirty list
 * (their work out of line: this runs several times per page) */
static inline void frame_flags(struct sim *s, uint32_t f, uint32_t fl)
{
	struct sim_frame *fr = sim_fr(s, f);
	uint32_t old = fr->flags;

	fr->flags = (fl & ~SIM_PG_ACT) | (old & SIM_PG_ACT);
	if (s->dirty_on && ((old ^ fl) & (SIM_PG_DIRTY | SIM_PG_WRITEBACK)))
		dirty_flags(s, f, old, fl);
	/* a page never met by memcg reclaim is acted on before and after */
	if ((old | fl) & SIM_PG_SCANNED)
		scanned_flags(s, f, old, fl);
}

/* The act list's side of f joining the LRU's tail */
static void act_add_tail(struct sim *s, uint32_t f)
{
	if (reclaim_counted(sim_fr(s, f)->flags))
		act_append(s, f); /* the newest page of the LRU: the act list's tail */
	else
		sim_fr_act(s, f)->lru_seq = ++s->lru_seq;
}

/* Starts keeping the act list: every LRU page the walk would act on, in LRU order
 * (each LRU page numbered in that order). false when out of memory. */
static bool act_start(struct sim *s)
{
	uint32_t f;

	if (!sim_frames_act_alloc(s))
		return false;
	for (f = s->lru.head; f != SIM_NO_FRAME; f = sim_fr(s, f)->lru.next) {
		if (reclaim_counted(sim_fr(s, f)->flags))
			act_append(s, f);
		else
			sim_fr_act(s, f)->lru_seq = ++s->lru_seq;
	}
	s->act_on = true;
	return true;
}

static inline void lru_unlink(struct sim *s, uint32_t f)
{
	struct sim_frame *fr = sim_fr(s, f);

	sim_ilist_unlink(s, &s->lru, lru_link, f);
	fr->lru.prev = fr->lru.next = SIM_NO_FRAME;
	act_unlink(s, f);
	if (s->dirty_on && (fr->flags & SIM_PG_DIRTY))
		dl_unlink(s, f);
}

static inline void lru_add_tail(struct sim *s, uint32_t f)
{
	struct sim_frame *fr = sim_fr(s, f);

	sim_ilist_append(s, &s->lru, lru_link, f);
	if (s->act_on)
		act_add_tail(s, f);
	if (s->dirty_on && (fr->flags & SIM_PG_DIRTY))
		dl_append(s, f);
}

/* Drops a clean page-cache page: out of its file, off the LRU, refunded. */
static void evict(struct sim *s, uint32_t f, bool engine_too)
{
	struct sim_frame *fr = sim_fr(s, f);
	unsigned char *rec = sim_fr_rec(s, f);
	struct sim_hier *mh = mem_hier(s);

	s->attr.refund_pages++;
	if (sim_charging_refund_cg(s, rec, fr) != fr->memcg)
		s->attr.refund_misdirected++;
	if (fr->memcg) {
		struct sim_cg *c;
		int64_t counted = reclaim_counted(fr->flags);

		if (engine_too && mh)
			ucg_memory_uncharge(fr->memcg->ucg, UCG_MEM_FILE, 1);
		/* cg_mem_add(-1) (a fall never makes a peak) and the page's counts, in one
		 * walk */
		for (c = fr->memcg; c; c = c->parent) {
			c->mem_pages--;
			c->cache_tree--;
			c->reclaim_tree -= counted;
		}
		fr->memcg->cache_local--;
	}
	if (s->dirty_on && unclean(fr->flags))
		dirty_flags(s, f, fr->flags, 0); /* evicted only clean: kept right anyway */
	sim_charging_clear(s, rec);
	s->files[fr->file]->map[fr->index >> SIM_FILE_SHIFT][fr->index & SIM_FILE_MASK] =
		SIM_NO_FRAME;
	lru_unlink(s, f);
	fr->flags = 0;
	fr->memcg = NULL;
	sim_frame_give(s, f);
	s->cache_used--;
}

static struct sim_task *largest_in(struct sim *s, struct sim_cg *top)
{
	struct sim_task *best = NULL;
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		struct sim_task *t = s->tasks[i];

		if (!t->alive || t->kthread)
			continue;
		if (top && !sim_cg_is_under(sim_task_cg(s, t, SIM_SS_MEMORY), top))
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
		sim_logf(s, " by %s:%s\n", where->hier->name, where->path);
		where->oom_kills++;
	} else {
		ucg_buf_puts(&s->log, " by global memory pressure\n");
		s->global_oom_kills++;
	}
	sim_task_exit(s, t);
}

static bool writeback_one(struct sim *s, uint32_t fr);

/* Books n anon pages charged to cg on t. */
static void anon_record(struct sim *s, struct sim_task *t, struct sim_cg *cg, uint64_t n)
{
	int i;

	for (i = 0; i < 4; i++)
		if (t->anon_cg[i] == cg || (!t->anon_cg[i] && !t->anon_n[i]) || i == 3)
			break;
	/* more than four cgroups: the last slot takes the rest (the total stays exact) */
	t->anon_cg[i] = cg;
	t->anon_n[i] += n;
	t->anon_pages += n;
	s->anon_used += n;
	cg_mem_add(cg, (int64_t)n);
}


/* memory.swappiness of cg (60 when unreadable). */
static unsigned cg_swappiness(struct sim *s, struct sim_cg *cg)
{
	struct ucg_buf b;
	char path[1100];
	unsigned v = 60;

	ucg_buf_init(&b);
	snprintf(path, sizeof(path), "%s/memory.swappiness", strcmp(cg->path, "/") ? cg->path : "");
	if (ucg_fs_read_all(s->e, cg->hier->h, path, &s->root_cred, &b) == 0 && b.data)
		v = (unsigned)strtoul(b.data, NULL, 10);
	ucg_buf_fini(&b);
	return v;
}

/* Moves up to want resident anon pages charged under top to swap, task by task (the
 * one with the most resident pages there first: anon LRU order is not modelled).
 * Pages of a memcg with swappiness 0 stay (v1 memcg reclaim does not scan anon
 * then). Returns the pages swapped. */
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
		size_t k;
		int i;

		for (k = 0; k < s->ntasks; k++) {
			struct sim_task *t = s->tasks[k];

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
					sw = cg_swappiness(s, c);
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
		cg_mem_add(best->anon_cg[bi], -(int64_t)n);
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

static uint64_t memcg_reclaim(struct sim *s, struct sim_cg *top, uint64_t want, bool may_swap,
			      bool *ret_wait)
{
	struct sim_hier *mh = mem_hier(s);
	uint64_t done = 0, scanned = 0, swapped;
	int64_t left;
	uint32_t f, next;

	*ret_wait = false;
	/* the walk stops once it has met every page under top it would act on: the
	 * rest it would pass over */
	left = top->reclaim_tree;
	if (left > 0 && !s->act_on)
		act_start(s); /* without room for it, the walk follows the LRU */
	for (f = s->act_on ? s->act.head : s->lru.head; f != SIM_NO_FRAME && done < want &&
	     left > 0; f = next) {
		struct sim_frame *fr = sim_fr(s, f);

		next = s->act_on ? act_link(s, f)->next : fr->lru.next;
		if (!fr->memcg || !sim_cg_is_under(fr->memcg, top) || !reclaim_counted(fr->flags))
			continue;
		left--;
		if (fr->flags & (SIM_PG_DIRTY | SIM_PG_WRITEBACK)) {
			/* scanned, not freed; once: the kernel activates a dirty page
			 * met by memcg reclaim (PG_reclaim), so it is not met again
			 * round after round while it stays at the LRU head here */
			if (!(fr->flags & SIM_PG_SCANNED))
				scanned++;
			frame_flags(s, f, fr->flags | SIM_PG_SCANNED);
			continue;
		}
		evict(s, f, true);
		scanned++;
		done++;
	}
	if (done < want && may_swap) {
		/* anon is scanned only where it can go (swappiness > 0, swap left) */
		swapped = swap_out(s, top, want - done);
		done += swapped;
		scanned += swapped;
	}
	if (done < want && cache_under(top) && (s->dirty_on || dirty_start(s))) {
		/* what the LRU walk below does, over the dirty pages only: it waits when
		 * a page under top is dirty or under writeback, and starts writeback on
		 * the dirty ones in LRU order while requests may start */
		uint32_t kept = SIM_NO_FRAME; /* the last page visited still dirty */

		*ret_wait = top->unclean_tree > 0;
		for (f = s->dl.head; f != SIM_NO_FRAME && s->flush_inflight < s->flush_max_inflight;
		     f = kept != SIM_NO_FRAME ? dl_link(s, kept)->next : s->dl.head) {
			struct sim_frame *fr = sim_fr(s, f);

			if (fr->memcg && sim_cg_is_under(fr->memcg, top))
				writeback_one(s, f); /* f and pages after it may leave the list */
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
			if (!fr->memcg || !sim_cg_is_under(fr->memcg, top))
				continue;
			if (fr->flags & SIM_PG_DIRTY) {
				*ret_wait = true;
				if (s->flush_inflight < s->flush_max_inflight)
					writeback_one(s, f);
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
#define RECLAIM_BATCH 32      /* SWAP_CLUSTER_MAX: what memcg reclaim asks for */

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
	struct sim_hier *mh = mem_hier(s);
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
		struct ucg_buf where;
		struct sim_cg *refuser;
		struct sim_task *victim;
		uint64_t reclaimed, margin = 0;
		bool wait;

		memset(&res, 0, sizeof(res));
		ucg_buf_init(&where);
		res.path = &where;
		r = cg->ucg ? ucg_memory_try_charge(cg->ucg, kind, n, &res) : -ENOENT;
		refuser = r == -ENOMEM && where.data ? sim_cg_find(mh, where.data) : NULL;
		ucg_buf_fini(&where);
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
				 t->name, t->tid, mh->name, refuser->path);
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
static int memcg_charge(struct sim *s, struct sim_task *t, enum ucg_mem_kind kind,
			uint64_t pages, struct sim_cg **ret_cg, uint64_t *ret_done)
{
	struct sim_hier *mh = mem_hier(s);
	struct sim_cg *cg;
	uint64_t done = 0;
	int r = 0;

	*ret_cg = NULL;
	*ret_done = 0;
	if (!mh || pages == 0)
		return 0;
	cg = sim_task_cg(s, t, SIM_SS_MEMORY);
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
				anon_record(s, t, cg, bulk);
			done += bulk;
			continue;
		}
		if (kind != UCG_MEM_ANON) {
			r = fault_charge(s, t, cg, kind, pages);
			if (r == 0)
				done = pages;
			break;
		}
		r = fault_charge(s, t, cg, kind, 1);
		if (r < 0)
			break;
		anon_record(s, t, cg, 1);
		done++;
	}
	*ret_done = done;
	return r;
}

/* Global reclaim's vmpressure: v1 reports it for the root memcg only (shrink_node's
 * target is the root; the per-memcg reports are cgroup2's). */
static void global_vmpressure(struct sim *s, uint64_t scanned, uint64_t reclaimed,
			      bool fell_short)
{
	struct sim_hier *mh = mem_hier(s);

	if (mh && (scanned || fell_short))
		ucg_memory_vmpressure(mh->root->ucg, scanned, reclaimed, fell_short);
}

/* Makes room for n more pages in RAM; false when even OOM could not. */
static bool make_room(struct sim *s, uint64_t n, struct sim_task *t)
{
	/* pages scanned and freed; skipped holds the pages passed over before the last
	 * victim: they stay at the LRU head and are counted as scanned once */
	uint64_t scanned = 0, freed = 0, skipped = 0;
	/* whether a cgroup is above its soft limit: once none is, none gets above it
	 * here (evictions and OOM kills only lower usage), so it is not asked again */
	bool soft = false, soft_known = false;

	if (t && s->anon_used + s->cache_used + n > s->mem_pages) /* direct reclaim: cpuset fmeter */
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

				if (!(cg->hier->ss_mask & (1u << SIM_SS_MEMORY)) || cg->removed)
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
				if (cg->soft_limit != UINT64_MAX && (uint64_t)cg->mem_pages > cg->soft_limit)
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
			evict(s, victim, true);
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

/* ---- anonymous memory -------------------------------------------------------------- */

int sim_mem_alloc(struct sim *s, struct sim_task *t, uint64_t pages, int line)
{
	struct sim_cg *cg;
	uint64_t done;
	int r;

	if (!make_room(s, pages, t)) {
		if (!t->alive)
			return 0;
		return sim_fail(s, line, -ENOMEM, "alloc: %s", t->name);
	}
	if (!t->alive)
		return 0;
	/* charged pages are booked on t as they are charged (reclaim may swap them) */
	r = memcg_charge(s, t, UCG_MEM_ANON, pages, &cg, &done);
	if (!t->alive)
		return 0; /* killed while charging: its exit returned what it had */
	if (!cg)
		anon_record(s, t, NULL, pages);
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
	struct sim_hier *mh = mem_hier(s);
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
		cg_mem_add(t->anon_cg[i], -(int64_t)nres);
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

/* ---- page cache --------------------------------------------------------------------- */

/* Allocates the page-map chunks of pages [first, end) of f (slots SIM_NO_FRAME). */
static int file_slots(struct sim_file *f, uint64_t first, uint64_t end)
{
	uint64_t need = (end + SIM_FILE_MASK) >> SIM_FILE_SHIFT, c;

	if (need > f->nmap) {
		uint64_t n = f->nmap ? f->nmap : 16;
		uint32_t **v;

		while (n < need)
			n *= 2;
		v = ucg_realloc(f->map, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (c = f->nmap; c < n; c++)
			v[c] = NULL;
		f->map = v;
		f->nmap = n;
	}
	for (c = first >> SIM_FILE_SHIFT; c < need; c++) {
		size_t i;

		if (f->map[c])
			continue;
		f->map[c] = ucg_malloc(((size_t)1 << SIM_FILE_SHIFT) * sizeof(**f->map));
		if (!f->map[c])
			return -ENOMEM;
		for (i = 0; i < ((size_t)1 << SIM_FILE_SHIFT); i++)
			f->map[c][i] = SIM_NO_FRAME;
	}
	return 0;
}

static void file_extend(struct sim_file *f, uint64_t npages)
{
	if (npages > f->npages)
		f->npages = npages;
}

static uint32_t file_index(struct sim *s, struct sim_file *f)
{
	uint32_t i;

	for (i = 0; i < s->nfiles; i++)
		if (s->files[i] == f)
			return i;
	return 0;
}

/* Puts pages [first, first+n) of f that are not cached into frames, charged to t.
 * Returns the number installed, or -errno. */
static int64_t install(struct sim *s, struct sim_task *t, struct sim_file *f, uint64_t first,
		       uint64_t n)
{
	uint64_t i, missing = 0, done;
	struct sim_cg *cg;
	uint32_t fi = file_index(s, f);
	int r;

	r = file_slots(f, first, first + n);
	if (r < 0)
		return r;
	for (i = first; i < first + n; i++)
		if (sim_file_frame(f, i) == SIM_NO_FRAME)
			missing++;
	if (!missing) {
		file_extend(f, first + n);
		return 0;
	}
	if (!make_room(s, missing, t))
		return -ENOMEM;
	r = sim_frames_reserve(s, missing);
	if (r < 0)
		return r;
	if (!t->alive)
		return -ESRCH;
	r = memcg_charge(s, t, UCG_MEM_FILE, missing, &cg, &done);
	if (r < 0) {
		/* all or nothing for the page cache: the pages charged go back */
		if (done && cg)
			ucg_memory_uncharge(cg->ucg, UCG_MEM_FILE, done);
		return r;
	}
	for (i = first; i < first + n; i++) {
		uint32_t fr;

		if (sim_file_frame(f, i) != SIM_NO_FRAME)
			continue;
		fr = sim_frame_take(s);
		memset(sim_fr(s, fr), 0, sizeof(struct sim_frame));
		sim_fr(s, fr)->file = fi;
		sim_fr(s, fr)->index = (uint32_t)i;
		sim_fr(s, fr)->flags = SIM_PG_USED;
		sim_fr(s, fr)->memcg = cg;
		sim_fr(s, fr)->origin = -1;
		lru_add_tail(s, fr);
		f->map[i >> SIM_FILE_SHIFT][i & SIM_FILE_MASK] = fr;
		s->cache_used++;
	}
	if (cg) {
		struct sim_cg *c;

		cg->cache_local += (int64_t)missing;
		for (c = cg; c; c = c->parent) {
			c->cache_tree += (int64_t)missing;
			c->reclaim_tree += (int64_t)missing; /* clean pages */
		}
	}
	cg_mem_add(cg, (int64_t)missing);
	/* the file grows only with the pages cached: a step that must wait (or
	 * fails) and tries again appends at the same place, leaving no hole */
	file_extend(f, first + n);
	return (int64_t)missing;
}

static int fifo_push(struct sim *s, uint64_t v)
{
	if (s->fifo_len == s->fifo_cap) {
		size_t ncap = s->fifo_cap ? s->fifo_cap * 2 : 1024, i;
		uint64_t *nv = ucg_malloc(ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		for (i = 0; i < s->fifo_len; i++)
			nv[i] = s->dirty_fifo[(s->fifo_head + i) & (s->fifo_cap - 1)];
		ucg_free(s->dirty_fifo);
		s->dirty_fifo = nv;
		s->fifo_cap = ncap;
		s->fifo_head = 0;
	}
	/* the capacity is a power of two: a mask, not a division, per page */
	s->dirty_fifo[(s->fifo_head + s->fifo_len++) & (s->fifo_cap - 1)] = v;
	return 0;
}

int sim_cache_write(struct sim *s, struct sim_task *t, struct sim_file *f, uint64_t first,
		    uint64_t n)
{
	struct sim_cg *origin = sim_task_cg(s, t, SIM_SS_BLKIO);
	int64_t got = install(s, t, f, first, n);
	struct sim_dirtier d;
	/* every page new: install put them at the LRU's tail in this order already */
	bool move = got != (int64_t)n;
	int origin_id = origin ? origin->id : -1;
	uint64_t i;

	if (got < 0)
		return (int)got;
	sim_dirtier_init(&d, t); /* t's cgroups cannot change between the pages */
	if (s->cfg.charging == SIM_CHARGING_INODE)
		sim_charging_inode_dirty_n(f, sim_dirtier_blkcg(s, &d), n);
	/* the records, a page-map chunk's run of frames at a time (install made the
	 * chunks; nothing below reads a record) */
	for (i = first; i < first + n;) {
		uint64_t end = ((i >> SIM_FILE_SHIFT) + 1) << SIM_FILE_SHIFT;

		if (end > first + n)
			end = first + n;
		sim_charging_record_frames(s, &f->map[i >> SIM_FILE_SHIFT][i & SIM_FILE_MASK],
					   (size_t)(end - i), &d);
		i = end;
	}
	for (i = first; i < first + n; i++) {
		uint32_t fr = f->map[i >> SIM_FILE_SHIFT][i & SIM_FILE_MASK]; /* install made it */
		struct sim_frame *p = sim_fr(s, fr);

		p->origin = origin_id;
		p->dirtier_tid = t->tid;
		if (!(p->flags & SIM_PG_DIRTY)) {
			frame_flags(s, fr, p->flags | SIM_PG_DIRTY);
			p->dirtied = s->now;
			p->dirty_seq = s->next_dirty_seq++;
			s->dirty++;
			if (fifo_push(s, ((uint64_t)fr << 32) | p->dirty_seq) < 0)
				return -ENOMEM;
		}
		if (move) {
			lru_unlink(s, fr);
			lru_add_tail(s, fr);
		}
	}
	if (!s->flush_armed) {
		s->flush_armed = true;
		sim_schedule(s, s->now + s->wb_interval, &s->flush_ev, 0);
	}
	if (over_background(s))
		sim_flusher_kick(s);
	return 0;
}

uint64_t sim_cache_read(struct sim *s, struct sim_task *t, struct sim_file *f, uint64_t first,
			uint64_t n, bool fill)
{
	uint64_t i, missing = 0;

	if (!fill) {
		file_extend(f, first + n);
		for (i = first; i < first + n; i++) {
			uint32_t fr = sim_file_frame(f, i);

			if (fr == SIM_NO_FRAME) {
				missing++;
			} else {
				lru_unlink(s, fr);
				lru_add_tail(s, fr);
			}
		}
		return missing;
	}
	install(s, t, f, first, n);
	return 0;
}

/* ---- dirty limits and the flusher ---------------------------------------------------- */

static uint64_t dirtyable(struct sim *s)
{
	return s->mem_pages > s->anon_used ? s->mem_pages - s->anon_used : 0;
}

bool sim_dirty_over_limit(struct sim *s)
{
	return s->dirty + s->writeback >= dirtyable(s) * s->dirty_ratio / 100;
}

static bool over_background(struct sim *s)
{
	return s->dirty >= dirtyable(s) * s->dirty_bg_ratio / 100;
}

void sim_flusher_kick(struct sim *s)
{
	sim_schedule(s, s->now, &s->flush_ev, 1);
}

/* Writers waiting now try again, in order, while under the dirty limit. Each tries
 * once: one that must wait again (its memcg charge waits on writeback) waits for the
 * next completion; trying it again at once would find nothing changed, forever. */
static void wake_writers(struct sim *s)
{
	struct sim_io *waiting = s->blocked, *tail;

	s->blocked = NULL;
	while (waiting && !sim_dirty_over_limit(s)) {
		struct sim_io *io = waiting;

		waiting = io->next_blocked;
		io->blocked = false;
		io->next_blocked = NULL;
		sim_io_pump(s, io);
	}
	if (!waiting)
		return;
	/* those not tried stay first, ahead of any that waited again */
	for (tail = waiting; tail->next_blocked; tail = tail->next_blocked)
		;
	tail->next_blocked = s->blocked;
	s->blocked = waiting;
}

/* Allocations that waited on writeback in memcg reclaim try again. */
static void wake_allocs(struct sim *s)
{
	struct sim_task *t = s->alloc_waiters;

	s->alloc_waiters = NULL;
	while (t) {
		struct sim_task *next = t->next_alloc_wait;
		uint64_t n = t->alloc_wait;

		t->alloc_wait = 0;
		t->next_alloc_wait = NULL;
		if (t->alive && n)
			sim_mem_alloc(s, t, n, 0);
		t = next;
	}
}

/* Builds and submits one writeback request starting at frame fr; false if none. */
static bool writeback_one(struct sim *s, uint32_t fr)
{
	struct sim_frame *p = sim_fr(s, fr);
	struct sim_file *f = s->files[p->file];
	struct sim_task *writer = s->flusher;
	struct sim_req *r;
	struct sim_cg *charged;
	bool orphan = false;
	uint32_t idx = p->index, n = 0, to_origin = 0;
	int charged_id;

	if (s->cfg.charging == SIM_CHARGING_INODE)
		sim_charging_inode_decide(s, f);
	charged = sim_charging_resolve(s, sim_fr_rec(s, fr), f, writer, &orphan);
	r = ucg_calloc(1, sizeof(*r));
	if (!r)
		return false;
	/* the record each page after the first is resolved from, when one matters:
	 * a page with the same record as the one before resolves the same */
	const unsigned char *prev = sim_charging_by_record(s) ? sim_fr_rec(s, fr) : NULL;

	charged_id = charged ? charged->id : -1;
	while (n < WB_MAX_PAGES && idx + n < f->npages) {
		uint32_t g = sim_file_frame(f, idx + n);
		struct sim_frame *q;
		bool orph2 = false;

		if (g == SIM_NO_FRAME)
			break;
		q = sim_fr(s, g);
		if (!(q->flags & SIM_PG_DIRTY) || (q->flags & SIM_PG_WRITEBACK))
			break;
		if (n && prev) {
			const unsigned char *rec = sim_fr_rec(s, g);

			if (memcmp(rec, prev, s->rec_size) &&
			    sim_charging_resolve(s, rec, f, writer, &orph2) != charged)
				break;
			prev = rec;
		}
		frame_flags(s, g, (q->flags & ~SIM_PG_DIRTY) | SIM_PG_WRITEBACK);
		to_origin += charged_id == q->origin;
		n++;
	}
	/* the request's pages, counted once (nothing above reads these) */
	s->dirty -= n;
	s->writeback += n;
	s->attr.wb_bytes += (uint64_t)n * SIM_PAGE;
	if (orphan)
		s->attr.wb_orphaned += (uint64_t)n * SIM_PAGE;
	s->attr.wb_to_origin += (uint64_t)to_origin * SIM_PAGE;
	r->dev = f->dev;
	r->op = 1;
	r->bytes = (uint64_t)n * SIM_PAGE;
	r->charged = charged;
	r->origin = NULL;
	r->charged_tid = writer->tid;
	r->kind = SIM_REQ_WRITEBACK;
	r->file = p->file;
	r->first_page = idx;
	r->npages = n;
	s->flush_inflight++;
	sim_blk_submit(s, r);
	return true;
}

static void flush_work(struct sim *s)
{
	while (s->fifo_len && s->flush_inflight < s->flush_max_inflight) {
		uint64_t v = s->dirty_fifo[s->fifo_head];
		uint32_t fr = (uint32_t)(v >> 32), seq = (uint32_t)v;
		struct sim_frame *p = sim_fr(s, fr);

		if (!(p->flags & SIM_PG_DIRTY) || p->dirty_seq != seq ||
		    (p->flags & SIM_PG_WRITEBACK)) {
			s->fifo_head = (s->fifo_head + 1) & (s->fifo_cap - 1);
			s->fifo_len--;
			continue;
		}
		if (!over_background(s) && !sim_dirty_over_limit(s) &&
		    p->dirtied > s->now - s->dirty_expire && !s->blocked)
			break;
		s->fifo_head = (s->fifo_head + 1) & (s->fifo_cap - 1);
		s->fifo_len--;
		if (!writeback_one(s, fr))
			break;
	}
}

static void flush_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	(void)src;
	if (arg == 0) {
		/* the periodic wake-up */
		s->flush_armed = false;
	}
	flush_work(s);
	if (!s->flush_armed && s->dirty) {
		s->flush_armed = true;
		sim_schedule(s, s->now + s->wb_interval, &s->flush_ev, 0);
	}
}

void sim_writeback_done(struct sim *s, struct sim_req *r)
{
	struct sim_file *f = s->files[r->file];
	uint32_t i, cleaned = 0;

	for (i = 0; i < r->npages; i++) {
		uint32_t fr = sim_file_frame(f, r->first_page + i);

		if (fr == SIM_NO_FRAME)
			continue;
		frame_flags(s, fr, sim_fr(s, fr)->flags & ~(SIM_PG_WRITEBACK | SIM_PG_SCANNED));
		cleaned++;
	}
	s->writeback -= cleaned;
	s->flush_inflight--;
	if (r->charged)
		SIM_CG_UP(r->charged, wb_bytes, r->bytes);
	wake_allocs(s);
	wake_writers(s);
	flush_work(s);
}
