/* controllers/test_devices.c — the devices controller through the file API
 * (docs/kernel/controllers.md §5). */
#include "controllers/charge.h"
#include "controllers/devices_rules.h"
#include "test_fixture.h"

FX_ONE_MOUNT("devices")

static void test_files_and_defaults(void)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;

	setup();
	T_EQ_STR(fx_read(e, h, "/devices.list"), "a *:* rwm\n");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "a *:* rwm\n");
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/devices.allow", &root, &st), 0);
	T_EQ_INT(st.mode & 07777, 0200);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/devices.deny", &root, &st), 0);
	T_EQ_INT(st.mode & 07777, 0200);
	T_EQ_INT(ucg_fs_getattr(e, h, "/devices.list", &root, &st), 0);
	T_EQ_INT(st.mode & 07777, 0444);
	T_EQ_STR(fx_read(e, h, "/a/devices.allow"), "<errno 22>");
	T_EQ_STR(fx_read(e, h, "/a/devices.deny"), "<errno 22>");
	T_EQ_INT(fx_write(e, h, "/a/devices.list", "a"), -EINVAL);
	teardown();
}

static void test_grammar(void)
{
	static const char *const bad[] = { "x 1:3 r",  "c 1:3",     "c 1:3 rx",	"c 1-3 r",
					   "c 1:3rw",  "c1:3 r",    "c a:3 r",	"c 1: r",
					   "c :3 r",   "c  1:3 r",  "c 1:3  r",	"c 4294967296:1 r",
					   "c -1:1 r", "\n",        "c 1:3 r junk" };
	size_t i;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = fx_write(e, h, "/a/devices.allow", bad[i]);

		if (r != -EINVAL)
			T_FAIL_AT("allow \"%s\" gave %d, want -EINVAL", bad[i], r);
	}
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "");
	/* accepted spellings */
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "c 1:3 rwmm"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "  b 8:* r\n"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "c 1:3 rwm\nb 8:* r\n");
	/* zero-length write: nothing */
	{
		struct ucg_cred root = ucg_cred_root();

		T_EQ_INT(ucg_fs_write_all(e, h, "/a/devices.deny", &root, "", 0), 0);
		T_EQ_STR(fx_read(e, h, "/a/devices.list"), "c 1:3 rwm\nb 8:* r\n");
	}
	teardown();
}

static void test_list_example(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "c 1:3 rwm"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "b 8:* r"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "c *:* m"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "c 1:5 r"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "c 1:5 w"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "c 136:* rw"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"),
		 "c 1:3 rwm\nb 8:* r\nc *:* m\nc 1:5 rw\nc 136:* rw\n");
	/* deny of a wildcard leaves the specific one alone */
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "c 1:* rwm"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "c 1:3 m"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"),
		 "c 1:3 rw\nb 8:* r\nc *:* m\nc 1:5 rw\nc 136:* rw\n");
	/* allow a: back to allow-all, showing a *:* rwm */
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "a *:* rwm\n");
	/* in allow-all the deny exceptions are not shown */
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "c 1:3 w"), 0);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "a *:* rwm\n");
	teardown();
}

static void test_cap_sys_admin(void)
{
	struct ucg_cred c = ucg_cred_root();

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	c.caps &= ~UCG_CAP_SYS_ADMIN;
	T_EQ_INT(fx_write_as(e, h, "/a/devices.deny", &c, "a"), -EPERM);
	T_EQ_INT(fx_write_as(e, h, "/a/devices.deny", &c, "garbage"), -EPERM);
	T_EQ_STR(fx_read(e, h, "/a/devices.list"), "a *:* rwm\n");
	teardown();
}

static void test_a_with_children(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "a"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/devices.allow", "a"), -EINVAL);
	T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_write(e, h, "/a/devices.deny", "a"), 0);
	/* child of a deny-all parent: "a" to allow is EPERM */
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_STR(fx_read(e, h, "/a/b/devices.list"), "");
	T_EQ_INT(fx_write(e, h, "/a/b/devices.allow", "a"), -EPERM);
	teardown();
}

static void test_child_cannot_exceed_parent(void)
{
	static const char *const eperm[] = { "c 1:3 r", "c 1:5 w", "c 1:* r", "b 8:0 r", "a" };
	static const char *const ok[] = { "c 1:5 r", "b 8:0 m", "c 1:3 w" };
	size_t i;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.deny", "a"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:5 r"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:3 wm"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "b *:* m"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	/* the child copied the parent's list at mkdir */
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:5 r\nc 1:3 wm\nb *:* m\n");
	T_EQ_INT(fx_write(e, h, "/p/c/devices.deny", "c 1:5 r"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/devices.deny", "c 1:3 wm"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/devices.deny", "b *:* m"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "");
	for (i = 0; i < sizeof(eperm) / sizeof(eperm[0]); i++) {
		int r = fx_write(e, h, "/p/c/devices.allow", eperm[i]);

		if (r != -EPERM)
			T_FAIL_AT("allow \"%s\" gave %d, want -EPERM", eperm[i], r);
	}
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		T_EQ_INT(fx_write(e, h, "/p/c/devices.allow", ok[i]), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:5 r\nb 8:0 m\nc 1:3 w\n");

	/* allow-all parent: a child may not re-allow the parent's deny exception */
	T_EQ_INT(fx_mkdir(e, h, "/q"), 0);
	T_EQ_INT(fx_write(e, h, "/q/devices.deny", "c 1:3 w"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/q/c"), 0);
	T_EQ_INT(fx_write(e, h, "/q/c/devices.allow", "c 1:3 w"), -EPERM);
	T_EQ_INT(fx_write(e, h, "/q/c/devices.allow", "c 1:* r"), 0); /* no shared bit */
	/* the child's "allow a" copies the parent's deny exceptions */
	T_EQ_INT(fx_write(e, h, "/q/c/devices.allow", "a"), 0);
	T_EQ_INT(fx_write(e, h, "/q/c/devices.allow", "c 1:3 w"), -EPERM);
	teardown();
}

static void test_restriction_propagates(void)
{
	setup();
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.deny", "a"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:5 r"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:3 wm"), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "b *:* m"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c/g"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/devices.deny", "b *:* m"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/devices.allow", "b 8:0 m"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:5 r\nc 1:3 wm\nb 8:0 m\n");

	T_EQ_INT(fx_write(e, h, "/p/devices.deny", "c 1:3 m"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:5 r\nc 1:3 w\nb 8:0 m\n");
	/* g lost "b *:* m" when c denied it, and c's later allow did not reach it */
	T_EQ_STR(fx_read(e, h, "/p/c/g/devices.list"), "c 1:5 r\nc 1:3 w\n");
	T_EQ_INT(fx_write(e, h, "/p/devices.deny", "b *:* m"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:5 r\nc 1:3 w\n");
	T_EQ_STR(fx_read(e, h, "/p/c/g/devices.list"), "c 1:5 r\nc 1:3 w\n");
	T_EQ_INT(fx_write(e, h, "/p/devices.deny", "c 1:5 r"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:3 w\n");
	T_EQ_STR(fx_read(e, h, "/p/c/g/devices.list"), "c 1:3 w\n");
	/* relaxing is not propagated */
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:5 r"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/devices.list"), "c 1:3 w\n");
	teardown();
}

static void test_allow_all_propagation_and_access(void)
{
	setup();
	fx_proc(e, 100, 0);
	fx_proc(e, 101, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "100"), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_WRITE), 0);
	T_EQ_INT(fx_write(e, h, "/p/devices.deny", "c 1:3 w"), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_WRITE), -EPERM);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_READ), 0);
	/* the parent relaxes: the child stays blocked until it allows by itself */
	T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:3 w"), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_WRITE), -EPERM);
	T_EQ_INT(fx_write(e, h, "/p/c/devices.allow", "c 1:3 w"), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_WRITE), 0);
	/* mknod check */
	T_EQ_INT(fx_write(e, h, "/p/c/devices.deny", "c 1:9 m"), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 9, UCG_DEV_ACC_MKNOD), -EPERM);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'c', 1, 5, UCG_DEV_ACC_MKNOD), 0);
	/* a task in the root is unaffected; bad args */
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 101, UCG_SS_devices), 'c', 1, 9, UCG_DEV_ACC_MKNOD), 0);
	T_EQ_INT(fx_task_cg_err(e, 999, UCG_SS_devices), -ESRCH);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 100, UCG_SS_devices), 'x', 1, 9, UCG_DEV_ACC_MKNOD), -EINVAL);
	/* deny-all: all requested bits must be covered by one exception */
	T_EQ_INT(fx_mkdir(e, h, "/d"), 0);
	T_EQ_INT(fx_write(e, h, "/d/devices.deny", "a"), 0);
	T_EQ_INT(fx_write(e, h, "/d/devices.allow", "c 1:* r"), 0);
	T_EQ_INT(fx_write(e, h, "/d/devices.allow", "c 1:3 w"), 0);
	T_EQ_INT(fx_write(e, h, "/d/cgroup.procs", "101"), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 101, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_READ), 0);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 101, UCG_SS_devices), 'c', 1, 3, UCG_DEV_ACC_READ | UCG_DEV_ACC_WRITE),
		 -EPERM);
	T_EQ_INT(ucg_devices_may_access(fx_task_cg(e, 101, UCG_SS_devices), 'b', 1, 3, UCG_DEV_ACC_READ), -EPERM);
	teardown();
}

static void test_alloc_failure(void)
{
	long n;

	/* mkdir copying a list, and a propagating write, under every allocation failure */
	for (n = 0; n < 200; n++) {
		int r1, r2;

		setup();
		T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
		T_EQ_INT(fx_write(e, h, "/p/devices.deny", "a"), 0);
		T_EQ_INT(fx_write(e, h, "/p/devices.allow", "c 1:3 rwm"), 0);
		T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
		ucg_alloc_fail_after(n);
		r1 = fx_mkdir(e, h, "/p/d");
		r2 = fx_write(e, h, "/p/devices.allow", "c 1:4 r");
		ucg_alloc_fail_after(-1);
		if (r1 == 0 && r2 == 0) {
			teardown();
			break;
		}
		T_CHECK(r1 == 0 || r1 == -ENOMEM);
		T_CHECK(r2 == 0 || r2 == -ENOMEM);
		if (r2 < 0)
			T_EQ_STR(fx_read(e, h, "/p/devices.list"), "c 1:3 rwm\n");
		teardown();
	}
	T_CHECK(n < 200);
}

int main(void)
{
	T_RUN(test_files_and_defaults);
	T_RUN(test_grammar);
	T_RUN(test_list_example);
	T_RUN(test_cap_sys_admin);
	T_RUN(test_a_with_children);
	T_RUN(test_child_cannot_exceed_parent);
	T_RUN(test_restriction_propagates);
	T_RUN(test_allow_all_propagation_and_access);
	T_RUN(test_alloc_failure);
	return t_done();
}
