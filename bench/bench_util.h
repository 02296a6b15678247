/* bench/bench_util.h — the clock and the control-file write every benchmark program
 * uses. */
#ifndef UCG_BENCH_UTIL_H
#define UCG_BENCH_UTIL_H

/* CLOCK_MONOTONIC, in ns. */
double bench_now_ns(void);

/* Writes s to the file at path in one write(2): 0, or the negative errno of the
 * open or the write (a kernel control file refusing the value). */
int bench_write_str(const char *path, const char *s);

#endif
