/* bench/bench_engine.c — what the engine's core operations cost, beside the kernel.
 *
 * Prints one figure per line, "name value unit". Engine figures come from an
 * in-process engine; `kernel.` figures are measured in the same run on a scratch named
 * cgroup v1 hierarchy under /tmp (root and cgroup v1 needed; otherwise they are left
 * out, with a line on stderr saying why).
 *
 *   mkdir_rmdir        one mkdir plus one rmdir of an empty child
 *   attach             one write of a pid to cgroup.procs, alternating two cgroups
 *   read_tasks_1000    open+read+close of `tasks` in a cgroup of 1000 tasks
 *   lookup_depth64     getattr of a file 64 cgroups deep
 *   fork_exit          a task forked into a non-root cgroup, exited and reaped
 *   css_set_bytes      memory of one css_set naming 4 non-root cgroups
 *   scale.*            a million cgroups in one directory (bench_engine_scale.c)
 */
#include "engine/css_set.h"
#include "engine/task.h"
#include "engine/ucg.h"

#include "bench_util.h"
#include "bench_engine_scale.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void add_task(struct ucg_engine *e, int pid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = pid;
	ucg_task_add(e, &ti);
}

/* The loops both engine_figures and observer_figures time, printed as prefix+name. */
static void time_mkdir_rmdir(struct ucg_engine *e, struct ucg_hierarchy *h, const char *prefix)
{
	struct ucg_cred root = ucg_cred_root();
	int i, n = 200000;
	double t0 = bench_now_ns();

	for (i = 0; i < n; i++) {
		ucg_fs_mkdir(e, h, "/x", 0755, &root);
		ucg_fs_rmdir(e, h, "/x", &root);
	}
	printf("%smkdir_rmdir %.0f ns\n", prefix, (bench_now_ns() - t0) / n);
}

/* Task 100 moved between /a and /b, which this creates. */
static void time_attach(struct ucg_engine *e, struct ucg_hierarchy *h, const char *prefix)
{
	struct ucg_cred root = ucg_cred_root();
	int i, n = 200000;
	double t0;

	add_task(e, 100);
	ucg_fs_mkdir(e, h, "/a", 0755, &root);
	ucg_fs_mkdir(e, h, "/b", 0755, &root);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_fs_write_all(e, h, i & 1 ? "/a/cgroup.procs" : "/b/cgroup.procs", &root, "100", 3);
	printf("%sattach %.0f ns\n", prefix, (bench_now_ns() - t0) / n);
}

/* Children of task 100 forked, exited and reaped. */
static void time_fork_exit(struct ucg_engine *e, const char *prefix)
{
	int i, n = 200000;
	double t0 = bench_now_ns();

	for (i = 0; i < n; i++) {
		struct ucg_task_info ti;

		memset(&ti, 0, sizeof(ti));
		ti.tid = ti.tgid = 500000 + (i & 1023);
		ucg_task_fork(e, 100, &ti);
		ucg_task_exit(e, ti.tid);
		ucg_task_reap(e, ti.tid);
	}
	printf("%sfork_exit %.0f ns\n", prefix, (bench_now_ns() - t0) / n);
}

static void engine_figures(void)
{
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf b;
	char path[4096];
	double t0;
	int i, n;

	ucg_engine_new(NULL, &e);
	ucg_mount(e, "none,name=bench", &h, NULL);

	time_mkdir_rmdir(e, h, "");
	time_attach(e, h, "");

	for (i = 0; i < 1000; i++) {
		char s[16];

		add_task(e, 1000 + i);
		snprintf(s, sizeof(s), "%d", 1000 + i);
		ucg_fs_write_all(e, h, "/a/tasks", &root, s, strlen(s));
	}
	ucg_buf_init(&b);
	n = 2000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_buf_reset(&b);
		ucg_fs_read_all(e, h, "/a/tasks", &root, &b);
	}
	printf("read_tasks_1000 %.0f ns\n", (bench_now_ns() - t0) / n);
	ucg_buf_fini(&b);

	path[0] = '\0';
	for (i = 0; i < 64; i++) {
		strcat(path, "/d");
		ucg_fs_mkdir(e, h, path, 0755, &root);
	}
	strcat(path, "/tasks");
	n = 200000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		struct ucg_stat st;

		ucg_fs_getattr(e, h, path, &root, &st);
	}
	printf("lookup_depth64 %.0f ns\n", (bench_now_ns() - t0) / n);
	time_fork_exit(e, "");
	ucg_engine_free(e);
}

static void nop_cgroup(void *ctx, struct ucg_cgroup *cg)
{
	(void)ctx;
	(void)cg;
}

static void nop_tasks(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	(void)ctx;
	(void)to;
	(void)tids;
	(void)n;
}

static int nop_can_attach(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	nop_tasks(ctx, to, tids, n);
	return 0;
}

static void nop_fork(void *ctx, int parent, int child)
{
	(void)ctx;
	(void)parent;
	(void)child;
}

static void nop_exit(void *ctx, int tid)
{
	(void)ctx;
	(void)tid;
}

static void nop_written(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
			size_t len)
{
	(void)ctx;
	(void)cg;
	(void)file;
	(void)buf;
	(void)len;
}

/* The hooks' price: the same loops as engine_figures with one observer that listens to
 * everything and does nothing (the figures without one are mkdir_rmdir, attach and
 * fork_exit above: with nobody listening each event costs one test). */
static void observer_figures(void)
{
	static const struct ucg_observer_ops ops = {
		.cgroup_created = nop_cgroup,
		.cgroup_removed = nop_cgroup,
		.can_attach = nop_can_attach,
		.attached = nop_tasks,
		.task_forked = nop_fork,
		.task_exiting = nop_exit,
		.file_written = nop_written,
	};
	struct ucg_engine *e;
	struct ucg_hierarchy *h;

	ucg_engine_new(NULL, &e);
	ucg_observer_add(e, &ops, NULL);
	ucg_mount(e, "none,name=bench", &h, NULL);
	time_mkdir_rmdir(e, h, "observed.");
	time_attach(e, h, "observed.");
	time_fork_exit(e, "observed.");
	ucg_engine_free(e);
}

/* A task in non-root cgroups of four hierarchies: the css_set it shares. */
static void css_set_figure(void)
{
	struct ucg_engine *e;
	struct ucg_cred root = ucg_cred_root();
	int i;

	ucg_engine_new(NULL, &e);
	add_task(e, 100);
	for (i = 0; i < 4; i++) {
		struct ucg_hierarchy *h;
		char opts[32];

		snprintf(opts, sizeof(opts), "none,name=h%d", i);
		ucg_mount(e, opts, &h, NULL);
		ucg_fs_mkdir(e, h, "/s", 0755, &root);
		ucg_fs_write_all(e, h, "/s/cgroup.procs", &root, "100", 3);
	}
	printf("css_set_bytes %zu bytes\n", ucg_css_set_size(ucg_task_find(e, 100)->cset));
	printf("css_sets %zu count\n", e->nr_csets);
	ucg_engine_free(e);
}

/* ---- the kernel, on a scratch named hierarchy ---------------------------------------- */

static void kernel_figures(void)
{
	char mnt[64], opts[64], a[128], b[128], x[128], path[4096], buf[65536];
	pid_t kid, kids[1000];
	double t0;
	int i, n;

	if (geteuid() != 0) {
		fprintf(stderr, "bench_engine: kernel figures need root; left out\n");
		return;
	}
	snprintf(mnt, sizeof(mnt), "/tmp/ucg-bench-%d", (int)getpid());
	snprintf(opts, sizeof(opts), "none,name=ucgbench%d", (int)getpid());
	mkdir(mnt, 0755);
	if (mount("cgroup", mnt, "cgroup", 0, opts) < 0) {
		fprintf(stderr, "bench_engine: cannot mount cgroup v1 (%s); kernel figures left out\n",
			strerror(errno));
		rmdir(mnt);
		return;
	}
	snprintf(x, sizeof(x), "%s/x", mnt);
	n = 2000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		mkdir(x, 0755);
		rmdir(x);
	}
	printf("kernel.mkdir_rmdir %.0f ns\n", (bench_now_ns() - t0) / n);

	snprintf(a, sizeof(a), "%s/a", mnt);
	snprintf(b, sizeof(b), "%s/b", mnt);
	mkdir(a, 0755);
	mkdir(b, 0755);
	kid = fork();
	if (kid == 0) {
		for (;;)
			pause();
	}
	{
		char pid[16], pa[160], pb[160];

		snprintf(pid, sizeof(pid), "%d", (int)kid);
		snprintf(pa, sizeof(pa), "%s/cgroup.procs", a);
		snprintf(pb, sizeof(pb), "%s/cgroup.procs", b);
		n = 5000;
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			bench_write_str(i & 1 ? pa : pb, pid);
		printf("kernel.attach %.0f ns\n", (bench_now_ns() - t0) / n);
	}

	for (i = 0; i < 1000; i++) {
		char pid[16], pa[160];

		kids[i] = fork();
		if (kids[i] == 0) {
			for (;;)
				pause();
		}
		snprintf(pid, sizeof(pid), "%d", (int)kids[i]);
		snprintf(pa, sizeof(pa), "%s/tasks", a);
		bench_write_str(pa, pid);
	}
	snprintf(path, sizeof(path), "%s/tasks", a);
	n = 2000;
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		int fd = open(path, O_RDONLY);

		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	printf("kernel.read_tasks_1000 %.0f ns\n", (bench_now_ns() - t0) / n);

	snprintf(path, sizeof(path), "%s", mnt);
	for (i = 0; i < 64; i++) {
		strcat(path, "/d");
		mkdir(path, 0755);
	}
	{
		char f[4200];
		struct stat st;

		snprintf(f, sizeof(f), "%s/tasks", path);
		n = 200000;
		t0 = bench_now_ns();
		for (i = 0; i < n; i++)
			stat(f, &st);
		printf("kernel.lookup_depth64 %.0f ns\n", (bench_now_ns() - t0) / n);
	}
	for (i = 64; i > 0; i--) {
		rmdir(path);
		*strrchr(path, '/') = '\0';
	}

	/* fork+exit+wait of a real process in a non-root cgroup: what the kernel pays for
	 * the whole process life, of which the cgroup part is small. */
	{
		char pid[16], pa[160];

		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		snprintf(pa, sizeof(pa), "%s/cgroup.procs", b);
		bench_write_str(pa, pid);
		n = 2000;
		t0 = bench_now_ns();
		for (i = 0; i < n; i++) {
			pid_t p = fork();

			if (p == 0)
				_exit(0);
			waitpid(p, NULL, 0);
		}
		printf("kernel.fork_exit %.0f ns\n", (bench_now_ns() - t0) / n);
		snprintf(pa, sizeof(pa), "%s/cgroup.procs", mnt);
		bench_write_str(pa, pid);
	}

	for (i = 0; i < 1000; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	rmdir(a);
	rmdir(b);
	umount2(mnt, 0);
	rmdir(mnt);
}

/* `bench_engine scale [KIND [SIZE]]` prints only the scale.* figures (a minute, not
 * ten), of one hierarchy kind and size when named (none 1m). */
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "scale")) {
		scale_figures(argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : NULL);
		return 0;
	}
	engine_figures();
	observer_figures();
	css_set_figure();
	kernel_figures();
	scale_figures(NULL, NULL); /* last: a million cgroups' heap would slow the kernel's forks */
	return 0;
}
