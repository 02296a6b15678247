/* controllers/cpu_v2.h — the cpu controller's v1 figures as cgroup v2 can carry them:
 * the shares -> weight curve, and the division of one v1 cpu cgroup's quota and weight
 * over the several v2 leaves its processes sit in when the v1 hierarchies diverge
 * (docs/enforcement.md, "Layout"). Pure arithmetic, no I/O: the host backend
 * (host/v2split.c) runs it on the kernel's figures once a second, and the simulator
 * (sim/v2split.c) on its own, so what the simulator measures of the split is the
 * daemon's own arithmetic. It sits here, below both, because neither may use the
 * other.
 */
#ifndef UCG_CONTROLLERS_CPU_V2_H
#define UCG_CONTROLLERS_CPU_V2_H

#include <stddef.h>
#include <stdint.h>

/* One v2 leaf among those that share a v1 cpu cgroup's quota (a divergent layout,
 * docs/enforcement.md): what it used since the last split and whether the kernel
 * throttled it meanwhile, its allotment until now (0: new) and, out, its next one. */
struct ucg_v2_split_leaf {
	uint64_t used_us;  /* CPU time used over the interval */
	int throttled;     /* nr_throttled grew over the interval */
	uint64_t alloc_us; /* quota per period it had (0: none yet) */
	uint64_t next_us;  /* out: quota per period from now on */
	int settled;       /* the split's own scratch */
};

/* The kernel's smallest cpu.max quota, microseconds. */
#define UCG_V2_MIN_QUOTA_US 1000

/* Splits quota_us per period_us over leaves[0..n) as v1 would share it among their
 * tasks, from what each did over the last interval_us: max-min fair (water-filling).
 * A leaf the kernel throttled, or a new one, wants as much as it can get; any other
 * wants what it used per period and a quarter more (room to grow: once it needs more
 * it is throttled and asks again). Shares are filled from the smallest demand up,
 * each leaf getting its demand or an equal part of what is left, whichever is less;
 * what no one wants is spread equally. So two busy leaves end even (as their tasks
 * would under one v1 quota), an idle one leaves its part to the busy one, and one
 * that wakes takes its fair part back at the next split. Each leaf gets at least
 * UCG_V2_MIN_QUOTA_US; the parts add up to quota_us, or to n minimum quotas when that
 * is more (the one way a split over-grants). */
void ucg_v2_split_quota(uint64_t quota_us, uint64_t period_us, uint64_t interval_us,
			struct ucg_v2_split_leaf *leaves, size_t n);

/* cpu.shares s -> cpu.weight = ceil(10^((l^2 + 125 l)/612 - 7/34)), l = log2(s),
 * clamped to [1, 10000] (runc's curve: 2 -> 1, 1024 -> 100, 262144 -> 10000); 0 stays
 * 0 (unset). */
uint64_t ucg_v1v2_cpu_weight(uint64_t shares);

/* The kernel's cpu.weight range. */
#define UCG_V2_MIN_WEIGHT 1
#define UCG_V2_MAX_WEIGHT 10000

/* One v2 directory among those that carry a v1 cpu cgroup's weight: how long its
 * tasks were runnable over the last interval (CPU used plus time spent waiting for a
 * CPU: the kernel's cpu.pressure "some" total, the simulator's shortfall) and, out,
 * the cpu.weight it gets. */
struct ucg_v2_weight_part {
	uint64_t demand_us;
	uint64_t weight; /* out */
};

/* Divides the v1 group's cpu.weight over parts[0..n) in proportion to their demand:
 * part i gets weight * demand_i / (sum of demands), rounded, at least
 * UCG_V2_MIN_WEIGHT and at most UCG_V2_MAX_WEIGHT; when no part had any demand, each
 * gets an equal part. This is what v1's CFS does with a group's shares over its
 * per-CPU runqueues (each gets shares in proportion to its runnable load), with v2
 * directories in place of CPUs: each part then weighs, among its v2 siblings, what
 * the group's tasks in it would weigh in v1. Where it is wrong (docs/enforcement.md):
 * a part's siblings are whatever its outer parent holds, and the outer parents share
 * the CPU by their own weights, which know nothing of the group; the parts lag
 * demand by one interval; a weight too small to divide gives each part at least 1. */
void ucg_v2_split_weight(uint64_t weight, struct ucg_v2_weight_part *parts, size_t n);

/* cpu.weight -> the shares the kernel's scheduler gives the group for it (the v2
 * interface's own conversion, weight * 1024 / 100 rounded, at least 2): what a v1
 * model (the simulator) writes to stand for a v2 weight. 0 stays 0. */
uint64_t ucg_v2_weight_shares(uint64_t weight);

#endif
