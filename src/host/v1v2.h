/* host/v1v2.h — cgroup v1 settings translated to cgroup v2 files (no I/O).
 *
 * The engine validates a v1 write exactly as the kernel would; once it has accepted
 * it, ucg_v1v2_translate says which v2 files of the cgroup's v2 leaf must be written,
 * and with what, so the host kernel enforces the same limit. The reverse direction
 * (v1 statistics computed from v2 files) is host/v2stat.h.
 *
 * Formulas (README.md, "Enforcement", has the verdict, exact or approximate, per file):
 *
 *   memory.limit_in_bytes L        memory.max = L ("max" when unlimited), and
 *                                  memory.swap.max again (it depends on L)
 *   memory.memsw.limit_in_bytes S  memory.swap.max = S - L ("max" when S unlimited).
 *                                  v1 refuses S < L, so S - L never underflows.
 *   memory.soft_limit_in_bytes     memory.low (unlimited soft limit = no preference = 0)
 *   memory.force_empty             memory.reclaim of everything (the kernel stops with
 *                                  EAGAIN when it cannot reclaim more)
 *   cpu.shares s                   cpu.weight = ceil(10^((l^2 + 125 l)/612 - 7/34)),
 *                                  l = log2(s), clamped to [1, 10000] (runc's curve:
 *                                  2 -> 1, 1024 -> 100, 262144 -> 10000)
 *   cpu.cfs_quota_us/period_us     cpu.max = "QUOTA PERIOD" or "max PERIOD"
 *   cpu.cfs_burst_us               cpu.max.burst
 *   blkio.weight w                 io.bfq.weight = "default w" (same 10..1000 scale) and
 *                                  io.weight = "default 1 + (w - 10) * 9999 / 990"
 *   blkio.weight_device "M:m w"    the same, per device (w = 0 -> "M:m default")
 *   blkio.throttle.{read,write}_{bps,iops}_device "M:m N"
 *                                  io.max = "M:m rbps=N" (wbps, riops, wiops); 0 -> max
 *   pids.max                       pids.max (same text)
 *   freezer.state FROZEN/THAWED    cgroup.freeze = 1 / 0
 *   cpuset.cpus / cpuset.mems      cpuset.cpus / cpuset.mems (same list syntax)
 *   cpuset.cpu_exclusive 1/0       cpuset.cpus.partition = root / member
 *   hugetlb.SIZE.limit_in_bytes    hugetlb.SIZE.max; .rsvd.limit_in_bytes -> .rsvd.max
 *
 * Everything else has no v2 counterpart and stays policy (-ENOENT).
 */
#ifndef UCG_HOST_V1V2_H
#define UCG_HOST_V1V2_H

#include <stddef.h>
#include <stdint.h>

#include "controllers/cpu_v2.h" /* the quota split and the weight curve */

/* What the v1 memory files read when unlimited: PAGE_COUNTER_MAX pages of 4 KiB. */
#define UCG_V1_MEM_MAX 9223372036854771712ULL

#define UCG_V2_FILE_MAX 48
#define UCG_V2_VALUE_MAX 64
/* At most this many v2 writes come from one v1 write. */
#define UCG_V2_SET_MAX 2

/* One write to a file of the v2 leaf. */
struct ucg_v2_set {
	char file[UCG_V2_FILE_MAX];
	char value[UCG_V2_VALUE_MAX];
	int optional; /* the file may be absent (io.bfq.weight without BFQ): skip on ENOENT */
};

/* The v1 values of one cgroup that another file's translation needs. */
struct ucg_v1v2_state {
	uint64_t mem_limit;   /* bytes; UCG_V1_MEM_MAX when unlimited */
	uint64_t memsw_limit; /* bytes; UCG_V1_MEM_MAX when unlimited */
	int64_t cfs_quota_us; /* -1: none */
	uint64_t cfs_period_us;
};

/* A new cgroup's state: unlimited memory and swap, no quota, a 100 ms period. */
void ucg_v1v2_state_init(struct ucg_v1v2_state *st);

/* Translates one accepted v1 write. file: the v1 file's name ("memory.limit_in_bytes");
 * (buf, len): the text written to it, as the engine accepted it. Fills out[0..n) and
 * returns n (0 < n <= UCG_V2_SET_MAX), updating *st; -ENOENT when the file has no v2
 * counterpart (policy only); -EINVAL when the text does not parse (the engine should
 * have refused it). On error nothing is written. */
int ucg_v1v2_translate(struct ucg_v1v2_state *st, const char *file, const char *buf, size_t len,
		       struct ucg_v2_set *out);

/* The value that puts v2 file back as it was before set was written, from old, the
 * file's content read just before: for a keyed file (io.max, io.weight, io.bfq.weight:
 * set's value starts "MAJ:MIN " or "default ") the old line of that key, or the key's
 * default when it had none; else the old content without its newline ("\n" when it
 * was empty, which a cgroup file takes as an empty value). Written into out (size
 * bytes). 0; -ENOENT when there is nothing to undo (memory.reclaim is an action);
 * -ENAMETOOLONG when it does not fit. */
int ucg_v2_undo_value(const struct ucg_v2_set *set, const char *old, char *out, size_t size);

/* blkio.weight (10..1000) -> io.weight (1..10000); 0 stays 0. */
uint64_t ucg_v1v2_io_weight(uint64_t weight);

#endif
