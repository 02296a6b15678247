/* tests/fuzz/fuzz_memory.c — writes of arbitrary bytes to every memory.* file
 * (driver: fuzz_ctl.h). /a/b holds 5 anonymous pages, so limit writes can meet
 * EBUSY; with no page cache a refused limit reclaims nothing and must leave no trace. */
#include "controllers/charge.h"
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const memory_files[] = {
	"memory.usage_in_bytes", "memory.max_usage_in_bytes", "memory.limit_in_bytes",
	"memory.soft_limit_in_bytes", "memory.failcnt", "memory.memsw.usage_in_bytes",
	"memory.memsw.max_usage_in_bytes", "memory.memsw.limit_in_bytes", "memory.memsw.failcnt",
	"memory.kmem.usage_in_bytes", "memory.kmem.limit_in_bytes",
	"memory.kmem.max_usage_in_bytes", "memory.kmem.failcnt", "memory.kmem.slabinfo",
	"memory.kmem.tcp.usage_in_bytes", "memory.kmem.tcp.limit_in_bytes",
	"memory.kmem.tcp.max_usage_in_bytes", "memory.kmem.tcp.failcnt", "memory.stat",
	"memory.numa_stat", "memory.force_empty", "memory.use_hierarchy", "memory.swappiness",
	"memory.move_charge_at_immigrate", "memory.oom_control", "memory.pressure_level", NULL
};

static void prep(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	if (ucg_memory_charge(fz_task_cg(e, 100, UCG_SS_memory), UCG_MEM_ANON, 5, NULL) < 0 ||
	    ucg_memory_charge(fz_task_cg(e, 100, UCG_SS_memory), UCG_MEM_KERNEL, 2, NULL) < 0)
		abort();
}

int ucg_fuzz_memory(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "memory", .files = memory_files,
					     .charge = prep };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_memory(data, size);
}
#endif
