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
 *   fork_storm       a storm of ROUNDS forks, one worker forking on every CPU at once,
 *                    from a process attached through an engine fed by the host
 *                    provider (host/host.h: the connector's fork and exit events,
 *                    drained as they come, as the daemon does) with the observer; timed
 *                    until the engine has applied the last event. Each child exits at
 *                    once but one in ten, which waits so that the check below sees live
 *                    processes of the storm. kernel.* the same storm in a plain v2 leaf
 *   forks_lost       after the storm, and again once its waiting children are released
 *                    and reaped: the processes the kernel has in the storm's leaf that
 *                    the engine's cgroup.procs does not list, plus the ones it lists
 *                    that no longer exist. Must be 0 (the exit status is 1 otherwise)
 *
 * Needs root and a writable cgroup2 mount; works in a scratch subtree
 * (ucgbench-v2-PID) removed at the end. Prints "name value unit" lines; a figure the
 * host cannot give (no process-events connector) is a "# skip: ..." line instead.
 */
#include "bench_util.h"

#include "engine/ucg.h"
#include "host/cgv2.h"
#include "host/host.h"
#include "host/v2obs.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

/* ---- the fork storm ------------------------------------------------------------- */

#define STORM_KEEP 10 /* one child in STORM_KEEP waits for the release */

/* A process that runs one storm on command: 'g' forks it, 'r' releases the children
 * that wait, EOF ends it. Each command is answered 'd' (done) or 'f' (a fork failed). */
struct leader {
	pid_t pid;
	int cmd, ack; /* our ends */
};

static void storm_worker(int gate, int forks)
{
	int j, exiting = 0;

	for (j = 0; j < forks; j++) {
		pid_t c = fork();

		if (c == 0) {
			char x;

			if (j % STORM_KEEP == STORM_KEEP - 1)
				while (read(gate, &x, 1) < 0 && errno == EINTR)
					;
			_exit(0);
		}
		if (c < 0)
			_exit(3);
		if (j % STORM_KEEP != STORM_KEEP - 1)
			exiting++;
	}
	while (exiting > 0) /* the ones that wait are the leader's once we are gone */
		if (wait(NULL) > 0 || errno != EINTR)
			exiting--;
	_exit(0);
}

/* Starts the workers and waits for them (their waiting children are not done yet).
 * 'd', or 'f' if a fork failed. */
static char storm_run(int gate[2], int cmd, int ack, int workers, int forks)
{
	pid_t *pids = calloc((size_t)workers, sizeof(*pids));
	char answer = 'd';
	int w;

	if (!pids || pipe(gate) < 0) {
		free(pids);
		return 'f';
	}
	for (w = 0; w < workers; w++) {
		pids[w] = fork();
		if (pids[w] == 0) {
			close(gate[1]);
			close(cmd);
			close(ack);
			storm_worker(gate[0], forks / workers + (w < forks % workers));
		}
	}
	close(gate[0]);
	for (w = 0; w < workers; w++) {
		int st = 0;

		if (pids[w] < 0)
			answer = 'f';
		else
			while (waitpid(pids[w], &st, 0) < 0 && errno == EINTR)
				;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			answer = 'f';
	}
	free(pids);
	return answer;
}

static void leader_run(int cmd, int ack, int workers, int forks)
{
	int gate[2] = { -1, -1 };
	char c, answer;

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	while (read(cmd, &c, 1) == 1) {
		answer = 'd';
		if (c == 'g') {
			answer = storm_run(gate, cmd, ack, workers, forks);
		} else if (c == 'r') {
			close(gate[1]);
			while (wait(NULL) > 0 || errno == EINTR)
				;
		}
		if (write(ack, &answer, 1) != 1)
			break;
	}
	_exit(0);
}

/* other: a leader started before, whose pipe ends the new one must not hold */
static int leader_start(struct leader *l, int workers, int forks, const struct leader *other)
{
	int cmd[2], ack[2];

	if (pipe(cmd) < 0)
		return -errno;
	if (pipe(ack) < 0) {
		close(cmd[0]);
		close(cmd[1]);
		return -errno;
	}
	l->pid = fork();
	if (l->pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		if (other) {
			close(other->cmd);
			close(other->ack);
		}
		leader_run(cmd[0], ack[1], workers, forks);
	}
	close(cmd[0]);
	close(ack[1]);
	l->cmd = cmd[1];
	l->ack = ack[0];
	if (l->pid < 0) {
		close(l->cmd);
		close(l->ack);
		return -errno;
	}
	return 0;
}

static void leader_stop(struct leader *l)
{
	close(l->cmd);
	close(l->ack);
	waitpid(l->pid, NULL, 0);
}

/* The daemon's provider sync (fs/provider.c): queued events, reaped zombies, and
 * without process events the kernel's leaves. */
struct storm_host {
	struct ucg_host *host;
	struct ucg_v2obs *o;
	int syncing;
};

static void storm_sync(void *ctx, struct ucg_engine *e)
{
	struct storm_host *s = ctx;

	if (s->syncing)
		return;
	s->syncing = 1;
	ucg_host_drain(s->host, e);
	ucg_host_reap_check(s->host, e);
	if (ucg_host_polled(s->host) && s->o)
		ucg_v2obs_restore(s->o);
	s->syncing = 0;
}

static const struct ucg_provider_ops storm_ops = { .sync = storm_sync };

/* Sends command c and waits for the answer; with s, the host's events are applied as
 * they come meanwhile (the daemon's main loop), and once more after it. 0 or -1. */
static int leader_cmd(struct leader *l, char c, struct storm_host *s, struct ucg_engine *e)
{
	char a = 'f';

	if (write(l->cmd, &c, 1) != 1)
		return -1;
	for (;;) {
		int hfd = s ? ucg_host_fd(s->host) : -1, xfd = s ? ucg_host_exit_fd(s->host) : -1;
		struct pollfd p[3] = { { .fd = l->ack, .events = POLLIN },
				       { .fd = hfd, .events = POLLIN },
				       { .fd = xfd, .events = POLLIN } };

		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (s && (p[1].revents || p[2].revents))
			ucg_host_drain(s->host, e);
		if (p[0].revents)
			break;
	}
	if (read(l->ack, &a, 1) != 1)
		return -1;
	if (s)
		storm_sync(s, e);
	return a == 'd' ? 0 : -1;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/* The pids of a cgroup.procs text, sorted; their number, -1 without memory. */
static int pid_list(const struct ucg_buf *text, int **ret)
{
	const char *p = text->data ? text->data : "";
	int n = 0, cap = 64, *v = malloc((size_t)cap * sizeof(*v));
	char *end;

	while (v) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		p = end;
		if (n == cap) {
			int *nv = realloc(v, (size_t)(cap *= 2) * sizeof(*v));

			if (!nv)
				free(v);
			v = nv;
			if (!v)
				break;
		}
		v[n++] = (int)pid;
	}
	if (!v)
		return -1;
	qsort(v, (size_t)n, sizeof(*v), cmp_int);
	*ret = v;
	return n;
}

/* Membership of v1 cgroup dir of h (whose v2 leaf holds `member`) against the kernel:
 * the processes of the leaf the engine does not list, plus the listed ones that no
 * longer exist. -1 if either could not be read. */
static int forks_lost(struct ucg_engine *e, struct ucg_hierarchy *h, struct ucg_v2obs *o,
		      struct ucg_cgv2 *b, const char *dir, pid_t member, int *nkernel)
{
	struct ucg_buf eb, kb;
	char path[4200], leaf[4096];
	int *ev = NULL, *kv = NULL, ne = -1, nk = -1, lost = 0, i;

	ucg_buf_init(&eb);
	ucg_buf_init(&kb);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (ucg_fs_read_all(e, h, path, &root_cred, &eb) == 0 &&
	    ucg_v2obs_leaf(o, member, NULL, leaf, sizeof(leaf)) == 0 &&
	    ucg_cgv2_read(b, leaf, "cgroup.procs", &kb) == 0) {
		ne = pid_list(&eb, &ev);
		nk = pid_list(&kb, &kv);
	}
	ucg_buf_fini(&eb);
	ucg_buf_fini(&kb);
	if (ne < 0 || nk < 0)
		lost = -1;
	for (i = 0; lost >= 0 && i < nk; i++)
		if (!bsearch(&kv[i], ev, (size_t)ne, sizeof(*ev), cmp_int))
			lost++;
	for (i = 0; lost >= 0 && i < ne; i++)
		if (kill(ev[i], 0) < 0 && errno == ESRCH)
			lost++;
	free(ev);
	free(kv);
	*nkernel = nk;
	return lost;
}

/* The storm through ucg: an engine fed by the host provider, the observer, leader l
 * attached to v1 cgroup /s. Prints fork_storm; returns forks lost, or -1 (skipped). */
static int storm_ucg(struct ucg_cgv2 *b, struct leader *l, int forks)
{
	struct storm_host s = { 0 };
	struct ucg_engine_config cfg = { .provider = &storm_ops, .provider_ctx = &s };
	struct ucg_host_stats st0, st1;
	struct ucg_engine *e = NULL;
	struct ucg_hierarchy *h;
	int r, lost = -1, l1 = -1, l2 = -1, k1 = 0, k2 = 0;
	char pid[16];
	double t0;

	r = ucg_host_new(&s.host);
	if (r < 0) {
		printf("# skip: fork_storm, forks_lost: no process-events connector (%s)\n",
		       strerror(-r));
		return -1;
	}
	r = ucg_engine_new(&cfg, &e);
	r = r ? r : ucg_host_populate(s.host, e);
	r = r ? r : ucg_v2obs_new(e, b, NULL, NULL, &s.o);
	r = r ? r : ucg_mount(e, "freezer,pids,cpu", &h, NULL);
	r = r ? r : ucg_fs_mkdir(e, h, "/s", 0755, &root_cred);
	snprintf(pid, sizeof(pid), "%d", (int)l->pid);
	r = r ? r : ewrite(e, h, "/s/cgroup.procs", pid);
	if (r < 0) {
		printf("# skip: fork_storm, forks_lost: the storm's leader not attached (%s)\n",
		       strerror(-r));
		goto out;
	}
	ucg_host_get_stats(s.host, &st0);
	t0 = bench_now_ns();
	if (leader_cmd(l, 'g', &s, e) < 0) {
		printf("# skip: fork_storm, forks_lost: a fork of the storm failed\n");
		goto out;
	}
	line("fork_storm", forks / ((bench_now_ns() - t0) / 1e9), "forks/s");
	ucg_host_get_stats(s.host, &st1);
	l1 = forks_lost(e, h, s.o, b, "/s", l->pid, &k1);
	if (leader_cmd(l, 'r', &s, e) == 0)
		l2 = forks_lost(e, h, s.o, b, "/s", l->pid, &k2);
	printf("# fork_storm: the engine applied %llu forks and %llu exits (%llu resyncs); "
	       "the leaf held %d processes, then %d once released; lost %d, then %d\n",
	       (unsigned long long)(st1.forks - st0.forks),
	       (unsigned long long)(st1.exits - st0.exits),
	       (unsigned long long)(st1.resyncs - st0.resyncs), k1, k2, l1, l2);
	lost = l1 < 0 || l2 < 0 ? -1 : l1 + l2;
	if (lost < 0)
		printf("# skip: forks_lost: a cgroup.procs could not be read\n");
out:
	leader_stop(l);
	if (e)
		storm_sync(&s, e);
	ucg_v2obs_free(s.o);
	ucg_engine_free(e);
	ucg_host_free(s.host);
	return lost;
}

/* The same storm in a plain v2 leaf: kernel.fork_storm. */
static void storm_kernel(struct ucg_cgv2 *b, struct leader *l, int forks)
{
	double t0;
	int r = ucg_cgv2_attach(b, "/ks/" UCG_V2_LEAF, l->pid);

	if (r < 0) {
		printf("# skip: kernel.fork_storm: attach (%s)\n", strerror(-r));
	} else {
		t0 = bench_now_ns();
		if (leader_cmd(l, 'g', NULL, NULL) < 0)
			printf("# skip: kernel.fork_storm: a fork of the storm failed\n");
		else
			line("kernel.fork_storm", forks / ((bench_now_ns() - t0) / 1e9), "forks/s");
		leader_cmd(l, 'r', NULL, NULL);
	}
	leader_stop(l);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2000, i, r, lost = -1;
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

	/* the fork storm through ucg, then in a plain v2 leaf; both leaders forked alike */
	{
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		int workers = ncpu > 0 ? (int)ncpu : 1;
		struct leader lu, lk;

		if ((r = leader_start(&lu, workers, n, NULL)) < 0) {
			printf("# skip: fork_storm, forks_lost: fork: %s\n", strerror(-r));
		} else if ((r = leader_start(&lk, workers, n, &lu)) < 0) {
			printf("# skip: fork_storm, forks_lost: fork: %s\n", strerror(-r));
			leader_stop(&lu);
		} else {
			lost = storm_ucg(b, &lu, n);
			storm_kernel(b, &lk, n);
			if (lost >= 0)
				line("forks_lost", lost, "count");
		}
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
		busy |= ucg_cgv2_read(b, "/s/.ucg", "cgroup.procs", &procs) == 0 && procs.len;
		busy |= ucg_cgv2_read(b, "/ks/.ucg", "cgroup.procs", &procs) == 0 && procs.len;
		ucg_buf_fini(&procs);
		if (!busy)
			break;
		usleep(10000);
	}
	ucg_cgv2_close(b, 1);
	return lost > 0;
}
