/* bench/bench_engine_scale.h — bench_engine's figures at scale (bench_engine_scale.c). */
#ifndef UCG_BENCH_ENGINE_SCALE_H
#define UCG_BENCH_ENGINE_SCALE_H

/* Prints the scale.* figures: mkdir/rmdir of up to a million cgroups in one directory
 * and the heap each cgroup costs, per hierarchy kind. only_kind and only_size pick
 * one kind (none, cpu_cpuacct, memory) and one size (1k, 10k, 100k, 1m); NULL: all,
 * and then the no-controller million once more with huge pages (the _thp figures). */
void scale_figures(const char *only_kind, const char *only_size);

#endif
