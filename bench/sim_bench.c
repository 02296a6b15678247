/* bench/sim_bench.c — see sim_bench.h. */
#include "sim_bench.h"

#include <stdbool.h>
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

void sim_bench_hour_scenario(struct ucg_buf *b, const char *cpu_model)
{
	int u, g, k, m;

	ucg_buf_printf(b,
		       "set cpu_model %s\ncpus 64\nmemory 64G\nset swap 16G\n"
		       "set sample 60s\ndevice sda 8:0 bps=200M\nfile logs dev=sda\n"
		       "mount -o cpu,cpuacct cpu\nmount -o memory mem\n",
		       cpu_model);
	for (u = 0; u < 10; u++) {
		ucg_buf_printf(b, "mkdir cpu/u%d\n", u);
		for (g = 0; g < 100; g++) {
			bool quota = g % 10 == 0, mem = g == 5;

			ucg_buf_printf(b, "mkdir cpu/u%d/s%d\n", u, g);
			if (quota)
				ucg_buf_printf(b, "echo %d > cpu/u%d/s%d/cpu.cfs_quota_us\n",
					       20000 + 300 * g, u, g);
			if (mem)
				ucg_buf_printf(
					b,
					"mkdir mem/u%d\necho 64M > mem/u%d/memory.limit_in_bytes\n",
					u, u);
			for (k = 0; k < 10; k++) {
				ucg_buf_printf(b,
					       "spawn t%d_%d_%d\necho $t%d_%d_%d > "
					       "cpu/u%d/s%d/cgroup.procs\n",
					       u, g, k, u, g, k, u, g);
				if (mem && k < 2)
					ucg_buf_printf(b,
						       "echo $t%d_%d_%d > mem/u%d/cgroup.procs\n",
						       u, g, k, u);
				if (quota && k < 2)
					ucg_buf_printf(b, "busy t%d_%d_%d\n", u, g, k);
				else if (!quota && k < 1)
					ucg_buf_printf(b, "busy t%d_%d_%d 0.0%d\n", u, g, k,
						       1 + (u + g + k) % 5);
			}
		}
	}
	/* every minute each memory tenant touches 96M past its 64M and frees it, and
	 * writes 64M of logs; staggered over the minute */
	for (m = 0; m < 60; m++)
		for (u = 0; u < 10; u++) {
			int at = 60 * m + 6 * u;

			ucg_buf_printf(b,
				       "at %ds alloc t%d_5_0 96M\nat %ds free t%d_5_0 96M\n"
				       "at %ds write t%d_5_1 logs 64M\n",
				       at, u, at + 3, u, at, u);
		}
	for (k = 1; k < 360; k++)
		ucg_buf_printf(b, "at %ds echo %d > cpu/u%d/cpu.shares\n", 10 * k,
			       512 + 97 * (k % 40), k % 10);
	ucg_buf_puts(b, "run 3600s\n");
}
