/* fs/fcache.c — file entries by inode number, in the base hash table. */
#include "fs/fcache.h"

#include "base/alloc.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

static struct ucgfs_fcache_ent *ent_of(struct ucg_hnode *n)
{
	return (struct ucgfs_fcache_ent *)((char *)n - offsetof(struct ucgfs_fcache_ent, node));
}

static int match_ino(const struct ucg_hnode *n, const void *key)
{
	return ent_of((struct ucg_hnode *)n)->ino == *(const uint64_t *)key;
}

void ucgfs_fcache_init(struct ucgfs_fcache *c)
{
	ucg_htable_init(&c->t);
}

struct ucgfs_fcache_ent *ucgfs_fcache_find(struct ucgfs_fcache *c, uint64_t ino)
{
	struct ucg_hnode *n = ucg_htable_find(&c->t, ucg_hash_u64(ino), match_ino, &ino);

	return n ? ent_of(n) : NULL;
}

struct ucgfs_fcache_ent *ucgfs_fcache_get(struct ucgfs_fcache *c, uint64_t ino)
{
	struct ucgfs_fcache_ent *e = ucgfs_fcache_find(c, ino);

	if (e)
		return e;
	e = ucg_calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->ino = ino;
	if (ucg_htable_insert(&c->t, &e->node, ucg_hash_u64(ino)) < 0) {
		ucg_free(e);
		return NULL;
	}
	return e;
}

void ucgfs_fcache_del(struct ucgfs_fcache *c, uint64_t ino)
{
	struct ucgfs_fcache_ent *e = ucgfs_fcache_find(c, ino);

	if (e) {
		ucg_htable_remove(&c->t, &e->node);
		ucg_free(e->snap);
		ucg_free(e);
	}
}

int ucgfs_fcache_set_snap(struct ucgfs_fcache_ent *e, const char *data, size_t len)
{
	char *copy = ucg_malloc(len ? len : 1);

	ucg_free(e->snap);
	e->snap = NULL;
	e->has_snap = 0;
	e->len = len;
	if (!copy)
		return -ENOMEM;
	if (len)
		memcpy(copy, data, len);
	e->snap = copy;
	e->has_snap = 1;
	return 0;
}

struct each_ctx {
	void (*fn)(struct ucgfs_fcache_ent *e, void *ctx);
	void *ctx;
};

static int each_one(struct ucg_hnode *n, void *ctx)
{
	struct each_ctx *ec = ctx;

	ec->fn(ent_of(n), ec->ctx);
	return 0;
}

void ucgfs_fcache_each(struct ucgfs_fcache *c, void (*fn)(struct ucgfs_fcache_ent *e, void *ctx),
		       void *ctx)
{
	struct each_ctx ec = { fn, ctx };

	ucg_htable_each(&c->t, each_one, &ec);
}

static int free_one(struct ucg_hnode *n, void *ctx)
{
	ucg_free(ent_of(n)->snap);
	ucg_free(ent_of(n));
	return 0;
}

void ucgfs_fcache_fini(struct ucgfs_fcache *c)
{
	ucg_htable_each(&c->t, free_one, NULL);
	ucg_htable_fini(&c->t);
}

uint64_t ucgfs_fcache_hash(const char *data, size_t len)
{
	return ucg_hash_bytes(data, len, 0);
}
