/* base/test_alloc.c — ucg_alloc_aligned: the block starts at a multiple of the
 * alignment asked for, is zeroed when asked, is freed through the base it stores,
 * and an injected failure returns NULL with the base untouched. */
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "harness.h"

static void test_aligned(void)
{
	static const size_t aligns[] = { 16, 64, 128, 4096 };
	size_t i, k, j;

	for (i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++)
		for (k = 0; k < 32; k++) {
			size_t size = 1 + k * 37;
			void *base = NULL;
			unsigned char *p = ucg_alloc_aligned(size, aligns[i], 1, &base);

			T_CHECK(p != NULL);
			T_CHECK(base != NULL);
			T_CHECK((uintptr_t)p % aligns[i] == 0);
			T_CHECK(p >= (unsigned char *)base);
			T_CHECK(p < (unsigned char *)base + aligns[i]);
			for (j = 0; j < size; j++)
				T_CHECK(p[j] == 0);
			memset(p, 0xa5, size); /* the whole size is ours: ASan would say */
			ucg_free(base);
		}
}

static void test_failure(void)
{
	void *base = (void *)&base;

	ucg_alloc_fail_after(0);
	T_CHECK(ucg_alloc_aligned(100, 64, 0, &base) == NULL);
	T_CHECK(ucg_alloc_aligned(100, 64, 1, &base) == NULL);
	ucg_alloc_fail_after(-1);
	T_CHECK(base == (void *)&base);
	T_CHECK(ucg_alloc_aligned(SIZE_MAX - 8, 64, 0, &base) == NULL);
	T_CHECK(base == (void *)&base);
}

int main(void)
{
	T_RUN(test_aligned);
	T_RUN(test_failure);
	return t_done();
}
