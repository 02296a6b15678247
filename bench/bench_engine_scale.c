/* bench/bench_engine_scale.c — the engine at scale: many cgroups in one flat directory.
 *
 * For each hierarchy kind (no controllers; cpu,cpuacct; memory) and each size N in
 * 1k, 10k, 100k, 1M, prints
 *
 *   scale.<kind>.mkdir_<N>        ns per mkdir, N children of the root in one directory,
 *                                 into memory the process has never touched
 *   scale.<kind>.mkdir_<N>_warm   the same again after rmdir of all: the heap's pages
 *                                 are already mapped, so this is the engine's own cost
 *   ..._cpu                       the same two in CPU time of the process (user+sys):
 *                                 on a shared machine the wall clock also counts the
 *                                 time spent waiting for a CPU
 *   scale.<kind>.rmdir_<N>        ns per rmdir of all of them
 *   scale.<kind>.mallocs_per_mkdir_<N>  calls into malloc per cold mkdir (the counter
 *                                 of base/alloc.h; slab objects are not malloc calls)
 *   scale.<kind>.bytes_per_cgroup heap growth over the 1M cgroups, per cgroup
 *   scale.page_fault              ns to first touch one 4 KiB page of fresh memory here
 *
 * and scale.mkdir_1m / scale.bytes_per_cgroup for the no-controller kind. The heap is
 * measured (glibc's mallinfo2: bytes in use, allocator overhead included), not summed
 * from sizeof, so a table that doubles or a name that rounds up shows. The cold figure
 * is the warm one plus bytes_per_cgroup / 4096 page faults: on a virtual machine whose
 * page fault costs tens of microseconds, memory per cgroup is most of a cold mkdir.
 *
 * The engine's slab chunks and big tables come from base/alloc.h's bulk blocks, whose
 * pages are mapped in one call each (MAP_POPULATE), so bytes_per_cgroup counts those
 * blocks as well as malloc's heap. On this kind of virtual machine first use of fresh
 * memory costs some 6 microseconds a page however it is mapped (the hypervisor backs
 * it then: scale.page_fault is a demand fault, scale.fresh_page a populated page's
 * first write), so a cold mkdir pays bytes_per_cgroup / 4096 of that beside the
 * engine's own (warm) cost.
 * The kernel's figure is left out: a million kernel cgroups cost ~100 GB of memory.
 */
#include "engine/ucg.h"

#include "bench_util.h"
#include "bench_engine_scale.h"

#include "base/alloc.h"

#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd + ucg_bulk_bytes();
}

static void cg_path(char *buf, size_t len, int i)
{
	snprintf(buf, len, "/c%d", i);
}

/* CPU time of this process, user and system: on a machine shared with other work
 * the wall clock counts the time we wait for a CPU, this does not. */
static double cpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

struct pass {
	double wall, cpu; /* ns per operation */
};

static struct pass time_mkdirs(struct ucg_engine *e, struct ucg_hierarchy *h, int n)
{
	struct ucg_cred root = ucg_cred_root();
	char path[32];
	double t0 = bench_now_ns(), c0 = cpu_now_ns();
	struct pass p;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		cg_path(path, sizeof(path), i);
		err = ucg_fs_mkdir(e, h, path, 0755, &root);
	}
	if (err)
		fprintf(stderr, "bench_engine: mkdir %s: %s\n", path, strerror(-err));
	p.wall = (bench_now_ns() - t0) / n;
	p.cpu = (cpu_now_ns() - c0) / n;
	return p;
}

static double time_rmdirs(struct ucg_engine *e, struct ucg_hierarchy *h, int n)
{
	struct ucg_cred root = ucg_cred_root();
	char path[32];
	double t0 = bench_now_ns();
	int i;

	for (i = 0; i < n; i++) {
		cg_path(path, sizeof(path), i);
		ucg_fs_rmdir(e, h, path, &root);
	}
	return (bench_now_ns() - t0) / n;
}

/* One kind at one size: mkdir n children, rmdir them, again; returns the heap growth.
 * The allocator returns freed memory to the kernel between runs (malloc_trim), so each
 * run's first pass starts cold. */
static size_t scale_run(const char *kind, const char *opts, int n, const char *label)
{
	struct ucg_engine *e;
	struct ucg_hierarchy *h;
	size_t before, grown;
	struct pass cold, warm;
	double rm;
	long allocs;

	malloc_trim(0);
	if (ucg_engine_new(NULL, &e) < 0 || ucg_mount(e, opts, &h, NULL) < 0) {
		fprintf(stderr, "bench_engine: cannot mount %s\n", opts);
		return 0;
	}
	before = heap_in_use();
	ucg_alloc_fail_after(-1); /* restarts the count of malloc calls */
	cold = time_mkdirs(e, h, n);
	allocs = ucg_alloc_fail_after(-1);
	grown = heap_in_use() - before;
	rm = time_rmdirs(e, h, n);
	warm = time_mkdirs(e, h, n);
	time_rmdirs(e, h, n);
	printf("scale.%s.mkdir_%s %.0f ns\n", kind, label, cold.wall);
	if (!strcmp(kind, "none") && n == 1000000)
		printf("scale.mkdir_1m %.0f ns\n", cold.wall);
	printf("scale.%s.mkdir_%s_cpu %.0f ns\n", kind, label, cold.cpu);
	printf("scale.%s.mkdir_%s_warm %.0f ns\n", kind, label, warm.wall);
	printf("scale.%s.mkdir_%s_warm_cpu %.0f ns\n", kind, label, warm.cpu);
	printf("scale.%s.mallocs_per_mkdir_%s %.3f\n", kind, label, (double)allocs / n);
	printf("scale.%s.rmdir_%s %.0f ns\n", kind, label, rm);
	ucg_engine_free(e);
	return grown;
}

static void page_fault_figure(void)
{
	size_t i, n = 64u << 20;
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0;

	if (p == MAP_FAILED)
		return;
	t0 = bench_now_ns();
	for (i = 0; i < n; i += 4096)
		p[i] = 1;
	printf("scale.page_fault %.0f ns\n", (bench_now_ns() - t0) / (double)(n / 4096));
	munmap(p, n);

	/* the same pages mapped in one call, then written once: what a bulk block costs */
	t0 = bench_now_ns();
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
		 0);
	if (p == MAP_FAILED)
		return;
	for (i = 0; i < n; i += 4096)
		p[i] = 1;
	printf("scale.fresh_page %.0f ns\n", (bench_now_ns() - t0) / (double)(n / 4096));
	munmap(p, n);
}

void scale_figures(const char *only_kind, const char *only_size)
{
	static const struct {
		const char *kind, *opts;
	} kinds[] = {
		{ "none", "none,name=scale" },
		{ "cpu_cpuacct", "cpu,cpuacct" },
		{ "memory", "memory" },
	};
	static const struct {
		int n;
		const char *label;
	} sizes[] = { { 1000, "1k" }, { 10000, "10k" }, { 100000, "100k" }, { 1000000, "1m" } };
	size_t k, s;

	/* Freed memory stays with the process between the passes of a run (the warm
	 * figure); malloc_trim hands it back between runs. */
	mallopt(M_TRIM_THRESHOLD, 1 << 30);
	page_fault_figure();
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		size_t grown = 0;

		if (only_kind && strcmp(only_kind, kinds[k].kind))
			continue;
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			if (!only_size || !strcmp(only_size, sizes[s].label))
				grown = scale_run(kinds[k].kind, kinds[k].opts, sizes[s].n,
						  sizes[s].label);
		if (only_size && strcmp(only_size, "1m"))
			continue;
		printf("scale.%s.bytes_per_cgroup %.0f B\n", kinds[k].kind,
		       (double)grown / sizes[s - 1].n);
		if (k == 0) /* the headline figure: the no-controller kind */
			printf("scale.bytes_per_cgroup %.0f B\n", (double)grown / sizes[s - 1].n);
	}
	malloc_trim(0);
}
