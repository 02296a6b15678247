/* bench/sim_bench.c — see sim_bench.h. */
#include "sim_bench.h"

#include <stdio.h>
#include <stdlib.h>

char *sim_bench_scenario(const char *file, size_t *len)
{
	const char *root = getenv("UCG_SOURCE_ROOT");
	char path[1024];
	struct ucg_buf b;
	char chunk[8192];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/scenarios/%s", root ? root : ".", file);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	ucg_buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ucg_buf_append(&b, chunk, n);
	fclose(f);
	return ucg_buf_steal(&b, len);
}

void sim_bench_big_scenario(struct ucg_buf *b)
{
	int u, g, k;

	ucg_buf_puts(b, "cpus 64\nmount -o cpu,cpuacct cpu\n");
	for (u = 0; u < 10; u++) {
		ucg_buf_printf(b, "mkdir cpu/u%d\n", u);
		for (g = 0; g < 100; g++) {
			ucg_buf_printf(b, "mkdir cpu/u%d/s%d\n", u, g);
			if (g % 10 == 0)
				ucg_buf_printf(b, "echo %d > cpu/u%d/s%d/cpu.cfs_quota_us\n",
					       20000 + 1000 * g, u, g);
			for (k = 0; k < 10; k++)
				ucg_buf_printf(b, "spawn t%d_%d_%d\necho $t%d_%d_%d > cpu/u%d/s%d/cgroup.procs\n"
						  "busy t%d_%d_%d 0.%d\n",
					       u, g, k, u, g, k, u, g, u, g, k, 1 + (u + g + k) % 9);
		}
	}
	for (k = 1; k < 60; k++)
		ucg_buf_printf(b, "at %ds echo %d > cpu/u%d/cpu.shares\n", k, 512 + 97 * k, k % 10);
	ucg_buf_puts(b, "run 60s\n");
}
