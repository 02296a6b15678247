/* sim/cpu_impl.h — what the CPU model's two files share: cpu.c (runqueues, shares,
 * balancing, time accrual) and cpu_bw.c (the CFS bandwidth timers: periods, quotas
 * running out, throttling). The model is described at the top of cpu.c. */
#ifndef UCG_SIM_CPU_IMPL_H
#define UCG_SIM_CPU_IMPL_H

#include "sim/sim_impl.h"

/* The CFS bandwidth state, kept in cpu.c's model state (sim_cpu_bw_of). */
struct cpu_bw {
	struct sim_cg **qg;  /* the groups with a quota, in tree order (sim_cpu_bw_refresh) */
	size_t nqg, cqg;
	int *flip;           /* slots (id + 1) whose throttling changed since the last
			      * recompute: the recompute checks only those */
	size_t nflip, cflip;
	bool flip_lost;      /* a flip could not be noted: the recompute checks every group */
};

/* cpu.c: makes room for need elements of size bytes in *p (capacity *cap, doubled
 * as needed); -ENOMEM leaves *p as it was. */
int sim_cpu_grow(void **p, size_t *cap, size_t need, size_t size);
/* cpu.c: the model's bandwidth state, NULL before the first recompute */
struct cpu_bw *sim_cpu_bw_of(struct sim *s);
/* cpu.c: a CPU timer changed some group's throttling (the rates are recomputed) */
void sim_cpu_throttling_changed(struct sim *s);

/* cpu_bw.c */
/* Reads every quota in hi again (a new or changed one starts a period now) and lists
 * the groups that have one; -ENOMEM. */
int sim_cpu_bw_refresh(struct sim *s, struct cpu_bw *bw, struct sim_hier *hi);
/* cg's rate becomes a: a group with a quota settles its runtime at the old rate. */
void sim_cpu_bw_rate(struct sim *s, struct sim_cg *cg, double a);
/* Schedules the CPU timer at the earliest CFS event; -ENOMEM. */
int sim_cpu_bw_schedule(struct sim *s, struct cpu_bw *bw);
/* The CPU timer (s->cpu_ev). */
void sim_cpu_bw_fire(struct sim *s, struct sim_event_src *src, uint64_t arg);
void sim_cpu_bw_fini(struct cpu_bw *bw);

#endif
