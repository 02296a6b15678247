/* base/alloc.c — allocation wrappers with failure injection for tests. */
#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static long fail_countdown = -1; /* -1: never fail; test-only state */
static long succeeded;
static size_t bulk_mapped; /* bytes ucg_bulk_alloc holds now */

static int should_fail(void)
{
	if (fail_countdown < 0)
		return 0;
	if (fail_countdown == 0)
		return 1;
	fail_countdown--;
	return 0;
}

int ucg_alloc_injected_failure(void)
{
	return should_fail();
}

long ucg_alloc_fail_after(long n)
{
	long done = succeeded;

	fail_countdown = n;
	succeeded = 0;
	return done;
}

void *ucg_malloc(size_t size)
{
	void *p;

	if (should_fail())
		return NULL;
	p = malloc(size ? size : 1);
	if (p)
		succeeded++;
	return p;
}

void *ucg_calloc(size_t nmemb, size_t size)
{
	void *p;

	if (should_fail())
		return NULL;
	p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p)
		succeeded++;
	return p;
}

void *ucg_realloc(void *ptr, size_t size)
{
	void *p;

	if (should_fail())
		return NULL;
	p = realloc(ptr, size ? size : 1);
	if (p)
		succeeded++;
	return p;
}

char *ucg_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = ucg_malloc(len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *ucg_strdup(const char *s)
{
	return ucg_strndup(s, strlen(s));
}

void ucg_free(void *ptr)
{
	free(ptr);
}

void *ucg_alloc_aligned(size_t size, size_t align, int zero, void **base)
{
	char *p;

	if (size > SIZE_MAX - align)
		return NULL;
	p = zero ? ucg_calloc(1, size + align - 1) : ucg_malloc(size + align - 1);
	if (!p)
		return NULL;
	*base = p;
	return p + (align - (uintptr_t)p % align) % align;
}

void *ucg_realloc_aligned(void *old, size_t used, size_t size, size_t align, void **base)
{
	void *nb, *p = ucg_alloc_aligned(size, align, 0, &nb);

	if (!p)
		return NULL;
	if (used)
		memcpy(p, old, used);
	ucg_free(*base);
	*base = nb;
	return p;
}

void *ucg_bulk_alloc(size_t size)
{
	void *p;

	if (UCG_ALLOC_UNDER_ASAN)
		return ucg_calloc(1, size);
	if (should_fail())
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
		 0);
	if (p == MAP_FAILED)
		return NULL;
	succeeded++;
	bulk_mapped += size;
	return p;
}

void ucg_bulk_free(void *p, size_t size)
{
	if (UCG_ALLOC_UNDER_ASAN)
		ucg_free(p);
	else if (p) {
		munmap(p, size);
		bulk_mapped -= size;
	}
}

size_t ucg_bulk_bytes(void)
{
	return bulk_mapped;
}
