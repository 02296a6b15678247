/* Tests of host/bpf_obs.c on the host's cgroup2 mount: an engine with the BPF
 * observer and host/v2obs.c registered, a worker process this test forks attached to
 * v1 devices and net_cls cgroups. A devices.deny write makes open(2) fail with EPERM
 * in the kernel, a devices.allow write undoes it, a deny on a parent reaches a child
 * cgroup's leaf, net_cls.classid becomes the SO_PRIORITY of new sockets, and after a
 * restart (the programs stayed meanwhile) a leaf's old program gives way to the new
 * daemon's. Skips with one line without root, cgroup2 or bpf(2). */
#include "host/bpf_obs.h"

#include "engine/test_fixture.h"
#include "host/test_bpf_worker.h"

#include <signal.h>
#include <sys/stat.h>
#include <time.h>

static char logged[4096];

static void test_log(void *ctx, const char *line)
{
	(void)ctx;
	strncat(logged, line, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

static void test_native(void)
{
	struct ucg_engine *e = NULL;
	struct ucg_engine_config cfg = { 0 };
	struct ucg_hierarchy *dv, *nc;
	struct ucg_bpfobs *bo;
	struct ucg_v2obs *o2;
	struct ucg_cgv2 *b;
	char scratch[128], why[256], pid[16];
	struct ucg_buf d;
	pid_t w;
	int r[2];

	if (geteuid() != 0)
		T_SKIP("needs root for cgroup2 and bpf(2)");
	snprintf(scratch, sizeof(scratch), "ucgtest-bpfobs-%d", (int)getpid());
	if (ucg_cgv2_open(scratch, &b, why, sizeof(why)) < 0)
		T_SKIP(why);
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	T_EQ_INT(ucg_bpfobs_new(e, b, test_log, NULL, &bo), 0);
	if (!ucg_bpfobs_active(bo)) {
		ucg_bpfobs_free(bo);
		ucg_engine_free(e);
		ucg_cgv2_close(b, 1);
		T_SKIP(logged);
	}
	T_EQ_INT(ucg_v2obs_new(e, b, test_log, NULL, &o2), 0);
	ucg_bpfobs_bind(bo, o2);
	dv = fx_mount(e, "devices");
	nc = fx_mount(e, "net_cls");
	w = worker_start();
	T_CHECK(w > 0);
	fx_proc(e, w, 0);
	snprintf(pid, sizeof(pid), "%d", (int)w);

	/* attached to an allow-all cgroup: no program, everything opens */
	T_EQ_INT(fx_mkdir(e, dv, "/d"), 0);
	T_EQ_INT(fx_write(e, dv, "/d/cgroup.procs", pid), 0);
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == 0 && r[1] == 0);
	/* deny /dev/null (1:3): the kernel refuses open(2) with EPERM, /dev/zero opens */
	T_EQ_INT(fx_write(e, dv, "/d/devices.deny", "c 1:3 rwm"), 0);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], EPERM);
	T_EQ_INT(r[1], 0);
	T_EQ_INT(fx_write(e, dv, "/d/devices.allow", "c 1:3 rwm"), 0);
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == 0 && r[1] == 0);
	/* deny-all with one grant */
	T_EQ_INT(fx_write(e, dv, "/d/devices.deny", "a"), 0);
	T_EQ_INT(fx_write(e, dv, "/d/devices.allow", "c 1:5 r"), 0);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], EPERM);
	T_EQ_INT(r[1], 0);
	/* a child cgroup (copied at mkdir); a deny on the parent reaches its leaf */
	T_EQ_INT(fx_mkdir(e, dv, "/d/c"), 0);
	T_EQ_INT(fx_write(e, dv, "/d/c/cgroup.procs", pid), 0);
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == EPERM && r[1] == 0);
	T_EQ_INT(fx_write(e, dv, "/d/devices.deny", "c 1:5 r"), 0);
	T_EQ_STR(fx_read(e, dv, "/d/c/devices.list"), "");
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == EPERM && r[1] == EPERM);

	/* net_cls: the classid becomes the priority of sockets made afterwards */
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0);
	T_EQ_INT(fx_mkdir(e, nc, "/n"), 0);
	T_EQ_INT(fx_write(e, nc, "/n/net_cls.classid", "0x100001"), 0);
	T_EQ_INT(fx_write(e, nc, "/n/cgroup.procs", pid), 0);
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0x100001);
	T_EQ_INT(fx_write(e, nc, "/n/net_cls.classid", "0x20003"), 0);
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0x20003);
	/* and the devices program of the leaf it moved to is still there */
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == EPERM && r[1] == EPERM);
	/* back to the roots: nothing denied, priority 0 */
	T_EQ_INT(fx_write(e, nc, "/cgroup.procs", pid), 0);
	T_EQ_INT(fx_write(e, dv, "/cgroup.procs", pid), 0);
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == 0 && r[1] == 0);
	T_EQ_INT(ask('s', r), 0);
	T_EQ_INT(r[0], 0);

	ucg_buf_init(&d);
	ucg_bpfobs_describe(bo, &d);
	printf("# %s", d.data);
	T_CHECK(d.data && strstr(d.data, "refusals 0") != NULL);
	ucg_buf_fini(&d);

	/* a daemon restart: the programs stay with the leaves while no daemon runs, and
	 * the next one replaces what it finds on a leaf by its own list's program */
	T_EQ_INT(fx_write(e, dv, "/d/c/cgroup.procs", pid), 0);
	ucg_bpfobs_free(bo);
	ucg_v2obs_free(o2);
	ucg_engine_free(e);
	T_EQ_INT(ask('o', r), 0);
	T_CHECK(r[0] == EPERM && r[1] == EPERM);
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	T_EQ_INT(ucg_bpfobs_new(e, b, test_log, NULL, &bo), 0);
	T_EQ_INT(ucg_v2obs_new(e, b, test_log, NULL, &o2), 0);
	ucg_bpfobs_bind(bo, o2);
	dv = fx_mount(e, "devices");
	nc = fx_mount(e, "net_cls");
	fx_proc(e, w, 0);
	T_EQ_INT(fx_mkdir(e, dv, "/d"), 0);
	T_EQ_INT(fx_mkdir(e, dv, "/d/c"), 0);
	T_EQ_INT(fx_write(e, dv, "/d/c/devices.deny", "c 1:3 rwm"), 0);
	T_EQ_INT(fx_write(e, dv, "/d/c/cgroup.procs", pid), 0);
	T_EQ_INT(ask('o', r), 0);
	T_EQ_INT(r[0], EPERM);
	T_EQ_INT(r[1], 0);

	worker_stop(w);
	ucg_task_exit(e, w);
	ucg_task_reap(e, w);
	T_EQ_INT(fx_rmdir(e, dv, "/d/c"), 0);
	T_EQ_INT(fx_rmdir(e, dv, "/d"), 0);
	ucg_v2obs_free(o2);
	ucg_bpfobs_free(bo);
	ucg_engine_free(e);
	ucg_cgv2_close(b, 1);
	if (logged[0])
		printf("# log: %s", logged);
}

int main(void)
{
	T_RUN(test_native);
	return t_done();
}
