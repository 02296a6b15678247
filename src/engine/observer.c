/* engine/observer.c — observer registration, vetoes and per-cgroup slots.
 *
 * Front ends (the filesystem's cache invalidation, a kernel backend, the simulator)
 * learn of changes by registering a const ops table here instead of polling or keeping
 * a mirror of the tree; the calls sit in the engine where each change is made
 * (cgroup.c, task.c, fs.c, hierarchy.c) through observer.h. */
#include "engine/observer.h"

#include "base/alloc.h"

#include <errno.h>

int ucg_observer_add(struct ucg_engine *e, const struct ucg_observer_ops *ops, void *ctx)
{
	int i;

	if (!ops)
		return -EINVAL;
	for (i = 0; i < UCG_MAX_OBSERVERS; i++) {
		if (!e->observers[i].ops) {
			e->observers[i].ops = ops;
			e->observers[i].ctx = ctx;
			e->nr_observers++;
			return i;
		}
	}
	return -ENOSPC;
}

static void clear_slots(struct ucg_cgroup *cg, int id)
{
	struct ucg_list *pos;

	if (cg->priv)
		cg->priv[id] = NULL;
	ucg_list_for_each(pos, &cg->children)
		clear_slots(ucg_container_of(pos, struct ucg_cgroup, sibling), id);
}

int ucg_observer_remove(struct ucg_engine *e, int id)
{
	struct ucg_hierarchy *h = NULL;

	if (id < 0 || id >= UCG_MAX_OBSERVERS || !e->observers[id].ops)
		return -EINVAL;
	while ((h = ucg_hierarchy_next(e, h)))
		clear_slots(h->root, id);
	e->observers[id].ops = NULL;
	e->observers[id].ctx = NULL;
	e->nr_observers--;
	return 0;
}

void *ucg_cgroup_priv(const struct ucg_cgroup *cg, int id)
{
	if (!cg->priv || id < 0 || id >= UCG_MAX_OBSERVERS)
		return NULL;
	return cg->priv[id];
}

int ucg_cgroup_set_priv(struct ucg_cgroup *cg, int id, void *priv)
{
	if (id < 0 || id >= UCG_MAX_OBSERVERS)
		return -EINVAL;
	if (!cg->priv) {
		if (!priv)
			return 0;
		cg->priv = ucg_calloc(UCG_MAX_OBSERVERS, sizeof(*cg->priv));
		if (!cg->priv)
			return -ENOMEM;
	}
	cg->priv[id] = priv;
	return 0;
}

void ucg_observer_cgroup_fini(struct ucg_cgroup *cg)
{
	ucg_free(cg->priv);
	cg->priv = NULL;
}

int ucg_observe_can_attach(struct ucg_engine *e, struct ucg_cgroup *to, const int *tids,
			   size_t n)
{
	int i, r;

	for (i = 0; i < UCG_MAX_OBSERVERS; i++) {
		const struct ucg_observer *o = &e->observers[i];

		if (o->ops && o->ops->can_attach) {
			r = o->ops->can_attach(o->ctx, to, tids, n);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int ucg_observe_can_write(struct ucg_engine *e, struct ucg_cgroup *cg, const char *file,
			  const char *buf, size_t len)
{
	int i, r;

	for (i = 0; i < UCG_MAX_OBSERVERS; i++) {
		const struct ucg_observer *o = &e->observers[i];

		if (o->ops && o->ops->can_write) {
			r = o->ops->can_write(o->ctx, cg, file, buf, len);
			if (r < 0)
				goto cancel;
		}
	}
	return 0;
cancel: /* those before i accepted */
	while (i-- > 0) {
		const struct ucg_observer *o = &e->observers[i];

		if (o->ops && o->ops->can_write && o->ops->cancel_write)
			o->ops->cancel_write(o->ctx, cg, file);
	}
	return r;
}

void ucg_observe_cancel_write(struct ucg_engine *e, struct ucg_cgroup *cg, const char *file)
{
	int i;

	for (i = UCG_MAX_OBSERVERS - 1; i >= 0; i--) {
		const struct ucg_observer *o = &e->observers[i];

		if (o->ops && o->ops->can_write && o->ops->cancel_write)
			o->ops->cancel_write(o->ctx, cg, file);
	}
}
