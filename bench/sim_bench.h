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

#endif
