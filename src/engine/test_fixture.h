/* engine/test_fixture.h — shared helpers for the engine's unit tests. */
#ifndef UCG_ENGINE_TEST_FIXTURE_H
#define UCG_ENGINE_TEST_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "base/alloc.h"
#include "engine/task.h"
#include "engine/ucg.h"
#include "harness.h"

static inline struct ucg_engine *fx_engine(void)
{
	struct ucg_engine *e = NULL;
	int r = ucg_engine_new(NULL, &e);

	T_EQ_INT(r, 0);
	return e;
}

static inline struct ucg_hierarchy *fx_mount(struct ucg_engine *e, const char *opts)
{
	struct ucg_hierarchy *h = NULL;
	int r = ucg_mount(e, opts, &h, NULL);

	T_EQ_INT(r, 0);
	return h;
}

/* Adds a single-threaded process with all ids = uid. */
static inline void fx_proc(struct ucg_engine *e, int pid, unsigned uid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = pid;
	ti.ruid = ti.euid = ti.suid = ti.fsuid = uid;
	ti.rgid = ti.egid = ti.sgid = ti.fsgid = uid;
	T_EQ_INT(ucg_task_add(e, &ti), 0);
}

/* Adds thread tid to process tgid (created by thread parent). */
static inline void fx_thread(struct ucg_engine *e, int parent, int tgid, int tid, unsigned uid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = tid;
	ti.tgid = tgid;
	ti.ruid = ti.euid = ti.suid = ti.fsuid = uid;
	ti.rgid = ti.egid = ti.sgid = ti.fsgid = uid;
	T_EQ_INT(ucg_task_fork(e, parent, &ti), 0);
}

/* The cgroup at path in h (the test fails if there is none). */
static inline struct ucg_cgroup *fx_cg(struct ucg_hierarchy *h, const char *path)
{
	struct ucg_cgroup *cg = NULL;

	T_EQ_INT(ucg_cgroup_lookup(h, path, &cg), 0);
	return cg;
}

/* The cgroup task tid is in for controller ss (UCG_SS_*; NULL if bound nowhere). */
static inline struct ucg_cgroup *fx_task_cg(struct ucg_engine *e, int tid, int ss)
{
	struct ucg_cgroup *cg = NULL;

	T_EQ_INT(ucg_task_subsys_cgroup(e, tid, ss, &cg), 0);
	return cg;
}

/* ucg_task_subsys_cgroup's return for task tid and controller ss (-ESRCH: no such
 * live task). */
static inline int fx_task_cg_err(struct ucg_engine *e, int tid, int ss)
{
	struct ucg_cgroup *cg;

	return ucg_task_subsys_cgroup(e, tid, ss, &cg);
}

/* Writes s (strlen bytes) as root; returns 0 or -errno. */
static inline int fx_write(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
			   const char *s)
{
	struct ucg_cred c = ucg_cred_root();

	return ucg_fs_write_all(e, h, path, &c, s, strlen(s));
}

static inline int fx_write_as(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path,
			      const struct ucg_cred *c, const char *s)
{
	return ucg_fs_write_all(e, h, path, c, s, strlen(s));
}

/* Reads the file as root into a static buffer ("<errno N>" on failure). */
static inline const char *fx_read(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path)
{
	static char out[8192];
	struct ucg_cred c = ucg_cred_root();
	struct ucg_buf b;
	int r;

	ucg_buf_init(&b);
	r = ucg_fs_read_all(e, h, path, &c, &b);
	if (r < 0)
		snprintf(out, sizeof(out), "<errno %d>", -r);
	else
		snprintf(out, sizeof(out), "%s", b.data ? b.data : "");
	ucg_buf_fini(&b);
	return out;
}

static inline int fx_mkdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path)
{
	struct ucg_cred c = ucg_cred_root();

	return ucg_fs_mkdir(e, h, path, 0755, &c);
}

static inline int fx_rmdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path)
{
	struct ucg_cred c = ucg_cred_root();

	return ucg_fs_rmdir(e, h, path, &c);
}

static inline const char *fx_proc_cgroup(struct ucg_engine *e, int pid)
{
	static char out[8192];
	struct ucg_buf b;
	int r;

	ucg_buf_init(&b);
	r = ucg_proc_cgroup(e, pid, 0, &b);
	snprintf(out, sizeof(out), "%s", r < 0 ? "<err>" : b.data ? b.data : "");
	ucg_buf_fini(&b);
	return out;
}

/* For a test file whose cases each use one fresh engine with one hierarchy mounted
 * with opts: defines the file's e and h, setup() (a new engine, the mount), teardown()
 * (frees the engine) and rd(path) / wr(path, s) on them as root (marked unused: a
 * file may read and write through fx_read / fx_write instead). */
#define FX_ONE_MOUNT(opts)                                                             \
	static struct ucg_engine *e;                                                   \
	static struct ucg_hierarchy *h;                                                \
	static void setup(void)                                                        \
	{                                                                              \
		e = fx_engine();                                                       \
		h = fx_mount(e, (opts));                                               \
	}                                                                              \
	static void teardown(void)                                                     \
	{                                                                              \
		ucg_engine_free(e);                                                    \
		e = NULL;                                                              \
	}                                                                              \
	__attribute__((unused)) static const char *rd(const char *path)                \
	{                                                                              \
		return fx_read(e, h, path);                                            \
	}                                                                              \
	__attribute__((unused)) static int wr(const char *path, const char *s)         \
	{                                                                              \
		return fx_write(e, h, path, s);                                        \
	}

/* One step of fx_alloc_sweep: a mkdir of path (write NULL), or a write of the string
 * write to path, as root. */
struct fx_step {
	const char *path;
	const char *write;
};

/* Every allocation of "new engine, mount -o opts, the steps in order" may fail cleanly:
 * for n = 0, 1, ... (fewer than max) the n-th allocation fails, and the first error
 * must be -ENOMEM (or none), with the engine still freeable. Stops at the first n that
 * fails nothing. */
static inline void fx_alloc_sweep(long max, const char *opts, const struct fx_step *steps,
				  size_t nsteps)
{
	long n;

	for (n = 0; n < max; n++) {
		struct ucg_engine *e = NULL;
		struct ucg_hierarchy *h = NULL;
		struct ucg_cred root = ucg_cred_root();
		size_t i;
		int r;

		ucg_alloc_fail_after(n);
		r = ucg_engine_new(NULL, &e);
		if (r == 0)
			r = ucg_mount(e, opts, &h, NULL);
		for (i = 0; i < nsteps && r == 0; i++)
			r = steps[i].write ? ucg_fs_write_all(e, h, steps[i].path, &root, steps[i].write,
							      strlen(steps[i].write))
					   : ucg_fs_mkdir(e, h, steps[i].path, 0755, &root);
		ucg_alloc_fail_after(-1);
		T_CHECK(r == 0 || r == -ENOMEM);
		ucg_engine_free(e);
		if (r == 0)
			break;
	}
}

#endif
