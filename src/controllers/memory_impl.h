/* controllers/memory_impl.h — what the memory controller's files share: the per-cgroup
 * state (struct memcg), its memory.stat items and the functions one file calls in
 * another (memory.c: charging, limits and the file table; memory_stat.c: memory.stat
 * and memory.numa_stat; memory_events.c: thresholds, OOM and pressure notification).
 * Private to src/controllers/memory*.c.
 */
#ifndef UCG_CONTROLLERS_MEMORY_IMPL_H
#define UCG_CONTROLLERS_MEMORY_IMPL_H

#include "base/buf.h"
#include "controllers/charge.h"
#include "controllers/counter.h"
#include "engine/cgroup.h"
#include "engine/types.h"

#include <stdint.h>

enum mem_stat {
	ST_CACHE,
	ST_RSS,
	ST_RSS_HUGE,
	ST_SHMEM,
	ST_MAPPED_FILE,
	ST_DIRTY,
	ST_WRITEBACK,
	ST_WS_REFAULT_ANON,
	ST_WS_REFAULT_FILE,
	ST_SWAP,
	ST_SWAPCACHED,
	ST_PGPGIN,
	ST_PGPGOUT,
	ST_PGFAULT,
	ST_PGMAJFAULT,
	ST_INACTIVE_ANON,
	ST_ACTIVE_ANON,
	ST_INACTIVE_FILE,
	ST_ACTIVE_FILE,
	ST_UNEVICTABLE,
	NR_MEM_STAT
};

/* Which counter a file's private value names. */
enum mem_res { RES_MEM, RES_MEMSW, RES_KMEM, RES_TCP };

struct memcg {
	struct ucg_css css;
	/* Hierarchical counters in pages, linked to the parent's (NULL at the root).
	 * Owned by this css; changed by charges here and in descendants and by writes. */
	struct ucg_counter memory, memsw, kmem, tcpmem;
	uint64_t soft_limit;  /* pages; stored only */
	unsigned swappiness;  /* 0..200; the root's is the global value */
	int oom_kill_disable; /* copied from the parent at mkdir */
	int under_oom;        /* a charge refused here is waiting (oom_kill_disable 1) */
	uint64_t oom_kill;    /* OOM kills counted in this cgroup */
	uint64_t pages[UCG_MEM_NR_KINDS]; /* pages charged here (not in descendants) */
	uint64_t stat[NR_MEM_STAT];       /* local memory.stat values (pages or events) */
	struct memcg *parent; /* NULL at the root; valid while this css is online */
	/* vmpressure: pages scanned and reclaimed for this cgroup's reclaim since the
	 * last 512-page window was evaluated (the kernel's tree_scanned/reclaimed) */
	uint64_t vmp_scanned, vmp_reclaimed;
	/* the threshold ratelimit: page events (pages charged plus uncharged) and the
	 * count past which the next check happens (nr_page_events, targets[THRESH]);
	 * one CPU's counters: the engine has no CPUs */
	uint64_t nr_page_events, thresh_next;
};

enum { PRESSURE_LOW, PRESSURE_MEDIUM, PRESSURE_CRITICAL };

static inline struct memcg *css_memcg(struct ucg_css *css)
{
	return ucg_container_of(css, struct memcg, css);
}

static inline struct memcg *cgroup_memcg(struct ucg_cgroup *cg)
{
	return css_memcg(cg->css[UCG_SS_memory]);
}

static inline struct ucg_counter *memcg_counter(struct memcg *m, unsigned long res)
{
	switch (res) {
	case RES_MEMSW:
		return &m->memsw;
	case RES_KMEM:
		return &m->kmem;
	case RES_TCP:
		return &m->tcpmem;
	default:
		return &m->memory;
	}
}

/* The cgroup after cg in a pre-order walk of top's subtree, or NULL at its end. */
static inline struct ucg_cgroup *memcg_preorder_next(struct ucg_cgroup *cg,
						     struct ucg_cgroup *top)
{
	if (!ucg_list_empty(&cg->children))
		return ucg_container_of(cg->children.next, struct ucg_cgroup, sibling);
	while (cg != top) {
		if (cg->sibling.next != &cg->parent->children)
			return ucg_container_of(cg->sibling.next, struct ucg_cgroup, sibling);
		cg = cg->parent;
	}
	return NULL;
}

/* memory_stat.c */
/* Adds (sign > 0) or takes away n pages of kind in m's local statistics. */
void memcg_stat_add(struct memcg *m, enum ucg_mem_kind kind, uint64_t n, int sign);
int memcg_stat_show(struct ucg_of *of, struct ucg_buf *out);
int memcg_numa_stat_show(struct ucg_of *of, struct ucg_buf *out);

/* memory_events.c */
/* n pages were charged to or uncharged from m: counts them as page events and checks
 * the usage thresholds when the events pass the next target. */
void memcg_check_events(struct memcg *m, uint64_t pages);
/* A reclaim round for m scanned and reclaimed so many pages (vmpressure). */
void memcg_vmpressure(struct memcg *m, uint64_t scanned, uint64_t reclaimed);
/* A reclaim for m fell short: the critical windows of vmpressure_prio(). */
void memcg_vmpressure_prio(struct memcg *m);
/* A charge was refused in over: signals its oom_control listeners and its subtree's. */
void memcg_event_oom(struct memcg *over);
int memcg_usage_register(struct ucg_of *of, struct ucg_event_reg *reg, const char *args);
int memcg_oom_register(struct ucg_of *of, struct ucg_event_reg *reg, const char *args);
int memcg_pressure_register(struct ucg_of *of, struct ucg_event_reg *reg, const char *args);
int memcg_oom_control_show(struct ucg_of *of, struct ucg_buf *out);
int memcg_oom_control_write(struct ucg_of *of, uint64_t v);

#endif
