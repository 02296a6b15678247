/* tests/fuzz/fuzz_devctl.c — writes of arbitrary bytes to devices.allow/deny/list
 * through the engine (driver: fuzz_ctl.h): the controller's walk and propagation
 * over a three-level tree, where fuzz_devices.c fuzzes the rule parser and algebra
 * alone. /a is deny-all with a few exceptions, /a/b a copy. */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const devices_files[] = { "devices.allow", "devices.deny", "devices.list",
					      NULL };

static void prep(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	struct ucg_cred root = ucg_cred_root();
	static const char *const deny_b = "c 1:3 w";

	/* /a is deny-all only if it has no child: rebuild /a/b after */
	if (ucg_fs_write_all(e, h, "/cgroup.procs", &root, "100", 3) < 0 ||
	    ucg_fs_rmdir(e, h, "/a/b", &root) < 0 ||
	    ucg_fs_write_all(e, h, "/a/devices.deny", &root, "a", 1) < 0 ||
	    ucg_fs_write_all(e, h, "/a/devices.allow", &root, "c 1:3 rwm", 9) < 0 ||
	    ucg_fs_write_all(e, h, "/a/devices.allow", &root, "b 8:* r", 7) < 0 ||
	    ucg_fs_mkdir(e, h, "/a/b", 0755, &root) < 0 ||
	    ucg_fs_write_all(e, h, "/a/b/devices.deny", &root, deny_b, strlen(deny_b)) < 0 ||
	    ucg_fs_write_all(e, h, "/devices.deny", &root, "c 5:1 m", 7) < 0)
		abort();
}

int ucg_fuzz_devctl(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "devices", .files = devices_files,
					     .charge = prep };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_devctl(data, size);
}
#endif
