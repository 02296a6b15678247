/* engine/subsys.h — the controller plug-in interface and registry.
 *
 * Each controller is one file in src/controllers/ ending in a const struct
 * ucg_subsys: its per-cgroup state size, life-cycle hooks and its file table. The
 * registry (subsys.c) is generated from controllers.def, so the id enum, the kernel
 * order and the name table cannot drift apart.
 *
 * Life cycle of a css (one controller's state in one cgroup):
 *   css_alloc (parent's css, or NULL in a root) -> css_online ... css_offline -> css_free
 * Attach is two-phase: can_attach for every controller of the hierarchy; if one
 * refuses, cancel_attach for those that accepted; else attach for all.
 * Fork: can_fork for every controller in every hierarchy of the child's css_set, then
 * fork; cancel_fork undoes a can_fork when a later one refused. exit: the task died;
 * release: its zombie was reaped.
 */
#ifndef UCG_ENGINE_SUBSYS_H
#define UCG_ENGINE_SUBSYS_H

#include <stddef.h>

#include "engine/cftype.h"

enum ucg_subsys_id {
#define UCG_SUBSYS(id, name) UCG_SS_##id,
#include "controllers/controllers.def"
#undef UCG_SUBSYS
	UCG_SUBSYS_COUNT
};

struct ucg_css;
struct ucg_task;
struct ucg_cgroup;

/* The tasks of one attach operation, all moving into dst. */
struct ucg_taskset {
	struct ucg_engine *e;
	struct ucg_cgroup *dst;
	struct ucg_task **tasks;
	size_t nr_tasks;
	/* For each task, its cgroup in this hierarchy before the move. */
	struct ucg_cgroup **src;
};

struct ucg_subsys {
	const char *name;
	enum ucg_subsys_id id;
	size_t css_size; /* >= sizeof(struct ucg_css): the controller's state embeds it first */

	/* Fill the controller's state; parent is NULL in a hierarchy root. */
	int (*css_alloc)(struct ucg_css *css, struct ucg_css *parent);
	int (*css_online)(struct ucg_css *css);
	void (*css_offline)(struct ucg_css *css);
	void (*css_free)(struct ucg_css *css);

	int (*can_attach)(const struct ucg_taskset *ts, struct ucg_css *dst);
	void (*cancel_attach)(const struct ucg_taskset *ts, struct ucg_css *dst);
	void (*attach)(const struct ucg_taskset *ts, struct ucg_css *dst);

	int (*can_fork)(struct ucg_task *child, struct ucg_css *css);
	void (*cancel_fork)(struct ucg_task *child, struct ucg_css *css);
	void (*fork)(struct ucg_task *child, struct ucg_css *css);
	void (*exit)(struct ucg_task *task, struct ucg_css *css);
	/* The exited task is reaped: css is where it was when it exited (a removed
	 * cgroup's css stays allocated until then). pids uncharges here, as the kernel
	 * does in release_task: a zombie still counts. */
	void (*release)(struct ucg_task *task, struct ucg_css *css);

	/* NULL-terminated (name == NULL) table of the controller's own files. */
	const struct ucg_cftype *files;
};

/* The controller's state in one cgroup. Controllers embed it as their first member. */
struct ucg_css {
	const struct ucg_subsys *ss;
	struct ucg_cgroup *cgroup; /* owner; the css lives exactly as long as it */
	int online;
};

/* The registry, indexed by enum ucg_subsys_id. */
extern const struct ucg_subsys *const ucg_subsys_table[UCG_SUBSYS_COUNT];

/* -> id, or -1 if name is not a controller. */
int ucg_subsys_find(const char *name, size_t len);

#endif
