/* engine/test_tasks.c — tasks and css_sets: attach through cgroup.procs and tasks,
 * the pid grammar, errno precedence, the credential rule, fork, exit, zombies, reads,
 * /proc/PID/cgroup (docs/kernel/core.md §6-§9). */
#include "engine/test_fixture.h"
#include "engine/cgroup.h"
#include "engine/task.h"
#include "engine/types.h"

static struct ucg_task_info info(int tid, int tgid, unsigned ruid, unsigned euid, unsigned suid)
{
	struct ucg_task_info ti;

	memset(&ti, 0, sizeof(ti));
	ti.tid = tid;
	ti.tgid = tgid;
	ti.ruid = ruid;
	ti.euid = ti.fsuid = euid;
	ti.suid = suid;
	return ti;
}

static void test_pid_grammar(void)
{
	static const struct {
		const char *in;
		int err;
	} cases[] = {
		{ "15099", 0 },	       { "15099\n", 0 },     { " 15099 ", 0 },	  { "\t15099\n\n", 0 },
		{ "+15099", 0 },       { "0x3afb", 0 },	     { "035373", 0 },	  { "\n", -EINVAL },
		{ "15099\n7", -EINVAL }, { "15099 7", -EINVAL }, { "15099,", -EINVAL },
		{ "-15099", -EINVAL }, { "-1", -EINVAL },     { "abc", -EINVAL }, { "0015099", -EINVAL },
		{ "2147483648", -EINVAL }, { "4294967296", -EINVAL }, { "99999999", -ESRCH },
		{ "4194304", -ESRCH },
	};
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root();
	size_t i;

	fx_proc(e, 15099, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *dst = i % 2 ? "/a/cgroup.procs" : "/b/tasks";

		T_EQ_INT(fx_write(e, h, dst, cases[i].in), cases[i].err);
		if (cases[i].err == 0)
			T_EQ_STR(fx_proc_cgroup(e, 15099), i % 2 ? "1:name=t:/a\n" : "1:name=t:/b\n");
	}
	T_EQ_INT(ucg_fs_write_all(e, h, "/a/tasks", &root, "15099\0junk", 10), 0);
	/* The kernel's strstrip also strips 0xA0 (its ctype calls it space). */
	T_EQ_INT(fx_write(e, h, "/b/tasks", "\xa0" "15099\xa0"), 0);
	T_EQ_STR(fx_read(e, h, "/b/tasks"), "15099\n");
	T_EQ_INT(fx_write(e, h, "/a/tasks", "15099"), 0);
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "15099\n");
	ucg_engine_free(e);
}

static void test_procs_vs_tasks(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_hierarchy *other = fx_mount(e, "none,name=o");

	fx_proc(e, 100, 0);
	fx_thread(e, 100, 100, 101, 0);
	fx_thread(e, 100, 100, 102, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_mkdir(e, other, "/x"), 0);
	T_EQ_INT(fx_write(e, other, "/x/cgroup.procs", "100"), 0);
	/* A TGID written to tasks moves only the leader. */
	T_EQ_INT(fx_write(e, h, "/a/tasks", "100"), 0);
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "100\n");
	T_EQ_STR(fx_read(e, h, "/tasks"), "101\n102\n");
	/* Spread over two cgroups: the process is listed in both. */
	T_EQ_STR(fx_read(e, h, "/a/cgroup.procs"), "100\n");
	T_EQ_STR(fx_read(e, h, "/cgroup.procs"), "100\n");
	/* A TID written to cgroup.procs means its whole process, gathered in one step. */
	T_EQ_INT(fx_write(e, h, "/b/cgroup.procs", "102"), 0);
	T_EQ_STR(fx_read(e, h, "/b/tasks"), "100\n101\n102\n");
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "");
	T_EQ_STR(fx_read(e, h, "/b/cgroup.procs"), "100\n");
	/* Other hierarchies are untouched. */
	T_EQ_STR(fx_read(e, other, "/x/tasks"), "100\n101\n102\n");
	/* Moving into the cgroup it is in: success, nothing happens. */
	T_EQ_INT(fx_write(e, h, "/b/cgroup.procs", "100"), 0);
	/* Writes to the root are allowed. */
	T_EQ_INT(fx_write(e, h, "/tasks", "101"), 0);
	T_EQ_STR(fx_read(e, h, "/tasks"), "101\n");
	ucg_engine_free(e);
}

static void test_reads_sorted_unique(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	static const int pids[] = { 900, 5, 77, 1000, 31 };
	size_t i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < 5; i++) {
		char s[16];

		fx_proc(e, pids[i], 0);
		snprintf(s, sizeof(s), "%d", pids[i]);
		T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", s), 0);
	}
	fx_thread(e, 77, 77, 78, 0);
	fx_thread(e, 77, 77, 79, 0);
	T_EQ_STR(fx_read(e, h, "/a/cgroup.procs"), "5\n31\n77\n900\n1000\n");
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "5\n31\n77\n78\n79\n900\n1000\n");
	ucg_engine_free(e);
}

static void test_precedence(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred user = ucg_cred_user(1001, 1001);
	struct ucg_cred root = ucg_cred_root();
	struct ucg_task_info kt = info(7, 7, 0, 0, 0);
	struct ucg_file *f;

	kt.flags = UCG_TASK_KTHREAD | UCG_TASK_NO_SETAFFINITY;
	T_EQ_INT(ucg_task_add(e, &kt), 0);
	fx_proc(e, 1, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/a/cgroup.procs", 0666, &root), 0);
	/* Parse before lookup, lookup before kthread, kthread before credentials. */
	T_EQ_INT(fx_write_as(e, h, "/a/cgroup.procs", &user, "x"), -EINVAL);
	T_EQ_INT(fx_write_as(e, h, "/a/cgroup.procs", &user, "424242"), -ESRCH);
	T_EQ_INT(fx_write_as(e, h, "/a/cgroup.procs", &user, "7"), -EINVAL);
	T_EQ_INT(fx_write_as(e, h, "/a/cgroup.procs", &user, "1"), -EACCES);
	/* A protected kthread: EINVAL even into the cgroup it occupies. */
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "7"), -EINVAL);
	/* Removed cgroup: ENODEV whatever was written. */
	T_EQ_INT(ucg_fs_open(e, h, "/a/cgroup.procs", O_WRONLY, &root, &f), 0);
	T_EQ_INT(fx_rmdir(e, h, "/a"), 0);
	T_EQ_INT(ucg_fs_write(f, "abc", 3), -ENODEV);
	T_EQ_INT(ucg_fs_write(f, "1", 1), -ENODEV);
	ucg_fs_release(f);
	ucg_engine_free(e);
}

static void test_credential_matrix(void)
{
	static const struct {
		unsigned ruid, euid, suid;
		int err;
	} cases[] = {
		{ 1001, 1001, 1001, 0 }, { 1001, 0, 0, 0 },	    { 0, 0, 1001, 0 },
		{ 0, 1001, 1001, 0 },	 { 0, 1001, 0, -EACCES }, { 1002, 1002, 1002, -EACCES },
	};
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), w = ucg_cred_user(1001, 1001);
	size_t i;

	T_EQ_INT(fx_mkdir(e, h, "/d"), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/d/cgroup.procs", 0666, &root), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ucg_task_info ti = info(200 + (int)i, 200 + (int)i, cases[i].ruid,
					       cases[i].euid, cases[i].suid);
		char s[16];

		T_EQ_INT(ucg_task_add(e, &ti), 0);
		snprintf(s, sizeof(s), "%d", ti.tid);
		T_EQ_INT(fx_write_as(e, h, "/d/cgroup.procs", &w, s), cases[i].err);
	}
	/* Only the writer's euid counts: ruid 1001/euid 1002 cannot move uid 1001's. */
	w.uid = 1001;
	w.euid = w.fsuid = 1002;
	T_EQ_INT(fx_write_as(e, h, "/d/cgroup.procs", &w, "200"), -EACCES);
	/* Capabilities do not stand in for euid 0. */
	w = ucg_cred_user(1001, 1001);
	w.caps = UCG_CAP_SYS_ADMIN | UCG_CAP_DAC_OVERRIDE;
	fx_proc(e, 300, 0);
	T_EQ_INT(fx_write_as(e, h, "/cgroup.procs", &w, "300"), -EACCES);
	/* ruid 0 with euid 1001 cannot move root's process either. */
	w = ucg_cred_user(1001, 1001);
	w.uid = 0;
	T_EQ_INT(fx_write_as(e, h, "/d/cgroup.procs", &w, "300"), -EACCES);
	ucg_engine_free(e);
}

static void test_opener_credentials(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), user = ucg_cred_user(1001, 1001);
	struct ucg_file *f;

	fx_proc(e, 50, 0);
	T_EQ_INT(fx_mkdir(e, h, "/d"), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/d/cgroup.procs", 0666, &root), 0);
	/* Opened as root: the handle keeps root's credentials. */
	T_EQ_INT(ucg_fs_open(e, h, "/d/cgroup.procs", O_WRONLY, &root, &f), 0);
	T_EQ_INT(ucg_fs_write(f, "50", 2), 2);
	ucg_fs_release(f);
	/* Opened as the user: EACCES on root's process. */
	T_EQ_INT(ucg_fs_open(e, h, "/cgroup.procs", O_WRONLY, &user, &f), -EACCES);
	T_EQ_INT(ucg_fs_chmod(e, h, "/cgroup.procs", 0666, &root), 0);
	T_EQ_INT(ucg_fs_open(e, h, "/cgroup.procs", O_WRONLY, &user, &f), 0);
	T_EQ_INT(ucg_fs_write(f, "50", 2), -EACCES);
	/* Several writes on one fd are independent commands. */
	fx_proc(e, 51, 1001);
	fx_proc(e, 52, 1001);
	T_EQ_INT(fx_write(e, h, "/d/cgroup.procs", "51"), 0);
	T_EQ_INT(fx_write(e, h, "/d/cgroup.procs", "52"), 0);
	T_EQ_INT(ucg_fs_write(f, "51", 2), 2);
	T_EQ_INT(ucg_fs_write(f, "52\n", 3), 3);
	ucg_fs_release(f);
	T_EQ_STR(fx_read(e, h, "/d/cgroup.procs"), "50\n");
	ucg_engine_free(e);
}

static void test_writer_itself(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred c = ucg_cred_root();

	fx_proc(e, 60, 0);
	fx_thread(e, 60, 60, 61, 0);
	c.tid = 61;
	c.tgid = 60;
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_write_as(e, h, "/a/tasks", &c, "0"), 0);
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "61\n");
	T_EQ_INT(fx_write_as(e, h, "/b/cgroup.procs", &c, "0"), 0);
	T_EQ_STR(fx_read(e, h, "/b/tasks"), "60\n61\n");
	ucg_engine_free(e);
}

static void test_fork_follows_creating_thread(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_hierarchy *h2 = fx_mount(e, "none,name=u");
	struct ucg_task_info child = info(72, 72, 0, 0, 0);

	fx_proc(e, 70, 0);
	fx_thread(e, 70, 70, 71, 0);
	T_EQ_INT(fx_mkdir(e, h, "/B"), 0);
	T_EQ_INT(fx_mkdir(e, h2, "/U"), 0);
	T_EQ_INT(fx_write(e, h2, "/U/cgroup.procs", "70"), 0);
	T_EQ_INT(fx_write(e, h, "/B/tasks", "71"), 0);
	T_EQ_INT(ucg_task_fork(e, 71, &child), 0); /* forked by the moved thread */
	child = info(73, 73, 0, 0, 0);
	T_EQ_INT(ucg_task_fork(e, 70, &child), 0); /* forked by the leader */
	child = info(74, 70, 0, 0, 0);
	T_EQ_INT(ucg_task_fork(e, 71, &child), 0); /* a thread made by the moved thread */
	T_EQ_STR(fx_read(e, h, "/B/tasks"), "71\n72\n74\n");
	T_EQ_STR(fx_read(e, h, "/tasks"), "70\n73\n");
	T_EQ_STR(fx_read(e, h2, "/U/tasks"), "70\n71\n72\n73\n74\n");
	/* A child forked before its parent moved stays where the parent was. */
	T_EQ_INT(fx_write(e, h, "/B/cgroup.procs", "73"), 0);
	T_EQ_STR(fx_read(e, h, "/tasks"), "70\n");
	T_EQ_INT(ucg_task_fork(e, 999, &child), -ESRCH);
	child = info(72, 72, 0, 0, 0);
	T_EQ_INT(ucg_task_fork(e, 70, &child), -EEXIST);
	ucg_engine_free(e);
}

static void test_css_sets_shared(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_hierarchy *h2 = fx_mount(e, "none,name=u");
	int i;

	T_EQ_INT(e->nr_csets, 1);
	for (i = 0; i < 50; i++)
		fx_proc(e, 1000 + i, 0);
	T_EQ_INT(e->nr_csets, 1); /* everyone in every root: one set */
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h2, "/b"), 0);
	for (i = 0; i < 50; i += 2) {
		char s[16];

		snprintf(s, sizeof(s), "%d", 1000 + i);
		T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", s), 0);
		T_EQ_INT(fx_write(e, h2, "/b/cgroup.procs", s), 0);
	}
	T_EQ_INT(e->nr_csets, 2);
	/* Forks share their parent's set: still two. */
	for (i = 0; i < 20; i++) {
		struct ucg_task_info c = info(2000 + i, 2000 + i, 0, 0, 0);

		T_EQ_INT(ucg_task_fork(e, 1000, &c), 0);
	}
	T_EQ_INT(e->nr_csets, 2);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "1000"), 0);
	T_EQ_INT(e->nr_csets, 3); /* (root, b) appears */
	for (i = 0; i < 50; i += 2) {
		char s[16];

		snprintf(s, sizeof(s), "%d", 1000 + i);
		T_EQ_INT(fx_write(e, h, "/cgroup.procs", s), 0);
	}
	for (i = 0; i < 20; i++) {
		char s[16];

		snprintf(s, sizeof(s), "%d", 2000 + i);
		T_EQ_INT(fx_write(e, h, "/cgroup.procs", s), 0);
	}
	T_EQ_INT(e->nr_csets, 2); /* (a, b) was dropped with its last task */
	ucg_engine_free(e);
}

static void test_exit_and_zombies(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");

	fx_proc(e, 80, 0);
	fx_thread(e, 80, 80, 81, 0);
	T_EQ_INT(fx_mkdir(e, h, "/z"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/y"), 0);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "80"), 0);
	/* The leader exits (pthread_exit in main): gone from tasks, still in procs. */
	T_EQ_INT(ucg_task_exit(e, 80), 0);
	T_EQ_STR(fx_read(e, h, "/z/tasks"), "81\n");
	T_EQ_STR(fx_read(e, h, "/z/cgroup.procs"), "80\n");
	T_EQ_STR(fx_proc_cgroup(e, 80), "1:name=t:/\n");
	{
		struct ucg_buf b;

		ucg_buf_init(&b);
		T_EQ_INT(ucg_proc_cgroup(e, 81, 1, &b), 0);
		T_EQ_STR(b.data, "1:name=t:/z\n");
		ucg_buf_fini(&b);
	}
	/* Writing the zombie leader's TGID moves the live threads. */
	T_EQ_INT(fx_write(e, h, "/y/cgroup.procs", "80"), 0);
	T_EQ_STR(fx_read(e, h, "/y/tasks"), "81\n");
	/* All exited: listed nowhere; the write succeeds and moves nothing. */
	T_EQ_INT(ucg_task_exit(e, 81), 0);
	T_EQ_STR(fx_read(e, h, "/y/cgroup.procs"), "");
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "80"), 0);
	T_EQ_STR(fx_read(e, h, "/z/tasks"), "");
	T_EQ_INT(fx_rmdir(e, h, "/y"), 0);
	T_EQ_INT(ucg_task_reap(e, 81), 0);
	T_EQ_INT(ucg_task_reap(e, 80), 0);
	T_EQ_INT(fx_write(e, h, "/z/cgroup.procs", "80"), -ESRCH);
	T_EQ_INT(ucg_task_count(e), 0);
	/* A reused pid starts fresh in the roots. */
	fx_proc(e, 80, 0);
	T_EQ_STR(fx_proc_cgroup(e, 80), "1:name=t:/\n");
	ucg_engine_free(e);
}

static void test_proc_pid_cgroup(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *a = fx_mount(e, "none,name=sck");
	struct ucg_hierarchy *b = fx_mount(e, "hugetlb,perf_event,name=N");
	struct ucg_hierarchy *c = fx_mount(e, "cpu,cpuacct");

	fx_proc(e, 90, 0);
	T_EQ_INT(fx_mkdir(e, a, "/a b:c,d"), 0);
	T_EQ_INT(fx_write(e, a, "/a b:c,d/tasks", "90"), 0);
	T_EQ_INT(fx_mkdir(e, c, "/x"), 0);
	T_EQ_INT(fx_mkdir(e, c, "/x/y"), 0);
	T_EQ_INT(fx_write(e, c, "/x/y/tasks", "90"), 0);
	T_EQ_STR(fx_proc_cgroup(e, 90), "3:cpu,cpuacct:/x/y\n"
					"2:perf_event,hugetlb,name=N:/\n"
					"1:name=sck:/a b:c,d\n");
	(void)b;
	T_EQ_INT(ucg_proc_cgroup(e, 4242, 0, &(struct ucg_buf){ 0 }), -ESRCH);
	ucg_engine_free(e);
}

static void test_cred_updates(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cred root = ucg_cred_root(), w = ucg_cred_user(1001, 1001);
	struct ucg_task_info ti = info(40, 40, 0, 0, 0);

	T_EQ_INT(ucg_task_add(e, &ti), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/cgroup.procs", 0666, &root), 0);
	T_EQ_INT(fx_write_as(e, h, "/cgroup.procs", &w, "40"), -EACCES);
	ti = info(40, 40, 1001, 1001, 1001);
	T_EQ_INT(ucg_task_set_cred(e, &ti), 0);
	T_EQ_INT(fx_write_as(e, h, "/cgroup.procs", &w, "40"), 0);
	T_EQ_INT(ucg_task_get_info(e, 40, &ti), 0);
	T_EQ_INT(ti.ruid, 1001);
	ucg_engine_free(e);
}

/* Forced transfer of all tasks (cpuset's fallback uses it). */
static void test_transfer(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=t");
	struct ucg_cgroup *from, *to;

	fx_proc(e, 10, 0);
	fx_thread(e, 10, 10, 11, 0);
	fx_proc(e, 12, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "12"), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "//p//c/", &from), 0);
	T_CHECK(from == ucg_cgroup_find_child(ucg_cgroup_find_child(h->root, "p", 1), "c", 1));
	T_EQ_INT(ucg_cgroup_lookup(h, "/", &to), 0);
	T_CHECK(to == h->root);
	T_EQ_INT(ucg_cgroup_lookup(h, "/p/tasks", &to), -ENOTDIR);
	T_EQ_INT(ucg_cgroup_lookup(h, "/p/tasks/x", &to), -ENOTDIR);
	T_EQ_INT(ucg_cgroup_lookup(h, "/p/none", &to), -ENOENT);
	T_EQ_INT(ucg_cgroup_lookup(h, "p", &to), -EINVAL);
	to = from->parent;
	T_EQ_INT(ucg_task_transfer(e, from, to), 3);
	T_EQ_STR(fx_read(e, h, "/p/tasks"), "10\n11\n12\n");
	T_EQ_STR(fx_read(e, h, "/p/c/tasks"), "");
	T_EQ_INT(ucg_task_transfer(e, from, to), 0);
	T_EQ_INT(fx_rmdir(e, h, "/p/c"), 0);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_transfer);
	T_RUN(test_pid_grammar);
	T_RUN(test_procs_vs_tasks);
	T_RUN(test_reads_sorted_unique);
	T_RUN(test_precedence);
	T_RUN(test_credential_matrix);
	T_RUN(test_opener_credentials);
	T_RUN(test_writer_itself);
	T_RUN(test_fork_follows_creating_thread);
	T_RUN(test_css_sets_shared);
	T_RUN(test_exit_and_zombies);
	T_RUN(test_proc_pid_cgroup);
	T_RUN(test_cred_updates);
	return t_done();
}
