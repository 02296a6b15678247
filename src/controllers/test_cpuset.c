/* controllers/test_cpuset.c — cpuset: files and defaults, the list grammar, the
 * kernel's check order, exclusive flags, clone_children, attach, the provider's
 * masks, hot-unplug's "look upward" and cpuset_v2_mode (docs/kernel/controllers.md §1). */
#include "controllers/charge.h"
#include "engine/test_fixture.h"

/* What the provider heard: the last mask per tid (as a byte) and a call count. */
struct rec {
	int calls;
	unsigned char cpus[64];
	unsigned char mems[64];
	int migrations;
	unsigned char from[64], to[64]; /* the last migration's masks per tid */
};

static void rec_cpus(void *ctx, struct ucg_engine *e, int tid, const unsigned char *m, size_t n)
{
	struct rec *r = ctx;

	r->calls++;
	if (tid > 0 && tid < 64)
		r->cpus[tid] = n ? m[0] : 0xff;
}

static void rec_mems(void *ctx, struct ucg_engine *e, int tid, const unsigned char *m, size_t n)
{
	struct rec *r = ctx;

	if (tid > 0 && tid < 64)
		r->mems[tid] = n ? m[0] : 0xff;
}

static void rec_migrate(void *ctx, struct ucg_engine *e, int tid, const unsigned char *from,
			const unsigned char *to, size_t n)
{
	struct rec *r = ctx;

	r->migrations++;
	if (tid > 0 && tid < 64 && n) {
		r->from[tid] = from[0];
		r->to[tid] = to[0];
	}
}

static const struct ucg_provider_ops rec_ops = { .cpus_changed = rec_cpus,
						 .mems_changed = rec_mems,
						 .mems_migrate = rec_migrate };

static struct ucg_engine *engine(unsigned cpus, unsigned mems, struct rec *r)
{
	struct ucg_engine_config cfg;
	struct ucg_engine *e = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_cpus = cpus;
	cfg.nr_mems = mems;
	if (r) {
		memset(r, 0, sizeof(*r));
		cfg.provider = &rec_ops;
		cfg.provider_ctx = r;
	}
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	return e;
}

static void test_files_defaults(void)
{
	struct ucg_engine *e = engine(2, 1, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");
	struct ucg_cred root = ucg_cred_root();
	struct ucg_stat st;

	T_EQ_STR(fx_read(e, h, "/cpuset.cpus"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.mems"), "0\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.effective_cpus"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.effective_mems"), "0\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.cpu_exclusive"), "1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.mem_exclusive"), "1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.sched_load_balance"), "1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.sched_relax_domain_level"), "-1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "0\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure_enabled"), "0\n");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpus"), "\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.mems"), "\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.effective_cpus"), "\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpu_exclusive"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.mem_exclusive"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.mem_hardwall"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.memory_migrate"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.memory_spread_page"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.sched_load_balance"), "1\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.sched_relax_domain_level"), "-1\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.memory_pressure_enabled"), "<errno 2>");
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpuset.effective_cpus", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0444);
	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cpuset.cpus", &root, &st), 0);
	T_EQ_INT(st.mode & 0777, 0644);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.effective_cpus", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.memory_pressure", "0"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpuset.memory_pressure_enabled", "1"), 0);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure_enabled"), "1\n");
	ucg_engine_free(e);

	/* noprefix drops "cpuset." */
	e = engine(2, 1, NULL);
	h = fx_mount(e, "cpuset,noprefix");
	T_EQ_STR(fx_read(e, h, "/cpus"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.cpus"), "<errno 2>");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpus", "1"), 0);
	T_EQ_STR(fx_read(e, h, "/a/effective_cpus"), "1\n");
	ucg_engine_free(e);
}

static void test_list_grammar(void)
{
	static const struct {
		const char *in;
		int err;
		const char *reads;
	} cases[] = {
		{ "0-1", 0, "0-1\n" },	  { "1 0", 0, "0-1\n" },     { "1 , 0", 0, "0-1\n" },
		{ "0,,1", 0, "0-1\n" },	  { "0-1:1/2", 0, "0\n" },   { "0-1:2/2", 0, "0-1\n" },
		{ "01", 0, "1\n" },	  { "0\n1", 0, "0\n" },	     { "\n", 0, "\n" },
		{ "  1  ", 0, "1\n" },	  { "all", 0, "0-1\n" },     { "N", 0, "1\n" },
		{ "abc", -EINVAL, NULL }, { "1-0", -EINVAL, NULL },  { "-1", -EINVAL, NULL },
		{ "0-", -EINVAL, NULL },  { "0 - 1", -EINVAL, NULL }, { "0-1:1", -EINVAL, NULL },
		{ "0x1", -EINVAL, NULL }, { "2", -ERANGE, NULL },    { "64", -ERANGE, NULL },
		{ "8192", -ERANGE, NULL }, { "4294967296", -EOVERFLOW, NULL },
		{ "4294967295", -EINVAL, NULL },
	};
	static const struct {
		const char *in;
		int err;
		const char *reads;
	} mems[] = {
		{ "0", 0, "0\n" },	     { "1", -EINVAL, NULL },   { "1023", -EINVAL, NULL },
		{ "1024", -ERANGE, NULL },   { "5000", -ERANGE, NULL },
		{ "4294967296", -EOVERFLOW, NULL }, { "0x1", -EINVAL, NULL },
		{ "0-1:1/2", 0, "0\n" },     { "\n", 0, "\n" },	       { "all", -EINVAL, NULL },
		{ "N", -EINVAL, NULL },	     { "0\n1", 0, "0\n" },
	};
	struct ucg_engine *e = engine(2, 1, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");
	char before[8192];
	size_t i;

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(before, sizeof(before), "%s", fx_read(e, h, "/a/cpuset.cpus"));
		T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", cases[i].in), cases[i].err);
		T_EQ_STR(fx_read(e, h, "/a/cpuset.cpus"), cases[i].reads ? cases[i].reads : before);
	}
	for (i = 0; i < sizeof(mems) / sizeof(mems[0]); i++) {
		snprintf(before, sizeof(before), "%s", fx_read(e, h, "/a/cpuset.mems"));
		T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", mems[i].in), mems[i].err);
		T_EQ_STR(fx_read(e, h, "/a/cpuset.mems"), mems[i].reads ? mems[i].reads : before);
	}
	/* The root's masks are read-only, before any parsing. */
	T_EQ_INT(fx_write(e, h, "/cpuset.cpus", "0-1"), -EACCES);
	T_EQ_INT(fx_write(e, h, "/cpuset.cpus", "abc"), -EACCES);
	T_EQ_INT(fx_write(e, h, "/cpuset.mems", "0"), -EACCES);
	T_EQ_INT(fx_write(e, h, "/cpuset.cpus", ""), 0);
	ucg_engine_free(e);

	/* Canonical output. */
	e = engine(8, 1, NULL);
	h = fx_mount(e, "cpuset");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "7,4,3,2,0"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpus"), "0,2-4,7\n");
	ucg_engine_free(e);
}

static void test_check_order(void)
{
	struct ucg_engine *e = engine(4, 2, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");

	fx_proc(e, 100, 0);
	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	/* Not a subset of the parent (empty): EACCES. */
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.cpus", "0"), -EACCES);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "0-2"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.mems", "0-1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.cpus", "1-2"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.mems", "1"), 0);
	/* The parent cannot shrink below the child: EBUSY, even when the new set is
	 * also populated-empty (EBUSY comes first). */
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "0-1"), -EBUSY);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.mems", "0"), -EBUSY);
	/* Equal: success at once, even where the later checks would fail. */
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "2,1,0"), 0);
	/* Online but outside the parent: EACCES. */
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.cpus", "3"), -EACCES);
	/* Populated and emptied: ENOSPC. */
	T_EQ_INT(fx_write(e, h, "/p/c/cgroup.procs", "100"), 0);
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.cpus", "\n"), -ENOSPC);
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.mems", "\n"), -ENOSPC);
	/* The parent is populated too, through its child. */
	T_EQ_INT(fx_write(e, h, "/p/c/cpuset.cpus", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "1"), 0);
	T_EQ_STR(fx_read(e, h, "/p/cpuset.cpus"), "1\n");
	/* A parent may grow; children do not follow. */
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "0-3"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/cpuset.cpus"), "1\n");
	ucg_engine_free(e);

	/* Offline CPU (below the possible count): EINVAL, before EACCES. */
	e = engine(4, 1, NULL);
	h = fx_mount(e, "cpuset");
	{
		unsigned char cpus = 0x7, mems = 0x1;

		T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), 0);
	}
	T_EQ_STR(fx_read(e, h, "/cpuset.cpus"), "0-2\n");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "3"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "4"), -ERANGE);
	ucg_engine_free(e);
}

static void test_exclusive(void)
{
	struct ucg_engine *e = engine(4, 2, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/x"), 0);
	/* U64 flag grammar. */
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_hardwall", "2"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.mem_hardwall"), "1\n");
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_hardwall", "18446744073709551615"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_hardwall", "0x0"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.mem_hardwall"), "0\n");
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_hardwall", " 1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_hardwall", "-1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_hardwall", "18446744073709551616"), -ERANGE);

	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "0-1"), 0);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.cpus", "1-2"), 0);
	/* Overlap with any sibling: EINVAL, exclusive or not. */
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpu_exclusive", "1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.cpus", "2-3"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpu_exclusive", "1"), 0);
	/* Now b may not overlap a. */
	T_EQ_INT(fx_write(e, h, "/b/cpuset.cpus", "1-3"), -EINVAL);
	/* The child of a non-exclusive parent cannot be exclusive... */
	T_EQ_INT(fx_write(e, h, "/a/x/cpuset.cpus", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.cpu_exclusive", "0"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b/y"), 0);
	T_EQ_INT(fx_write(e, h, "/b/y/cpuset.cpu_exclusive", "1"), -EACCES);
	/* ...but under an exclusive one it can, and then the parent cannot clear. */
	T_EQ_INT(fx_write(e, h, "/a/x/cpuset.cpu_exclusive", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpu_exclusive", "0"), -EBUSY);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpu_exclusive"), "1\n");
	/* An exclusive, load-balanced cpuset cannot be emptied (6.18 deadline check);
	 * with sched_load_balance 0 it can (verified). */
	T_EQ_INT(fx_write(e, h, "/a/x/cpuset.cpus", "\n"), -EBUSY);
	T_EQ_INT(fx_write(e, h, "/a/x/cpuset.sched_load_balance", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/x/cpuset.cpus", "\n"), 0);
	T_EQ_INT(fx_write(e, h, "/a/x/cpuset.cpus", "0"), 0);
	/* An empty exclusive set overlaps nothing. */
	T_EQ_INT(fx_mkdir(e, h, "/e"), 0);
	T_EQ_INT(fx_write(e, h, "/e/cpuset.cpu_exclusive", "1"), 0);
	/* mem_exclusive: same rules on mems. */
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.mems", "0-1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_exclusive", "1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.mems", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mem_exclusive", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.mems", "0-1"), -EINVAL);
	/* The root's flags are writable under the same rules. */
	T_EQ_INT(fx_write(e, h, "/cpuset.cpu_exclusive", "0"), -EBUSY);
	T_EQ_INT(fx_write(e, h, "/cpuset.sched_load_balance", "0"), 0);
	ucg_engine_free(e);
}

static void test_clone_children(void)
{
	struct ucg_engine *e = engine(2, 1, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");

	T_EQ_INT(fx_mkdir(e, h, "/p"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "0-1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.mems", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.memory_spread_page", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.sched_load_balance", "0"), 0);
	/* Without clone_children: empty, but spread flags are copied. */
	T_EQ_INT(fx_mkdir(e, h, "/p/a"), 0);
	T_EQ_STR(fx_read(e, h, "/p/a/cpuset.cpus"), "\n");
	T_EQ_STR(fx_read(e, h, "/p/a/cpuset.memory_spread_page"), "1\n");
	T_EQ_STR(fx_read(e, h, "/p/a/cpuset.memory_spread_slab"), "0\n");
	T_EQ_STR(fx_read(e, h, "/p/a/cpuset.sched_load_balance"), "1\n");
	/* With it: copies of cpus and mems. */
	T_EQ_INT(fx_write(e, h, "/p/cgroup.clone_children", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/b"), 0);
	T_EQ_STR(fx_read(e, h, "/p/b/cpuset.cpus"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/p/b/cpuset.mems"), "0\n");
	T_EQ_STR(fx_read(e, h, "/p/b/cpuset.effective_cpus"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/p/b/cpuset.cpu_exclusive"), "0\n");
	/* A later change of the parent does not flow down (growing is allowed). */
	T_EQ_INT(fx_write(e, h, "/p/b/cpuset.cpus", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpus", "0"), -EBUSY);
	/* An exclusive sibling: nothing is copied. */
	T_EQ_INT(fx_write(e, h, "/p/cpuset.cpu_exclusive", "1"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/p/b"), 0);
	T_EQ_INT(fx_write(e, h, "/p/a/cpuset.cpu_exclusive", "1"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/p/c"), 0);
	T_EQ_STR(fx_read(e, h, "/p/c/cpuset.cpus"), "\n");
	T_EQ_STR(fx_read(e, h, "/p/c/cpuset.mems"), "\n");
	ucg_engine_free(e);
}

static void test_attach_and_provider(void)
{
	struct rec r;
	struct ucg_engine *e = engine(2, 1, &r);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");
	unsigned char mask[1], mems[1];

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	/* Empty cpus or mems: ENOSPC. */
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), -ENOSPC);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), -ENOSPC);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0"), 0);
	T_EQ_INT(r.calls, 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(r.cpus[10], 0x2);
	T_EQ_INT(r.mems[10], 0x1);
	T_EQ_INT(ucg_cpuset_get(fx_task_cg(e, 10, UCG_SS_cpuset), 1, mask, 1, mems, 1), 0);
	T_EQ_INT(mask[0], 0x2);
	/* A cpus write reaches every task at once. */
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "0-1"), 0);
	T_EQ_INT(r.cpus[10], 0x3);
	/* A refused write tells nobody. */
	r.calls = 0;
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "\n"), -ENOSPC);
	T_EQ_INT(r.calls, 0);
	/* Back to the root: all cpus. */
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_INT(r.cpus[10], 0x3);
	/* Forks inherit without a call. */
	r.calls = 0;
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	fx_thread(e, 10, 10, 11, 0);
	T_EQ_INT(r.calls, 1);
	T_EQ_INT(ucg_cpuset_get(fx_task_cg(e, 11, UCG_SS_cpuset), 1, mask, 1, mems, 1), 0);
	T_EQ_INT(mask[0], 0x1);
	T_EQ_INT(fx_task_cg_err(e, 99, UCG_SS_cpuset), -ESRCH);
	/* An empty cpuset can be emptied again once its tasks leave. */
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "\n"), 0);
	ucg_engine_free(e);
}

/* memory_migrate: pages move (mems_migrate) where the kernel moves them: a mems change
 * of the cpuset (every task, old -> new) and a leader attached (old cpuset -> new);
 * never without the flag, for a thread alone, or when the masks are equal. */
static void test_memory_migrate(void)
{
	struct rec r;
	struct ucg_engine *e = engine(2, 3, &r);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");

	fx_proc(e, 10, 0);
	fx_thread(e, 10, 10, 11, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/b"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.cpus", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/b/cpuset.mems", "1-2"), 0);
	/* Without the flag nothing moves. */
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "1"), 0);
	T_EQ_INT(r.migrations, 0);
	T_EQ_INT(r.mems[10], 0x2);
	/* A mems write moves every task of the cpuset, from the old mems to the new. */
	T_EQ_INT(fx_write(e, h, "/a/cpuset.memory_migrate", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0,2"), 0);
	T_EQ_INT(r.migrations, 2);
	T_EQ_INT(r.from[10], 0x2);
	T_EQ_INT(r.to[10], 0x5);
	T_EQ_INT(r.from[11], 0x2);
	T_EQ_INT(r.to[11], 0x5);
	/* An unchanged mask moves nothing. */
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0,2"), 0);
	T_EQ_INT(r.migrations, 2);
	/* Attaching: the leader's memory moves from its old cpuset's mems; a thread
	 * attached alone moves none. */
	T_EQ_INT(fx_write(e, h, "/b/cpuset.memory_migrate", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/b/tasks", "11"), 0);
	T_EQ_INT(r.migrations, 2);
	T_EQ_INT(fx_write(e, h, "/b/cgroup.procs", "10"), 0);
	T_EQ_INT(r.migrations, 3);
	T_EQ_INT(r.from[10], 0x5);
	T_EQ_INT(r.to[10], 0x6);
	/* Into a cpuset without the flag (the root): nothing. */
	T_EQ_INT(fx_write(e, h, "/cgroup.procs", "10"), 0);
	T_EQ_INT(r.migrations, 3);
	ucg_engine_free(e);
}

static void test_hotplug_look_upward(void)
{
	struct rec r;
	struct ucg_engine *e = engine(4, 2, &r);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");
	unsigned char cpus, mems = 0x3;

	fx_proc(e, 10, 0);
	fx_proc(e, 20, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b/c"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "1-3"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0-1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/cpuset.cpus", "2-3"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/cpuset.mems", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/c/cpuset.cpus", "3"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/c/cpuset.mems", "1"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/c/cgroup.procs", "10"), 0);
	T_EQ_INT(fx_write(e, h, "/a/b/cgroup.procs", "20"), 0);
	/* CPU 3 goes: c is left empty, its task goes to b (2-3 minus 3 = 2). */
	cpus = 0x7;
	T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), 1);
	T_EQ_STR(fx_read(e, h, "/cpuset.cpus"), "0-2\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpus"), "1-2\n");
	T_EQ_STR(fx_read(e, h, "/a/b/cpuset.cpus"), "2\n");
	T_EQ_STR(fx_read(e, h, "/a/b/c/cpuset.cpus"), "\n");
	T_EQ_STR(fx_read(e, h, "/a/b/tasks"), "10\n20\n");
	T_EQ_INT(r.cpus[10], 0x4);
	T_EQ_INT(r.cpus[20], 0x4);
	/* CPU 2 goes too: b empties, both go to a; c stays empty. */
	cpus = 0x3;
	T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), 2);
	T_EQ_STR(fx_read(e, h, "/a/tasks"), "10\n20\n");
	T_EQ_INT(r.cpus[10], 0x2);
	/* Node 1 goes: a keeps node 0, nobody moves; b (mems {1}) is empty anyway. */
	mems = 0x1;
	T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.mems"), "0\n");
	T_EQ_STR(fx_read(e, h, "/a/b/cpuset.mems"), "\n");
	/* CPUs come back: only the root gets them. */
	cpus = 0xf;
	mems = 0x3;
	T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), 0);
	T_EQ_STR(fx_read(e, h, "/cpuset.cpus"), "0-3\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.mems"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpus"), "1\n");
	/* a loses its last cpu: its tasks reach the root. */
	cpus = 0x1;
	T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), 2);
	T_EQ_STR(fx_read(e, h, "/tasks"), "10\n20\n");
	T_EQ_INT(r.cpus[10], 0x1);
	/* No cpu at all: refused, nothing changes. */
	cpus = 0;
	T_EQ_INT(ucg_cpuset_set_online(e, &cpus, 1, &mems, 1), -EINVAL);
	T_EQ_STR(fx_read(e, h, "/cpuset.cpus"), "0\n");
	ucg_engine_free(e);
}

static void test_relax_domain_level(void)
{
	struct ucg_engine_config cfg;
	struct ucg_engine *e = engine(2, 1, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");

	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "5"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "6"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "-2"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/cpuset.sched_relax_domain_level", "0"), 0);
	ucg_engine_free(e);
	/* The reference machine's bound, from configuration. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.nr_cpus = 2;
	cfg.cpuset_relax_domain_max = 2;
	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	h = fx_mount(e, "cpuset");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "0x2"), 0);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.sched_relax_domain_level"), "2\n");
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "3"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "99999999999"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", " 1"), -EINVAL);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.sched_relax_domain_level", "-1"), 0);
	ucg_engine_free(e);
}

static void test_v2_mode(void)
{
	struct ucg_engine *e = engine(2, 1, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset,cpuset_v2_mode");

	fx_proc(e, 10, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	/* Empty cpus: the effective masks are the parent's, and attach works. */
	T_EQ_STR(fx_read(e, h, "/a/cpuset.cpus"), "\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.effective_cpus"), "0-1\n");
	T_EQ_STR(fx_read(e, h, "/a/cpuset.effective_mems"), "0\n");
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "10"), 0);
	ucg_engine_free(e);
}

static void test_alloc_failure(void)
{
	static const struct fx_step steps[] = {
		{ "/a", NULL },
		{ "/a/cpuset.cpus", "0" },
		{ "/a/cpuset.cpu_exclusive", "1" },
	};

	fx_alloc_sweep(300, "cpuset", steps, sizeof(steps) / sizeof(steps[0]));
}

/* The fmeter, by hand: each reclaim adds 1000 to cnt (at most 1000000); each second
 * multiplies val by 933/1000 (integer), then val += 67 * cnt / 1000. */
static void test_memory_pressure(void)
{
	struct ucg_engine *e = engine(2, 1, NULL);
	struct ucg_hierarchy *h = fx_mount(e, "cpuset");
	int i;

	fx_proc(e, 100, 0);
	fx_proc(e, 101, 0);
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.cpus", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cpuset.mems", "0"), 0);
	T_EQ_INT(fx_write(e, h, "/a/cgroup.procs", "101"), 0);
	/* disabled (the default): nothing counts */
	T_EQ_INT(ucg_cpuset_memory_pressure_bump(fx_task_cg(e, 100, UCG_SS_cpuset), 5), 0);
	ucg_cpuset_clock(e, 6);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "0\n");
	T_EQ_INT(fx_write(e, h, "/cpuset.memory_pressure_enabled", "1"), 0);
	T_EQ_INT(ucg_cpuset_memory_pressure_bump(fx_task_cg(e, 100, UCG_SS_cpuset), 10), 0);
	T_EQ_INT(ucg_cpuset_memory_pressure_bump(fx_task_cg(e, 100, UCG_SS_cpuset), 10), 0);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "0\n"); /* same second */
	ucg_cpuset_clock(e, 11);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "134\n"); /* 67 * 2000 / 1000 */
	T_EQ_STR(fx_read(e, h, "/a/cpuset.memory_pressure"), "0\n"); /* per cpuset */
	ucg_cpuset_clock(e, 12);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "125\n"); /* 933 * 134 / 1000 */
	ucg_cpuset_clock(e, 14);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "108\n"); /* 125 -> 116 -> 108 */
	/* the child's own task */
	T_EQ_INT(ucg_cpuset_memory_pressure_bump(fx_task_cg(e, 101, UCG_SS_cpuset), 14), 0);
	ucg_cpuset_clock(e, 15);
	T_EQ_STR(fx_read(e, h, "/a/cpuset.memory_pressure"), "67\n");
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "100\n"); /* 933 * 108 / 1000 */
	/* 99 ticks at most decay 100 to 0; cnt stops at 1000000 */
	for (i = 0; i < 1500; i++)
		T_EQ_INT(ucg_cpuset_memory_pressure_bump(fx_task_cg(e, 100, UCG_SS_cpuset), 300), 0);
	ucg_cpuset_clock(e, 301);
	T_EQ_STR(fx_read(e, h, "/cpuset.memory_pressure"), "67000\n");
	T_EQ_INT(fx_task_cg_err(e, 999, UCG_SS_cpuset), -ESRCH);
	ucg_engine_free(e);
}

int main(void)
{
	T_RUN(test_files_defaults);
	T_RUN(test_list_grammar);
	T_RUN(test_check_order);
	T_RUN(test_exclusive);
	T_RUN(test_clone_children);
	T_RUN(test_attach_and_provider);
	T_RUN(test_memory_migrate);
	T_RUN(test_hotplug_look_upward);
	T_RUN(test_relax_domain_level);
	T_RUN(test_v2_mode);
	T_RUN(test_memory_pressure);
	T_RUN(test_alloc_failure);
	return t_done();
}
