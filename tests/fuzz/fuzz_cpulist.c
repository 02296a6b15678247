/* tests/fuzz/fuzz_cpulist.c — the cpu/node list parser on arbitrary bytes. The first
 * byte picks nbits (1..4096 spread), the rest is the list. Invariants: only the
 * documented errnos; on success no bit at or above nbits, and format-then-parse gives
 * the same set. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bitmap.h"
#include "fuzz.h"

int ucg_fuzz_cpulist(const uint8_t *data, size_t size)
{
	static const unsigned widths[] = { 1, 2, 4, 63, 64, 65, 128, 1024, 4096 };
	struct ucg_bitmap b, again;
	struct ucg_buf out;
	unsigned nbits;
	char *exact;
	int err;

	if (size < 1)
		return 0;
	nbits = widths[data[0] % (sizeof(widths) / sizeof(widths[0]))];
	exact = malloc(size - 1 ? size - 1 : 1);
	if (!exact)
		abort();
	memcpy(exact, data + 1, size - 1);
	err = ucg_bitmap_parse_list(exact, size - 1, nbits, &b);
	free(exact);
	if (err != 0 && err != -EINVAL && err != -ERANGE && err != -EOVERFLOW)
		abort();
	if (err)
		return 0;
	if (b.nbits != nbits || ucg_bitmap_next(&b, nbits) != -1)
		abort();
	for (unsigned i = nbits; i < UCG_BITMAP_MAX_BITS; i++)
		if (b.w[i / 64] >> (i % 64) & 1)
			abort();
	ucg_buf_init(&out);
	if (ucg_bitmap_format_list(&b, &out) < 0)
		abort();
	if (ucg_bitmap_parse_list(out.data ? out.data : "", out.len, nbits, &again) < 0 ||
	    !ucg_bitmap_equal(&b, &again))
		abort();
	ucg_buf_fini(&out);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_cpulist(data, size);
}
#endif
