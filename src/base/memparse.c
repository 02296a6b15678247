/* base/memparse.c — the MEM input class: the kernel's memparse() behind strstrip()
 * and page_counter_memparse(), reimplemented (see memparse.h for the syntax).
 *
 * Why wrap instead of ERANGE: the kernel's simple_strtoull() keeps multiplying past
 * 2^64 and memparse() shifts without checks, and the memory files accept the result.
 * We do the same arithmetic in uint64_t, where wrapping is defined.
 */
#include "base/memparse.h"

#include <errno.h>
#include <string.h>

#include "base/kctype.h"

static unsigned digit_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

static unsigned suffix_shift(char c)
{
	switch (c) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	case 't': case 'T': return 40;
	case 'p': case 'P': return 50;
	case 'e': case 'E': return 60;
	default: return 0;
	}
}

int ucg_parse_mem(const char *data, size_t len, uint64_t *ret_bytes, bool *ret_unlimited)
{
	const char *s = data;
	const char *nul = memchr(data, '\0', len);
	uint64_t v = 0;
	unsigned base = 10, shift;
	size_t i = 0;

	if (nul)
		len = (size_t)(nul - data);
	ucg_kstrip(&s, &len);

	/* page_counter_memparse() compares the whole stripped text with "-1". */
	if (len == 2 && s[0] == '-' && s[1] == '1') {
		*ret_bytes = UCG_MEM_UNLIMITED;
		if (ret_unlimited)
			*ret_unlimited = true;
		return 0;
	}

	/* Radix as _parse_integer_fixup_radix(): "0x" counts only before a hex digit. */
	if (len >= 1 && s[0] == '0') {
		base = 8;
		if (len >= 3 && (s[1] == 'x' || s[1] == 'X') &&
		    digit_value((unsigned char)s[2]) < 16) {
			base = 16;
			i = 2;
		}
	}
	for (; i < len; i++) {
		unsigned d = digit_value((unsigned char)s[i]);

		if (d >= base)
			break;
		v = v * base + d; /* wraps mod 2^64, as the kernel's loop does */
	}
	if (i < len && (shift = suffix_shift(s[i])) != 0) {
		/* Shifting by 60 keeps only the low 4 bits: the wrap the kernel has too. */
		v <<= shift;
		i++;
	}
	if (i != len)
		return -EINVAL;
	*ret_bytes = v;
	if (ret_unlimited)
		*ret_unlimited = false;
	return 0;
}

uint64_t ucg_mem_to_units(uint64_t bytes, uint64_t unit_size, uint64_t max_units)
{
	uint64_t units = bytes / unit_size;

	return units < max_units ? units : max_units;
}
