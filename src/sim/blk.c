/* sim/blk.c — block devices, blkio throttling and proportional weight, I/O streams
 * of tasks, and the md-like RAID1 helper that submits I/O on behalf of requesters.
 *
 * Device. One request in service at a time; a request of b bytes takes
 *         service = max(b / bps, 1 / iops)
 * (iops 0: no IOPS limit). Bandwidth and IOPS are the device's (`device NAME MAJ:MIN
 * bps=... iops=...`).
 *
 * Throttling (blkio.throttle.*_device). Each cgroup with a rule for the device has a
 * leaky bucket per direction: a request of b bytes may start at
 *         t = max(now, next_c) over every ancestor c with a rule, then
 *         next_c = t + max(b / bps_c, 1 / iops_c)
 * so a cgroup never exceeds its rate (and neither does its subtree: each level with a
 * rule binds). No burst allowance (the kernel's slices allow short bursts). Held
 * requests wait for their release event, then join the device queue.
 *
 * Proportional weight (blkio.bfq.weight or blkio.weight, default 100). The queue is
 * served by weighted fair queueing between cgroups: each cgroup has a virtual time,
 * advanced by b / weight when one of its requests is dispatched; a cgroup that
 * becomes busy starts at the device's virtual clock (no credit for idling); the
 * request of the cgroup with the smallest virtual time goes next, FIFO within a
 * cgroup. Weights are per leaf cgroup (flat), not hierarchical as in BFQ.
 *
 * Who pays. A request carries the cgroup charged (for direct I/O and reads, the
 * issuing task's blkio cgroup; for writeback, whatever the charging design says;
 * for md helper I/O, the helper's cgroup under `kernel` and the requester's under
 * every other design, since those designs carry the originator on the request). The
 * charged cgroup's throttle and weight apply and its statistics count the bytes.
 *
 * Streams. `read`/`write` start a stream of a task: direct I/O and cache misses issue
 * one 256 KiB request at a time and wait for it (queue depth 1, like a synchronous
 * reader); buffered writes dirty 256 KiB of page cache per step at memory speed
 * (4 GiB/s) and block while the machine is above its dirty limit.
 *
 * md helper (`md NAME legs=A,B helper=TASK cpu=T`). A RAID1 device: a write goes to
 * every leg, a read to one leg chosen at random (the seeded PRNG). With a helper the
 * helper kthread resubmits each request, spending T of CPU per request (charged,
 * under `kernel`, to the helper's cgroups, under the other designs to the
 * requester's); without one the legs are submitted in the requester's context.
 *
 * The blkio controller's statistics (blkio.throttle.io_service_bytes, io_serviced,
 * the bfq ones) count every completed request in the cgroup charged (on its
 * handle, ucg_blkio_account), so under every design `cat blkio...` in a scenario shows
 * that design's attribution; writeback (and helper I/O for writeback) counts as
 * Async, the rest as Sync. The same cgroup's throttle rules hold the request.
 *
 * Limits. No request merging, no elevator, no queue depth beyond one per device, no
 * seek model. Helper CPU time is charged instantly, not scheduled by the CPU model.
 */
#include "sim/sim_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "base/alloc.h"
#include "controllers/charge.h"

#define IO_CHUNK (256 * 1024ull)
#define MEM_BW (4ull << 30) /* bytes/s at which a buffered write fills the cache */

static void dev_complete(struct sim *s, struct sim_event_src *src, uint64_t arg);
static void req_release(struct sim *s, struct sim_event_src *src, uint64_t arg);
static void io_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);
static void req_done(struct sim *s, struct sim_req *r);

int sim_dev_add(struct sim *s, const char *name, uint32_t major, uint32_t minor, uint64_t bps,
		uint32_t iops, struct sim_dev **ret)
{
	struct sim_dev *d;

	if (sim_dev_find(s, name))
		return -EEXIST;
	if (s->ndevs == SIM_MAX_DEV)
		return -ENOSPC;
	d = ucg_calloc(1, sizeof(*d));
	if (!d || !(d->name = ucg_strdup(name))) {
		ucg_free(d);
		return -ENOMEM;
	}
	d->ev.fire = dev_complete;
	d->index = (int)s->ndevs;
	d->major = major;
	d->minor = minor;
	d->bps = bps;
	d->iops = iops;
	s->devs[s->ndevs++] = d;
	if (ret)
		*ret = d;
	return 0;
}

struct sim_dev *sim_dev_find(struct sim *s, const char *name)
{
	size_t i;

	for (i = 0; name && i < s->ndevs; i++)
		if (!strcmp(s->devs[i]->name, name))
			return s->devs[i];
	return NULL;
}

static void free_list(struct sim_req *r)
{
	while (r) {
		struct sim_req *n = r->next;

		ucg_free(r);
		r = n;
	}
}

void sim_blk_fini(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->ndevs; i++) {
		free_list(s->devs[i]->queue);
		free_list(s->devs[i]->held);
		ucg_free(s->devs[i]->busy);
		ucg_free(s->devs[i]->name);
		ucg_free(s->devs[i]);
	}
	for (i = 0; i < s->ntasks; i++) {
		ucg_free(s->tasks[i]->io);
		s->tasks[i]->io = NULL;
	}
}

static sim_time cost(uint64_t bytes, uint64_t bps, uint32_t iops)
{
	sim_time t = 0, u;

	if (bps)
		t = (sim_time)((double)bytes * (double)SIM_SEC / (double)bps + 0.5);
	if (iops) {
		u = SIM_SEC / iops;
		if (u > t)
			t = u;
	}
	return t;
}

/* ---- the device queue ---------------------------------------------------------------- */

static void dev_start(struct sim *s, struct sim_dev *d)
{
	struct sim_req **pp, **best = NULL, *r;
	double bv = 0;

	if (d->busy || !d->queue)
		return;
	for (pp = &d->queue; *pp; pp = &(*pp)->next) {
		struct sim_cg *cg = (*pp)->charged;
		double v = cg ? cg->vtime[d->index] : d->vclock;

		if (!best || v < bv) {
			best = pp;
			bv = v;
		}
	}
	r = *best;
	*best = r->next;
	r->next = NULL;
	if (r->charged) {
		sim_cg_refresh(s, r->charged);
		d->vclock = r->charged->vtime[d->index];
		r->charged->vtime[d->index] += (double)r->bytes / (double)r->charged->blk_weight;
	}
	d->busy = r;
	d->busy_ns += cost(r->bytes, d->bps, d->iops);
	sim_schedule(s, s->now + cost(r->bytes, d->bps, d->iops), &d->ev, 0);
}

static void dev_enqueue(struct sim *s, struct sim_req *r)
{
	struct sim_dev *d = r->dev;
	struct sim_req **pp;
	bool busy_cg = false;

	for (pp = &d->queue; *pp; pp = &(*pp)->next)
		if ((*pp)->charged == r->charged)
			busy_cg = true;
	if (d->busy && d->busy->charged == r->charged)
		busy_cg = true;
	if (r->charged && !busy_cg && r->charged->vtime[d->index] < d->vclock)
		r->charged->vtime[d->index] = d->vclock;
	*pp = r;
	dev_start(s, d);
}

static void dev_complete(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_dev *d = (struct sim_dev *)src;
	struct sim_req *r = d->busy;

	(void)arg;
	d->busy = NULL;
	if (r) {
		d->bytes[r->op] += r->bytes;
		d->ios[r->op]++;
		if (r->charged) {
			struct sim_cg *c;
			const struct sim_req *top = r->parent ? r->parent : r;
			bool sync = top->kind != SIM_REQ_WRITEBACK;

			for (c = r->charged; c; c = c->parent) {
				c->io_bytes[d->index][r->op] += r->bytes;
				c->io_ios[d->index][r->op]++;
			}
			/* the controller's statistics: whoever the design made pay */
			if (!r->charged->removed)
				ucg_blkio_account(r->charged->ucg, d->major, d->minor,
						  r->op ? UCG_BIO_WRITE : UCG_BIO_READ, sync, r->bytes,
						  1);
		}
		req_done(s, r);
	}
	dev_start(s, d);
}

/* ---- throttling ---------------------------------------------------------------------- */

static void req_release(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_req *r = (struct sim_req *)src, **pp;

	(void)arg;
	for (pp = &r->dev->held; *pp; pp = &(*pp)->next)
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	r->next = NULL;
	dev_enqueue(s, r);
}

static void md_submit(struct sim *s, struct sim_req *r);

void sim_blk_submit(struct sim *s, struct sim_req *r)
{
	struct sim_dev *d = r->dev;
	sim_time at = s->now;
	struct sim_cg *c;
	int i = d->index;

	r->submitted = s->now;
	r->ev.fire = req_release;
	if (d->is_md) {
		md_submit(s, r);
		return;
	}
	for (c = r->charged; c; c = c->parent) {
		sim_cg_refresh(s, c);
		if ((r->op ? c->wbps[i] || c->wiops[i] : c->rbps[i] || c->riops[i]) &&
		    c->thr_next[i] > at)
			at = c->thr_next[i];
	}
	for (c = r->charged; c; c = c->parent) {
		uint64_t bps = r->op ? c->wbps[i] : c->rbps[i];
		uint32_t iops = r->op ? c->wiops[i] : c->riops[i];

		if (bps || iops)
			c->thr_next[i] = at + cost(r->bytes, bps, iops);
	}
	if (at > s->now) {
		r->next = d->held;
		d->held = r;
		sim_schedule(s, at, &r->ev, 0);
		return;
	}
	dev_enqueue(s, r);
}

/* ---- md RAID1 with a helper ------------------------------------------------------------ */

static void md_submit(struct sim *s, struct sim_req *r)
{
	struct sim_dev *md = r->dev;
	struct sim_task *helper = md->helper;
	struct sim_task *req_task = sim_task_find(s, r->charged_tid);
	bool kernel = s->cfg.charging == SIM_CHARGING_KERNEL;
	struct sim_cg *leg_cg = r->charged;
	unsigned i, first = 0, n = md->nlegs;

	if (helper) {
		/* the helper's CPU for this request */
		struct sim_task *payer = kernel || !req_task ? helper : req_task;
		size_t h;

		s->attr.helper_cpu_ns += md->helper_cpu_ns;
		if (payer != helper)
			s->attr.helper_cpu_to_origin += md->helper_cpu_ns;
		payer->cpu_ns += md->helper_cpu_ns;
		sim_task_refresh(s, payer);
		for (h = 0; h < s->nhier; h++)
			SIM_CG_UP(payer->cg[h], cpu_ns, md->helper_cpu_ns);
		if (kernel)
			leg_cg = sim_task_cg(s, helper, UCG_SS_blkio);
	}
	if (r->op == 0 && n > 1) {
		first = (unsigned)ucg_prng_below(&s->prng, n);
		n = 1;
	}
	r->pending = 0;
	/* the md device keeps its outstanding requests (so teardown can free them) */
	r->next = md->queue;
	md->queue = r;
	for (i = 0; i < n; i++) {
		struct sim_req *leg = ucg_calloc(1, sizeof(*leg));

		if (!leg)
			continue;
		leg->dev = md->legs[(first + i) % md->nlegs];
		leg->op = r->op;
		leg->bytes = r->bytes;
		leg->charged = leg_cg;
		leg->origin = r->origin;
		leg->charged_tid = helper && kernel ? helper->tid : r->charged_tid;
		leg->kind = SIM_REQ_HELPER;
		leg->parent = r;
		leg->md = md;
		if (helper) {
			s->attr.helper_bytes += leg->bytes;
			if (leg_cg == r->origin)
				s->attr.helper_to_origin += leg->bytes;
		}
		r->pending++;
		sim_blk_submit(s, leg);
	}
	if (r->pending == 0)
		req_done(s, r);
}

/* ---- streams ------------------------------------------------------------------------- */

static void stream_end(struct sim *s, struct sim_io *io)
{
	struct sim_task *t = io->task;
	static const char *const what[] = { "read", "write", "read direct", "write direct" };
	sim_time took = s->now - t->io_started;

	ucg_buf_puts(&s->log, "[");
	sim_format_time(s->now, &s->log);
	sim_logf(s, "] %s: %s %s done, %" PRIu64 " bytes in ", t->name, what[io->kind],
		 io->file ? io->file->name : io->dev->name, io->done);
	sim_format_time(took, &s->log);
	if (took > 0)
		sim_logf(s, " (%.2f MiB/s)", (double)io->done / 1048576.0 / ((double)took / SIM_SEC));
	ucg_buf_putc(&s->log, '\n');
	t->io = NULL;
	ucg_free(io);
}

static void req_done(struct sim *s, struct sim_req *r)
{
	struct sim_req *parent = r->parent;

	if (r->dev->is_md) {
		struct sim_req **pp;

		for (pp = &r->dev->queue; *pp; pp = &(*pp)->next)
			if (*pp == r) {
				*pp = r->next;
				break;
			}
	}

	switch (r->kind) {
	case SIM_REQ_WRITEBACK:
		sim_writeback_done(s, r);
		break;
	case SIM_REQ_HELPER:
		if (r->charged)
			SIM_CG_UP(r->charged, wb_bytes, r->bytes);
		if (parent && --parent->pending == 0)
			req_done(s, parent);
		break;
	default:
		if (r->io) {
			struct sim_io *io = r->io;

			io->inflight--;
			if (r->kind == SIM_REQ_BUFFERED_READ && io->task->alive)
				sim_cache_read(s, io->task, io->file, r->first_page, r->npages, true);
			sim_io_pump(s, io);
		}
		break;
	}
	ucg_free(r);
}

static void io_fire(struct sim *s, struct sim_event_src *src, uint64_t arg)
{
	struct sim_io *io = (struct sim_io *)src;

	(void)arg;
	io->scheduled = false;
	sim_io_pump(s, io);
}

static void io_later(struct sim *s, struct sim_io *io, sim_time at)
{
	io->scheduled = true;
	sim_schedule(s, at, &io->ev, 0);
}

static int submit_for(struct sim *s, struct sim_io *io, int kind, uint64_t first, uint64_t n,
		      uint64_t bytes)
{
	struct sim_req *r = ucg_calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->dev = io->dev;
	r->op = (io->kind == SIM_IO_WRITE || io->kind == SIM_IO_WRITE_DIRECT) ? 1 : 0;
	r->bytes = bytes;
	r->charged = sim_task_cg(s, io->task, UCG_SS_blkio);
	r->origin = r->charged;
	r->charged_tid = io->task->tid;
	r->kind = kind;
	r->io = io;
	r->first_page = (uint32_t)first;
	r->npages = (uint32_t)n;
	io->inflight++;
	sim_blk_submit(s, r);
	return 0;
}

void sim_io_pump(struct sim *s, struct sim_io *io)
{
	struct sim_task *t = io->task;
	uint64_t n, first, step;
	int r;

	if (io->inflight || io->blocked || io->scheduled)
		return;
	if (!t->alive) {
		t->io = NULL;
		ucg_free(io);
		return;
	}
	if (io->left == 0) {
		stream_end(s, io);
		return;
	}
	step = io->left < IO_CHUNK ? io->left : IO_CHUNK;
	if (io->file && (io->kind == SIM_IO_WRITE || io->kind == SIM_IO_WRITE_DIRECT)) {
		/* appends: each step goes to the end of the file as it is now (O_APPEND) */
		io->off = io->file->npages * SIM_PAGE;
		if (io->kind == SIM_IO_WRITE_DIRECT)
			io->file->npages = (io->off + step + SIM_PAGE - 1) / SIM_PAGE;
	}
	first = io->off / SIM_PAGE;
	n = (io->off + step + SIM_PAGE - 1) / SIM_PAGE - first;
	switch (io->kind) {
	case SIM_IO_READ_DIRECT:
	case SIM_IO_WRITE_DIRECT:
		r = submit_for(s, io, SIM_REQ_DIRECT, first, n, step);
		break;
	case SIM_IO_READ: {
		uint64_t miss = sim_cache_read(s, t, io->file, first, n, false);

		if (miss) {
			r = submit_for(s, io, SIM_REQ_BUFFERED_READ, first, n, miss * SIM_PAGE);
		} else {
			r = 0;
			io_later(s, io, s->now + cost(step, MEM_BW, 0));
		}
		break;
	}
	default: /* buffered write */
		if (sim_dirty_over_limit(s)) {
			io->blocked = true;
			io->next_blocked = s->blocked;
			s->blocked = io;
			sim_flusher_kick(s);
			return;
		}
		r = sim_cache_write(s, t, io->file, first, n);
		if (r == -ESRCH || !t->alive) {
			sim_io_pump(s, io);
			return;
		}
		if (r == -ENOMEM || r == -EAGAIN) {
			/* no memory even after reclaim (or memcg reclaim waits on writeback):
			 * wait for writeback like a blocked writer */
			io->blocked = true;
			io->next_blocked = s->blocked;
			s->blocked = io;
			sim_flusher_kick(s);
			return;
		}
		if (r == 0)
			io_later(s, io, s->now + cost(step, MEM_BW, 0));
		break;
	}
	if (r < 0) {
		sim_fail(s, 0, r, "%s: I/O", t->name);
		return;
	}
	io->off += step;
	io->left -= step;
	io->done += step;
}

int sim_io_start(struct sim *s, struct sim_task *t, int kind, struct sim_file *f,
		 struct sim_dev *d, uint64_t bytes, int line)
{
	struct sim_io *io;

	if (t->io)
		return sim_fail(s, line, -EBUSY, "%s: %s already has I/O running",
				kind == SIM_IO_READ || kind == SIM_IO_READ_DIRECT ? "read" : "write",
				t->name);
	io = ucg_calloc(1, sizeof(*io));
	if (!io)
		return sim_fail(s, line, -ENOMEM, "io");
	io->ev.fire = io_fire;
	io->task = t;
	io->kind = kind;
	io->file = f;
	io->dev = d;
	io->left = bytes;
	/* writes append to the file (step by step); reads start at its beginning */
	io->off = 0;
	t->io = io;
	t->io_started = s->now;
	io->chunk = IO_CHUNK;
	sim_io_pump(s, io);
	return 0;
}

void sim_io_cancel(struct sim *s, struct sim_task *t)
{
	struct sim_io **pp;

	if (!t->io)
		return;
	for (pp = &s->blocked; *pp; pp = &(*pp)->next_blocked)
		if (*pp == t->io) {
			*pp = t->io->next_blocked;
			break;
		}
	t->io->blocked = false;
	if (t->io->inflight || t->io->scheduled)
		return; /* the pending completion or event frees it: the task is gone by then */
	ucg_free(t->io);
	t->io = NULL;
}
