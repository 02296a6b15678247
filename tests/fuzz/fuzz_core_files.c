/* tests/fuzz/fuzz_core_files.c — writes of arbitrary bytes to the core files.
 *
 * The first byte picks the file and the writer (root or uid 1001); the rest is one
 * write(2). Invariants: a rejected write leaves the content of every core file of the
 * cgroup unchanged; booleans read "0\n" or "1\n"; memberships only change on success. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ucg.h"
#include "fuzz.h"

static const char *const files[] = { "cgroup.procs", "tasks", "notify_on_release",
				     "cgroup.clone_children", "release_agent",
				     "cgroup.sane_behavior" };

static void snapshot(struct ucg_engine *e, struct ucg_hierarchy *h, struct ucg_buf *b)
{
	struct ucg_cred root = ucg_cred_root();
	size_t i;

	ucg_buf_reset(b);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "/%s", files[i]);
		ucg_buf_printf(b, "%s:", files[i]);
		if (ucg_fs_read_all(e, h, path, &root, b) < 0)
			abort();
		snprintf(path, sizeof(path), "/c/%s", files[i]);
		if (i < 4 && ucg_fs_read_all(e, h, path, &root, b) < 0)
			abort();
	}
}

int ucg_fuzz_core_files(const uint8_t *data, size_t size)
{
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	struct ucg_task_info ti;
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 1001);
	struct ucg_buf before, after;
	const struct ucg_cred *who;
	char path[64];
	int r, pid;

	if (!size)
		return 0;
	if (ucg_engine_new(NULL, &e) < 0 || ucg_mount(e, "none,name=f,release_agent=/a", &h, NULL) < 0 ||
	    ucg_fs_mkdir(e, h, "/c", 0755, &root) < 0)
		abort();
	for (pid = 1; pid <= 3; pid++) {
		memset(&ti, 0, sizeof(ti));
		ti.tid = ti.tgid = pid;
		ti.ruid = ti.euid = ti.suid = pid == 3 ? 1001 : 0;
		if (ucg_task_add(e, &ti) < 0)
			abort();
	}
	ucg_fs_chmod(e, h, "/c/cgroup.procs", 0666, &root);
	ucg_fs_chmod(e, h, "/c/tasks", 0666, &root);
	ucg_buf_init(&before);
	ucg_buf_init(&after);
	snapshot(e, h, &before);

	who = data[0] & 0x80 ? &user : &root;
	snprintf(path, sizeof(path), "%s/%s", data[0] & 0x40 ? "" : "/c",
		 files[(data[0] & 0x3f) % (sizeof(files) / sizeof(files[0]))]);
	r = ucg_fs_write_all(e, h, path, who, (const char *)data + 1, size - 1);
	snapshot(e, h, &after);
	if (r < 0 && strcmp(before.data, after.data))
		abort(); /* a rejected write left a trace */
	if (r > 0)
		abort();
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	ucg_engine_free(e);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_core_files(data, size);
}
#endif
