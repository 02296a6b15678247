/* sim/mem_pagecache.c — the memory model's page cache: files' pages in frames, each
 * charged to the memcg of the first task that touched it, on one LRU list (oldest
 * first) with, beside it, each memcg's list of its pages memcg reclaim would act on and
 * the list of dirty pages in LRU order (each kept from the first reclaim that needs it); buffered
 * writes dirty pages and queue them for the flusher (mem_writeback.c); eviction of a
 * clean page. The rules are described at the top of mem.c.
 */
#include "sim/mem_impl.h"

#include <errno.h>
#include <string.h>

#include "base/alloc.h"

/* ---- the LRU and the lists beside it ----------------------------------------------- */

/* the LRU's links, for sim_ilist_* */
static inline struct sim_ilink *lru_link(const struct sim *s, uint32_t f)
{
	return &sim_fr(s, f)->lru;
}

static void act_unlink_on(struct sim *s, uint32_t f)
{
	struct sim_cg *cg = sim_fr(s, f)->memcg; /* on the list: it has one */

	sim_ilist_unlink(s, &cg->act, sim_act_link, f);
	if (cg->act_hint == f)
		cg->act_hint = sim_act_link(s, f)->prev;
	sim_fr(s, f)->flags &= ~SIM_PG_ACT;
}

static inline void act_unlink(struct sim *s, uint32_t f)
{
	if (sim_fr(s, f)->flags & SIM_PG_ACT)
		act_unlink_on(s, f);
}

/* Puts f on its memcg's act list before the first page that joined the LRU after it.
 * A page that joins the LRU goes straight to the tail; one found here is one whose
 * writeback ended. Writeback ends roughly in LRU order, so the search starts from
 * the page put back last when that one is older. A page of no memcg is on no list:
 * memcg reclaim never acts on it. */
static void act_insert(struct sim *s, uint32_t f)
{
	struct sim_frame_act *a = sim_fr_act(s, f);
	struct sim_cg *cg = sim_fr(s, f)->memcg;
	uint32_t at;

	if (!cg)
		return;
	at = cg->act.head;
	if (cg->act_hint != SIM_NO_FRAME && sim_fr_act(s, cg->act_hint)->lru_seq < a->lru_seq)
		at = cg->act_hint;
	while (at != SIM_NO_FRAME && sim_fr_act(s, at)->lru_seq < a->lru_seq)
		at = sim_act_link(s, at)->next;
	sim_ilist_insert(s, &cg->act, sim_act_link, f, at);
	sim_fr(s, f)->flags |= SIM_PG_ACT;
	cg->act_hint = f;
}

static void act_append(struct sim *s, uint32_t f)
{
	struct sim_cg *cg = sim_fr(s, f)->memcg;

	sim_fr_act(s, f)->lru_seq = ++s->lru_seq;
	if (!cg)
		return;
	sim_ilist_append(s, &cg->act, sim_act_link, f);
	sim_fr(s, f)->flags |= SIM_PG_ACT;
}

/* The dirty list: every page with SIM_PG_DIRTY, in LRU order, so that memcg reclaim
 * finds the dirty pages to write back without walking the LRU past the clean pages
 * and those under writeback; with unclean_tree, which says whether it must wait.
 * Kept once a memcg reclaim has looked for dirty pages (sim_dirty_list_start); a
 * page joins its tail when it is dirtied (it is then at the LRU's tail, or about to
 * go there) and when a dirty page moves to the LRU's tail. */
static inline bool unclean(uint32_t fl)
{
	return fl & (SIM_PG_DIRTY | SIM_PG_WRITEBACK);
}

static void dl_unlink(struct sim *s, uint32_t f)
{
	sim_ilist_unlink(s, &s->dl, sim_dl_link, f);
}

static void dl_append(struct sim *s, uint32_t f)
{
	sim_ilist_append(s, &s->dl, sim_dl_link, f);
}

/* The dirty list's and unclean_tree's side of f's flags going from old to fl */
void sim_frame_dirty_flags(struct sim *s, uint32_t f, uint32_t old, uint32_t fl)
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
bool sim_dirty_list_start(struct sim *s)
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
void sim_frame_scanned_flags(struct sim *s, uint32_t f, uint32_t old, uint32_t fl)
{
	struct sim_frame *fr = sim_fr(s, f);
	bool was, now;

	was = sim_reclaim_counted(old);
	now = sim_reclaim_counted(fl);
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

/* The act list's side of f joining the LRU's tail */
static void act_add_tail(struct sim *s, uint32_t f)
{
	if (sim_reclaim_counted(sim_fr(s, f)->flags))
		act_append(s, f); /* the newest page of the LRU: the act list's tail */
	else
		sim_fr_act(s, f)->lru_seq = ++s->lru_seq;
}

/* Starts keeping the act lists: every LRU page the walk would act on, in LRU order
 * (each LRU page numbered in that order). false when out of memory. */
bool sim_act_start(struct sim *s)
{
	uint32_t f;

	if (!sim_frames_act_alloc(s))
		return false;
	for (f = s->lru.head; f != SIM_NO_FRAME; f = sim_fr(s, f)->lru.next) {
		if (sim_reclaim_counted(sim_fr(s, f)->flags))
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

/* The memcg's side of dropping n pages of cg, counted of them counted by reclaim_tree
 * (sim_memcg_add(-n): a fall never makes a peak; and the pages' counts, in one walk) */
static void evict_counts(struct sim *s, struct sim_cg *cg, int64_t n, int64_t counted,
			 bool engine_too)
{
	struct sim_cg *c;

	if (engine_too && sim_mem_hier(s))
		ucg_memory_uncharge(cg->ucg, UCG_MEM_FILE, (uint64_t)n);
	for (c = cg; c; c = c->parent) {
		c->mem_pages -= n;
		c->cache_tree -= n;
		c->reclaim_tree -= counted;
	}
	cg->cache_local -= n;
}

/* Drops clean page f but for evict_counts: out of its file, off the LRU, refunded. */
static void evict_frame(struct sim *s, uint32_t f)
{
	struct sim_frame *fr = sim_fr(s, f);
	unsigned char *rec = sim_fr_rec(s, f);

	s->attr.refund_pages++;
	if (sim_charging_refund_cg(s, rec, fr) != fr->memcg)
		s->attr.refund_misdirected++;
	if (s->dirty_on && unclean(fr->flags))
		/* evicted only clean: kept right anyway */
		sim_frame_dirty_flags(s, f, fr->flags, 0);
	sim_charging_clear(s, rec);
	s->files[fr->file]->map[fr->index >> SIM_FILE_SHIFT][fr->index & SIM_FILE_MASK] =
		SIM_NO_FRAME;
	lru_unlink(s, f);
	fr->flags = 0;
	fr->memcg = NULL;
	sim_frame_give(s, f);
	s->cache_used--;
}

/* Drops a clean page-cache page: out of its file, off the LRU, refunded. */
void sim_cache_evict(struct sim *s, uint32_t f, bool engine_too)
{
	struct sim_frame *fr = sim_fr(s, f);

	if (fr->memcg)
		evict_counts(s, fr->memcg, 1, sim_reclaim_counted(fr->flags), engine_too);
	evict_frame(s, f);
}

void sim_cg_run_flush(struct sim *s, struct sim_cg_run *run)
{
	struct sim_cg *c;

	if (!run->cg)
		return;
	if (run->evicted && sim_mem_hier(s))
		ucg_memory_uncharge_pages(run->cg->ucg, UCG_MEM_FILE, (uint64_t)run->evicted);
	for (c = run->cg; c; c = c->parent) {
		c->mem_pages -= run->evicted;
		c->cache_tree -= run->evicted;
		c->reclaim_tree += run->reclaim;
		c->unclean_tree += run->unclean;
	}
	run->cg->cache_local -= run->evicted;
	run->cg = NULL;
	run->evicted = run->reclaim = run->unclean = 0;
}

/* Makes cg the run's, flushing the run of another */
static inline void run_join(struct sim *s, struct sim_cg *cg, struct sim_cg_run *run)
{
	if (cg != run->cg) {
		sim_cg_run_flush(s, run);
		run->cg = cg;
	}
}

void sim_cache_scanned_run(struct sim *s, uint32_t f, struct sim_cg_run *run)
{
	struct sim_frame *fr = sim_fr(s, f);

	/* sim_frame_flags(fl | SIM_PG_SCANNED) on a page counted by reclaim_tree: it
	 * leaves reclaim_tree and the act list (its dirty state does not change) */
	fr->flags |= SIM_PG_SCANNED;
	if (fr->memcg) {
		run_join(s, fr->memcg, run);
		run->reclaim--;
	}
	if (s->act_on)
		act_unlink(s, f);
}

void sim_frame_clean_run(struct sim *s, uint32_t f, struct sim_cg_run *run)
{
	struct sim_frame *fr = sim_fr(s, f);
	uint32_t old = fr->flags, fl = old & ~(SIM_PG_WRITEBACK | SIM_PG_SCANNED);

	/* sim_frame_flags(fl): the dirty list does not change (SIM_PG_DIRTY stays) */
	fr->flags = fl;
	if (s->dirty_on && (old & SIM_PG_WRITEBACK) && !unclean(fl) && fr->memcg) {
		run_join(s, fr->memcg, run);
		run->unclean--;
	}
	if ((old & SIM_PG_SCANNED) && !sim_reclaim_counted(old)) {
		/* now counted: fl is clean or unscanned */
		if (fr->memcg) {
			run_join(s, fr->memcg, run);
			run->reclaim++;
		}
		if (s->act_on)
			act_insert(s, f);
	}
}

void sim_cache_evict_run(struct sim *s, uint32_t f, struct sim_cg_run *run)
{
	struct sim_frame *fr = sim_fr(s, f);

	if (fr->memcg) {
		run_join(s, fr->memcg, run);
		run->evicted++;
		run->reclaim -= sim_reclaim_counted(fr->flags);
	}
	evict_frame(s, f);
}

/* ---- files' pages ------------------------------------------------------------------ */

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
	if (!sim_mem_make_room(s, missing, t))
		return -ENOMEM;
	r = sim_frames_reserve(s, missing);
	if (r < 0)
		return r;
	if (!t->alive)
		return -ESRCH;
	r = sim_memcg_charge(s, t, UCG_MEM_FILE, missing, &cg, &done);
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
	sim_memcg_add(cg, (int64_t)missing);
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
	struct sim_cg *origin = sim_task_cg(s, t, UCG_SS_blkio);
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
			sim_frame_flags(s, fr, p->flags | SIM_PG_DIRTY);
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
	if (sim_dirty_over_background(s))
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
