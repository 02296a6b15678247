/* bench/sim_bench.h — what the simulator's two benchmark programs (bench_sim_charging,
 * bench_sim_events) share: reading a shipped scenario and the text of the big run, so
 * that both measure the very same 10,000-task scenario. */
#ifndef UCG_BENCH_SIM_BENCH_H
#define UCG_BENCH_SIM_BENCH_H

#include "base/buf.h"

#include <stddef.h>

/* scenarios/FILE under $UCG_SOURCE_ROOT (or .), whole; NULL if it cannot be read.
 * The caller frees it with ucg_free(). */
char *sim_bench_scenario(const char *file, size_t *len);

/* Appends the big run: 10 users x 100 session cgroups (1,000 cgroups, plus the 10
 * user cgroups), 10,000 tasks each wanting part of a CPU, 100 sessions with a quota,
 * and every second one user's cpu.shares changed; 60 virtual seconds on 64 CPUs. */
void sim_bench_big_scenario(struct ucg_buf *b);

/* Appends the hour: a 64-CPU host for one virtual hour under cpu_model ("tick" or
 * "fluid"): 10 users x 100 session cgroups (1,000 cgroups) of 10 tasks each (10,000
 * tasks; in each session 1 busy at 0.01-0.05 CPU, the rest asleep), every 10th
 * session under a quota (20-47 ms per 100 ms, 2 busy tasks): ~60 CPUs wanted, the
 * quotas binding; 10 sessions also under a 64M
 * memory limit, whose tasks every minute touch 96M of anon (reclaimed to swap) and
 * write 64M through the page cache to a 200 MB/s disk (writeback); a user's
 * cpu.shares changed every 10 s. */
void sim_bench_hour_scenario(struct ucg_buf *b, const char *cpu_model);

#endif
