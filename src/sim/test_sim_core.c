/* sim/test_sim_core.c — the event queue, the PRNG, time parsing, the scenario
 * parser's errors (file:line and the reason), runtime errors with the errno text,
 * and determinism of whole runs. */
#include "base/heap.h"
#include "base/prng.h"
#include "sim/test_sim.h"

static void test_heap_order(void)
{
	struct ucg_heap h;
	struct ucg_heap_entry e;
	static const int64_t keys[] = { 5, 3, 5, 1, 3, 5, 0, 9, 1 };
	int64_t last = -1;
	uint64_t lastseq = 0;
	size_t i, n = 0;

	ucg_heap_init(&h);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		T_EQ_INT(ucg_heap_push(&h, keys[i], NULL, i), 0);
	while (ucg_heap_pop(&h, &e)) {
		T_CHECK(e.key >= last);
		if (e.key == last)
			T_CHECK(e.arg > lastseq); /* insertion order among equals */
		last = e.key;
		lastseq = e.arg;
		n++;
	}
	T_EQ_INT(n, sizeof(keys) / sizeof(keys[0]));
	ucg_heap_fini(&h);
}

static void test_heap_many_equal(void)
{
	struct ucg_heap h;
	struct ucg_heap_entry e;
	struct ucg_prng p;
	uint64_t i, seen[8] = { 0 };
	int bad = 0;

	ucg_heap_init(&h);
	ucg_prng_seed(&p, 7);
	for (i = 0; i < 5000; i++) {
		uint64_t k = ucg_prng_below(&p, 8);

		ucg_heap_push(&h, (int64_t)k, NULL, (k << 32) | i);
	}
	while (ucg_heap_pop(&h, &e)) {
		uint64_t k = e.arg >> 32, idx = e.arg & 0xffffffffu;

		if (idx + 1 < seen[k])
			bad++;
		seen[k] = idx + 1;
	}
	T_EQ_INT(bad, 0);
	ucg_heap_fini(&h);
}

static void test_prng(void)
{
	struct ucg_prng a, b, c;
	int i, same = 1, diff = 0;

	ucg_prng_seed(&a, 42);
	ucg_prng_seed(&b, 42);
	ucg_prng_seed(&c, 43);
	for (i = 0; i < 100; i++) {
		uint64_t x = ucg_prng_next(&a), y = ucg_prng_next(&b), z = ucg_prng_next(&c);

		same &= x == y;
		diff += x != z;
	}
	T_CHECK(same);
	T_CHECK(diff > 90);
	for (i = 0; i < 1000; i++) {
		double d = ucg_prng_double(&a);

		T_CHECK(d >= 0 && d < 1);
		T_CHECK(ucg_prng_below(&a, 10) < 10);
	}
}

static void test_time(void)
{
	sim_time t = 0;
	struct ucg_buf b;

	T_EQ_INT(sim_parse_time("5s", &t), 0);
	T_EQ_INT(t, 5 * SIM_SEC);
	T_EQ_INT(sim_parse_time("1.5s", &t), 0);
	T_EQ_INT(t, 1500 * SIM_MSEC);
	T_EQ_INT(sim_parse_time("250ms", &t), 0);
	T_EQ_INT(t, 250 * SIM_MSEC);
	T_EQ_INT(sim_parse_time("7ns", &t), 0);
	T_EQ_INT(t, 7);
	T_EQ_INT(sim_parse_time("2m", &t), 0);
	T_EQ_INT(t, 120 * SIM_SEC);
	T_EQ_INT(sim_parse_time("5", &t), -EINVAL);
	T_EQ_INT(sim_parse_time("-5s", &t), -EINVAL);
	T_EQ_INT(sim_parse_time("5x", &t), -EINVAL);
	T_EQ_INT(sim_parse_time("99999999999999999999s", &t), -EINVAL);
	ucg_buf_init(&b);
	sim_format_time(1500 * SIM_MSEC, &b);
	T_EQ_STR(b.data, "1.5s");
	ucg_buf_reset(&b);
	sim_format_time(0, &b);
	T_EQ_STR(b.data, "0s");
	ucg_buf_fini(&b);
}

static void expect_parse_error(const char *text, const char *want)
{
	struct sim_err err;
	struct sim *s = NULL;
	int r;

	T_EQ_INT(sim_new(NULL, &s), 0);
	r = sim_load(s, "bad.ucg", text, strlen(text), &err);
	T_EQ_INT(r, -EINVAL);
	if (r < 0)
		T_EQ_STR(err.msg, want);
	sim_free(s);
}

static void test_parse_errors(void)
{
	expect_parse_error("mount -o cpu cpu\nfrobnicate x\n", "bad.ucg:2: unknown command 'frobnicate'");
	expect_parse_error("\n\n# c\nrun 5\n", "bad.ucg:4: usage: run TIME (e.g. 60s)");
	expect_parse_error("echo 5 cpu/a/cpu.shares\n", "bad.ucg:1: usage: echo WORDS... > PATH");
	expect_parse_error("spawn a uid=x\n", "bad.ucg:1: bad uid 'x'");
	expect_parse_error("spawn a gid=3\n", "bad.ucg:1: unknown option 'gid'");
	expect_parse_error("busy a 1.5\n", "bad.ucg:1: bad CPU demand '1.5' (0..1)");
	expect_parse_error("mkdir\n", "bad.ucg:1: mkdir: wrong number of arguments");
	expect_parse_error("at 5q mkdir cpu/a\n", "bad.ucg:1: usage: at TIME COMMAND");
	expect_parse_error("echo \"unterminated > x\n", "bad.ucg:1: unterminated quote");
	expect_parse_error("run 400d\n", "bad.ucg:1: usage: run TIME (e.g. 60s)");
	expect_parse_error("run 9000h\n", "bad.ucg:1: virtual time past a year");
	expect_parse_error("alloc a 12Q\n", "bad.ucg:1: bad size '12Q'");
	expect_parse_error("device sda 8-0\n", "bad.ucg:1: bad device number '8-0' (MAJ:MIN)");
	expect_parse_error("cpus 0\n", "bad.ucg:1: bad CPU count '0' (1..4096)");
	expect_parse_error("mount -o cpu a/b\n", "bad.ucg:1: a mount name has no '/'");
}

static void expect_run_error(const char *text, int want_r, const char *want)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run(text, 0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, want_r);
	if (r < 0)
		T_EQ_STR(err.msg, want);
	sim_free(s);
}

static void test_run_errors(void)
{
	expect_run_error("mount -o none,name=t t\nmkdir t/a\nmkdir t/a\n", -EEXIST,
			 "t.ucg:3: mkdir: cannot create directory 't/a': File exists");
	expect_run_error("mount -o none,name=t t\n\necho 99999 > t/cgroup.procs\n", -ESRCH,
			 "t.ucg:3: echo: write error: No such process");
	expect_run_error("mount -o none,name=t t\necho abc > t/cgroup.procs\n", -EINVAL,
			 "t.ucg:2: echo: write error: Invalid argument");
	expect_run_error("mkdir x/a\n", -ENOENT,
			 "t.ucg:1: mkdir: x/a: no hierarchy mounted as 'x': No such file or directory");
	expect_run_error("busy nobody\n", -ESRCH, "t.ucg:1: busy: nobody: No such process");
	expect_run_error("mount -o none,name=t t\nrun 1s\ncat t/nope\n", -ENOENT,
			 "t.ucg:3: cat: t/nope: No such file or directory");
}

static void test_membership(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run("mount -o none,name=t t\nmkdir t/a\nmkdir t/a/b\nspawn x uid=1000\n"
			       "echo $x > t/a/b/cgroup.procs\nfork x y\nmv t/a t/c\n"
			       "cat t/c/b/cgroup.procs\nrun 1s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);
	struct sim_task *x = sim_task_by_name(s, "x"), *y = sim_task_by_name(s, "y");

	T_EQ_INT(r, 0);
	T_CHECK(x && y);
	if (x && y) {
		sim_task_refresh(s, x);
		sim_task_refresh(s, y);
		T_CHECK(x->cg[0] && !strcmp(sim_cg_path(x->cg[0]), "/c/b"));
		T_CHECK(y->cg[0] == x->cg[0]);
		T_EQ_INT(x->tid, 100);
		T_EQ_INT(y->tid, 101);
	}
	T_CHECK(strstr(sim_log(s), "$ cat t/c/b/cgroup.procs\n100\n101\n") != NULL);
	sim_free(s);
}

/* sim_task_by_name: the newest live task of a name, else the newest, as a walk of
 * every task from the newest finds it; through the index's growth, with tasks of the
 * same name dead and alive. */
static void test_task_by_name(void)
{
	struct sim_err err;
	struct sim_task *t;
	char name[16];
	int i, r;
	struct sim *s = ts_run("mount -o none,name=t t\n", 0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_CHECK(sim_task_by_name(s, "n0") == NULL);
	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "n%d", i % 70);
		T_EQ_INT(sim_task_new(s, name, 0, NULL, false, &t), 0);
		if (i % 3 == 0 || i % 70 == 5)
			T_EQ_INT(sim_task_exit(s, t), 0);
	}
	for (i = 0; i < 72; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		T_CHECK(sim_task_by_name(s, name) == sim_task_by_name_walk(s, name));
	}
	T_CHECK(sim_task_by_name(s, "n70") == NULL);
	T_CHECK(!sim_task_by_name(s, "n5")->alive);
	sim_free(s);
}

/* The simulator's data hangs off the engine's cgroups (cgroups.c): made for every
 * cgroup the engine reports, the scenario's or not; limits read through the typed
 * accessors and read again after the engine reports a write to the cgroup or an
 * ancestor; a removed cgroup's data keeps its last path, after a rename too. */
static void test_cgroup_data(void)
{
	struct sim_err err;
	struct sim_cg *x, *b, *y, *gone = NULL;
	struct sim_hier *hi;
	size_t i;
	int r;
	struct sim *s = ts_run("mount -o cpu,cpuacct c\nmkdir c/a\nmkdir c/a/b\nmkdir c/a/d\n"
			       "echo 512 > c/a/cpu.shares\nmv c/a c/x\nrmdir c/x/d\nrun 1s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	hi = sim_hier_by_name(s, "c");
	x = ts_cg(s, "c", "/x");
	b = ts_cg(s, "c", "/x/b");
	T_CHECK(hi && x && b && !ts_cg(s, "c", "/a") && !ts_cg(s, "c", "/x/d"));
	if (!hi || !x || !b)
		goto out;
	T_CHECK(b->parent == x && x->parent == hi->root && x->ucg && sim_cg_of(s, x->ucg) == x);
	T_EQ_INT(x->nchildren, 1);
	T_EQ_STR(sim_cg_path(b), "/x/b");
	for (i = 0; i < s->ncgs; i++)
		if (s->cgs[i]->removed)
			gone = s->cgs[i];
	T_CHECK(gone && !gone->ucg && gone->parent == x);
	if (gone)
		T_EQ_STR(sim_cg_path(gone), "/x/d");
	sim_cg_refresh(s, x);
	sim_cg_refresh(s, b);
	T_EQ_INT(x->shares, 512);
	T_EQ_INT(b->shares, 1024);
	/* a write through the engine, not the scenario: the subtree is stale, and reads
	 * the new value */
	T_EQ_INT(ucg_fs_write_all(s->e, hi->h, "/x/cpu.cfs_quota_us", &s->root_cred, "50000", 5),
		 0);
	T_CHECK(x->cfg_epoch != s->cfg_epoch && b->cfg_epoch != s->cfg_epoch);
	sim_cg_refresh(s, x);
	T_EQ_INT(x->quota_ns, 50 * SIM_MSEC);
	/* a cgroup made behind the scenario's back has data too, next in id order */
	T_EQ_INT(ucg_fs_mkdir(s->e, hi->h, "/x/y", 0755, &s->root_cred), 0);
	y = ts_cg(s, "c", "/x/y");
	T_CHECK(y && y->parent == x && y->id == (int)s->ncgs - 1 && y->hier == hi);
	T_EQ_INT(x->nchildren, 2);
out:
	sim_free(s);
}

/* A hierarchy destroyed under the simulator: its cgroups' data loses the handles. */
static void test_cgroup_data_unmount(void)
{
	struct sim_err err;
	struct sim_hier *hi;
	int r;
	struct sim *s =
		ts_run("mount -o none,name=t t\nrun 1s\n", 0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	hi = sim_hier_by_name(s, "t");
	T_CHECK(hi && hi->root && hi->root->ucg && !hi->root->removed);
	if (hi && hi->root) {
		T_EQ_INT(ucg_umount(s->e, hi->h), 0);
		T_CHECK(!hi->root->ucg && hi->root->removed);
		T_EQ_STR(sim_cg_path(hi->root), "/");
	}
	sim_free(s);
}

/* Commands are compiled at load (verb, joined echo words, resolved paths); the '$'
 * words are still expanded when they fire, in order, and a hierarchy is found by name
 * only once it is mounted. */
static void test_compiled_commands(void)
{
	struct sim_err err;
	int r;
	struct sim *s = ts_run("mount -o none,name=t t\nspawn x\nspawn y\n"
			       "note pid=$x and $ alone $$y end$\n"
			       "mkdir t/b//\necho \"$x\" > t/b/cgroup.procs\n"
			       "echo 1 > t/b/notify_on_release\ncat t/b/notify_on_release\n"
			       "mv t/b t/c\ncat t/c/cgroup.procs\nmkdir t/b\ncat t/b/notify_on_release\n"
			       "exit y\nspawn y\necho $y > t/c/cgroup.procs\ncat t/c/cgroup.procs\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_CHECK(strstr(sim_log(s), "# pid=100 and $ alone $101 end$\n") != NULL);
	T_CHECK(strstr(sim_log(s), "$ cat t/b/notify_on_release\n1\n") != NULL);
	T_CHECK(strstr(sim_log(s), "$ cat t/c/cgroup.procs\n100\n[") != NULL);
	T_CHECK(strstr(sim_log(s), "$ cat t/b/notify_on_release\n0\n") != NULL);
	/* $y is the newest task of that name */
	T_CHECK(strstr(sim_log(s), "$ cat t/c/cgroup.procs\n100\n102\n") != NULL);
	sim_free(s);
	expect_run_error("spawn x\nnote $x $nobody\n", -ESRCH,
			 "t.ucg:2: note: $nobody: No such process");
	expect_run_error("mount -o none,name=t t\necho 1 $nobody > t/nope\n", -ESRCH,
			 "t.ucg:2: echo: $nobody: No such process");
	expect_run_error("mkdir t/a\nmount -o none,name=t t\n", -ENOENT,
			 "t.ucg:1: mkdir: t/a: no hierarchy mounted as 't': No such file or directory");
	expect_run_error("mount -o none,name=t t\nat 1s mkdir t/a\nat 1s mv t/a u/b\n", -ENOENT,
			 "t.ucg:3: mv: u/b: no hierarchy mounted as 'u': No such file or directory");
}

static const char *const det_scenario =
	"cpus 2\n"
	"mount -o none,name=t t\n"
	"mkdir t/a\nmkdir t/b\n"
	"spawn p uid=1000\nspawn q uid=1001\nspawn r\n"
	"echo $p > t/a/cgroup.procs\necho $q > t/b/cgroup.procs\n"
	"busy p\nbusy q 0.5\nbusy r 0.75\n"
	"run 3s\nat 1s idle r\nat 2s exit q\n";

static void test_determinism(void)
{
	char *a = ts_output(det_scenario, 1, SIM_CHARGING_KERNEL);
	char *b = ts_output(det_scenario, 1, SIM_CHARGING_KERNEL);

	T_CHECK(a && b);
	if (a && b)
		T_EQ_STR(a, b);
	T_CHECK(a && !strstr(a, "ERROR"));
	ucg_free(a);
	ucg_free(b);
}

static void test_event_limit(void)
{
	struct sim_config cfg;
	struct sim_err err;
	struct sim *s = NULL;
	const char *text = "mount -o none,name=t t\nrun 100s\n";

	memset(&cfg, 0, sizeof(cfg));
	cfg.max_events = 10;
	T_EQ_INT(sim_new(&cfg, &s), 0);
	T_EQ_INT(sim_load(s, "big.ucg", text, strlen(text), &err), 0);
	T_EQ_INT(sim_run(s, &err), -E2BIG);
	T_CHECK(strstr(err.msg, "event limit") != NULL);
	sim_free(s);
}

static void test_alloc_failure(void)
{
	long n;
	int ok = 1;

	/* every constructor unwinds with -ENOMEM and no leak (ASan checks the leaks) */
	for (n = 0; n < 200; n++) {
		struct sim *s = NULL;
		struct sim_err err;
		int r;

		ucg_alloc_fail_after(n);
		r = sim_new(NULL, &s);
		if (r == 0) {
			r = sim_load(s, "t.ucg", det_scenario, strlen(det_scenario), &err);
			if (r == 0)
				r = sim_run(s, &err);
		}
		ucg_alloc_fail_after(-1);
		if (r != 0 && r != -ENOMEM)
			ok = 0;
		sim_free(s);
		if (r == 0)
			break;
	}
	T_CHECK(ok);
}

int main(void)
{
	T_RUN(test_heap_order);
	T_RUN(test_heap_many_equal);
	T_RUN(test_prng);
	T_RUN(test_time);
	T_RUN(test_parse_errors);
	T_RUN(test_run_errors);
	T_RUN(test_membership);
	T_RUN(test_task_by_name);
	T_RUN(test_cgroup_data);
	T_RUN(test_cgroup_data_unmount);
	T_RUN(test_compiled_commands);
	T_RUN(test_determinism);
	T_RUN(test_event_limit);
	T_RUN(test_alloc_failure);
	return t_done();
}
