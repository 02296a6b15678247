/* sim/mem_writeback.c — the memory model's writeback: the vm.dirty_* thresholds
 * (background and limit, of dirtyable memory), writers blocked above the limit, and
 * the flusher that writes dirty pages back in dirtying order, a request extended over
 * the following dirty pages of the file while they resolve to the same charged
 * cgroup. The rules are described at the top of mem.c ("Dirty pages and writeback").
 */
#include "sim/mem_impl.h"

#include <string.h>

#include "base/alloc.h"

#define WB_MAX_PAGES 64

static uint64_t dirtyable(struct sim *s)
{
	return s->mem_pages > s->anon_used ? s->mem_pages - s->anon_used : 0;
}

bool sim_dirty_over_limit(struct sim *s)
{
	return s->dirty + s->writeback >= dirtyable(s) * s->dirty_ratio / 100;
}

bool sim_dirty_over_background(struct sim *s)
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
bool sim_writeback_one(struct sim *s, uint32_t fr)
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
		sim_frame_flags(s, g, (q->flags & ~SIM_PG_DIRTY) | SIM_PG_WRITEBACK);
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
		if (!sim_dirty_over_background(s) && !sim_dirty_over_limit(s) &&
		    p->dirtied > s->now - s->dirty_expire && !s->blocked)
			break;
		s->fifo_head = (s->fifo_head + 1) & (s->fifo_cap - 1);
		s->fifo_len--;
		if (!sim_writeback_one(s, fr))
			break;
	}
}

void sim_flush_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
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
	struct sim_cg_run run = { NULL, 0, 0, 0 };
	uint32_t i, cleaned = 0;

	for (i = 0; i < r->npages; i++) {
		uint32_t fr = sim_file_frame(f, r->first_page + i);

		if (fr == SIM_NO_FRAME)
			continue;
		sim_frame_clean_run(s, fr, &run);
		cleaned++;
	}
	sim_cg_run_flush(s, &run);
	s->writeback -= cleaned;
	s->flush_inflight--;
	if (r->charged)
		SIM_CG_UP(r->charged, wb_bytes, r->bytes);
	wake_allocs(s);
	wake_writers(s);
	flush_work(s);
}
