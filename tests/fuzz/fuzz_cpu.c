/* tests/fuzz/fuzz_cpu.c — writes of arbitrary bytes to every cpu file
 * (driver: fuzz_ctl.h). The root refuses CFS writes; RT writes go through the tree check. */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const files[] = { "cpu.shares", "cpu.idle", "cpu.cfs_quota_us", "cpu.cfs_period_us",
				     "cpu.cfs_burst_us", "cpu.stat", "cpu.stat.local",
				     "cpu.rt_runtime_us", "cpu.rt_period_us", NULL };

int ucg_fuzz_cpu(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "cpu", .files = files, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_cpu(data, size);
}
#endif
