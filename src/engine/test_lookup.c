/* engine/test_lookup.c — path lookup through the hierarchy's dircache (dircache.h) and
 * its fallbacks, and whole-file reads (ucg_fs_read_all without an open file): a cached
 * directory must give what walking the path gives, after rmdir, rename, chmod, new
 * cgroups, any spelling of the path, more directories than the cache holds. */
#include "engine/test_fixture.h"
#include "engine/cgroup.h"

#include <stdio.h>

/* Each cgroup tells itself apart by its notify_on_release value. */
static void mark(struct ucg_engine *e, struct ucg_hierarchy *h, const char *dir, const char *v)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/notify_on_release", dir);
	T_EQ_INT(fx_write(e, h, p, v), 0);
}

static void test_rmdir_and_new_cgroup(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	mark(e, h, "/a/b", "1");
	T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release"), "1\n"); /* "/a/b/" cached */
	T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release"), "1\n"); /* a hit */
	T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
	T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release"), "<errno 2>");
	T_EQ_INT(fx_write(e, h, "/a/b/notify_on_release", "1"), -ENOENT);
	T_EQ_INT(fx_mkdir(e, h, "/a/b/c"), -ENOENT);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0); /* the same name, a new cgroup */
	T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release"), "0\n");
	/* a new sibling changes no resolved path: the cached one still answers */
	T_EQ_INT(fx_mkdir(e, h, "/a/b2"), 0);
	mark(e, h, "/a/b2", "1");
	T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/b2/notify_on_release"), "1\n");
	ucg_engine_free(e);
}

static void test_rename(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();

	T_EQ_INT(fx_mkdir(e, h, "/x"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/x/y"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/x/y/z"), 0);
	mark(e, h, "/x/y/z", "1");
	T_EQ_STR(fx_read(e, h, "/x/y/z/notify_on_release"), "1\n");
	T_EQ_STR(fx_read(e, h, "/x/y/notify_on_release"), "0\n");
	/* an ancestor renamed: every cached path through it is gone */
	T_EQ_INT(ucg_fs_rename(e, h, "/x/y", "/x/w", &root), 0);
	T_EQ_STR(fx_read(e, h, "/x/y/z/notify_on_release"), "<errno 2>");
	T_EQ_STR(fx_read(e, h, "/x/y/notify_on_release"), "<errno 2>");
	T_EQ_STR(fx_read(e, h, "/x/w/z/notify_on_release"), "1\n");
	/* and a new cgroup under the old name is the one found there */
	T_EQ_INT(fx_mkdir(e, h, "/x/y"), 0);
	T_EQ_STR(fx_read(e, h, "/x/y/notify_on_release"), "0\n");
	T_EQ_INT(fx_mkdir(e, h, "/x/y/z"), 0);
	T_EQ_STR(fx_read(e, h, "/x/y/z/notify_on_release"), "0\n");
	T_EQ_STR(fx_read(e, h, "/x/w/z/notify_on_release"), "1\n");
	ucg_engine_free(e);
}

/* Permissions are checked on every lookup, cached or not, in the walk's order. */
static void test_search_permission_on_hit(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 100);
	struct ucg_buf b;

	ucg_buf_init(&b);
	T_EQ_INT(fx_mkdir(e, h, "/o"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/o/in"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/o/in/deep"), 0);
	T_EQ_INT(ucg_fs_read_all(e, h, "/o/in/deep/notify_on_release", &user, &b), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/o", 0700, &root), 0);
	T_EQ_INT(ucg_fs_read_all(e, h, "/o/in/deep/notify_on_release", &user, &b), -EACCES);
	T_EQ_INT(ucg_fs_chmod(e, h, "/o", 0755, &root), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/o/in/deep", 0700, &root), 0); /* the cached dir itself */
	T_EQ_INT(ucg_fs_read_all(e, h, "/o/in/deep/notify_on_release", &user, &b), -EACCES);
	T_EQ_STR(fx_read(e, h, "/o/in/deep/notify_on_release"), "0\n");
	T_EQ_INT(ucg_fs_chmod(e, h, "/o/in/deep", 0755, &root), 0);
	ucg_buf_reset(&b);
	T_EQ_INT(ucg_fs_read_all(e, h, "/o/in/deep/notify_on_release", &user, &b), 0);
	T_EQ_STR(b.data ? b.data : "", "0\n");
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

/* Either DAC capability grants search on any directory: a lookup through 0700
 * directories of another owner succeeds with one, fails without (walk and hit). */
static void test_search_by_capability(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 100);
	struct ucg_cred over = user, search = user;
	struct ucg_stat st;
	int i;

	over.caps = UCG_CAP_DAC_OVERRIDE;
	search.caps = UCG_CAP_DAC_READ_SEARCH;
	T_EQ_INT(ucg_fs_mkdir(e, h, "/p", 0700, &root), 0);
	T_EQ_INT(ucg_fs_mkdir(e, h, "/p/q", 0700, &root), 0);
	for (i = 0; i < 2; i++) {
		T_EQ_INT(ucg_fs_getattr(e, h, "/p/q/tasks", &over, &st), 0);
		T_EQ_INT(ucg_fs_getattr(e, h, "/p/q/tasks", &search, &st), 0);
		T_EQ_INT(ucg_fs_getattr(e, h, "/p/q/tasks", &user, &st), -EACCES);
		T_EQ_INT(ucg_fs_getattr(e, h, "/p/q", &user, &st), -EACCES);
		T_EQ_INT(ucg_fs_getattr(e, h, "/p", &user, &st), 0);
	}
	ucg_engine_free(e);
}

/* Other spellings of a path, failures (never cached), a file in the directory part. */
static void test_spellings_and_failures(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;
	int i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	mark(e, h, "/a/b", "1");
	for (i = 0; i < 2; i++) { /* the first fills the cache, the second hits */
		T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release"), "1\n");
		T_EQ_STR(fx_read(e, h, "//a//b//notify_on_release"), "1\n");
		T_EQ_STR(fx_read(e, h, "/a/b/notify_on_release/"), "1\n");
		T_EQ_INT(ucg_fs_getattr(e, h, "/a/b/", &root, &st), 0);
		T_EQ_INT(st.mode, S_IFDIR | 0755);
		T_EQ_INT(ucg_fs_getattr(e, h, "/a/b/tasks/x", &root, &st), -ENOTDIR);
		T_EQ_INT(ucg_fs_getattr(e, h, "/a/tasks/b/x", &root, &st), -ENOTDIR);
		T_EQ_INT(ucg_fs_getattr(e, h, "/a/nope/tasks", &root, &st), -ENOENT);
		T_EQ_INT(ucg_fs_getattr(e, h, "/a/b/nope", &root, &st), -ENOENT);
		T_EQ_INT(fx_mkdir(e, h, "/a/b/tasks/x"), -ENOTDIR);
		T_EQ_INT(fx_mkdir(e, h, "/a/b"), -EEXIST);
	}
	T_EQ_INT(fx_mkdir(e, h, "/a/nope"), 0); /* a failed lookup left nothing behind */
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/nope/tasks", &root, &st), 0);
	ucg_engine_free(e);
}

/* More directories than the cache has slots, and paths longer than its keys. */
static void test_many_and_long(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	char p[512], want[8];
	int i, round;

	for (i = 0; i < 150; i++) {
		snprintf(p, sizeof(p), "/d%d", i);
		T_EQ_INT(fx_mkdir(e, h, p), 0);
		mark(e, h, p, i % 2 ? "1" : "0");
	}
	for (round = 0; round < 2; round++)
		for (i = 0; i < 150; i++) {
			snprintf(p, sizeof(p), "/d%d/notify_on_release", i);
			snprintf(want, sizeof(want), "%d\n", i % 2);
			T_EQ_STR(fx_read(e, h, p), want);
		}
	strcpy(p, "");
	for (i = 0; i < 12; i++) { /* 12 x 20 bytes: past the key room */
		strcat(p, "/a-rather-long-name");
		T_EQ_INT(fx_mkdir(e, h, p), 0);
	}
	mark(e, h, p, "1");
	strcat(p, "/notify_on_release");
	T_EQ_STR(fx_read(e, h, p), "1\n");
	T_EQ_STR(fx_read(e, h, p), "1\n");
	ucg_engine_free(e);
}

/* ucg_cgroup_lookup (the controllers' lookup by path, no permissions) shares the
 * dircache: a repeated lookup gives the same cgroup until rmdir or rename. */
static void test_cgroup_lookup(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_cgroup *a = NULL, *b = NULL, *c = NULL;
	int i;

	T_EQ_INT(fx_mkdir(e, h, "/m"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/m/n"), 0);
	for (i = 0; i < 2; i++) {
		T_EQ_INT(ucg_cgroup_lookup(h, "/m/n", &a), 0);
		T_EQ_INT(ucg_cgroup_lookup(h, "/m/n/", &b), 0);
		T_CHECK(a == b && a && !strcmp(a->name, "n"));
		T_EQ_INT(ucg_cgroup_lookup(h, "/m/n/tasks", &c), -ENOTDIR);
		T_EQ_INT(ucg_cgroup_lookup(h, "/m/x", &c), -ENOENT);
	}
	T_EQ_INT(ucg_fs_rename(e, h, "/m/n", "/m/o", &root), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "/m/n", &c), -ENOENT);
	T_EQ_INT(ucg_cgroup_lookup(h, "/m/o", &c), 0);
	T_CHECK(c == a);
	T_EQ_INT(fx_rmdir(e, h, "/m/o"), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "/m/o", &c), -ENOENT);
	T_EQ_INT(fx_mkdir(e, h, "/m/n"), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "/m/n", &c), 0);
	T_CHECK(c && !strcmp(c->name, "n") && !c->removed);
	ucg_engine_free(e);
}

/* ucg_fs_read_all appends to what out holds, and leaves it as it was on failure or
 * for an empty file (data stays NULL when it was). */
static void test_read_all_out(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_buf b;

	ucg_buf_init(&b);
	T_EQ_INT(ucg_fs_read_all(e, h, "/tasks", &root, &b), 0);
	T_CHECK(b.data == NULL && b.len == 0);
	T_EQ_INT(ucg_fs_read_all(e, h, "/nope", &root, &b), -ENOENT);
	T_CHECK(b.data == NULL && b.len == 0);
	T_EQ_INT(ucg_fs_read_all(e, h, "/notify_on_release", &root, &b), 0);
	T_EQ_INT(ucg_fs_read_all(e, h, "/cgroup.clone_children", &root, &b), 0);
	T_EQ_STR(b.data, "0\n0\n");
	T_EQ_INT(ucg_fs_read_all(e, h, "/tasks", &root, &b), 0);
	T_EQ_INT(ucg_fs_read_all_flags(e, h, "/notify_on_release", O_WRONLY, &root, &b), -EBADF);
	T_EQ_STR(b.data, "0\n0\n");
	ucg_buf_reset(&b);
	T_EQ_INT(ucg_fs_read_all_flags(e, h, "/notify_on_release", O_WRONLY, &root, &b), -EBADF);
	T_CHECK(b.data != NULL && b.len == 0);
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_rmdir_and_new_cgroup);
	T_RUN(test_rename);
	T_RUN(test_search_permission_on_hit);
	T_RUN(test_search_by_capability);
	T_RUN(test_spellings_and_failures);
	T_RUN(test_many_and_long);
	T_RUN(test_cgroup_lookup);
	T_RUN(test_read_all_out);
	return t_done();
}
