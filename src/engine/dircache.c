/* engine/dircache.c — a hierarchy's cache of resolved directory paths (dircache.h). */
#include "engine/dircache.h"
#include "base/htable.h"

#include <string.h>

static struct ucg_dircache_entry *slot_of(const struct ucg_dircache *c, const char *path,
					  size_t len)
{
	uint64_t h = ucg_hash_bytes(path, len, 0);

	return (struct ucg_dircache_entry *)&c->slot[h & (UCG_DIRCACHE_SLOTS - 1)];
}

struct ucg_cgroup *ucg_dircache_find(const struct ucg_dircache *c, const char *path, size_t len)
{
	const struct ucg_dircache_entry *en;

	if (len > UCG_DIRCACHE_KEY)
		return NULL;
	en = slot_of(c, path, len);
	if (!en->cg || en->gen != c->gen || en->len != len || memcmp(en->key, path, len))
		return NULL;
	return en->cg;
}

void ucg_dircache_store(struct ucg_dircache *c, const char *path, size_t len,
			struct ucg_cgroup *cg)
{
	struct ucg_dircache_entry *en;

	if (len > UCG_DIRCACHE_KEY)
		return;
	en = slot_of(c, path, len);
	en->gen = c->gen;
	en->cg = cg;
	en->len = (uint32_t)len;
	memcpy(en->key, path, len);
}

void ucg_dircache_invalidate(struct ucg_dircache *c)
{
	c->gen++;
}
