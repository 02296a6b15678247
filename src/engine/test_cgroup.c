/* engine/test_cgroup.c — the directory tree through the file API: files and modes,
 * mkdir, rmdir, rename, ownership, chmod/chown, boolean files, ENODEV (docs/kernel/core.md §2-§5). */
#include "engine/test_fixture.h"

#include <sys/stat.h>

struct listing {
	char names[64][64];
	uint32_t modes[64];
	int n;
};

static int fill(void *ctx, const char *name, const struct ucg_stat *st)
{
	struct listing *l = ctx;

	if (l->n < 64) {
		snprintf(l->names[l->n], sizeof(l->names[0]), "%s", name);
		l->modes[l->n++] = st->mode;
	}
	return 0;
}

static uint32_t mode_of(struct listing *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return l->modes[i];
	return 0;
}

static void test_root_and_child_files(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct listing l = { 0 };
	struct ucg_stat st;

	T_EQ_INT(fx_mkdir(e, h, "/child"), 0);
	T_EQ_INT(ucg_fs_readdir(e, h, "/", &root, fill, &l), 0);
	T_EQ_INT(l.n, 2 + 6 + 1);
	T_EQ_INT(mode_of(&l, "."), S_IFDIR | 0555);
	T_EQ_INT(mode_of(&l, "cgroup.procs"), S_IFREG | 0644);
	T_EQ_INT(mode_of(&l, "tasks"), S_IFREG | 0644);
	T_EQ_INT(mode_of(&l, "notify_on_release"), S_IFREG | 0644);
	T_EQ_INT(mode_of(&l, "cgroup.clone_children"), S_IFREG | 0644);
	T_EQ_INT(mode_of(&l, "release_agent"), S_IFREG | 0644);
	T_EQ_INT(mode_of(&l, "cgroup.sane_behavior"), S_IFREG | 0444);
	T_EQ_INT(mode_of(&l, "child"), S_IFDIR | 0755);
	memset(&l, 0, sizeof(l));
	T_EQ_INT(ucg_fs_readdir(e, h, "/child", &root, fill, &l), 0);
	T_EQ_INT(l.n, 2 + 4);
	T_EQ_INT(mode_of(&l, "release_agent"), 0);
	T_EQ_INT(mode_of(&l, "cgroup.sane_behavior"), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/", &root, &st), 0);
	T_EQ_INT(st.nlink, 3);
	T_EQ_INT(ucg_fs_getattr(e, h, "/child/tasks", &root, &st), 0);
	T_EQ_INT(st.nlink, 1);
	T_EQ_INT(ucg_fs_getattr(e, h, "/child/release_agent", &root, &st), -ENOENT);
	T_EQ_INT(ucg_fs_getattr(e, h, "/child/tasks/x", &root, &st), -ENOTDIR);
	T_EQ_INT(ucg_fs_readdir(e, h, "/child/tasks", &root, fill, &l), -ENOTDIR);
	T_EQ_STR(fx_read(e, h, "/cgroup.sane_behavior"), "0\n");
	T_EQ_STR(fx_read(e, h, "/release_agent"), "\n");
	T_EQ_STR(fx_read(e, h, "/notify_on_release"), "0\n");
	T_EQ_STR(fx_read(e, h, "/tasks"), "");
	ucg_engine_free(e);
}

static void test_mkdir_rules(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	char longname[4100];
	struct ucg_stat st;

	T_EQ_INT(fx_mkdir(e, h, "/a b:c,d\\e"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/.hidden"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/-dash"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/caf\xc3\xa9"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/new\nline"), -EINVAL);
	T_EQ_INT(fx_mkdir(e, h, "/a b:c,d\\e"), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/tasks"), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/cgroup.procs"), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/release_agent"), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/."), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/.."), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/"), -EEXIST);
	T_EQ_INT(fx_mkdir(e, h, "/-dash/release_agent"), 0); /* not a file in a child */
	T_EQ_INT(fx_mkdir(e, h, "/-dash/cgroup.sane_behavior"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/missing/x"), -ENOENT);
	T_EQ_INT(fx_mkdir(e, h, "/tasks/y"), -ENOTDIR);
	memset(longname, 'L', sizeof(longname));
	longname[0] = '/';
	longname[4071] = '\0'; /* a 4070-byte name: no 255-byte limit */
	T_EQ_INT(fx_mkdir(e, h, longname), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, longname, &root, &st), 0);
	/* Modes: as given (the front end applied the umask), special bits kept. */
	T_EQ_INT(ucg_fs_mkdir(e, h, "/sticky", 01777, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/sticky", &root, &st), 0);
	T_EQ_INT(st.mode, S_IFDIR | 01777);
	T_EQ_INT(ucg_fs_mkdir(e, h, "/private", 0700, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/private", &root, &st), 0);
	T_EQ_INT(st.mode, S_IFDIR | 0700);
	/* A removed name is reusable at once; a parent with tasks may have children. */
	T_EQ_INT(fx_rmdir(e, h, "/private"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/private"), 0);
	fx_proc(e, 10, 0);
	T_EQ_INT(fx_write(e, h, "/private/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/private/inner"), 0);
	ucg_engine_free(e);
}

static void test_inheritance_at_mkdir(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t,clone_children");

	T_EQ_STR(fx_read(e, h, "/cgroup.clone_children"), "1\n");
	T_EQ_INT(fx_write(e, h, "/notify_on_release", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/c"), 0);
	T_EQ_STR(fx_read(e, h, "/c/notify_on_release"), "1\n");
	T_EQ_STR(fx_read(e, h, "/c/cgroup.clone_children"), "1\n");
	T_EQ_INT(fx_write(e, h, "/notify_on_release", "0"), 0);
	T_EQ_STR(fx_read(e, h, "/c/notify_on_release"), "1\n"); /* not propagated */
	T_EQ_INT(fx_mkdir(e, h, "/c/g"), 0);
	T_EQ_STR(fx_read(e, h, "/c/g/notify_on_release"), "1\n"); /* copies its own parent */
	T_EQ_INT(fx_mkdir(e, h, "/d"), 0);
	T_EQ_STR(fx_read(e, h, "/d/notify_on_release"), "0\n");
	ucg_engine_free(e);
}

static void test_boolean_files(void)
{
	static const struct {
		const char *in;
		int err;
		const char *out;
	} cases[] = {
		{ "1", 0, "1\n" },     { "0", 0, "0\n" },	 { "1\n", 0, "1\n" },
		{ "+1", 0, "1\n" },    { "0x10", 0, "1\n" },	 { "010", 0, "1\n" },
		{ "5", 0, "1\n" },     { "00", 0, "0\n" },	 { "18446744073709551615", 0, "1\n" },
		{ " 1", -EINVAL, 0 },  { "1 ", -EINVAL, 0 },	 { "1\r", -EINVAL, 0 },
		{ "1\n\n", -EINVAL, 0 }, { "\n", -EINVAL, 0 },	 { "-1", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 }, { "09", -EINVAL, 0 },	 { "18446744073709551616", -ERANGE, 0 },
		{ "0x", -EINVAL, 0 },
	};
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *f = i % 2 ? "/notify_on_release" : "/cgroup.clone_children";
		char before[8192];

		snprintf(before, sizeof(before), "%s", fx_read(e, h, f));
		T_EQ_INT(fx_write(e, h, f, cases[i].in), cases[i].err);
		T_EQ_STR(fx_read(e, h, f), cases[i].out ? cases[i].out : before);
	}
	/* Bytes after a NUL are ignored; a zero-length write changes nothing. */
	T_EQ_INT(ucg_fs_write_all(e, h, "/notify_on_release", &root, "0\0junk", 6), 0);
	T_EQ_STR(fx_read(e, h, "/notify_on_release"), "0\n");
	T_EQ_INT(ucg_fs_write_all(e, h, "/notify_on_release", &root, "", 0), 0);
	T_EQ_STR(fx_read(e, h, "/notify_on_release"), "0\n");
	ucg_engine_free(e);
}

static void test_write_limits(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	static char big[4097];

	memset(big, ' ', sizeof(big));
	big[0] = '1';
	T_EQ_INT(ucg_fs_write_all(e, h, "/notify_on_release", &root, big, 4097), -E2BIG);
	T_EQ_INT(ucg_fs_write_all(e, h, "/notify_on_release", &root, big, 4096), -EINVAL);
	/* release_agent: stripped, up to 4095 bytes, E2BIG from 4096. */
	T_EQ_INT(fx_write(e, h, "/release_agent", "   /a b c  \n"), 0);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "/a b c\n");
	T_EQ_INT(fx_write(e, h, "/release_agent", "rel/a"), 0);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "rel/a\n");
	memset(big, 'x', sizeof(big));
	T_EQ_INT(ucg_fs_write_all(e, h, "/release_agent", &root, big, 4096), -E2BIG);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "rel/a\n");
	T_EQ_INT(ucg_fs_write_all(e, h, "/release_agent", &root, big, 4095), 0);
	T_EQ_INT(strlen(fx_read(e, h, "/release_agent")), 4096);
	T_EQ_INT(fx_write(e, h, "/release_agent", "\n"), 0);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "\n");
	T_EQ_INT(fx_write(e, h, "/release_agent", ""), 0);
	/* sane_behavior: no write handler, root gets EINVAL at write. */
	T_EQ_INT(fx_write(e, h, "/cgroup.sane_behavior", "1"), -EINVAL);
	ucg_engine_free(e);
}

static void test_release_agent_needs_cap(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 100);
	struct ucg_cred capuser = ucg_cred_user(1001, 100);

	T_EQ_INT(ucg_fs_chown(e, h, "/release_agent", 1001, 100, &root), 0);
	T_EQ_INT(fx_write_as(e, h, "/release_agent", &user, "/x"), -EPERM);
	capuser.caps = UCG_CAP_SYS_ADMIN;
	T_EQ_INT(fx_write_as(e, h, "/release_agent", &capuser, "/x"), 0);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "/x\n");
	/* Others fail to open sane_behavior for writing (0444). */
	T_EQ_INT(fx_write_as(e, h, "/cgroup.sane_behavior", &user, "1"), -EACCES);
	ucg_engine_free(e);
}

static void test_rmdir_rules(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/busy"), 0);
	T_EQ_INT(fx_write(e, h, "/busy/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/busy"), -EBUSY);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/p"), -EBUSY);
	T_EQ_INT(fx_rmdir(e, h, "/"), -EBUSY);
	T_EQ_INT(fx_rmdir(e, h, "/p/."), -EINVAL);
	T_EQ_INT(fx_rmdir(e, h, "/p/.."), -ENOTEMPTY);
	T_EQ_INT(fx_rmdir(e, h, "/p/tasks"), -ENOTDIR);
	T_EQ_INT(fx_rmdir(e, h, "/nope"), -ENOENT);
	T_EQ_INT(fx_rmdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/p"), 0);
	/* Only zombies left: rmdir works. */
	T_EQ_INT(ucg_task_exit(e, 10), 0);
	T_EQ_INT(fx_rmdir(e, h, "/busy"), 0);
	ucg_engine_free(e);
}

static void test_rename_rules(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/x"), 0);
	T_EQ_INT(fx_write(e, h, "/a/x/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_fs_rename(e, h, "/a/x", "/a/y", &root), 0);
	T_EQ_STR(fx_read(e, h, "/a/y/tasks"), "10\n");
	T_EQ_STR(fx_proc_cgroup(e, 10), "1:name=t:/a/y\n");
	T_EQ_INT(ucg_fs_rename(e, h, "/a/y", "/b/y", &root), -EIO);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/b/a", &root), -EIO);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/b", &root), -EEXIST);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/tasks", &root), -ENOTDIR);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/new\nline", &root), -EINVAL);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/a", &root), 0);
	T_EQ_INT(ucg_fs_rename(e, h, "/", "/z", &root), -EBUSY);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/a/y/z", &root), -EINVAL);
	T_EQ_INT(ucg_fs_rename(e, h, "/tasks", "/t2", &root), -ENOTDIR);
	T_EQ_INT(ucg_fs_rename(e, h, "/missing", "/m2", &root), -ENOENT);
	T_EQ_INT(ucg_fs_rename(e, h, "/a", "/renamed", &root), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_proc_cgroup(e, 10), "1:name=t:/renamed/y\n");
	ucg_engine_free(e);
}

static void test_other_entry_ops(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_file *f;

	T_EQ_INT(fx_mkdir(e, h, "/x"), 0);
	T_EQ_INT(ucg_fs_create(e, h, "/x/f", &root), -EACCES);
	T_EQ_INT(ucg_fs_open(e, h, "/x/f", O_WRONLY | O_CREAT, &root, &f), -EACCES);
	T_EQ_INT(ucg_fs_unlink(e, h, "/x/tasks", &root), -EPERM);
	T_EQ_INT(ucg_fs_unlink(e, h, "/x/none", &root), -ENOENT);
	T_EQ_INT(ucg_fs_unlink(e, h, "/x", &root), -EISDIR);
	/* O_TRUNC and O_APPEND are harmless. */
	T_EQ_INT(ucg_fs_open(e, h, "/x/notify_on_release", O_WRONLY | O_TRUNC | O_APPEND, &root, &f), 0);
	T_EQ_INT(ucg_fs_write(f, "1", 1), 1);
	ucg_fs_release(f);
	T_EQ_STR(fx_read(e, h, "/x/notify_on_release"), "1\n");
	ucg_engine_free(e);
}

static void test_removed_cgroup_files(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_file *rf, *wf;
	char buf[16];

	T_EQ_INT(fx_mkdir(e, h, "/gone"), 0);
	T_EQ_INT(ucg_fs_open(e, h, "/gone/notify_on_release", O_RDONLY, &root, &rf), 0);
	T_EQ_INT(ucg_fs_open(e, h, "/gone/cgroup.procs", O_WRONLY, &root, &wf), 0);
	T_EQ_INT(fx_rmdir(e, h, "/gone"), 0);
	T_EQ_INT(ucg_fs_read(rf, buf, sizeof(buf), 0), -ENODEV);
	T_EQ_INT(ucg_fs_write(wf, "abc", 3), -ENODEV); /* ENODEV before the parse error */
	T_EQ_INT(ucg_fs_open(e, h, "/gone/tasks", O_RDONLY, &root, &wf), -ENOENT);
	ucg_fs_release(wf);
	/* The name is free again while the old files are still open. */
	T_EQ_INT(fx_mkdir(e, h, "/gone"), 0);
	T_EQ_STR(fx_read(e, h, "/gone/notify_on_release"), "0\n");
	/* The open file keeps answering ENODEV after its hierarchy is destroyed, and
	 * releasing it then frees the last of the hierarchy's memory. */
	T_EQ_INT(fx_rmdir(e, h, "/gone"), 0);
	T_EQ_INT(ucg_umount(e, h), 0);
	T_EQ_INT(ucg_fs_read(rf, buf, sizeof(buf), 0), -ENODEV);
	ucg_fs_release(rf);
	ucg_engine_free(e);
}

static void test_delegation(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 100);
	struct ucg_stat st;

	T_EQ_INT(fx_mkdir(e, h, "/cg"), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/cg", 1001, (uint32_t)-1, &root), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/cg/cgroup.procs", 1001, (uint32_t)-1, &root), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/cg/tasks", 1001, (uint32_t)-1, &root), 0);
	/* mkdir below: owned by the user's fsuid:fsgid throughout. */
	T_EQ_INT(ucg_fs_mkdir(e, h, "/cg/sub", 0755, &user), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/cg/sub", &root, &st), 0);
	T_EQ_INT(st.uid, 1001);
	T_EQ_INT(st.gid, 100);
	T_EQ_INT(ucg_fs_getattr(e, h, "/cg/sub/tasks", &root, &st), 0);
	T_EQ_INT(st.uid, 1001);
	T_EQ_INT(st.gid, 100);
	T_EQ_INT(ucg_fs_rename(e, h, "/cg/sub", "/cg/sub2", &user), 0);
	T_EQ_INT(ucg_fs_rmdir(e, h, "/cg/sub2", &user), 0);
	T_EQ_INT(ucg_fs_rename(e, h, "/cg", "/cg2", &user), -EACCES);
	T_EQ_INT(ucg_fs_rmdir(e, h, "/cg", &user), -EACCES);
	T_EQ_INT(ucg_fs_mkdir(e, h, "/beside", 0755, &user), -EACCES);
	T_EQ_INT(fx_write_as(e, h, "/cg/notify_on_release", &user, "1"), -EACCES);
	/* chmod/chown: owner or capability; the group only to one's own group. */
	T_EQ_INT(ucg_fs_chmod(e, h, "/cg/tasks", 0600, &user), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/cg/notify_on_release", 0666, &user), -EPERM);
	T_EQ_INT(ucg_fs_chown(e, h, "/cg/tasks", 1002, (uint32_t)-1, &user), -EPERM);
	T_EQ_INT(ucg_fs_chown(e, h, "/cg/tasks", (uint32_t)-1, 100, &user), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/cg/tasks", (uint32_t)-1, 5, &user), -EPERM);
	T_EQ_INT(ucg_fs_chmod(e, h, "/", 0755, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/", &root, &st), 0);
	T_EQ_INT(st.mode, S_IFDIR | 0755);
	/* Root bypasses DAC: reads a 0000 file, writes a 0444 one (handler decides). */
	T_EQ_INT(ucg_fs_chmod(e, h, "/cg/notify_on_release", 0, &root), 0);
	T_EQ_STR(fx_read(e, h, "/cg/notify_on_release"), "0\n");
	ucg_engine_free(e);
}

/* A file's mode and owner are its own from the first chmod/chown: the directory's
 * chown and a sibling file's chmod leave it as created (the table is kept only once a
 * file differs, so this is where a shared default would show). */
static void test_file_attrs_are_per_file(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 100);
	struct ucg_stat st;

	T_EQ_INT(ucg_fs_mkdir(e, h, "/u", 0755, &user), -EACCES);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/a", 1001, 100, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpu.shares", &root, &st), 0);
	T_EQ_INT(st.uid, 0);
	T_EQ_INT(st.mode, S_IFREG | 0644);
	/* refused: nothing changes */
	T_EQ_INT(ucg_fs_chmod(e, h, "/a/cpu.shares", 0600, &user), -EPERM);
	T_EQ_INT(ucg_fs_chown(e, h, "/a/tasks", 1001, (uint32_t)-1, &user), -EPERM);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/tasks", &root, &st), 0);
	T_EQ_INT(st.uid, 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/a/cpu.shares", 0600, &root), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/a/tasks", 1001, 100, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpu.shares", &root, &st), 0);
	T_EQ_INT(st.mode, S_IFREG | 0600);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/tasks", &root, &st), 0);
	T_EQ_INT(st.uid, 1001);
	T_EQ_INT(st.mode, S_IFREG | 0644);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cgroup.procs", &root, &st), 0);
	T_EQ_INT(st.uid, 0);
	T_EQ_INT(st.mode, S_IFREG | 0644);
	/* a sibling made by the user after delegation: the user's files */
	T_EQ_INT(ucg_fs_mkdir(e, h, "/a/b", 0755, &user), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/b/cpu.shares", &root, &st), 0);
	T_EQ_INT(st.uid, 1001);
	T_EQ_INT(st.gid, 100);
	/* a rename keeps them; the name moves out of the cgroup's block */
	T_EQ_INT(ucg_fs_rename(e, h, "/a/b", "/a/a-much-longer-name-than-before", &user), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/a-much-longer-name-than-before/tasks", &root, &st), 0);
	T_EQ_INT(st.uid, 1001);
	T_EQ_INT(ucg_fs_rename(e, h, "/a/a-much-longer-name-than-before", "/a/c", &user), 0);
	T_EQ_INT(ucg_fs_rmdir(e, h, "/a/c", &user), 0);
	ucg_engine_free(e);
}

static void test_search_permission(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 100);
	struct ucg_stat st;

	T_EQ_INT(ucg_fs_mkdir(e, h, "/closed", 0700, &root), 0);
	T_EQ_INT(fx_mkdir(e, h, "/closed/in"), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/closed", &user, &st), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/closed/in", &user, &st), -EACCES);
	T_EQ_INT(ucg_fs_getattr(e, h, "/closed/tasks", &user, &st), -EACCES);
	ucg_engine_free(e);
}

/* ucg_fs_ino_path: inode numbers name the same entry across renames, never a removed
 * one, and a number past a directory's file table names nothing. */
static void ino_path_is(struct ucg_hierarchy *h, uint64_t ino, const char *want)
{
	struct ucg_buf b;

	ucg_buf_init(&b);
	T_EQ_INT(ucg_fs_ino_path(h, ino, &b), 0);
	T_EQ_STR(b.data ? b.data : "", want);
	ucg_buf_fini(&b);
}

static void test_ino_path(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat rs, ds, fs, rfs;
	struct ucg_buf b;

	ucg_buf_init(&b);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/", &root, &rs), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/b", &root, &ds), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/b/tasks", &root, &fs), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/release_agent", &root, &rfs), 0);
	ino_path_is(h, rs.ino, "/");
	ino_path_is(h, rfs.ino, "/release_agent");
	ino_path_is(h, ds.ino, "/a/b");
	ino_path_is(h, fs.ino, "/a/b/tasks");
	T_EQ_INT(ucg_fs_rename(e, h, "/a/b", "/a/c", &root), 0);
	ino_path_is(h, ds.ino, "/a/c");
	ino_path_is(h, fs.ino, "/a/c/tasks");
	T_EQ_INT(ucg_fs_ino_path(h, ds.ino + 0xff, &b), -ENOENT); /* past the table */
	T_EQ_INT(ucg_fs_rmdir(e, h, "/a/c", &root), 0);
	T_EQ_INT(ucg_fs_ino_path(h, ds.ino, &b), -ENOENT);
	T_EQ_INT(ucg_fs_ino_path(h, fs.ino, &b), -ENOENT);
	T_EQ_INT(fx_mkdir(e, h, "/a/c"), 0);
	T_EQ_INT(ucg_fs_ino_path(h, ds.ino, &b), -ENOENT); /* a new cgroup, a new number */
	T_EQ_INT((int)b.len, 0);
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_root_and_child_files);
	T_RUN(test_mkdir_rules);
	T_RUN(test_inheritance_at_mkdir);
	T_RUN(test_boolean_files);
	T_RUN(test_write_limits);
	T_RUN(test_release_agent_needs_cap);
	T_RUN(test_rmdir_rules);
	T_RUN(test_rename_rules);
	T_RUN(test_other_entry_ops);
	T_RUN(test_removed_cgroup_files);
	T_RUN(test_delegation);
	T_RUN(test_file_attrs_are_per_file);
	T_RUN(test_search_permission);
	T_RUN(test_ino_path);
	return t_done();
}
