/* bench/bench_v2.c — the cost of enforcing through cgroup v2 (host/cgv2.c, v2obs.c),
 * beside the kernel's own v2 operations measured in the same run.
 *
 *   mkdir_rmdir      engine mkdir + rmdir of a v1 cgroup with the observer (which
 *                    makes and removes the v2 mirror); engine.* without the observer;
 *                    kernel.* a v2 mkdir + rmdir
 *   attach           a process moved between two v1 cgroups through the engine (the
 *                    observer writes its v2 leaf's cgroup.procs); kernel.* the same
 *                    two v2 leaves written directly
 *   write            a translated limit (pids.max, or cpu.shares on a host without
 *                    pids) through the engine with the observer; engine.* without;
 *                    kernel.* the v2 file written directly
 *   fork             fork + exit + wait from a process in an enforced leaf; kernel.*
 *                    the same from the v2 subtree's root leaf
 *
 * Needs root and a writable cgroup2 mount; works in a scratch subtree
 * (ucgbench-v2-PID) removed at the end. Prints "name value unit" lines.
 */
#include "bench_util.h"

#include "engine/ucg.h"
#include "host/cgv2.h"
#include "host/v2obs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct ucg_cred root_cred;

static int ewrite(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, const char *s)
{
	return ucg_fs_write_all(e, h, path, &root_cred, s, strlen(s));
}

/* the cgroup.procs of the v2 cgroup this process is in ("" if unknown) */
static void home_cgroup(char *out, size_t size)
{
	char buf[4096], mnt[256] = "";
	FILE *f = fopen("/proc/self/mountinfo", "r");

	out[0] = '\0';
	while (f && fgets(buf, sizeof(buf), f))
		if (strstr(buf, " - cgroup2 ") && sscanf(buf, "%*s %*s %*s %*s %255s", mnt) == 1)
			break;
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "r");
	while (mnt[0] && f && fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "0::", 3)) {
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(out, size, "%s%s/cgroup.procs", mnt,
				 strcmp(buf + 3, "/") ? buf + 3 : "");
		}
	if (f)
		fclose(f);
}

static void line(const char *name, double v, const char *unit)
{
	printf("%s %.0f %s\n", name, v, unit);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, i, r;
	struct ucg_engine *e = NULL, *bare = NULL;
	struct ucg_hierarchy *h, *hb;
	struct ucg_v2obs *o = NULL;
	struct ucg_cgv2 *b = NULL;
	char scratch[64], why[256], path[4200], pid[16];
	const char *v2file = "pids.max", *v1file = "/w/pids.max", *val = "100";
	pid_t child;
	double t0;
	char home[4200];

	root_cred = ucg_cred_root();
	home_cgroup(home, sizeof(home));
	snprintf(scratch, sizeof(scratch), "ucgbench-v2-%d", (int)getpid());
	if (geteuid() != 0 || ucg_cgv2_open(scratch, &b, why, sizeof(why)) < 0) {
		fprintf(stderr, "bench_v2: needs root and a writable cgroup2 mount\n");
		return 77;
	}
	if (!(ucg_cgv2_controllers(b) & (1u << UCG_V2_PIDS))) {
		v2file = "cgroup.max.descendants"; /* a v2 file every leaf has */
		v1file = "/w/cpu.shares";
		val = "512";
	}
	r = ucg_engine_new(NULL, &e);
	r = r ? r : ucg_engine_new(NULL, &bare);
	r = r ? r : ucg_v2obs_new(e, b, NULL, NULL, &o);
	r = r ? r : ucg_mount(e, "freezer,pids,cpu", &h, NULL);
	r = r ? r : ucg_mount(bare, "freezer,pids,cpu", &hb, NULL);
	if (r < 0) {
		fprintf(stderr, "bench_v2: engine: %s\n", strerror(-r));
		return 1;
	}
	printf("# %s; %d rounds\n", ucg_cgv2_describe(b), n);

	/* mkdir + rmdir */
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_fs_mkdir(e, h, "/m", 0755, &root_cred);
		ucg_fs_rmdir(e, h, "/m", &root_cred);
	}
	line("mkdir_rmdir", (bench_now_ns() - t0) / n, "ns/op");
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_fs_mkdir(bare, hb, "/m", 0755, &root_cred);
		ucg_fs_rmdir(bare, hb, "/m", &root_cred);
	}
	line("engine.mkdir_rmdir", (bench_now_ns() - t0) / n, "ns/op");
	snprintf(path, sizeof(path), "%s/k", ucg_cgv2_root(b));
	t0 = bench_now_ns();
	for (i = 0; i < n; i++) {
		ucg_cgv2_mkdir(b, "/k");
		ucg_cgv2_remove(b, "/k");
	}
	line("kernel.mkdir_rmdir", (bench_now_ns() - t0) / n, "ns/op");

	/* attach: a sleeping child moved back and forth */
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	{
		struct ucg_task_info ti = { .tid = child, .tgid = child };

		ucg_task_add(e, &ti);
	}
	ucg_fs_mkdir(e, h, "/a", 0755, &root_cred);
	ucg_fs_mkdir(e, h, "/b", 0755, &root_cred);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		if (ewrite(e, h, i & 1 ? "/b/cgroup.procs" : "/a/cgroup.procs", pid) < 0)
			break;
	line("attach", (bench_now_ns() - t0) / n, "ns/op");
	line("attach_failed", n - i, "ops");
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_cgv2_write(b, i & 1 ? "/b/.ucg" : "/a/.ucg", "cgroup.procs", pid);
	line("kernel.attach", (bench_now_ns() - t0) / n, "ns/op");

	/* a translated write */
	ucg_fs_mkdir(e, h, "/w", 0755, &root_cred);
	ucg_fs_mkdir(bare, hb, "/w", 0755, &root_cred);
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ewrite(e, h, v1file, val);
	line("write", (bench_now_ns() - t0) / n, "ns/op");
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ewrite(bare, hb, v1file, val);
	line("engine.write", (bench_now_ns() - t0) / n, "ns/op");
	ucg_cgv2_mkdir(b, "/w");
	t0 = bench_now_ns();
	for (i = 0; i < n; i++)
		ucg_cgv2_write(b, "/w", v2file, val);
	line("kernel.write", (bench_now_ns() - t0) / n, "ns/op");

	/* fork + exit + wait, from the enforced leaf, then from the subtree's root leaf */
	for (int k = 0; k < 2; k++) {
		char self[16];
		int forks = n / 4 > 0 ? n / 4 : 1;

		snprintf(self, sizeof(self), "%d", (int)getpid());
		if (k == 0) {
			struct ucg_task_info ti = { .tid = getpid(), .tgid = getpid() };

			ucg_task_add(e, &ti);
			ucg_cgv2_attach(b, "/a/.ucg",
					getpid()); /* the observer skips the daemon's own pid */
		} else {
			ucg_cgv2_attach(b, "/.ucg", getpid());
		}
		t0 = bench_now_ns();
		for (i = 0; i < forks; i++) {
			pid_t c = fork();

			if (c == 0)
				_exit(0);
			waitpid(c, NULL, 0);
		}
		line(k ? "kernel.fork" : "fork", (bench_now_ns() - t0) / forks, "ns/op");
	}

	/* cleanup: back to the v2 cgroup we started in, then the scratch subtree goes */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ucg_v2obs_free(o);
	ucg_engine_free(e);
	ucg_engine_free(bare);
	if (home[0])
		bench_write_str(home, "0");
	for (i = 0; i < 100; i++) {
		struct ucg_buf procs;
		int busy;

		ucg_buf_init(&procs);
		busy = ucg_cgv2_read(b, "/a/.ucg", "cgroup.procs", &procs) == 0 && procs.len;
		ucg_buf_fini(&procs);
		if (!busy)
			break;
		usleep(10000);
	}
	ucg_cgv2_close(b, 1);
	return 0;
}
