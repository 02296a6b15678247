/* base/test_buf.c — ucg_buf's formatting: the hand-made paths (ucg_buf_put_u64/s64,
 * the simple printf formats) must print exactly what snprintf prints, the others
 * still go through vsnprintf, and output longer than the spare room grows the buffer. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "harness.h"

/* ucg_buf_printf and snprintf of the same format and arguments, appended to "x" (so
 * formatting after existing content is covered too). */
static void same(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void same(const char *fmt, ...)
{
	char want[512];
	struct ucg_buf b;
	va_list ap, aq;

	va_start(ap, fmt);
	va_copy(aq, ap);
	want[0] = 'x';
	vsnprintf(want + 1, sizeof(want) - 1, fmt, aq);
	va_end(aq);
	ucg_buf_init(&b);
	ucg_buf_putc(&b, 'x');
	ucg_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	T_EQ_STR(b.data, want);
	T_EQ_INT(b.len, strlen(want));
	ucg_buf_fini(&b);
}

static void test_simple_formats(void)
{
	char big[300];

	same("%d %d %d %d\n", 0, -1, INT_MIN, INT_MAX);
	same("%u %u\n", 0u, UINT_MAX);
	same("%ld %lu %lld %llu", LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX);
	same("%x %lx %llx %x", 0u, 0xdeadbeeful, 0x1234567890abcdefull, 255u);
	same("%zu", (size_t)SIZE_MAX);
	same("%s=%s;", "key", "");
	same("%%%s%%", "p");
	same("%.*s|%.*s|%.*s", 3, "abcdef", 10, "abc", 0, "abc");
	same("%.*s %u\n", 15, "eth0", 7u);
	same("no conversions at all");
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	same("%s %llu", big, 12345678901234ull); /* past the spare room: the buffer grows */
}

static void test_other_formats(void)
{
	same("%5d|%-5d|%05u", 42, 42, 42u);
	same("%08x %X %o", 0xabcu, 0xabcu, 8u);
	same("%.2f %9.2f", 3.14159, 2.5);
	same("%c%c", 'o', 'k');
	same("%10s|%-4s|", "r", "l");
	same("%i %hhu", -7, (unsigned char)200);
}

static void test_put_numbers(void)
{
	struct ucg_buf b;

	ucg_buf_init(&b);
	ucg_buf_put_u64(&b, 0);
	ucg_buf_putc(&b, ' ');
	ucg_buf_put_u64(&b, UINT64_MAX);
	ucg_buf_putc(&b, ' ');
	ucg_buf_put_s64(&b, INT64_MIN);
	ucg_buf_putc(&b, ' ');
	ucg_buf_put_s64(&b, -1);
	ucg_buf_putc(&b, ' ');
	ucg_buf_put_s64(&b, INT64_MAX);
	T_EQ_STR(b.data, "0 18446744073709551615 -9223372036854775808 -1 9223372036854775807");
	ucg_buf_fini(&b);
}

int main(void)
{
	T_RUN(test_simple_formats);
	T_RUN(test_other_formats);
	T_RUN(test_put_numbers);
	return t_done();
}
