/* engine/release.h — release notification (docs/kernel/core.md §10). */
#ifndef UCG_ENGINE_RELEASE_H
#define UCG_ENGINE_RELEASE_H

#include "engine/types.h"

/* Called at the two moments the kernel checks (a cgroup lost its last task; a child of
 * it was removed): queues a notification if cg is releasable now. */
void ucg_release_check(struct ucg_cgroup *cg);
/* Drops every pending notification (engine teardown). */
void ucg_release_flush(struct ucg_engine *e);

#endif
