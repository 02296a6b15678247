/* controllers/test_debug.c — debug: the kernel's v1 file set with stable ids, and
 * engine_stats (docs/kernel/controllers.md §13; formats from kernel source, not observed). */
#include "engine/test_fixture.h"

static void test_files(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "debug");
	struct ucg_hierarchy *o = fx_mount(e, "none,name=o");
	struct ucg_cred me = ucg_cred_root();
	struct ucg_buf b;
	int i;

	fx_proc(e, 10, 0);
	fx_proc(e, 20, 0);
	T_EQ_STR(fx_read(e, h, "/debug.taskcount"), "2\n");
	T_EQ_STR(fx_read(e, h, "/debug.releasable"), "0\n");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/debug.releasable"), "1\n");
	T_EQ_STR(fx_read(e, h, "/a/debug.current_css_set"), "<errno 2>");
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_mkdir(e, o, "/x"), 0);
	T_EQ_INT(fx_write(e, o, "/x/cgroup.procs", "10"), 0);
	T_EQ_STR(fx_read(e, h, "/a/debug.taskcount"), "1\n");
	T_EQ_STR(fx_read(e, h, "/debug.taskcount"), "1\n");
	T_EQ_STR(fx_read(e, h, "/a/debug.releasable"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/debug.cgroup_masks"),
		 "subtree_control  : \nsubtree_ss_mask  : \n");
	/* Sets by creation number: 0 all-roots, 1 {a} (freed), 2 {a, x}. */
	T_EQ_STR(fx_read(e, h, "/a/debug.cgroup_css_links"), "css_set 2 1\n  task 10\n");
	T_EQ_STR(fx_read(e, h, "/debug.cgroup_css_links"),
		 "css_set 0 2 +1\n  task 20\n");
	T_EQ_STR(fx_read(e, h, "/a/debug.cgroup_subsys_states"), "12: debug\t- 3[3] 1 P=1\n");
	T_EQ_STR(fx_read(e, h, "/debug.cgroup_subsys_states"), "12: debug\t- 1[1] 2\n");
	/* The reader's own set (tid 10). */
	me.tid = me.tgid = 10;
	ucg_buf_init(&b);
	T_EQ_INT(ucg_fs_read_all(e, h, "/debug.current_css_set", &me, &b), 0);
	T_EQ_STR(b.data, "css_set 2 1\n12: debug\t- 3[3]\n");
	ucg_buf_reset(&b);
	T_EQ_INT(ucg_fs_read_all(e, h, "/debug.current_css_set_cg_links", &me, &b), 0);
	T_EQ_STR(b.data, "Root 1 group a\nRoot 2 group x\n");
	ucg_buf_reset(&b);
	T_EQ_INT(ucg_fs_read_all(e, h, "/debug.current_css_set_refcount", &me, &b), 0);
	T_EQ_STR(b.data, "1\n");
	ucg_buf_fini(&b);
	/* More than 25 tasks on one set: 26 lines, then the overflow count. */
	for (i = 100; i < 130; i++)
		fx_thread(e, 10, 10, i, 0);
	{
		const char *s = fx_read(e, h, "/a/debug.cgroup_css_links");
		const char *tail = strstr(s, "  ... (");

		T_CHECK(tail != NULL);
		if (tail)
			T_EQ_STR(tail, "  ... (6)\n");
	}
	T_EQ_INT(fx_write(e, h, "/a/debug.taskcount", "1"), -EINVAL);
	ucg_engine_free(e);
}

static void test_engine_stats(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "debug");
	const char *s;

	fx_proc(e, 10, 0);
	fx_proc(e, 20, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(ucg_task_exit(e, 20), 0);
	s = fx_read(e, h, "/debug.engine_stats");
	T_CHECK(strstr(s, "hierarchies 1\ncgroups 2\ncss_sets 2\ncset_links 1\ntasks 1\n"
			  "zombies 1\nmax_tasks_per_css_set 1\nbytes_css_sets ") == s);
	T_EQ_STR(fx_read(e, h, "/a/debug.engine_stats"), "<errno 2>");
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_files);
	T_RUN(test_engine_stats);
	return t_done();
}
