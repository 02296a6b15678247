/* host/enforce.c — freezer by signals, cpuset by affinity and page migration
 * (see enforce.h).
 *
 * Model and limits. SIGSTOP stops a whole thread group (a group stop), so freezing
 * one thread stops its process; a process whose threads sit in different freezer
 * cgroups is stopped or continued as a whole. A frozen task's parent sees it
 * stopped (waitpid WUNTRACED, a shell prints "Stopped"), which the kernel's freezer
 * does not show. sched_setaffinity replaces any mask the task chose itself: this is the
 * daemon's cpus_changed only where host/cpuhold.c, which sees such requests, is not
 * used (the kernel's v2 cpuset holds cpuset there). cpuset.mems
 * moves pages with migrate_pages(2) where the kernel would (memory_migrate); a task's
 * mems_allowed and memory policy cannot be set from outside, so allocations after a
 * move are not confined.
 */
#include "host/enforce.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct frozen {
	int tid, tgid;
	uint64_t start_time;
	int reported; /* the engine was told it is stopped */
};

struct ucg_enforce {
	struct frozen *v;
	size_t n, cap;
};

int ucg_enforce_new(struct ucg_enforce **ret)
{
	struct ucg_enforce *f = ucg_calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	*ret = f;
	return 0;
}

void ucg_enforce_free(struct ucg_enforce *f)
{
	if (!f)
		return;
	ucg_free(f->v);
	ucg_free(f);
}

/* state (field 3) and start time (field 22) of /proc/TID/stat; 0 or -errno */
static int task_state(int tid, char *state, uint64_t *start)
{
	char path[64], buf[1024], *p, *tok, *save = NULL;
	int fd, field = 3;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 3)
			*state = tok[0];
		if (field == 22) {
			*start = strtoull(tok, NULL, 10);
			return 0;
		}
	}
	return -EIO;
}

/* Sends sig to tid only if it is still the task that started at start_time. */
static int signal_same(int tgid, int tid, uint64_t start_time, int sig)
{
	uint64_t now_start = 0;
	char state;

	if (task_state(tid, &state, &now_start) < 0 || now_start != start_time)
		return -ESRCH;
	return syscall(SYS_tgkill, tgid, tid, sig) < 0 ? -errno : 0;
}

static struct frozen *find(struct ucg_enforce *f, int tid)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i].tid == tid)
			return &f->v[i];
	return NULL;
}

void ucg_enforce_freeze(struct ucg_enforce *f, struct ucg_engine *e, int tid, int freeze)
{
	struct ucg_task_info info;
	struct frozen *fz = find(f, tid);

	if (ucg_task_get_info(e, tid, &info) < 0 || (info.flags & UCG_TASK_KTHREAD))
		return;
	/* Never stop ourselves: nobody could thaw us. Such a cgroup stays FREEZING. */
	if (info.tgid == getpid())
		return;
	if (!freeze) {
		if (fz) {
			*fz = f->v[--f->n];
			signal_same(info.tgid, tid, info.start_time, SIGCONT);
		}
		return;
	}
	if (!fz) {
		if (f->n == f->cap) {
			size_t nc = f->cap ? f->cap * 2 : 16;
			struct frozen *nv = ucg_realloc(f->v, nc * sizeof(*nv));

			if (!nv)
				return;
			f->v = nv;
			f->cap = nc;
		}
		fz = &f->v[f->n++];
		fz->tid = tid;
	}
	fz->tgid = info.tgid;
	fz->start_time = info.start_time;
	fz->reported = 0;
	signal_same(info.tgid, tid, info.start_time, SIGSTOP);
}

int ucg_enforce_poll(struct ucg_enforce *f, struct ucg_engine *e)
{
	size_t i = 0;
	int busy = 0;

	while (i < f->n) {
		struct frozen *fz = &f->v[i];
		uint64_t start = 0;
		char state = 0;

		if (task_state(fz->tid, &state, &start) < 0 || start != fz->start_time ||
		    state == 'Z' || state == 'X') {
			*fz = f->v[--f->n]; /* gone: the engine learns it from the exit */
			continue;
		}
		if (state == 'T' || state == 't') {
			if (!fz->reported && ucg_freezer_task_stopped(e, fz->tid, 1) == 0)
				fz->reported = 1;
		} else {
			/* running: not stopped yet, or continued from outside */
			if (fz->reported) {
				ucg_freezer_task_stopped(e, fz->tid, 0);
				fz->reported = 0;
			}
			signal_same(fz->tgid, fz->tid, fz->start_time, SIGSTOP);
			busy = 1;
		}
		i++;
	}
	return busy;
}

void ucg_enforce_cpus(struct ucg_engine *e, int tid, const unsigned char *mask, size_t nbytes)
{
	struct ucg_task_info info;
	cpu_set_t set;
	size_t i;

	if (ucg_task_get_info(e, tid, &info) < 0 || (info.flags & UCG_TASK_KTHREAD))
		return;
	CPU_ZERO(&set);
	for (i = 0; i < nbytes * 8 && i < CPU_SETSIZE; i++)
		if (mask[i / 8] & (1u << (i % 8)))
			CPU_SET(i, &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(tid, sizeof(set), &set); /* a task gone meanwhile: ESRCH */
}

int ucg_enforce_nr_mems(void)
{
	const char *env = getenv("UCG_NR_MEMS"); /* tests: pretend to more nodes */
	char buf[256], *p;
	int fd, last = 0;
	ssize_t n;

	if (env && atoi(env) > 0)
		return atoi(env);
	fd = open("/sys/devices/system/node/has_memory", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* no NUMA: one node */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	/* a list like "0-1,3": the last number is the highest node */
	for (p = buf; *p; p++)
		if (*p >= '0' && *p <= '9' && (p == buf || p[-1] < '0' || p[-1] > '9'))
			last = atoi(p);
	return last + 1;
}

/* Bit array (bit i of byte i / 8) -> nodemask words, as migrate_pages(2) takes them. */
static void to_nodemask(const unsigned char *m, size_t nbytes, unsigned long *out, size_t words)
{
	size_t i;

	memset(out, 0, words * sizeof(*out));
	for (i = 0; i < nbytes * 8 && i < words * 8 * sizeof(*out); i++)
		if (m[i / 8] & (1u << (i % 8)))
			out[i / (8 * sizeof(*out))] |= 1ul << (i % (8 * sizeof(*out)));
}

#define NODE_WORDS 16 /* 1024 nodes */

int ucg_enforce_migrate(struct ucg_engine *e, int tid, const unsigned char *from,
			const unsigned char *to, size_t nbytes)
{
	unsigned long old_nodes[NODE_WORDS], new_nodes[NODE_WORDS];
	struct ucg_task_info info;
	const char *log = getenv("UCG_ENFORCE_LOG");
	long r;
	int err;

	if (ucg_task_get_info(e, tid, &info) < 0 || (info.flags & UCG_TASK_KTHREAD))
		return -ESRCH;
	to_nodemask(from, nbytes, old_nodes, NODE_WORDS);
	to_nodemask(to, nbytes, new_nodes, NODE_WORDS);
	/* Pages that could not move are counted, not an error (the kernel's
	 * cpuset_migrate_mm ignores them too). */
	r = syscall(SYS_migrate_pages, tid, (unsigned long)NODE_WORDS * 8 * sizeof(long),
		    old_nodes, new_nodes);
	err = r < 0 ? -errno : 0;
	if (log && *log) {
		FILE *f = fopen(log, "a");

		if (f) {
			fprintf(f, "migrate_pages tid %d from 0x%lx to 0x%lx = %d\n", tid,
				old_nodes[0], new_nodes[0], err ? err : (int)r);
			fclose(f);
		}
	}
	return err;
}
