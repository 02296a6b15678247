/* tests/fuzz/fuzz_scenario.c — the simulator's scenario parser (and a short run) on
 * arbitrary bytes.
 *
 * Invariants: loading returns 0 or -EINVAL (with "fuzz.ucg:LINE: " in front of the
 * reason) or -ENOMEM; a loaded scenario runs to completion or stops with an error or
 * at the event limit, never crashes; two runs of the same input give the same bytes
 * out (determinism). The event limit is small so every input finishes quickly. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "fuzz.h"
#include "sim/sim.h"

static char *run(const uint8_t *data, size_t size, int *ret_loaded)
{
	struct sim_config cfg;
	struct sim_err err;
	struct ucg_buf out;
	struct sim *s = NULL;
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.seed = 7;
	cfg.max_events = 5000;
	if (sim_new(&cfg, &s) < 0)
		abort();
	ucg_buf_init(&out);
	r = sim_load(s, "fuzz.ucg", (const char *)data, size, &err);
	*ret_loaded = r == 0;
	if (r < 0) {
		if (r != -EINVAL && r != -ENOMEM)
			abort();
		if (r == -EINVAL && strncmp(err.msg, "fuzz.ucg:", 9) != 0)
			abort();
	} else {
		r = sim_run(s, &err);
		if (r > 0)
			abort();
		ucg_buf_puts(&out, sim_log(s));
		if (r == 0)
			sim_format_summary(s, &out);
		else
			ucg_buf_printf(&out, "error %d %s\n", r, err.msg);
	}
	sim_free(s);
	if (!out.data)
		ucg_buf_puts(&out, "");
	return ucg_buf_steal(&out, NULL);
}

int ucg_fuzz_scenario(const uint8_t *data, size_t size)
{
	int loaded = 0, loaded2 = 0;
	char *a = run(data, size, &loaded), *b;

	if (loaded) {
		b = run(data, size, &loaded2);
		if (!a || !b || strcmp(a, b) != 0)
			abort(); /* same input, same seed: same bytes */
		ucg_free(b);
	}
	ucg_free(a);
	return 0;
}

#ifndef UCG_FUZZ_NO_ENTRY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return ucg_fuzz_scenario(data, size);
}
#endif
