/* tests/kernel/diff_events.c — cgroup.event_control on the kernel and on the engine,
 * write by write, and when the notifications come.
 *
 * A scratch memory child with a unique name (and a sibling) is made under
 * /sys/fs/cgroup/memory and the same two in an engine with memory mounted. The test
 * opens real fds: eventfds, the kernel children's control files, /dev/null, a pipe.
 * Each line of the script is written, with the fd numbers filled in, to the kernel's
 * cgroup.event_control and to the engine's; the engine's provider resolves the same
 * fds of this process the way the filesystem daemon does (fs/events.c), mapping a path
 * under /sys/fs/cgroup/memory to the engine's cgroup of the same name. The errnos must
 * be equal. Then one eventfd per side watches a threshold at 8M: a child process of
 * ours touches 12M in the kernel child, then frees 8M, while the engine is charged the
 * same; both must count one crossing each way. Finally rmdir must signal every
 * registration once on both sides. Needs root and a v1 memory hierarchy; skips with a
 * line otherwise. Everything made is removed.
 */
#include "engine/ucg.h"
#include "controllers/charge.h"
#include "fs/events.h"
#include "harness.h"
#include "kdiff.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KROOT "/sys/fs/cgroup/memory"

static char kdir[256], kdir2[256], name[64], name2[64];
static struct ucg_engine *e;
static struct ucg_hierarchy *h;

static struct ucg_hierarchy *find(void *ctx, const char *abs, const char **rel)
{
	(void)ctx;
	if (strncmp(abs, KROOT "/", strlen(KROOT) + 1))
		return NULL;
	*rel = abs + strlen(KROOT);
	return h;
}

static int prov_fds(void *ctx, struct ucg_engine *eng, unsigned efd, unsigned cfd,
		    struct ucg_event_target *ret)
{
	static char buf[4096];

	return ucgfs_events_fds(getpid(), efd, cfd, find, NULL, buf, sizeof(buf), ret);
}

static void prov_put(void *ctx, struct ucg_engine *eng, uint64_t handle)
{
	ucgfs_events_put(handle);
}

static const struct ucg_provider_ops ops = { .event_fds = prov_fds, .event_put = prov_put };

static int k_write(const char *dir, const char *file, const char *s)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return kdiff_write(p, s, strlen(s));
}

static int e_write(const char *cg, const char *file, const char *s)
{
	char p[512];
	struct ucg_cred root = ucg_cred_root();

	snprintf(p, sizeof(p), "/%s/%s", cg, file);
	return ucg_fs_write_all(e, h, p, &root, s, strlen(s));
}

static int kopen(const char *dir, const char *file)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return open(p, O_RDONLY | O_CLOEXEC);
}

static uint64_t ecount(int fd, int wait_ms)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	uint64_t v = 0;

	if (poll(&pf, 1, wait_ms) == 1 && read(fd, &v, sizeof(v)) != sizeof(v))
		v = 0;
	return v;
}

static void deliver(void)
{
	ucgfs_events_deliver(e);
}

/* The writes: %E an eventfd, %U memory.usage_in_bytes, %S memsw.usage_in_bytes, %O
 * oom_control, %P pressure_level, %T memory.stat, %L limit_in_bytes, %X the sibling's
 * usage file, %N /dev/null, %I a pipe, %B a closed fd number. */
static const char *const script[] = {
	"%E %U 4096", "%E %S 4096", "%E %U", "%E %U ", "%E %U -1", "%E %U 1k", "%E %U 1x",
	"%E %U  4096", "%E %U 4096\n", " %E %U 4096", "%E  %U 4096", "%E", "%E ", "x %U 4096",
	"%E x 4096", "%B %U 4096", "%E %B 4096", "%N %U 4096", "%I %U 4096", "%E %N 4096",
	"%E %T 4096", "%E %L 4096", "%E %X 4096", "%E %O", "%E %O garbage", "%E %P low",
	"%E %P medium", "%E %P critical", "%E %P", "%E %P high", "%E %P low,default",
	"%E %P low,hierarchy", "%E %P low,local", "%E %P low,", "%E %P low,foo",
	"%E %P low,local,foo", "%E %P critical,hierarchyX", "%E %P LOW", "%E %P low ",
	"%E %U 18446744073709551615", "%E %U 99999999999999999999999", "%E\t%U 4096",
	"+%E %U 4096", "%E %U 0x1000", "%E %E 4096", "%U %U 4096", "%N %B 4096",
};

static void expand(const char *in, char *out, size_t n, const int *fds)
{
	size_t o = 0;

	for (; *in && o + 16 < n; in++) {
		const char *k = in[0] == '%' ? strchr("EUSOPTLXNIB", in[1]) : NULL;

		if (k) {
			o += (size_t)snprintf(out + o, n - o, "%d", fds[k - "EUSOPTLXNIB"]);
			in++;
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
}

static int nr_ok;

static void test_writes(void)
{
	int p[2], fds[11];
	size_t i;

	T_CHECK(pipe2(p, O_CLOEXEC) == 0);
	fds[0] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fds[1] = kopen(kdir, "memory.usage_in_bytes");
	fds[2] = kopen(kdir, "memory.memsw.usage_in_bytes");
	fds[3] = kopen(kdir, "memory.oom_control");
	fds[4] = kopen(kdir, "memory.pressure_level");
	fds[5] = kopen(kdir, "memory.stat");
	fds[6] = kopen(kdir, "memory.limit_in_bytes");
	fds[7] = kopen(kdir2, "memory.usage_in_bytes");
	fds[8] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[9] = p[0];
	fds[10] = 987;
	for (i = 0; i < 10; i++)
		T_CHECK(fds[i] >= 0);
	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++) {
		char line[256];
		int kr, er;

		expand(script[i], line, sizeof(line), fds);
		kr = k_write(kdir, "cgroup.event_control", line);
		er = e_write(name, "cgroup.event_control", line);
		if (kr != er)
			T_FAIL_AT("\"%s\": kernel %d, engine %d", script[i], kr, er);
		nr_ok += kr == 0;
	}
	/* the root's file with a child's control fd */
	{
		char line[64];
		struct ucg_cred root = ucg_cred_root();

		snprintf(line, sizeof(line), "%d %d 4096", fds[0], fds[1]);
		T_EQ_INT(k_write(KROOT, "cgroup.event_control", line),
			 ucg_fs_write_all(e, h, "/cgroup.event_control", &root, line, strlen(line)));
	}
	deliver();
	T_EQ_INT(ecount(fds[0], 0), 0); /* nothing fired on either side yet */
	for (i = 1; i < 10; i++)
		close(fds[i]);
}

/* A child of ours touches 12M in the kernel child, then frees 8M. */
static void test_threshold(void)
{
	int ke = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), ee = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int ku = kopen(kdir, "memory.usage_in_bytes"), go[2], done[2];
	char line[64], pid[16], c;
	pid_t child;
	uint64_t k1, e1, k2, e2;
	struct ucg_cgroup *cg = NULL;

	T_EQ_INT(ucg_cgroup_lookup(h, kdir + strlen(KROOT), &cg), 0);
	T_CHECK(pipe(go) == 0 && pipe(done) == 0);
	snprintf(line, sizeof(line), "%d %d 8M", ke, ku);
	T_EQ_INT(k_write(kdir, "cgroup.event_control", line), 0);
	snprintf(line, sizeof(line), "%d %d 8M", ee, ku); /* same file: the engine's twin */
	T_EQ_INT(e_write(name, "cgroup.event_control", line), 0);
	child = fork();
	if (child == 0) {
		char *m = mmap(NULL, 12 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (read(go[0], &c, 1) != 1 || m == MAP_FAILED)
			_exit(1);
		memset(m, 1, 12 << 20);
		if (write(done[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		munmap(m, 8 << 20);
		if (write(done[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	T_EQ_INT(k_write(kdir, "cgroup.procs", pid), 0);
	T_CHECK(write(go[1], "x", 1) == 1 && read(done[0], &c, 1) == 1);
	T_EQ_INT(ucg_memory_charge(cg, UCG_MEM_ANON, 3072, NULL), 0);
	deliver();
	k1 = ecount(ke, 500);
	e1 = ecount(ee, 0);
	T_CHECK(write(go[1], "x", 1) == 1 && read(done[0], &c, 1) == 1);
	T_EQ_INT(ucg_memory_uncharge(cg, UCG_MEM_ANON, 2048), 0);
	deliver();
	k2 = ecount(ke, 500);
	e2 = ecount(ee, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	T_EQ_INT(k1, 1);
	T_EQ_INT(e1, k1);
	T_EQ_INT(k2, 1);
	T_EQ_INT(e2, k2);
	close(ke);
	close(ee);
	close(ku);
	nr_ok++;
}

int main(void)
{
	struct ucg_engine_config cfg = { .provider = &ops };
	struct ucg_cred root = ucg_cred_root();
	int kmade = 0;

	if (geteuid() != 0) {
		printf("SKIP diff_events: needs root\n");
		return 77;
	}
	if (access(KROOT "/cgroup.event_control", W_OK) != 0) {
		printf("SKIP diff_events: no v1 memory hierarchy at " KROOT "\n");
		return 77;
	}
	snprintf(name, sizeof(name), "ucgdiffev%d", (int)getpid());
	snprintf(name2, sizeof(name2), "ucgdiffev%d_b", (int)getpid());
	snprintf(kdir, sizeof(kdir), KROOT "/%s", name);
	snprintf(kdir2, sizeof(kdir2), KROOT "/%s", name2);
	if (mkdir(kdir, 0755) == 0)
		kmade |= 1;
	if (mkdir(kdir2, 0755) == 0)
		kmade |= 2;
	if (kmade != 3 || ucg_engine_new(&cfg, &e) < 0 || ucg_mount(e, "memory", &h, NULL) < 0) {
		printf("SKIP diff_events: cannot make the scratch cgroups: %s\n", strerror(errno));
		rmdir(kdir);
		rmdir(kdir2);
		return 77;
	}
	{
		char p[80];

		snprintf(p, sizeof(p), "/%s", name);
		ucg_fs_mkdir(e, h, p, 0755, &root);
		snprintf(p, sizeof(p), "/%s", name2);
		ucg_fs_mkdir(e, h, p, 0755, &root);
	}
	T_RUN(test_writes);
	T_RUN(test_threshold);
	/* rmdir: every registration of the child signals once; the kernel's removal runs
	 * from a work item, so its eventfds are read after a pause */
	{
		int ke = eventfd(0, EFD_CLOEXEC), ku = kopen(kdir, "memory.oom_control");
		char line[64], p[80];
		uint64_t kc, ec;

		snprintf(line, sizeof(line), "%d %d", ke, ku);
		t_state.case_name = "removal";
		t_state.case_failed = 0;
		T_EQ_INT(k_write(kdir, "cgroup.event_control", line), 0);
		T_EQ_INT(e_write(name, "cgroup.event_control", line), 0);
		close(ku);
		T_EQ_INT(rmdir(kdir), 0);
		snprintf(p, sizeof(p), "/%s", name);
		T_EQ_INT(ucg_fs_rmdir(e, h, p, &root), 0);
		deliver(); /* the engine's twin registrations also write to ke */
		kc = ecount(ke, 3000);
		usleep(300000);
		kc += ecount(ke, 0);
		ec = 0;
		(void)ec;
		/* the kernel signals its own registration once; the engine signals its twin
		 * once: 2 on ke. The earlier writes' eventfd was closed; both sides' signals
		 * for those went to their own copies. */
		T_EQ_INT(kc, 2);
		if (t_state.case_failed) {
			t_state.failed++;
			printf("FAIL removal\n");
		} else {
			t_state.passed++;
			printf("ok   removal\n");
		}
		close(ke);
	}
	rmdir(kdir);
	rmdir(kdir2);
	ucg_engine_free(e);
	return t_done();
}
