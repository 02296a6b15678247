/* engine/observer.h — telling registered observers what the engine did (ucg.h's
 * struct ucg_observer_ops). Each event costs one test of e->nr_observers when nobody
 * listens; the loops run only when someone does. */
#ifndef UCG_ENGINE_OBSERVER_H
#define UCG_ENGINE_OBSERVER_H

#include "engine/types.h"

/* Calls member(ctx, ...) of every observer that has it. */
#define UCG_OBSERVE(e, member, ...)                                                     \
	do {                                                                             \
		struct ucg_engine *obs_e_ = (e);                                         \
		if (obs_e_->nr_observers) {                                              \
			for (int obs_i_ = 0; obs_i_ < UCG_MAX_OBSERVERS; obs_i_++) {     \
				const struct ucg_observer *obs_ = &obs_e_->observers[obs_i_]; \
				if (obs_->ops && obs_->ops->member)                      \
					obs_->ops->member(obs_->ctx, __VA_ARGS__);       \
			}                                                                \
		}                                                                        \
	} while (0)

/* The vetoes: 0, or the first observer's negative errno (the later ones are not asked). */
int ucg_observe_can_attach(struct ucg_engine *e, struct ucg_cgroup *to, const int *tids,
			   size_t n);
int ucg_observe_can_write(struct ucg_engine *e, struct ucg_cgroup *cg, const char *file,
			  const char *buf, size_t len);
/* The write every observer accepted was refused by the file's handler: cancel_write to
 * each. (A veto cancels the observers before it itself.) */
void ucg_observe_cancel_write(struct ucg_engine *e, struct ucg_cgroup *cg, const char *file);

/* Frees cg's observer slots (cgroup teardown). */
void ucg_observer_cgroup_fini(struct ucg_cgroup *cg);

#endif
