/* bench/bench_cpuhold.c — the cost of holding cpuset on real threads (host/cpuhold.h).
 *
 * N threads of this process sit in a ucg cpuset of CPU 1 (an engine of its own, no
 * daemon, no root needed); passes of ucg_cpuhold_poll are timed as the daemon runs
 * them. Prints "name value unit":
 *   cpuhold.pass_ns_per_task   a pass with nothing escaped, per held thread
 *   cpuhold.getaffinity_ns     sched_getaffinity alone, the floor of the above
 *   cpuhold.clamp_ns_per_task  a pass where every thread escaped to {0,1}
 *   cpuhold.tasks_at_50ms      how many tasks the 50 ms period holds within 5% of a CPU
 *   cpuhold.period_ms_1000_tasks  the period (the longest escape) with 1,000 held tasks
 * With fewer than 2 CPUs there is nothing to escape: one line says so.
 */
#include "bench_util.h"

#include "controllers/charge.h"
#include "engine/ucg.h"
#include "host/cpuhold.h"
#include "host/host.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 256
#define PASSES 200

static struct ucg_cpuhold *hold;
static int tids[NTHREADS];
static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t started = PTHREAD_COND_INITIALIZER;
static int nstarted;
static int stop_fds[2];

static void cpus_changed(void *ctx, struct ucg_engine *e, int tid, const unsigned char *mask,
			 size_t nbytes)
{
	ucg_cpuhold_cpus(hold, tid, mask, nbytes);
}

static const struct ucg_provider_ops ops = { .cpus_changed = cpus_changed };

static void *sleeper(void *arg)
{
	char c;

	pthread_mutex_lock(&gate);
	tids[(long)arg] = (int)syscall(SYS_gettid);
	nstarted++;
	pthread_cond_signal(&started);
	pthread_mutex_unlock(&gate);
	if (read(stop_fds[0], &c, 1) < 0) {
		/* the pipe closed: the benchmark is over */
	}
	return NULL;
}

static int add_task(struct ucg_engine *e, int tid)
{
	struct ucg_task_info info;
	int r = ucg_host_read_task(tid, &info);

	return r < 0 ? r : ucg_task_add(e, &info);
}

/* ns per held task of `passes` passes (each due: the clock handed in jumps) */
static double timed_passes(int passes, uint64_t *now_ms)
{
	struct ucg_cpuhold_stats a, b;
	int i;

	ucg_cpuhold_get_stats(hold, &a);
	for (i = 0; i < passes; i++) {
		*now_ms += 100000;
		ucg_cpuhold_poll(hold, *now_ms);
	}
	ucg_cpuhold_get_stats(hold, &b);
	return b.polled > a.polled ? (double)(b.pass_ns - a.pass_ns) / (double)(b.polled - a.polled)
				   : 0;
}

int main(void)
{
	struct ucg_engine_config cfg = { .provider = &ops, .nr_mems = 1 };
	struct ucg_cred root = ucg_cred_root();
	struct ucg_cpuhold_stats st;
	struct ucg_hierarchy *h;
	struct ucg_engine *e;
	pthread_t th[NTHREADS];
	uint64_t now_ms = 0;
	double t0, get_ns, pass_ns, clamp_ns;
	cpu_set_t set, two;
	char buf[32];
	long i;

	cfg.nr_cpus = (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	if (cfg.nr_cpus < 2) {
		printf("cpuhold.skipped %u cpus\n", cfg.nr_cpus);
		return 0;
	}
	if (pipe(stop_fds) < 0 || ucg_engine_new(&cfg, &e) < 0 ||
	    ucg_cpuhold_new(e, 0, &hold) < 0 || ucg_mount(e, "cpuset", &h, NULL) < 0 ||
	    add_task(e, getpid()) < 0) {
		fprintf(stderr, "bench_cpuhold: setup failed\n");
		return 1;
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, sleeper, (void *)i);
	pthread_mutex_lock(&gate);
	while (nstarted < NTHREADS)
		pthread_cond_wait(&started, &gate);
	pthread_mutex_unlock(&gate);
	ucg_fs_mkdir(e, h, "/b", 0755, &root);
	ucg_fs_write_all(e, h, "/b/cpuset.mems", &root, "0", 1);
	ucg_fs_write_all(e, h, "/b/cpuset.cpus", &root, "1", 1);
	for (i = 0; i < NTHREADS; i++) {
		int n = snprintf(buf, sizeof(buf), "%d", tids[i]);

		if (add_task(e, tids[i]) < 0 ||
		    ucg_fs_write_all(e, h, "/b/tasks", &root, buf, n) < 0) {
			fprintf(stderr, "bench_cpuhold: attach of %d failed\n", tids[i]);
			return 1;
		}
	}
	t0 = bench_now_ns();
	for (i = 0; i < PASSES * NTHREADS; i++)
		sched_getaffinity(tids[i % NTHREADS], sizeof(set), &set);
	get_ns = (bench_now_ns() - t0) / (PASSES * NTHREADS);
	pass_ns = timed_passes(PASSES, &now_ms);
	CPU_ZERO(&two);
	CPU_SET(0, &two);
	CPU_SET(1, &two);
	clamp_ns = 0;
	for (int p = 0; p < 20; p++) {
		for (i = 0; i < NTHREADS; i++)
			sched_setaffinity(tids[i], sizeof(two), &two);
		clamp_ns += timed_passes(1, &now_ms) / 20;
	}
	sched_getaffinity(tids[0], sizeof(set), &set);
	timed_passes(1, &now_ms); /* the period after a pass with nothing escaped */
	ucg_cpuhold_get_stats(hold, &st);
	printf("cpuhold.tasks %zu tasks\n", ucg_cpuhold_count(hold));
	printf("cpuhold.getaffinity_ns %.0f ns\n", get_ns);
	printf("cpuhold.pass_ns_per_task %.0f ns\n", pass_ns);
	printf("cpuhold.clamp_ns_per_task %.0f ns\n", clamp_ns);
	printf("cpuhold.clamped %llu tasks\n", (unsigned long long)st.clamped);
	printf("cpuhold.held_after_clamp %s cpus\n",
	       CPU_COUNT(&set) == 1 && CPU_ISSET(1, &set) ? "1" : "wrong");
	printf("cpuhold.period_ms_%d_tasks %u ms\n", NTHREADS, st.period_ms);
	/* the period is at least 20 passes: within 5% of a CPU at 50 ms up to this many */
	printf("cpuhold.tasks_at_50ms %.0f tasks\n", pass_ns > 0 ? 50e6 / 20 / pass_ns : 0);
	printf("cpuhold.period_ms_1000_tasks %.0f ms\n",
	       pass_ns * 1000 * 20 / 1e6 > 50 ? pass_ns * 1000 * 20 / 1e6 : 50);
	close(stop_fds[1]);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	ucg_cpuhold_free(hold);
	ucg_engine_free(e);
	return 0;
}
