/* host/v2stat.h — v1 statistics files computed from a v2 leaf's files (no I/O).
 *
 * The caller supplies a reader for the leaf's v2 files; ucg_v2stat_show formats the
 * v1 file from them. Sources (README.md, "Enforcement", gives the verdict per file):
 *
 *   memory.usage_in_bytes          memory.current
 *   memory.max_usage_in_bytes      memory.peak (Linux 5.19+)
 *   memory.failcnt                 memory.events "max"
 *   memory.oom_control             "oom_kill_disable 0", under_oom from memory.events
 *                                  "oom" minus "oom_kill" (an OOM not yet resolved by a
 *                                  kill), oom_kill from "oom_kill"
 *   memory.memsw.usage_in_bytes    memory.current + memory.swap.current
 *   memory.memsw.failcnt           memory.swap.events "max"
 *   memory.stat                    memory.stat's anon/file/... under v1's names, each
 *                                  also as total_NAME, plus hierarchical_memory_limit
 *                                  (memory.max) and hierarchical_memsw_limit
 *   cpu.stat                       cpu.stat: nr_periods, nr_throttled, throttled_time =
 *                                  throttled_usec * 1000 (and nr_bursts, burst_time)
 *   cpuacct.usage / usage_user / usage_sys
 *                                  cpu.stat usage_usec / user_usec / system_usec * 1000
 *   cpuacct.stat                   user/system in USER_HZ (100): usec / 10000
 *   blkio.[throttle.]io_service_bytes, blkio.[throttle.]io_serviced
 *                                  io.stat rbytes/wbytes/dbytes, rios/wios/dios
 *   pids.current, pids.events      the same files
 *   freezer.state                  FROZEN if cgroup.events says frozen 1, else
 *                                  FREEZING if cgroup.freeze is 1, else THAWED
 *   freezer.self_freezing          cgroup.freeze
 *   hugetlb.SIZE.usage_in_bytes    hugetlb.SIZE.current; failcnt: hugetlb.SIZE.events max
 *   cpuset.effective_cpus / mems   cpuset.cpus.effective / cpuset.mems.effective
 */
#ifndef UCG_HOST_V2STAT_H
#define UCG_HOST_V2STAT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/* Reads the v2 file named file of the leaf into out (appending). 0 or -errno. */
typedef int (*ucg_v2_read_fn)(void *ctx, const char *file, struct ucg_buf *out);

/* Formats the v1 file's content from the leaf's v2 files into out (appending).
 * Returns 0; -ENOENT when the v1 file is not computed from v2 (the engine serves it)
 * or a v2 file it needs is absent; another -errno from read. On error out is as it was. */
int ucg_v2stat_show(const char *v1file, ucg_v2_read_fn read, void *ctx, struct ucg_buf *out);

/* The value of key in a flat keyed file ("key value" lines). 0 or -ENOENT/-EINVAL. */
int ucg_v2_keyed(const char *text, const char *key, uint64_t *ret);

#endif
