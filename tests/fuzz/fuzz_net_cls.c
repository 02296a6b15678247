/* tests/fuzz/fuzz_net_cls.c — writes of arbitrary bytes to every net_cls file
 * (driver: fuzz_ctl.h). U64 truncated to 32 bits. */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const files[] = { "net_cls.classid", NULL };

int ucg_fuzz_net_cls(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "net_cls", .files = files, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_net_cls(data, size);
}
#endif
