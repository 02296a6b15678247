/* engine/event.h — event notification (cgroup.event_control), the engine's side.
 *
 * A registration ties a front end's handle (its copy of the writer's eventfd) to one
 * control file of one cgroup. The controller that owns the file validates the
 * arguments (cftype.register_event) and later signals the registration; signals are
 * queued on the engine, coalesced per registration as an eventfd's counter adds up,
 * and popped by the front end with ucg_event_next(). When the cgroup goes (rmdir,
 * hierarchy teardown) every registration on it is signalled once more and ends, as
 * the kernel's memcg_event_remove() does.
 */
#ifndef UCG_ENGINE_EVENT_H
#define UCG_ENGINE_EVENT_H

#include "engine/types.h"

struct ucg_event_reg {
	struct ucg_event_reg *cg_next; /* in cg->events while registered */
	struct ucg_list pend_node; /* in e->events_pending while queued */
	struct ucg_cgroup *cg;     /* NULL once ended */
	const struct ucg_cftype *cft; /* the control file it watches */
	uint64_t handle;
	uint64_t pending; /* signals not yet popped */
	unsigned queued : 1;
	unsigned final : 1;
	/* The controller's own: a threshold, a level and mode, a last state. */
	uint64_t value;
	int level, mode, state;
};

/* Adds n to the registration's count and queues it for the front end. */
void ucg_event_signal(struct ucg_event_reg *reg, uint64_t n);
/* cg is going away: each registration on it is signalled and ends. */
void ucg_event_cgroup_removed(struct ucg_cgroup *cg);
/* Drops every queued notification (engine teardown). */
void ucg_event_flush(struct ucg_engine *e);
/* The write handler of cgroup.event_control (the memory controller lists the file). */
int ucg_event_control_write(struct ucg_of *of, const char *buf, size_t len);

#endif
