/* cli/cmd_demo.c — `ucg demo`: the seed's shell session, replayed against an
 * in-memory engine with simulated processes, printed as a transcript.
 *
 * It shows the classic model end to end without touching the host: hierarchies
 * mounted with the kernel's option rules, systemd's name=systemd session tree,
 * processes moved by writing to cgroup.procs, a fork following its parent, the
 * kernel's errnos for the usual mistakes, /proc/PID/cgroup, /proc/cgroups and a
 * release notification.
 */
#include "cli/commands.h"
#include "engine/ucg.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct demo {
	struct ucg_engine *e;
	struct ucg_hierarchy *sysd, *cpu;
	struct ucg_cred root;
};

static void mount_h(struct demo *d, const char *opts, const char *dir, struct ucg_hierarchy **ret)
{
	struct ucg_err err;
	int r;

	printf("$ mount -t cgroup -o %s cgroup %s\n", opts, dir);
	r = ucg_mount(d->e, opts, ret, &err);
	if (r < 0)
		printf("mount: %s: %s%s%s%s\n", dir, strerror(-r), err.msg[0] ? " (" : "", err.msg,
		       err.msg[0] ? ")" : "");
}

static void mkdir_p(struct demo *d, struct ucg_hierarchy *h, const char *path)
{
	char buf[512];
	size_t i;

	printf("$ mkdir -p %s\n", path + 1);
	for (i = 1; path[i]; i++) {
		if (path[i] != '/')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		ucg_fs_mkdir(d->e, h, buf, 0755, &d->root);
	}
	ucg_fs_mkdir(d->e, h, path, 0755, &d->root);
}

static void echo(struct demo *d, struct ucg_hierarchy *h, const char *val, const char *path)
{
	int r;

	printf("$ echo %s > %s\n", val, path + 1);
	r = ucg_fs_write_all(d->e, h, path, &d->root, val, strlen(val));
	if (r < 0)
		printf("bash: echo: write error: %s\n", strerror(-r));
}

static void cat(struct demo *d, struct ucg_hierarchy *h, const char *path)
{
	struct ucg_buf b;
	int r;

	printf("$ cat %s\n", path + 1);
	ucg_buf_init(&b);
	r = ucg_fs_read_all(d->e, h, path, &d->root, &b);
	if (r < 0)
		printf("cat: %s: %s\n", path + 1, strerror(-r));
	else if (b.data)
		fputs(b.data, stdout);
	ucg_buf_fini(&b);
}

static void rmdir_(struct demo *d, struct ucg_hierarchy *h, const char *path)
{
	int r;

	printf("$ rmdir %s\n", path + 1);
	r = ucg_fs_rmdir(d->e, h, path, &d->root);
	if (r < 0)
		printf("rmdir: failed to remove '%s': %s\n", path + 1, strerror(-r));
}

static void spawn(struct demo *d, int pid, unsigned uid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = ti.tgid = pid;
	ti.ruid = ti.euid = ti.suid = ti.fsuid = uid;
	ti.rgid = ti.egid = ti.sgid = ti.fsgid = uid;
	ucg_task_add(d->e, &ti);
}

static void fork_(struct demo *d, int parent, int child)
{
	struct ucg_task_info ti;

	ucg_task_get_info(d->e, parent, &ti);
	ti.tid = ti.tgid = child;
	printf("   (process %d forks %d)\n", parent, child);
	ucg_task_fork(d->e, parent, &ti);
}

struct tree_ctx {
	struct demo *d;
	struct ucg_hierarchy *h;
	char path[1024];
	int depth;
};

static void tree(struct demo *d, struct ucg_hierarchy *h, const char *path, int depth);

static int tree_entry(void *ctx, const char *name, const struct ucg_stat *st)
{
	struct tree_ctx *t = ctx;
	char sub[1024];

	if ((st->mode & 0170000) != 0040000 || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	if (snprintf(sub, sizeof(sub), "%s%s%s", t->path, strcmp(t->path, "/") ? "/" : "", name) >=
	    (int)sizeof(sub))
		return 0; /* deeper than the demo's tree */
	tree(t->d, t->h, sub, t->depth + 1);
	return 0;
}

static void tree(struct demo *d, struct ucg_hierarchy *h, const char *path, int depth)
{
	struct tree_ctx t = { d, h, "", depth };
	struct ucg_buf b;
	char tasks[1100];
	int n = 0;

	ucg_buf_init(&b);
	snprintf(tasks, sizeof(tasks), "%s%s", strcmp(path, "/") ? path : "", "/cgroup.procs");
	ucg_fs_read_all(d->e, h, tasks, &d->root, &b);
	for (size_t i = 0; i < b.len; i++)
		n += b.data[i] == '\n';
	printf("%*s%s  [%d process%s]\n", depth * 2, "", depth ? strrchr(path, '/') + 1 : "/", n,
	       n == 1 ? "" : "es");
	ucg_buf_fini(&b);
	snprintf(t.path, sizeof(t.path), "%s", path);
	ucg_fs_readdir(d->e, h, path, &d->root, tree_entry, &t);
}

static void release_agent_runs(struct demo *d)
{
	struct ucg_release r;

	while (ucg_release_next(d->e, &r) == 1) {
		printf("   (the kernel would now run: %s %s)\n", r.agent, r.path);
		ucg_release_fini(&r);
	}
}

int cmd_demo(int argc, char **argv)
{
	struct demo d;
	struct ucg_buf b;
	int pid;

	memset(&d, 0, sizeof(d));
	d.root = ucg_cred_root();
	if (ucg_engine_new(NULL, &d.e) < 0) {
		fprintf(stderr, "ucg: demo: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (pid = 1; pid <= 6; pid++)
		spawn(&d, pid, pid >= 5 ? 1000 : 0);

	puts("# Every hierarchy starts as a root cgroup holding every process.");
	mount_h(&d, "none,name=systemd,release_agent=/usr/lib/systemd/systemd-cgroups-agent",
		"/sys/fs/cgroup/systemd", &d.sysd);
	mount_h(&d, "cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct", &d.cpu);
	puts("\n# The tyranny of choice: a controller lives in one hierarchy only.");
	mount_h(&d, "cpu", "/mnt/other", &(struct ucg_hierarchy *){ NULL });
	mount_h(&d, "none", "/mnt/other", &(struct ucg_hierarchy *){ NULL });

	puts("\n# systemd's login sessions: user.slice/user-UID.slice/session-N.scope");
	mkdir_p(&d, d.sysd, "/user.slice/user-1000.slice/session-1.scope");
	mkdir_p(&d, d.sysd, "/system.slice");
	echo(&d, d.sysd, "1", "/user.slice/user-1000.slice/session-1.scope/notify_on_release");
	echo(&d, d.sysd, "5", "/user.slice/user-1000.slice/session-1.scope/cgroup.procs");
	fork_(&d, 5, 7);
	echo(&d, d.sysd, "6", "/user.slice/user-1000.slice/session-1.scope/cgroup.procs");
	cat(&d, d.sysd, "/user.slice/user-1000.slice/session-1.scope/cgroup.procs");
	echo(&d, d.sysd, "2", "/system.slice/cgroup.procs");
	echo(&d, d.sysd, "99999", "/system.slice/cgroup.procs");
	echo(&d, d.sysd, "abc", "/system.slice/cgroup.procs");
	puts("$ cat /proc/7/cgroup");
	ucg_buf_init(&b);
	ucg_proc_cgroup(d.e, 7, 0, &b);
	fputs(b.data, stdout);

	puts("\n# The usual mistakes get the kernel's errnos.");
	rmdir_(&d, d.sysd, "/user.slice/user-1000.slice/session-1.scope");
	rmdir_(&d, d.sysd, "/user.slice");
	printf("$ mv user.slice/user-1000.slice system.slice/\n");
	{
		int r = ucg_fs_rename(d.e, d.sysd, "/user.slice/user-1000.slice",
				      "/system.slice/user-1000.slice", &d.root);

		if (r < 0)
			printf("mv: cannot move 'user.slice/user-1000.slice' to "
			       "'system.slice/user-1000.slice': %s\n", strerror(-r));
	}
	printf("$ mkdir 'bad\\nname'\n");
	if (ucg_fs_mkdir(d.e, d.sysd, "/bad\nname", 0755, &d.root) < 0)
		puts("mkdir: cannot create directory 'bad\\nname': Invalid argument");

	puts("\n# kill $(cat cgroup.procs): the session's processes exit; the scope empties.");
	ucg_task_exit(d.e, 5);
	ucg_task_exit(d.e, 6);
	ucg_task_exit(d.e, 7);
	cat(&d, d.sysd, "/user.slice/user-1000.slice/session-1.scope/cgroup.procs");
	release_agent_runs(&d);
	rmdir_(&d, d.sysd, "/user.slice/user-1000.slice/session-1.scope");

	puts("\n# The name=systemd tree:");
	tree(&d, d.sysd, "/", 0);
	puts("\n$ cat /proc/cgroups");
	ucg_buf_reset(&b);
	ucg_proc_cgroups(d.e, &b);
	fputs(b.data, stdout);
	ucg_buf_fini(&b);
	ucg_engine_free(d.e);
	return 0;
}
