/* base/alloc.h — allocation wrappers.
 *
 * Every allocation in the project goes through these so that a test can make the
 * Nth allocation fail (ucg_alloc_fail_after) and check that each constructor unwinds
 * with -ENOMEM and leaks nothing. This is the one piece of process-wide state below
 * the front ends, and only tests touch it.
 */
#ifndef UCG_BASE_ALLOC_H
#define UCG_BASE_ALLOC_H

#include <stddef.h>

/* 1 when built with AddressSanitizer (gcc or clang): the allocators that carve their
 * own memory (ucg_bulk_alloc, base/slab.h) then leave every object to the C library,
 * so the sanitizer sees each overflow and use after free. */
#if defined(__SANITIZE_ADDRESS__)
#define UCG_ALLOC_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UCG_ALLOC_UNDER_ASAN 1
#endif
#endif
#ifndef UCG_ALLOC_UNDER_ASAN
#define UCG_ALLOC_UNDER_ASAN 0
#endif

void *ucg_malloc(size_t size);
void *ucg_calloc(size_t nmemb, size_t size);
void *ucg_realloc(void *ptr, size_t size);
char *ucg_strdup(const char *s);
char *ucg_strndup(const char *s, size_t n);
void ucg_free(void *ptr);
/* size bytes starting at a multiple of align (a power of two: a cache line, where
 * malloc promises 16), zeroed when zero is non-zero, carved from one ucg_malloc or
 * ucg_calloc whose start is stored in *base: ucg_free(*base) frees it. NULL, *base
 * untouched, when out of memory (or injected, as ucg_malloc). */
void *ucg_alloc_aligned(size_t size, size_t align, int zero, void **base);
/* Realloc for such a block: a new one of size bytes aligned to align, the first used
 * bytes of old (carved from *base, NULL for none) copied in, the old one freed and
 * *base the new one's start. NULL, old and *base untouched, when out of memory. */
void *ucg_realloc_aligned(void *old, size_t used, size_t size, size_t align, void **base);

/* Test hook: after n more successful allocations, every allocation fails, until
 * ucg_alloc_fail_after(-1) turns injection off. Returns how many allocations have
 * succeeded since the last call. */
long ucg_alloc_fail_after(long n);

/* For allocators that hand out memory they already hold (base/slab.h): non-zero when
 * injection says this allocation must fail. Not counted among the successes above,
 * which count calls into the C library's allocator. */
int ucg_alloc_injected_failure(void);

/* Big blocks of zeroed memory whose pages are all mapped at once (MAP_POPULATE), for
 * allocators that fill them anyway (base/slab.h, base/otable.h): one call maps a
 * block where touching it would take a page fault per 4 KiB, and a fault is what a
 * cold mkdir at a million cgroups mostly paid for (tens of microseconds each on a
 * virtual machine: bench/bench_engine_scale.c). size is rounded up to pages; free with
 * the same size. Counted and failed like ucg_malloc. Under AddressSanitizer, calloc. */
void *ucg_bulk_alloc(size_t size);
void ucg_bulk_free(void *p, size_t size);
/* Bytes ucg_bulk_alloc holds mapped now (0 under AddressSanitizer, where it is calloc
 * and the heap's figures count it): what a heap measurement misses. */
size_t ucg_bulk_bytes(void);

#endif
