/* tests/fuzz/fuzz_ctl.h — the shared driver of the control-file fuzz targets:
 * fuzz_cpuset.c, fuzz_cpu.c, fuzz_cpuacct.c, fuzz_freezer.c, fuzz_pids.c,
 * fuzz_net_cls.c, fuzz_net_prio.c, fuzz_memory.c, fuzz_hugetlb.c, fuzz_blkio.c and
 * fuzz_devctl.c.
 *
 * An engine (nr_cpus / nr_mems from the spec, the engine's defaults where 0) mounts one
 * controller and makes /a and /a/b; the target's setup() prepares them before task 100
 * is attached to /a/b (cpuset gives them cpus and mems, without which the attach fails),
 * its charge() runs after (memory, hugetlb: charges of task 100). The first input byte
 * picks the file (low 6 bits) and the cgroup (bit 6: the root, bit 7: /a/b, else /a);
 * the rest is one write(2).
 * Invariants: the write returns the size or a negative errno; every file of the three
 * cgroups reads (or is absent / EINVAL for a write-only file); a refused write changes
 * no file's content, except the files the target names as "may change on refusal"
 * (blkio's stat blocks: the kernel creates a device's state before it parses the
 * value); the target's check() holds after every write. A broken invariant aborts. */
#ifndef UCG_TESTS_FUZZ_CTL_H
#define UCG_TESTS_FUZZ_CTL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "controllers/charge.h"
#include "engine/ucg.h"

struct fz_spec {
	const char *mount;
	const char *const *files;          /* NULL-terminated, full names */
	const char *const *volatile_files; /* may change on a refused write; NULL-terminated */
	/* Before task 100 is attached to /a/b (may be NULL). */
	void (*setup)(struct ucg_engine *e, struct ucg_hierarchy *h);
	/* After task 100 is attached to /a/b (may be NULL). */
	void (*charge)(struct ucg_engine *e, struct ucg_hierarchy *h);
	/* Extra invariant on the state after the write (may be NULL). */
	void (*check)(struct ucg_engine *e, struct ucg_hierarchy *h);
	unsigned nr_cpus, nr_mems; /* 0: the engine's default (1 and 1) */
};

/* The controllers-A targets' engine: cpuset's masks need more than one CPU and node. */
#define FZ_A_ENGINE .nr_cpus = 4, .nr_mems = 2

/* The cgroup of task tid for controller ss (UCG_SS_*); aborts if there is no such task. */
static inline struct ucg_cgroup *fz_task_cg(struct ucg_engine *e, int tid, int ss)
{
	struct ucg_cgroup *cg;

	if (ucg_task_subsys_cgroup(e, tid, ss, &cg) < 0)
		abort();
	return cg;
}

static inline int fz_is_volatile(const struct fz_spec *s, const char *name)
{
	const char *const *v;

	for (v = s->volatile_files; v && *v; v++)
		if (!strcmp(*v, name))
			return 1;
	return 0;
}

static inline void fz_snapshot(const struct fz_spec *s, struct ucg_engine *e,
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

/* Reads a whole file as root into buf (NUL-terminated); "" on error. */
static inline void fz_read(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
			   char *buf, size_t n)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf b;

	ucg_buf_init(&b);
	buf[0] = '\0';
	if (ucg_fs_read_all(e, h, path, &root, &b) == 0 && b.data)
		snprintf(buf, n, "%s", b.data);
	ucg_buf_fini(&b);
}

static inline int fz_run(const struct fz_spec *s, const unsigned char *data, size_t size)
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
	cfg.nr_cpus = s->nr_cpus;
	cfg.nr_mems = s->nr_mems;
	if (ucg_engine_new(&cfg, &e) < 0 || ucg_mount(e, s->mount, &h, NULL) < 0 ||
	    ucg_fs_mkdir(e, h, "/a", 0755, &root) < 0 || ucg_fs_mkdir(e, h, "/a/b", 0755, &root) < 0)
		abort();
	if (s->setup)
		s->setup(e, h);
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = 100;
	if (ucg_task_add(e, &ti) < 0 ||
	    ucg_fs_write_all(e, h, "/a/b/cgroup.procs", &root, "100", 3) < 0)
		abort();
	if (s->charge)
		s->charge(e, h);
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
	if (s->check)
		s->check(e, h);
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	ucg_engine_free(e);
	return 0;
}

#endif
