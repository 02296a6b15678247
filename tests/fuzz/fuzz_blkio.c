/* tests/fuzz/fuzz_blkio.c — writes of arbitrary bytes to every blkio.* file
 * (driver: fuzz_ctl.h). The stat blocks may gain a device on a refused write (the
 * kernel makes a device's state before it parses the value), so they are not part of
 * the no-trace check; the rule files are. */
#include "controllers/charge.h"
#include "fuzz.h"
#include "fuzz_ctl.h"

static const char *const blkio_files[] = {
	"blkio.bfq.weight", "blkio.bfq.weight_device", "blkio.bfq.io_service_bytes",
	"blkio.bfq.io_service_bytes_recursive", "blkio.bfq.io_serviced",
	"blkio.bfq.io_serviced_recursive", "blkio.throttle.read_bps_device",
	"blkio.throttle.write_bps_device", "blkio.throttle.read_iops_device",
	"blkio.throttle.write_iops_device", "blkio.throttle.io_service_bytes",
	"blkio.throttle.io_service_bytes_recursive", "blkio.throttle.io_serviced",
	"blkio.throttle.io_serviced_recursive", "blkio.reset_stats", NULL
};

static const char *const volatile_files[] = {
	"blkio.bfq.io_service_bytes", "blkio.bfq.io_service_bytes_recursive",
	"blkio.bfq.io_serviced", "blkio.bfq.io_serviced_recursive",
	"blkio.throttle.io_service_bytes", "blkio.throttle.io_service_bytes_recursive",
	"blkio.throttle.io_serviced", "blkio.throttle.io_serviced_recursive", NULL
};

static void prep(struct ucg_engine *e, struct ucg_hierarchy *h)
{
	if (ucg_blkio_account(fz_task_cg(e, 100, UCG_SS_blkio), 7, 0, UCG_BIO_READ, true, 4096, 1) < 0)
		abort();
}

int ucg_fuzz_blkio(const uint8_t *data, size_t size)
{
	static const struct fz_spec spec = { .mount = "blkio", .files = blkio_files,
					     .volatile_files = volatile_files, .charge = prep };

	return fz_run(&spec, data, size);
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_blkio(data, size);
}
#endif
