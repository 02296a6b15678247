/* tests/kernel/kdiff.h — what the kernel differential tests (diff_*.c) share: the
 * kernel side's file I/O with errno captured, the engine side's read in the same
 * format, and scratch cgroup v1 mounts under /tmp. Reads render an error as
 * "<errno N>" on both sides so that a result compares as one string. */
#ifndef UCG_TESTS_KERNEL_KDIFF_H
#define UCG_TESTS_KERNEL_KDIFF_H

#include <stddef.h>

#include "engine/ucg.h"

/* 1 when this process can compare with the kernel (root, cgroup v1 in the kernel);
 * else 0 with *why saying what is missing. */
int kdiff_have_v1(const char **why);

/* One write(2) of data to the kernel file path: 0, or the negative errno of the open
 * or of the write. */
int kdiff_write(const char *path, const char *data, size_t len);

/* The kernel file path's whole content (at most n - 1 bytes) into out, NUL-terminated;
 * "<errno N>" when the open or a read fails. */
void kdiff_read(const char *path, char *out, size_t n);

/* The engine's file path read as root, in kdiff_read's format. */
void kdiff_e_read(struct ucg_engine *e, struct ucg_hierarchy *h, const char *path, char *out,
		  size_t n);

/* Creates dir (an existing one is reused) and mounts a cgroup v1 hierarchy there with
 * opts: 0, or the negative errno with dir removed again. */
int kdiff_mount(const char *dir, const char *opts);

/* Unmounts dir and removes it (each step's failure ignored: cleanup). */
void kdiff_unmount(const char *dir);

/* Unmounts the named hierarchy name, mounted at dir with opts, removes dir, and makes
 * sure the hierarchy is gone. A cgroup removed just before stays among its parent's
 * children until the kernel frees it, and a hierarchy unmounted with children lingers,
 * unmounted, for the next mount of its name, which finds it with the state its last
 * user left (a scratch name reused with a recycled pid found release_agent chowned).
 * So it is mounted again and unmounted until /proc/self/cgroup no longer lists it. */
void kdiff_unmount_named(const char *dir, const char *opts, const char *name);

#endif
