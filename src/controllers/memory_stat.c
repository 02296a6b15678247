/* controllers/memory_stat.c — the memory controller's statistics: memory.stat and
 * memory.numa_stat.
 *
 * memory.stat: one local value per item (pages or events), the total_* lines sum the
 * subtree at read time. A removed cgroup passes its remaining pages to its parent's
 * local statistics (the hierarchical counters already include them). Charges move
 * the items through memcg_stat_add; the model has no LRU aging (new pages stay on the
 * inactive lists) and no dirty/writeback/refault accounting (those lines read 0).
 * memory.numa_stat puts every page on node 0.
 */
#include "controllers/memory_impl.h"

#include <inttypes.h>

/* The memory.stat items in 6.18 order; events are printed as counts, the rest are
 * pages printed in bytes. */
static const struct {
	const char *name;
	int event;
} mem_stat_desc[NR_MEM_STAT] = {
	[ST_CACHE] = { "cache", 0 },
	[ST_RSS] = { "rss", 0 },
	[ST_RSS_HUGE] = { "rss_huge", 0 },
	[ST_SHMEM] = { "shmem", 0 },
	[ST_MAPPED_FILE] = { "mapped_file", 0 },
	[ST_DIRTY] = { "dirty", 0 },
	[ST_WRITEBACK] = { "writeback", 0 },
	[ST_WS_REFAULT_ANON] = { "workingset_refault_anon", 1 },
	[ST_WS_REFAULT_FILE] = { "workingset_refault_file", 1 },
	[ST_SWAP] = { "swap", 0 },
	[ST_SWAPCACHED] = { "swapcached", 0 },
	[ST_PGPGIN] = { "pgpgin", 1 },
	[ST_PGPGOUT] = { "pgpgout", 1 },
	[ST_PGFAULT] = { "pgfault", 1 },
	[ST_PGMAJFAULT] = { "pgmajfault", 1 },
	[ST_INACTIVE_ANON] = { "inactive_anon", 0 },
	[ST_ACTIVE_ANON] = { "active_anon", 0 },
	[ST_INACTIVE_FILE] = { "inactive_file", 0 },
	[ST_ACTIVE_FILE] = { "active_file", 0 },
	[ST_UNEVICTABLE] = { "unevictable", 0 },
};

void memcg_stat_add(struct memcg *m, enum ucg_mem_kind kind, uint64_t n, int sign)
{
#define ADJ(i) (m->stat[i] = sign > 0 ? m->stat[i] + n : m->stat[i] - n)
	switch (kind) {
	case UCG_MEM_ANON:
		ADJ(ST_RSS);
		ADJ(ST_INACTIVE_ANON);
		break;
	case UCG_MEM_FILE:
		ADJ(ST_CACHE);
		ADJ(ST_INACTIVE_FILE);
		break;
	case UCG_MEM_SHMEM:
		ADJ(ST_CACHE);
		ADJ(ST_SHMEM);
		ADJ(ST_INACTIVE_ANON);
		break;
	default:
		break;
	}
#undef ADJ
	if (kind != UCG_MEM_KERNEL) {
		if (sign > 0)
			m->stat[ST_PGPGIN] += n;
		else
			m->stat[ST_PGPGOUT] += n;
	}
}

static void subtree_stat(struct memcg *top, uint64_t *sum)
{
	struct ucg_cgroup *tcg = top->css.cgroup, *cg;
	int i;

	for (cg = tcg; cg; cg = memcg_preorder_next(cg, tcg)) {
		struct memcg *m = cgroup_memcg(cg);

		for (i = 0; i < NR_MEM_STAT; i++)
			sum[i] += m->stat[i];
	}
}

static uint64_t stat_value(int i, uint64_t v)
{
	return mem_stat_desc[i].event ? v : v * UCG_PAGE_SIZE;
}

int memcg_stat_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct memcg *m = css_memcg(of->css);
	uint64_t total[NR_MEM_STAT] = { 0 };
	int i;

	for (i = 0; i < NR_MEM_STAT; i++)
		ucg_buf_printf(out, "%s %" PRIu64 "\n", mem_stat_desc[i].name,
			       stat_value(i, m->stat[i]));
	ucg_buf_printf(out, "hierarchical_memory_limit %" PRIu64 "\n",
		       ucg_counter_hierarchical_max(&m->memory) * UCG_PAGE_SIZE);
	ucg_buf_printf(out, "hierarchical_memsw_limit %" PRIu64 "\n",
		       ucg_counter_hierarchical_max(&m->memsw) * UCG_PAGE_SIZE);
	subtree_stat(m, total);
	for (i = 0; i < NR_MEM_STAT; i++)
		ucg_buf_printf(out, "total_%s %" PRIu64 "\n", mem_stat_desc[i].name,
			       stat_value(i, total[i]));
	return 0;
}

static void numa_line(struct ucg_buf *out, const char *name, uint64_t pages, unsigned nodes)
{
	unsigned n;

	ucg_buf_printf(out, "%s=%" PRIu64, name, pages);
	for (n = 0; n < nodes; n++)
		ucg_buf_printf(out, " N%u=%" PRIu64, n, n == 0 ? pages : 0);
	ucg_buf_putc(out, '\n');
}

int memcg_numa_stat_show(struct ucg_of *of, struct ucg_buf *out)
{
	struct memcg *m = css_memcg(of->css);
	uint64_t t[NR_MEM_STAT] = { 0 };
	unsigned nodes = of->e->cfg.nr_mems ? of->e->cfg.nr_mems : 1;
	uint64_t file = m->stat[ST_INACTIVE_FILE] + m->stat[ST_ACTIVE_FILE];
	uint64_t anon = m->stat[ST_INACTIVE_ANON] + m->stat[ST_ACTIVE_ANON];
	uint64_t unev = m->stat[ST_UNEVICTABLE], hfile, hanon;

	subtree_stat(m, t);
	hfile = t[ST_INACTIVE_FILE] + t[ST_ACTIVE_FILE];
	hanon = t[ST_INACTIVE_ANON] + t[ST_ACTIVE_ANON];
	numa_line(out, "total", file + anon + unev, nodes);
	numa_line(out, "file", file, nodes);
	numa_line(out, "anon", anon, nodes);
	numa_line(out, "unevictable", unev, nodes);
	numa_line(out, "hierarchical_total", hfile + hanon + t[ST_UNEVICTABLE], nodes);
	numa_line(out, "hierarchical_file", hfile, nodes);
	numa_line(out, "hierarchical_anon", hanon, nodes);
	numa_line(out, "hierarchical_unevictable", t[ST_UNEVICTABLE], nodes);
	return 0;
}
