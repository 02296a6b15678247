/* tests/fuzz/fuzz_memparse.c — the MEM parser on arbitrary bytes: it must not read
 * past its input (the input is copied to an exact-size heap block for ASan), must
 * return 0 or -EINVAL only, and must agree with itself on a NUL-terminated copy. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/memparse.h"
#include "fuzz.h"

int ucg_fuzz_memparse(const uint8_t *data, size_t size)
{
	char *exact = malloc(size ? size : 1), *cstr = malloc(size + 1);
	uint64_t a = 0, b = 0;
	bool ua = false, ub = false;
	int ra, rb;

	if (!exact || !cstr)
		abort();
	memcpy(exact, data, size);
	memcpy(cstr, data, size);
	cstr[size] = '\0';
	ra = ucg_parse_mem(exact, size, &a, &ua);
	rb = ucg_parse_mem(cstr, size + 1, &b, &ub);
	if (ra != 0 && ra != -EINVAL)
		abort();
	if (ra != rb || (ra == 0 && (a != b || ua != ub)))
		abort();
	if (ra == 0 && ua && a != UCG_MEM_UNLIMITED)
		abort();
	if (ra == 0 && ucg_mem_to_units(a, 4096, INT64_MAX / 4096) > INT64_MAX / 4096)
		abort();
	free(exact);
	free(cstr);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_memparse(data, size);
}
#endif
