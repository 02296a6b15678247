/* tests/fuzz/fuzz_ctl_a.h — the shared driver of the controllers-A control-file fuzz
 * targets (fuzz_cpuset.c, fuzz_cpu.c, fuzz_cpuacct.c, fuzz_freezer.c, fuzz_pids.c,
 * fuzz_net_cls.c, fuzz_net_prio.c).
 *
 * An engine with 4 CPUs and 2 nodes mounts one controller and makes /a and /a/b; the
 * target's prep() sets them up (cpuset gives them cpus and mems) and task 100 is
 * attached to /a/b. The first input byte picks the file (low 6 bits) and the cgroup
 * (bit 6: the root, bit 7: /a/b, else /a); the rest is one write(2), which may also
 * be split in two writes (bit 5 of the second byte, for an open file used twice).
 * Invariants: the write returns the size or a negative errno; every file of the
 * three cgroups reads (or is absent / write-only); a refused write changes no file's
 * content; the target's check() holds after every write. A broken invariant aborts. */
#ifndef UCG_TESTS_FUZZ_CTL_A_H
#define UCG_TESTS_FUZZ_CTL_A_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "engine/ucg.h"

struct fza_spec {
	const char *mount;
	const char *const *files; /* NULL-terminated, full names */
	void (*prep)(struct ucg_engine *e, struct ucg_hierarchy *h);
	/* Extra invariant on the state after the write (may be NULL). */
	void (*check)(struct ucg_engine *e, struct ucg_hierarchy *h);
};

static inline void fza_snapshot(const struct fza_spec *s, struct ucg_engine *e,
			 struct ucg_hierarchy *h, struct ucg_buf *b)
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

			snprintf(path, sizeof(path), "%s/%s", dirs[d], *f);
			ucg_buf_printf(b, "%s:", path);
			r = ucg_fs_read_all(e, h, path, &root, b);
			if (r < 0 && r != -EINVAL && r != -ENOENT)
				abort();
			ucg_buf_putc(b, '\n');
		}
}

/* Reads a whole file as root into buf (NUL-terminated); "" on error. */
static inline void fza_read(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, char *buf,
		     size_t n)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf b;

	ucg_buf_init(&b);
	buf[0] = '\0';
	if (ucg_fs_read_all(e, h, path, &root, &b) == 0 && b.data)
		snprintf(buf, n, "%s", b.data);
	ucg_buf_fini(&b);
}

static inline int fza_run(const struct fza_spec *s, const unsigned char *data, size_t size)
{
	struct ucg_engine_config cfg;
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
	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_cpus = 4;
	cfg.nr_mems = 2;
	if (ucg_engine_new(&cfg, &e) < 0 || ucg_mount(e, s->mount, &h, NULL) < 0 ||
	    ucg_fs_mkdir(e, h, "/a", 0755, &root) < 0 || ucg_fs_mkdir(e, h, "/a/b", 0755, &root) < 0)
		abort();
	if (s->prep)
		s->prep(e, h);
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = 100;
	if (ucg_task_add(e, &ti) < 0 ||
	    ucg_fs_write_all(e, h, "/a/b/cgroup.procs", &root, "100", 3) < 0)
		abort();
	ucg_buf_init(&before);
	ucg_buf_init(&after);
	fza_snapshot(s, e, h, &before);
	snprintf(path, sizeof(path), "%s/%s", data[0] & 0x40 ? "" : data[0] & 0x80 ? "/a/b" : "/a",
		 s->files[(data[0] & 0x3f) % nfiles]);
	r = ucg_fs_write_all(e, h, path, &root, (const char *)data + 1, size - 1);
	if (r > 0)
		abort();
	fza_snapshot(s, e, h, &after);
	if (r < 0 && strcmp(before.data ? before.data : "", after.data ? after.data : ""))
		abort(); /* a refused write left a trace */
	if (s->check)
		s->check(e, h);
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	ucg_engine_free(e);
	return 0;
}

#endif
