/* tests/fuzz/fuzz.h — the fuzz targets as plain functions, so that replay_corpus.c
 * can link one of them without libFuzzer. Each fuzz_*.c defines its ucg_fuzz_*
 * function and, unless UCG_FUZZ_NO_ENTRY is defined, LLVMFuzzerTestOneInput calling
 * it. A target aborts when an invariant fails; sanitizers catch the rest. */
#ifndef UCG_TESTS_FUZZ_H
#define UCG_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int ucg_fuzz_memparse(const uint8_t *data, size_t size);
int ucg_fuzz_cpulist(const uint8_t *data, size_t size);
int ucg_fuzz_devices(const uint8_t *data, size_t size);
int ucg_fuzz_mount_opts(const uint8_t *data, size_t size);
int ucg_fuzz_core_files(const uint8_t *data, size_t size);
int ucg_fuzz_scenario(const uint8_t *data, size_t size); /* sim: scenario parser + run */
/* memory, hugetlb, blkio, devices files through the engine */
int ucg_fuzz_memory(const uint8_t *data, size_t size);
int ucg_fuzz_event_control(const uint8_t *data, size_t size); /* cgroup.event_control */
int ucg_fuzz_hugetlb(const uint8_t *data, size_t size);
int ucg_fuzz_blkio(const uint8_t *data, size_t size);
int ucg_fuzz_devctl(const uint8_t *data, size_t size);

/* cpuset, cpu, cpuacct, freezer, pids, net_cls, net_prio files */
int ucg_fuzz_cpuset(const uint8_t *data, size_t size);
int ucg_fuzz_cpu(const uint8_t *data, size_t size);
int ucg_fuzz_cpuacct(const uint8_t *data, size_t size);
int ucg_fuzz_freezer(const uint8_t *data, size_t size);
int ucg_fuzz_pids(const uint8_t *data, size_t size);
int ucg_fuzz_net_cls(const uint8_t *data, size_t size);
int ucg_fuzz_net_prio(const uint8_t *data, size_t size);

int ucg_fuzz_cgconfig(const uint8_t *data, size_t size); /* the CLI's cgconfig.conf parser */

/* the daemon's request decoders (fuzz_daemon.h): control protocol, FUSE requests */
int ucg_fuzz_ctl_server(const uint8_t *data, size_t size);
int ucg_fuzz_fuse_ll(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
