/* host/v2split.h — a v1 cpu quota and weight shared by the v2 leaves of a divergent
 * layout.
 *
 * The v2 backend (host/v2obs.h) nests the enforced hierarchies: the first one (memory,
 * pids, io, then cpu) gives each process its mirror directory, and a later hierarchy
 * whose path differs adds a level below it ("/a/.ucg.cpu:b/.ucg" for memory /a, cpu
 * /b). The cpu quota of v1 cgroup /b is written on the mirror "/b", which then holds
 * the wrong processes: those whose *outer* path is /b, whatever their cpu path, and
 * none of those whose outer path differs. That is exact when every process of the
 * mirror is in /b's cpu subtree and every process of that subtree is in the mirror
 * (the paths agree, the common case); otherwise the quota is divided:
 *
 *   - the mirror gets "max PERIOD": it limits no one;
 *   - each leaf holding processes of /b's cpu subtree gets a part of the quota,
 *     ucg_v2_split_quota (controllers/cpu_v2.h): max-min fair by the CPU each leaf used over
 *     the last round (its cpu.stat usage_usec), a throttled leaf asking for more; the
 *     parts add up to the quota, each at least the kernel's 1 ms minimum;
 *   - a leaf under several divided quotas (nested v1 groups) gets the smallest part,
 *     as a ratio of its period; every other leaf has "max". A v1 write of the quota
 *     reaches the mirror at once (v2obs.h) and is divided at the next round.
 *
 * cpu.shares is divided too: the weight it translates to (ucg_v1v2_cpu_weight) stays
 * on the mirror, and the `.ucg.cpu:` level directory of each leaf holding the group's
 * own tasks gets ucg_v2_split_weight's part of it, in proportion to the leaf's
 * runnable time over the last round (cpu.stat usage_usec plus cpu.pressure's "some"
 * total; a leaf new this round wants a whole CPU). Among its v2 siblings (the other
 * groups' levels under the same outer parent) a level then weighs what the group's
 * tasks in it would weigh in v1, as CFS divides a group's shares over its per-CPU
 * runqueues by load. What v2 cannot express: the outer parents share the CPU by their
 * own weights, which know nothing of the groups inside (measured in
 * bench/bench_sim_v2split.c: equal shares, one group spread over two memory parents,
 * the other in one, gets 2/3 of the CPU where v1 gives 1/2).
 *
 * Only leaves that hold processes count (cgroup.events populated); an empty one
 * keeps the part it had. Rounds run on the daemon's timer, once a second. What
 * remains approximate, measured in tests/uml/test_divergent.sh and in the simulator
 * (bench/bench_sim_v2split.c, the same arithmetic): the parts lag demand by up to one
 * round (a leaf that wakes is throttled at its old part until the next one), the
 * minimum parts over-grant when a quota is below 1 ms per leaf, and a weight is
 * divided by runnable time only where the kernel has PSI (without it, by CPU used: a
 * starved level loses weight). Memory, pids and io limits of an inner hierarchy stay
 * on its mirror (docs/enforcement.md).
 * Call everything with the engine lock held.
 */
#ifndef UCG_HOST_V2SPLIT_H
#define UCG_HOST_V2SPLIT_H

#include <stdint.h>

#include "base/buf.h"
#include "host/cgv2.h"
#include "host/v2obs.h"

struct ucg_v2split;

/* A splitter over o's leaves in b (neither owned). 0 or -ENOMEM. */
int ucg_v2split_new(struct ucg_v2obs *o, struct ucg_cgv2 *b, struct ucg_v2split **ret);
/* NULL is fine. The leaves keep what was written last. */
void ucg_v2split_free(struct ucg_v2split *sp);
/* One round at now_us (a monotonic clock): reads every leaf's cpu.stat and
 * cpu.pressure, divides each divided quota and weight, writes the cpu.max and
 * cpu.weight files that change. Returns the number of v1 cpu
 * cgroups whose quota is divided, 0 when none (or the layout has no inner cpu
 * hierarchy), or -errno. */
int ucg_v2split_run(struct ucg_v2split *sp, uint64_t now_us);
/* "enforce_split ..." line for `ucg ctl stats`. */
void ucg_v2split_describe(const struct ucg_v2split *sp, struct ucg_buf *out);

#endif
