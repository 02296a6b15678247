/* tests/kernel/diff_memory_io_controllers.c — the memory, hugetlb, blkio and devices files of
 * the engine against the kernel's own, write by write.
 *
 * For each controller a scratch child with a unique name is made on the host's
 * hierarchy (memory, blkio and devices under /sys/fs/cgroup/<c>/; hugetlb, usually
 * unbound, is mounted at a scratch directory under /tmp), and the same child in an
 * engine that has that controller mounted. The engine is told the machine's real
 * block devices (/sys/block/X/dev, and whether X's scheduler is bfq). Then the same
 * script of writes runs on both; after each write the errno and the bytes of the file
 * read back (and of a few related files) must be equal. The directory listings
 * (names and modes) of the two children are compared too, except for files named in
 * known_only[] (the kernel's vendor file, the BFQ files of a kernel without BFQ, the
 * 1GB hugetlb family on a machine without 1GB pages, cgroup.event_control). Nothing
 * is ever charged in the kernel cgroups: no task is moved. Everything made is removed
 * at the end. Needs root and cgroup v1; skips with a clear line otherwise.
 */
#include "controllers/charge.h"
#include "engine/ucg.h"
#include "harness.h"
#include "kdiff.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static char uniq[64];
static char hugetlb_mnt[128];
static int hugetlb_mounted;

struct side {
	const char *ctl;
	char kdir[256]; /* the kernel scratch child */
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	char edir[80]; /* the engine child: "/<uniq>" */
	int ok;
};

/* ---- kernel side ---------------------------------------------------------------------- */

static int k_write(const char *dir, const char *file, const char *data, size_t len)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return kdiff_write(p, data, len);
}

static void k_read(const char *dir, const char *file, char *out, size_t n)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	kdiff_read(p, out, n);
}

/* ---- engine side ---------------------------------------------------------------------- */

static int e_write(struct side *s, const char *file, const char *data, size_t len)
{
	struct ucg_cred root = ucg_cred_root();
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", s->edir, file);
	return ucg_fs_write_all(s->e, s->h, p, &root, data, len);
}

static void e_read(struct side *s, const char *file, char *out, size_t n)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", s->edir, file);
	kdiff_e_read(s->e, s->h, p, out, n);
}

/* ---- comparison ----------------------------------------------------------------------- */

static int ncases, nfail;

static void show_bytes(const char *what, const char *s)
{
	fprintf(stderr, "    %s: \"", what);
	for (; *s; s++)
		fprintf(stderr, *s == '\n' ? "\\n" : "%c", *s);
	fprintf(stderr, "\"\n");
}

static void compare_read(struct side *s, const char *file, const char *after)
{
	static char kb[65536], eb[65536];

	k_read(s->kdir, file, kb, sizeof(kb));
	e_read(s, file, eb, sizeof(eb));
	if (strcmp(kb, eb)) {
		T_FAIL_AT("%s: %s read differs after %s", s->ctl, file, after);
		show_bytes("kernel", kb);
		show_bytes("engine", eb);
		nfail++;
	}
}

/* One case: write data (C escapes already decoded) to file on both sides; compare the
 * errno, then the file (if readable) and the extra files read back. */
static void step(struct side *s, const char *file, const char *data, const char *const *also)
{
	size_t len = strlen(data);
	int kr = k_write(s->kdir, file, data, len), er = e_write(s, file, data, len);

	ncases++;
	if (kr != er) {
		T_FAIL_AT("%s: write \"%s\" to %s: kernel %d, engine %d", s->ctl, data, file, kr, er);
		nfail++;
	}
	compare_read(s, file, data);
	for (; also && *also; also++)
		compare_read(s, *also, data);
}

static int known_only(const char *name)
{
	static const char *const known[] = {
		"memory.shown_ram_in_bytes", /* vendor file of the reference kernel */
		"cgroup.event_control",	     /* memory notifications: not implemented */
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i]))
			return 1;
	/* a kernel without BFQ has no bfq files; a machine without 1GB pages no 1GB */
	if (!strncmp(name, "blkio.bfq.", 10) || !strncmp(name, "hugetlb.1GB.", 12))
		return 1;
	return 0;
}

struct listing {
	char names[128][64];
	unsigned modes[128];
	int n;
};

static int e_fill(void *ctx, const char *name, const struct ucg_stat *st)
{
	struct listing *l = ctx;

	if (name[0] != '.' && l->n < 128 && (st->mode & S_IFMT) == S_IFREG) {
		snprintf(l->names[l->n], 64, "%.63s", name);
		l->modes[l->n++] = st->mode & 07777;
	}
	return 0;
}

static void compare_listing(struct side *s)
{
	static struct listing kl, el;
	struct ucg_cred root = ucg_cred_root();
	struct dirent *de;
	DIR *d = opendir(s->kdir);
	int i, j;

	kl.n = el.n = 0;
	while (d && (de = readdir(d))) {
		char p[512];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", s->kdir, de->d_name);
		if (de->d_name[0] == '.' || stat(p, &st) < 0 || !S_ISREG(st.st_mode) || kl.n >= 128)
			continue;
		snprintf(kl.names[kl.n], 64, "%.63s", de->d_name);
		kl.modes[kl.n++] = st.st_mode & 07777;
	}
	if (d)
		closedir(d);
	ucg_fs_readdir(s->e, s->h, s->edir, &root, e_fill, &el);
	for (i = 0; i < kl.n; i++) {
		for (j = 0; j < el.n && strcmp(kl.names[i], el.names[j]); j++)
			;
		if (j == el.n) {
			if (known_only(kl.names[i]))
				printf("note %s: kernel-only file %s (known)\n", s->ctl, kl.names[i]);
			else {
				T_FAIL_AT("%s: kernel has %s, engine does not", s->ctl, kl.names[i]);
				nfail++;
			}
		} else if (kl.modes[i] != el.modes[j]) {
			T_FAIL_AT("%s: %s mode kernel %o engine %o", s->ctl, kl.names[i], kl.modes[i],
				  el.modes[j]);
			nfail++;
		}
	}
	for (j = 0; j < el.n; j++) {
		for (i = 0; i < kl.n && strcmp(kl.names[i], el.names[j]); i++)
			;
		if (i == kl.n) {
			if (known_only(el.names[j]))
				printf("note %s: engine-only file %s (known)\n", s->ctl, el.names[j]);
			else {
				T_FAIL_AT("%s: engine has %s, kernel does not", s->ctl, el.names[j]);
				nfail++;
			}
		}
	}
}

/* ---- setup ---------------------------------------------------------------------------- */

static struct ucg_blkdev blkdevs[64];
static size_t nr_blkdevs;

static void scan_block_devices(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	while (d && (de = readdir(d)) && nr_blkdevs < 64) {
		char p[512], buf[256];
		unsigned ma, mi;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/dev", de->d_name);
		f = fopen(p, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &ma, &mi) == 2) {
			blkdevs[nr_blkdevs].major = ma;
			blkdevs[nr_blkdevs].minor = mi;
			snprintf(p, sizeof(p), "/sys/block/%s/queue/scheduler", de->d_name);
			fclose(f);
			f = fopen(p, "r");
			blkdevs[nr_blkdevs].bfq = f && fgets(buf, sizeof(buf), f) && strstr(buf, "[bfq]");
			nr_blkdevs++;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

static int side_open(struct side *s, const char *ctl, const char *kroot)
{
	struct ucg_engine_config cfg;
	struct ucg_cred root = ucg_cred_root();

	memset(s, 0, sizeof(*s));
	s->ctl = ctl;
	snprintf(s->kdir, sizeof(s->kdir), "%s/%s", kroot, uniq);
	snprintf(s->edir, sizeof(s->edir), "/%s", uniq);
	if (mkdir(s->kdir, 0755) < 0) {
		printf("SKIP %s: cannot mkdir %s: %s\n", ctl, s->kdir, strerror(errno));
		return 0;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.blkdevs = blkdevs;
	cfg.nr_blkdevs = nr_blkdevs;
	if (ucg_engine_new(&cfg, &s->e) < 0 || ucg_mount(s->e, ctl, &s->h, NULL) < 0 ||
	    ucg_fs_mkdir(s->e, s->h, s->edir, 0755, &root) < 0) {
		T_FAIL_AT("engine setup for %s", ctl);
		return 0;
	}
	s->ok = 1;
	return 1;
}

static void side_close(struct side *s)
{
	if (s->e)
		ucg_engine_free(s->e);
	if (s->ok || s->kdir[0])
		rmdir(s->kdir);
}

static int v1_mounted(const char *ctl)
{
	char p[128];
	struct stat st;

	snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/tasks", ctl);
	return stat(p, &st) == 0;
}

/* ---- scripts -------------------------------------------------------------------------- */

static void run_memory(void)
{
	static const char *const lim_also[] = { "memory.memsw.limit_in_bytes", "memory.stat",
						NULL };
	static const char *const mem_limits[] = {
		"4096", "4097", "1", "1k", "100M", "100m", "1G", "1t", "2E", "16E", "0x1000",
		"010000", " 10", "-1", "9223372036854775807", "18446744073709551615",
		"18446744073709551616", "-2", "abc", "1.5M", "max", "10x", "\n", "1\n\n",
		"5 M", "-1", NULL,
	};
	static const struct {
		const char *file, *data;
	} script[] = {
		{ "memory.memsw.limit_in_bytes", "100M" },
		{ "memory.limit_in_bytes", "50M" },
		{ "memory.memsw.limit_in_bytes", "40M" },
		{ "memory.memsw.limit_in_bytes", "50M" },
		{ "memory.limit_in_bytes", "60M" },
		{ "memory.memsw.limit_in_bytes", "-1" },
		{ "memory.limit_in_bytes", "-1" },
		{ "memory.memsw.limit_in_bytes", "0" },
		{ "memory.limit_in_bytes", "0" },
		{ "memory.memsw.limit_in_bytes", "0" },
		{ "memory.memsw.limit_in_bytes", "-1" },
		{ "memory.limit_in_bytes", "-1" },
		{ "memory.soft_limit_in_bytes", "4097" },
		{ "memory.soft_limit_in_bytes", "abc" },
		{ "memory.soft_limit_in_bytes", "-1" },
		{ "memory.kmem.limit_in_bytes", "10M" },
		{ "memory.kmem.limit_in_bytes", "abc" },
		{ "memory.kmem.tcp.limit_in_bytes", "10M" },
		{ "memory.kmem.tcp.limit_in_bytes", "x" },
		{ "memory.kmem.tcp.limit_in_bytes", "-1" },
		{ "memory.max_usage_in_bytes", "abc" },
		{ "memory.memsw.max_usage_in_bytes", "1" },
		{ "memory.kmem.max_usage_in_bytes", "" },
		{ "memory.kmem.tcp.max_usage_in_bytes", "x" },
		{ "memory.failcnt", "xyz" },
		{ "memory.memsw.failcnt", "0" },
		{ "memory.kmem.failcnt", "0" },
		{ "memory.kmem.tcp.failcnt", "0" },
		{ "memory.force_empty", "abc" },
		{ "memory.usage_in_bytes", "0" },
		{ "memory.memsw.usage_in_bytes", "0" },
		{ "memory.kmem.usage_in_bytes", "0" },
		{ "memory.kmem.tcp.usage_in_bytes", "0" },
		{ "memory.stat", "0" },
		{ "memory.numa_stat", "0" },
		{ "memory.kmem.slabinfo", "0" },
		{ "memory.pressure_level", "low" },
		{ "memory.oom_control", " 1" },
		{ "memory.oom_control", "1\n" },
		{ "memory.oom_control", "2" },
		{ "memory.oom_control", "-1" },
		{ "memory.oom_control", "0" },
		{ "memory.swappiness", "201" },
		{ "memory.swappiness", "200" },
		{ "memory.swappiness", " 5" },
		{ "memory.swappiness", "0x10" },
		{ "memory.swappiness", "-1" },
		{ "memory.swappiness", "60" },
		{ "memory.use_hierarchy", "0" },
		{ "memory.use_hierarchy", "2" },
		{ "memory.use_hierarchy", "abc" },
		{ "memory.use_hierarchy", "1\n" },
		{ "memory.move_charge_at_immigrate", "0" },
		{ "memory.move_charge_at_immigrate", "1" },
		{ "memory.move_charge_at_immigrate", "3" },
		{ "memory.move_charge_at_immigrate", "4" },
		{ "memory.move_charge_at_immigrate", "-1" },
	};
	struct side s;
	size_t i;

	if (!v1_mounted("memory")) {
		printf("SKIP memory: no v1 memory hierarchy at /sys/fs/cgroup/memory\n");
		return;
	}
	if (!side_open(&s, "memory", "/sys/fs/cgroup/memory"))
		goto out;
	compare_listing(&s);
	for (i = 0; mem_limits[i]; i++)
		step(&s, "memory.limit_in_bytes", mem_limits[i], lim_also);
	for (i = 0; i < sizeof(script) / sizeof(script[0]); i++)
		step(&s, script[i].file, script[i].data, NULL);
	compare_read(&s, "memory.stat", "the script");
	compare_read(&s, "memory.numa_stat", "the script");
	compare_read(&s, "memory.oom_control", "the script");
out:
	side_close(&s);
}

static void run_hugetlb(void)
{
	static const char *const lims[] = { "2M", "3M", "1M", "4194303", "1G", "-1", "abc", "max",
					    "16E", "9223372036854775807", "-2", "\n", " 4M ", NULL };
	static const char *const resets[] = { "hugetlb.2MB.failcnt", "hugetlb.2MB.rsvd.failcnt",
					      "hugetlb.2MB.max_usage_in_bytes",
					      "hugetlb.2MB.rsvd.max_usage_in_bytes",
					      "hugetlb.2MB.usage_in_bytes",
					      "hugetlb.2MB.rsvd.usage_in_bytes",
					      "hugetlb.2MB.numa_stat", NULL };
	struct side s;
	size_t i;
	struct stat st;
	int r;

	if (stat("/sys/kernel/mm/hugepages/hugepages-2048kB", &st) < 0) {
		printf("SKIP hugetlb: no 2MB huge pages on this machine\n");
		return;
	}
	snprintf(hugetlb_mnt, sizeof(hugetlb_mnt), "/tmp/ucg-probe-%s", uniq);
	r = kdiff_mount(hugetlb_mnt, "hugetlb");
	if (r < 0) {
		printf("SKIP hugetlb: cannot mount the hugetlb hierarchy at %s: %s\n", hugetlb_mnt,
		       strerror(-r));
		return;
	}
	hugetlb_mounted = 1;
	if (!side_open(&s, "hugetlb", hugetlb_mnt))
		goto out;
	compare_listing(&s);
	for (i = 0; lims[i]; i++) {
		step(&s, "hugetlb.2MB.limit_in_bytes", lims[i], NULL);
		step(&s, "hugetlb.2MB.rsvd.limit_in_bytes", lims[i], NULL);
	}
	for (i = 0; resets[i]; i++)
		step(&s, resets[i], "x", NULL);
	/* the root refuses limits */
	{
		int kr = k_write(hugetlb_mnt, "hugetlb.2MB.limit_in_bytes", "2M", 2);
		struct ucg_cred root = ucg_cred_root();
		int er = ucg_fs_write_all(s.e, s.h, "/hugetlb.2MB.limit_in_bytes", &root, "2M", 2);

		ncases++;
		if (kr != er) {
			T_FAIL_AT("hugetlb root limit: kernel %d engine %d", kr, er);
			nfail++;
		}
	}
out:
	side_close(&s);
	kdiff_unmount(hugetlb_mnt);
	hugetlb_mounted = 0;
}

static void run_blkio(void)
{
	static const char *const th_files[] = {
		"blkio.throttle.read_bps_device", "blkio.throttle.write_bps_device",
		"blkio.throttle.read_iops_device", "blkio.throttle.write_iops_device", NULL
	};
	static const char *const th_script[] = {
		"7:0 1048576", "254:0 1M", "8:0 100", "7:0 max", "7:0 -1", "7:0", "7:0 ",
		"7:0  5", "7:0 5\n", " 7:0 6", "7:0 7 8", "7 5", "abc", "\n", "7:0 0x100",
		"7:0 3", "7:0 18446744073709551615", "7:0 4", "7:0 18446744073709551616",
		"7:0 99999999999999999999", "7:1 4294967295", "7:1 4294967296", "7:1 4294967294",
		"7:2 10", "7:1 0", "007:01 5", "+7:1 5", "7:1 +5", "7:1\t5", "7:999 5",
		"4294967303:0 5", "7:0 default", "7:0abc 5", "7:0: 5", "7: 3 5", "7:3 max",
		"254:0 0", "7:0 0", "7:1 0", "7:2 0", "7:3 0", NULL
	};
	static const char *const stat_also[] = { "blkio.throttle.io_service_bytes",
						 "blkio.throttle.io_serviced",
						 "blkio.throttle.io_service_bytes_recursive",
						 "blkio.throttle.io_serviced_recursive", NULL };
	static const char *const reset[] = { "abc", "-1", "5", " 5", "0x5", NULL };
	struct side s;
	size_t f, i;

	if (!v1_mounted("blkio")) {
		printf("SKIP blkio: no v1 blkio hierarchy at /sys/fs/cgroup/blkio\n");
		return;
	}
	if (!side_open(&s, "blkio", "/sys/fs/cgroup/blkio"))
		goto out;
	compare_listing(&s);
	for (f = 0; th_files[f]; f++)
		for (i = 0; th_script[i]; i++)
			step(&s, th_files[f], th_script[i], f == 0 ? stat_also : NULL);
	for (i = 0; reset[i]; i++)
		step(&s, "blkio.reset_stats", reset[i], NULL);
out:
	side_close(&s);
}

static void run_devices(void)
{
	static const char *const script[] = {
		/* file then data, pairs */
		"devices.deny", "c 1:3 w", "devices.deny", "b 8:* m", "devices.allow", "c 1:3 w",
		"devices.deny", "a", "devices.allow", "c 1:3 rwm", "devices.allow", "b 8:* r",
		"devices.allow", "c *:* m", "devices.allow", "c 1:5 r", "devices.allow", "c 1:5 w",
		"devices.allow", "c 136:* rw", "devices.deny", "c 1:* rwm", "devices.deny", "c 1:3 m",
		"devices.allow", "x 1:3 r", "devices.allow", "c 1:3", "devices.allow", "c 1:3 rx",
		"devices.allow", "c 1-3 r", "devices.allow", "c 1:3rw", "devices.allow", "c1:3 r",
		"devices.allow", "c a:3 r", "devices.allow", "c 1: r", "devices.allow", "c :3 r",
		"devices.allow", "c  1:3 r", "devices.allow", "c 1:3  r", "devices.allow",
		"c 4294967296:1 r", "devices.allow", "c -1:1 r", "devices.allow", "\n",
		"devices.allow", "c 1:3 rwmm", "devices.allow", "c 1:7 rrrr", "devices.allow",
		"c 1:8 r junk", "devices.allow", "c 4294967295:1 r", "devices.allow", " b 9:9 w \n",
		"devices.allow", "c 1:9 \nr", "devices.deny", "c 1:3 rwm", "devices.deny",
		"c 7:7 r", "devices.list", "x", "devices.allow", "a 1:3 r", "devices.deny",
		"a *:* r", "devices.allow", "c 1:3 r", NULL
	};
	static const char *const list_also[] = { "devices.list", NULL };
	struct side s;
	size_t i;

	if (!v1_mounted("devices")) {
		printf("SKIP devices: no v1 devices hierarchy at /sys/fs/cgroup/devices\n");
		return;
	}
	if (!side_open(&s, "devices", "/sys/fs/cgroup/devices"))
		goto out;
	compare_listing(&s);
	for (i = 0; script[i]; i += 2)
		step(&s, script[i], script[i + 1], list_also);
	/* hierarchy: a grandchild, then restrictions and relaxations from the child */
	{
		char kd[256], ed[80];
		struct ucg_cred root = ucg_cred_root();
		struct side g = s;
		static const char *const sub[] = {
			"P", "devices.deny", "a", "P", "devices.allow", "c 1:5 r", "P", "devices.allow",
			"c 1:3 wm", "P", "devices.allow", "b *:* m", "C", "devices.allow", "c 1:3 r",
			"C", "devices.allow", "c 1:5 w", "C", "devices.allow", "c 1:* r", "C",
			"devices.allow", "b 8:0 r", "C", "devices.allow", "a", "C", "devices.deny",
			"b *:* m", "C", "devices.allow", "b 8:0 m", "P", "devices.deny", "c 1:3 m", "P",
			"devices.deny", "b *:* m", "P", "devices.deny", "c 1:5 r", "P", "devices.allow",
			"c 1:5 r", "C", "devices.allow", "c 1:5 r", NULL
		};

		k_write(s.kdir, "devices.allow", "a", 1);
		e_write(&s, "devices.allow", "a", 1);
		/* the parent goes deny-all before the child exists: right after an rmdir the
		 * kernel may still count the removed child as online ("a" is then EINVAL) */
		step(&s, "devices.deny", "a", list_also);
		snprintf(kd, sizeof(kd), "%.250s/c", s.kdir);
		snprintf(ed, sizeof(ed), "%.70s/c", s.edir);
		if (mkdir(kd, 0755) == 0 && ucg_fs_mkdir(s.e, s.h, ed, 0755, &root) == 0) {
			snprintf(g.kdir, sizeof(g.kdir), "%s", kd);
			snprintf(g.edir, sizeof(g.edir), "%s", ed);
			for (i = 0; sub[i]; i += 3) {
				static const char *const both[] = { "devices.list", NULL };

				step(sub[i][0] == 'P' ? &s : &g, sub[i + 1], sub[i + 2], both);
				compare_read(sub[i][0] == 'P' ? &g : &s, "devices.list", sub[i + 2]);
			}
			rmdir(kd);
		}
	}
out:
	side_close(&s);
}

int main(void)
{
	const char *why;

	if (!kdiff_have_v1(&why)) {
		printf("SKIP diff_memory_io_controllers: %s\n", why);
		return 77;
	}
	snprintf(uniq, sizeof(uniq), "ucgdiffb%d", (int)getpid());
	scan_block_devices();
	t_state.case_name = "memory";
	T_RUN(run_memory);
	T_RUN(run_hugetlb);
	T_RUN(run_blkio);
	T_RUN(run_devices);
	printf("cases %d, differences %d\n", ncases, nfail);
	return t_done();
}
