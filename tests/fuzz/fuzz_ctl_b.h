/* tests/fuzz/fuzz_ctl_b.h — the shared driver of the memory, hugetlb, blkio and
 * devices control-file fuzz targets (fuzz_memory.c, fuzz_hugetlb.c, fuzz_blkio.c,
 * fuzz_devctl.c).
 *
 * An engine mounts one controller and makes /a and /a/b (task 100 in /a/b, plus what
 * the target's prep() charges). The first input byte picks the file (low 6 bits) and
 * the cgroup (bit 6: the root, bit 7: /a/b, else /a); the rest is one write(2).
 * Invariants: the write returns the size or a negative errno; reading any file of the
 * three cgroups works (or is EINVAL for a write-only file); and a refused write
 * changes no file's content, except the files the target names as "may change on
 * refusal" (blkio's stat blocks: the kernel creates a device's state before it
 * parses the value). A broken invariant aborts. */
#ifndef UCG_TESTS_FUZZ_CTL_B_H
#define UCG_TESTS_FUZZ_CTL_B_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "engine/ucg.h"

struct fz_spec {
	const char *mount;
	const char *const *files; /* NULL-terminated, full names */
	const char *const *volatile_files; /* may change on a refused write; NULL-terminated */
	void (*prep)(struct ucg_engine *e, struct ucg_hierarchy *h);
};

static int fz_is_volatile(const struct fz_spec *s, const char *name)
{
	const char *const *v;

	for (v = s->volatile_files; v && *v; v++)
		if (!strcmp(*v, name))
			return 1;
	return 0;
}

static void fz_snapshot(const struct fz_spec *s, struct ucg_engine *e, struct ucg_hierarchy *h,
			struct ucg_buf *b)
{
	static const char *const dirs[] = { "", "/a", "/a/b" };
	struct ucg_cred root = ucg_cred_root();
	const char *const *f;
	size_t d;

	ucg_buf_reset(b);
	for (d = 0; d < 3; d++)
		for (f = s->files; *f; f++) {
			char path[160];
			int r;

			if (fz_is_volatile(s, *f))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[d], *f);
			ucg_buf_printf(b, "%s:", path);
			r = ucg_fs_read_all(e, h, path, &root, b);
			if (r < 0 && r != -EINVAL && r != -ENOENT)
				abort();
			ucg_buf_putc(b, '\n');
		}
}

static int fz_run(const struct fz_spec *s, const unsigned char *data, size_t size)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_task_info ti;
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	struct ucg_buf before, after;
	size_t nfiles = 0;
	char path[160];
	long r;

	if (!size)
		return 0;
	while (s->files[nfiles])
		nfiles++;
	if (ucg_engine_new(NULL, &e) < 0 || ucg_mount(e, s->mount, &h, NULL) < 0 ||
	    ucg_fs_mkdir(e, h, "/a", 0755, &root) < 0 || ucg_fs_mkdir(e, h, "/a/b", 0755, &root) < 0)
		abort();
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = 100;
	if (ucg_task_add(e, &ti) < 0 ||
	    ucg_fs_write_all(e, h, "/a/b/cgroup.procs", &root, "100", 3) < 0)
		abort();
	if (s->prep)
		s->prep(e, h);
	ucg_buf_init(&before);
	ucg_buf_init(&after);
	fz_snapshot(s, e, h, &before);
	snprintf(path, sizeof(path), "%s/%s", data[0] & 0x40 ? "" : data[0] & 0x80 ? "/a/b" : "/a",
		 s->files[(data[0] & 0x3f) % nfiles]);
	r = ucg_fs_write_all(e, h, path, &root, (const char *)data + 1, size - 1);
	if (r > 0)
		abort();
	fz_snapshot(s, e, h, &after);
	if (r < 0 && strcmp(before.data ? before.data : "", after.data ? after.data : ""))
		abort(); /* a refused write left a trace */
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	ucg_engine_free(e);
	return 0;
}

#endif
