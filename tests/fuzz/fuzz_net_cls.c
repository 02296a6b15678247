/* tests/fuzz/fuzz_net_cls.c — writes of arbitrary bytes to every net_cls file
 * (driver: fuzz_ctl_a.h). U64 truncated to 32 bits. */
#include "fuzz.h"
#include "fuzz_ctl_a.h"

static const char *const files[] = { "net_cls.classid", NULL };

int ucg_fuzz_net_cls(const uint8_t *data, size_t size)
{
	static const struct fza_spec spec = { "net_cls", files, NULL, NULL };

	return fza_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_net_cls(data, size);
}
#endif
