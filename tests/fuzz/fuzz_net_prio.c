/* tests/fuzz/fuzz_net_prio.c — writes of arbitrary bytes to every net_prio file
 * (driver: fuzz_ctl.h). The sscanf("%16s %u") grammar of ifpriomap. */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const files[] = { "net_prio.ifpriomap", "net_prio.prioidx", NULL };

int ucg_fuzz_net_prio(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "net_prio", .files = files, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_net_prio(data, size);
}
#endif
