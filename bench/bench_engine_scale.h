/* bench/bench_engine_scale.h — bench_engine's figures at scale (bench_engine_scale.c). */
#ifndef UCG_BENCH_ENGINE_SCALE_H
#define UCG_BENCH_ENGINE_SCALE_H

/* Prints the scale.* figures: mkdir/rmdir of up to a million cgroups in one directory
 * and the heap each cgroup costs, per hierarchy kind. */
void scale_figures(void);

#endif
