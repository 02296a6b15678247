/* base/slab.h — small objects carved from big chunks, by size class.
 *
 * A million cgroups were a million mallocs of ~220 bytes, and glibc's malloc and free
 * of a chunk that size (past its per-thread cache, into the small bins) was over a
 * third of a mkdir. A slab hands out objects of 8-byte size classes from chunks it
 * takes as bulk blocks (base/alloc.h: 64 KiB, doubling to 2 MiB, pages mapped at
 * once), and takes them back onto a per-class free list: an
 * allocation is a pop, a free a push, and objects lie next to each other in the order
 * they were made, without malloc's 8-byte header or its rounding to 16.
 *
 * Limits: objects are 8-byte aligned; sizes above UCG_SLAB_MAX go to ucg_malloc (the
 * caller passes the same size to free, so the slab knows which); a chunk goes back to
 * the C library only at ucg_slab_fini, so memory freed here is kept for objects of
 * the same class (a million rmdirs leave their memory for the next million mkdirs).
 * Allocation-failure injection (base/alloc.h) applies to every object, so tests that
 * fail the Nth allocation still reach each constructor's unwinding. Built with
 * AddressSanitizer, every object is a malloc of its own (UCG_SLAB_PASSTHROUGH).
 */
#ifndef UCG_BASE_SLAB_H
#define UCG_BASE_SLAB_H

#include <stddef.h>

#include "base/alloc.h"

#define UCG_SLAB_GRAIN 8
#define UCG_SLAB_MAX 512

/* 1 under AddressSanitizer: every object its own malloc, so an overflow into a
 * neighbour or a use after free inside a chunk does not go unseen. */
#define UCG_SLAB_PASSTHROUGH UCG_ALLOC_UNDER_ASAN

struct ucg_slab_class {
	void *free;       /* freed objects, linked through their first word */
	char *next, *end; /* the unused tail of this class's newest chunk */
};

struct ucg_slab {
	struct ucg_slab_class cls[UCG_SLAB_MAX / UCG_SLAB_GRAIN];
	void *chunks;       /* every chunk, linked through its first word */
	size_t chunk_bytes; /* the next chunk's size (0: the first's) */
};

void ucg_slab_init(struct ucg_slab *s);
/* Frees every chunk: every object must have been freed or be dead with it. */
void ucg_slab_fini(struct ucg_slab *s);
/* size bytes, zeroed, or NULL (-ENOMEM). */
void *ucg_slab_zalloc(struct ucg_slab *s, size_t size);
/* Takes back p (NULL is ignored), allocated with this size. */
void ucg_slab_free(struct ucg_slab *s, void *p, size_t size);

#endif
