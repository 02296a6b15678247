/* host/procfs.h — the parts of /proc/PID/stat and /proc/PID/status the host provider
 * reads, with parsers apart from the reads so they can be tested on recorded files.
 */
#ifndef UCG_HOST_PROCFS_H
#define UCG_HOST_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The kernel's task flags (stat field 9) the provider looks at. */
#define PROCFS_PF_EXITING 0x00000004u
#define PROCFS_PF_KTHREAD 0x00200000u
#define PROCFS_PF_NO_SETAFFINITY 0x04000000u

/* One line of /proc/TID/stat: "pid (comm) state ppid ...", comm being anything the
 * task named itself (spaces, parentheses, newlines): it ends at the last ')'. */
struct procfs_stat {
	char state;          /* field 3: R, S, D, Z, X, ... */
	int ppid;            /* field 4 */
	unsigned flags;      /* field 9: PF_* */
	uint64_t utime;      /* field 14: clock ticks in user mode */
	uint64_t stime;      /* field 15: clock ticks in kernel mode */
	uint64_t start_time; /* field 22: clock ticks after boot */
	int processor;       /* field 39: the CPU it last ran on; -1 if the line stops before */
};

/* Parses buf, one NUL-terminated stat line, which it modifies (tokenises).
 * 0, or -EIO if there is no ')' or the line stops before field 22. */
int procfs_parse_stat(char *buf, struct procfs_stat *ret);

/* What the provider takes from /proc/TID/status. */
struct procfs_status {
	int tgid;            /* 0 if absent */
	uint32_t uid[4], gid[4]; /* real, effective, saved, filesystem */
	uint64_t capeff;
	uint32_t *groups;    /* in: where to put the supplementary groups, or NULL */
	size_t max_groups;   /* in: room in groups */
	size_t ngroups;      /* out: groups stored (at most max_groups) */
};

/* Parses buf, the NUL-terminated text of a status file, which it modifies; fills the
 * fields above that it finds and leaves the others as they were. Returns 0. */
int procfs_parse_status(char *buf, struct procfs_status *st);

/* Reads path into buf (size - 1 bytes at most) and terminates it: the length read,
 * or -errno. */
ssize_t procfs_read_small(const char *path, char *buf, size_t size);
/* Reads and parses /proc/TID/stat: 0, -ESRCH if the task is gone, -errno, -EIO.
 * Its utime and stime are the whole thread group's (the kernel's do_task_stat with
 * whole=1, even when TID names a thread that is not the leader); the other fields
 * are the task's own. */
int procfs_read_stat(int tid, struct procfs_stat *ret);
/* Reads and parses /proc/TGID/task/TID/stat: the same fields, utime and stime being
 * the thread's own. 0, -ESRCH if the task is gone (or not of tgid), -errno, -EIO. */
int procfs_read_task_stat(int tgid, int tid, struct procfs_stat *ret);
/* Reads and parses /proc/TID/status: 0, -ESRCH if the task is gone, or -errno. */
int procfs_read_status(int tid, struct procfs_status *st);

#endif
