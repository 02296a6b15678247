/* tests/kernel/diff_core.c — the engine against the real kernel, operation by
 * operation.
 *
 * A scratch named hierarchy (`none,name=ucgdiff<pid>`) is mounted under /tmp and the
 * same hierarchy is mounted in an engine. Real child processes are started (one as
 * uid 1001) and told to the engine with their real pids. Then one script of
 * operations — mkdir, rmdir, rename, chmod, chown, stat, reads and writes of the core
 * files, as root and as an unprivileged user, kills that leave zombies — runs on both,
 * and every result (errno, bytes read, mode/owner/link count) must be equal. Mount
 * options are compared the same way against the host's own hierarchies: the engine is
 * given the host's controller bindings first, then each option string is mounted on
 * both. Needs root and cgroup v1; skips with a clear line otherwise.
 */
#include "engine/ucg.h"
#include "harness.h"
#include "kdiff.h"

#include <ctype.h>
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

#define NCHILD 4
#define USER_UID 1001

static char mnt[64];
static char hname[64];
static char mopts[256]; /* the options the scratch hierarchy was mounted with */
static pid_t child[NCHILD];
static int mounted;

/* ---- the kernel side ---------------------------------------------------------------- */

static void kpath(char *out, size_t n, const char *p)
{
	snprintf(out, n, "%s%s", mnt, strcmp(p, "/") ? p : "");
}

/* Runs fn in a child process with uid (and gid) set, returns its -errno result. */
static int as_user(unsigned uid, int (*fn)(const char *, const char *, size_t), const char *path,
		   const char *data, size_t len)
{
	pid_t p;
	int st;

	if (uid == 0)
		return fn(path, data, len);
	p = fork();
	if (p == 0) {
		int r;

		if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
			_exit(200);
		r = fn(path, data, len);
		_exit(r < 0 ? -r : 0);
	}
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -EINTR;
}

static int k_write(const char *path, const char *data, size_t len)
{
	char p[4200];

	kpath(p, sizeof(p), path);
	return kdiff_write(p, data, len);
}

static int k_mkdir(const char *path, const char *data, size_t len)
{
	char p[4200];

	kpath(p, sizeof(p), path);
	return mkdir(p, 0755) < 0 ? -errno : 0;
}

static int k_rmdir(const char *path, const char *data, size_t len)
{
	char p[4200];

	kpath(p, sizeof(p), path);
	return rmdir(p) < 0 ? -errno : 0;
}

static int k_rename(const char *path, const char *to, size_t len)
{
	char a[4200], b[4200];

	kpath(a, sizeof(a), path);
	kpath(b, sizeof(b), to);
	return rename(a, b) < 0 ? -errno : 0;
}

static void k_read(const char *path, char *out, size_t n)
{
	char p[4200];

	kpath(p, sizeof(p), path);
	kdiff_read(p, out, n);
}

static void k_stat(const char *path, char *out, size_t n)
{
	char p[4200];
	struct stat st;

	kpath(p, sizeof(p), path);
	if (stat(p, &st) < 0)
		snprintf(out, n, "<errno %d>", errno);
	else
		snprintf(out, n, "mode %o nlink %lu owner %u:%u", st.st_mode, (unsigned long)st.st_nlink,
			 st.st_uid, st.st_gid);
}

/* ---- the engine side ---------------------------------------------------------------- */

static struct ucg_engine *eng;
static struct ucg_hierarchy *eh;

static struct ucg_cred cred_for(unsigned uid)
{
	return uid ? ucg_cred_user(uid, uid) : ucg_cred_root();
}

static void e_read(const char *path, char *out, size_t n)
{
	kdiff_e_read(eng, eh, path, out, n);
}

static void e_stat(const char *path, char *out, size_t n)
{
	struct ucg_cred c = ucg_cred_root();
	struct ucg_stat st;
	int r = ucg_fs_getattr(eng, eh, path, &c, &st);

	if (r < 0)
		snprintf(out, n, "<errno %d>", -r);
	else
		snprintf(out, n, "mode %o nlink %u owner %u:%u", st.mode, st.nlink, st.uid, st.gid);
}

/* ---- the script --------------------------------------------------------------------- */

/* "$N" in a value stands for the pid of child N. */
static void expand(const char *in, char *out, size_t n)
{
	size_t o = 0;

	for (; *in && o + 16 < n; in++) {
		if (in[0] == '$' && isdigit((unsigned char)in[1])) {
			o += (size_t)snprintf(out + o, n - o, "%d", (int)child[in[1] - '0']);
			in++;
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
}

/* One operation per line: OP[@UID] PATH [VALUE]. VALUE is the rest of the line. */
static const char *const script[] = {
	"stat /",
	"stat /tasks",
	"stat /cgroup.sane_behavior",
	"read /cgroup.sane_behavior",
	"read /release_agent",
	"read /notify_on_release",
	"read /cgroup.clone_children",
	"mkdir /a",
	"mkdir /a/b",
	"mkdir /a",
	"mkdir /tasks",
	"mkdir /cgroup.procs",
	"mkdir /a/release_agent",
	"rmdir /a/release_agent",
	"mkdir /a b:c,d",
	"mkdir /x\ny",
	"mkdir /missing/z",
	"mkdir /tasks/z",
	"stat /a",
	"stat /",
	"stat /a/tasks",
	"stat /a/release_agent",
	"write /a/notify_on_release 1",
	"read /a/notify_on_release",
	"write /a/notify_on_release  1",
	"write /a/notify_on_release 1 ",
	"write /a/notify_on_release 0x10",
	"read /a/notify_on_release",
	"write /a/notify_on_release 09",
	"write /a/notify_on_release -1",
	"write /a/notify_on_release 18446744073709551616",
	"write /a/notify_on_release 18446744073709551615",
	"write /a/notify_on_release 1\n\n",
	"write /a/notify_on_release \n",
	"mkdir /a/inherit",
	"read /a/inherit/notify_on_release",
	"write /cgroup.clone_children 1",
	"mkdir /cc",
	"read /cc/cgroup.clone_children",
	"write /cgroup.clone_children 0",
	"write /release_agent    /a b c  \n",
	"read /release_agent",
	"write /release_agent \n",
	"read /release_agent",
	"write /cgroup.sane_behavior 1",
	"write /a/cgroup.procs $0",
	"read /a/cgroup.procs",
	"read /a/tasks",
	"write /a/b/tasks $1",
	"write /a/b/cgroup.procs  $2\n",
	"read /a/b/tasks",
	"write /a/b/cgroup.procs abc",
	"write /a/b/cgroup.procs \n",
	"write /a/b/cgroup.procs -1",
	"write /a/b/cgroup.procs 2147483648",
	"write /a/b/cgroup.procs 99999999",
	"write /a/b/cgroup.procs $1 $2",
	"write /a/b/cgroup.procs 2",
	"rmdir /a",
	"rmdir /a/b",
	"rmdir /",
	"rmdir /a/tasks",
	"rmdir /nope",
	"rename /a/b /a/b2",
	"read /a/b2/cgroup.procs",
	"rename /a/b2 /cc/b2",
	"rename /a /cc",
	"rename /a /tasks",
	"rename /a/b2 /a/bad\nname",
	"rename /a/tasks /a/t2",
	"rename /a /a",
	"kill 1",
	"read /a/b2/cgroup.procs",
	"read /a/b2/tasks",
	"write /a/cgroup.procs $1",
	"read /a/cgroup.procs",
	"write /a/b2/cgroup.procs $2",
	"rmdir /a/b2",
	"write /a/b2/cgroup.procs $2",
	"chmod /a 0777",
	"stat /a",
	"mkdir@1001 /a/user",
	"stat /a/user",
	"stat /a/user/tasks",
	"rmdir@1001 /a/user",
	"mkdir@1001 /beside",
	"chmod /a/cgroup.procs 0666",
	"write@1001 /a/cgroup.procs $3",
	"write@1001 /a/cgroup.procs $0",
	"write@1001 /cgroup.procs $3",
	"write@1001 /release_agent /x",
	"chown /release_agent 1001",
	"write@1001 /release_agent /x",
	"read /a/cgroup.procs",
	"write /cgroup.procs $0",
	"write /cgroup.procs $3",
	"write /cgroup.procs $2",
	"rmdir /a/inherit",
	"rmdir /a",
	"rmdir /a b:c,d",
	"rmdir /cc",
	"stat /",
};

/* Runs one script line on both sides; returns 1 if the results differ. */
static int run_line(const char *text, size_t i)
{
	{
		char op[32], path[4096], val[4096], line[8192], kres[8192], eres[8192];
		const char *sp, *vp;
		unsigned uid = 0;
		struct ucg_cred c;
		char *at;

		expand(text, line, sizeof(line));
		sp = strchr(line, ' ');
		snprintf(op, sizeof(op), "%.*s", (int)(sp - line), line);
		if ((at = strchr(op, '@'))) {
			uid = (unsigned)atoi(at + 1);
			*at = '\0';
		}
		vp = strchr(sp + 1, ' ');
		if (!strcmp(op, "mkdir") || !strcmp(op, "rmdir") || !strcmp(op, "stat") ||
		    !strcmp(op, "read")) {
			/* The path is the whole rest: names may hold spaces. */
			vp = NULL;
		}
		snprintf(path, sizeof(path), "%.*s", vp ? (int)(vp - sp - 1) : (int)strlen(sp + 1), sp + 1);
		snprintf(val, sizeof(val), "%s", vp ? vp + 1 : "");
		c = cred_for(uid);

		if (!strcmp(op, "read")) {
			k_read(path, kres, sizeof(kres));
			e_read(path, eres, sizeof(eres));
		} else if (!strcmp(op, "stat")) {
			k_stat(path, kres, sizeof(kres));
			e_stat(path, eres, sizeof(eres));
		} else if (!strcmp(op, "kill")) {
			int n = atoi(path), tries;
			char st[256], p[64];

			kill(child[n], SIGKILL);
			/* Wait until it is a zombie (not reaped: we do not wait()). */
			for (tries = 0; tries < 200; tries++) {
				FILE *f;

				snprintf(p, sizeof(p), "/proc/%d/stat", (int)child[n]);
				f = fopen(p, "r");
				st[0] = '\0';
				if (f) {
					if (!fgets(st, sizeof(st), f))
						st[0] = '\0';
					fclose(f);
				}
				if (strstr(st, ") Z "))
					break;
				usleep(5000);
			}
			ucg_task_exit(eng, child[n]);
			snprintf(kres, sizeof(kres), "killed");
			snprintf(eres, sizeof(eres), "killed");
		} else {
			int kr, er;

			if (!strcmp(op, "write")) {
				kr = as_user(uid, k_write, path, val, strlen(val));
				er = ucg_fs_write_all(eng, eh, path, &c, val, strlen(val));
			} else if (!strcmp(op, "mkdir")) {
				kr = as_user(uid, k_mkdir, path, NULL, 0);
				er = ucg_fs_mkdir(eng, eh, path, 0755, &c);
			} else if (!strcmp(op, "rmdir")) {
				kr = as_user(uid, k_rmdir, path, NULL, 0);
				er = ucg_fs_rmdir(eng, eh, path, &c);
			} else if (!strcmp(op, "rename")) {
				kr = as_user(uid, k_rename, path, val, 0);
				er = ucg_fs_rename(eng, eh, path, val, &c);
			} else if (!strcmp(op, "chmod")) {
				char p[4200];

				kpath(p, sizeof(p), path);
				kr = chmod(p, (mode_t)strtoul(val, NULL, 8)) < 0 ? -errno : 0;
				er = ucg_fs_chmod(eng, eh, path, (uint32_t)strtoul(val, NULL, 8), &c);
			} else if (!strcmp(op, "chown")) {
				char p[4200];

				kpath(p, sizeof(p), path);
				kr = chown(p, (uid_t)atoi(val), (gid_t)-1) < 0 ? -errno : 0;
				er = ucg_fs_chown(eng, eh, path, (uint32_t)atoi(val), (uint32_t)-1, &c);
			} else {
				T_FAIL_AT("unknown op %s", op);
				return 1;
			}
			snprintf(kres, sizeof(kres), "%s", kr ? strerror(-kr) : "ok");
			snprintf(eres, sizeof(eres), "%s", er ? strerror(-er) : "ok");
		}
		if (strcmp(kres, eres)) {
			T_FAIL_AT("step %zu `%s`: kernel \"%s\", engine \"%s\"", i, text, kres, eres);
			return 1;
		}
	}
	return 0;
}

static void run_script(void)
{
	size_t i;
	int mismatches = 0;

	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++)
		mismatches += run_line(script[i], i);
	printf("# %zu operations compared, %d mismatches\n", sizeof(script) / sizeof(script[0]),
	       mismatches);
}

static pid_t spawn_child(unsigned uid)
{
	pid_t p = fork();

	if (p == 0) {
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(1);
		for (;;)
			pause();
	}
	return p;
}

static void register_child(pid_t p, unsigned uid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = p;
	ti.ruid = ti.euid = ti.suid = ti.fsuid = uid;
	ti.rgid = ti.egid = ti.sgid = ti.fsgid = uid;
	ucg_task_add(eng, &ti);
}

static void cleanup(void)
{
	int i;

	for (i = 0; i < NCHILD; i++)
		if (child[i] > 0) {
			kill(child[i], SIGKILL);
			waitpid(child[i], NULL, 0);
			child[i] = 0;
		}
	if (mounted) {
		/* Remove whatever the script left, deepest first, then the mount. */
		static const char *const leftovers[] = { "/a/b2", "/a/b", "/a/user", "/a/inherit",
							 "/a b:c,d", "/cc/b2", "/cc", "/a", "/a/release_agent" };
		size_t j;

		for (j = 0; j < sizeof(leftovers) / sizeof(leftovers[0]); j++)
			k_rmdir(leftovers[j], NULL, 0);
		kdiff_unmount_named(mnt, mopts, hname);
		mounted = 0;
	}
	rmdir(mnt);
}

/* The release scenarios' cgroups, deepest first. */
static void cleanup_release(void)
{
	static const char *const left[] = { "/P/x", "/P", "/C", "/N", "/F", "/K" };
	size_t j;

	for (j = 0; j < sizeof(left) / sizeof(left[0]); j++)
		k_rmdir(left[j], NULL, 0);
}

static void test_core_ops_match_kernel(void)
{
	struct ucg_err err;
	int i;

	snprintf(hname, sizeof(hname), "ucgdiff%d", (int)getpid());
	snprintf(mnt, sizeof(mnt), "/tmp/ucg-diff-%d", (int)getpid());
	{
		char opts[96];

		snprintf(opts, sizeof(opts), "none,name=%s", hname);
		if (kdiff_mount(mnt, opts) < 0)
			T_SKIP("cannot mount a scratch cgroup v1 hierarchy under /tmp (no cgroup v1 here)");
		snprintf(mopts, sizeof(mopts), "%s", opts);
		mounted = 1;
		T_EQ_INT(ucg_engine_new(NULL, &eng), 0);
		T_EQ_INT(ucg_mount(eng, opts, &eh, &err), 0);
	}
	{
		/* kthreadd, as the host provider reports it: a kthread that never moves. */
		struct ucg_task_info kt;

		memset(&kt, 0, sizeof(kt));
		kt.tid = kt.tgid = 2;
		kt.flags = UCG_TASK_KTHREAD | UCG_TASK_NO_SETAFFINITY;
		T_EQ_INT(ucg_task_add(eng, &kt), 0);
	}
	for (i = 0; i < NCHILD; i++) {
		unsigned uid = i == 3 ? USER_UID : 0;

		child[i] = spawn_child(uid);
		register_child(child[i], uid);
	}
	usleep(20000); /* let the uid-1001 child finish its setresuid */
	run_script();
	cleanup();
	ucg_engine_free(eng);
	eng = NULL;
}

/* ---- release notification ---------------------------------------------------------- */

/* The kernel runs the agent asynchronously; collect what it logged. */
static void agent_log(const char *log, char *out, size_t n)
{
	FILE *f;
	size_t len = 0;
	char line[512];
	int tries;

	out[0] = '\0';
	for (tries = 0; tries < 100; tries++) { /* up to 1 s for the agent to run */
		struct stat st;

		if (stat(log, &st) == 0 && st.st_size > 0)
			break;
		usleep(10000);
	}
	usleep(100000); /* a second, late call would show up in this window */
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		len += (size_t)snprintf(out + len, n - len, "%s;", line);
	}
	if (f)
		fclose(f);
	unlink(log);
}

static void engine_log(char *out, size_t n)
{
	struct ucg_release r;
	size_t len = 0;

	out[0] = '\0';
	while (ucg_release_next(eng, &r) == 1) {
		len += (size_t)snprintf(out + len, n - len, "%s;", r.path);
		ucg_release_fini(&r);
	}
}

/* Each scenario: setup steps, then the step that should (or should not) release. */
static const char *const release_scenarios[][6] = {
	{ "mkdir /C", "write /C/notify_on_release 1", "write /C/cgroup.procs $0",
	  "write /cgroup.procs $0", NULL },
	{ "mkdir /P", "write /P/notify_on_release 1", "mkdir /P/x", "rmdir /P/x", NULL },
	{ "mkdir /N", "write /N/notify_on_release 1", "rmdir /N", NULL },
	{ "mkdir /F", "write /F/cgroup.procs $0", "write /F/notify_on_release 1",
	  "write /cgroup.procs $0", NULL },
	{ "mkdir /K", "write /K/notify_on_release 1", "write /K/cgroup.procs $2", "kill 2", NULL },
};

static void test_release_agent_matches_kernel(void)
{
	char agent[128], log[128], opts[256], kres[1024], eres[1024];
	size_t i;
	FILE *f;

	snprintf(hname, sizeof(hname), "ucgrel%d", (int)getpid());
	snprintf(mnt, sizeof(mnt), "/tmp/ucg-rel-%d", (int)getpid());
	snprintf(agent, sizeof(agent), "/tmp/ucg-rel-agent-%d.sh", (int)getpid());
	snprintf(log, sizeof(log), "/tmp/ucg-rel-log-%d", (int)getpid());
	f = fopen(agent, "w");
	if (!f)
		T_SKIP("cannot write an agent script under /tmp");
	fprintf(f, "#!/bin/sh\necho \"$1\" >> %s\n", log);
	fclose(f);
	chmod(agent, 0755);
	snprintf(opts, sizeof(opts), "none,name=%s,release_agent=%s", hname, agent);
	if (kdiff_mount(mnt, opts) < 0) {
		unlink(agent);
		T_SKIP("cannot mount a scratch cgroup v1 hierarchy under /tmp");
	}
	snprintf(mopts, sizeof(mopts), "%s", opts);
	mounted = 1;
	T_EQ_INT(ucg_engine_new(NULL, &eng), 0);
	T_EQ_INT(ucg_mount(eng, opts, &eh, NULL), 0);
	for (i = 0; i < NCHILD; i++) {
		child[i] = spawn_child(0);
		register_child(child[i], 0);
	}
	for (i = 0; i < sizeof(release_scenarios) / sizeof(release_scenarios[0]); i++) {
		size_t j;

		unlink(log);
		for (j = 0; release_scenarios[i][j]; j++)
			run_line(release_scenarios[i][j], 0);
		agent_log(log, kres, sizeof(kres));
		engine_log(eres, sizeof(eres));
		printf("# release scenario %zu: agent ran for \"%s\"\n", i, kres);
		if (strcmp(kres, eres))
			T_FAIL_AT("release scenario %zu: kernel ran the agent for \"%s\", engine \"%s\"", i,
				  kres, eres);
	}
	cleanup_release();
	cleanup();
	unlink(agent);
	ucg_engine_free(eng);
	eng = NULL;
}

/* ---- mount options ------------------------------------------------------------------ */

/* Gives the engine the host's v1 hierarchies, as /proc/self/mountinfo shows them. */
static void mirror_host(struct ucg_engine *e)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];

	while (f && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - cgroup cgroup "), *opts, *end;
		struct ucg_hierarchy *h;

		if (!dash)
			continue;
		opts = dash + strlen(" - cgroup cgroup ");
		end = strchr(opts, '\n');
		if (end)
			*end = '\0';
		if (!strncmp(opts, "rw,", 3) || !strncmp(opts, "ro,", 3))
			opts += 3;
		if (ucg_mount(e, opts, &h, NULL) == -EINVAL) {
			/* A name-only hierarchy: "none" is implied by how it was made. */
			char with_none[4200];

			snprintf(with_none, sizeof(with_none), "none,%s", opts);
			ucg_mount(e, with_none, &h, NULL);
		}
	}
	if (f)
		fclose(f);
}

static void test_mount_options_match_kernel(void)
{
	/* Only names this test owns and controllers the host already binds, so the
	 * run never creates a hierarchy for an unbound controller. */
	static const char *const cases[] = {
		"none,name=%s",	     "name=%s",		"none,name=%s,,",      "none,name=%s,noprefix",
		"none",		     "name=%sB",	"cpu",		       "cpu,cpuacct",
		"cpu,name=%s",	     "cpu,name=%sZ",	"",		       "all",
		"all,name=%sZ",	     "all,none",	"all,cpu",	       "none,cpu",
		"bogus",	     "io",		"systemd",	       "Name=x",
		" none",	     "name=",		"name=a/b",	       "name=a b",
		"name=a:b",	     "hugetlb,noprefix,name=%sX", "none,name=%s,cpuset_v2_mode",
		"none,name=%s,xattr", "none,name=%s,favordynmods", "name=systemd",
		"none,name=systemd", "__DEVEL__sane_behavior", "none,name=%sR,release_agent=",
		"name=a,name=b",     "noprefix=1",
	};
	struct ucg_engine *e;
	char dir[64];
	size_t i;

	snprintf(hname, sizeof(hname), "ucgopt%d", (int)getpid());
	snprintf(dir, sizeof(dir), "/tmp/ucg-opt-%d", (int)getpid());
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		T_SKIP("cannot create a scratch mount point under /tmp");
	T_EQ_INT(ucg_engine_new(NULL, &e), 0);
	mirror_host(e);
	/* The request whose name we own must first exist for the reuse cases. */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char opts[256];
		struct ucg_hierarchy *h;
		int kr, er;

		snprintf(opts, sizeof(opts), cases[i], hname);
		kr = mount("cgroup", dir, "cgroup", 0, opts) < 0 ? -errno : 0;
		if (kr == 0) {
			if (umount2(dir, 0) < 0)
				T_FAIL_AT("cannot unmount %s", dir);
		}
		er = ucg_mount(e, opts, &h, NULL);
		if (er == 0)
			ucg_umount(e, h);
		if (kr == -ENODEV && i == 0) {
			ucg_engine_free(e);
			rmdir(dir);
			T_SKIP("the kernel has no cgroup v1 filesystem");
		}
		if (kr != er)
			T_FAIL_AT("mount -o '%s': kernel %s, engine %s", opts, strerror(-kr), strerror(-er));
	}
	ucg_engine_free(e);
	rmdir(dir);
}

int main(void)
{
	const char *why;

	if (!kdiff_have_v1(&why)) {
		printf("SKIP kernel differential tests: %s\n", why);
		printf("RESULT passed=0 failed=0 skipped=3\n");
		return 77;
	}
	T_RUN(test_core_ops_match_kernel);
	T_RUN(test_release_agent_matches_kernel);
	T_RUN(test_mount_options_match_kernel);
	cleanup();
	return t_done();
}
