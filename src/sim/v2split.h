/* sim/v2split.h — the daemon's division of a v1 cpu cgroup's quota and weight over
 * the v2 leaves of a divergent layout, run in the simulator once a virtual second
 * (the model and its limits are at the top of v2split.c). */
#ifndef UCG_SIM_V2SPLIT_H
#define UCG_SIM_V2SPLIT_H

#include "sim/sim_impl.h"

struct sim_v2split;

/* `split`: v1 cpu group name (for the transcript) with quota_us per period_us (-1:
 * none) and shares, spread over leaves[0..n) (cpu cgroups of the v2-shaped tree, not
 * owned); line is the command's, for errors. Its first round runs now, then once a
 * second. 0 or -ENOMEM, or the errno of a write the engine refused. */
int sim_v2split_add(struct sim *s, int line, const char *name, int64_t quota_us, uint64_t period_us,
		    uint64_t shares, struct sim_cg **leaves, size_t n);
/* NULL is fine. */
void sim_v2split_free(struct sim_v2split *sp);

#endif
