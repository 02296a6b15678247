/* controllers/test_pids.c — pids: files, the max grammar, hierarchical fork limits,
 * where refusals are counted, peak above an ancestor's max, migration (§12). */
#include "engine/test_fixture.h"

static struct ucg_task_info tinfo(int tid, int tgid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = tid;
	ti.tgid = tgid;
	return ti;
}

static int do_fork(struct ucg_engine *e, int parent, int tid)
{
	struct ucg_task_info ti = tinfo(tid, tid);

	return ucg_task_fork(e, parent, &ti);
}

static void test_files(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct ucg_stat st;
	struct ucg_cred root = ucg_cred_root();

	/* The root has none of them. */
	T_EQ_STR(fx_read(e, h, "/pids.max"), "<errno 2>");
	T_EQ_STR(fx_read(e, h, "/pids.current"), "<errno 2>");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.max"), "max\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.peak"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.events"), "max 0\n");
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/pids.max", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0644);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/pids.current", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0444);
	T_EQ_INT(fx_write(e, h, "/a/pids.current", "1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/pids.events", "1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/pids.peak", "1"), -EINVAL);
	/* Not inherited. */
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "3"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_STR(fx_read(e, h, "/a/b/pids.max"), "max\n");
	ucg_engine_free(e);
}

static void test_max_grammar(void)
{
	/* Verified on the kernel (docs/controllers-verified.md A.pids). */
	static const struct {
		const char *in;
		int err;
		const char *reads;
	} cases[] = {
		{ "5", 0, "5\n" },	   { " max ", 0, "max\n" },    { "max\n", 0, "max\n" },
		{ "MAX", -EINVAL, NULL }, { "-1", -EINVAL, NULL },    { "4194304", 0, "4194304\n" },
		{ "4194305", -EINVAL, NULL }, { "0x10", 0, "16\n" }, { "010", 0, "8\n" },
		{ "+7", 0, "7\n" },	   { "-0", 0, "0\n" },	       { "2147483647", -EINVAL, NULL },
		{ "9223372036854775807", -EINVAL, NULL },
		{ "9223372036854775808", -ERANGE, NULL },
		{ " ", -EINVAL, NULL },   { "5\n6", -EINVAL, NULL },  { "\xa0" "5", 0, "5\n" },
		{ "5 6", -EINVAL, NULL }, { "abc", -EINVAL, NULL },   { "maxx", -EINVAL, NULL },
	};
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	char before[8192];
	size_t i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(before, sizeof(before), "%s", fx_read(e, h, "/a/pids.max"));
		T_EQ_INT(fx_write(e, h, "/a/pids.max", cases[i].in), cases[i].err);
		T_EQ_STR(fx_read(e, h, "/a/pids.max"), cases[i].reads ? cases[i].reads : before);
	}
	/* A zero-length write changes nothing. */
	T_EQ_INT(fx_write(e, h, "/a/pids.max", ""), 0);
	ucg_engine_free(e);
}

static void test_fork_limit(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");

	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_write(e, h, "/p/pids.max", "3"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cgroup.procs", "100"), 0);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "1\n");
	T_EQ_INT(do_fork(e, 100, 101), 0);
	T_EQ_INT(do_fork(e, 100, 102), 0);
	T_EQ_INT(do_fork(e, 100, 103), -EAGAIN);
	T_EQ_INT(do_fork(e, 101, 104), -EAGAIN);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "3\n");
	T_EQ_STR(fx_read(e, h, "/p/pids.events"), "max 2\n");
	T_EQ_STR(fx_read(e, h, "/p/pids.peak"), "3\n");
	/* The refused task does not exist. */
	T_EQ_INT(ucg_task_exit(e, 103), -ESRCH);
	T_EQ_STR(fx_read(e, h, "/p/tasks"), "100\n101\n102\n");
	/* A zombie still counts until it is reaped (verified on 6.18). */
	T_EQ_INT(ucg_task_exit(e, 102), 0);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "3\n");
	T_EQ_STR(fx_read(e, h, "/p/tasks"), "100\n101\n");
	T_EQ_INT(do_fork(e, 100, 105), -EAGAIN);
	T_EQ_INT(ucg_task_reap(e, 102), 0);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "2\n");
	/* A thread counts like a process. */
	fx_thread(e, 100, 100, 105, 0);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "3\n");
	/* Lowering max below current is allowed; tasks stay, forks fail. */
	T_EQ_INT(fx_write(e, h, "/p/pids.max", "1"), 0);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "3\n");
	T_EQ_INT(do_fork(e, 100, 106), -EAGAIN);
	T_EQ_INT(fx_write(e, h, "/p/pids.max", "max"), 0);
	T_EQ_INT(do_fork(e, 100, 106), 0);
	/* max 0: not even one. */
	T_EQ_INT(fx_mkdir(e, h, "/z"), 0);
	T_EQ_INT(fx_write(e, h, "/z/pids.max", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "106"), 0);
	T_EQ_INT(do_fork(e, 106, 107), -EAGAIN);
	/* Forks in the root are never limited. */
	fx_proc(e, 1, 0);
	T_EQ_INT(do_fork(e, 1, 2), 0);
	ucg_engine_free(e);
}

static void test_hierarchy_events_peak(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	int i;

	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/q"), 0);
	T_EQ_INT(fx_write(e, h, "/p/pids.max", "3"), 0);
	T_EQ_INT(fx_write(e, h, "/p/q/cgroup.procs", "100"), 0);
	T_EQ_INT(do_fork(e, 100, 101), 0);
	T_EQ_INT(do_fork(e, 100, 102), 0);
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "3\n");
	T_EQ_STR(fx_read(e, h, "/p/q/pids.current"), "3\n");
	for (i = 0; i < 5; i++)
		T_EQ_INT(do_fork(e, 101, 200 + i), -EAGAIN);
	/* Counted in the forking task's cgroup, not where the limit is. */
	T_EQ_STR(fx_read(e, h, "/p/q/pids.events"), "max 5\n");
	T_EQ_STR(fx_read(e, h, "/p/pids.events"), "max 0\n");
	/* q has no limit of its own: its peak went to 4 before p refused. */
	T_EQ_STR(fx_read(e, h, "/p/q/pids.peak"), "4\n");
	T_EQ_STR(fx_read(e, h, "/p/pids.peak"), "3\n");
	T_EQ_STR(fx_read(e, h, "/p/q/pids.current"), "3\n");
	/* A limit deeper down bites first and is counted in the forking cgroup too. */
	T_EQ_INT(fx_write(e, h, "/p/pids.max", "max"), 0);
	T_EQ_INT(fx_write(e, h, "/p/q/pids.max", "3"), 0);
	T_EQ_INT(do_fork(e, 100, 300), -EAGAIN);
	T_EQ_STR(fx_read(e, h, "/p/q/pids.events"), "max 6\n");
	T_EQ_STR(fx_read(e, h, "/p/pids.current"), "3\n");
	ucg_engine_free(e);
}

static void test_migration_ignores_limit(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");

	fx_proc(e, 100, 0);
	fx_proc(e, 200, 0);
	fx_thread(e, 200, 200, 201, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/c"), 0);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/cgroup.procs", "200"), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "3\n");
	T_EQ_STR(fx_read(e, h, "/a/b/pids.current"), "3\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.events"), "max 0\n");
	/* The charge moves with the task. */
	T_EQ_INT(fx_write(e, h, "/c/cgroup.procs", "200"), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "1\n");
	T_EQ_STR(fx_read(e, h, "/c/pids.current"), "2\n");
	T_EQ_INT(fx_write(e, h, "/tasks", "100"), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.peak"), "3\n");
	T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
	ucg_engine_free(e);
}

/* A refusal by pids in one hierarchy, with another controller hierarchy present:
 * nothing is added anywhere and no charge is left behind. */
static void test_fork_refused_leaves_nothing(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct ucg_hierarchy *f = fx_mount(e, "freezer");

	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, f, "/x"), 0);
	T_EQ_INT(fx_write(e, f, "/x/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "1"), 0);
	T_EQ_INT(do_fork(e, 100, 101), -EAGAIN);
	T_EQ_STR(fx_read(e, f, "/x/tasks"), "100\n");
	T_EQ_INT((long long)ucg_task_count(e), 1);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "1\n");
	ucg_engine_free(e);
}

/* A fork that already happened on the host (the filesystem over real processes):
 * placed where it was made in every hierarchy, charged past the limit at every
 * level, counted in pids.events where a refusal would be; uncharged when reaped. */
static void test_forced_fork(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct ucg_hierarchy *f = fx_mount(e, "freezer");
	struct ucg_task_info ti = tinfo(101, 101);

	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_mkdir(e, f, "/x"), 0);
	T_EQ_INT(fx_write(e, f, "/x/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "1"), 0);
	T_EQ_INT(do_fork(e, 100, 101), -EAGAIN);
	T_EQ_STR(fx_read(e, h, "/a/b/pids.events"), "max 1\n");
	T_EQ_INT(ucg_task_forked(e, 100, &ti), 0);
	T_EQ_STR(fx_read(e, h, "/a/b/tasks"), "100\n101\n");
	T_EQ_STR(fx_read(e, f, "/x/tasks"), "100\n101\n");
	T_EQ_STR(fx_read(e, h, "/a/b/pids.current"), "2\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "2\n");
	T_EQ_STR(fx_read(e, h, "/a/b/pids.events"), "max 2\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.events"), "max 0\n");
	/* Still a limit for forks that ask. */
	T_EQ_INT(do_fork(e, 101, 102), -EAGAIN);
	T_EQ_INT(ucg_task_reap(e, 101), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "1\n");
	/* Under no limit it is an ordinary fork. */
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "max"), 0);
	T_EQ_INT(ucg_task_forked(e, 100, &ti), 0);
	T_EQ_STR(fx_read(e, h, "/a/b/pids.events"), "max 3\n");
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "2\n");
	T_EQ_INT(ucg_task_forked(e, 999, &ti), -ESRCH);
	ucg_engine_free(e);
}

/* A zombie keeps its charge even after its cgroup and that cgroup's parent are
 * removed; the reap uncharges what is left of the tree. */
static void test_zombie_outlives_cgroups(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");

	fx_proc(e, 100, 0);
	fx_proc(e, 200, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b/c"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/c/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "200"), 0);
	T_EQ_INT(ucg_task_exit(e, 100), 0);
	/* The zombie does not populate its cgroup: rmdir works. */
	T_EQ_INT(fx_rmdir(e, h, "/a/b/c"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "2\n");
	T_EQ_INT(ucg_task_reap(e, 100), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "1\n");
	/* Engine teardown with an unreaped zombie in a removed cgroup. */
	T_EQ_INT(fx_mkdir(e, h, "/a/d"), 0);
	T_EQ_INT(fx_write(e, h, "/a/d/cgroup.procs", "200"), 0);
	T_EQ_INT(ucg_task_exit(e, 200), 0);
	T_EQ_INT(fx_rmdir(e, h, "/a/d"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/a"), 0);
	ucg_engine_free(e);
}

static void test_alloc_failure(void)
{
	static const struct fx_step steps[] = {
		{ "/a", NULL },
		{ "/a/pids.max", "5" },
	};

	/* Every allocation of mount + mkdir + write may fail cleanly. */
	fx_alloc_sweep(200, "pids", steps, sizeof(steps) / sizeof(steps[0]));
}

int main(void)
{
	T_RUN(test_files);
	T_RUN(test_max_grammar);
	T_RUN(test_fork_limit);
	T_RUN(test_hierarchy_events_peak);
	T_RUN(test_migration_ignores_limit);
	T_RUN(test_fork_refused_leaves_nothing);
	T_RUN(test_forced_fork);
	T_RUN(test_zombie_outlives_cgroups);
	T_RUN(test_alloc_failure);
	return t_done();
}
