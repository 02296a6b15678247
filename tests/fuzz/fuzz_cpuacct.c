/* tests/fuzz/fuzz_cpuacct.c — writes of arbitrary bytes to every cpuacct file
 * (driver: fuzz_ctl.h). Only "0" is accepted by cpuacct.usage. */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const files[] = { "cpuacct.usage", "cpuacct.usage_user", "cpuacct.usage_sys",
				     "cpuacct.usage_percpu", "cpuacct.usage_all", "cpuacct.stat", NULL };

int ucg_fuzz_cpuacct(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "cpuacct", .files = files, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_cpuacct(data, size);
}
#endif
