/* tests/fuzz/fuzz_cpuset.c — writes of arbitrary bytes to every cpuset file
 * (driver: fuzz_ctl.h). /a has cpus 0-2 and mems 0-1, /a/b cpus 1 and mems 1 with a
 * task. Extra invariants: every child's cpus and mems are subsets of its parent's, and
 * the effective masks equal them (v1). */
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const cpuset_files[] = {
	"cpuset.cpus", "cpuset.mems", "cpuset.effective_cpus", "cpuset.effective_mems",
	"cpuset.cpu_exclusive", "cpuset.mem_exclusive", "cpuset.mem_hardwall",
	"cpuset.memory_migrate", "cpuset.memory_spread_page", "cpuset.memory_spread_slab",
	"cpuset.sched_load_balance", "cpuset.sched_relax_domain_level", "cpuset.memory_pressure",
	"cpuset.memory_pressure_enabled", "cgroup.clone_children", NULL
};

static void prep(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	struct ucg_cred root = ucg_cred_root();

	if (ucg_fs_write_all(e, h, "/a/cpuset.cpus", &root, "0-2", 3) < 0 ||
	    ucg_fs_write_all(e, h, "/a/cpuset.mems", &root, "0-1", 3) < 0 ||
	    ucg_fs_write_all(e, h, "/a/b/cpuset.cpus", &root, "1", 1) < 0 ||
	    ucg_fs_write_all(e, h, "/a/b/cpuset.mems", &root, "1", 1) < 0)
		abort();
}

/* Parses our own canonical output back ("0,2-3") into a 64-bit mask. */
static unsigned long long mask_of(const char *s)
{
	unsigned long long m = 0;

	while (*s && *s != '\n') {
		unsigned long a = strtoul(s, (char **)&s, 10), b = a;

		if (*s == '-')
			b = strtoul(s + 1, (char **)&s, 10);
		for (; a <= b && a < 64; a++)
			m |= 1ull << a;
		if (*s == ',')
			s++;
	}
	return m;
}

static void check(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	static const char *const f[] = { "cpus", "mems" };
	char p[64], c[64], ef[64], pa[160], ch[160], ce[160];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(pa, sizeof(pa), "/cpuset.%s", f[i]);
		fz_read(e, h, pa, p, sizeof(p));
		snprintf(ch, sizeof(ch), "/a/cpuset.%s", f[i]);
		fz_read(e, h, ch, c, sizeof(c));
		snprintf(ce, sizeof(ce), "/a/cpuset.effective_%s", f[i]);
		fz_read(e, h, ce, ef, sizeof(ef));
		if ((mask_of(c) & ~mask_of(p)) || strcmp(c, ef))
			abort();
		snprintf(pa, sizeof(pa), "/a/b/cpuset.%s", f[i]);
		fz_read(e, h, pa, p, sizeof(p));
		if (mask_of(p) & ~mask_of(c))
			abort();
		if (!mask_of(p))
			abort(); /* /a/b has a task: it can never be emptied */
	}
}

int ucg_fuzz_cpuset(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "cpuset", .files = cpuset_files,
					     .setup = prep, .check = check, FZ_A_ENGINE };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_cpuset(data, size);
}
#endif
