/* controllers/charge.h — the controllers' charging and query API, used by the
 * filesystem front end, the host backend and the simulator. One section per controller.
 *
 * Common conventions: calls return 0 or -errno and act on a cgroup handle cg, a cgroup
 * of the hierarchy the controller is bound to (-EINVAL for a cgroup of any other). A
 * caller holding a task finds its cgroup with ucg_task_subsys_cgroup() (last section);
 * one holding a path, with ucg_cgroup_lookup() (engine/ucg.h).
 *
 * Controller bound nowhere: ucg_task_subsys_cgroup() then gives a NULL cg, and every
 * call of the sections below except the last accepts it: nothing is accounted, 0 is
 * returned, and a query answers as the kernel's root, which has no limit (margin
 * UINT64_MAX, no throttle, access allowed, priority 0). Arguments that need no cgroup
 * to check (a kind, an op, a device type, reclaimed > scanned) are still checked.
 * The typed state calls of the last section take a cgroup, never NULL.
 */
#ifndef UCG_CONTROLLERS_CHARGE_H
#define UCG_CONTROLLERS_CHARGE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/subsys.h" /* UCG_SS_*, the controller ids */
#include "engine/ucg.h"

/* What a refused charge reports (every member optional to read; pass NULL if unused). */
struct ucg_charge_result {
	/* in: if not NULL, the path of the cgroup whose limit refused is appended here */
	struct ucg_buf *path;
	/* out, on refusal: the hierarchy of that cgroup */
	int hierarchy_id;
	/* out, on refusal: that cgroup, for a model that reclaims in it (a handle, valid
	 * as engine/ucg.h says; no path to resolve again) */
	struct ucg_cgroup *cgroup;
	/* out, memory only, on refusal: that cgroup's oom_kill_disable. 0: the kernel would
	 * kill the largest task of that cgroup (and the engine has counted the kill in its
	 * oom_control); 1: the charging task would sleep until usage falls (under_oom 1). */
	int oom_kill_disable;
	/* out, memory only: clean page-cache pages dropped (uncharged) to make room, on
	 * success or failure; the simulator drops the same pages. */
	uint64_t reclaimed;
	/* out, memory only, on refusal: 1 if the memsw (memory + swap) limit refused, so
	 * swapping cannot help (the kernel clears MEMCG_RECLAIM_MAY_SWAP then) */
	int memsw;
};

/* ==== memory (memory.c) ========================================================== */

/* What a page is; decides the memory.stat lines it counts in. Every kind counts in
 * memory.usage_in_bytes and memory.memsw.usage_in_bytes. */
enum ucg_mem_kind {
	UCG_MEM_ANON,   /* rss, inactive_anon; never reclaimable (no swap) */
	UCG_MEM_FILE,   /* cache, inactive_file; clean, so reclaimable */
	UCG_MEM_SHMEM,  /* cache, shmem, inactive_anon; not reclaimable */
	UCG_MEM_KERNEL, /* kmem.usage_in_bytes only */
	UCG_MEM_NR_KINDS
};

/* Charges pages (4 KiB) of kind to memory cgroup cg and all its ancestors (memsw
 * first, then memory, as the kernel). A level at its limit counts a failure in its
 * failcnt; then clean page cache of that level's subtree is reclaimed and the charge
 * retried once. -ENOMEM if it still does not fit; result says where. */
int ucg_memory_charge(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages,
		      struct ucg_charge_result *result);
/* Takes pages of kind back. Pages stay charged to the cgroup that was charged: a task
 * that moved must be uncharged from the old cgroup (move_charge_at_immigrate is 0).
 * When a cgroup is removed its remaining charges pass to its parent. -ERANGE if the
 * cgroup holds fewer pages of that kind (nothing changes then). */
int ucg_memory_uncharge(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages);
/* The kernel's charge loop (try_charge_memcg) for a model that reclaims by itself:
 *  - try_charge: ONE page_counter attempt of pages (memsw first, then memory), no
 *    reclaim. A refusal counts one failure in the refusing cgroup's memory.failcnt
 *    (memsw.failcnt is never counted, as in 6.18) and fills result (path, hierarchy,
 *    oom_kill_disable, memsw); nothing stays charged. The kernel makes one attempt
 *    per try: first with a batch of 64 pages, then with the exact size, then once
 *    after each reclaim round (up to 16 retries, MAX_RECLAIM_RETRIES), so one OOM
 *    typically counts about 19 failures.
 *  - margin: pages that still fit under every limit on the path to the root.
 *  - oom: cgroup cg met an OOM: oom_kill counts it (the caller kills), or with
 *    oom_kill_disable, under_oom reads 1. Returns oom_kill_disable (0 or 1).
 *  - swap_out: pages of anon memory charged to cg go to swap: they leave
 *    memory.usage_in_bytes, stay in memsw.usage_in_bytes, and count in memory.stat
 *    swap instead of rss. swap_free: swapped pages freed (memsw uncharged).
 *    -ERANGE if the cgroup holds fewer such pages. */
int ucg_memory_try_charge(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages,
			  struct ucg_charge_result *result);
int ucg_memory_margin(const struct ucg_cgroup *cg, uint64_t *ret);
/* pages uncharges of one page each, as that many ucg_memory_uncharge of 1 leave
 * the counters, statistics and threshold events; -ERANGE once cg holds no more. */
int ucg_memory_uncharge_pages(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages);
/* Up to pages page faults of one page each on anon memory of cg while less than
 * batch pages fit: each one's attempt at batch is refused, then its page is charged,
 * exactly as that many pairs of try_charge (batch, then 1) would leave every counter,
 * failcnt, statistic and threshold event. Returns the faults done: fewer where the
 * pattern stops (the page would not fit, the refusing level would change, a threshold
 * check would come before the last), 0 when it does not hold at all. */
uint64_t ucg_memory_fault_run(struct ucg_cgroup *cg, enum ucg_mem_kind kind, uint64_t pages,
			      uint64_t batch);
int ucg_memory_oom(struct ucg_cgroup *cg);
int ucg_memory_swap_out(struct ucg_cgroup *cg, uint64_t pages);
int ucg_memory_swap_free(struct ucg_cgroup *cg, uint64_t pages);
/* vmpressure for a model that reclaims by itself: one reclaim round for cgroup cg (the
 * memcg whose limit refused; the root for global reclaim, as v1 reports only the
 * reclaim target) looked at scanned LRU pages and freed reclaimed of them;
 * fell_short: it freed less than it was asked, so the kernel's reclaim went down to
 * priority 0 (vmpressure_prio: critical). Windows of 512 scanned pages signal
 * memory.pressure_level: low below 60% not reclaimed, medium below 95%, critical.
 * -EINVAL if reclaimed > scanned. */
int ucg_memory_vmpressure(struct ucg_cgroup *cg, uint64_t scanned, uint64_t reclaimed,
			  bool fell_short);
/* Counts a page-fault event (memory.stat pgfault / pgmajfault) in cg. */
int ucg_memory_count_fault(struct ucg_cgroup *cg, bool major);

/* ==== hugetlb (hugetlb.c) ======================================================== */

enum ucg_hugetlb_size { UCG_HUGETLB_2MB, UCG_HUGETLB_1GB, UCG_HUGETLB_NR_SIZES };

/* Charges npages huge pages of size to hugetlb cgroup cg: rsvd = false charges usage
 * (a page fault; refusal means SIGBUS), rsvd = true the reservation counter (mmap
 * time; refusal means mmap fails with ENOMEM). -ENOMEM past any ancestor's limit,
 * whose failcnt (or rsvd.failcnt) counts it. uncharge takes them back. */
int ucg_hugetlb_charge(struct ucg_cgroup *cg, enum ucg_hugetlb_size size, bool rsvd,
		       uint64_t npages, struct ucg_charge_result *result);
int ucg_hugetlb_uncharge(struct ucg_cgroup *cg, enum ucg_hugetlb_size size, bool rsvd,
			 uint64_t npages);

/* ==== blkio (blkio.c) ============================================================ */

enum ucg_bio_op { UCG_BIO_READ, UCG_BIO_WRITE, UCG_BIO_DISCARD };

/* Accounts completed I/O of blkio cgroup cg (whoever issued it: a task of cg, or a
 * writeback or helper request a design charges to cg) on device major:minor: bytes
 * and ios to the throttle statistics (blkio.throttle.io_service_bytes / io_serviced)
 * and, if the device uses bfq, to the bfq ones. -ENODEV if the device is not one of
 * the engine's block devices. */
int ucg_blkio_account(struct ucg_cgroup *cg, uint32_t major, uint32_t minor,
		      enum ucg_bio_op op, bool sync, uint64_t bytes, uint64_t ios);

/* The limits that apply to I/O of cgroup cg on one device: each throttle value is
 * the smallest along the path to the root (UINT64_MAX / UINT32_MAX: no limit), the
 * weight is the cgroup's own bfq weight for the device (its weight_device override,
 * else its blkio.bfq.weight; 0 at the root, which has no weight). -ENODEV. */
struct ucg_blkio_limits {
	uint64_t read_bps, write_bps;
	uint32_t read_iops, write_iops;
	unsigned weight;
};
int ucg_blkio_limits(struct ucg_cgroup *cg, uint32_t major, uint32_t minor,
		     struct ucg_blkio_limits *ret);

/* ==== devices (devices.c) ======================================================== */

/* May a task of devices cgroup cg access the device (type 'b' or 'c') with access,
 * UCG_DEV_ACC_* bits (controllers/devices_rules.h)? 0 if allowed, -EPERM if cg denies
 * it (what open(2)/mknod(2) would return), -EINVAL for a bad type. */
int ucg_devices_may_access(struct ucg_cgroup *cg, char type, uint32_t major, uint32_t minor,
			   unsigned access);

/* ==== cpuset (cpuset.c) ========================================================== */

/* CPU and memory-node hot-plug: the online sets, as cpu_set_t-style bit arrays (bit i
 * is byte i / 8, bit i % 8; bits beyond nr_cpus / nr_mems are ignored). The root's
 * cpuset.cpus/mems become these sets; in v1 mode every other cpuset loses the CPUs and
 * nodes that went offline (and does not get them back when they return); then every
 * populated cpuset left without cpus or mems has its tasks moved to the nearest
 * ancestor that still has both (the provider hears their new masks). Returns the
 * number of tasks moved, -EINVAL if no CPU or no node would be online (nothing
 * changes), -ENOMEM. 0 if cpuset is bound to no hierarchy. */
int ucg_cpuset_set_online(struct ucg_engine *e, const unsigned char *cpus, size_t cpus_bytes,
			  const unsigned char *mems, size_t mems_bytes);
/* cpuset.memory_pressure: a task of cpuset cg went into direct reclaim at now_s
 * (seconds of the front end's monotonic clock). Counted in cg's filter while the
 * root's memory_pressure_enabled is 1; the time is kept for reads either way.
 * ucg_cpuset_clock tells the time alone (before a read). A task's effective cpus (for
 * checking sched_setaffinity()) are ucg_cpuset_get()'s. */
int ucg_cpuset_memory_pressure_bump(struct ucg_cgroup *cg, uint64_t now_s);
void ucg_cpuset_clock(struct ucg_engine *e, uint64_t now_s);

/* ==== cpuacct (cpuacct.c) ======================================================== */

/* Charges CPU time spent on cpu (0..nr_cpus-1) by a task of cpuacct cgroup cg:
 * user_ns and sys_ns nanoseconds to cg and, through the sums, to every ancestor.
 * -EINVAL for a cpu out of range. */
int ucg_cpuacct_charge(struct ucg_cgroup *cg, unsigned cpu, uint64_t user_ns, uint64_t sys_ns);

/* ==== cpu (cpu.c) ================================================================ */

/* The CFS bandwidth of a cpu cgroup (ucg_cpu_bandwidth_get, last section): its shares
 * and its own quota/period/burst in microseconds (quota -1: unlimited), and the
 * hierarchical ratio as the kernel's 20-bit fixed point (quota/period << 20,
 * UINT64_MAX: unlimited), for a scheduler model. */
struct ucg_cpu_bandwidth {
	uint64_t shares;
	int64_t quota_us;
	uint64_t period_us, burst_us;
	uint64_t ratio;
};
/* A scheduler model reports CFS bandwidth periods of cpu cgroup cg (a group whose
 * tasks all sit in its children still has its own periods and throttling, as in the
 * kernel): one more period (nr_periods), whether it was throttled, for how long
 * (summed over the CPUs whose runqueues were throttled, as the kernel's
 * throttled_time is), and burst use; the figures appear in cpu.stat. */
int ucg_cpu_account_period(struct ucg_cgroup *cg, int throttled, uint64_t throttled_ns,
			   uint64_t burst_ns);
/* cpu.stat.local: ns (summed over CPUs) the runqueues of cg spent throttled, by its
 * own quota or an ancestor's. */
int ucg_cpu_account_local(struct ucg_cgroup *cg, uint64_t throttled_ns);

/* ==== net_cls (net_cls.c) ======================================================== */

/* A cgroup's classid is ucg_net_cls_classid_get()'s (last section; 0: none). The tc
 * handle is major = classid >> 16, minor = classid & 0xffff. */

/* ==== net_prio (net_prio.c) ====================================================== */

/* The priority net_prio cgroup cg maps network device ifname to (0: leave the packet
 * priority alone). -ENODEV for a device not in the engine's list. */
int ucg_net_prio_priority(const struct ucg_cgroup *cg, const char *ifname, uint32_t *ret);

/* ==== typed state on a cgroup handle ============================================ */

/* What a front end enforcing the model (a kernel backend) or a model driving it reads
 * instead of a control file's text: each call takes a cgroup of the hierarchy the
 * controller is bound to (-EINVAL for any other) and fills *ret with the values the
 * controller's files show. The files' show handlers are built on the same calls. */

/* The cgroup task tid is in, in the hierarchy controller id (UCG_SS_*) is bound to;
 * *ret is NULL when the controller is bound nowhere. -ESRCH for an unknown or exited
 * task. */
int ucg_task_subsys_cgroup(struct ucg_engine *e, int tid, int id, struct ucg_cgroup **ret);

/* memory: limits and usage in bytes (a limit of UCG_MEMORY_UNLIMITED reads "max"),
 * as the memory.* files show them. */
#define UCG_MEMORY_UNLIMITED 9223372036854771712ull /* PAGE_COUNTER_MAX pages */
struct ucg_memory_state {
	uint64_t limit, memsw_limit, soft_limit;
	uint64_t usage, max_usage, failcnt, memsw_usage;
	unsigned swappiness;
	int oom_kill_disable, under_oom;
	uint64_t oom_kill;
};
int ucg_memory_get(const struct ucg_cgroup *cg, struct ucg_memory_state *ret);

/* cpu: shares, own quota/period/burst and the hierarchical ratio (struct above). */
int ucg_cpu_bandwidth_get(const struct ucg_cgroup *cg, struct ucg_cpu_bandwidth *ret);

/* cpuacct: CPU time of the cgroup and its descendants. */
struct ucg_cpuacct_usage {
	uint64_t user_ns, sys_ns;
};
int ucg_cpuacct_get(const struct ucg_cgroup *cg, struct ucg_cpuacct_usage *ret);

/* pids: pids.max (-1 for "max"), pids.current, pids.peak, pids.events' max. */
struct ucg_pids_state {
	int64_t max;
	uint64_t current, peak, events_max;
};
int ucg_pids_get(const struct ucg_cgroup *cg, struct ucg_pids_state *ret);

/* freezer: freezer.state and the two flags behind it. */
enum ucg_freezer_value { UCG_FREEZER_THAWED, UCG_FREEZER_FREEZING, UCG_FREEZER_FROZEN };
struct ucg_freezer_state {
	enum ucg_freezer_value state;
	int self_freezing, parent_freezing;
};
int ucg_freezer_get(const struct ucg_cgroup *cg, struct ucg_freezer_state *ret);

/* net_cls: net_cls.classid. */
int ucg_net_cls_classid_get(const struct ucg_cgroup *cg, uint32_t *ret);

/* hugetlb: one size's counter (rsvd: the reservation one), in bytes. */
struct ucg_hugetlb_state {
	uint64_t limit, usage, max_usage, failcnt;
};
int ucg_hugetlb_get(const struct ucg_cgroup *cg, enum ucg_hugetlb_size size, bool rsvd,
		    struct ucg_hugetlb_state *ret);

/* cpuset: cpuset.cpus and cpuset.mems (effective: cpuset.effective_*) as bit arrays
 * as in ucg_cpuset_set_online; cpus_bytes >= (nr_cpus + 7) / 8 and mems_bytes >=
 * (nr_mems + 7) / 8, else -EINVAL. */
int ucg_cpuset_get(const struct ucg_cgroup *cg, int effective, unsigned char *cpus,
		   size_t cpus_bytes, unsigned char *mems, size_t mems_bytes);

/* blkio: the cgroup's own rules per device, oldest first (throttle values UINT64_MAX /
 * UINT32_MAX where none is set; weight 0: no weight_device override), at most cap of
 * them into rules and their number in *ret_n (call with cap 0 to count); and its
 * blkio.bfq.weight in *ret_weight (0 at the root, which has none). */
struct ucg_blkio_rule {
	uint32_t major, minor;
	uint64_t read_bps, write_bps;
	uint32_t read_iops, write_iops;
	unsigned weight;
};
int ucg_blkio_get(const struct ucg_cgroup *cg, struct ucg_blkio_rule *rules, size_t cap,
		  size_t *ret_n, unsigned *ret_weight);

/* devices: the cgroup's rules (controllers/devices_rules.h), owned by the engine and
 * valid until the next write to a devices file of the hierarchy. */
struct ucg_devrules;
int ucg_devices_rules_get(const struct ucg_cgroup *cg, const struct ucg_devrules **ret);

#endif
