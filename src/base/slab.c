/* base/slab.c — size-class slabs (see slab.h). */
#include "base/slab.h"
#include "base/alloc.h"

#include <string.h>

/* Chunks come from ucg_bulk_alloc, their pages mapped at once. The first is 64 KiB and
 * each next one twice the last, up to 2 MiB: a small engine keeps a small footprint, a
 * big one maps its memory in few calls, and what a chunk leaves unused is at most as
 * much as the slab already holds. */
#define CHUNK_FIRST 65536
#define CHUNK_MAX (2u << 20)
#define CHUNK_HEAD 16 /* the link to the next chunk and its size */

void ucg_slab_init(struct ucg_slab *s)
{
	memset(s, 0, sizeof(*s));
}

void ucg_slab_fini(struct ucg_slab *s)
{
	void *c, *next;

	for (c = s->chunks; c; c = next) {
		size_t bytes;

		memcpy(&next, c, sizeof(next));
		memcpy(&bytes, (char *)c + sizeof(next), sizeof(bytes));
		ucg_bulk_free(c, bytes);
	}
	ucg_slab_init(s);
}

static size_t class_of(size_t size)
{
	return size ? (size - 1) / UCG_SLAB_GRAIN : 0;
}

void *ucg_slab_zalloc(struct ucg_slab *s, size_t size)
{
	struct ucg_slab_class *c;
	size_t osize;
	void *p;

	if (size > UCG_SLAB_MAX || UCG_SLAB_PASSTHROUGH)
		return ucg_calloc(1, size);
	if (ucg_alloc_injected_failure())
		return NULL;
	c = &s->cls[class_of(size)];
	osize = (class_of(size) + 1) * UCG_SLAB_GRAIN;
	if (c->free) {
		p = c->free;
		memcpy(&c->free, p, sizeof(void *));
	} else {
		if (c->next == NULL || (size_t)(c->end - c->next) < osize) {
			size_t bytes = s->chunk_bytes ? s->chunk_bytes : CHUNK_FIRST;
			char *chunk = ucg_bulk_alloc(bytes);

			if (!chunk)
				return NULL;
			memcpy(chunk, &s->chunks, sizeof(void *));
			memcpy(chunk + sizeof(void *), &bytes, sizeof(bytes));
			s->chunks = chunk;
			s->chunk_bytes = bytes < CHUNK_MAX ? 2 * bytes : CHUNK_MAX;
			c->next = chunk + CHUNK_HEAD;
			c->end = chunk + bytes;
		}
		p = c->next;
		c->next += osize;
	}
	memset(p, 0, osize);
	return p;
}

void ucg_slab_free(struct ucg_slab *s, void *p, size_t size)
{
	struct ucg_slab_class *c;

	if (!p)
		return;
	if (size > UCG_SLAB_MAX || UCG_SLAB_PASSTHROUGH) {
		ucg_free(p);
		return;
	}
	c = &s->cls[class_of(size)];
	memcpy(p, &c->free, sizeof(void *));
	c->free = p;
}
