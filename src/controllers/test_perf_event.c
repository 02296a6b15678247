/* controllers/test_perf_event.c — perf_event: only the core files, membership works
 * (docs/kernel/controllers.md §10). */
#include "engine/test_fixture.h"

static int count(void *ctx, const char *name, const struct ucg_stat *st)
{
	if (strcmp(name, ".") && strcmp(name, ".."))
		++*(int *)ctx;
	return 0;
}

static void test_membership_only(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "perf_event");
	struct ucg_cred root = ucg_cred_root();
	int n = 0;

	T_EQ_INT(ucg_fs_readdir(e, h, "/", &root, count, &n), 0);
	T_EQ_INT(n, 6); /* procs, tasks, notify, clone_children, release_agent, sane */
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	n = 0;
	T_EQ_INT(ucg_fs_readdir(e, h, "/a", &root, count, &n), 0);
	T_EQ_INT(n, 4);
	fx_proc(e, 10, 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_STR(fx_proc_cgroup(e, 10), "1:perf_event:/a\n");
	T_EQ_INT(fx_rmdir(e, h, "/a"), -EBUSY);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_membership_only);
	return t_done();
}
