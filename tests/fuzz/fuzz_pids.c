/* tests/fuzz/fuzz_pids.c — writes of arbitrary bytes to every pids file
 * (driver: fuzz_ctl.h). The "max or integer" kind of the core. */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const files[] = { "pids.max", "pids.current", "pids.events", "pids.peak", NULL };

int ucg_fuzz_pids(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "pids", .files = files, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_pids(data, size);
}
#endif
