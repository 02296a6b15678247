/* controllers/hugetlb.c — the hugetlb controller (docs/kernel/controllers.md §11).
 *
 * Model. For each huge page size of the reference machine (x86_64: 2MB and 1GB) a
 * cgroup has two hierarchical page counters (controllers/counter.c), counted in
 * 4 KiB pages as the kernel does: "usage", charged when a huge page is faulted in
 * (a refusal means SIGBUS for the task), and "rsvd", charged when huge pages are
 * reserved at mmap time (a refusal means mmap fails with ENOMEM). A charge of n huge
 * pages is n * pages_per_huge_page units and counts in every ancestor; the level
 * that refuses counts it in its failcnt.
 *
 * Files per size S: hugetlb.S.{limit_in_bytes, usage_in_bytes, max_usage_in_bytes,
 * failcnt}, the same four with "rsvd." and hugetlb.S.numa_stat. A limit is MEM bytes,
 * turned into pages (rounded down, clamped to PAGE_COUNTER_MAX) and then rounded
 * down to whole huge pages — so "-1" reads 9223372036852678656 for 2MB, while a
 * never-written limit reads MEMMAX. Limits are EINVAL at the root and EBUSY below the
 * current usage; a new child starts unlimited (nothing is inherited).
 *
 * Limits of the model: one NUMA node holds every huge page (numa_stat's N0); the
 * 1GB files are always present (the machine here only supports 2MB, see
 * docs/controllers-verified.md), no surplus/pool accounting.
 */
#include "base/memparse.h"
#include "controllers/charge.h"
#include "controllers/counter.h"
#include "engine/cgroup.h"
#include "engine/hierarchy.h"
#include "engine/task.h"
#include "engine/types.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>

/* 4 KiB pages per huge page, by size. */
static const uint64_t hpage_pages[UCG_HUGETLB_NR_SIZES] = {
	[UCG_HUGETLB_2MB] = 512,
	[UCG_HUGETLB_1GB] = 262144,
};

struct hugetlb_cg {
	struct ucg_css css;
	/* Per size: faulted-in pages and reservations, in 4 KiB pages, linked to the
	 * parent's counters. Owned by this css. */
	struct ucg_counter usage[UCG_HUGETLB_NR_SIZES];
	struct ucg_counter rsvd[UCG_HUGETLB_NR_SIZES];
	struct hugetlb_cg *parent; /* NULL at the root */
};

/* private of a file: size << 8 | field */
enum { F_LIMIT, F_USAGE, F_MAX_USAGE, F_FAILCNT, F_RSVD = 0x10 };
#define PRIV(size, f) (((unsigned long)(size) << 8) | (f))
#define PRIV_SIZE(p) ((enum ucg_hugetlb_size)((p) >> 8))
#define PRIV_FIELD(p) ((p) & 0x0f)
#define PRIV_RSVD(p) (((p) & F_RSVD) != 0)

static struct hugetlb_cg *css_hcg(struct ucg_css *css)
{
	return ucg_container_of(css, struct hugetlb_cg, css);
}

static struct hugetlb_cg *cgroup_hcg(struct ucg_cgroup *cg)
{
	return css_hcg(cg->css[UCG_SS_hugetlb]);
}

int ucg_hugetlb_get(const struct ucg_cgroup *cg, enum ucg_hugetlb_size size, bool rsvd,
		    struct ucg_hugetlb_state *ret)
{
	const struct ucg_counter *c;

	if (!cg->css[UCG_SS_hugetlb] || (unsigned)size >= UCG_HUGETLB_NR_SIZES)
		return -EINVAL;
	c = rsvd ? &css_hcg(cg->css[UCG_SS_hugetlb])->rsvd[size]
		 : &css_hcg(cg->css[UCG_SS_hugetlb])->usage[size];
	ret->limit = c->max * UCG_PAGE_SIZE;
	ret->usage = c->usage * UCG_PAGE_SIZE;
	ret->max_usage = c->watermark * UCG_PAGE_SIZE;
	ret->failcnt = c->failcnt;
	return 0;
}

static struct ucg_counter *file_counter(struct ucg_of *of)
{
	struct hugetlb_cg *hc = css_hcg(of->css);
	unsigned long p = of->cft->private;

	return PRIV_RSVD(p) ? &hc->rsvd[PRIV_SIZE(p)] : &hc->usage[PRIV_SIZE(p)];
}

/* ---- charge helpers ---------------------------------------------------------------------- */

static int hcg_charge(struct hugetlb_cg *hc, enum ucg_hugetlb_size size, bool rsvd, uint64_t n,
		      struct ucg_charge_result *res)
{
	struct ucg_counter *c, *fail;
	uint64_t units;

	if ((unsigned)size >= UCG_HUGETLB_NR_SIZES)
		return -EINVAL;
	if (n > UINT64_MAX / hpage_pages[size])
		return -ENOMEM;
	units = n * hpage_pages[size];
	c = rsvd ? &hc->rsvd[size] : &hc->usage[size];
	if (res)
		res->reclaimed = 0;
	/* the refusing level has counted the failure; refusal() names it */
	return ucg_counter_try_charge(c, units, &fail);
}

static int hcg_uncharge(struct hugetlb_cg *hc, enum ucg_hugetlb_size size, bool rsvd, uint64_t n)
{
	struct ucg_counter *c;
	uint64_t units;

	if ((unsigned)size >= UCG_HUGETLB_NR_SIZES)
		return -EINVAL;
	if (n > UINT64_MAX / hpage_pages[size])
		return -ERANGE;
	units = n * hpage_pages[size];
	c = rsvd ? &hc->rsvd[size] : &hc->usage[size];
	if (c->usage < units)
		return -ERANGE;
	return ucg_counter_uncharge(c, units);
}

/* ---- life cycle -------------------------------------------------------------------------- */

static int hugetlb_css_alloc(struct ucg_css *css, struct ucg_css *parent_css)
{
	struct hugetlb_cg *hc = css_hcg(css), *p = parent_css ? css_hcg(parent_css) : NULL;
	int i;

	for (i = 0; i < UCG_HUGETLB_NR_SIZES; i++) {
		ucg_counter_init(&hc->usage[i], p ? &p->usage[i] : NULL, UCG_PAGE_COUNTER_MAX);
		ucg_counter_init(&hc->rsvd[i], p ? &p->rsvd[i] : NULL, UCG_PAGE_COUNTER_MAX);
	}
	hc->parent = p;
	return 0;
}

/* rmdir: charges still held pass to the parent (whose counters include them). */
static void hugetlb_css_offline(struct ucg_css *css)
{
	struct hugetlb_cg *hc = css_hcg(css);
	int i;

	if (!hc->parent)
		return;
	for (i = 0; i < UCG_HUGETLB_NR_SIZES; i++) {
		hc->usage[i].usage = 0;
		hc->rsvd[i].usage = 0;
	}
}

/* ---- file handlers ----------------------------------------------------------------------- */

static int hugetlb_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct ucg_counter *c = file_counter(of);
	uint64_t v;

	switch (PRIV_FIELD(of->cft->private)) {
	case F_LIMIT:
		v = c->max * UCG_PAGE_SIZE;
		break;
	case F_USAGE:
		v = c->usage * UCG_PAGE_SIZE;
		break;
	case F_MAX_USAGE:
		v = c->watermark * UCG_PAGE_SIZE;
		break;
	default:
		v = c->failcnt;
		break;
	}
	ucg_buf_printf(out, "%" PRIu64 "\n", v);
	return 0;
}

static int hugetlb_limit_write(struct ucg_of *of, uint64_t bytes)
{
	uint64_t per = hpage_pages[PRIV_SIZE(of->cft->private)];
	uint64_t pages = ucg_mem_to_units(bytes, UCG_PAGE_SIZE, UCG_PAGE_COUNTER_MAX);

	if (!css_hcg(of->css)->parent)
		return -EINVAL;
	pages -= pages % per;
	return ucg_counter_set_max(file_counter(of), pages);
}

/* max_usage_in_bytes and failcnt: any bytes reset them. */
static int hugetlb_reset_write(struct ucg_of *of, const char *buf, size_t len)
{
	if (PRIV_FIELD(of->cft->private) == F_MAX_USAGE)
		ucg_counter_reset_watermark(file_counter(of));
	else
		ucg_counter_reset_failcnt(file_counter(of));
	return 0;
}

static uint64_t subtree_usage(struct ucg_cgroup *top, enum ucg_hugetlb_size size)
{
	/* usage is hierarchical already: the subtree's total is the counter's usage */
	return cgroup_hcg(top)->usage[size].usage;
}

static int numa_stat_show(struct ucg_of *of, struct ucg_buf *out)
{
	enum ucg_hugetlb_size size = PRIV_SIZE(of->cft->private);
	struct hugetlb_cg *hc = css_hcg(of->css);
	unsigned nodes = of->e->cfg.nr_mems ? of->e->cfg.nr_mems : 1, n;
	uint64_t local = hc->usage[size].usage, hier = subtree_usage(of->cg, size);
	struct ucg_list *pos;

	/* local = own usage minus the children's (the counter is hierarchical) */
	ucg_list_for_each(pos, &of->cg->children)
		local -= cgroup_hcg(ucg_container_of(pos, struct ucg_cgroup, sibling))->usage[size].usage;
	ucg_buf_printf(out, "total=%" PRIu64, local * UCG_PAGE_SIZE);
	for (n = 0; n < nodes; n++)
		ucg_buf_printf(out, " N%u=%" PRIu64, n, n ? 0 : local * UCG_PAGE_SIZE);
	ucg_buf_printf(out, "\nhierarchical_total=%" PRIu64, hier * UCG_PAGE_SIZE);
	for (n = 0; n < nodes; n++)
		ucg_buf_printf(out, " N%u=%" PRIu64, n, n ? 0 : hier * UCG_PAGE_SIZE);
	ucg_buf_putc(out, '\n');
	return 0;
}

/* ---- charging API (charge.h) ------------------------------------------------------------- */

/* The hugetlb cgroup of cg: 0 and *ret (NULL for a NULL cg: hugetlb bound nowhere), or
 * -EINVAL if cg is not of the hierarchy hugetlb is bound to. */
static int cg_hcg(struct ucg_cgroup *cg, struct hugetlb_cg **ret)
{
	if (!cg) {
		*ret = NULL;
		return 0;
	}
	if (!cg->css[UCG_SS_hugetlb])
		return -EINVAL;
	*ret = cgroup_hcg(cg);
	return 0;
}

/* Fills res's path and hierarchy with the level that refused, found by walking up
 * from hc (the counter that refused is the first whose usage + units > max). */
static void refusal(struct hugetlb_cg *hc, enum ucg_hugetlb_size size, bool rsvd, uint64_t n,
		    struct ucg_charge_result *res)
{
	uint64_t units = n * hpage_pages[size];
	struct hugetlb_cg *it;

	if (!res)
		return;
	for (it = hc; it; it = it->parent) {
		struct ucg_counter *c = rsvd ? &it->rsvd[size] : &it->usage[size];

		if (units > c->max || c->usage > c->max - units)
			break;
	}
	if (!it)
		return;
	res->hierarchy_id = it->css.cgroup->h->id;
	res->cgroup = it->css.cgroup;
	if (res->path)
		ucg_cgroup_path(it->css.cgroup, res->path);
}

static int charge_and_report(struct hugetlb_cg *hc, enum ucg_hugetlb_size size, bool rsvd,
			     uint64_t n, struct ucg_charge_result *res)
{
	int r = hcg_charge(hc, size, rsvd, n, res);

	if (r == -ENOMEM && (unsigned)size < UCG_HUGETLB_NR_SIZES &&
	    n <= UINT64_MAX / hpage_pages[size])
		refusal(hc, size, rsvd, n, res);
	return r;
}

int ucg_hugetlb_charge(struct ucg_cgroup *cg, enum ucg_hugetlb_size size, bool rsvd,
		       uint64_t npages, struct ucg_charge_result *result)
{
	struct hugetlb_cg *hc;
	int r = cg_hcg(cg, &hc);

	if (r < 0 || !hc)
		return r;
	return charge_and_report(hc, size, rsvd, npages, result);
}

int ucg_hugetlb_uncharge(struct ucg_cgroup *cg, enum ucg_hugetlb_size size, bool rsvd,
			 uint64_t npages)
{
	struct hugetlb_cg *hc;
	int r = cg_hcg(cg, &hc);

	if (r < 0 || !hc)
		return r;
	return hcg_uncharge(hc, size, rsvd, npages);
}

/* ---- tables ------------------------------------------------------------------------------ */

#define HUGETLB_RES(S, size, sub, rsvd)                                                        \
	{ .name = S "." sub "limit_in_bytes", .mode = 0644, .show = hugetlb_show,                 \
	  .write_mem = hugetlb_limit_write, .private = PRIV(size, F_LIMIT | (rsvd)) },            \
	{ .name = S "." sub "usage_in_bytes", .mode = 0444, .show = hugetlb_show,                 \
	  .private = PRIV(size, F_USAGE | (rsvd)) },                                              \
	{ .name = S "." sub "max_usage_in_bytes", .mode = 0644, .show = hugetlb_show,             \
	  .write = hugetlb_reset_write, .private = PRIV(size, F_MAX_USAGE | (rsvd)) },            \
	{ .name = S "." sub "failcnt", .mode = 0644, .show = hugetlb_show,                        \
	  .write = hugetlb_reset_write, .private = PRIV(size, F_FAILCNT | (rsvd)) }

#define HUGETLB_SIZE(S, size)                                                                  \
	HUGETLB_RES(S, size, "", 0), HUGETLB_RES(S, size, "rsvd.", F_RSVD),                    \
		{ .name = S ".numa_stat", .mode = 0444, .show = numa_stat_show,                \
		  .private = PRIV(size, 0) }

static const struct ucg_cftype hugetlb_files[] = {
	HUGETLB_SIZE("2MB", UCG_HUGETLB_2MB),
	HUGETLB_SIZE("1GB", UCG_HUGETLB_1GB),
	{ 0 },
};

const struct ucg_subsys ucg_hugetlb_subsys = {
	.name = "hugetlb",
	.id = UCG_SS_hugetlb,
	.css_size = sizeof(struct hugetlb_cg),
	.css_alloc = hugetlb_css_alloc,
	.css_offline = hugetlb_css_offline,
	.files = hugetlb_files,
};
