/* controllers/memory.c — the memory controller, memcg v1 as 6.18 shows it
 * (docs/kernel/controllers.md §4).
 *
 * Model. Each cgroup has four hierarchical page counters (controllers/counter.c):
 * memory, memsw (memory + swap), kmem and kmem.tcp, each linked to the same counter
 * of the parent, so a charge counts in every ancestor (6.18 is always hierarchical:
 * use_hierarchy reads 1 and only 1 may be written). Units are 4 KiB pages; a limit
 * written as MEM bytes becomes floor(bytes / 4096) pages, clamped to PAGE_COUNTER_MAX,
 * which reads back as MEMMAX = 2^63 - 4096.
 *
 * A charge of n pages (charge.h) goes to memsw first, then memory, as the kernel does;
 * a memory counter that refuses counts one failure in its failcnt (memsw refusals count
 * none: 6.18 tracks failcnt only on the memory counter). The engine then reclaims
 * clean page cache (the UCG_MEM_FILE pages) in the refusing cgroup's subtree, pre-order,
 * until the charge would fit, and retries once; if it still does not fit the charge
 * fails with ENOMEM and the caller learns which cgroup refused and whether its
 * oom_kill_disable is set (the task sleeps, under_oom reads 1) or not (the kernel
 * kills a task; oom_kill counts it here). Anonymous and shmem pages are never
 * reclaimed: the reference machine has no swap, so memsw usage equals memory usage.
 *
 * Limits: lowering memory.limit_in_bytes (or memsw) below usage first reclaims page
 * cache in the subtree, as the kernel does, and fails with EBUSY if usage still does
 * not fit; the reclaim is not undone (nor is it in the kernel). memsw ≥ memory is
 * enforced both ways with EINVAL. Writes to the four limit files, oom_control and
 * force_empty at the root are EINVAL; kmem.limit_in_bytes is parsed and ignored;
 * swappiness at the root stands for the global vm.swappiness and is inherited by
 * new children, like oom_kill_disable.
 *
 * memory.stat and memory.numa_stat are in memory_stat.c; notification (usage
 * thresholds, oom_control, pressure_level) in memory_events.c; what the files share
 * in memory_impl.h.
 *
 * The kernel's charge loop counts a failure at every attempt (batch of 64, exact size,
 * one per reclaim retry, 16 retries: about 19 per OOM). ucg_memory_charge keeps one
 * retry; a model that reclaims more than clean cache (the simulator: LRU, dirty pages,
 * swap) runs the kernel's loop itself with ucg_memory_try_charge, one attempt
 * each, and swaps with ucg_memory_swap_out (memory.stat swap, memsw keeps them).
 * Limits of the model: no soft-limit reclaim.
 */
#include "base/memparse.h"
#include "controllers/memory_impl.h"
#include "engine/event.h"
#include "engine/hierarchy.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>
#include <inttypes.h>

/* ---- charge helpers -------------------------------------------------------------------- */

/* Takes n pages of kind back from m (which holds them locally). */
static void memcg_uncharge_local(struct memcg *m, enum ucg_mem_kind kind, uint64_t n)
{
	struct memcg *it;

	m->pages[kind] -= n;
	memcg_stat_add(m, kind, n, -1);
	ucg_counter_uncharge(&m->memory, n);
	ucg_counter_uncharge(&m->memsw, n);
	if (kind == UCG_MEM_KERNEL)
		ucg_counter_uncharge(&m->kmem, n);
	/* A waiter may now fit: the kernel wakes it and under_oom drops. */
	for (it = m; it; it = it->parent)
		it->under_oom = 0;
	memcg_check_events(m, n);
}

/* Drops clean page cache in top's subtree, pre-order, until want pages are gone or
 * none is left. Returns the pages dropped. */
static uint64_t memcg_reclaim(struct memcg *top, uint64_t want)
{
	struct ucg_cgroup *tcg = top->css.cgroup, *cg;
	uint64_t done = 0;

	for (cg = tcg; cg && done < want; cg = memcg_preorder_next(cg, tcg)) {
		struct memcg *m = cgroup_memcg(cg);
		uint64_t n = m->pages[UCG_MEM_FILE];

		if (n > want - done)
			n = want - done;
		if (n) {
			memcg_uncharge_local(m, UCG_MEM_FILE, n);
			done += n;
		}
	}
	return done;
}

/* One charge attempt: memsw, then memory (and kmem for kernel pages, which has no
 * effective limit). Returns 0 or -ENOMEM with the refusing cgroup in *ret_over. */
static int memcg_try_charge_once(struct memcg *m, enum ucg_mem_kind kind, uint64_t n,
				 struct memcg **ret_over)
{
	struct ucg_counter *fail;

	if (ucg_counter_try_charge(&m->memsw, n, &fail) < 0) {
		/* 6.18 tracks failcnt on the memory counter only (track_failcnt is set
		 * for memcg->memory, not memsw): memory.memsw.failcnt stays 0, verified
		 * with a memsw limit refusing an allocation (docs/controllers-verified.md) */
		fail->failcnt--;
		*ret_over = ucg_container_of(fail, struct memcg, memsw);
		return -ENOMEM;
	}
	if (ucg_counter_try_charge(&m->memory, n, &fail) < 0) {
		ucg_counter_uncharge(&m->memsw, n);
		*ret_over = ucg_container_of(fail, struct memcg, memory);
		return -ENOMEM;
	}
	if (kind == UCG_MEM_KERNEL)
		ucg_counter_charge(&m->kmem, n);
	return 0;
}

/* Pages over the limit that refused: how much reclaim must free for n more. */
static uint64_t memcg_excess(struct memcg *over, uint64_t n)
{
	uint64_t need = 0;

	if (over->memory.usage + n > over->memory.max)
		need = over->memory.usage + n - over->memory.max;
	if (over->memsw.usage + n > over->memsw.max && over->memsw.usage + n - over->memsw.max > need)
		need = over->memsw.usage + n - over->memsw.max;
	return need;
}

static int memcg_charge(struct memcg *m, enum ucg_mem_kind kind, uint64_t n,
			struct ucg_charge_result *res)
{
	struct memcg *over = NULL;
	uint64_t reclaimed = 0;
	int r;

	if ((unsigned)kind >= UCG_MEM_NR_KINDS)
		return -EINVAL;
	r = memcg_try_charge_once(m, kind, n, &over);
	if (r < 0 && n <= over->memory.max && n <= over->memsw.max) {
		uint64_t want = memcg_excess(over, n);

		reclaimed = memcg_reclaim(over, want);
		/* only clean cache is scanned here, and each page scanned is freed */
		memcg_vmpressure(over, reclaimed, reclaimed);
		if (reclaimed < want)
			memcg_vmpressure_prio(over); /* reclaim went down to priority 0 */
		if (reclaimed)
			r = memcg_try_charge_once(m, kind, n, &over);
	}
	if (res)
		res->reclaimed = reclaimed;
	if (r < 0) {
		if (res) {
			res->hierarchy_id = over->css.cgroup->h->id;
			res->cgroup = over->css.cgroup;
			res->oom_kill_disable = over->oom_kill_disable;
			if (res->path)
				ucg_cgroup_path(over->css.cgroup, res->path);
		}
		if (over->oom_kill_disable)
			over->under_oom = 1;
		else
			over->oom_kill++; /* the front end kills the largest task of over */
		memcg_event_oom(over);
		return r;
	}
	m->pages[kind] += n;
	memcg_stat_add(m, kind, n, +1);
	memcg_check_events(m, n);
	return 0;
}

/* ---- life cycle ------------------------------------------------------------------------ */

static int memory_css_alloc(struct ucg_css *css, struct ucg_css *parent_css)
{
	struct memcg *m = css_memcg(css), *p = parent_css ? css_memcg(parent_css) : NULL;

	ucg_counter_init(&m->memory, p ? &p->memory : NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&m->memsw, p ? &p->memsw : NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&m->kmem, p ? &p->kmem : NULL, UCG_PAGE_COUNTER_MAX);
	ucg_counter_init(&m->tcpmem, p ? &p->tcpmem : NULL, UCG_PAGE_COUNTER_MAX);
	m->soft_limit = UCG_PAGE_COUNTER_MAX;
	m->swappiness = p ? p->swappiness : 60;
	m->oom_kill_disable = p ? p->oom_kill_disable : 0;
	m->parent = p;
	return 0;
}

/* rmdir: what is still charged here, and its statistics, pass to the parent (the
 * parent's counters already include the pages), so they can still be uncharged and
 * the parent's total_* lines keep counting them. */
static void memory_css_offline(struct ucg_css *css)
{
	struct memcg *m = css_memcg(css), *p = m->parent;
	int i;

	if (!p)
		return;
	for (i = 0; i < UCG_MEM_NR_KINDS; i++) {
		p->pages[i] += m->pages[i];
		m->pages[i] = 0;
	}
	for (i = 0; i < NR_MEM_STAT; i++) {
		p->stat[i] += m->stat[i];
		m->stat[i] = 0;
	}
	m->memory.usage = m->memsw.usage = m->kmem.usage = 0;
}

/* ---- typed state (charge.h) -------------------------------------------------------------- */

_Static_assert(UCG_MEMORY_UNLIMITED == UCG_MEMMAX, "charge.h spells the counter's max");

int ucg_memory_get(const struct ucg_cgroup *cg, struct ucg_memory_state *ret)
{
	const struct memcg *m;

	if (!cg->css[UCG_SS_memory])
		return -EINVAL;
	m = css_memcg(cg->css[UCG_SS_memory]);
	ret->limit = m->memory.max * UCG_PAGE_SIZE;
	ret->memsw_limit = m->memsw.max * UCG_PAGE_SIZE;
	ret->soft_limit = m->soft_limit * UCG_PAGE_SIZE;
	ret->usage = m->memory.usage * UCG_PAGE_SIZE;
	ret->max_usage = m->memory.watermark * UCG_PAGE_SIZE;
	ret->failcnt = m->memory.failcnt;
	ret->memsw_usage = m->memsw.usage * UCG_PAGE_SIZE;
	ret->swappiness = m->swappiness;
	ret->oom_kill_disable = m->oom_kill_disable;
	ret->under_oom = m->under_oom;
	ret->oom_kill = m->oom_kill;
	return 0;
}

/* ---- file handlers --------------------------------------------------------------------- */

static int show_u64(struct ucg_buf *out, uint64_t v)
{
	ucg_buf_printf(out, "%" PRIu64 "\n", v);
	return 0;
}

static int res_usage_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, memcg_counter(css_memcg(of->css), of->cft->private)->usage *
				     UCG_PAGE_SIZE);
}

static int res_max_usage_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, memcg_counter(css_memcg(of->css), of->cft->private)->watermark *
				     UCG_PAGE_SIZE);
}

static int res_limit_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct memcg *m = css_memcg(of->css);

	/* kmem.limit_in_bytes is never stored: it always reads MEMMAX */
	if (of->cft->private == RES_KMEM)
		return show_u64(out, UCG_MEMMAX);
	return show_u64(out, memcg_counter(m, of->cft->private)->max * UCG_PAGE_SIZE);
}

static int res_failcnt_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, memcg_counter(css_memcg(of->css), of->cft->private)->failcnt);
}

/* max_usage_in_bytes: any bytes reset the watermark to the current usage. */
static int res_max_usage_write(struct ucg_of *of, const char *buf, size_t len)
{
	ucg_counter_reset_watermark(memcg_counter(css_memcg(of->css), of->cft->private));
	return 0;
}

static int res_failcnt_write(struct ucg_of *of, const char *buf, size_t len)
{
	ucg_counter_reset_failcnt(memcg_counter(css_memcg(of->css), of->cft->private));
	return 0;
}

/* Sets c's max to pages, reclaiming page cache in m's subtree if usage is above. */
static int resize_max(struct memcg *m, struct ucg_counter *c, uint64_t pages)
{
	if (c->usage > pages)
		memcg_reclaim(m, c->usage - pages);
	return ucg_counter_set_max(c, pages);
}

static int res_limit_write(struct ucg_of *of, uint64_t bytes)
{
	struct memcg *m = css_memcg(of->css);
	uint64_t pages = ucg_mem_to_units(bytes, UCG_PAGE_SIZE, UCG_PAGE_COUNTER_MAX);
	int r;

	if (!m->parent)
		return -EINVAL;
	switch (of->cft->private) {
	case RES_MEM:
		if (pages > m->memsw.max)
			return -EINVAL;
		r = resize_max(m, &m->memory, pages);
		break;
	case RES_MEMSW:
		if (pages < m->memory.max)
			return -EINVAL;
		r = resize_max(m, &m->memsw, pages);
		break;
	case RES_TCP:
		r = ucg_counter_set_max(&m->tcpmem, pages);
		break;
	default: /* kmem: parsed, then ignored */
		r = 0;
		break;
	}
	if (r == 0)
		m->under_oom = 0; /* a raised limit lets a waiter go on */
	return r;
}

static int soft_limit_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, css_memcg(of->css)->soft_limit * UCG_PAGE_SIZE);
}

static int soft_limit_write(struct ucg_of *of, uint64_t bytes)
{
	css_memcg(of->css)->soft_limit = ucg_mem_to_units(bytes, UCG_PAGE_SIZE, UCG_PAGE_COUNTER_MAX);
	return 0;
}

static int force_empty_write(struct ucg_of *of, const char *buf, size_t len)
{
	struct memcg *m = css_memcg(of->css);

	if (!m->parent)
		return -EINVAL;
	/* best effort: drop all page cache of the subtree, succeed whatever remains */
	memcg_reclaim(m, UINT64_MAX);
	return 0;
}

static int use_hierarchy_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, 1);
}

static int use_hierarchy_write(struct ucg_of *of, uint64_t v)
{
	return v == 1 ? 0 : -EINVAL;
}

static int swappiness_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, css_memcg(of->css)->swappiness);
}

static int swappiness_write(struct ucg_of *of, uint64_t v)
{
	if (v > 200)
		return -EINVAL;
	css_memcg(of->css)->swappiness = (unsigned)v;
	return 0;
}

static int move_charge_show(struct ucg_of *of, struct ucg_buf *out)
{
	return show_u64(out, 0);
}

static int move_charge_write(struct ucg_of *of, uint64_t v)
{
	return v == 0 ? 0 : -EINVAL;
}

static int empty_show(struct ucg_of *of, struct ucg_buf *out)
{
	return 0;
}

/* ---- charging API (charge.h) ----------------------------------------------------------- */

/* The memcg of cg: 0 and *ret (NULL for a NULL cg: memory bound nowhere), or -EINVAL
 * if cg is not of the hierarchy memory is bound to. */
static int cg_memcg(const struct ucg_cgroup *cg, struct memcg **ret)
{
	if (!cg) {
		*ret = NULL;
		return 0;
	}
	if (!cg->css[UCG_SS_memory])
		return -EINVAL;
	*ret = css_memcg(cg->css[UCG_SS_memory]);
	return 0;
}

int ucg_memory_charge(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages,
		      struct ucg_charge_result *result)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	return memcg_charge(m, kind, pages, result);
}

static int memcg_uncharge(struct memcg *m, enum ucg_mem_kind kind, uint64_t pages)
{
	if ((unsigned)kind >= UCG_MEM_NR_KINDS)
		return -EINVAL;
	if (m->pages[kind] < pages)
		return -ERANGE;
	memcg_uncharge_local(m, kind, pages);
	return 0;
}

int ucg_memory_uncharge(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	return memcg_uncharge(m, kind, pages);
}

/* The pages in runs cut where a threshold check falls: each run ends at the page that
 * checks, so the check reads what it would after the single pages */
int ucg_memory_uncharge_pages(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	if ((unsigned)kind >= UCG_MEM_NR_KINDS)
		return -EINVAL;
	while (pages) {
		int64_t ev = (int64_t)(m->thresh_next - m->nr_page_events);
		uint64_t n = pages;

		if (ev < 0)
			ev = 0;
		if ((uint64_t)ev + 1 < n)
			n = (uint64_t)ev + 1;
		if (m->pages[kind] < n)
			n = m->pages[kind];
		if (!n)
			return -ERANGE;
		memcg_uncharge_local(m, kind, n);
		pages -= n;
	}
	return 0;
}

/* ---- the kernel's charge loop, one attempt at a time (for a model that reclaims) ---- */

int ucg_memory_try_charge(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages,
			  struct ucg_charge_result *res)
{
	struct memcg *m, *over = NULL;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	if ((unsigned)kind >= UCG_MEM_NR_KINDS)
		return -EINVAL;
	r = memcg_try_charge_once(m, kind, pages, &over);
	if (r < 0) {
		if (res) {
			res->hierarchy_id = over->css.cgroup->h->id;
			res->cgroup = over->css.cgroup;
			res->oom_kill_disable = over->oom_kill_disable;
			res->memsw = over->memsw.usage + pages > over->memsw.max;
			if (res->path)
				ucg_cgroup_path(over->css.cgroup, res->path);
		}
		return r;
	}
	m->pages[kind] += pages;
	memcg_stat_add(m, kind, pages, +1);
	memcg_check_events(m, pages); /* event notification */
	return 0;
}

/* Pages the next of the run's steps can still take, for counter c at step 0: the
 * batch attempt (pass: true) keeps passing at c, or the single page keeps fitting. */
static uint64_t fault_run_room(const struct ucg_counter *c, uint64_t batch, bool pass)
{
	return pass ? c->max - batch - c->usage + 1 : c->max - c->usage;
}

/* One step's attempts leave each counter as a page_counter walk does: the refused
 * batch raises the watermarks below the refusing level (rolled back, not lowered);
 * the single page is charged at every level. The run is cut where a level's answer
 * to the batch would change or a threshold check falls inside it, so each step's
 * effects are the first step's, shifted by one page: k of them add up in closed
 * form (maxima for the watermarks, sums for the rest). */
uint64_t ucg_memory_fault_run(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages,
			      uint64_t batch)
{
	struct ucg_counter *fail_sw = NULL, *fail_mem = NULL, *c;
	struct memcg *m, *it;
	uint64_t k = pages, room;
	int64_t ev;

	if (cg_memcg(cg, &m) < 0 || !m || kind != UCG_MEM_ANON || !batch)
		return 0;
	for (c = &m->memsw; c; c = c->parent) {
		if (batch > c->max || c->usage > c->max - batch) {
			fail_sw = c;
			break;
		}
		room = fault_run_room(c, batch, true);
		k = room < k ? room : k;
	}
	for (c = &m->memory; !fail_sw && c; c = c->parent) {
		if (batch > c->max || c->usage > c->max - batch) {
			fail_mem = c;
			break;
		}
		room = fault_run_room(c, batch, true);
		k = room < k ? room : k;
	}
	if (!fail_sw && !fail_mem)
		return 0; /* the batch would be charged: not such a run */
	for (it = m; it; it = it->parent) {
		room = fault_run_room(&it->memory, batch, false);
		k = room < k ? room : k;
		room = fault_run_room(&it->memsw, batch, false);
		k = room < k ? room : k;
	}
	/* the threshold check comes at the page passing thresh_next: at most the last */
	ev = (int64_t)(m->thresh_next - m->nr_page_events);
	if (ev < 0)
		ev = 0;
	if ((uint64_t)ev + 1 < k)
		k = (uint64_t)ev + 1;
	if (!k)
		return 0;
	for (c = &m->memsw; c != fail_sw; c = c->parent)
		if (c->usage + k - 1 + batch > c->watermark)
			c->watermark = c->usage + k - 1 + batch;
	for (c = &m->memory; !fail_sw && c != fail_mem; c = c->parent)
		if (c->usage + k - 1 + batch > c->watermark)
			c->watermark = c->usage + k - 1 + batch;
	if (fail_mem)
		fail_mem->failcnt += k; /* memsw.failcnt is not counted (memcg_try_charge_once) */
	ucg_counter_charge(&m->memsw, k);
	ucg_counter_charge(&m->memory, k);
	m->pages[kind] += k;
	memcg_stat_add(m, kind, k, +1);
	memcg_check_events(m, k);
	return k;
}

int ucg_memory_margin(const struct ucg_cgroup *cg, uint64_t *ret)
{
	struct memcg *m, *it;
	uint64_t margin = UINT64_MAX;
	int r = cg_memcg(cg, &m);

	if (r < 0)
		return r;
	for (it = m; it; it = it->parent) {
		uint64_t a = it->memory.usage < it->memory.max ? it->memory.max - it->memory.usage : 0;
		uint64_t b = it->memsw.usage < it->memsw.max ? it->memsw.max - it->memsw.usage : 0;

		if (a < margin)
			margin = a;
		if (b < margin)
			margin = b;
	}
	*ret = margin;
	return 0;
}

int ucg_memory_oom(struct ucg_cgroup *cg)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	if (!m->parent)
		return 0; /* the root has no limit of its own: no memcg OOM there */
	if (m->oom_kill_disable)
		m->under_oom = 1;
	else
		m->oom_kill++;
	/* pressure came from the reclaim rounds before (ucg_memory_vmpressure) */
	memcg_event_oom(m);
	return m->oom_kill_disable;
}

int ucg_memory_swap_out(struct ucg_cgroup *cg, uint64_t pages)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	if (m->pages[UCG_MEM_ANON] < pages)
		return -ERANGE;
	/* the page leaves memory but stays in memsw (memory + swap) */
	m->pages[UCG_MEM_ANON] -= pages;
	m->stat[ST_RSS] -= pages;
	m->stat[ST_INACTIVE_ANON] -= pages;
	m->stat[ST_PGPGOUT] += pages;
	m->stat[ST_SWAP] += pages;
	ucg_counter_uncharge(&m->memory, pages);
	memcg_check_events(m, pages); /* memcg1_swapout counts the pages */
	return 0;
}

int ucg_memory_swap_free(struct ucg_cgroup *cg, uint64_t pages)
{
	struct memcg *m, *it;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	if (m->stat[ST_SWAP] < pages)
		return -ERANGE;
	m->stat[ST_SWAP] -= pages;
	ucg_counter_uncharge(&m->memsw, pages);
	for (it = m; it; it = it->parent)
		it->under_oom = 0;
	/* no threshold check: freeing a swap entry is no page event in the kernel */
	return 0;
}

int ucg_memory_count_fault(struct ucg_cgroup *cg, bool major)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0 || !m)
		return r;
	m->stat[ST_PGFAULT]++;
	if (major)
		m->stat[ST_PGMAJFAULT]++;
	return 0;
}

/* ---- reclaim pressure reported by a model that scans its own LRU ---------------- */

int ucg_memory_vmpressure(struct ucg_cgroup *cg, uint64_t scanned, uint64_t reclaimed,
			  bool fell_short)
{
	struct memcg *m;
	int r = cg_memcg(cg, &m);

	if (r < 0)
		return r;
	if (reclaimed > scanned)
		return -EINVAL;
	if (!m)
		return 0;
	memcg_vmpressure(m, scanned, reclaimed);
	if (fell_short)
		memcg_vmpressure_prio(m);
	return 0;
}

/* ---- tables ---------------------------------------------------------------------------- */

#define RES_FILES(prefix, res, limit_write, reg)                                              \
	{ .name = prefix "usage_in_bytes", .mode = 0444, .show = res_usage_show,               \
	  .private = res, .register_event = reg },                                             \
	{ .name = prefix "max_usage_in_bytes", .mode = 0644, .show = res_max_usage_show,        \
	  .write = res_max_usage_write, .private = res },                                      \
	{ .name = prefix "limit_in_bytes", .mode = 0644, .show = res_limit_show,                \
	  .write_mem = limit_write, .private = res },                                          \
	{ .name = prefix "failcnt", .mode = 0644, .show = res_failcnt_show,                     \
	  .write = res_failcnt_write, .private = res }

static const struct ucg_cftype memory_files[] = {
	RES_FILES("", RES_MEM, res_limit_write, memcg_usage_register),
	RES_FILES("memsw.", RES_MEMSW, res_limit_write, memcg_usage_register),
	RES_FILES("kmem.", RES_KMEM, res_limit_write, NULL),
	RES_FILES("kmem.tcp.", RES_TCP, res_limit_write, NULL),
	{ .name = "kmem.slabinfo", .mode = 0444, .show = empty_show },
	{ .name = "soft_limit_in_bytes", .mode = 0644, .show = soft_limit_show,
	  .write_mem = soft_limit_write },
	{ .name = "stat", .mode = 0444, .show = memcg_stat_show },
	{ .name = "numa_stat", .mode = 0444, .show = memcg_numa_stat_show },
	{ .name = "force_empty", .mode = 0200, .write = force_empty_write },
	{ .name = "use_hierarchy", .mode = 0644, .show = use_hierarchy_show,
	  .write_u64 = use_hierarchy_write },
	{ .name = "swappiness", .mode = 0644, .show = swappiness_show,
	  .write_u64 = swappiness_write },
	{ .name = "move_charge_at_immigrate", .mode = 0644, .show = move_charge_show,
	  .write_u64 = move_charge_write },
	{ .name = "oom_control", .mode = 0644, .show = memcg_oom_control_show,
	  .write_u64 = memcg_oom_control_write, .register_event = memcg_oom_register },
	/* an event source only: read is EINVAL */
	{ .name = "pressure_level", .mode = 0444, .register_event = memcg_pressure_register },
	{ .name = "cgroup.event_control", .flags = UCG_CFT_NO_PREFIX, .mode = 0200,
	  .write = ucg_event_control_write },
	{ 0 },
};

const struct ucg_subsys ucg_memory_subsys = {
	.name = "memory",
	.id = UCG_SS_memory,
	.css_size = sizeof(struct memcg),
	.css_alloc = memory_css_alloc,
	.css_offline = memory_css_offline,
	.files = memory_files,
};
