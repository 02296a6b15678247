#!/bin/bash
# tests/uml/bench_req.sh — what one request to the daemon costs inside User-mode
# Linux, where the kernel sends no process events (host/host.c, "none"): N reads of
# a cgroup.procs, N writes of our pid to one, N stats and N reads of a control file,
# and for scale N reads of /proc/self/stat, each timed with bash builtins (no fork).
# Prints "name value us" lines and the daemon's host counters before and after.
#   tests/uml/run-in-uml tests/uml/bench_req.sh build/src/cli/ucg build/tests/uml
# UCG_BENCH_N (default 20): requests per kind. UCG_BENCH_EXEC=1: then `ucg up` and
# three runs of `ucg exec -g cpu,cpuacct,memory:/j -- /bin/true` (and /bin/true).
# UCG_BENCH_STRACE=1: then strace -c (UCG_BENCH_STRACE_ARGS to change) the daemon
# over N more reads of cgroup.procs.
# Not a test of the uml suite: it asserts nothing, it measures.
. "$(dirname "$0")/lib.sh" "$1" "$2"
N=${UCG_BENCH_N:-20}
ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt pids pids) || { bad "ucg mount -o pids"; uml_done; exit 1; }
mkdir $M/m
# a few more processes, so that /proc holds something like a small system's
for i in 1 2 3 4 5 6 7 8; do spawn sleep 600; done
host_stats() { "$UCG" ctl stats | grep -E '^(resyncs|polled_found|tasks|task_events) '; }
echo "# before: $(host_stats | tr '\n' ' ')"
per() { echo "$1 $(((${EPOCHREALTIME/./} - $2) / N)) us"; }
t=${EPOCHREALTIME/./}
for ((i = 0; i < N; i++)); do read -r -d '' _ < $M/m/cgroup.procs; done
per procs_read $t
t=${EPOCHREALTIME/./}
for ((i = 0; i < N; i++)); do echo $$ > $M/m/cgroup.procs; done
per procs_write $t
echo $$ > $M/cgroup.procs
t=${EPOCHREALTIME/./}
for ((i = 0; i < N; i++)); do [ -e $M/m/pids.max ]; done
per stat $t
t=${EPOCHREALTIME/./}
for ((i = 0; i < N; i++)); do read -r _ < $M/m/pids.max; done
per max_read $t
t=${EPOCHREALTIME/./}
for ((i = 0; i < N; i++)); do read -r _ < /proc/self/stat; done
per proc_stat_read $t
echo "# after: $(host_stats | tr '\n' ' ')"
echo "# $(ls /proc | grep -c '^[0-9]') processes, load $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${UCG_BENCH_EXEC:-}" ]; then
	# the pids hierarchy above would be a second one of that name in the view
	echo $$ > $M/cgroup.procs
	rmdir $M/m
	umount $M
	"$UCG" up /tmp/up > /dev/null || bad "ucg up"
	MOUNTS+=(/tmp/up/*/)
	mkdir /tmp/up/cpu,cpuacct/j /tmp/up/memory/j
	for i in 1 2 3; do
		t=${EPOCHREALTIME/./}
		/bin/true
		echo "true_run $(((${EPOCHREALTIME/./} - t) / 1000)) ms"
		t=${EPOCHREALTIME/./}
		"$UCG" exec -g cpu,cpuacct,memory:/j -- /bin/true || bad "ucg exec"
		echo "exec_true $(((${EPOCHREALTIME/./} - t) / 1000)) ms"
	done
fi
if [ -n "${UCG_BENCH_STRACE:-}" ]; then
	strace ${UCG_BENCH_STRACE_ARGS:--c} -f -p $DAEMON_PID -o /tmp/st.out 2> /tmp/st.err &
	SP=$!
	nap 2
	for ((i = 0; i < N; i++)); do read -r -d '' _ < $M/m/cgroup.procs; done
	kill -INT $SP
	wait $SP
	head -n 40 /tmp/st.out
fi
uml_done
