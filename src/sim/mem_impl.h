/* sim/mem_impl.h — what the memory model's files share: mem.c (the model's
 * description, the machine, tasks' anonymous and hugetlb memory), mem_memcg.c (memcg
 * charging and reclaim, global reclaim, the OOM killer), mem_pagecache.c (the page
 * cache: files' pages in frames on the LRU, and the act and dirty lists beside it) and
 * mem_writeback.c (dirty limits and the flusher). */
#ifndef UCG_SIM_MEM_IMPL_H
#define UCG_SIM_MEM_IMPL_H

#include "controllers/charge.h"
#include "sim/sim_impl.h"

static inline struct sim_hier *sim_mem_hier(struct sim *s)
{
	return sim_hier_of(s, UCG_SS_memory);
}

/* Whether memcg reclaim's LRU walk would act on a page with these flags: evict it
 * (clean) or count it scanned (dirty or under writeback, not yet met). sim_cg's
 * reclaim_tree counts such pages under each cgroup, so the walk can stop once it has
 * met them all; and once a memcg reclaim has had page cache to walk, they are also on
 * their memcg's "act" list, in LRU order, which the walk follows instead of the whole
 * LRU (a page off it, met by the walk, would change nothing; one list per memcg, so
 * a walk meets no other cgroup's pages). Before that the lists are not kept
 * (workloads without memcg reclaim of page cache pay nothing for them). */
static inline bool sim_reclaim_counted(uint32_t fl)
{
	return !(fl & SIM_PG_SCANNED) || !(fl & (SIM_PG_DIRTY | SIM_PG_WRITEBACK));
}

/* the act and dirty lists' links, for sim_ilist_* */
static inline struct sim_ilink *sim_act_link(const struct sim *s, uint32_t f)
{
	return &sim_fr_act(s, f)->link;
}

static inline struct sim_ilink *sim_dl_link(const struct sim *s, uint32_t f)
{
	return &s->frame_dl[f].link;
}

/* mem_pagecache.c: the dirty list's and unclean_tree's side of f's flags going from
 * old to fl; reclaim_tree's and the act list's side of the same (out of line: only
 * these transitions need them). */
void sim_frame_dirty_flags(struct sim *s, uint32_t f, uint32_t old, uint32_t fl);
void sim_frame_scanned_flags(struct sim *s, uint32_t f, uint32_t old, uint32_t fl);

/* Sets a cached page's flags, keeping reclaim_tree, the act list and the dirty list
 * (their work out of line: this runs several times per page) */
static inline void sim_frame_flags(struct sim *s, uint32_t f, uint32_t fl)
{
	struct sim_frame *fr = sim_fr(s, f);
	uint32_t old = fr->flags;

	fr->flags = (fl & ~SIM_PG_ACT) | (old & SIM_PG_ACT);
	if (s->dirty_on && ((old ^ fl) & (SIM_PG_DIRTY | SIM_PG_WRITEBACK)))
		sim_frame_dirty_flags(s, f, old, fl);
	/* a page never met by memcg reclaim is acted on before and after */
	if ((old | fl) & SIM_PG_SCANNED)
		sim_frame_scanned_flags(s, f, old, fl);
}

/* mem_pagecache.c */
/* Drops clean page-cache page f: out of its file, off the LRU, refunded (to the
 * memory controller too when engine_too). */
void sim_cache_evict(struct sim *s, uint32_t f, bool engine_too);
/* Evictions and scanned marks in a row (memcg reclaim's walk): what they do to a
 * memcg's counts (the uncharge, mem_pages, the cache counts, reclaim_tree) waits in
 * run while the pages are of one memcg, made in one walk up when a page of another
 * comes or at sim_cg_run_flush; nothing in the walk reads those counts. The
 * uncharges go to the controller page by page as one call (thresholds checked where
 * single pages would). */
struct sim_cg_run {
	struct sim_cg *cg;
	int64_t evicted, reclaim, unclean; /* pages evicted; the trees' changes */
};
void sim_cg_run_flush(struct sim *s, struct sim_cg_run *run);
/* sim_cache_evict (engine_too) with its counts in run */
void sim_cache_evict_run(struct sim *s, uint32_t f, struct sim_cg_run *run);
/* Marks page f, dirty or under writeback and counted by reclaim_tree, scanned. */
void sim_cache_scanned_run(struct sim *s, uint32_t f, struct sim_cg_run *run);
/* Page f's writeback ended: it is no longer under writeback nor scanned. */
void sim_frame_clean_run(struct sim *s, uint32_t f, struct sim_cg_run *run);
/* Start keeping the act list / the dirty list and unclean_tree; false when out of
 * memory (the callers then walk the LRU). */
bool sim_act_start(struct sim *s);
bool sim_dirty_list_start(struct sim *s);

/* mem_memcg.c */
/* Adds pages (negative: removes) to cg's and its ancestors' mem_pages (peaks kept). */
void sim_memcg_add(struct sim_cg *cg, int64_t pages);
/* Books n anon pages charged to cg (NULL: none) on t. */
void sim_memcg_anon_record(struct sim *s, struct sim_task *t, struct sim_cg *cg, uint64_t n);
/* Charges pages of kind to t's memcg the kernel's way; *ret_cg the cgroup charged,
 * *ret_done the pages charged. 0, -EAGAIN (wait for writeback), -ENOMEM (refused
 * under oom_kill_disable), -ESRCH (t killed) or another -errno. */
int sim_memcg_charge(struct sim *s, struct sim_task *t, enum ucg_mem_kind kind, uint64_t pages,
		     struct sim_cg **ret_cg, uint64_t *ret_done);
/* Makes room for n more pages in RAM (global reclaim, then OOM); false when even
 * OOM could not. t: the task asking (NULL: none). */
bool sim_mem_make_room(struct sim *s, uint64_t n, struct sim_task *t);

/* mem_writeback.c */
/* Builds and submits one writeback request starting at frame fr; false if none. */
bool sim_writeback_one(struct sim *s, uint32_t fr);
/* Dirty pages at or above the background threshold (the flusher should run). */
bool sim_dirty_over_background(struct sim *s);
/* The flusher's event (s->flush_ev): arg 0 the periodic wake-up, 1 a kick. */
void sim_flush_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);

#endif
