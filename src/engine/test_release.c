/* engine/test_release.c — when the engine reports a release (docs/kernel/core.md §10.1), with
 * the table of verified scenarios, one case each. */
#include "engine/test_fixture.h"

struct counter {
	int queued;
};

static void on_queued(void *ctx, struct ucg_engine *e)
{
	((struct counter *)ctx)->queued++;
}

static const struct ucg_provider_ops ops = { .release_queued = on_queued };
static struct counter cnt;

static struct ucg_engine *engine(void)
{
	struct ucg_engine_config cfg = { .provider = &ops, .provider_ctx = &cnt };
	struct ucg_engine *e = NULL;

	cnt.queued = 0;
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	return e;
}

/* Pops every pending notification, joined as "hier:path;..." for comparison. */
static const char *drain(struct ucg_engine *e)
{
	static char out[1024];
	struct ucg_release r;
	size_t len = 0;

	out[0] = '\0';
	while (ucg_release_next(e, &r) == 1) {
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s %s;", r.agent, r.path);
		ucg_release_fini(&r);
	}
	return out;
}

static struct ucg_hierarchy *setup(struct ucg_engine *e)
{
	struct ucg_hierarchy *h = fx_mount(e, "none,name=r,release_agent=/agent");

	fx_proc(e, 10, 0);
	fx_proc(e, 11, 0);
	return h;
}

static void test_last_task_exits(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	T_EQ_INT(fx_mkdir(e, h, "/C"), 0);
	T_EQ_INT(fx_write(e, h, "/C/notify_on_release", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/C/cgroup.procs", "10"), 0);
	T_EQ_STR(drain(e), "");
	T_EQ_INT(ucg_task_exit(e, 10), 0); /* a zombie now, not reaped */
	T_EQ_INT(cnt.queued, 1);
	T_EQ_STR(drain(e), "/agent /C;");
	ucg_engine_free(e);
}

static void test_last_task_moved_out(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	T_EQ_INT(fx_mkdir(e, h, "/A"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/B"), 0);
	T_EQ_INT(fx_write(e, h, "/A/notify_on_release", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/B/notify_on_release", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/A/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/B/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_STR(drain(e), "/agent /A;/agent /B;");
	ucg_engine_free(e);
}

static void test_single_thread_moves(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	fx_thread(e, 10, 10, 12, 0);
	T_EQ_INT(fx_mkdir(e, h, "/T"), 0);
	T_EQ_INT(fx_write(e, h, "/T/notify_on_release", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/T/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/tasks", "10"), 0);
	T_EQ_STR(drain(e), "");
	T_EQ_INT(fx_write(e, h, "/tasks", "12"), 0);
	T_EQ_STR(drain(e), "/agent /T;");
	ucg_engine_free(e);
}

static void test_never_populated_or_flag_late(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	T_EQ_INT(fx_mkdir(e, h, "/N"), 0);
	T_EQ_INT(fx_write(e, h, "/N/notify_on_release", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/L"), 0);
	T_EQ_INT(fx_write(e, h, "/L/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/L/notify_on_release", "1"), 0); /* already empty */
	T_EQ_STR(drain(e), "");
	T_EQ_INT(fx_rmdir(e, h, "/N"), 0); /* rmdir of the cgroup itself */
	T_EQ_STR(drain(e), "");
	ucg_engine_free(e);
}

static void test_child_removed(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	T_EQ_INT(fx_mkdir(e, h, "/P"), 0);
	T_EQ_INT(fx_write(e, h, "/P/notify_on_release", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/P/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/P/b"), 0);
	T_EQ_INT(fx_write(e, h, "/P/a/notify_on_release", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/P/b/notify_on_release", "0"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/P/a"), 0);
	T_EQ_STR(drain(e), "");
	T_EQ_INT(fx_rmdir(e, h, "/P/b"), 0);
	T_EQ_STR(drain(e), "/agent /P;");
	ucg_engine_free(e);
}

static void test_inherited_flag_deep(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	T_EQ_INT(fx_mkdir(e, h, "/P"), 0);
	T_EQ_INT(fx_write(e, h, "/P/notify_on_release", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/P/x"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/P/x/y"), 0);
	T_EQ_INT(fx_write(e, h, "/P/x/y/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_STR(drain(e), "/agent /P/x/y;");
	ucg_engine_free(e);
}

static void test_task_leaves_then_child_removed(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);

	T_EQ_INT(fx_mkdir(e, h, "/E"), 0);
	T_EQ_INT(fx_write(e, h, "/E/notify_on_release", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/E/k"), 0);
	T_EQ_INT(fx_write(e, h, "/E/k/notify_on_release", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/E/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_STR(drain(e), "");
	T_EQ_INT(fx_rmdir(e, h, "/E/k"), 0);
	T_EQ_STR(drain(e), "/agent /E;");
	ucg_engine_free(e);
}

static void test_flag_zero_or_no_agent(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);
	struct ucg_hierarchy *q = fx_mount(e, "none,name=quiet");

	T_EQ_INT(fx_mkdir(e, h, "/Z"), 0);
	T_EQ_INT(fx_write(e, h, "/Z/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_mkdir(e, q, "/Q"), 0);
	T_EQ_INT(fx_write(e, q, "/Q/notify_on_release", "1"), 0);
	T_EQ_INT(fx_write(e, q, "/Q/cgroup.procs", "11"), 0);
	T_EQ_INT(fx_write(e, q, "/cgroup.procs", "11"), 0);
	T_EQ_STR(drain(e), "");
	ucg_engine_free(e);
}

static void test_parent_flag_irrelevant_and_rename(void)
{
	struct ucg_engine *e = engine();
	struct ucg_hierarchy *h = setup(e);
	struct ucg_cred root = ucg_cred_root();

	T_EQ_INT(fx_write(e, h, "/notify_on_release", "0"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/old"), 0);
	T_EQ_INT(fx_write(e, h, "/old/notify_on_release", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/old/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	/* Renamed before the front end runs the agent: the new name is passed. */
	T_EQ_INT(ucg_fs_rename(e, h, "/old", "/new", &root), 0);
	T_EQ_STR(drain(e), "/agent /new;");
	/* Queued twice before being consumed: reported once. */
	T_EQ_INT(fx_write(e, h, "/new/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/new/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_STR(drain(e), "/agent /new;");
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_last_task_exits);
	T_RUN(test_last_task_moved_out);
	T_RUN(test_single_thread_moves);
	T_RUN(test_never_populated_or_flag_late);
	T_RUN(test_child_removed);
	T_RUN(test_inherited_flag_deep);
	T_RUN(test_task_leaves_then_child_removed);
	T_RUN(test_flag_zero_or_no_agent);
	T_RUN(test_parent_flag_irrelevant_and_rename);
	return t_done();
}
