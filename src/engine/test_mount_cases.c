/* engine/test_mount_cases.c — the mount scenarios gVisor's cgroupfs suite checks
 * (test/syscalls/linux/cgroup.cc), restated on the engine with the errnos the Linux
 * kernel gives, which is what we match where the two differ. A machine laid out as
 * gVisor's sandbox is: cpu, cpuset, cpuacct, devices, memory, pids each bound alone. */
#include "engine/test_fixture.h"

#include <sys/stat.h>

static struct ucg_engine *sandbox(void)
{
	static const char *const alone[] = { "cpu", "cpuset", "cpuacct", "devices", "memory", "pids" };
	struct ucg_engine *e = fx_engine();
	size_t i;

	for (i = 0; i < sizeof(alone) / sizeof(alone[0]); i++)
		fx_mount(e, alone[i]);
	return e;
}

static int try_mount(struct ucg_engine *e, const char *opts)
{
	struct ucg_hierarchy *h;

	return ucg_mount(e, opts, &h, NULL);
}

static void test_invalid_controller(void)
{
	struct ucg_engine *e = sandbox();

	T_EQ_INT(try_mount(e, "this-controller-is-invalid"), -EINVAL);
	ucg_engine_free(e);
}

static void test_all_must_be_exclusive(void)
{
	struct ucg_engine *e = sandbox();

	T_EQ_INT(try_mount(e, "all,cpu"), -EINVAL);
	ucg_engine_free(e);
}

static void test_cannot_mount_all_twice(void)
{
	struct ucg_engine *e = sandbox();

	T_EQ_INT(try_mount(e, ""), -EBUSY); /* everything is bound already */
	ucg_engine_free(e);
}

static void test_named_hierarchies_in_proc(void)
{
	struct ucg_engine *e = sandbox();
	const char *text;

	fx_proc(e, 1, 0);
	fx_mount(e, "none,name=h1");
	fx_mount(e, "none,name=h2");
	text = fx_proc_cgroup(e, 1);
	T_CHECK(strstr(text, ":name=h1:/\n") != NULL);
	T_CHECK(strstr(text, ":name=h2:/\n") != NULL);
	T_CHECK(strstr(text, ":memory:/\n") != NULL);
	/* The newest hierarchy is listed first. */
	T_CHECK(strstr(text, "name=h2") < strstr(text, "name=h1"));
	ucg_engine_free(e);
}

static void test_none_exclusive_and_name_needed(void)
{
	struct ucg_engine *e = sandbox();

	T_EQ_INT(try_mount(e, "none,cpu"), -EINVAL);
	T_EQ_INT(try_mount(e, "none"), -EINVAL);
	ucg_engine_free(e);
}

static void test_name_match_controllers_dont(void)
{
	struct ucg_engine *e = sandbox();

	fx_mount(e, "none,name=h1");
	T_EQ_INT(try_mount(e, "name=h2,memory"), -EBUSY); /* memory is bound elsewhere */
	T_EQ_INT(try_mount(e, "name=h1,memory"), -EBUSY); /* the name matches, the set does not */
	T_EQ_INT(try_mount(e, "name=h2,cpu"), -EBUSY);
	T_EQ_INT(try_mount(e, "name=h1,hugetlb"), -EBUSY); /* even with a free controller */
	ucg_engine_free(e);
}

static void test_unmount_repeated(void)
{
	struct ucg_engine *e = sandbox();
	struct ucg_hierarchy *h = fx_mount(e, "memory");

	/* memory is mounted twice now (sandbox + here): two unmounts succeed. The
	 * hierarchy has no children, so the second destroys it; a third finds no mount. */
	T_EQ_INT(ucg_umount(e, h), 0);
	T_EQ_INT(ucg_hierarchy_mount_count(h), 1);
	T_EQ_INT(fx_mkdir(e, h, "/keep"), 0);
	T_EQ_INT(ucg_umount(e, h), 0);
	T_EQ_INT(ucg_hierarchy_mount_count(h), 0);
	T_EQ_INT(ucg_umount(e, h), -EINVAL);
	ucg_engine_free(e);
}

static void test_mkdir_with_permissions(void)
{
	struct ucg_engine *e = sandbox();
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;

	T_EQ_INT(ucg_fs_mkdir(e, h, "/child1", 0444, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/child1", &root, &st), 0);
	T_EQ_INT(st.mode, S_IFDIR | 0444);
	T_EQ_INT(ucg_fs_mkdir(e, h, "/child2", 0, &root), 0);
	T_EQ_INT(ucg_fs_getattr(e, h, "/child2", &root, &st), 0);
	T_EQ_INT(st.mode, S_IFDIR | 0);
	ucg_engine_free(e);
}

static void test_subcgroup_empty_and_pid_zero(void)
{
	struct ucg_engine *e = sandbox();
	struct ucg_hierarchy *h = fx_mount(e, "memory");
	struct ucg_cred self = ucg_cred_root();

	fx_proc(e, 321, 0);
	self.tid = self.tgid = 321;
	T_EQ_INT(fx_mkdir(e, h, "/child"), 0);
	T_EQ_STR(fx_read(e, h, "/child/cgroup.procs"), "");
	T_EQ_INT(fx_write_as(e, h, "/child/cgroup.procs", &self, "0"), 0);
	T_EQ_STR(fx_read(e, h, "/child/cgroup.procs"), "321\n");
	T_EQ_STR(fx_read(e, h, "/cgroup.procs"), "");
	ucg_engine_free(e);
}

static void test_separate_hierarchies_ids(void)
{
	struct ucg_engine *e = sandbox();
	struct ucg_buf b;

	ucg_buf_init(&b);
	ucg_proc_cgroups(e, &b);
	/* cpu, cpuset, cpuacct, devices, memory, pids: ids 1..6 in mount order. */
	T_CHECK(strstr(b.data, "cpu\t1\t1\t1\n") != NULL);
	T_CHECK(strstr(b.data, "cpuset\t2\t1\t1\n") != NULL);
	T_CHECK(strstr(b.data, "memory\t5\t1\t1\n") != NULL);
	T_CHECK(strstr(b.data, "net_cls\t0\t1\t1\n") != NULL);
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_invalid_controller);
	T_RUN(test_all_must_be_exclusive);
	T_RUN(test_cannot_mount_all_twice);
	T_RUN(test_named_hierarchies_in_proc);
	T_RUN(test_none_exclusive_and_name_needed);
	T_RUN(test_name_match_controllers_dont);
	T_RUN(test_unmount_repeated);
	T_RUN(test_mkdir_with_permissions);
	T_RUN(test_subcgroup_empty_and_pid_zero);
	T_RUN(test_separate_hierarchies_ids);
	return t_done();
}
