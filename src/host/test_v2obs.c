/* Tests of host/v2obs.c on the host's cgroup2 mount: an engine with the observer
 * registered moves a process it is told of into the v2 leaf of its v1 cgroup,
 * freezes it through cgroup.freeze (freezer.state FREEZING until cgroup.events says
 * frozen), removes the mirror with the cgroup, and keeps settings of controllers the
 * subtree lacks as policy with one log line. Skips without root or cgroup2. */
#include "host/v2obs.h"

#include "engine/test_fixture.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static struct ucg_v2obs *obs;
static char logged[4096];

static void test_log(void *ctx, const char *line)
{
	(void)ctx;
	strncat(logged, line, sizeof(logged) - strlen(logged) - 2);
	strcat(logged, "\n");
}

static void prov_freeze(void *ctx, struct ucg_engine *e, int tid, int freeze)
{
	(void)ctx;
	if (ucg_v2obs_freeze_task(obs, tid, freeze) < 0 && freeze)
		ucg_freezer_task_stopped(e, tid, 1); /* not ours: as the engine without op */
}

static const struct ucg_provider_ops prov = { .freeze_task = prov_freeze };

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int v2_ends_with(pid_t pid, const char *tail)
{
	char file[64], line[1024];
	FILE *f;
	int ok = 0;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	f = fopen(file, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			size_t l, t = strlen(tail);

			line[strcspn(line, "\n")] = '\0';
			l = strlen(line);
			ok = l >= t && !strcmp(line + l - t, tail);
		}
	fclose(f);
	return ok;
}

static void test_observer_native(void)
{
	struct ucg_engine_config cfg = { .provider = &prov };
	struct ucg_engine *e = NULL;
	struct ucg_hierarchy *fz, *pids;
	struct ucg_cgv2 *b;
	volatile unsigned long *counter;
	char scratch[128], why[256], tail[1024], pid[16], root[512];
	unsigned long before;
	struct ucg_buf d;
	struct stat st;
	pid_t child;
	int i, status;

	if (geteuid() != 0)
		T_SKIP("needs root for cgroup2");
	snprintf(scratch, sizeof(scratch), "ucgtest-v2obs-%d", (int)getpid());
	if (ucg_cgv2_open(scratch, &b, why, sizeof(why)) < 0)
		T_SKIP(why);
	snprintf(root, sizeof(root), "%s", ucg_cgv2_root(b));
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	T_EQ_INT(ucg_v2obs_new(e, b, test_log, NULL, &obs), 0);
	fz = fx_mount(e, "freezer,cpuacct");
	pids = fx_mount(e, "pids");
	counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	child = fork();
	if (child == 0)
		for (;;)
			(*counter)++;
	fx_proc(e, child, 0);
	snprintf(pid, sizeof(pid), "%d", (int)child);

	/* attach: the kernel's membership follows */
	T_EQ_INT(fx_mkdir(e, fz, "/a"), 0);
	T_CHECK(stat(strcat(strcpy(tail, root), "/a"), &st) == 0); /* mirror made */
	T_EQ_INT(fx_write(e, fz, "/a/cgroup.procs", pid), 0);
	snprintf(tail, sizeof(tail), "%s/a/.ucg", strrchr(root, '/'));
	T_CHECK(v2_ends_with(child, tail));

	/* cpuacct, bound with the freezer (the outer hierarchy here), read from the
	 * kernel's cpu.stat of the mirror, which every v2 cgroup has */
	sleep_ms(100);
	{
		struct ucg_buf u;
		unsigned long long ns = 0;

		ucg_buf_init(&u);
		T_EQ_INT(ucg_v2obs_show(obs, fz, "/a/cpuacct.usage", &u), 0);
		T_CHECK(u.data && sscanf(u.data, "%llu", &ns) == 1 && ns > 1000000);
		ucg_buf_reset(&u);
		T_EQ_INT(ucg_v2obs_show(obs, fz, "/cpuacct.usage", &u), -ENOENT);    /* root */
		T_EQ_INT(ucg_v2obs_show(obs, pids, "/p/pids.current", &u), -ENOENT); /* not outer */
		T_EQ_INT(ucg_v2obs_show(obs, fz, "/a/memory.failcnt", &u), -ENOENT); /* not bound */
		ucg_buf_fini(&u);
	}

	/* a limit of a controller the subtree lacks stays policy, logged once */
	T_EQ_INT(fx_mkdir(e, pids, "/p"), 0);
	T_EQ_INT(fx_write(e, pids, "/p/pids.max", "3"), 0);
	T_EQ_STR(fx_read(e, pids, "/p/pids.max"), "3\n");
	if (!(ucg_cgv2_controllers(b) & (1u << UCG_V2_PIDS))) {
		T_CHECK(strstr(logged, "no v2 pids controller") != NULL);
		/* and the pids hierarchy is not part of the layout: the leaf stays */
		T_EQ_INT(fx_write(e, pids, "/p/cgroup.procs", pid), 0);
		T_CHECK(v2_ends_with(child, tail));
	}

	/* freeze through v2 */
	T_EQ_INT(fx_write(e, fz, "/a/freezer.state", "FROZEN"), 0);
	for (i = 0; i < 200 && strcmp(fx_read(e, fz, "/a/freezer.state"), "FROZEN\n"); i++) {
		ucg_v2obs_poll(obs);
		sleep_ms(5);
	}
	T_EQ_STR(fx_read(e, fz, "/a/freezer.state"), "FROZEN\n");
	before = *counter;
	sleep_ms(100);
	T_EQ_INT(*counter, before);
	kill(child, SIGCONT);
	sleep_ms(30);
	T_EQ_INT(*counter, before);
	T_EQ_INT(fx_write(e, fz, "/a/freezer.state", "THAWED"), 0);
	sleep_ms(50);
	T_CHECK(*counter != before);

	ucg_buf_init(&d);
	ucg_v2obs_describe(obs, &d);
	printf("# %s", d.data);
	T_CHECK(d.data && strstr(d.data, "enforce_attaches 1 ") != NULL);
	ucg_buf_fini(&d);

	/* a restarted daemon (new engine, no state file) finds it in its leaf */
	ucg_v2obs_free(obs);
	ucg_engine_free(e);
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	T_EQ_INT(ucg_v2obs_new(e, b, test_log, NULL, &obs), 0);
	fz = fx_mount(e, "freezer,cpuacct");
	T_EQ_INT(fx_mkdir(e, fz, "/a"), 0);
	fx_proc(e, child, 0);
	T_EQ_STR(fx_read(e, fz, "/a/cgroup.procs"), "");
	T_EQ_INT(ucg_v2obs_restore(obs), 1);
	snprintf(why, sizeof(why), "%d\n", (int)child);
	T_EQ_STR(fx_read(e, fz, "/a/cgroup.procs"), why);
	T_CHECK(v2_ends_with(child, tail));

	/* the process leaves: rmdir takes the leaf and the mirror */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	ucg_task_exit(e, child);
	ucg_task_reap(e, child);
	for (i = 0; i < 100 && fx_rmdir(e, fz, "/a") != 0; i++)
		sleep_ms(10);
	snprintf(tail, sizeof(tail), "%s/a", root);
	T_CHECK(stat(tail, &st) < 0); /* the observer removed leaf and mirror */
	ucg_v2obs_free(obs);
	ucg_engine_free(e);
	ucg_cgv2_close(b, 1);
	T_CHECK(stat(root, &st) < 0 && errno == ENOENT);
	munmap((void *)counter, 4096);
}

static int veto_answer;

static int veto_write(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
		      size_t len)
{
	(void)ctx;
	(void)cg;
	(void)file;
	(void)buf;
	(void)len;
	return veto_answer;
}

static const struct ucg_observer_ops veto_ops = { .can_write = veto_write };

/* A write the v2 backend made and the engine then refused (here a later observer's
 * veto; in the daemon a v1 handler's refusal) is put back in v2, so v2 never holds a
 * limit that the v1 file does not. hugetlb is the controller this host's cgroup2 may
 * offer (when no v1 hierarchy has it); without it the test skips. */
static void test_cancelled_write(void)
{
	struct ucg_engine *e = NULL;
	struct ucg_hierarchy *h;
	struct ucg_cgv2 *b;
	struct ucg_buf v;
	char scratch[128], why[256];

	if (geteuid() != 0)
		T_SKIP("needs root for cgroup2");
	snprintf(scratch, sizeof(scratch), "ucgtest-v2undo-%d", (int)getpid());
	if (ucg_cgv2_open(scratch, &b, why, sizeof(why)) < 0)
		T_SKIP(why);
	if (!(ucg_cgv2_controllers(b) & (1u << UCG_V2_HUGETLB))) {
		ucg_cgv2_close(b, 1);
		T_SKIP("no hugetlb controller in this host's cgroup2");
	}
	T_EQ_INT(ucg_engine_new(NULL, &e), 0);
	T_EQ_INT(ucg_v2obs_new(e, b, test_log, NULL, &obs), 0);
	T_CHECK(ucg_observer_add(e, &veto_ops, NULL) >= 0);
	h = fx_mount(e, "hugetlb");
	T_EQ_INT(fx_mkdir(e, h, "/g"), 0);
	ucg_buf_init(&v);
	veto_answer = -EBUSY;
	T_EQ_INT(fx_write(e, h, "/g/hugetlb.2MB.limit_in_bytes", "4M"), -EBUSY);
	T_EQ_INT(ucg_cgv2_read(b, "/g", "hugetlb.2MB.max", &v), 0);
	T_EQ_STR(v.data, "max\n");
	veto_answer = 0;
	T_EQ_INT(fx_write(e, h, "/g/hugetlb.2MB.limit_in_bytes", "4M"), 0);
	ucg_buf_reset(&v);
	T_EQ_INT(ucg_cgv2_read(b, "/g", "hugetlb.2MB.max", &v), 0);
	T_EQ_STR(v.data, "4194304\n");
	veto_answer = -EINVAL;
	T_EQ_INT(fx_write(e, h, "/g/hugetlb.2MB.limit_in_bytes", "8M"), -EINVAL);
	ucg_buf_reset(&v);
	T_EQ_INT(ucg_cgv2_read(b, "/g", "hugetlb.2MB.max", &v), 0);
	T_EQ_STR(v.data, "4194304\n");
	T_EQ_STR(fx_read(e, h, "/g/hugetlb.2MB.limit_in_bytes"), "4194304\n");
	ucg_buf_reset(&v);
	ucg_v2obs_describe(obs, &v);
	T_CHECK(v.data && strstr(v.data, " undone 2 ") != NULL);
	ucg_buf_fini(&v);
	T_EQ_INT(fx_rmdir(e, h, "/g"), 0);
	ucg_v2obs_free(obs);
	ucg_engine_free(e);
	ucg_cgv2_close(b, 1);
}

int main(void)
{
	T_RUN(test_observer_native);
	T_RUN(test_cancelled_write);
	return t_done();
}
