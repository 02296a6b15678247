/* tests/fuzz/fuzz_event_control.c — writes of arbitrary bytes to cgroup.event_control
 * (engine/event.c and memory's registrations). The input is split at 0xff bytes into
 * writes to /a/cgroup.event_control. A fake front end resolves fd 3 as an eventfd and
 * fds 6..12 as control files of /a, of /a/b and of the root. Invariants: each write
 * returns its size or EINVAL/EBADF; a successful write parsed; the handle of every
 * refusal after resolution comes back; charges then fire only registered handles;
 * rmdir ends exactly the registrations made, each with one final notification. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controllers/charge.h"
#include "engine/ucg.h"
#include "fuzz.h"

static const char *const paths[] = {
	"/a/memory.usage_in_bytes", "/a/memory.memsw.usage_in_bytes", "/a/memory.oom_control",
	"/a/memory.pressure_level", "/a/memory.stat", "/a/b/memory.usage_in_bytes",
	"/memory.pressure_level",
};
static struct ucg_hierarchy *fz_h;
static int puts_;

static int fds(void *ctx, struct ucg_engine *e, unsigned efd, unsigned cfd,
	       struct ucg_event_target *ret)
{
	(void)ctx;
	(void)e;
	if (efd != 3 && (efd < 6 || efd > 12))
		return -EBADF;
	if (efd != 3)
		return -EINVAL;
	if (cfd != 3 && (cfd < 6 || cfd > 12))
		return -EBADF;
	ret->handle = 3;
	ret->h = cfd == 3 ? NULL : fz_h;
	ret->path = cfd == 3 ? NULL : paths[cfd - 6];
	return 0;
}

static void put(void *ctx, struct ucg_engine *e, uint64_t handle)
{
	(void)ctx;
	(void)e;
	if (handle != 3)
		abort();
	puts_++;
}

static const struct ucg_provider_ops ops = { .event_fds = fds, .event_put = put };

int ucg_fuzz_event_control(const uint8_t *data, size_t size)
{
	struct ucg_engine_config cfg = { .provider = &ops };
	struct ucg_cred root = ucg_cred_root();
	struct ucg_task_info t = { .tid = 100, .tgid = 100 };
	struct ucg_engine *e;
	struct ucg_event ev;
	struct ucg_cgroup *cg;
	size_t off = 0;
	int regs = 0, finals = 0;

	puts_ = 0;
	if (ucg_engine_new(&cfg, &e) < 0 || ucg_mount(e, "memory", &fz_h, NULL) < 0 ||
	    ucg_fs_mkdir(e, fz_h, "/a", 0755, &root) < 0 ||
	    ucg_fs_mkdir(e, fz_h, "/a/b", 0755, &root) < 0 || ucg_task_add(e, &t) < 0 ||
	    ucg_fs_write_all(e, fz_h, "/a/b/cgroup.procs", &root, "100", 3) < 0 ||
	    ucg_fs_write_all(e, fz_h, "/a/memory.limit_in_bytes", &root, "16k", 3) < 0)
		abort();
	while (off <= size) {
		const uint8_t *end = memchr(data + off, 0xff, size - off);
		size_t len = end ? (size_t)(end - (data + off)) : size - off;
		char *exact = malloc(len ? len : 1);
		struct ucg_file *f;
		unsigned efd, cfd;
		size_t ao, al;
		ssize_t r;
		int before = puts_, parsed;

		if (!exact)
			abort();
		memcpy(exact, data + off, len);
		parsed = ucg_event_control_parse(exact, len, &efd, &cfd, &ao, &al);
		if (parsed == 0 && (ao > len || al > len - ao))
			abort();
		if (ucg_fs_open(e, fz_h, "/a/cgroup.event_control", 1 /* O_WRONLY */, &root, &f) < 0)
			abort();
		r = ucg_fs_write(f, exact, len);
		ucg_fs_release(f);
		if (r == (ssize_t)len && len) {
			if (memchr(exact, 0, len) == NULL && parsed != 0)
				abort();
			regs++;
		} else if (len && r != -EINVAL && r != -EBADF && r != -E2BIG) {
			abort();
		}
		if (puts_ - before > 1 || (r >= 0 && puts_ != before))
			abort();
		free(exact);
		off += len + 1;
	}
	/* fill /a past its limit, free it: thresholds, pressure and OOM may fire */
	if (ucg_task_subsys_cgroup(e, 100, UCG_SS_memory, &cg) < 0)
		abort();
	for (int i = 0; i < 6; i++)
		ucg_memory_charge(cg, i & 1 ? UCG_MEM_FILE : UCG_MEM_ANON, 1, NULL);
	ucg_memory_uncharge(cg, UCG_MEM_ANON, 1);
	while (ucg_event_next(e, &ev) == 1)
		if (ev.handle != 3 || ev.final || !ev.count)
			abort();
	if (ucg_fs_write_all(e, fz_h, "/a/b/cgroup.procs", &root, "", 0) < 0 ||
	    ucg_fs_write_all(e, fz_h, "/cgroup.procs", &root, "100", 3) < 0 ||
	    ucg_fs_rmdir(e, fz_h, "/a/b", &root) < 0 || ucg_fs_rmdir(e, fz_h, "/a", &root) < 0)
		abort();
	while (ucg_event_next(e, &ev) == 1)
		if (ev.final)
			finals++;
	if (finals != regs)
		abort();
	ucg_engine_free(e);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_event_control(data, size);
}
#endif
