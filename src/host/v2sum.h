/* host/v2sum.h — a v2 statistics file summed over several cgroups (no I/O).
 *
 * An inner hierarchy's v1 cgroup of a divergent layout (docs/enforcement.md,
 * "Layout") may have its processes in leaves under several mirrors, none of which
 * holds exactly them; its v1 statistics are then the sum of those leaves' v2 files,
 * for the files whose figures add up:
 *
 *   NAME.current (memory, memory.swap, pids, hugetlb.SIZE)   one number
 *   cpu.stat, memory.stat, *.events                          "key value" lines,
 *                                                            summed key by key
 *   io.stat                                                  "MAJ:MIN key=value ..."
 *                                                            lines, by device and key
 *
 * Limits, peaks, cpuset lists and freezer state do not add up (ucg_v2sum_additive says
 * 0): their v1 files stay the engine's. Whether a sum is the v1 figure depends on the
 * counter: usage and event counts of the processes are exactly their sum; cpu.stat's
 * nr_periods, nr_throttled and throttled_usec count each leaf's own periods, so with
 * several leaves busy in one period they count it once per leaf (v1 counts it once).
 */
#ifndef UCG_HOST_V2SUM_H
#define UCG_HOST_V2SUM_H

#include "base/buf.h"

/* 1 when v2 file `file`'s figures add up over cgroups (the list above), else 0. */
int ucg_v2sum_additive(const char *file);

/* Adds text, one cgroup's v2 file `file`, into acc (the sum so far; empty before the
 * first). Keys keep the order they were first seen in. 0; -EINVAL when a line does
 * not parse, -ENOMEM; acc is unchanged on error. */
int ucg_v2sum_add(const char *file, const char *text, struct ucg_buf *acc);

#endif
