/* controllers/test_hugetlb.c — the hugetlb controller (docs/kernel/controllers.md §11). */
#include "controllers/charge.h"
#include "test_fixture.h"

#define MEMMAX "9223372036854771712\n"

FX_ONE_MOUNT("hugetlb")

static void test_files(void)
{
	static const char *const sizes[] = { "2MB", "1GB" };
	static const struct {
		const char *f;
		unsigned mode;
		const char *content;
	} files[] = {
		{ "limit_in_bytes", 0644, MEMMAX },
		{ "usage_in_bytes", 0444, "0\n" },
		{ "max_usage_in_bytes", 0644, "0\n" },
		{ "failcnt", 0644, "0\n" },
		{ "rsvd.limit_in_bytes", 0644, MEMMAX },
		{ "rsvd.usage_in_bytes", 0444, "0\n" },
		{ "rsvd.max_usage_in_bytes", 0644, "0\n" },
		{ "rsvd.failcnt", 0644, "0\n" },
		{ "numa_stat", 0444, "total=0 N0=0\nhierarchical_total=0 N0=0\n" },
	};
	struct ucg_cred root = ucg_cred_root();
	char path[128];
	size_t s, i;
	int d;

	setup();
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (d = 0; d < 2; d++)
		for (s = 0; s < 2; s++)
			for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
				struct ucg_stat st;

				snprintf(path, sizeof(path), "%s/hugetlb.%s.%s", d ? "/a" : "",
					 sizes[s], files[i].f);
				T_EQ_INT(ucg_fs_getattr(e, h, path, &root, &st), 0);
				if ((st.mode & 07777) != files[i].mode)
					T_FAIL_AT("%s mode %o", path, st.mode & 07777);
				T_EQ_STR(rd(path), files[i].content);
			}
	T_EQ_INT(wr("/a/hugetlb.2MB.usage_in_bytes", "0"), -EINVAL);
	T_EQ_INT(wr("/a/hugetlb.2MB.numa_stat", "0"), -EINVAL);
	teardown();
}

static void test_limits(void)
{
	static const struct {
		const char *file, *in, *out;
	} t[] = {
		{ "2MB", "2M", "2097152\n" },
		{ "2MB", "3M", "2097152\n" },
		{ "2MB", "1M", "0\n" },
		{ "2MB", "4194303", "2097152\n" },
		{ "2MB", "1G", "1073741824\n" },
		{ "2MB", "-1", "9223372036852678656\n" },
		{ "2MB", "9223372036854775807", "9223372036852678656\n" },
		{ "2MB", "16E", "0\n" },
		{ "1GB", "1500M", "1073741824\n" },
		{ "1GB", "-1", "9223372035781033984\n" },
	};
	char path[64];
	size_t i;

	setup();
	T_EQ_INT(wr("/hugetlb.2MB.limit_in_bytes", "2M"), -EINVAL);
	T_EQ_INT(wr("/hugetlb.2MB.rsvd.limit_in_bytes", "2M"), -EINVAL);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(path, sizeof(path), "/a/hugetlb.%s.limit_in_bytes", t[i].file);
		T_EQ_INT(wr(path, t[i].in), 0);
		T_EQ_STR(rd(path), t[i].out);
		snprintf(path, sizeof(path), "/a/hugetlb.%s.rsvd.limit_in_bytes", t[i].file);
		T_EQ_INT(wr(path, t[i].in), 0);
		T_EQ_STR(rd(path), t[i].out);
	}
	T_EQ_INT(wr("/a/hugetlb.2MB.limit_in_bytes", "abc"), -EINVAL);
	T_EQ_INT(wr("/a/hugetlb.2MB.limit_in_bytes", "max"), -EINVAL);
	T_EQ_INT(wr("/a/hugetlb.2MB.rsvd.limit_in_bytes", "-2"), -EINVAL);
	T_EQ_STR(rd("/a/hugetlb.2MB.limit_in_bytes"), "0\n");
	/* a new child is not limited by inheritance */
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_STR(rd("/a/b/hugetlb.2MB.limit_in_bytes"), MEMMAX);
	teardown();
}

static void test_charges(void)
{
	struct ucg_charge_result res;
	struct ucg_buf path;

	setup();
	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_INT(wr("/p/c/cgroup.procs", "100"), 0);
	T_EQ_INT(wr("/p/hugetlb.2MB.limit_in_bytes", "2M"), 0);
	T_EQ_INT(wr("/p/c/hugetlb.2MB.limit_in_bytes", "1G"), 0); /* above the parent's */
	T_EQ_INT(ucg_hugetlb_charge(fx_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1, NULL), 0);
	ucg_buf_init(&path);
	memset(&res, 0, sizeof(res));
	res.path = &path;
	/* the second fault: SIGBUS, counted in the parent whose limit refused */
	T_EQ_INT(ucg_hugetlb_charge(fx_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1, &res), -ENOMEM);
	T_EQ_STR(path.data, "/p");
	T_EQ_INT(res.hierarchy_id, ucg_hierarchy_id(h));
	T_CHECK(res.cgroup == fx_cg(h, "/p"));
	T_EQ_STR(rd("/p/hugetlb.2MB.failcnt"), "1\n");
	T_EQ_STR(rd("/p/c/hugetlb.2MB.failcnt"), "0\n");
	T_EQ_STR(rd("/p/hugetlb.2MB.max_usage_in_bytes"), "2097152\n");
	T_EQ_STR(rd("/p/c/hugetlb.2MB.usage_in_bytes"), "2097152\n");
	T_EQ_STR(rd("/hugetlb.2MB.usage_in_bytes"), "2097152\n");
	T_EQ_STR(rd("/p/hugetlb.2MB.numa_stat"),
		 "total=0 N0=0\nhierarchical_total=2097152 N0=2097152\n");
	T_EQ_STR(rd("/p/c/hugetlb.2MB.numa_stat"),
		 "total=2097152 N0=2097152\nhierarchical_total=2097152 N0=2097152\n");
	/* the limit cannot go below usage */
	T_EQ_INT(wr("/p/hugetlb.2MB.limit_in_bytes", "0"), -EBUSY);
	/* reservations: a separate counter; ENOMEM at mmap */
	T_EQ_INT(wr("/p/hugetlb.2MB.rsvd.limit_in_bytes", "2M"), 0);
	T_EQ_INT(ucg_hugetlb_charge(fx_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, true, 2, NULL), -ENOMEM);
	T_EQ_STR(rd("/p/hugetlb.2MB.rsvd.failcnt"), "1\n");
	T_EQ_INT(ucg_hugetlb_charge(fx_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, true, 1, NULL), 0);
	T_EQ_STR(rd("/p/c/hugetlb.2MB.rsvd.usage_in_bytes"), "2097152\n");
	/* resets */
	T_EQ_INT(ucg_hugetlb_uncharge(fx_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1), 0);
	T_EQ_INT(wr("/p/hugetlb.2MB.max_usage_in_bytes", "x"), 0);
	T_EQ_STR(rd("/p/hugetlb.2MB.max_usage_in_bytes"), "0\n");
	T_EQ_INT(wr("/p/hugetlb.2MB.failcnt", "x"), 0);
	T_EQ_STR(rd("/p/hugetlb.2MB.failcnt"), "0\n");
	T_EQ_INT(ucg_hugetlb_uncharge(fx_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1), -ERANGE);
	/* 1GB pages count separately */
	T_EQ_INT(ucg_hugetlb_charge(fx_cg(h, "/p/c"), UCG_HUGETLB_1GB, false, 1, NULL), 0);
	T_EQ_STR(rd("/p/hugetlb.1GB.usage_in_bytes"), "1073741824\n");
	T_EQ_INT(ucg_hugetlb_uncharge(fx_cg(h, "/p/c"), UCG_HUGETLB_1GB, false, 1), 0);
	/* hugetlb bound nowhere (NULL): nothing charged */
	T_EQ_INT(ucg_hugetlb_charge(NULL, UCG_HUGETLB_1GB, false, 1, NULL), 0);
	T_EQ_INT(ucg_hugetlb_uncharge(NULL, UCG_HUGETLB_1GB, false, 1), 0);
	T_EQ_INT(fx_task_cg_err(e, 1234, UCG_SS_hugetlb), -ESRCH);
	ucg_buf_fini(&path);
	teardown();
}

int main(void)
{
	T_RUN(test_files);
	T_RUN(test_limits);
	T_RUN(test_charges);
	return t_done();
}
