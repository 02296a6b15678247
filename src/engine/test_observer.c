/* engine/test_observer.c — the observer hooks: what each change reports, in order, the
 * vetoes (a refusal is the caller's errno and changes nothing), per-cgroup slots and
 * registration limits. */
#include "engine/test_fixture.h"


/* A log of "event args;" entries, and what the vetoes answer. */
struct rec {
	char log[4096];
	size_t len;
	int attach_veto, write_veto;
	int writes_checked;
};

static void logf_(struct rec *r, const char *fmt, const char *a, const char *b)
{
	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, fmt, a, b);
}

/* cg's path, built from the end of a static buffer without allocating (the ENOMEM
 * test fails the engine's allocations). */
static const char *path_of(const struct ucg_cgroup *cg)
{
	static char out[4][256];
	static int k;
	char *p;

	k = (k + 1) % 4;
	if (!ucg_cgroup_parent(cg))
		return strcpy(out[k], "/");
	p = out[k] + sizeof(out[k]) - 1;
	*p = '\0';
	for (; ucg_cgroup_parent(cg); cg = ucg_cgroup_parent(cg)) {
		size_t n = strlen(ucg_cgroup_name(cg));

		p -= n;
		memcpy(p, ucg_cgroup_name(cg), n);
		*--p = '/';
	}
	return p;
}

static void on_mounted(void *ctx, struct ucg_hierarchy *h, int created)
{
	logf_(ctx, "mounted %s%s;", ucg_hierarchy_name(h), created ? " new" : "");
}

static void on_unmounted(void *ctx, struct ucg_hierarchy *h, int destroying)
{
	logf_(ctx, "unmounted %s%s;", ucg_hierarchy_name(h), destroying ? " gone" : "");
}

static void on_remounted(void *ctx, struct ucg_hierarchy *h)
{
	logf_(ctx, "remounted %s%s;", ucg_hierarchy_name(h), "");
}

static void on_created(void *ctx, struct ucg_cgroup *cg)
{
	logf_(ctx, "mkdir %s%s;", path_of(cg), "");
}

static void on_removed(void *ctx, struct ucg_cgroup *cg)
{
	logf_(ctx, "rmdir %s%s;", path_of(cg), "");
}

static void on_renamed(void *ctx, struct ucg_cgroup *cg, const char *old)
{
	logf_(ctx, "rename %s from %s;", path_of(cg), old);
}

static void on_attr(void *ctx, struct ucg_cgroup *cg, int file)
{
	logf_(ctx, "attr %s %s;", path_of(cg), file < 0 ? "dir" : "file");
}

static int can_attach(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	struct rec *r = ctx;
	char s[64];

	snprintf(s, sizeof(s), "%d+%zu", tids[0], n - 1);
	logf_(r, "can_attach %s %s;", path_of(to), s);
	return r->attach_veto;
}

static void on_attached(void *ctx, struct ucg_cgroup *to, const int *tids, size_t n)
{
	char s[64];

	snprintf(s, sizeof(s), "%d+%zu", tids[0], n - 1);
	logf_(ctx, "attached %s %s;", path_of(to), s);
}

static void on_forked(void *ctx, int parent, int child)
{
	char a[16], b[16];

	snprintf(a, sizeof(a), "%d", parent);
	snprintf(b, sizeof(b), "%d", child);
	logf_(ctx, "fork %s %s;", a, b);
}

static void on_exiting(void *ctx, int tid)
{
	char a[16];

	snprintf(a, sizeof(a), "%d", tid);
	logf_(ctx, "exit %s%s;", a, "");
}

static int can_write(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
		     size_t len)
{
	struct rec *r = ctx;

	(void)buf;
	(void)len;
	r->writes_checked++;
	logf_(r, "can_write %s/%s;", path_of(cg), file);
	return r->write_veto;
}

static void on_cancel(void *ctx, struct ucg_cgroup *cg, const char *file)
{
	logf_(ctx, "cancel %s/%s;", path_of(cg), file);
}

static void on_written(void *ctx, struct ucg_cgroup *cg, const char *file, const char *buf,
		       size_t len)
{
	char v[64];

	snprintf(v, sizeof(v), "%.*s", (int)len, buf);
	logf_(ctx, "written %s/%s", path_of(cg), file);
	logf_(ctx, "=%s%s;", v, "");
}

static const struct ucg_observer_ops all_ops = {
	.hierarchy_mounted = on_mounted,
	.hierarchy_unmounted = on_unmounted,
	.hierarchy_remounted = on_remounted,
	.cgroup_created = on_created,
	.cgroup_removed = on_removed,
	.cgroup_renamed = on_renamed,
	.cgroup_attr_changed = on_attr,
	.can_attach = can_attach,
	.attached = on_attached,
	.task_forked = on_forked,
	.task_exiting = on_exiting,
	.can_write = can_write,
	.cancel_write = on_cancel,
	.file_written = on_written,
};

static void reset(struct rec *r)
{
	memset(r, 0, sizeof(*r));
}

static void test_tree_events(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy *h, *h2;
	struct rec r;

	reset(&r);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r), 0);
	h = fx_mount(e, "none,name=x");
	h2 = fx_mount(e, "none,name=x");
	T_CHECK(h == h2);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(ucg_fs_rename(e, h, "/a/b", "/a/c", &root), 0);
	T_EQ_INT(ucg_fs_chmod(e, h, "/a", 0700, &root), 0);
	T_EQ_INT(ucg_fs_chown(e, h, "/a/tasks", 5, 5, &root), 0);
	T_EQ_INT(fx_rmdir(e, h, "/a/c"), 0);
	T_EQ_INT(ucg_remount(e, h, "none,name=x,release_agent=/bin/true", NULL), -EBUSY);
	T_EQ_INT(fx_rmdir(e, h, "/a"), 0);
	T_EQ_INT(ucg_remount(e, h, "none,name=x,release_agent=/bin/true", NULL), 0);
	T_EQ_INT(ucg_umount(e, h), 0);
	T_EQ_INT(ucg_umount(e, h), 0);
	T_EQ_STR(r.log, "mounted x new;mounted x;mkdir /a;mkdir /a/b;rename /a/c from b;"
			"attr /a dir;attr /a file;rmdir /a/c;rmdir /a;remounted x;unmounted x;"
			"unmounted x gone;");
	ucg_engine_free(e);
}

/* Refused operations report nothing. */
static void test_failures_silent(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_cred user = ucg_cred_user(1000, 1000);
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct rec r;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	fx_proc(e, 10, 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	reset(&r);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), -EEXIST);
	T_EQ_INT(ucg_fs_mkdir(e, h, "/b", 0755, &user), -EACCES);
	T_EQ_INT(fx_rmdir(e, h, "/a"), -EBUSY);
	T_EQ_INT(ucg_fs_chmod(e, h, "/a", 0700, &user), -EPERM);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "-1"), -EINVAL);
	T_EQ_INT(r.writes_checked, 1); /* parsed, so asked; then the controller refused */
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "x"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "999"), -ESRCH);
	/* each write the observer accepted and the engine then refused is cancelled */
	T_EQ_STR(r.log, "can_write /a/pids.max;cancel /a/pids.max;can_write /a/cgroup.procs;"
			"cancel /a/cgroup.procs;");
	ucg_engine_free(e);
}

static void test_attach_fork_exit(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=x");
	struct ucg_cgroup *cg;
	struct rec r;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	fx_proc(e, 10, 0);
	fx_thread(e, 10, 10, 11, 0);
	reset(&r);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0); /* already there: no move */
	fx_proc(e, 20, 0);
	T_EQ_INT(ucg_task_cgroup_get(e, 11, h, &cg), 0);
	T_EQ_STR(path_of(cg), "/a");
	T_EQ_INT(ucg_task_exit(e, 11), 0);
	T_EQ_INT(ucg_task_exit(e, 11), 0); /* twice: told once */
	T_EQ_INT(ucg_task_cgroup_get(e, 12, h, &cg), -ESRCH);
	T_EQ_STR(r.log, "can_write /a/cgroup.procs;can_attach /a 10+1;attached /a 10+1;"
			"written /a/cgroup.procs=10;can_write /a/cgroup.procs;"
			"written /a/cgroup.procs=10;exit 11;");
	reset(&r);
	{
		struct ucg_task_info ti = { .tid = 30, .tgid = 30 };

		T_EQ_INT(ucg_task_fork(e, 10, &ti), 0);
	}
	T_EQ_INT(ucg_task_cgroup_get(e, 30, h, &cg), 0);
	T_EQ_STR(path_of(cg), "/a");
	T_EQ_STR(r.log, "fork 10 30;");
	ucg_engine_free(e);
}

/* A veto is the caller's errno, and nothing moved or changed. */
static void test_vetoes(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct ucg_cgroup *cg;
	struct rec r;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	fx_proc(e, 10, 0);
	reset(&r);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r), 0);
	r.attach_veto = -EPERM;
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), -EPERM);
	T_EQ_INT(ucg_task_cgroup_get(e, 10, h, &cg), 0);
	T_EQ_STR(path_of(cg), "/");
	T_EQ_STR(fx_read(e, h, "/a/pids.current"), "0\n");
	r.attach_veto = 0;
	r.write_veto = -ENOSPC;
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "5"), -ENOSPC);
	T_EQ_STR(fx_read(e, h, "/a/pids.max"), "max\n");
	r.write_veto = 0;
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "5\n"), 0);
	T_EQ_STR(fx_read(e, h, "/a/pids.max"), "5\n");
	T_CHECK(strstr(r.log, "written /a/pids.max=5\n;") != NULL);
	ucg_engine_free(e);
}

/* Two observers: a veto by the second cancels what the first accepted, and the vetoing
 * one is not told; a refusal by the handler cancels both, the later first. */
static void test_cancel_write(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "pids");
	struct rec r1, r2;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	reset(&r1);
	reset(&r2);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r1), 0);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r2), 1);
	r2.write_veto = -EBUSY;
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "5"), -EBUSY);
	T_EQ_STR(r1.log, "can_write /a/pids.max;cancel /a/pids.max;");
	T_EQ_STR(r2.log, "can_write /a/pids.max;");
	T_EQ_STR(fx_read(e, h, "/a/pids.max"), "max\n");
	reset(&r1);
	reset(&r2);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "-2"), -EINVAL); /* parses; pids refuses it */
	T_EQ_STR(r1.log, "can_write /a/pids.max;cancel /a/pids.max;");
	T_EQ_STR(r2.log, "can_write /a/pids.max;cancel /a/pids.max;");
	reset(&r1);
	reset(&r2);
	T_EQ_INT(fx_write(e, h, "/a/pids.max", "7"), 0);
	T_EQ_STR(r1.log, "can_write /a/pids.max;written /a/pids.max=7;");
	ucg_engine_free(e);
}

static void test_slots_and_limits(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=x");
	static const struct ucg_observer_ops empty;
	struct ucg_cgroup *a, *b, *c;
	int ids[UCG_MAX_OBSERVERS], i, x;

	T_EQ_INT(ucg_observer_add(e, NULL, NULL), -EINVAL);
	for (i = 0; i < UCG_MAX_OBSERVERS; i++) {
		ids[i] = ucg_observer_add(e, &empty, NULL);
		T_EQ_INT(ids[i], i);
	}
	T_EQ_INT(ucg_observer_add(e, &empty, NULL), -ENOSPC);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/c"), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "/a", &a), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "/a/b", &b), 0);
	T_EQ_INT(ucg_cgroup_lookup(h, "/c", &c), 0);
	T_CHECK(ucg_cgroup_parent(b) == a);
	T_CHECK(ucg_cgroup_parent(ucg_hierarchy_root(h)) == NULL);
	T_CHECK(ucg_cgroup_hierarchy(b) == h);
	T_EQ_STR(ucg_cgroup_name(b), "b");
	T_CHECK(ucg_cgroup_next_child(ucg_hierarchy_root(h), NULL) == a);
	T_CHECK(ucg_cgroup_next_child(ucg_hierarchy_root(h), a) == c);
	T_CHECK(ucg_cgroup_next_child(ucg_hierarchy_root(h), c) == NULL);
	T_CHECK(ucg_cgroup_serial(a) != ucg_cgroup_serial(b));
	{
		struct ucg_cred root = ucg_cred_root();
		struct ucg_stat st;

		T_EQ_INT(ucg_fs_getattr(e, h, "/a/b", &root, &st), 0);
		T_CHECK(ucg_cgroup_ino(b) == st.ino);
		T_CHECK(ucg_cgroup_ino(a) != ucg_cgroup_ino(b));
	}
	T_CHECK(ucg_cgroup_priv(a, 3) == NULL);
	T_EQ_INT(ucg_cgroup_set_priv(a, 3, &x), 0);
	T_EQ_INT(ucg_cgroup_set_priv(b, 3, &x), 0);
	T_EQ_INT(ucg_cgroup_set_priv(b, UCG_MAX_OBSERVERS, &x), -EINVAL);
	T_CHECK(ucg_cgroup_priv(a, 3) == &x);
	T_CHECK(ucg_cgroup_priv(a, 2) == NULL);
	T_CHECK(ucg_cgroup_priv(c, 3) == NULL);
	T_EQ_INT(ucg_observer_remove(e, 3), 0);
	T_EQ_INT(ucg_observer_remove(e, 3), -EINVAL);
	T_CHECK(ucg_cgroup_priv(a, 3) == NULL);
	T_CHECK(ucg_cgroup_priv(b, 3) == NULL);
	T_EQ_INT(ucg_observer_add(e, &empty, NULL), 3);
	ucg_engine_free(e);
}

/* Every allocation of a slot array or of an attach's tid list may fail: -ENOMEM and
 * nothing moved. */
static void test_attach_enomem(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=x");
	struct ucg_cgroup *cg;
	struct rec r;
	int i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	fx_proc(e, 10, 0);
	for (i = 11; i < 30; i++)
		fx_thread(e, 10, 10, i, 0);
	reset(&r);
	T_EQ_INT(ucg_observer_add(e, &all_ops, &r), 0);
	for (i = 0;; i++) {
		int w;

		ucg_alloc_fail_after(i);
		w = fx_write(e, h, "/a/cgroup.procs", "10");
		ucg_alloc_fail_after(-1);
		T_EQ_INT(ucg_task_cgroup_get(e, 15, h, &cg), 0);
		if (w == 0) {
			T_EQ_STR(path_of(cg), "/a");
			break;
		}
		T_EQ_INT(w, -ENOMEM);
		T_EQ_STR(path_of(cg), "/");
	}
	T_CHECK(strstr(r.log, "attached /a 10+19;") != NULL);
	if (!strstr(r.log, "attached /a 10+19;"))
		fprintf(stderr, "log: %s\n", r.log);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_tree_events);
	T_RUN(test_failures_silent);
	T_RUN(test_attach_fork_exit);
	T_RUN(test_vetoes);
	T_RUN(test_cancel_write);
	T_RUN(test_slots_and_limits);
	T_RUN(test_attach_enomem);
	return t_done();
}
