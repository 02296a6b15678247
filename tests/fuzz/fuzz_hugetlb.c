/* tests/fuzz/fuzz_hugetlb.c — writes of arbitrary bytes to every hugetlb.* file
 * (driver: fuzz_ctl.h). /a/b holds one 2MB page and one 2MB reservation, so limits
 * can meet EBUSY. */
#include "controllers/charge.h"
#include "fuzz.h"
#include "fuzz_ctl.h"

#define HFILES(S)                                                                              \
	"hugetlb." S ".limit_in_bytes", "hugetlb." S ".usage_in_bytes",                        \
		"hugetlb." S ".max_usage_in_bytes", "hugetlb." S ".failcnt",                   \
		"hugetlb." S ".rsvd.limit_in_bytes", "hugetlb." S ".rsvd.usage_in_bytes",      \
		"hugetlb." S ".rsvd.max_usage_in_bytes", "hugetlb." S ".rsvd.failcnt",         \
		"hugetlb." S ".numa_stat"

static const char *const hugetlb_files[] = { HFILES("2MB"), HFILES("1GB"), NULL };

static void prep(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	if (ucg_hugetlb_charge(fz_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, false, 1, NULL) < 0 ||
	    ucg_hugetlb_charge(fz_task_cg(e, 100, UCG_SS_hugetlb), UCG_HUGETLB_2MB, true, 1, NULL) < 0)
		abort();
}

int ucg_fuzz_hugetlb(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "hugetlb", .files = hugetlb_files,
					     .charge = prep };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_hugetlb(data, size);
}
#endif
