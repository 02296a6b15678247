/* base/parse.c — strict number parsers (see parse.h for the accepted syntax). */
#include "base/parse.h"
#include "base/kctype.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

size_t ucg_text_len(const char *data, size_t len)
{
	const char *nul = memchr(data, '\0', len);

	return nul ? (size_t)(nul - data) : len;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Parses an unsigned magnitude with base auto-detection, consuming all of [s, s+len).
 * Mirrors the kernel's _parse_integer_fixup_radix: "0x" is hex only when a hex digit
 * follows; otherwise a leading 0 means octal. */
static int parse_magnitude(const char *s, size_t len, uint64_t *ret)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (len >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
	    isxdigit((unsigned char)s[2])) {
		base = 16;
		i = 2;
	} else if (len >= 1 && s[0] == '0') {
		base = 8;
	}
	if (i >= len)
		return -EINVAL;
	for (; i < len; i++) {
		int d = digit_value(s[i]);

		if (d >= (int)base)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*ret = v;
	return 0;
}

static size_t kstrto_len(const char *data, size_t len)
{
	len = ucg_text_len(data, len);
	if (len && data[len - 1] == '\n')
		len--;
	return len;
}

int ucg_parse_u64(const char *data, size_t len, uint64_t *ret)
{
	uint64_t v;
	int r;

	len = kstrto_len(data, len);
	if (len && data[0] == '+') {
		data++;
		len--;
	}
	r = parse_magnitude(data, len, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int ucg_parse_s64(const char *data, size_t len, int64_t *ret)
{
	uint64_t v;
	int neg = 0, r;

	len = kstrto_len(data, len);
	if (len && (data[0] == '-' || data[0] == '+')) {
		neg = data[0] == '-';
		data++;
		len--;
	}
	r = parse_magnitude(data, len, &v);
	if (r < 0)
		return r;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > INT64_MAX)
			return -ERANGE;
		*ret = (int64_t)v;
	}
	return 0;
}

int ucg_parse_pid(const char *data, size_t len, int *ret)
{
	const char *s = data;
	int64_t v;

	len = ucg_text_len(data, len);
	ucg_kstrip(&s, &len);
	if (!len)
		return -EINVAL;
	if (ucg_parse_s64(s, len, &v) < 0 || v < 0 || v > INT_MAX)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}
