/* controllers/test_net_cls.c — net_cls: the classid grammar and truncation, copying
 * at mkdir only, the tc handle (docs/kernel/controllers.md §7). */
#include "controllers/charge.h"
#include "engine/test_fixture.h"

static void test_classid(void)
{
	static const struct {
		const char *in;
		int err;
		const char *reads;
	} cases[] = {
		{ "0x100001", 0, "1048577\n" },	 { "0x00100001", 0, "1048577\n" },
		{ "1048577", 0, "1048577\n" },	 { "0xFFFFFFFF", 0, "4294967295\n" },
		{ "4294967296", 0, "0\n" },	 { "0x100000000", 0, "0\n" },
		{ "010", 0, "8\n" },		 { "5\n", 0, "5\n" },
		{ "-1", -EINVAL, "5\n" },	 { " 5", -EINVAL, "5\n" },
		{ "10:1", -EINVAL, "5\n" },	 { "abc", -EINVAL, "5\n" },
		{ "18446744073709551616", -ERANGE, "5\n" },
	};
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "net_cls");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;
	size_t i;

	T_EQ_STR(fx_read(e, h, "/net_cls.classid"), "0\n");
	T_EQ_INT(ucg_fs_getattr(e, h, "/net_cls.classid", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0644);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		T_EQ_INT(fx_write(e, h, "/a/net_cls.classid", cases[i].in), cases[i].err);
		T_EQ_STR(fx_read(e, h, "/a/net_cls.classid"), cases[i].reads);
	}
	/* The root is writable. */
	T_EQ_INT(fx_write(e, h, "/net_cls.classid", "7"), 0);
	T_EQ_STR(fx_read(e, h, "/net_cls.classid"), "7\n");
	ucg_engine_free(e);
}

static void test_mkdir_copy_and_task(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "net_cls,net_prio");
	uint32_t id = 99;

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/old"), 0);
	T_EQ_INT(fx_write(e, h, "/p/net_cls.classid", "0x20002"), 0);
	T_EQ_STR(fx_read(e, h, "/p/old/net_cls.classid"), "0\n");
	T_EQ_INT(fx_mkdir(e, h, "/p/new"), 0);
	T_EQ_STR(fx_read(e, h, "/p/new/net_cls.classid"), "131074\n");
	T_EQ_INT(ucg_net_cls_classid_get(fx_task_cg(e, 10, UCG_SS_net_cls), &id), 0);
	T_EQ_INT(id, 0);
	T_EQ_INT(fx_write(e, h, "/p/new/net_cls.classid", "0x00100001"), 0);
	T_EQ_INT(fx_write(e, h, "/p/new/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_net_cls_classid_get(fx_task_cg(e, 10, UCG_SS_net_cls), &id), 0);
	T_EQ_INT(id >> 16, 0x10);
	T_EQ_INT(id & 0xffff, 1);
	T_EQ_INT(fx_task_cg_err(e, 11, UCG_SS_net_cls), -ESRCH);
	ucg_engine_free(e);
	/* Unbound: the task has no net_cls cgroup, so no class. */
	e = fx_engine();
	fx_proc(e, 10, 0);
	T_CHECK(fx_task_cg(e, 10, UCG_SS_net_cls) == NULL);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_classid);
	T_RUN(test_mkdir_copy_and_task);
	return t_done();
}
