/* fs/fcache.h — what one mount's kernel may hold of each regular file.
 *
 * File content is cached by the kernel (no-open: docs/filesystem.md, "Latency"). For
 * every file whose attributes or pages a mount's kernel was given, the daemon keeps
 * the content it described (length and hash), so that after any engine change it can
 * tell which files now show something else and invalidate exactly those; a version
 * counter, shown in mtime's nanoseconds, makes the kernel drop the pages of a file
 * whose content changed when it next asks for the attributes. Not thread-safe: the
 * daemon holds its lock.
 */
#ifndef UCGFS_FCACHE_H
#define UCGFS_FCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "base/htable.h"
#include "engine/ucg.h"

struct ucgfs_fcache_ent {
	struct ucg_hnode node;
	uint64_t ino;
	uint64_t hash; /* of the content last described to the kernel */
	uint64_t len;
	uint32_t ver;  /* bumped whenever the kernel must drop its pages */
	uint8_t told;  /* the kernel may hold valid attributes or pages from (hash, len) */
	uint8_t gone;  /* the file's cgroup was removed: st is its last attributes */
	uint8_t has_snap;
	uint8_t pages; /* a READ was answered since the pages were last dropped */
	uint64_t nlookup; /* lookups answered, less those the kernel forgot */
	struct ucg_stat st;
	/* The content whose length the last attributes gave as the size: reads are
	 * answered from it, so a page never holds more or less than i_size says even
	 * when the content changed between the kernel's GETATTR and its READ. */
	char *snap;
};

struct ucgfs_fcache {
	struct ucg_htable t;
};

void ucgfs_fcache_init(struct ucgfs_fcache *c);
/* The entry of ino, or NULL. */
struct ucgfs_fcache_ent *ucgfs_fcache_find(struct ucgfs_fcache *c, uint64_t ino);
/* The entry of ino, made (zeroed but for ino) if missing; NULL on ENOMEM. */
struct ucgfs_fcache_ent *ucgfs_fcache_get(struct ucgfs_fcache *c, uint64_t ino);
void ucgfs_fcache_del(struct ucgfs_fcache *c, uint64_t ino);
/* Keeps a copy of data as e's snapshot (len bytes; e->len is set). -ENOMEM leaves
 * e without one. */
int ucgfs_fcache_set_snap(struct ucgfs_fcache_ent *e, const char *data, size_t len);
/* Visits every entry; fn may change entries but not add or delete any. */
void ucgfs_fcache_each(struct ucgfs_fcache *c, void (*fn)(struct ucgfs_fcache_ent *e, void *ctx),
		       void *ctx);
void ucgfs_fcache_fini(struct ucgfs_fcache *c);
uint64_t ucgfs_fcache_hash(const char *data, size_t len);

#endif
