/* base/test_memparse.c — the MEM class (docs/kernel/controllers.md §0.1, §4.1) and the kernel
 * behaviour verified beyond it (see memparse.h). */
#include <errno.h>
#include <string.h>

#include "base/memparse.h"
#include "harness.h"

#define PAGE 4096u
#define PCM ((uint64_t)INT64_MAX / PAGE) /* PAGE_COUNTER_MAX */
#define MEMMAX UINT64_C(9223372036854771712)

/* Parses s (with its length, embedded NULs included) and returns the error or 0. */
static int mem(const char *s, size_t len, uint64_t *bytes)
{
	return ucg_parse_mem(s, len, bytes, NULL);
}

#define MEM(s, b) mem((s), sizeof(s) - 1, (b))

/* What memory.limit_in_bytes reads back after writing s: pages, clamped, in bytes. */
static uint64_t readback(const char *s, size_t len)
{
	uint64_t b = 12345;

	if (mem(s, len, &b) < 0)
		return 1; /* never a page multiple: marks an error */
	return ucg_mem_to_units(b, PAGE, PCM) * PAGE;
}

#define RB(s) readback((s), sizeof(s) - 1)

static void test_table_4_1(void)
{
	T_EQ_INT(RB("4096"), 4096);
	T_EQ_INT(RB("4097"), 4096);
	T_EQ_INT(RB("1"), 0);
	T_EQ_INT(RB("1k"), 0);
	T_EQ_INT(RB("100M"), 104857600);
	T_EQ_INT(RB("100m"), 104857600);
	T_EQ_INT(RB("1G"), 1073741824);
	T_EQ_INT(RB("1t"), 1099511627776LL);
	T_EQ_INT(RB("2E"), 2305843009213693952LL);
	T_EQ_INT(RB("16E"), 0);
	T_EQ_INT(RB("0x1000"), 4096);
	T_EQ_INT(RB("010000"), 4096);
	T_EQ_INT(RB(" 10"), 0);
	T_CHECK(RB("-1") == MEMMAX);
	T_CHECK(RB("9223372036854775807") == MEMMAX);
	T_CHECK(RB("18446744073709551615") == MEMMAX);
	T_EQ_INT(RB("18446744073709551616"), 0);
}

static void test_einval_table(void)
{
	const char *bad[] = { "-2", "max", "1.5M", "abc", "10x" };
	uint64_t b = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		T_EQ_INT(mem(bad[i], strlen(bad[i]), &b), -EINVAL);
		T_EQ_INT(b, 7); /* nothing written on failure */
	}
}

static void test_suffixes(void)
{
	const char *sfx = "kKmMgGtTpPeE";
	uint64_t b;

	for (int i = 0; sfx[i]; i++) {
		char s[3] = { '1', sfx[i], 0 };

		T_EQ_INT(mem(s, 2, &b), 0);
		T_CHECK(b == UINT64_C(1) << (10 * (i / 2 + 1)));
	}
	T_EQ_INT(MEM("3M", &b), 0);
	T_EQ_INT(b, 3u << 20);
	/* at most one suffix, nothing after it */
	T_EQ_INT(MEM("1kk", &b), -EINVAL);
	T_EQ_INT(MEM("1Kx", &b), -EINVAL);
	T_EQ_INT(MEM("1kb", &b), -EINVAL);
	T_EQ_INT(MEM("1 k", &b), -EINVAL);
	T_EQ_INT(MEM("1e3", &b), -EINVAL);
}

static void test_unlimited(void)
{
	uint64_t b = 0;
	bool unl = false;

	T_EQ_INT(ucg_parse_mem("-1", 2, &b, &unl), 0);
	T_CHECK(b == UCG_MEM_UNLIMITED);
	T_CHECK(unl);
	T_EQ_INT(ucg_parse_mem(" -1 \n", 5, &b, &unl), 0);
	T_CHECK(unl);
	T_EQ_INT(ucg_parse_mem("18446744073709551615", 20, &b, &unl), 0);
	T_CHECK(b == UCG_MEM_UNLIMITED);
	T_CHECK(!unl);
	/* only the exact literal -1 */
	T_EQ_INT(MEM("-1k", &b), -EINVAL);
	T_EQ_INT(MEM("--1", &b), -EINVAL);
	T_EQ_INT(MEM("- 1", &b), -EINVAL);
	T_EQ_INT(MEM("-0", &b), -EINVAL);
	T_EQ_INT(MEM("-01", &b), -EINVAL);
}

static void test_radix(void)
{
	uint64_t b;

	T_EQ_INT(MEM("0x1e", &b), 0); /* e is a hex digit here, not exa */
	T_EQ_INT(b, 30);
	T_EQ_INT(MEM("0x1E", &b), 0);
	T_EQ_INT(b, 30);
	T_EQ_INT(MEM("0X10", &b), 0);
	T_EQ_INT(b, 16);
	T_EQ_INT(MEM("0x1k", &b), 0);
	T_EQ_INT(b, 1024);
	T_EQ_INT(MEM("07k", &b), 0);
	T_EQ_INT(b, 7 * 1024);
	T_EQ_INT(MEM("0k", &b), 0);
	T_EQ_INT(b, 0);
	T_EQ_INT(MEM("08", &b), -EINVAL);
	T_EQ_INT(MEM("0x", &b), -EINVAL);
	T_EQ_INT(MEM("0xk", &b), -EINVAL);
	T_EQ_INT(MEM("0xg", &b), -EINVAL);
	T_EQ_INT(MEM("0b1", &b), -EINVAL);
	/* no sign: simple_strtoull takes none (kernel-verified, unlike strtoull) */
	T_EQ_INT(MEM("+4096", &b), -EINVAL);
}

static void test_empty_is_zero(void)
{
	uint64_t b = 9;

	/* no digits parse as 0 (kernel-verified: "", " ", "\n" and "k" all set 0) */
	T_EQ_INT(ucg_parse_mem("", 0, &b, NULL), 0);
	T_EQ_INT(b, 0);
	b = 9;
	T_EQ_INT(MEM("\n", &b), 0);
	T_EQ_INT(b, 0);
	b = 9;
	T_EQ_INT(MEM(" ", &b), 0);
	T_EQ_INT(b, 0);
	b = 9;
	T_EQ_INT(MEM("k", &b), 0);
	T_EQ_INT(b, 0);
}

static void test_whitespace_and_nul(void)
{
	uint64_t b;

	T_EQ_INT(MEM("\t1m", &b), 0);
	T_EQ_INT(b, 1 << 20);
	T_EQ_INT(MEM("1K\n", &b), 0);
	T_EQ_INT(b, 1024);
	T_EQ_INT(MEM("4096\n\n", &b), 0);
	T_EQ_INT(b, 4096);
	T_EQ_INT(MEM("\r\v\f 4096 \r", &b), 0);
	T_EQ_INT(b, 4096);
	/* 0xA0 is space to the kernel */
	T_EQ_INT(MEM("\xa0" "4096", &b), 0);
	T_EQ_INT(b, 4096);
	T_EQ_INT(MEM("4096\xa0", &b), 0);
	T_EQ_INT(b, 4096);
	/* the text ends at the first NUL */
	T_EQ_INT(MEM("4096\0junk", &b), 0);
	T_EQ_INT(b, 4096);
	/* inner whitespace is not stripped */
	T_EQ_INT(MEM("40 96", &b), -EINVAL);
}

static void test_wrap(void)
{
	uint64_t b;

	T_EQ_INT(MEM("16E", &b), 0);
	T_EQ_INT(b, 0);
	T_EQ_INT(MEM("18446744073709551616", &b), 0);
	T_EQ_INT(b, 0);
	T_EQ_INT(MEM("36893488147419103232", &b), 0); /* 2^65 */
	T_EQ_INT(b, 0);
	T_EQ_INT(MEM("8191E", &b), 0); /* (8191 mod 16) << 60 */
	T_CHECK(b == UINT64_C(15) << 60);
	T_CHECK(RB("8191E") == MEMMAX);
	T_EQ_INT(MEM("12345678901234567890123", &b), 0);
	T_CHECK(b == UINT64_C(4807115922877859019)); /* the value mod 2^64 */
	T_CHECK(RB("12345678901234567890123") == UINT64_C(4807115922877857792));
	T_CHECK(RB("0xffffffffffffffffff") == MEMMAX);
}

static void test_units(void)
{
	/* hugetlb 2MB: to 4 KiB pages, clamp, round down to 512 pages */
	uint64_t p = ucg_mem_to_units(UCG_MEM_UNLIMITED, PAGE, PCM);

	T_CHECK(p == PCM);
	T_CHECK((p - p % 512) * PAGE == UINT64_C(9223372036852678656));
	p = ucg_mem_to_units(UCG_MEM_UNLIMITED, PAGE, PCM);
	T_CHECK((p - p % (262144)) * PAGE == UINT64_C(9223372035781033984));
	T_EQ_INT(ucg_mem_to_units(4194303, PAGE, PCM) / 512 * 512 * PAGE, 2097152);
	T_EQ_INT(ucg_mem_to_units(0, PAGE, PCM), 0);
	T_EQ_INT(ucg_mem_to_units(100, 1, 10), 10);
}

int main(void)
{
	T_RUN(test_table_4_1);
	T_RUN(test_einval_table);
	T_RUN(test_suffixes);
	T_RUN(test_unlimited);
	T_RUN(test_radix);
	T_RUN(test_empty_is_zero);
	T_RUN(test_whitespace_and_nul);
	T_RUN(test_wrap);
	T_RUN(test_units);
	return t_done();
}
