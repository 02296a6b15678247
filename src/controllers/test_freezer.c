/* controllers/test_freezer.c — freezer: files, the state grammar, self/parent
 * freezing, subtree freezing, attach and fork, and the provider's asynchronous stops
 * (docs/kernel/controllers.md §6). */
#include "engine/test_fixture.h"

struct rec {
	int calls;
	signed char want[64]; /* last request per tid: 1 stop, 0 continue, -1 none */
};

static void rec_freeze(void *ctx, struct ucg_engine *e, int tid, int freeze)
{
	struct rec *r = ctx;

	r->calls++;
	if (tid > 0 && tid < 64)
		r->want[tid] = (signed char)freeze;
}

static const struct ucg_provider_ops rec_ops = { .freeze_task = rec_freeze };

static struct ucg_engine *engine(struct rec *r)
{
	struct ucg_engine_config cfg;
	struct ucg_engine *e = NULL;

	memset(&cfg, 0, sizeof(cfg));
	if (r) {
		memset(r, 0, sizeof(*r));
		memset(r->want, -1, sizeof(r->want));
		cfg.provider = &rec_ops;
		cfg.provider_ctx = r;
	}
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	return e;
}

static void test_files_grammar(void)
{
	static const struct {
		const char *in;
		int err;
	} cases[] = {
		{ "FROZEN", 0 },      { "THAWED", 0 },	 { " FROZEN ", 0 },   { "FROZEN\n", 0 },
		{ "THAWED\n", 0 },    { "\xa0THAWED", 0 }, { "FREEZING", -EINVAL }, { "frozen", -EINVAL },
		{ "FROZENX", -EINVAL }, { "1", -EINVAL },  { "\n", -EINVAL },   { "FROZEN\nTHAWED", -EINVAL },
	};
	struct ucg_engine *e = engine(NULL);
	struct ucg_hierarchy *h = fx_mount(e, "freezer");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;
	size_t i;

	T_EQ_STR(fx_read(e, h, "/freezer.state"), "<errno 2>");
	T_EQ_STR(fx_read(e, h, "/freezer.self_freezing"), "<errno 2>");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/freezer.state"), "THAWED\n");
	T_EQ_STR(fx_read(e, h, "/a/freezer.self_freezing"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/freezer.parent_freezing"), "0\n");
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/freezer.state", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0644);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/freezer.self_freezing", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0444);
	T_EQ_INT(fx_write(e, h, "/a/freezer.self_freezing", "1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/freezer.parent_freezing", "1"), -EINVAL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *want = NULL;

		T_EQ_INT(fx_write(e, h, "/a/freezer.state", cases[i].in), cases[i].err);
		if (cases[i].err == 0)
			want = strstr(cases[i].in, "FROZEN") ? "FROZEN\n" : "THAWED\n";
		if (want)
			T_EQ_STR(fx_read(e, h, "/a/freezer.state"), want);
	}
	ucg_engine_free(e);
}

static void test_subtree(void)
{
	struct ucg_engine *e = engine(NULL);
	struct ucg_hierarchy *h = fx_mount(e, "freezer");

	fx_proc(e, 10, 0);
	fx_proc(e, 20, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "20"), 0);
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "FROZEN"), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FROZEN\n");
	T_EQ_STR(fx_read(e, h, "/p/freezer.self_freezing"), "1\n");
	T_EQ_STR(fx_read(e, h, "/p/freezer.parent_freezing"), "0\n");
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "FROZEN\n");
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.self_freezing"), "0\n");
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.parent_freezing"), "1\n");
	/* THAWED on the child clears its self bit only. */
	T_EQ_INT(fx_write(e, h, "/p/c/freezer.state", "THAWED"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "FROZEN\n");
	/* A self-frozen child stays frozen when the parent thaws. */
	T_EQ_INT(fx_write(e, h, "/p/c/freezer.state", "FROZEN"), 0);
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "THAWED"), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "THAWED\n");
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "FROZEN\n");
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.parent_freezing"), "0\n");
	T_EQ_INT(fx_write(e, h, "/p/c/freezer.state", "THAWED"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "THAWED\n");
	/* Three levels: the grandchild follows the grandparent. */
	T_EQ_INT(fx_mkdir(e, h, "/p/c/g"), 0);
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "FROZEN"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/g/freezer.parent_freezing"), "1\n");
	T_EQ_STR(fx_read(e, h, "/p/c/g/freezer.state"), "FROZEN\n");
	/* mkdir under a freezing parent: FROZEN with parent_freezing 1. */
	T_EQ_INT(fx_mkdir(e, h, "/p/n"), 0);
	T_EQ_STR(fx_read(e, h, "/p/n/freezer.state"), "FROZEN\n");
	T_EQ_STR(fx_read(e, h, "/p/n/freezer.parent_freezing"), "1\n");
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "THAWED"), 0);
	T_EQ_STR(fx_read(e, h, "/p/n/freezer.state"), "THAWED\n");
	ucg_engine_free(e);
}

static void test_provider_async(void)
{
	struct rec r;
	struct ucg_engine *e = engine(&r);
	struct ucg_hierarchy *h = fx_mount(e, "freezer");

	fx_proc(e, 10, 0);
	fx_proc(e, 20, 0);
	fx_proc(e, 30, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/q"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "20"), 0);
	T_EQ_INT(r.calls, 0);
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "FROZEN"), 0);
	T_EQ_INT(r.want[10], 1);
	T_EQ_INT(r.want[20], 1);
	T_EQ_INT(r.want[30], -1);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FREEZING\n");
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "FREEZING\n");
	T_EQ_INT(ucg_freezer_task_stopped(e, 20, 1), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "FROZEN\n");
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FREEZING\n");
	T_EQ_INT(ucg_freezer_task_stopped(e, 10, 1), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FROZEN\n");
	/* Writing FROZEN again asks nobody twice. */
	r.calls = 0;
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "FROZEN"), 0);
	T_EQ_INT(r.calls, 0);
	/* A stopped task reported running again: FREEZING until stopped again. */
	T_EQ_INT(ucg_freezer_task_stopped(e, 10, 0), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FREEZING\n");
	T_EQ_INT(ucg_freezer_task_stopped(e, 10, 1), 0);
	/* A task moved into a freezing cgroup is stopped; the cgroup is FREEZING until
	 * the stop is reported. */
	T_EQ_INT(fx_write(e, h, "/p/cgroup.procs", "30"), 0);
	T_EQ_INT(r.want[30], 1);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FREEZING\n");
	T_EQ_INT(ucg_freezer_task_stopped(e, 30, 1), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FROZEN\n");
	/* A frozen task moved out to a thawed cgroup is continued. */
	T_EQ_INT(fx_write(e, h, "/q/cgroup.procs", "30"), 0);
	T_EQ_INT(r.want[30], 0);
	/* A stop reported for a task nobody froze does not count. */
	T_EQ_INT(ucg_freezer_task_stopped(e, 30, 1), 0);
	T_EQ_INT(fx_write(e, h, "/q/freezer.state", "FROZEN"), 0);
	T_EQ_STR(fx_read(e, h, "/q/freezer.state"), "FREEZING\n");
	T_EQ_INT(ucg_freezer_task_stopped(e, 99, 1), -ESRCH);
	/* A child forked in a freezing cgroup is stopped too. */
	fx_thread(e, 10, 10, 11, 0);
	T_EQ_INT(r.want[11], 1);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FREEZING\n");
	/* An exited task no longer holds the cgroup in FREEZING. */
	T_EQ_INT(ucg_task_exit(e, 11), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FROZEN\n");
	T_EQ_INT(ucg_freezer_task_stopped(e, 11, 1), -ESRCH);
	/* Thaw continues every task of the subtree at once. */
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "THAWED"), 0);
	T_EQ_INT(r.want[10], 0);
	T_EQ_INT(r.want[20], 0);
	T_EQ_STR(fx_read(e, h, "/p/c/freezer.state"), "THAWED\n");
	/* Freezing again needs new reports: old ones were cleared by the thaw. */
	T_EQ_INT(fx_write(e, h, "/p/freezer.state", "FROZEN"), 0);
	T_EQ_STR(fx_read(e, h, "/p/freezer.state"), "FREEZING\n");
	ucg_engine_free(e);
}

static void test_no_provider_attach_fork(void)
{
	struct ucg_engine *e = engine(NULL);
	struct ucg_hierarchy *h = fx_mount(e, "freezer");

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_write(e, h, "/a/freezer.state", "FROZEN"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_STR(fx_read(e, h, "/a/freezer.state"), "FROZEN\n");
	fx_thread(e, 10, 10, 11, 0);
	T_EQ_STR(fx_read(e, h, "/a/freezer.state"), "FROZEN\n");
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "10\n11\n");
	T_EQ_INT(fx_write(e, h, "/b/cgroup.procs", "10"), 0);
	T_EQ_STR(fx_read(e, h, "/b/tasks"), "10\n11\n");
	T_EQ_STR(fx_read(e, h, "/b/freezer.state"), "THAWED\n");
	/* A frozen cgroup can still be removed once empty. */
	T_EQ_INT(fx_rmdir(e, h, "/a"), 0);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_files_grammar);
	T_RUN(test_subtree);
	T_RUN(test_provider_async);
	T_RUN(test_no_provider_attach_fork);
	return t_done();
}
