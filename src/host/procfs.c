/* host/procfs.c — readers and parsers of /proc/TID/stat and /proc/TID/status, and the
 * task identity and credentials the provider builds from them (see procfs.h).
 *
 * stat: the comm field is whatever the task called itself (prctl PR_SET_NAME takes
 * spaces, parentheses and newlines), so fields are counted from the last ')'; the
 * fields after it are single-space separated numbers, the first being field 3.
 * status: "Name:\tvalue" lines; comm is escaped there, so lines split on '\n'.
 * A task that is gone reads as ENOENT, reported as ESRCH.
 */
#include "host/host.h"
#include "host/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t procfs_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

int procfs_parse_stat(char *buf, struct procfs_stat *ret)
{
	char *p = strrchr(buf, ')'), *tok, *save = NULL;
	struct procfs_stat st = { .processor = -1 };
	int field = 3;

	if (!p)
		return -EIO;
	for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 3)
			st.state = tok[0];
		else if (field == 4)
			st.ppid = atoi(tok);
		else if (field == 9)
			st.flags = (unsigned)strtoul(tok, NULL, 10);
		else if (field == 14)
			st.utime = strtoul(tok, NULL, 10);
		else if (field == 15)
			st.stime = strtoul(tok, NULL, 10);
		else if (field == 22)
			st.start_time = strtoull(tok, NULL, 10);
		else if (field == 39) {
			st.processor = (int)strtoul(tok, NULL, 10);
			break;
		}
	}
	if (field <= 22) /* the line stopped before field 22 */
		return -EIO;
	*ret = st;
	return 0;
}

static int read_stat_at(const char *path, struct procfs_stat *ret)
{
	char buf[1024];
	ssize_t n;

	n = procfs_read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	return procfs_parse_stat(buf, ret);
}

int procfs_read_stat(int tid, struct procfs_stat *ret)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	return read_stat_at(path, ret);
}

int procfs_read_task_stat(int tgid, int tid, struct procfs_stat *ret)
{
	char path[80];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
	return read_stat_at(path, ret);
}

int procfs_parse_status(char *buf, struct procfs_status *st)
{
	char *line, *save = NULL;

	st->ngroups = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Tgid:", 5))
			st->tgid = atoi(line + 5);
		else if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%u %u %u %u", &st->uid[0], &st->uid[1], &st->uid[2],
			       &st->uid[3]);
		else if (!strncmp(line, "Gid:", 4))
			sscanf(line + 4, "%u %u %u %u", &st->gid[0], &st->gid[1], &st->gid[2],
			       &st->gid[3]);
		else if (!strncmp(line, "CapEff:", 7))
			st->capeff = strtoull(line + 7, NULL, 16);
		else if (!strncmp(line, "Groups:", 7) && st->groups) {
			char *p = line + 7, *end;

			for (;;) {
				unsigned long g = strtoul(p, &end, 10);

				if (end == p || st->ngroups >= st->max_groups)
					break;
				st->groups[st->ngroups++] = (uint32_t)g;
				p = end;
			}
		}
	}
	return 0;
}

int procfs_read_status(int tid, struct procfs_status *st)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	n = procfs_read_small(path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	return procfs_parse_status(buf, st);
}

int ucg_host_read_task(int tid, struct ucg_task_info *ret)
{
	struct ucg_task_info info;
	struct procfs_status st;
	struct procfs_stat s;
	int r;

	memset(&info, 0, sizeof(info));
	memset(&st, 0, sizeof(st));
	r = procfs_read_stat(tid, &s);
	if (r < 0)
		return r;
	r = procfs_read_status(tid, &st);
	if (r < 0)
		return r;
	info.tid = tid;
	info.tgid = st.tgid ? st.tgid : tid;
	info.start_time = s.start_time;
	info.ruid = st.uid[0], info.euid = st.uid[1], info.suid = st.uid[2], info.fsuid = st.uid[3];
	info.rgid = st.gid[0], info.egid = st.gid[1], info.sgid = st.gid[2], info.fsgid = st.gid[3];
	if (s.flags & PROCFS_PF_KTHREAD)
		info.flags |= UCG_TASK_KTHREAD;
	if ((s.flags & PROCFS_PF_KTHREAD) && (s.flags & PROCFS_PF_NO_SETAFFINITY))
		info.flags |= UCG_TASK_NO_SETAFFINITY;
	if (tid == 2 && (s.flags & PROCFS_PF_KTHREAD))
		info.flags |= UCG_TASK_NO_SETAFFINITY; /* kthreadd never moves */
	/* the policy, for the cpu controller's RT rules (set_cred takes it too) */
	r = sched_getscheduler(tid);
	if (r == SCHED_FIFO || r == SCHED_RR)
		info.flags |= UCG_TASK_RT;
	*ret = info;
	return 0;
}

int ucg_host_read_cred(int tid, struct ucg_cred *ret, uint32_t *groups, size_t max_groups)
{
	struct procfs_status st;
	int r;

	memset(&st, 0, sizeof(st));
	st.groups = groups;
	st.max_groups = max_groups;
	r = procfs_read_status(tid, &st);
	if (r < 0)
		return r;
	memset(ret, 0, sizeof(*ret));
	ret->uid = st.uid[0], ret->euid = st.uid[1], ret->suid = st.uid[2], ret->fsuid = st.uid[3];
	ret->gid = st.gid[0], ret->egid = st.gid[1], ret->sgid = st.gid[2], ret->fsgid = st.gid[3];
	ret->groups = groups;
	ret->ngroups = st.ngroups;
	ret->caps = st.capeff;
	ret->tid = tid;
	ret->tgid = st.tgid ? st.tgid : tid;
	return 0;
}
