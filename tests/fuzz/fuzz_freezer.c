/* tests/fuzz/fuzz_freezer.c — writes of arbitrary bytes to every freezer file
 * (driver: fuzz_ctl.h). The root has no files (ENOENT). */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const files[] = { "freezer.state", "freezer.self_freezing", "freezer.parent_freezing", NULL };

int ucg_fuzz_freezer(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "freezer", .files = files, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_freezer(data, size);
}
#endif
