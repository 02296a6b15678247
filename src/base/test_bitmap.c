/* base/test_bitmap.c — bitmaps and the cpu/node list grammar (docs/kernel/controllers.md §1.1,
 * §1.2 step 2), with the kernel behaviour verified beyond them (see bitmap.h). */
#include <errno.h>
#include <string.h>

#include "base/bitmap.h"
#include "harness.h"

/* Parses s with nbits and formats the result; returns the error or 0, and the list
 * in out (which must hold 256 bytes). */
static int list(const char *s, size_t len, unsigned nbits, char *out)
{
	struct ucg_bitmap b;
	struct ucg_buf buf;
	int err;

	strcpy(out, "(unset)");
	err = ucg_bitmap_parse_list(s, len, nbits, &b);
	if (err)
		return err;
	ucg_buf_init(&buf);
	err = ucg_bitmap_format_list(&b, &buf);
	if (!err)
		snprintf(out, 256, "%s", buf.data ? buf.data : "");
	ucg_buf_fini(&buf);
	return err;
}

#define L(s, nbits, out) list((s), sizeof(s) - 1, (nbits), (out))

/* Expect a successful parse on the 2-CPU reference machine to print want. */
#define OK2(s, want)                                                                   \
	do {                                                                           \
		char o_[256];                                                          \
		T_EQ_INT(L(s, 2, o_), 0);                                              \
		T_EQ_STR(o_, want);                                                    \
	} while (0)
#define ERR2(s, err)                                                                   \
	do {                                                                           \
		char o_[256];                                                          \
		T_EQ_INT(L(s, 2, o_), err);                                            \
	} while (0)

static void test_spec_1_1_syntax(void)
{
	OK2("0", "0");
	OK2("1", "1");
	OK2("0-1", "0-1");
	OK2("1 0", "0-1");
	OK2("1 , 0", "0-1");
	OK2("0,,1", "0-1");
	OK2("0-1:1/2", "0");
	OK2("0-1:2/2", "0-1");
	OK2("01", "1");
	OK2("0\n1", "0");
	OK2("\n", "");
	OK2("  ", "");
	OK2("1,0,1,0", "0-1");
}

static void test_spec_1_2_errors(void)
{
	ERR2("abc", -EINVAL);
	ERR2("1-0", -EINVAL);
	ERR2("-1", -EINVAL);
	ERR2("0-", -EINVAL);
	ERR2("0 - 1", -EINVAL);
	ERR2("0-1:1", -EINVAL);
	ERR2("0x1", -EINVAL);
	ERR2("2", -ERANGE);
	ERR2("64", -ERANGE);
	ERR2("8192", -ERANGE);
	ERR2("4294967296", -EOVERFLOW);
	ERR2("4294967295", -EINVAL); /* the quirk */
}

static void test_output_canonical(void)
{
	struct ucg_bitmap b;
	struct ucg_buf buf;
	unsigned bits[] = { 0, 2, 3, 4, 7 };

	ucg_bitmap_init(&b, 16);
	for (unsigned i = 0; i < 5; i++)
		ucg_bitmap_set(&b, bits[i]);
	ucg_buf_init(&buf);
	T_EQ_INT(ucg_bitmap_format_list(&b, &buf), 0);
	T_EQ_STR(buf.data, "0,2-4,7");
	ucg_buf_reset(&buf);
	ucg_bitmap_init(&b, 4096);
	ucg_bitmap_set(&b, 63);
	ucg_bitmap_set(&b, 64);
	ucg_bitmap_set(&b, 4095);
	T_EQ_INT(ucg_bitmap_format_list(&b, &buf), 0);
	T_EQ_STR(buf.data, "63-64,4095");
	ucg_buf_fini(&buf);
}

/* Verified on the 6.18 kernel, not (yet) in docs/kernel/controllers.md. */
static void test_kernel_extras(void)
{
	OK2(",0", "0");
	OK2("0,", "0");
	OK2("\n1", "1"); /* stripped first, so a leading newline does not end the list */
	OK2("all", "0-1");
	OK2("ALL", "0-1");
	OK2("All", "0-1");
	OK2("N", "1");
	OK2("0-N", "0-1");
	OK2("N-N", "1");
	OK2("all:1/2", "0");
	OK2("all:2/2", "0-1");
	OK2("all,0", "0-1");
	OK2("all 0", "0-1");
	OK2("0-1:0/2", ""); /* G = 0 is valid and sets nothing */
	OK2("0-1:1/2,1", "0-1");
	OK2("0-1:4294967295/4294967295", "0-1");
	OK2("1-1:1/1", "1");
	OK2("0-1:1/1,", "0-1");
	OK2("00000000000000000000001", "1");
	OK2("0\t1", "0-1");
	OK2("0\v1", "0-1");
	OK2("0\f1", "0-1");
	OK2("\r0", "0");
	OK2("0\xa0" "1", "0-1");
	OK2("\xa0" "1", "1");
	OK2("1\xa0", "1");
	OK2("0\0" "1", "0");
	OK2("\0", "");
	ERR2("n", -EINVAL);
	ERR2("0-1:3/2", -EINVAL);
	ERR2("0-1:1/0", -EINVAL);
	ERR2("0-1:2/1", -EINVAL);
	ERR2("0:1/2", -EINVAL);
	ERR2("N:1/2", -EINVAL);
	ERR2("+1", -EINVAL);
	ERR2("0-1:1/2:1/2", -EINVAL);
	ERR2("0-1: 1/2", -EINVAL);
	ERR2("0- 1", -EINVAL);
	ERR2("0-1:1/2x", -EINVAL);
	ERR2("alls", -EINVAL);
	ERR2("all1", -EINVAL);
	ERR2("0;1", -EINVAL);
	ERR2("0.1", -EINVAL);
	ERR2("4294967294", -ERANGE);
	ERR2("0-4294967294", -ERANGE);
	ERR2("0-4294967295", -EINVAL);
	ERR2("99999999999999999999", -EOVERFLOW);
	ERR2("0-1:1/4294967296", -EOVERFLOW);
	ERR2("0-2:1/2", -ERANGE);
	/* regions are checked in order */
	ERR2("2,x", -ERANGE);
	ERR2("x,2", -EINVAL);
	ERR2("1-0,5", -EINVAL);
	ERR2("5,1-0", -ERANGE);
}

/* cpuset.mems: nbits is MAX_NUMNODES (1024 on the reference); the list parser gives
 * ERANGE at 1024 and up, the online check (the caller's) EINVAL below. */
static void test_mems_nbits(void)
{
	char o[256];

	T_EQ_INT(L("1023", 1024, o), 0);
	T_EQ_STR(o, "1023");
	T_EQ_INT(L("1024", 1024, o), -ERANGE);
	T_EQ_INT(L("N", 1024, o), 0);
	T_EQ_STR(o, "1023");
	T_EQ_INT(L("all", 1024, o), 0);
	T_EQ_STR(o, "0-1023");
	T_EQ_INT(L("4294967296", 1024, o), -EOVERFLOW);
	T_EQ_INT(L("0-4095:1/1024", 4096, o), 0);
	T_EQ_STR(o, "0,1024,2048,3072");
	T_EQ_INT(L("0-4095:3/1000", 4096, o), 0);
	T_EQ_STR(o, "0-2,1000-1002,2000-2002,3000-3002,4000-4002");
	T_EQ_INT(L("0", 4097, o), -EINVAL); /* beyond the capacity */
	T_EQ_INT(L("0", 0, o), -ERANGE);
}

static void test_no_write_on_error(void)
{
	struct ucg_bitmap b;

	ucg_bitmap_init(&b, 2);
	ucg_bitmap_set(&b, 1);
	T_EQ_INT(ucg_bitmap_parse_list("0,5", 3, 2, &b), -ERANGE);
	T_CHECK(ucg_bitmap_test(&b, 1) && !ucg_bitmap_test(&b, 0));
	T_EQ_INT(ucg_bitmap_parse_list("0", 1, 2, &b), 0);
	T_CHECK(ucg_bitmap_test(&b, 0) && !ucg_bitmap_test(&b, 1));
	T_EQ_INT(b.nbits, 2);
}

static void test_set_ops(void)
{
	struct ucg_bitmap a, b, c, e;

	ucg_bitmap_init(&a, 200);
	ucg_bitmap_init(&b, 200);
	ucg_bitmap_init(&e, 200);
	T_EQ_INT(ucg_bitmap_parse_list("0-3,100,150-199", 16, 200, &a), 0);
	T_EQ_INT(ucg_bitmap_parse_list("2,100", 5, 200, &b), 0);
	T_EQ_INT(ucg_bitmap_weight(&a), 55);
	T_EQ_INT(ucg_bitmap_weight(&b), 2);
	T_CHECK(ucg_bitmap_subset(&b, &a));
	T_CHECK(!ucg_bitmap_subset(&a, &b));
	T_CHECK(ucg_bitmap_subset(&e, &b)); /* empty is a subset of everything */
	T_CHECK(ucg_bitmap_subset(&e, &e));
	T_CHECK(ucg_bitmap_intersects(&a, &b));
	T_CHECK(!ucg_bitmap_intersects(&a, &e));
	T_CHECK(ucg_bitmap_empty(&e));
	T_CHECK(!ucg_bitmap_empty(&b));
	c = a;
	T_CHECK(ucg_bitmap_equal(&c, &a));
	ucg_bitmap_and(&c, &a, &b);
	T_CHECK(ucg_bitmap_equal(&c, &b));
	ucg_bitmap_andnot(&c, &a, &b);
	T_EQ_INT(ucg_bitmap_weight(&c), 53);
	T_CHECK(!ucg_bitmap_intersects(&c, &b));
	ucg_bitmap_or(&c, &c, &b);
	T_CHECK(ucg_bitmap_equal(&c, &a));
	/* set/clear/test ignore bits beyond nbits */
	ucg_bitmap_set(&c, 200);
	T_CHECK(!ucg_bitmap_test(&c, 200));
	T_CHECK(ucg_bitmap_equal(&c, &a));
	ucg_bitmap_clear(&c, 0);
	T_CHECK(!ucg_bitmap_test(&c, 0));
	T_EQ_INT(ucg_bitmap_next(&c, 0), 1);
	T_EQ_INT(ucg_bitmap_next(&c, 4), 100);
	T_EQ_INT(ucg_bitmap_next(&c, 101), 150);
	T_EQ_INT(ucg_bitmap_next(&c, 200), -1);
	T_EQ_INT(ucg_bitmap_next(&e, 0), -1);
	ucg_bitmap_fill(&c);
	T_EQ_INT(ucg_bitmap_weight(&c), 200);
	ucg_bitmap_zero(&c);
	T_CHECK(ucg_bitmap_empty(&c));
}

static void test_narrower_dst_is_trimmed(void)
{
	struct ucg_bitmap wide, narrow;

	ucg_bitmap_init(&wide, 128);
	ucg_bitmap_fill(&wide);
	ucg_bitmap_init(&narrow, 70);
	ucg_bitmap_or(&narrow, &narrow, &wide);
	T_EQ_INT(ucg_bitmap_weight(&narrow), 70);
	T_CHECK(!ucg_bitmap_test(&narrow, 70));
	ucg_bitmap_init(&narrow, 4096);
	ucg_bitmap_fill(&narrow);
	T_EQ_INT(ucg_bitmap_weight(&narrow), 4096);
	ucg_bitmap_init(&narrow, 99999); /* clamped to the capacity */
	T_EQ_INT(narrow.nbits, UCG_BITMAP_MAX_BITS);
}

static void test_roundtrip(void)
{
	/* format then parse gives the same set, for a pseudo-random selection */
	uint64_t x = 88172645463325252ull;

	for (int round = 0; round < 200; round++) {
		struct ucg_bitmap a, b;
		struct ucg_buf buf;

		ucg_bitmap_init(&a, 300);
		for (int i = 0; i < 40; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			ucg_bitmap_set(&a, (unsigned)(x % 300));
		}
		ucg_buf_init(&buf);
		T_EQ_INT(ucg_bitmap_format_list(&a, &buf), 0);
		T_EQ_INT(ucg_bitmap_parse_list(buf.data ? buf.data : "", buf.len, 300, &b), 0);
		T_CHECK(ucg_bitmap_equal(&a, &b));
		ucg_buf_fini(&buf);
	}
}

int main(void)
{
	T_RUN(test_spec_1_1_syntax);
	T_RUN(test_spec_1_2_errors);
	T_RUN(test_output_canonical);
	T_RUN(test_kernel_extras);
	T_RUN(test_mems_nbits);
	T_RUN(test_no_write_on_error);
	T_RUN(test_set_ops);
	T_RUN(test_narrower_dst_is_trimmed);
	T_RUN(test_roundtrip);
	return t_done();
}
