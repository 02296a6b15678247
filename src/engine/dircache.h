/* engine/dircache.h — a hierarchy's cache of resolved directory paths.
 *
 * Path lookup walks one component at a time (hash, table probe, name compare per
 * level); front ends read many files of the same directory in a row (the simulator
 * re-reads a cgroup's control values, a shell's cat of several files), so the cache
 * keeps "/a/b/" -> cgroup for the directory part of recent paths. An entry is valid
 * only for the generation it was stored in; the generation moves whenever a resolved
 * directory could stop resolving to the same cgroup (rmdir, rename, remount), so a
 * stale entry is never used (nor its cgroup pointer followed). Adding a cgroup leaves
 * every resolved path as it was and moves nothing. Permissions are not cached: the
 * caller re-checks search permission along the cgroup's ancestors on a hit.
 *
 * Direct-mapped, fixed size, inside the hierarchy: nothing to allocate, so it never
 * adds a failure; a directory path longer than the key room is simply not cached.
 */
#ifndef UCG_ENGINE_DIRCACHE_H
#define UCG_ENGINE_DIRCACHE_H

#include <stddef.h>
#include <stdint.h>

struct ucg_cgroup;

#define UCG_DIRCACHE_SLOTS 64
#define UCG_DIRCACHE_KEY 104

struct ucg_dircache_entry {
	uint64_t gen;
	struct ucg_cgroup *cg; /* NULL: empty */
	uint32_t len;
	char key[UCG_DIRCACHE_KEY];
};

struct ucg_dircache {
	uint64_t gen; /* entries of another generation are ignored */
	struct ucg_dircache_entry slot[UCG_DIRCACHE_SLOTS];
};

/* The cgroup path[0..len) resolved to when stored in this generation, or NULL. */
struct ucg_cgroup *ucg_dircache_find(const struct ucg_dircache *c, const char *path, size_t len);
void ucg_dircache_store(struct ucg_dircache *c, const char *path, size_t len,
			struct ucg_cgroup *cg);
/* Forgets every entry (O(1)). */
void ucg_dircache_invalidate(struct ucg_dircache *c);

#endif
