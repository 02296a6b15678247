/* sim/test_sim_v2split.c — `split`: the daemon's division of a v1 cpu quota and weight
 * over the v2 leaves of a divergent layout (v2split.c), against the same layout run as
 * v1 means it. Bounds are worked from the model: the fluid CPU model gives a leaf its
 * quota part exactly, and a round changes the parts once a second. */
#include "sim/test_sim.h"

/* The v1 layout: memory /a, /b (no CPU effect: left out) and cpu /q with a 50% quota;
 * the v2 layout: /a/.ucg.cpu:q/.ucg and /b/.ucg.cpu:q/.ucg, the quota split. */
#define V1_Q                                                                                       \
	"cpus 2\nmount -o cpu,cpuacct cpu\nmkdir cpu/q\n"                                          \
	"echo 50000 > cpu/q/cpu.cfs_quota_us\nspawn s1\nspawn s2\n"                                \
	"echo $s1 > cpu/q/cgroup.procs\necho $s2 > cpu/q/cgroup.procs\n"
#define V2_Q                                                                                       \
	"cpus 2\nmount -o cpu,cpuacct cpu\n"                                                       \
	"mkdir cpu/a\nmkdir cpu/a/.ucg.cpu:q\nmkdir cpu/a/.ucg.cpu:q/.ucg\n"                       \
	"mkdir cpu/b\nmkdir cpu/b/.ucg.cpu:q\nmkdir cpu/b/.ucg.cpu:q/.ucg\n"                       \
	"spawn s1\nspawn s2\n"                                                                     \
	"echo $s1 > cpu/a/.ucg.cpu:q/.ucg/cgroup.procs\n"                                          \
	"echo $s2 > cpu/b/.ucg.cpu:q/.ucg/cgroup.procs\n"                                          \
	"split q quota=50000 cpu/a/.ucg.cpu:q/.ucg cpu/b/.ucg.cpu:q/.ucg\n"

static double cpus_of(struct sim *s, const char *path, double secs)
{
	struct sim_cg *cg = ts_cg(s, "cpu", path);

	return cg ? (double)cg->cpu_ns / ((double)secs * 1e9) : -1;
}

/* Two spinners: v1 holds them to 50% together; the split gives each 25%. */
static void test_two_spinners(void)
{
	struct sim_err err;
	int r;
	struct sim *a = ts_run(V1_Q "busy s1\nbusy s2\nrun 5s\n", 0, SIM_CHARGING_KERNEL, &r, &err);
	struct sim *b;

	T_EQ_INT(r, 0);
	b = ts_run(V2_Q "busy s1\nbusy s2\nrun 5s\n", 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR(cpus_of(a, "/q", 5), 0.5, 0.001);
	T_NEAR(cpus_of(b, "/a/.ucg.cpu:q/.ucg", 5), 0.25, 0.001);
	T_NEAR(cpus_of(b, "/b/.ucg.cpu:q/.ucg", 5), 0.25, 0.001);
	/* the group's CPU under v2 is v1's within a hundredth */
	T_NEAR(cpus_of(b, "/a", 5) + cpus_of(b, "/b", 5), cpus_of(a, "/q", 5), 0.01);
	T_CHECK(strstr(sim_log(b), "[1s] split q: /a/.ucg.cpu:q/.ucg quota 25000 weight 50 "
				   "/b/.ucg.cpu:q/.ucg quota 25000 weight 50\n") != NULL);
	sim_free(a);
	sim_free(b);
}

/* A spinner beside a sleeper: v1 gives the spinner the whole 50%; the split gives it
 * an even part for the first second (both leaves new), then all but the sleeper's
 * 1 ms minimum: (0.25 + 5 x 0.49) / 6 = 0.45 over 6 s. */
static void test_spinner_sleeper(void)
{
	struct sim_err err;
	int r;
	struct sim *a = ts_run(V1_Q "busy s1\nrun 6s\n", 0, SIM_CHARGING_KERNEL, &r, &err);
	struct sim *b;

	T_EQ_INT(r, 0);
	b = ts_run(V2_Q "busy s1\nrun 6s\n", 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR(cpus_of(a, "/q", 6), 0.5, 0.001);
	T_NEAR(cpus_of(b, "/a/.ucg.cpu:q/.ucg", 6), 0.45, 0.001);
	T_NEAR(cpus_of(b, "/b/.ucg.cpu:q/.ucg", 6), 0, 0.001);
	T_CHECK(strstr(sim_log(b), "[1s] split q: /a/.ucg.cpu:q/.ucg quota 49000 weight 100 "
				   "/b/.ucg.cpu:q/.ucg quota 1000 weight 1\n") != NULL);
	sim_free(a);
	sim_free(b);
}

/* Shares 2048 : 1024 between p and q, each with a spinner under /a and one under /b,
 * on 2 CPUs. v1: p 4/3 CPU, q 2/3. v2: /a and /b one CPU each; within each, p's part
 * weighs 174 / 2 = 87 (runc's curve: 2048 -> 174) against q's 50: p gets 87/137 of
 * each CPU, 1.270 in all. The error, 0.063 CPU, is the curve's (174:100 for 2:1);
 * without the division the weights would be 174:100 and the same, since the demand is
 * even: the case that tells them apart is test_uneven_weight. */
static void test_shares_two_to_one(void)
{
	struct sim_err err;
	int r;
	struct sim *a = ts_run("cpus 2\nmount -o cpu,cpuacct cpu\nmkdir cpu/p\nmkdir cpu/q\n"
			       "echo 2048 > cpu/p/cpu.shares\nspawn p1\nspawn p2\nspawn q1\n"
			       "spawn q2\necho $p1 > cpu/p/cgroup.procs\n"
			       "echo $p2 > cpu/p/cgroup.procs\necho $q1 > cpu/q/cgroup.procs\n"
			       "echo $q2 > cpu/q/cgroup.procs\n"
			       "busy p1\nbusy p2\nbusy q1\nbusy q2\nrun 5s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);
	struct sim *b;

	T_EQ_INT(r, 0);
	b = ts_run("cpus 2\nmount -o cpu,cpuacct cpu\nmkdir cpu/a\nmkdir cpu/b\n"
		   "mkdir cpu/a/.ucg.cpu:p\nmkdir cpu/a/.ucg.cpu:p/.ucg\n"
		   "mkdir cpu/a/.ucg.cpu:q\nmkdir cpu/a/.ucg.cpu:q/.ucg\n"
		   "mkdir cpu/b/.ucg.cpu:p\nmkdir cpu/b/.ucg.cpu:p/.ucg\n"
		   "mkdir cpu/b/.ucg.cpu:q\nmkdir cpu/b/.ucg.cpu:q/.ucg\n"
		   "spawn p1\nspawn p2\nspawn q1\nspawn q2\n"
		   "echo $p1 > cpu/a/.ucg.cpu:p/.ucg/cgroup.procs\n"
		   "echo $p2 > cpu/b/.ucg.cpu:p/.ucg/cgroup.procs\n"
		   "echo $q1 > cpu/a/.ucg.cpu:q/.ucg/cgroup.procs\n"
		   "echo $q2 > cpu/b/.ucg.cpu:q/.ucg/cgroup.procs\n"
		   "split p shares=2048 cpu/a/.ucg.cpu:p/.ucg cpu/b/.ucg.cpu:p/.ucg\n"
		   "split q shares=1024 cpu/a/.ucg.cpu:q/.ucg cpu/b/.ucg.cpu:q/.ucg\n"
		   "busy p1\nbusy p2\nbusy q1\nbusy q2\nrun 5s\ncat cpu/a/.ucg.cpu:p/cpu.shares\n",
		   0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, 0);
	T_NEAR(cpus_of(a, "/p", 5), 4.0 / 3, 0.001);
	T_NEAR(cpus_of(b, "/a/.ucg.cpu:p", 5) + cpus_of(b, "/b/.ucg.cpu:p", 5), 2 * 87.0 / 137,
	       0.001);
	T_CHECK(strstr(sim_log(b), "cat cpu/a/.ucg.cpu:p/cpu.shares\n891\n") != NULL);
	sim_free(a);
	sim_free(b);
}

/* Equal shares, p with one spinner under /a and one under /b, q with one under /a
 * alone, on 1 CPU. v1: p and q half each. v2: /a and /b half each; in /a, p's part
 * weighs half of p's weight (its demand is half p's) against q's whole: p gets
 * 1/3 of /a's half plus /b's half, 2/3; q 1/3. Undivided (100 : 100) it would be 3/4
 * and 1/4: the division halves the error, the outer level keeps the rest. */
static void test_uneven_weight(void)
{
	struct sim_err err;
	int r;
	struct sim *b = ts_run("cpus 1\nmount -o cpu,cpuacct cpu\nmkdir cpu/a\nmkdir cpu/b\n"
			       "mkdir cpu/a/.ucg.cpu:p\nmkdir cpu/a/.ucg.cpu:p/.ucg\n"
			       "mkdir cpu/a/.ucg.cpu:q\nmkdir cpu/a/.ucg.cpu:q/.ucg\n"
			       "mkdir cpu/b/.ucg.cpu:p\nmkdir cpu/b/.ucg.cpu:p/.ucg\n"
			       "spawn p1\nspawn p2\nspawn q1\n"
			       "echo $p1 > cpu/a/.ucg.cpu:p/.ucg/cgroup.procs\n"
			       "echo $p2 > cpu/b/.ucg.cpu:p/.ucg/cgroup.procs\n"
			       "echo $q1 > cpu/a/.ucg.cpu:q/.ucg/cgroup.procs\n"
			       "busy p1\nbusy p2\nbusy q1\n"
			       "split p cpu/a/.ucg.cpu:p/.ucg cpu/b/.ucg.cpu:p/.ucg\n"
			       "split q cpu/a/.ucg.cpu:q/.ucg\nrun 10s\n",
			       0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, 0);
	T_NEAR(cpus_of(b, "/a/.ucg.cpu:q", 10), 1.0 / 3, 0.01);
	sim_free(b);
}

/* A leaf that is not a cpu cgroup stops the run; a bad option stops the load. */
static void test_errors(void)
{
	struct sim_err err;
	int r;
	struct sim *s =
		ts_run("mount -o cpu cpu\nsplit q cpu/nope\n", 0, SIM_CHARGING_KERNEL, &r, &err);

	T_EQ_INT(r, -ENOENT);
	T_CHECK(strstr(err.msg, "t.ucg:2: split: cpu/nope: no cpu cgroup") != NULL);
	sim_free(s);
	s = ts_run("mount -o cpu cpu\nsplit q shares=1 cpu\n", 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, -EINVAL);
	T_CHECK(strstr(err.msg, "bad shares '1'") != NULL);
	sim_free(s);
	s = ts_run("mount -o cpu cpu\nsplit q quota=5\n", 0, SIM_CHARGING_KERNEL, &r, &err);
	T_EQ_INT(r, -EINVAL);
	sim_free(s);
}

int main(void)
{
	T_RUN(test_two_spinners);
	T_RUN(test_spinner_sleeper);
	T_RUN(test_shares_two_to_one);
	T_RUN(test_uneven_weight);
	T_RUN(test_errors);
	return t_done();
}
