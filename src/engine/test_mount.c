/* engine/test_mount.c — mount options, hierarchy matching, remount, ids, lifetime
 * (docs/kernel/core.md §1), mountinfo options and /proc/cgroups. */
#include "engine/test_fixture.h"

static int mount_err(struct ucg_engine *e, const char *opts)
{
	struct ucg_hierarchy *h;

	return ucg_mount(e, opts, &h, NULL);
}

/* The machine of docs/kernel/core.md's table: eight controllers bound alone, plus name=systemd. */
static struct ucg_engine *kernel_like(void)
{
	static const char *const alone[] = { "cpu", "cpuacct", "cpuset", "memory", "devices",
					     "freezer", "blkio", "pids" };
	struct ucg_engine *e = fx_engine();
	size_t i;

	for (i = 0; i < sizeof(alone) / sizeof(alone[0]); i++)
		fx_mount(e, alone[i]);
	fx_mount(e, "none,name=systemd");
	return e;
}

static void test_observed_table(void)
{
	struct ucg_engine *e = kernel_like();
	struct ucg_hierarchy *a, *a2, *h;
	char name63[64], name64[65];

	a = fx_mount(e, "none,name=A");
	T_CHECK(a != NULL);
	a2 = fx_mount(e, "name=A");
	T_CHECK(a2 == a);
	T_CHECK(fx_mount(e, "none,name=A,,") == a);
	T_CHECK(fx_mount(e, "none,name=A,noprefix") == a);
	T_EQ_INT(ucg_hierarchy_mount_count(a), 4);
	T_EQ_INT(mount_err(e, "none"), -EINVAL);
	T_EQ_INT(mount_err(e, "name=B"), -EINVAL);
	h = fx_mount(e, "cpu");
	T_EQ_STR(ucg_hierarchy_name(h), "");
	T_EQ_INT(mount_err(e, "cpu,cpuacct"), -EBUSY);
	T_EQ_INT(mount_err(e, "cpu,name=A"), -EBUSY);
	T_EQ_INT(mount_err(e, "cpu,name=Z"), -EBUSY);
	T_EQ_INT(mount_err(e, ""), -EBUSY);
	T_EQ_INT(mount_err(e, NULL), -EBUSY);
	T_EQ_INT(mount_err(e, "all"), -EBUSY);
	T_EQ_INT(mount_err(e, "all,name=Z"), -EBUSY);
	T_EQ_INT(mount_err(e, "all,none"), -EINVAL);
	T_EQ_INT(mount_err(e, "all,cpu"), -EINVAL);
	T_EQ_INT(mount_err(e, "none,cpu"), -EINVAL);
	T_EQ_INT(mount_err(e, "bogus"), -EINVAL);
	T_EQ_INT(mount_err(e, "io"), -EINVAL);
	T_EQ_INT(mount_err(e, "systemd"), -EINVAL);
	T_EQ_INT(mount_err(e, "Name=x"), -EINVAL);
	T_EQ_INT(mount_err(e, " none"), -EINVAL);
	T_EQ_INT(mount_err(e, "name="), -EINVAL);
	T_EQ_INT(mount_err(e, "name"), -EINVAL);
	T_EQ_INT(mount_err(e, "name=a/b"), -EINVAL);
	T_EQ_INT(mount_err(e, "name=a b"), -EINVAL);
	T_EQ_INT(mount_err(e, "name=a:b"), -EINVAL);
	memset(name64, 'n', 64);
	name64[64] = '\0';
	memset(name63, 'n', 63);
	name63[63] = '\0';
	{
		char opts[128];

		snprintf(opts, sizeof(opts), "none,name=%s", name64);
		T_EQ_INT(mount_err(e, opts), -EINVAL);
		snprintf(opts, sizeof(opts), "none,name=%s", name63);
		T_EQ_INT(mount_err(e, opts), 0);
	}
	T_EQ_INT(mount_err(e, "none,name=x_y.z-w"), 0);
	T_EQ_INT(mount_err(e, "hugetlb,noprefix,name=X"), -EINVAL);
	T_EQ_INT(mount_err(e, "none,name=X,noprefix"), 0);
	T_EQ_INT(mount_err(e, "none,name=X2,cpuset_v2_mode"), 0);
	T_EQ_INT(mount_err(e, "none,name=X3,xattr"), 0);
	T_EQ_INT(mount_err(e, "none,name=X4,favordynmods"), 0);
	h = fx_mount(e, "perf_event,hugetlb,name=N");
	T_CHECK(fx_mount(e, "hugetlb,perf_event") == h);
	T_CHECK(fx_mount(e, "name=systemd") == fx_mount(e, "none,name=systemd"));
	ucg_engine_free(e);
}

static void test_grammar_errors(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h;
	struct ucg_err err;

	T_EQ_INT(ucg_mount(e, "bogus", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: Unknown subsys name 'bogus'");
	T_EQ_INT(ucg_mount(e, "none", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: Need name or subsystem set");
	T_EQ_INT(ucg_mount(e, "none,cpu", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: none used incorrectly");
	T_EQ_INT(ucg_mount(e, "all,cpu", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: subsys name conflicts with all");
	T_EQ_INT(ucg_mount(e, "name=a,name=b", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: name respecified");
	T_EQ_INT(ucg_mount(e, "name=B", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: No subsys list or none specified");
	T_EQ_INT(ucg_mount(e, "none,name=r,release_agent=/a,release_agent=/b", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: release_agent respecified");
	T_EQ_INT(ucg_mount(e, "none,name=r,release_agent=", &h, &err), -EINVAL);
	T_EQ_INT(ucg_mount(e, "none,name=r,noprefix=1", &h, &err), -EINVAL);
	T_EQ_INT(ucg_mount(e, "__DEVEL__sane_behavior", &h, &err), -EINVAL);
	T_EQ_INT(ucg_mount(e, "none,name=r,nsdelegate", &h, &err), -EINVAL);
	T_EQ_INT(ucg_mount(e, "cpu,noprefix", &h, &err), -EINVAL);
	T_EQ_STR(err.msg, "cgroup: noprefix used incorrectly");
	T_EQ_INT(ucg_mount(e, "cpuset,noprefix", &h, &err), 0);
	T_EQ_INT(ucg_mount(e, ",,none,name=lead,", &h, &err), 0);
	/* `all` takes every controller not yet bound... and cpuset is bound: EBUSY. */
	T_EQ_INT(ucg_mount(e, "all", &h, &err), -EBUSY);
	ucg_engine_free(e);
}

static void test_all_binds_everything(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, NULL);
	struct ucg_buf b;

	ucg_buf_init(&b);
	ucg_hierarchy_format_controllers(h, &b);
	T_EQ_STR(b.data, "cpuset,cpu,cpuacct,blkio,memory,devices,freezer,net_cls,perf_event,"
			 "net_prio,hugetlb,pids,debug");
	ucg_buf_fini(&b);
	T_CHECK(fx_mount(e, "all") == h);
	T_CHECK(fx_mount(e, "") == h);
	ucg_engine_free(e);
}

static void test_mountinfo_options(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "hugetlb,perf_event,name=N");
	struct ucg_buf b;

	ucg_buf_init(&b);
	ucg_hierarchy_format_options(h, &b);
	T_EQ_STR(b.data, "rw,perf_event,hugetlb,name=N");
	ucg_buf_reset(&b);
	h = fx_mount(e, "none,name=I,clone_children,release_agent=/x,cpuset_v2_mode,xattr,noprefix");
	ucg_hierarchy_format_options(h, &b);
	T_EQ_STR(b.data, "rw,noprefix,xattr,cpuset_v2_mode,release_agent=/x,clone_children,name=I");
	/* Writing the root's files changes the line at once. */
	T_EQ_INT(fx_write(e, h, "/release_agent", "/a b,c\\d"), 0);
	T_EQ_INT(fx_write(e, h, "/cgroup.clone_children", "0"), 0);
	ucg_buf_reset(&b);
	ucg_hierarchy_format_options(h, &b);
	T_EQ_STR(b.data, "rw,noprefix,xattr,cpuset_v2_mode,release_agent=/a\\040b\\054c\\134d,name=I");
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

static void test_match_ignores_agent_and_clone(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=M,release_agent=/first");

	T_CHECK(fx_mount(e, "none,name=M,release_agent=/second,clone_children") == h);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "/first\n");
	T_EQ_STR(fx_read(e, h, "/cgroup.clone_children"), "0\n");
	ucg_engine_free(e);
}

static void test_remount(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=M");
	struct ucg_buf b;

	T_EQ_INT(ucg_remount(e, h, "none,name=M", NULL), 0);
	T_EQ_INT(ucg_remount(e, h, "name=M", NULL), 0);
	T_EQ_INT(ucg_remount(e, h, "hugetlb,name=M", NULL), 0);
	T_EQ_STR(fx_read(e, h, "/tasks"), "");
	ucg_buf_init(&b);
	ucg_proc_cgroups(e, &b);
	T_CHECK(strstr(b.data, "hugetlb\t1\t1\t1\n") != NULL);
	ucg_buf_fini(&b);
	T_EQ_INT(ucg_remount(e, h, "name=M", NULL), 0); /* releases hugetlb */
	ucg_buf_init(&b);
	ucg_proc_cgroups(e, &b);
	T_CHECK(strstr(b.data, "hugetlb\t0\t1\t1\n") != NULL);
	ucg_buf_fini(&b);
	T_EQ_INT(ucg_remount(e, h, "none,name=other", NULL), -EINVAL);
	T_EQ_INT(ucg_remount(e, h, "none", NULL), -EINVAL);
	T_EQ_INT(ucg_remount(e, h, "none,name=M,xattr", NULL), -EINVAL);
	T_EQ_INT(ucg_remount(e, h, "none,name=M,noprefix", NULL), -EINVAL);
	T_EQ_INT(ucg_remount(e, h, "none,name=M,clone_children", NULL), 0);
	T_EQ_STR(fx_read(e, h, "/cgroup.clone_children"), "0\n");
	T_EQ_INT(ucg_remount(e, h, "none,name=M,release_agent=/p", NULL), 0);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "/p\n");
	/* Empty data means `all`, and cpu is bound to another hierarchy. */
	fx_mount(e, "cpu");
	T_EQ_INT(ucg_remount(e, h, "", NULL), -EBUSY);
	T_EQ_INT(ucg_remount(e, h, NULL, NULL), -EBUSY);
	/* With a child, everything valid is EBUSY, and the agent stays. */
	T_EQ_INT(fx_mkdir(e, h, "/child"), 0);
	T_EQ_INT(ucg_remount(e, h, "none,name=M", NULL), -EBUSY);
	T_EQ_INT(ucg_remount(e, h, "name=M", NULL), -EBUSY);
	T_EQ_INT(ucg_remount(e, h, "hugetlb,name=M", NULL), -EBUSY);
	T_EQ_INT(ucg_remount(e, h, "none,name=M,release_agent=/q", NULL), -EBUSY);
	T_EQ_STR(fx_read(e, h, "/release_agent"), "/p\n");
	T_EQ_INT(ucg_remount(e, h, "none,name=other", NULL), -EINVAL);
	T_EQ_INT(ucg_remount(e, h, "none,name=M,xattr", NULL), -EINVAL);
	ucg_engine_free(e);
}

static void test_remount_bound_elsewhere(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "none,name=M");

	fx_mount(e, "hugetlb");
	T_EQ_INT(ucg_remount(e, h, "hugetlb,name=M", NULL), -EBUSY);
	T_EQ_INT(ucg_remount(e, h, "pids,name=M", NULL), 0);
	ucg_engine_free(e);
}

static void test_ids_cyclic(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *a = fx_mount(e, "none,name=a");
	struct ucg_hierarchy *b = fx_mount(e, "none,name=b");
	struct ucg_hierarchy *c;

	T_EQ_INT(ucg_hierarchy_id(a), 1);
	T_EQ_INT(ucg_hierarchy_id(b), 2);
	T_EQ_INT(ucg_umount(e, a), 0); /* no children: destroyed */
	T_CHECK(ucg_hierarchy_find(e, 1) == NULL);
	c = fx_mount(e, "none,name=c");
	T_EQ_INT(ucg_hierarchy_id(c), 3); /* 1 is free but not reused before wrapping */
	c = fx_mount(e, "none,name=a");
	T_EQ_INT(ucg_hierarchy_id(c), 4);
	ucg_engine_free(e);
}

static void test_lifetime(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "hugetlb,name=L"), *again;
	struct ucg_buf b;
	int id = ucg_hierarchy_id(h);

	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/kept"), 0);
	T_EQ_INT(fx_write(e, h, "/kept/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/release_agent", "/agent"), 0);
	T_EQ_INT(ucg_umount(e, h), 0);
	/* Alive, unmounted: keeps id, controllers, tree, membership, agent. */
	T_CHECK(ucg_hierarchy_find(e, id) == h);
	T_EQ_INT(ucg_hierarchy_mount_count(h), 0);
	T_EQ_INT(mount_err(e, "hugetlb,pids"), -EBUSY);
	ucg_buf_init(&b);
	ucg_proc_cgroup(e, 100, 0, &b);
	T_EQ_STR(b.data, "1:hugetlb,name=L:/kept\n");
	ucg_buf_reset(&b);
	ucg_proc_cgroups(e, &b);
	T_CHECK(strstr(b.data, "hugetlb\t1\t2\t1\n") != NULL);
	ucg_buf_fini(&b);
	again = fx_mount(e, "hugetlb,name=L");
	T_CHECK(again == h);
	T_EQ_STR(fx_read(e, h, "/kept/tasks"), "100\n");
	T_EQ_STR(fx_read(e, h, "/release_agent"), "/agent\n");
	/* Emptied while unmounted: destroyed at the next mount+umount, not before. */
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "100"), 0);
	T_EQ_INT(ucg_umount(e, h), 0);
	{
		struct ucg_cred c = ucg_cred_root();

		T_EQ_INT(ucg_fs_rmdir(e, h, "/kept", &c), 0);
	}
	T_CHECK(ucg_hierarchy_find(e, id) == h);
	h = fx_mount(e, "hugetlb,name=L");
	T_EQ_INT(ucg_umount(e, h), 0);
	T_CHECK(ucg_hierarchy_find(e, id) == NULL);
	ucg_buf_init(&b);
	ucg_proc_cgroup(e, 100, 0, &b);
	T_EQ_STR(b.data ? b.data : "", "");
	ucg_buf_reset(&b);
	ucg_proc_cgroups(e, &b);
	T_CHECK(strstr(b.data, "hugetlb\t0\t1\t1\n") != NULL);
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

static void test_proc_cgroups_text(void)
{
	struct ucg_engine *e = fx_engine();
	struct ucg_hierarchy *h = fx_mount(e, "cpu,cpuacct");
	struct ucg_buf b;

	fx_mount(e, "none,name=systemd");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	ucg_buf_init(&b);
	ucg_proc_cgroups(e, &b);
	T_EQ_STR(b.data, "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
			 "cpuset\t0\t1\t1\n"
			 "cpu\t1\t3\t1\n"
			 "cpuacct\t1\t3\t1\n"
			 "blkio\t0\t1\t1\n"
			 "memory\t0\t1\t1\n"
			 "devices\t0\t1\t1\n"
			 "freezer\t0\t1\t1\n"
			 "net_cls\t0\t1\t1\n"
			 "perf_event\t0\t1\t1\n"
			 "net_prio\t0\t1\t1\n"
			 "hugetlb\t0\t1\t1\n"
			 "pids\t0\t1\t1\n"
			 "debug\t0\t1\t1\n");
	ucg_buf_fini(&b);
	ucg_engine_free(e);
}

/* Every constructor on the mount path survives failing the Nth allocation. */
static void test_alloc_failures(void)
{
	long n;
	int ok = 0;

	for (n = 0; n < 200 && !ok; n++) {
		struct ucg_engine *e = NULL;
		struct ucg_hierarchy *h;
		int r;

		ucg_alloc_fail_after(n);
		r = ucg_engine_new(NULL, &e);
		if (r == 0) {
			r = ucg_mount(e, "cpu,cpuacct,name=x", &h, NULL);
			if (r == 0)
				r = fx_mkdir(e, h, "/a");
			if (r == 0)
				ok = 1;
			else
				T_EQ_INT(r, -ENOMEM);
		} else {
			T_EQ_INT(r, -ENOMEM);
		}
		ucg_alloc_fail_after(-1);
		ucg_engine_free(e);
	}
	T_CHECK(ok);
}

int main(void)
{
	T_RUN(test_observed_table);
	T_RUN(test_grammar_errors);
	T_RUN(test_all_binds_everything);
	T_RUN(test_mountinfo_options);
	T_RUN(test_match_ignores_agent_and_clone);
	T_RUN(test_remount);
	T_RUN(test_remount_bound_elsewhere);
	T_RUN(test_ids_cyclic);
	T_RUN(test_lifetime);
	T_RUN(test_proc_cgroups_text);
	T_RUN(test_alloc_failures);
	return t_done();
}
