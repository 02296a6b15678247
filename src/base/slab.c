/* base/slab.c — size-class slabs (see slab.h). */
#include "base/slab.h"
#include "base/alloc.h"

#include <string.h>

/* Just under 64 KiB, so malloc's header keeps the chunk inside 64 KiB of its heap
 * (it stays below the mmap threshold: chunks come from the heap, which
 * glibc.malloc.hugetlb can back with huge pages). */
#define CHUNK_BYTES (65536 - 64)
#define CHUNK_HEAD 16 /* the link to the next chunk, rounded to keep objects aligned */

void ucg_slab_init(struct ucg_slab *s)
{
	memset(s, 0, sizeof(*s));
}

void ucg_slab_fini(struct ucg_slab *s)
{
	void *c, *next;

	for (c = s->chunks; c; c = next) {
		memcpy(&next, c, sizeof(next));
		ucg_free(c);
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
			char *chunk = ucg_malloc(CHUNK_BYTES);

			if (!chunk)
				return NULL;
			memcpy(chunk, &s->chunks, sizeof(void *));
			s->chunks = chunk;
			c->next = chunk + CHUNK_HEAD;
			c->end = chunk + CHUNK_BYTES;
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
