/* tests/fuzz/fuzz_mount_opts.c — mount and remount data on arbitrary bytes.
 *
 * Invariants: the result is 0, -EINVAL or -EBUSY; a successful mount's own
 * mountinfo options, mounted again, find the same hierarchy; a failed remount leaves
 * the hierarchy's options exactly as they were. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ucg.h"
#include "fuzz.h"

static void options_of(struct ucg_hierarchy *h, struct ucg_buf *b)
{
	ucg_buf_reset(b);
	if (ucg_hierarchy_format_options(h, b) < 0)
		abort();
}

int ucg_fuzz_mount_opts(const uint8_t *data, size_t size)
{
	struct ucg_engine *e;
	struct ucg_hierarchy *h, *again, *m;
	struct ucg_buf before, after;
	struct ucg_err err;
	char *opts = malloc(size + 1);
	int r;

	if (!opts || ucg_engine_new(NULL, &e) < 0)
		abort();
	memcpy(opts, data, size);
	opts[size] = '\0';
	ucg_buf_init(&before);
	ucg_buf_init(&after);
	/* Something to collide with: cpu bound alone, and a named empty hierarchy. */
	if (ucg_mount(e, "cpu", &h, NULL) || ucg_mount(e, "none,name=systemd", &m, NULL))
		abort();

	r = ucg_mount(e, opts, &h, &err);
	if (r != 0 && r != -EINVAL && r != -EBUSY)
		abort();
	if (r == 0) {
		options_of(h, &before);
		/* Skip "rw,"; a name-only hierarchy needs "none," to be found again. */
		if (ucg_mount(e, before.data + 3, &again, NULL) != 0) {
			ucg_buf_reset(&after);
			ucg_buf_printf(&after, "none,%s", before.data + 3);
			if (ucg_mount(e, after.data, &again, NULL) != 0)
				abort();
		}
		if (again != h)
			abort();
		ucg_umount(e, again);
	}

	options_of(m, &before);
	r = ucg_remount(e, m, opts, &err);
	if (r != 0 && r != -EINVAL && r != -EBUSY)
		abort();
	if (r != 0) {
		options_of(m, &after);
		if (strcmp(before.data, after.data))
			abort();
	}
	ucg_buf_fini(&before);
	ucg_buf_fini(&after);
	ucg_engine_free(e);
	free(opts);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_mount_opts(data, size);
}
#endif
