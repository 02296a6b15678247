/* engine/cgroup.h — the cgroup tree of one hierarchy: create, remove, rename, find. */
#ifndef UCG_ENGINE_CGROUP_H
#define UCG_ENGINE_CGROUP_H

#include "engine/types.h"

/* The root of a new hierarchy (mode 0555, root-owned), with a css for every
 * controller in h->ss_mask. */
int ucg_cgroup_new_root(struct ucg_hierarchy *h, struct ucg_cgroup **ret);
/* mkdir without the permission and name checks (done by the file API, which has made
 * sure no child or file is called name): a new child owned by uid:gid, inheriting the
 * flags the kernel copies. */
int ucg_cgroup_create(struct ucg_cgroup *parent, const char *name, size_t len, uint32_t mode,
		      uint32_t uid, uint32_t gid, struct ucg_cgroup **ret);
/* rmdir without permission checks: -EBUSY with live tasks or children. */
int ucg_cgroup_remove(struct ucg_cgroup *cg);
/* Renames within the same parent; -EEXIST if taken. */
int ucg_cgroup_rename(struct ucg_cgroup *cg, const char *name, size_t len);
/* Frees a root that has no children (hierarchy teardown). */
void ucg_cgroup_free_root(struct ucg_cgroup *root);

void ucg_cgroup_get(struct ucg_cgroup *cg);
void ucg_cgroup_put(struct ucg_cgroup *cg);

/* The hash a cgroup is kept under in its hierarchy's by_serial table. */
uint64_t ucg_cgroup_serial_hash(uint64_t serial);
/* NULL if absent. */
struct ucg_cgroup *ucg_cgroup_find_child(const struct ucg_cgroup *cg, const char *name,
					 size_t len);
/* ucg_cgroup_lookup and ucg_cgroup_path are public: engine/ucg.h. */
/* Does the cgroup have live member tasks? */
int ucg_cgroup_populated(const struct ucg_cgroup *cg);
int ucg_cgroup_is_root(const struct ucg_cgroup *cg);

/* The control files of cg's directory (the hierarchy's table for roots or children). */
const struct ucg_dirfile *ucg_cgroup_files(const struct ucg_cgroup *cg, int *ret_n);
/* Mode and owner of cg's file idx. */
struct ucg_file_attr ucg_cgroup_file_attr(const struct ucg_cgroup *cg, int idx);
/* The same, writable (chmod, chown): gives cg its own table first; NULL if that fails
 * for memory. */
struct ucg_file_attr *ucg_cgroup_file_attr_mut(struct ucg_cgroup *cg, int idx);
/* Index of the file called name in cg's directory, or -1. */
int ucg_cgroup_find_file(const struct ucg_cgroup *cg, const char *name, size_t len);

/* Allocates and onlines the css of every controller in mask (root: parent NULL). */
int ucg_cgroup_css_create(struct ucg_cgroup *cg, uint32_t mask);
/* Offlines and frees the css of every controller in mask. */
void ucg_cgroup_css_destroy(struct ucg_cgroup *cg, uint32_t mask);

#endif
