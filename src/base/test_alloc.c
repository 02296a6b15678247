/* base/test_alloc.c — ucg_alloc_aligned: the block starts at a multiple of the
 * alignment asked for, is zeroed when asked, is freed through the base it stores,
 * and an injected failure returns NULL with the base untouched; ucg_realloc_aligned
 * keeps the contents. */
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

static void test_realloc_keeps(void)
{
	void *base = NULL;
	unsigned char *p = NULL, *q;
	size_t n = 0, i;

	/* grown from nothing, then past itself three times: contents kept, aligned */
	for (int round = 0; round < 4; round++) {
		size_t m = n ? n * 3 : 100;

		q = ucg_realloc_aligned(p, n, m, 64, &base);
		T_CHECK(q != NULL);
		T_CHECK((uintptr_t)q % 64 == 0);
		for (i = 0; i < n; i++)
			T_CHECK(q[i] == (unsigned char)(i * 7));
		for (i = 0; i < m; i++)
			q[i] = (unsigned char)(i * 7);
		p = q;
		n = m;
	}
	/* out of memory: the old block and its base stay as they were */
	{
		void *was = base;

		ucg_alloc_fail_after(0);
		T_CHECK(ucg_realloc_aligned(p, n, n * 2, 64, &base) == NULL);
		ucg_alloc_fail_after(-1);
		T_CHECK(base == was);
		T_CHECK(p[n - 1] == (unsigned char)((n - 1) * 7));
	}
	ucg_free(base);
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
	T_RUN(test_realloc_keeps);
	T_RUN(test_failure);
	return t_done();
}
