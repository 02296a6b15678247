/* tests/fuzz/fuzz_pids.c — writes of arbitrary bytes to every pids file
 * (driver: fuzz_ctl_a.h). The "max or integer" kind of the core. */
#include "fuzz.h"
#include "fuzz_ctl_a.h"

static const char *const files[] = { "pids.max", "pids.current", "pids.events", "pids.peak", NULL };

int ucg_fuzz_pids(const uint8_t *data, size_t size)
{
	static const struct fza_spec spec = { "pids", files, NULL, NULL };

	return fza_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_pids(data, size);
}
#endif
