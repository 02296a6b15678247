/* engine/css_set.h — interned sets of memberships shared by tasks. */
#ifndef UCG_ENGINE_CSS_SET_H
#define UCG_ENGINE_CSS_SET_H

#include "engine/types.h"

/* The all-roots set, created with the engine. */
int ucg_css_set_init_empty(struct ucg_engine *e);
/* A set equal to from except that in h it names cg (h's root: no link). Returns it
 * with a new reference: the existing one if interned, else a new one. */
int ucg_css_set_find(struct ucg_engine *e, const struct ucg_css_set *from,
		     const struct ucg_hierarchy *h, struct ucg_cgroup *cg,
		     struct ucg_css_set **ret);
void ucg_css_set_get(struct ucg_css_set *cset);
void ucg_css_set_put(struct ucg_engine *e, struct ucg_css_set *cset);
/* The cgroup the set names in h (its root when there is no link). */
struct ucg_cgroup *ucg_css_set_cgroup(const struct ucg_css_set *cset,
				      const struct ucg_hierarchy *h);
/* Live-task bookkeeping: keeps populated counts and triggers release checks. */
void ucg_css_set_add_task(struct ucg_css_set *cset, struct ucg_task *t);
void ucg_css_set_del_task(struct ucg_css_set *cset, struct ucg_task *t);
/* Bytes one set takes (for the debug controller and the explosion scenario). */
size_t ucg_css_set_size(const struct ucg_css_set *cset);

#endif
