/* base/test_slab.c — the size-class slab: objects come back zeroed, do not overlap,
 * are reused after a free within their class only, sizes past the largest class go
 * to malloc, injected allocation failures reach slab objects too, and chunks grow
 * from 64 KiB to 2 MiB, held as bulk blocks and given back at fini. */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/slab.h"
#include "harness.h"

static struct ucg_slab slab;

static void test_zeroed_distinct(void)
{
	enum { N = 5000 };
	static unsigned char *p[N];
	size_t i, size;

	ucg_slab_init(&slab);
	for (i = 0; i < N; i++) {
		size = 1 + i % 300;
		p[i] = ucg_slab_zalloc(&slab, size);
		T_CHECK(p[i] != NULL);
		T_CHECK(((uintptr_t)p[i] & 7) == 0);
		for (size_t j = 0; j < size; j++)
			T_CHECK(p[i][j] == 0);
		memset(p[i], (int)(i & 0xff) | 1,
		       size); /* dirty: a reused object must be re-zeroed */
	}
	/* No object was overwritten by another. */
	for (i = 0; i < N; i++) {
		size = 1 + i % 300;
		T_CHECK(p[i][0] == ((i & 0xff) | 1) && p[i][size - 1] == ((i & 0xff) | 1));
	}
	for (i = 0; i < N; i += 2)
		ucg_slab_free(&slab, p[i], 1 + i % 300);
	for (i = 0; i < N; i += 2) {
		size = 1 + i % 300;
		p[i] = ucg_slab_zalloc(&slab, size);
		T_CHECK(p[i] != NULL && p[i][0] == 0 && p[i][size - 1] == 0);
	}
	ucg_slab_fini(&slab);
}

static void test_reuse_by_class(void)
{
	void *a, *b, *c;

	if (UCG_SLAB_PASSTHROUGH)
		T_SKIP("AddressSanitizer build: objects are mallocs, reuse is the sanitizer's");
	ucg_slab_init(&slab);
	a = ucg_slab_zalloc(&slab, 184);
	ucg_slab_free(&slab, a, 184);
	b = ucg_slab_zalloc(&slab, 100); /* another class: not a's memory */
	T_CHECK(b != a);
	c = ucg_slab_zalloc(&slab, 181); /* 181 and 184 share the 8-byte class */
	T_CHECK(c == a);
	ucg_slab_free(&slab, NULL, 8);
	ucg_slab_fini(&slab);
}

static void test_large_goes_to_malloc(void)
{
	unsigned char *p;
	long n;

	ucg_slab_init(&slab);
	ucg_alloc_fail_after(-1);
	ucg_alloc_fail_after(1000);
	p = ucg_slab_zalloc(&slab, UCG_SLAB_MAX + 1);
	n = ucg_alloc_fail_after(-1);
	T_CHECK(p != NULL && p[UCG_SLAB_MAX] == 0);
	T_EQ_INT(n, 1);
	T_CHECK(slab.chunks == NULL);
	ucg_slab_free(&slab, p, UCG_SLAB_MAX + 1); /* ASan would catch a slab-side free */
	ucg_slab_fini(&slab);
}

static void test_injected_failure(void)
{
	void *a, *b;

	ucg_slab_init(&slab);
	a = ucg_slab_zalloc(&slab, 64); /* the chunk exists now */
	ucg_alloc_fail_after(0);
	b = ucg_slab_zalloc(&slab, 64);
	ucg_alloc_fail_after(-1);
	T_CHECK(a != NULL && b == NULL);
	ucg_slab_free(&slab, a, 64);
	ucg_slab_fini(&slab);
}

static void test_chunks_grow_and_return(void)
{
	size_t before = ucg_bulk_bytes(), held = 0, i;

	if (UCG_SLAB_PASSTHROUGH)
		T_SKIP("AddressSanitizer build: no chunks, every object is a malloc");
	ucg_slab_init(&slab);
	/* 64 KiB, 128 KiB, ... 2 MiB, 2 MiB, ...: 40,000 objects of 200 bytes need 8 MB */
	for (i = 0; i < 40000; i++)
		T_CHECK(ucg_slab_zalloc(&slab, 200) != NULL);
	held = ucg_bulk_bytes() - before;
	T_CHECK(held >= 40000 * 200);
	T_CHECK(held <= (64 + 128 + 256 + 512 + 1024 + 2048 + 2 * 2048) << 10);
	T_EQ_INT((long)slab.chunk_bytes, 2L << 20);
	ucg_slab_fini(&slab); /* the objects die with their chunks */
	T_EQ_INT((long)(ucg_bulk_bytes() - before), 0);
}

int main(void)
{
	T_RUN(test_zeroed_distinct);
	T_RUN(test_reuse_by_class);
	T_RUN(test_large_goes_to_malloc);
	T_RUN(test_injected_failure);
	T_RUN(test_chunks_grow_and_return);
	return t_done();
}
