/* tests/fuzz/fuzz_freezer.c — writes of arbitrary bytes to every freezer file
 * (driver: fuzz_ctl_a.h). The root has no files (ENOENT). */
#include "fuzz.h"
#include "fuzz_ctl_a.h"

static const char *const files[] = { "freezer.state", "freezer.self_freezing", "freezer.parent_freezing", NULL };

int ucg_fuzz_freezer(const uint8_t *data, size_t size)
{
	static const struct fza_spec spec = { "freezer", files, NULL, NULL };

	return fza_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_freezer(data, size);
}
#endif
