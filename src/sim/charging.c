/* sim/charging.c — the seed's charging designs: what each page carries to know who
 * pays when it is written back, and how that record is resolved.
 *
 * The record lives in s->records, rec_size bytes per page frame, laid out exactly as
 * below; the bytes-per-page figures are sizeof these layouts.
 *
 *  kernel   (3.16) struct { struct sim_cg *memcg; uint64_t flags; }: 16 bytes, the
 *           size of 3.16's struct page_cgroup (pointer + flags). Writeback I/O is
 *           issued by the flusher and charged to the flusher's blkio cgroup (the
 *           root): the originator is never charged. Helper I/O is charged to the
 *           helper.
 *  pid      struct { int32_t pid; uint32_t flags; }: 8 bytes. The dirtier's pid. At
 *           writeback the pid is looked up and its *current* blkio cgroup pays; if the
 *           process has exited the charge is orphaned (counted, charged to the root).
 *           Memory refunds go to the pid's current memcg (misdirected if it moved;
 *           lost if it exited).
 *  consumer struct { uint32_t consumer; uint32_t flags; }: 8 bytes. A consumer id
 *           standing for the dirtier's tuple of cgroups at dirtying time (one per
 *           hierarchy), interned in a table that never forgets, so it resolves to a
 *           cgroup in each hierarchy even after the dirtier exited or moved (the
 *           seed's "extra level of indirection"; the table costs SIM_MAX_HIER
 *           pointers per distinct tuple, not per page). It charges the cgroups the
 *           dirtier was in when it dirtied, not where it is now.
 *  dual     uint64_t: bits 0-30 memcg index + 1, bits 31-61 blkio cgroup index + 1,
 *           bit 62 dirty, bit 63 used: 8 bytes, the seed's "two indexes and an extra
 *           bit in half the space". Indexes are cgroup ids (2^31 - 1 cgroups); the
 *           index table is one pointer per cgroup.
 *  inode    struct { struct sim_cg *memcg; }: 8 bytes, the page->mem_cgroup pointer
 *           of later kernels (flags live in struct page anyway). Writeback is charged
 *           to the inode's owner: initially the first dirtier's blkio cgroup; the
 *           owner switches to a foreign cgroup that dirtied more than half of the
 *           inode's pages since the last decision (decided every 64 dirtied pages at
 *           writeback time) — a simplification of the kernel's bdi_writeback
 *           foreign-inode detection. The per-inode state is not counted per page.
 *
 * Limits: records identify cgroups by the simulator's struct sim_cg, which stands for
 * the kernel's css; an index reused after rmdir is not modelled (ids never repeat).
 */
#include "sim/sim_impl.h"

#include <string.h>

struct rec_kernel {
	struct sim_cg *memcg;
	uint64_t flags;
};

struct rec_pid {
	int32_t pid;
	uint32_t flags;
};

struct rec_consumer {
	uint32_t consumer;
	uint32_t flags;
};

struct rec_inode {
	struct sim_cg *memcg;
};

#define DUAL_IDX_MASK 0x7fffffffull
#define DUAL_DIRTY (1ull << 62)
#define DUAL_USED (1ull << 63)

size_t sim_charging_record_size(enum sim_charging c)
{
	switch (c) {
	case SIM_CHARGING_KERNEL:
		return sizeof(struct rec_kernel);
	case SIM_CHARGING_PID:
		return sizeof(struct rec_pid);
	case SIM_CHARGING_CONSUMER:
		return sizeof(struct rec_consumer);
	case SIM_CHARGING_DUAL:
		return sizeof(uint64_t);
	case SIM_CHARGING_INODE:
		return sizeof(struct rec_inode);
	default:
		return 0;
	}
}

uint32_t sim_consumer_of(struct sim *s, struct sim_task *t)
{
	sim_task_refresh(s, t);
	return t->consumer;
}

static int hier_index(struct sim *s, int ss)
{
	struct sim_hier *h = sim_hier_of(s, ss);

	return h ? h->index : -1;
}

static inline struct sim_cg *dirtier_memcg(struct sim *s, struct sim_dirtier *d)
{
	if (!(d->have & SIM_DIRTIER_MEMCG)) {
		d->memcg = sim_task_cg(s, d->t, UCG_SS_memory);
		d->have |= SIM_DIRTIER_MEMCG;
	}
	return d->memcg;
}

static inline struct sim_cg *dirtier_blkcg(struct sim *s, struct sim_dirtier *d)
{
	if (!(d->have & SIM_DIRTIER_BLKCG)) {
		d->blkcg = sim_task_cg(s, d->t, UCG_SS_blkio);
		d->have |= SIM_DIRTIER_BLKCG;
	}
	return d->blkcg;
}

struct sim_cg *sim_dirtier_blkcg(struct sim *s, struct sim_dirtier *d)
{
	return dirtier_blkcg(s, d);
}

static inline uint32_t dirtier_consumer(struct sim *s, struct sim_dirtier *d)
{
	if (!(d->have & SIM_DIRTIER_CONSUMER)) {
		d->consumer = sim_consumer_of(s, d->t);
		d->have |= SIM_DIRTIER_CONSUMER;
	}
	return d->consumer;
}

/* The record of one page (inlined in both entry points: this is per page) */
static inline void record(struct sim *s, unsigned char *rec, struct sim_dirtier *d)
{
	switch (s->cfg.charging) {
	case SIM_CHARGING_KERNEL: {
		struct rec_kernel k;

		memcpy(&k, rec, sizeof(k));
		if (!(k.flags & 1)) /* the memcg is the first toucher's, set once */
			k.memcg = dirtier_memcg(s, d);
		k.flags |= 1 | 2;
		memcpy(rec, &k, sizeof(k));
		break;
	}
	case SIM_CHARGING_PID: {
		struct rec_pid p = { d->t->tgid, 3 };

		memcpy(rec, &p, sizeof(p));
		break;
	}
	case SIM_CHARGING_CONSUMER: {
		struct rec_consumer c = { dirtier_consumer(s, d), 3 };

		memcpy(rec, &c, sizeof(c));
		break;
	}
	case SIM_CHARGING_DUAL: {
		struct sim_cg *b = dirtier_blkcg(s, d);
		uint64_t w;

		memcpy(&w, rec, sizeof(w));
		/* memcg index: the first toucher's; blkio index: the latest dirtier's */
		if (!(w & DUAL_USED)) {
			struct sim_cg *m = dirtier_memcg(s, d);

			w = (m ? (uint64_t)(m->id + 1) & DUAL_IDX_MASK : 0) | DUAL_USED;
		}
		w &= ~(DUAL_IDX_MASK << 31);
		w |= (b ? ((uint64_t)(b->id + 1) & DUAL_IDX_MASK) : 0) << 31;
		w |= DUAL_DIRTY;
		memcpy(rec, &w, sizeof(w));
		break;
	}
	case SIM_CHARGING_INODE: {
		struct rec_inode in;

		memcpy(&in, rec, sizeof(in));
		if (!in.memcg)
			in.memcg = dirtier_memcg(s, d);
		memcpy(rec, &in, sizeof(in));
		break;
	}
	default:
		break;
	}
}

void sim_charging_record(struct sim *s, unsigned char *rec, struct sim_task *t)
{
	struct sim_dirtier d;

	sim_dirtier_init(&d, t);
	record(s, rec, &d);
}

void sim_charging_record_as(struct sim *s, unsigned char *rec, struct sim_dirtier *d)
{
	record(s, rec, d);
}

void sim_charging_record_frames(struct sim *s, const uint32_t *frames, size_t n,
				struct sim_dirtier *d)
{
	size_t i;

	/* one call for a run of pages: the design's case is picked per page still, but
	 * inlined, without a call per page */
	for (i = 0; i < n; i++)
		record(s, sim_fr_rec(s, frames[i]), d);
}

bool sim_charging_by_record(const struct sim *s)
{
	/* kernel: the writer's cgroup; inode: the file's owner */
	return s->cfg.charging != SIM_CHARGING_KERNEL && s->cfg.charging != SIM_CHARGING_INODE;
}

struct sim_cg *sim_charging_resolve(struct sim *s, const unsigned char *rec, struct sim_file *f,
				    struct sim_task *writer, bool *ret_orphan)
{
	*ret_orphan = false;
	switch (s->cfg.charging) {
	case SIM_CHARGING_KERNEL: return writer ? sim_task_cg(s, writer, UCG_SS_blkio) : NULL;
	case SIM_CHARGING_PID: {
		struct rec_pid p;
		struct sim_task *t;

		memcpy(&p, rec, sizeof(p));
		t = sim_task_find(s, p.pid);
		if (!t || !t->alive) {
			*ret_orphan = true;
			return sim_hier_of(s, UCG_SS_blkio) ? sim_hier_of(s, UCG_SS_blkio)->root
							    : NULL;
		}
		return sim_task_cg(s, t, UCG_SS_blkio);
	}
	case SIM_CHARGING_CONSUMER: {
		struct rec_consumer c;
		int hi = hier_index(s, UCG_SS_blkio);

		memcpy(&c, rec, sizeof(c));
		if (hi < 0 || c.consumer >= s->nconsumers)
			return NULL;
		return s->consumers[c.consumer].cg[hi];
	}
	case SIM_CHARGING_DUAL: {
		uint64_t w, idx;

		memcpy(&w, rec, sizeof(w));
		idx = (w >> 31) & DUAL_IDX_MASK;
		return idx && idx <= s->ncgs ? s->cgs[idx - 1] : NULL;
	}
	case SIM_CHARGING_INODE:
		return f ? f->wb_owner : NULL;
	default:
		return NULL;
	}
}

struct sim_cg *sim_charging_refund_cg(struct sim *s, const unsigned char *rec,
				      const struct sim_frame *fr)
{
	switch (s->cfg.charging) {
	case SIM_CHARGING_KERNEL: {
		struct rec_kernel k;

		memcpy(&k, rec, sizeof(k));
		return k.flags ? k.memcg : fr->memcg;
	}
	case SIM_CHARGING_PID: {
		struct rec_pid p;
		struct sim_task *t;

		memcpy(&p, rec, sizeof(p));
		if (!p.flags)
			return fr->memcg; /* never dirtied: charged and refunded by frame */
		t = sim_task_find(s, p.pid);
		return t && t->alive ? sim_task_cg(s, t, UCG_SS_memory) : NULL;
	}
	case SIM_CHARGING_CONSUMER: {
		struct rec_consumer c;
		int hi = hier_index(s, UCG_SS_memory);

		memcpy(&c, rec, sizeof(c));
		if (!c.flags)
			return fr->memcg;
		return hi >= 0 && c.consumer < s->nconsumers ? s->consumers[c.consumer].cg[hi] : NULL;
	}
	case SIM_CHARGING_DUAL: {
		uint64_t w, idx;

		memcpy(&w, rec, sizeof(w));
		if (!(w & DUAL_USED))
			return fr->memcg;
		idx = w & DUAL_IDX_MASK;
		return idx && idx <= s->ncgs ? s->cgs[idx - 1] : NULL;
	}
	case SIM_CHARGING_INODE: {
		struct rec_inode in;

		memcpy(&in, rec, sizeof(in));
		return in.memcg ? in.memcg : fr->memcg;
	}
	default:
		return NULL;
	}
}

void sim_charging_clear(struct sim *s, unsigned char *rec)
{
	memset(rec, 0, s->rec_size);
}

void sim_charging_inode_dirty(struct sim *s, struct sim_file *f, struct sim_task *t)
{
	sim_charging_inode_dirty_n(f, sim_task_cg(s, t, UCG_SS_blkio), 1);
}

void sim_charging_inode_dirty_n(struct sim_file *f, struct sim_cg *b, uint64_t n)
{
	int i, slot = -1;

	if (!f->wb_owner)
		f->wb_owner = b;
	for (i = 0; i < 4; i++)
		if (f->tally_cg[i] == b && f->tally[i]) {
			slot = i;
			break;
		}
	if (slot < 0)
		for (i = 0; i < 4; i++)
			if (!f->tally[i]) {
				slot = i;
				break;
			}
	if (slot < 0)
		return; /* more than four dirtiers at once: the rest are not tallied */
	f->tally_cg[slot] = b;
	f->tally[slot] += n;
}

void sim_charging_inode_decide(struct sim *s, struct sim_file *f)
{
	uint64_t total = 0;
	int i, best = -1;

	(void)s;
	for (i = 0; i < 4; i++) {
		total += f->tally[i];
		if (f->tally[i] && (best < 0 || f->tally[i] > f->tally[best]))
			best = i;
	}
	if (total < 64)
		return;
	if (best >= 0 && f->tally_cg[best] != f->wb_owner && 2 * f->tally[best] > total)
		f->wb_owner = f->tally_cg[best];
	for (i = 0; i < 4; i++) {
		f->tally[i] = 0;
		f->tally_cg[i] = NULL;
	}
}
