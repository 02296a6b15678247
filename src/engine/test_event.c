/* engine/test_event.c — cgroup.event_control: the grammar, the errno order of a write,
 * and when memory's thresholds, OOM and pressure registrations fire (engine/event.c,
 * controllers/memory.c). The fds are played by a fake front end: fd 3 and 4 are
 * eventfds, fd 5 a file that is no eventfd, fd 6.. name control files. */
#include "controllers/charge.h"
#include "test_fixture.h"

static struct ucg_engine *e;
static struct ucg_hierarchy *h;

/* The fake process's fd table. */
static const char *fd_path[32];
static int put_count;

static int fake_event_fds(void *ctx, struct ucg_engine *eng, unsigned efd, unsigned cfd,
			  struct ucg_event_target *ret)
{
	(void)ctx;
	(void)eng;
	if (efd >= 32 || (efd != 3 && efd != 4 && efd != 5 && !fd_path[efd]))
		return -EBADF;
	if (efd != 3 && efd != 4)
		return -EINVAL;
	if (cfd >= 32 || (cfd < 6 && cfd != 3 && cfd != 4 && cfd != 5) || (cfd >= 6 && !fd_path[cfd]))
		return -EBADF;
	ret->handle = efd;
	ret->h = cfd >= 6 ? h : NULL; /* the eventfds and fd 5 are no cgroup files */
	ret->path = cfd >= 6 ? fd_path[cfd] : NULL;
	return 0;
}

static void fake_event_put(void *ctx, struct ucg_engine *eng, uint64_t handle)
{
	(void)ctx;
	(void)eng;
	(void)handle;
	put_count++;
}

static const struct ucg_provider_ops ops = {
	.event_fds = fake_event_fds,
	.event_put = fake_event_put,
};

static void setup(void)
{
	struct ucg_engine_config cfg = { .provider = &ops };

	T_EQ_INT(ucg_engine_new(&cfg, &e), 0);
	h = fx_mount(e, "memory");
	T_EQ_INT(fx_mkdir(e, h, "/a"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/z"), 0);
	memset(fd_path, 0, sizeof(fd_path));
	fd_path[6] = "/a/memory.usage_in_bytes";
	fd_path[7] = "/a/memory.memsw.usage_in_bytes";
	fd_path[8] = "/a/memory.oom_control";
	fd_path[9] = "/a/memory.pressure_level";
	fd_path[10] = "/a/memory.stat";
	fd_path[11] = "/z/memory.usage_in_bytes";
	fd_path[12] = "/a/memory.limit_in_bytes";
	fd_path[13] = "/a/b/memory.usage_in_bytes";
	fd_path[14] = "/a/b/memory.oom_control";
	fd_path[15] = "/a/b/memory.pressure_level";
	fd_path[16] = "/memory.pressure_level";
	put_count = 0;
}

static void teardown(void)
{
	ucg_engine_free(e);
	e = NULL;
}

static int ec(const char *dir, const char *line)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/cgroup.event_control", dir);
	return fx_write(e, h, p, line);
}

/* Pops everything pending; counts[handle] += count. Returns the number popped. */
static int drain(uint64_t *counts, int *finals)
{
	struct ucg_event ev;
	int n = 0;

	while (ucg_event_next(e, &ev) == 1) {
		if (ev.handle < 64)
			counts[ev.handle] += ev.count;
		if (finals && ev.final)
			(*finals)++;
		n++;
	}
	return n;
}

static void test_parse(void)
{
	static const struct {
		const char *in;
		int r;
		unsigned efd, cfd;
		const char *args;
	} c[] = {
		{ "3 6 4096", 0, 3, 6, "4096" },
		{ " 3 6 4096\n", 0, 3, 6, "4096" },
		{ "3 6", 0, 3, 6, "" },
		{ "3 6 ", 0, 3, 6, "" },
		{ "3 6  4096", 0, 3, 6, " 4096" }, /* the threshold check refuses it */
		{ "3 6 low,local,x", 0, 3, 6, "low,local,x" },
		{ "18446744073709551619 6", 0, 3, 6, "" }, /* wraps modulo 2^64 */
		{ "4294967299 6", 0, 3, 6, "" },            /* then cut to 32 bits */
		{ "3  6", 0, 3, 0, "6" }, /* no digits: fd 0, as simple_strtoul */
		{ "3", -EINVAL }, { "3 ", -EINVAL }, { "", -EINVAL },
		{ "3\t6 1", -EINVAL }, { "+3 6", -EINVAL }, { "-3 6", -EINVAL },
		{ "0x3 6", -EINVAL }, { "3 6x 1", -EINVAL }, { "x 6", -EINVAL },
		{ "3 +6", -EINVAL },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		unsigned efd = 99, cfd = 99;
		size_t off = 0, len = 0;
		int r = ucg_event_control_parse(c[i].in, strlen(c[i].in), &efd, &cfd, &off, &len);

		if (r != c[i].r)
			T_FAIL_AT("\"%s\": %d, want %d", c[i].in, r, c[i].r);
		if (r == 0 && (efd != c[i].efd || cfd != c[i].cfd || len != strlen(c[i].args) ||
			       memcmp(c[i].in + off, c[i].args, len)))
			T_FAIL_AT("\"%s\": %u %u \"%.*s\"", c[i].in, efd, cfd, (int)len,
				  c[i].in + off);
	}
}

/* The file itself and the errno of each bad write, in the kernel's order. */
static void test_file_and_errnos(void)
{
	static const struct {
		const char *line;
		int r;
	} c[] = {
		{ "3 6 4096", 0 }, { "3 7 4096", 0 }, { "3 6", 0 }, { "3 6 -1", 0 },
		{ "3 6 1k", 0 }, { "3 6 0x1000", 0 }, { "3 6 99999999999999999999999", 0 },
		{ "3 6 1x", -EINVAL }, { "3 6  4096", -EINVAL }, { "3", -EINVAL },
		{ "99 6 4096", -EBADF }, { "3 99 4096", -EBADF }, { "5 6 4096", -EINVAL },
		{ "5 99 4096", -EINVAL }, /* the eventfd is checked first */
		{ "3 5 4096", -EINVAL }, { "3 4 4096", -EINVAL }, { "3 10 4096", -EINVAL },
		{ "3 12 4096", -EINVAL }, { "3 11 4096", -EINVAL }, { "3 13 4096", -EINVAL },
		{ "3 8", 0 }, { "3 8 garbage", 0 }, { "3 9 low", 0 }, { "3 9 medium", 0 },
		{ "3 9 critical", 0 }, { "3 9", -EINVAL }, { "3 9 high", -EINVAL },
		{ "3 9 low,default", 0 }, { "3 9 low,hierarchy", 0 }, { "3 9 low,local", 0 },
		{ "3 9 low,", -EINVAL }, { "3 9 low,foo", -EINVAL }, { "3 9 low,local,foo", 0 },
		{ "3 9 critical,hierarchyX", -EINVAL }, { "3 9 LOW", -EINVAL },
		{ "3 9 low ", 0 },
	};
	struct ucg_stat st;
	size_t i;
	int regs = 0;

	T_EQ_INT(ucg_fs_getattr(e, h, "/a/cgroup.event_control", &(struct ucg_cred){ 0 }, &st), 0);
	T_EQ_INT(st.mode & 07777, 0200);
	T_EQ_STR(fx_read(e, h, "/cgroup.event_control"), "<errno 22>");
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int r = ec("/a", c[i].line);

		if (r != c[i].r)
			T_FAIL_AT("\"%s\": %d, want %d", c[i].line, r, c[i].r);
		regs += r == 0;
	}
	/* every refusal after the fds resolved handed the handle back */
	T_EQ_INT(put_count, 14);
	/* the root's file with a child's control fd; the child's with the root's */
	T_EQ_INT(ec("", "3 6 4096"), -EINVAL);
	T_EQ_INT(ec("/a", "3 16 low"), -EINVAL);
	T_EQ_INT(ec("", "3 16 low"), 0);
	{
		uint64_t n[64] = { 0 };
		int finals = 0;

		T_EQ_INT(drain(n, NULL), 0); /* nothing fired yet */
		T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
		T_EQ_INT(drain(n, NULL), 0);
		T_EQ_INT(ec("/a", "3 13 4096"), -EINVAL); /* a control fd of a removed cgroup */
		T_EQ_INT(fx_rmdir(e, h, "/a"), 0);
		T_EQ_INT(drain(n, &finals), regs); /* one final signal per registration */
		T_EQ_INT(n[3], regs);
		T_EQ_INT(finals, regs);
	}
	/* cgroup.event_control of a removed cgroup */
	{
		struct ucg_cred root = ucg_cred_root();
		struct ucg_file *f;

		T_EQ_INT(ucg_fs_open(e, h, "/z/cgroup.event_control", O_WRONLY, &root, &f), 0);
		T_EQ_INT(fx_rmdir(e, h, "/z"), 0);
		T_EQ_INT(ucg_fs_write(f, "3 11 4096", 9), -ENODEV);
		ucg_fs_release(f);
	}
}

/* Thresholds signal on a crossing, either way, in the cgroup and its ancestors, but
 * only when the charged cgroup's page events pass the kernel's ratelimit target:
 * the first event checks, then the next check is at the first event past v + 128
 * (a check at event v sets the target to v + 128). */
static void test_thresholds(void)
{
	uint64_t n[64] = { 0 };
	int i;

	T_EQ_INT(ucg_event_register(e, h, "/a/memory.usage_in_bytes", "8k", 20), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.usage_in_bytes", "16k", 21), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.memsw.usage_in_bytes", "12k", 22), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/b/memory.usage_in_bytes", "4097", 23), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.stat", "", 24), -EINVAL);
	T_EQ_INT(ucg_event_register(e, h, "/q/memory.usage_in_bytes", "", 24), -ENOENT);

	/* /a/b's event 1: checked */
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), 0);
	drain(n, NULL);
	T_EQ_INT(n[23], 1); /* 4097 bytes is page 1: 4096 reaches it */
	T_EQ_INT(n[20] + n[21] + n[22], 0);
	/* events 2-3 cross 8k (memory) and 12k (memsw): not checked yet */
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 2, NULL), 0); /* 12k */
	T_EQ_INT(drain(n, NULL), 0);
	/* events 4-129: still not checked (129 - 129 is not past the target) */
	for (i = 0; i < 63; i++) {
		T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), 0);
		T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1), 0);
	}
	T_EQ_INT(drain(n, NULL), 0);
	/* event 130 (8k now): checked; 8k is reached, memsw went past 12k and back
	 * between checks, so 22 never hears it */
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1), 0);
	drain(n, NULL);
	T_EQ_INT(n[20], 1);
	T_EQ_INT(n[21] + n[22], 0);
	T_EQ_INT(n[23], 1);
	/* /a's own counter: its event 1-10 checks /a and up (48k: 16k reached) */
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a"), UCG_MEM_FILE, 10, NULL), 0);
	drain(n, NULL);
	T_EQ_INT(n[21], 1);
	T_EQ_INT(n[20], 1);
	/* events 11-20 at /a: back to 8k unnoticed */
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a"), UCG_MEM_FILE, 10), 0);
	T_EQ_INT(drain(n, NULL), 0);
	/* a new threshold below usage does not fire at registration */
	memset(n, 0, sizeof(n));
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.usage_in_bytes", "4k", 25), 0);
	T_EQ_INT(drain(n, NULL), 0);
	/* /a's events 21-138 are not past its target (10 + 128); 140 is: 0 bytes now */
	for (i = 0; i < 58; i++) {
		T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a"), UCG_MEM_ANON, 1, NULL), 0);
		T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a"), UCG_MEM_ANON, 1), 0);
	}
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a"), UCG_MEM_ANON, 2, NULL), 0); /* 138 */
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 2), 0); /* /a/b's */
	T_EQ_INT(drain(n, NULL), 0);
	T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a"), UCG_MEM_ANON, 2), 0); /* 140 */
	drain(n, NULL);
	T_EQ_INT(n[25], 1);
	T_EQ_INT(n[20], 1);
	T_EQ_INT(n[21], 1);
}

/* The simulator's charge loop (try_charge, oom, swap) counts page events the same;
 * freeing swap is no page event. */
static void test_charge_loop_paths(void)
{
	uint64_t n[64] = { 0 };
	int i;

	T_EQ_INT(ucg_event_register(e, h, "/a/memory.usage_in_bytes", "8k", 50), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.memsw.usage_in_bytes", "8k", 51), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.oom_control", "", 52), 0);
	T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 2, NULL), 0);
	drain(n, NULL);
	T_EQ_INT(n[50], 1);
	T_EQ_INT(n[51], 1);
	for (i = 0; i < 64; i++) { /* events 3-130: not past the target (2 + 128) */
		T_EQ_INT(ucg_memory_try_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), 0);
		T_EQ_INT(ucg_memory_uncharge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1), 0);
	}
	T_EQ_INT(drain(n, NULL), 0);
	T_EQ_INT(ucg_memory_swap_out(fx_cg(h, "/a/b"), 1), 0); /* 131: memory 4k, memsw 8k */
	drain(n, NULL);
	T_EQ_INT(n[50], 2);
	T_EQ_INT(n[51], 1);
	T_EQ_INT(ucg_memory_swap_free(fx_cg(h, "/a/b"), 1), 0); /* memsw 4k, unchecked */
	T_EQ_INT(drain(n, NULL), 0);
	T_EQ_INT(ucg_memory_oom(fx_cg(h, "/a")), 0);
	drain(n, NULL);
	T_EQ_INT(n[52], 1);
}

/* ucg_memory_fault_run leaves every counter, failure count, statistic and threshold
 * event as the faults one by one would: /a/b takes them one by one (the batch of 64
 * refused, then the page), /c/d in runs, from the same state. Limits in pages; 0:
 * none. The base is charged as 1 + the rest, so a threshold check falls in the run
 * (at its 30th page without swap: the child's threshold 1 page above it). */
static void fault_run_case(const int *lim, const int *sw, int base, int swapped)
{
	static const char *const dirs[2][2] = { { "/a", "/a/b" }, { "/c", "/c/d" } };
	static const char *const files[] = {
		"memory.usage_in_bytes",       "memory.max_usage_in_bytes",       "memory.failcnt",
		"memory.memsw.usage_in_bytes", "memory.memsw.max_usage_in_bytes", "memory.stat",
	};
	uint64_t n[64] = { 0 }, margin = 0, k;
	char p[128], v[32], one[8192];
	int t, l, i, runs = 0;

	T_EQ_INT(fx_mkdir(e, h, "/c"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/c/d"), 0);
	for (t = 0; t < 2; t++) {
		struct ucg_cgroup *cg = fx_cg(h, dirs[t][1]);

		for (l = 0; l < 2; l++) {
			snprintf(p, sizeof(p), "%s/memory.limit_in_bytes", dirs[t][l]);
			snprintf(v, sizeof(v), "%d", lim[l] * 4096);
			if (lim[l])
				T_EQ_INT(fx_write(e, h, p, v), 0);
			snprintf(p, sizeof(p), "%s/memory.memsw.limit_in_bytes", dirs[t][l]);
			snprintf(v, sizeof(v), "%d", sw[l] * 4096);
			if (sw[l])
				T_EQ_INT(fx_write(e, h, p, v), 0);
			snprintf(p, sizeof(p), "%s/memory.usage_in_bytes", dirs[t][l]);
			snprintf(v, sizeof(v), "%d", (base - swapped + 31 - 16 * l) * 4096);
			T_EQ_INT(ucg_event_register(e, h, p, v, 40 + 4 * t + 2 * l), 0);
			snprintf(p, sizeof(p), "%s/memory.memsw.usage_in_bytes", dirs[t][l]);
			snprintf(v, sizeof(v), "%d", (base + 20) * 4096);
			T_EQ_INT(ucg_event_register(e, h, p, v, 41 + 4 * t + 2 * l), 0);
		}
		T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_ANON, 1, NULL), 0);
		T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_ANON, base - 1, NULL), 0);
		if (swapped)
			T_EQ_INT(ucg_memory_swap_out(cg, swapped), 0);
		for (;;) {
			T_EQ_INT(ucg_memory_margin(cg, &margin), 0);
			if (margin == 0 || margin >= 64)
				break;
			if (t == 1) {
				k = ucg_memory_fault_run(cg, UCG_MEM_ANON, 1000, 64);
				T_CHECK(k <= margin);
				if (k) {
					runs++;
					continue;
				}
			}
			T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_ANON, 64, NULL), -ENOMEM);
			T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_ANON, 1, NULL), 0);
		}
	}
	drain(n, NULL);
	T_CHECK(runs > 0);
	for (i = 0; i < 4; i++)
		T_EQ_INT(n[44 + i], n[40 + i]);
	T_CHECK(n[40] + n[41] + n[42] + n[43] > 0);
	for (l = 0; l < 2; l++)
		for (i = 0; i < (int)(sizeof(files) / sizeof(files[0])); i++) {
			snprintf(p, sizeof(p), "%s/%s", dirs[0][l], files[i]);
			snprintf(one, sizeof(one), "%s", fx_read(e, h, p));
			snprintf(p, sizeof(p), "%s/%s", dirs[1][l], files[i]);
			T_EQ_STR(fx_read(e, h, p), one);
		}
}

static void test_fault_run(void)
{
	/* the parent refuses the batch, then the child: the runs stop at the change */
	static const int lim1[2] = { 160, 170 }, none[2] = { 0, 0 };
	/* memsw refuses (no failure counted): the child's, then the parent's */
	static const int lim2[2] = { 160, 170 }, sw2[2] = { 160, 170 };
	/* swapped pages: memsw refuses at the parent after memory let the batch by */
	static const int lim3[2] = { 160, 0 }, sw3[2] = { 200, 0 };

	fault_run_case(lim1, none, 100, 0);
	teardown();
	setup();
	fault_run_case(lim2, sw2, 100, 0);
	teardown();
	setup();
	fault_run_case(lim3, sw3, 130, 30);
}

/* ucg_memory_uncharge_pages leaves what as many uncharges of one page leave: /a/b
 * one by one, /c/d at once. Events 1 + 99 charged (checked at 1 page): the next
 * check comes at the 30th page freed (usage 70 pages), between the thresholds at 50
 * and 75 pages; past what is held, -ERANGE. */
static void test_uncharge_pages(void)
{
	static const char *const kids[2] = { "/a/b", "/c/d" };
	uint64_t n[64] = { 0 };
	char p[128], one[8192];
	int t, i;

	T_EQ_INT(fx_mkdir(e, h, "/c"), 0);
	T_EQ_INT(fx_mkdir(e, h, "/c/d"), 0);
	for (t = 0; t < 2; t++) {
		struct ucg_cgroup *cg = fx_cg(h, kids[t]);

		snprintf(p, sizeof(p), "%s/memory.usage_in_bytes", kids[t]);
		T_EQ_INT(ucg_event_register(e, h, p, "200k", 60 + 2 * t), 0); /* 50 pages */
		T_EQ_INT(ucg_event_register(e, h, p, "300k", 61 + 2 * t), 0); /* 75 pages */
		T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_FILE, 1, NULL), 0);
		T_EQ_INT(ucg_memory_try_charge(cg, UCG_MEM_FILE, 99, NULL), 0);
		if (t == 0) {
			for (i = 0; i < 60; i++)
				T_EQ_INT(ucg_memory_uncharge(cg, UCG_MEM_FILE, 1), 0);
			for (i = 0; i < 40; i++)
				T_EQ_INT(ucg_memory_uncharge(cg, UCG_MEM_FILE, 1), 0);
			T_EQ_INT(ucg_memory_uncharge(cg, UCG_MEM_FILE, 1), -ERANGE);
		} else {
			T_EQ_INT(ucg_memory_uncharge_pages(cg, UCG_MEM_FILE, 60), 0);
			T_EQ_INT(ucg_memory_uncharge_pages(cg, UCG_MEM_FILE, 41), -ERANGE);
		}
	}
	drain(n, NULL);
	T_EQ_INT(n[62], n[60]);
	T_EQ_INT(n[63], n[61]);
	T_EQ_INT(n[60], 1); /* the check at 70 pages: above 50 (at the end: below) */
	T_EQ_INT(n[61], 0); /* below 75 as at the check before */
	for (i = 0; i < 2; i++) {
		static const char *const files[2] = { "memory.stat", "memory.max_usage_in_bytes" };

		snprintf(p, sizeof(p), "/a/b/%s", files[i]);
		snprintf(one, sizeof(one), "%s", fx_read(e, h, p));
		snprintf(p, sizeof(p), "/c/d/%s", files[i]);
		T_EQ_STR(fx_read(e, h, p), one);
	}
}

/* OOM signals the refusing cgroup and its descendants, not its parent. */
static void test_oom(void)
{
	uint64_t n[64] = { 0 };

	T_EQ_INT(ucg_event_register(e, h, "/memory.oom_control", "", 30), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.oom_control", "", 31), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/b/memory.oom_control", "x", 32), 0);
	T_EQ_INT(ucg_event_register(e, h, "/z/memory.oom_control", "", 33), 0);
	T_EQ_INT(fx_write(e, h, "/a/memory.limit_in_bytes", "8k"), 0);
	T_EQ_INT(fx_write(e, h, "/a/memory.oom_control", "1"), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 2, NULL), 0);
	T_EQ_INT(drain(n, NULL), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), -ENOMEM);
	drain(n, NULL);
	T_EQ_INT(n[31], 1);
	T_EQ_INT(n[32], 1);
	T_EQ_INT(n[30] + n[33], 0);
	/* under_oom now: a new registration fires at once */
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.oom_control", "", 34), 0);
	drain(n, NULL);
	T_EQ_INT(n[34], 1);
}

/* Pressure: 512-page windows rated as vmpressure_calc_level; levels and modes as
 * vmpressure_event(). */
static void test_pressure(void)
{
	uint64_t n[64] = { 0 };

	T_EQ_INT(ucg_event_register(e, h, "/a/b/memory.pressure_level", "low", 40), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/b/memory.pressure_level", "critical", 41), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.pressure_level", "low", 42), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.pressure_level", "low,hierarchy", 43), 0);
	T_EQ_INT(ucg_event_register(e, h, "/a/memory.pressure_level", "low,local", 44), 0);
	T_EQ_INT(ucg_event_register(e, h, "/memory.pressure_level", "medium,hierarchy", 45), 0);
	T_EQ_INT(ucg_event_register(e, h, "/memory.pressure_level", "critical,hierarchy", 46), 0);

	/* 511 scanned is no window yet; 512 scanned, 256 reclaimed: 50% -> low at /a/b;
	 * /a's default one is passed over (/a/b heard it), local is not /a/b's */
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 511, 255, false), 0);
	T_EQ_INT(drain(n, NULL), 0);
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 1, 1, false), 0);
	drain(n, NULL);
	T_EQ_INT(n[40], 1);
	T_EQ_INT(n[43], 1);
	T_EQ_INT(n[41] + n[42] + n[44] + n[45] + n[46], 0);
	/* 512 / 20: 96% -> critical, every level at or below hears it */
	memset(n, 0, sizeof(n));
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 512, 20, false), 0);
	drain(n, NULL);
	T_EQ_INT(n[40] + n[41] + n[43] + n[45] + n[46], 5);
	T_EQ_INT(n[42] + n[44], 0);
	/* 512 / 200: 60% (integer steps: 434 * 100 / 712) -> medium */
	memset(n, 0, sizeof(n));
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 512, 200, false), 0);
	drain(n, NULL);
	T_EQ_INT(n[40] + n[43] + n[45], 3);
	T_EQ_INT(n[41] + n[42] + n[44] + n[46], 0);
	/* 512 / 205: 59% -> low; 1000 / 50: 95% -> critical */
	memset(n, 0, sizeof(n));
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 512, 205, false), 0);
	drain(n, NULL);
	T_EQ_INT(n[40] + n[43], 2);
	T_EQ_INT(n[45] + n[46], 0);
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 1000, 50, false), 0);
	drain(n, NULL);
	T_EQ_INT(n[46], 1);
	/* nothing scanned says nothing; reclaimed > scanned is refused */
	memset(n, 0, sizeof(n));
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 0, 0, false), 0);
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 5, 6, false), -EINVAL);
	/* memory bound nowhere (a NULL cgroup): nothing signalled, bad input still refused */
	T_EQ_INT(ucg_memory_vmpressure(NULL, 5, 5, false), 0);
	T_EQ_INT(ucg_memory_vmpressure(NULL, 5, 6, false), -EINVAL);
	T_EQ_INT(drain(n, NULL), 0);
	/* a round that fell short, nothing scanned: vmpressure_prio's windows, critical */
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a/b"), 0, 0, true), 0);
	drain(n, NULL);
	T_EQ_INT(n[41], 1);
	T_EQ_INT(n[46], 1);
	/* at /a itself: the default and local ones of /a hear it, nothing below */
	memset(n, 0, sizeof(n));
	T_EQ_INT(ucg_memory_vmpressure(fx_cg(h, "/a"), 600, 0, false), 0);
	drain(n, NULL);
	T_EQ_INT(n[42] + n[43] + n[44] + n[45] + n[46], 5);
	T_EQ_INT(n[40] + n[41], 0);

	/* the engine's own charge: reclaiming clean cache scans 1 and frees 1 (no
	 * window), a refused charge fell short: critical at /a */
	memset(n, 0, sizeof(n));
	T_EQ_INT(fx_write(e, h, "/a/memory.limit_in_bytes", "8k"), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_FILE, 2, NULL), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), 0);
	T_EQ_INT(drain(n, NULL), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), -ENOMEM);
	drain(n, NULL);
	T_EQ_INT(n[42] + n[43] + n[44] + n[45] + n[46], 5);
	T_EQ_INT(n[40] + n[41], 0);
	/* the same from /a/b's own limit: default at /a is passed over once /a/b hears it */
	memset(n, 0, sizeof(n));
	T_EQ_INT(fx_write(e, h, "/a/b/memory.limit_in_bytes", "8k"), 0);
	T_EQ_INT(ucg_memory_charge(fx_cg(h, "/a/b"), UCG_MEM_ANON, 1, NULL), -ENOMEM);
	drain(n, NULL);
	T_EQ_INT(n[40], 1);
	T_EQ_INT(n[41], 1);
	T_EQ_INT(n[42], 0);
	T_EQ_INT(n[43], 1);
	T_EQ_INT(n[44], 0);
	T_EQ_INT(n[46], 1);
}

/* A failed allocation refuses the write with ENOMEM, hands the handle back and
 * registers nothing; ASan checks for leaks. */
static void test_alloc_failure(void)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_file *f;
	uint64_t n[64] = { 0 };
	long i;
	ssize_t r = -ENOMEM;

	T_EQ_INT(ucg_fs_open(e, h, "/a/cgroup.event_control", O_WRONLY, &root, &f), 0);
	for (i = 0; i < 20 && r == -ENOMEM; i++) {
		ucg_alloc_fail_after(i);
		r = ucg_fs_write(f, "3 6 4096", 8);
		ucg_alloc_fail_after(-1);
		if (r == -ENOMEM)
			T_EQ_INT(put_count, i + 1);
	}
	T_EQ_INT(r, 8);
	T_CHECK(i > 1);
	ucg_fs_release(f);
	T_EQ_INT(fx_rmdir(e, h, "/a/b"), 0);
	T_EQ_INT(fx_rmdir(e, h, "/a"), 0);
	drain(n, NULL);
	T_EQ_INT(n[3], 1);
}

int main(void)
{
	T_RUN(test_parse);
	setup();
	T_RUN(test_file_and_errnos);
	teardown();
	setup();
	T_RUN(test_thresholds);
	teardown();
	setup();
	T_RUN(test_charge_loop_paths);
	teardown();
	setup();
	T_RUN(test_oom);
	teardown();
	setup();
	T_RUN(test_pressure);
	teardown();
	setup();
	T_RUN(test_fault_run);
	teardown();
	setup();
	T_RUN(test_uncharge_pages);
	teardown();
	setup();
	T_RUN(test_alloc_failure);
	teardown();
	return t_done();
}
