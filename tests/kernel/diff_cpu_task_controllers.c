/* tests/kernel/diff_cpu_task_controllers.c — the controllers of CPUs and tasks
 * (cpuset, cpu, cpuacct, freezer, pids, net_cls, net_prio, perf_event) against the
 * kernel's own control files.
 *
 * For each controller the same script runs on a scratch child of the kernel's
 * hierarchy and on an engine mounted with the same controller: writes (errno
 * compared), reads (bytes compared), mkdir/rmdir, attaches of real child processes,
 * and for pids real forks done by a helper process inside the scratch cgroup (the
 * engine is told of each fork that succeeded, and of a refused one with a pid that
 * cannot exist). cpuset, cpu, cpuacct, freezer and pids use the host's hierarchies
 * under /sys/fs/cgroup (only scratch children named ucgdiffA<pid> are touched);
 * net_cls+net_prio and perf_event are unbound, so they are mounted under /tmp and
 * unmounted afterwards. The engine is configured like the machine: possible CPUs,
 * online nodes, the network devices in ifindex order and the cpuset relax-domain
 * bound found by probing. cpuset attaches also compare the affinity the kernel gave
 * the process with the mask the engine told its provider. Needs root and cgroup v1;
 * skips each controller with a clear line when its hierarchy is not available.
 */
#include "controllers/charge.h"
#include "engine/ucg.h"
#include "harness.h"
#include "kdiff.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NCHILD 2
#define MAXFORK 16

static char kroot[256];  /* the kernel hierarchy's mount point */
static char scratch[64]; /* "ucgdiffA<pid>" */
static pid_t child[NCHILD];
static struct ucg_engine *eng;
static struct ucg_hierarchy *eh;
static int mismatches, ops;

/* The helper that forks on request (pids). */
static pid_t forker;
static int fk_cmd = -1, fk_res = -1;
static pid_t forked[MAXFORK];
static int nforked;
static int fake_pid = 4000000;

/* What the engine told its provider about cpus. */
static unsigned char prov_mask[64][8];
static pid_t prov_pid[64];

static void rec_cpus(void *ctx, struct ucg_engine *e, int tid, const unsigned char *m, size_t n)
{
	int i;

	for (i = 0; i < 64; i++)
		if (prov_pid[i] == tid || prov_pid[i] == 0) {
			prov_pid[i] = tid;
			memset(prov_mask[i], 0, 8);
			memcpy(prov_mask[i], m, n < 8 ? n : 8);
			return;
		}
}

static const struct ucg_provider_ops prov_ops = { .cpus_changed = rec_cpus };

/* ---- the two sides ------------------------------------------------------------------- */

static void kpath(char *out, size_t n, const char *p)
{
	snprintf(out, n, "%.255s%.255s", kroot, p);
}

static int k_write(const char *path, const char *data, size_t len)
{
	char p[512];

	kpath(p, sizeof(p), path);
	return kdiff_write(p, data, len);
}

static void k_read(const char *path, char *out, size_t n)
{
	char p[512];

	kpath(p, sizeof(p), path);
	kdiff_read(p, out, n);
}

static void e_read(const char *path, char *out, size_t n)
{
	kdiff_e_read(eng, eh, path, out, n);
}

/* "/S" at the start of a path is the scratch directory; "$N" the pid of child N;
 * C escapes \n \t \xHH in values. */
static void expand(const char *in, char *out, size_t n, size_t *ret_len)
{
	size_t o = 0;

	for (; *in && o + 16 < n; in++) {
		if (in[0] == '/' && in[1] == 'S' && (in[2] == '/' || !in[2] || in[2] == ' ')) {
			o += (size_t)snprintf(out + o, n - o, "/%s", scratch);
			in++;
		} else if (in[0] == '$' && isdigit((unsigned char)in[1])) {
			o += (size_t)snprintf(out + o, n - o, "%d", (int)child[in[1] - '0']);
			in++;
		} else if (in[0] == '\\' && in[1] == 'n') {
			out[o++] = '\n';
			in++;
		} else if (in[0] == '\\' && in[1] == 't') {
			out[o++] = '\t';
			in++;
		} else if (in[0] == '\\' && in[1] == 'x' && isxdigit((unsigned char)in[2]) &&
			   isxdigit((unsigned char)in[3])) {
			char hex[3] = { in[2], in[3], 0 };

			out[o++] = (char)strtol(hex, NULL, 16);
			in += 3;
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
	if (ret_len)
		*ret_len = o;
}

static void mismatch(const char *line, const char *k, const char *e)
{
	mismatches++;
	T_FAIL_AT("'%s': kernel '%s', engine '%s'", line, k, e);
}

/* ---- pids: the forker --------------------------------------------------------------- */

static void forker_main(int cmd, int res)
{
	char c;

	for (;;) {
		if (read(cmd, &c, 1) != 1)
			_exit(0);
		if (c == 'f') {
			pid_t p = fork();
			int v;

			if (p == 0) {
				for (;;)
					pause();
			}
			v = p < 0 ? -errno : (int)p;
			if (write(res, &v, sizeof(v)) != sizeof(v))
				_exit(1);
		} else if (c == 'r') {
			int v = 0;

			/* Reap every child (the test killed them): a zombie still counts in
			 * the kernel's pids.current until it is reaped. */
			while (waitpid(-1, NULL, 0) > 0)
				v++;
			if (write(res, &v, sizeof(v)) != sizeof(v))
				_exit(1);
		}
	}
}

static void start_forker(void)
{
	int a[2], b[2];
	struct ucg_task_info ti;

	if (pipe(a) || pipe(b))
		return;
	forker = fork();
	if (forker == 0) {
		close(a[1]);
		close(b[0]);
		forker_main(a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	fk_cmd = a[1];
	fk_res = b[0];
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = forker;
	ucg_task_add(eng, &ti);
}

/* Asks the forker to fork; mirrors the result in the engine. */
static void do_fork(const char *line)
{
	struct ucg_task_info ti;
	int v = -EIO, r;
	char k[64], e[64];

	if (write(fk_cmd, "f", 1) != 1 || read(fk_res, &v, sizeof(v)) != sizeof(v))
		v = -EIO;
	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = v > 0 ? v : fake_pid++;
	r = ucg_task_fork(eng, forker, &ti);
	if (v > 0 && nforked < MAXFORK)
		forked[nforked++] = v;
	snprintf(k, sizeof(k), "%s", v > 0 ? "ok" : strerror(-v));
	snprintf(e, sizeof(e), "%s", r == 0 ? "ok" : strerror(-r));
	ops++;
	if (strcmp(k, e))
		mismatch(line, k, e);
}

static void kill_forked(void)
{
	int i;

	int v;

	for (i = 0; i < nforked; i++)
		kill(forked[i], SIGKILL);
	if (nforked && (write(fk_cmd, "r", 1) != 1 || read(fk_res, &v, sizeof(v)) != sizeof(v)))
		T_FAIL_AT("%s", "the forker did not reap");
	for (i = 0; i < nforked; i++)
		if (eng)
			ucg_task_reap(eng, forked[i]);
	nforked = 0;
}

/* Kills the forked tasks without reaping them: zombies of the forker. */
static void zombify_forked(void)
{
	int i, tries;

	for (i = 0; i < nforked; i++) {
		char f[64], buf[256];
		FILE *fp;

		kill(forked[i], SIGKILL);
		snprintf(f, sizeof(f), "/proc/%d/stat", (int)forked[i]);
		for (tries = 0; tries < 200; tries++) {
			char *rp;

			fp = fopen(f, "r");
			if (!fp)
				break;
			rp = fgets(buf, sizeof(buf), fp);
			fclose(fp);
			if (rp && strstr(buf, ") Z "))
				break;
			usleep(5000);
		}
		if (eng)
			ucg_task_exit(eng, forked[i]);
	}
}

/* ---- the script runner ---------------------------------------------------------------- */

/* Reads until the kernel has settled a freezer state (FREEZING is transient). */
static void k_read_settled(const char *path, char *out, size_t n)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		k_read(path, out, n);
		if (strcmp(out, "FREEZING\n"))
			return;
		usleep(10000);
	}
}

static void compare_affinity(const char *line, int idx)
{
	cpu_set_t set;
	unsigned long kmask = 0, emask = 0;
	char k[64], e[64];
	int i;

	if (sched_getaffinity(child[idx], sizeof(set), &set) < 0)
		return;
	for (i = 0; i < 64; i++)
		if (CPU_ISSET(i, &set))
			kmask |= 1ul << i;
	for (i = 0; i < 64; i++)
		if (prov_pid[i] == child[idx]) {
			int j;

			for (j = 0; j < 8; j++)
				emask |= (unsigned long)prov_mask[i][j] << (8 * j);
		}
	snprintf(k, sizeof(k), "%#lx", kmask);
	snprintf(e, sizeof(e), "%#lx", emask);
	ops++;
	if (strcmp(k, e))
		mismatch(line, k, e);
}

/* OP PATH [VALUE]: w write, r read, R read after freezer settles, m mkdir, d rmdir,
 * F fork in the forker, A affinity of child N (PATH is N), Z kill forked tasks and
 * leave them zombies, K kill and reap them. */
static void run(const char *const *script, size_t n)
{
	struct ucg_cred root = ucg_cred_root();
	size_t i;

	for (i = 0; i < n; i++) {
		char path[512], val[512], kout[8192], eout[8192];
		const char *line = script[i], *sp;
		size_t vlen = 0;
		char op = line[0];

		if (op == 'F') {
			do_fork(line);
			continue;
		}
		if (op == 'K') {
			kill_forked();
			continue;
		}
		if (op == 'Z') {
			zombify_forked();
			continue;
		}
		sp = strchr(line + 2, ' ');
		if (sp) {
			char p[256];

			snprintf(p, sizeof(p), "%.*s", (int)(sp - line - 2), line + 2);
			expand(p, path, sizeof(path), NULL);
			expand(sp + 1, val, sizeof(val), &vlen);
		} else {
			expand(line + 2, path, sizeof(path), NULL);
			val[0] = '\0';
		}
		ops++;
		if (op == 'A') {
			compare_affinity(line, atoi(path + 1));
			continue;
		}
		if (op == 'w') {
			int kr = k_write(path, val, vlen);
			int er = ucg_fs_write_all(eng, eh, path, &root, val, vlen);

			if (kr != er) {
				snprintf(kout, sizeof(kout), "%s", kr ? strerror(-kr) : "ok");
				snprintf(eout, sizeof(eout), "%s", er ? strerror(-er) : "ok");
				mismatch(line, kout, eout);
			}
		} else if (op == 'r' || op == 'R') {
			if (op == 'R')
				k_read_settled(path, kout, sizeof(kout));
			else
				k_read(path, kout, sizeof(kout));
			e_read(path, eout, sizeof(eout));
			if (strcmp(kout, eout))
				mismatch(line, kout, eout);
		} else if (op == 'm' || op == 'd') {
			char p[512];
			int kr, er;

			kpath(p, sizeof(p), path);
			kr = op == 'm' ? (mkdir(p, 0755) < 0 ? -errno : 0) : (rmdir(p) < 0 ? -errno : 0);
			er = op == 'm' ? ucg_fs_mkdir(eng, eh, path, 0755, &root)
				       : ucg_fs_rmdir(eng, eh, path, &root);
			if (kr != er) {
				snprintf(kout, sizeof(kout), "%s", kr ? strerror(-kr) : "ok");
				snprintf(eout, sizeof(eout), "%s", er ? strerror(-er) : "ok");
				mismatch(line, kout, eout);
			}
		}
	}
}

/* ---- set-up per controller ---------------------------------------------------------- */

static pid_t spawn_child(void)
{
	pid_t p = fork();

	if (p == 0)
		for (;;)
			pause();
	return p;
}

static const char *netdevs[32];
static char netdev_buf[32][IF_NAMESIZE];

static size_t load_netdevs(void)
{
	struct if_nameindex *ni = if_nameindex(), *it;
	size_t n = 0;

	if (!ni)
		return 0;
	/* if_nameindex lists in ifindex order on Linux. */
	for (it = ni; it->if_index && n < 32; it++) {
		snprintf(netdev_buf[n], IF_NAMESIZE, "%s", it->if_name);
		netdevs[n] = netdev_buf[n];
		n++;
	}
	if_freenameindex(ni);
	return n;
}

static unsigned possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	unsigned a = 0, b = 0;
	int n;

	if (!f)
		return 1;
	n = fscanf(f, "%u-%u", &a, &b);
	fclose(f);
	return n == 2 ? b + 1 : a + 1;
}

/* The largest sched_relax_domain_level the kernel accepts, in a scratch cpuset. */
static int probe_relax_max(void)
{
	char dir[512], file[600];
	int v, max = 5;

	snprintf(dir, sizeof(dir), "/sys/fs/cgroup/cpuset/%s-probe", scratch);
	if (mkdir(dir, 0755) < 0)
		return max;
	snprintf(file, sizeof(file), "%s/cpuset.sched_relax_domain_level", dir);
	for (v = 0; v < 16; v++) {
		char s[8];
		int fd = open(file, O_WRONLY), ok;

		snprintf(s, sizeof(s), "%d", v);
		ok = fd >= 0 && write(fd, s, strlen(s)) > 0;
		if (fd >= 0)
			close(fd);
		if (!ok)
			break;
		max = v;
	}
	rmdir(dir);
	return max;
}

/* Starts an engine for opts with kroot set; registers the children (and the forker). */
static int setup(const char *opts, int relax_max)
{
	struct ucg_engine_config cfg;
	struct ucg_task_info ti;
	size_t nd = load_netdevs();
	int i;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_cpus = possible_cpus();
	cfg.nr_mems = 1;
	cfg.netdev_names = netdevs;
	cfg.nr_netdevs = nd;
	cfg.cpuset_relax_domain_max = relax_max;
	cfg.provider = &prov_ops;
	memset(prov_pid, 0, sizeof(prov_pid));
	if (ucg_engine_new(&cfg, &eng) < 0 || ucg_mount(eng, opts, &eh, NULL) < 0)
		return -1;
	for (i = 0; i < NCHILD; i++) {
		memset(&ti, 0, sizeof(ti));
		ti.tid = ti.tgid = child[i];
		ucg_task_add(eng, &ti);
	}
	return 0;
}

static void teardown(const char *const *dirs, size_t n)
{
	char p[512], q[600];
	size_t i;
	int c;

	/* Everything back to the kernel root first, then remove deepest first. */
	for (c = 0; c < NCHILD; c++) {
		char s[16];

		snprintf(s, sizeof(s), "%d", (int)child[c]);
		k_write("/cgroup.procs", s, strlen(s));
	}
	kill_forked();
	if (forker > 0) {
		char s[16];

		snprintf(s, sizeof(s), "%d", (int)forker);
		k_write("/cgroup.procs", s, strlen(s));
	}
	for (i = 0; i < n; i++) {
		expand(dirs[i], p, sizeof(p), NULL);
		snprintf(q, sizeof(q), "%.255s%.300s", kroot, p);
		rmdir(q);
	}
	ucg_engine_free(eng);
	eng = NULL;
}

static int have_dir(const char *d)
{
	struct stat st;

	return stat(d, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- the scripts ----------------------------------------------------------------------- */

static const char *const pids_script[] = {
	"m /S", "r /S/pids.max", "r /S/pids.current", "r /S/pids.events", "r /S/pids.peak",
	"w /S/pids.max 5", "r /S/pids.max", "w /S/pids.max  max ", "w /S/pids.max MAX",
	"w /S/pids.max -1", "w /S/pids.max 4194304", "r /S/pids.max", "w /S/pids.max 4194305",
	"w /S/pids.max 0x10", "r /S/pids.max", "w /S/pids.max 010", "r /S/pids.max",
	"w /S/pids.max 9223372036854775807", "w /S/pids.max 9223372036854775808",
	"w /S/pids.max \\xa05", "r /S/pids.max", "w /S/pids.max 5 6", "w /S/pids.max  ",
	"w /S/pids.current 1", "m /S/q", "w /S/pids.max 3", "w /S/q/cgroup.procs FORKER",
	"r /S/pids.current", "F", "F", "F", "F", "r /S/pids.current", "r /S/q/pids.current",
	"r /S/q/pids.events", "r /S/pids.events", "r /S/q/pids.peak", "r /S/pids.peak",
	"w /S/pids.max 0", "w /S/cgroup.procs $0", "r /S/pids.current", "r /S/pids.events",
	"Z", "r /S/pids.current", "r /S/q/pids.current", "r /S/q/tasks", "K", "r /S/pids.current", "w /S/pids.max max", "F", "r /S/q/pids.current",
};

static const char *const freezer_script[] = {
	"m /S", "r /S/freezer.state", "r /S/freezer.self_freezing",
	"r /S/freezer.parent_freezing", "w /S/freezer.state FREEZING",
	"w /S/freezer.state frozen", "w /S/freezer.state \\n", "w /S/freezer.state 1",
	"w /S/freezer.state FROZEN\\nTHAWED", "w /S/freezer.self_freezing 1", "m /S/c",
	"w /S/cgroup.procs $0", "w /S/c/cgroup.procs $1", "w /S/freezer.state  FROZEN ",
	"R /S/freezer.state", "R /S/c/freezer.state", "r /S/c/freezer.self_freezing",
	"r /S/c/freezer.parent_freezing", "w /S/c/freezer.state THAWED", "R /S/c/freezer.state",
	"w /S/c/freezer.state FROZEN", "w /S/freezer.state THAWED\\n", "R /S/freezer.state",
	"R /S/c/freezer.state", "m /S/n", "r /S/n/freezer.state", "w /S/c/freezer.state THAWED",
	"R /S/c/freezer.state", "w /S/freezer.state \\xa0FROZEN", "m /S/m", "R /S/m/freezer.state",
	"r /S/m/freezer.parent_freezing", "w /S/freezer.state THAWED", "R /S/freezer.state",
	"r /freezer.state",
};

static const char *const cpu_script[] = {
	"m /S", "r /S/cpu.shares", "r /S/cpu.cfs_quota_us", "r /S/cpu.cfs_period_us",
	"r /S/cpu.cfs_burst_us", "r /S/cpu.idle", "r /S/cpu.rt_runtime_us",
	"r /S/cpu.rt_period_us", "r /S/cpu.stat", "r /S/cpu.stat.local", "w /S/cpu.shares 0",
	"r /S/cpu.shares", "w /S/cpu.shares 262145", "r /S/cpu.shares", "w /S/cpu.shares 010",
	"r /S/cpu.shares", "w /S/cpu.shares  5", "w /S/cpu.shares 18446744073709551616",
	"w /S/cpu.idle 1", "r /S/cpu.shares", "w /S/cpu.shares 100", "w /S/cpu.idle 0",
	"r /S/cpu.shares", "w /S/cpu.idle 2", "w /S/cpu.cfs_quota_us 999",
	"w /S/cpu.cfs_quota_us 0x3e8", "r /S/cpu.cfs_quota_us", "w /S/cpu.cfs_quota_us -2",
	"r /S/cpu.cfs_quota_us", "w /S/cpu.cfs_quota_us 17592186044416",
	"w /S/cpu.cfs_quota_us 9223372036854775808", "w /S/cpu.cfs_period_us 999",
	"w /S/cpu.cfs_period_us 1000001", "w /S/cpu.cfs_period_us -1",
	"w /S/cpu.cfs_burst_us 17592186044416", "w /S/cpu.cfs_burst_us 18446744073709552",
	"w /S/cpu.cfs_quota_us 2000", "w /S/cpu.cfs_burst_us 0", "w /S/cpu.cfs_quota_us 50000",
	"m /S/c", "w /S/c/cpu.cfs_quota_us 50001", "w /S/c/cpu.cfs_quota_us 50000",
	"w /S/c/cpu.cfs_quota_us 25000", "w /S/c/cpu.cfs_period_us 50000",
	"w /S/c/cpu.cfs_period_us 49999", "w /S/cpu.cfs_quota_us 10000",
	"w /S/cpu.cfs_quota_us -1", "w /S/c/cpu.cfs_burst_us 25001", "w /S/c/cpu.cfs_burst_us 25000",
	"w /S/c/cpu.cfs_quota_us 24999", "r /S/c/cpu.cfs_quota_us",
	"w /S/cpu.rt_runtime_us 950001", "w /S/cpu.rt_runtime_us -1",
	"w /S/cpu.rt_runtime_us 500000", "w /S/cpu.rt_period_us 499999",
	"w /S/c/cpu.rt_runtime_us 300000", "m /S/d", "w /S/d/cpu.rt_runtime_us 200002",
	"w /S/d/cpu.rt_runtime_us 200001", "w /S/cpu.rt_runtime_us 400000",
	"w /S/d/cpu.rt_period_us 0", "w /S/d/cpu.rt_period_us 18446744073709552",
	"r /S/cpu.rt_runtime_us", "w /cpu.shares 1024", "w /cpu.cfs_quota_us -1",
	"w /cpu.idle 0",
};

static const char *const cpuacct_script[] = {
	"m /S", "r /S/cpuacct.usage", "r /S/cpuacct.usage_user", "r /S/cpuacct.usage_sys",
	"r /S/cpuacct.usage_all", "r /S/cpuacct.stat", "w /S/cpuacct.usage 1",
	"w /S/cpuacct.usage -1", "w /S/cpuacct.usage  0", "w /S/cpuacct.usage abc",
	"w /S/cpuacct.usage 0x0", "w /S/cpuacct.usage_user 0", "w /S/cpuacct.stat 0",
	"m /S/c", "r /S/c/cpuacct.usage_percpu_user",
};

static const char *const cpuset_script[] = {
	"m /S", "r /S/cpuset.cpus", "r /S/cpuset.mems", "r /S/cpuset.effective_cpus",
	"r /S/cpuset.cpu_exclusive", "r /S/cpuset.sched_load_balance",
	"r /S/cpuset.sched_relax_domain_level", "r /S/cpuset.memory_pressure",
	"r /S/cpuset.memory_spread_page", "w /S/cgroup.procs $0", "w /S/cpuset.cpus 1 , 0",
	"r /S/cpuset.cpus", "w /S/cpuset.cpus 0-1:1/2", "r /S/cpuset.cpus",
	"w /S/cpuset.cpus abc", "w /S/cpuset.cpus 1-0", "w /S/cpuset.cpus 0x1",
	"w /S/cpuset.cpus 64", "w /S/cpuset.cpus 4294967296", "w /S/cpuset.cpus 4294967295",
	"w /S/cpuset.cpus 0\\n1", "r /S/cpuset.cpus", "w /S/cpuset.cpus all",
	"r /S/cpuset.cpus", "w /S/cpuset.mems 1", "w /S/cpuset.mems 1024", "w /S/cpuset.mems all",
	"w /S/cgroup.procs $0", "w /S/cpuset.mems 0", "w /S/cgroup.procs $0", "A 0",
	"w /S/cpuset.cpus 1", "A 0", "w /S/cpuset.cpus \\n", "w /S/cpuset.mems \\n",
	"w /S/cpuset.cpus 0-1", "A 0", "w /S/cpuset.effective_cpus 0",
	"w /S/cpuset.mem_hardwall 2", "r /S/cpuset.mem_hardwall", "w /S/cpuset.mem_hardwall  1",
	"w /S/cpuset.mem_hardwall 18446744073709551616", "w /S/cpuset.sched_relax_domain_level 2",
	"w /S/cpuset.sched_relax_domain_level 3", "w /S/cpuset.sched_relax_domain_level -2",
	"w /S/cpuset.sched_relax_domain_level -1", "w /S/cpuset.memory_spread_page 1",
	"m /S/a", "r /S/a/cpuset.cpus", "r /S/a/cpuset.memory_spread_page",
	"w /S/a/cgroup.procs $1", "w /S/a/cpuset.cpus 0", "w /S/a/cpuset.mems 0",
	"w /S/a/cgroup.procs $1", "A 1", "w /S/cpuset.cpus 1", "w /S/a/cpuset.cpus \\n",
	"m /S/b", "w /S/b/cpuset.cpus 0-1", "w /S/a/cpuset.cpu_exclusive 1",
	"w /S/cpuset.cpu_exclusive 1", "w /S/a/cpuset.cpu_exclusive 1", "w /S/b/cpuset.cpus 1",
	"w /S/a/cpuset.cpu_exclusive 1", "w /S/b/cpuset.cpus 0-1", "w /S/cpuset.cpu_exclusive 0",
	"w /S/cgroup.clone_children 1", "m /S/c", "r /S/c/cpuset.cpus",
	"w /S/cgroup.procs $1", "w /S/a/cpuset.cpus \\n", "w /S/a/cpuset.sched_load_balance 0",
	"w /S/a/cpuset.cpus \\n", "w /S/a/cpuset.cpu_exclusive 0", "d /S/c", "m /S/c",
	"r /S/c/cpuset.cpus", "r /S/c/cpuset.mems", "w /cpuset.cpus 0", "w /cpuset.cpus abc",
	"w /cpuset.mems 0",
};

static const char *const net_script[] = {
	"r /net_cls.classid", "r /net_prio.prioidx", "r /net_prio.ifpriomap", "m /S",
	"r /S/net_cls.classid", "w /S/net_cls.classid 0x100001", "r /S/net_cls.classid",
	"w /S/net_cls.classid 4294967296", "r /S/net_cls.classid",
	"w /S/net_cls.classid 0xFFFFFFFF", "r /S/net_cls.classid", "w /S/net_cls.classid  5",
	"w /S/net_cls.classid 10:1", "w /S/net_cls.classid -1", "m /S/old",
	"w /S/net_cls.classid 0x20002", "m /S/new", "r /S/old/net_cls.classid",
	"r /S/new/net_cls.classid", "w /S/net_prio.prioidx 1", "w /S/net_prio.ifpriomap lo 6junk",
	"r /S/net_prio.ifpriomap", "w /S/net_prio.ifpriomap lo 0x10",
	"w /S/net_prio.ifpriomap lo 4294967297", "r /S/net_prio.ifpriomap",
	"w /S/net_prio.ifpriomap lo", "w /S/net_prio.ifpriomap lo -1",
	"w /S/net_prio.ifpriomap nosuchdev0 1", "w /S/net_prio.ifpriomap lo 1\\nlo 2",
	"r /S/net_prio.ifpriomap", "w /S/net_prio.ifpriomap lo\\t3", "w /S/net_prio.ifpriomap lo +3",
	"w /S/net_prio.ifpriomap lo01234567890123 1", "w /S/net_prio.ifpriomap \\n",
	"w /S/net_prio.ifpriomap lo 99999999999999999999", "r /S/net_prio.ifpriomap",
	"r /S/old/net_prio.ifpriomap", "m /S/new2", "r /S/new2/net_prio.ifpriomap",
	"r /S/new2/net_cls.classid",
};

static const char *const perf_script[] = {
	"m /S", "r /S/cgroup.procs", "w /S/cgroup.procs $0", "r /S/tasks", "d /S",
	"w /cgroup.procs $0", "d /S", "r /S/perf_event.x",
};

/* Scripts name the forker as FORKER; patch it in once it exists. */
static const char *const *patch_forker(const char *const *s, size_t n, char **store)
{
	static char buf[64];
	const char **out = calloc(n, sizeof(*out));
	size_t i;

	snprintf(buf, sizeof(buf), "w /S/q/cgroup.procs %d", (int)forker);
	for (i = 0; i < n; i++)
		out[i] = strcmp(s[i], "w /S/q/cgroup.procs FORKER") ? s[i] : buf;
	*store = (char *)out;
	return out;
}

/* ---- the cases ---------------------------------------------------------------------- */

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void host_case(const char *dir, const char *opts, const char *const *script, size_t n,
		      const char *const *dirs, size_t nd, int with_forker)
{
	int before = mismatches;
	char *store = NULL;

	snprintf(kroot, sizeof(kroot), "/sys/fs/cgroup/%s", dir);
	if (!have_dir(kroot)) {
		printf("SKIP %s: no v1 hierarchy at %s\n", t_state.case_name, kroot);
		t_state.case_skipped = 1;
		return;
	}
	T_EQ_INT(setup(opts, opts[0] == 'c' && !strcmp(opts, "cpuset") ? probe_relax_max() : 0), 0);
	if (!eng)
		return;
	if (with_forker) {
		start_forker();
		script = patch_forker(script, n, &store);
	}
	run(script, n);
	teardown(dirs, nd);
	if (forker > 0) {
		close(fk_cmd);
		close(fk_res);
		kill(forker, SIGKILL);
		waitpid(forker, NULL, 0);
		forker = 0;
	}
	free(store);
	printf("# %s: %zu lines, %d mismatches\n", opts, n, mismatches - before);
}

static void test_pids(void)
{
	static const char *const dirs[] = { "/S/q", "/S" };

	host_case("pids", "pids", pids_script, NELEM(pids_script), dirs, NELEM(dirs), 1);
}

static void test_freezer(void)
{
	static const char *const dirs[] = { "/S/c", "/S/n", "/S/m", "/S" };

	host_case("freezer", "freezer", freezer_script, NELEM(freezer_script), dirs,
		  NELEM(dirs), 0);
	/* Thaw in case a mismatch left the scratch cgroup frozen (rmdir above). */
}

static void test_cpu(void)
{
	static const char *const dirs[] = { "/S/c", "/S/d", "/S" };

	host_case("cpu", "cpu", cpu_script, NELEM(cpu_script), dirs, NELEM(dirs), 0);
}

static void test_cpuacct(void)
{
	static const char *const dirs[] = { "/S/c", "/S" };

	host_case("cpuacct", "cpuacct", cpuacct_script, NELEM(cpuacct_script), dirs,
		  NELEM(dirs), 0);
}

static void test_cpuset(void)
{
	static const char *const dirs[] = { "/S/a", "/S/b", "/S/c", "/S" };

	host_case("cpuset", "cpuset", cpuset_script, NELEM(cpuset_script), dirs, NELEM(dirs),
		  0);
}

/* net_cls,net_prio and perf_event: mounted by us under /tmp. */
static void tmp_case(const char *opts, const char *const *script, size_t n,
		     const char *const *dirs, size_t nd)
{
	int before = mismatches, r;

	snprintf(kroot, sizeof(kroot), "/tmp/ucg-probe-A-%d", (int)getpid());
	r = kdiff_mount(kroot, opts);
	if (r < 0) {
		printf("SKIP %s: cannot mount -o %s at %s (%s)\n", t_state.case_name, opts, kroot,
		       strerror(-r));
		t_state.case_skipped = 1;
		return;
	}
	T_EQ_INT(setup(opts, 0), 0);
	if (eng) {
		run(script, n);
		teardown(dirs, nd);
	}
	kdiff_unmount(kroot);
	printf("# %s: %zu lines, %d mismatches\n", opts, n, mismatches - before);
}

static void test_net(void)
{
	static const char *const dirs[] = { "/S/old", "/S/new", "/S/new2", "/S" };

	tmp_case("net_cls,net_prio", net_script, NELEM(net_script), dirs, NELEM(dirs));
}

static void test_perf_event(void)
{
	static const char *const dirs[] = { "/S" };

	tmp_case("perf_event", perf_script, NELEM(perf_script), dirs, NELEM(dirs));
}

int main(void)
{
	const char *why;
	int i;

	if (!kdiff_have_v1(&why)) {
		printf("SKIP kernel differential tests (cpu and task controllers): %s\n", why);
		printf("RESULT passed=0 failed=0 skipped=7\n");
		return 77;
	}
	snprintf(scratch, sizeof(scratch), "ucgdiffA%d", (int)getpid());
	for (i = 0; i < NCHILD; i++)
		child[i] = spawn_child();
	T_RUN(test_pids);
	T_RUN(test_freezer);
	T_RUN(test_cpu);
	T_RUN(test_cpuacct);
	T_RUN(test_cpuset);
	T_RUN(test_net);
	T_RUN(test_perf_event);
	for (i = 0; i < NCHILD; i++) {
		kill(child[i], SIGKILL);
		waitpid(child[i], NULL, 0);
	}
	printf("# %d operations compared, %d mismatches\n", ops, mismatches);
	return t_done();
}
