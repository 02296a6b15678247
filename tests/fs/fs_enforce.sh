#!/bin/bash
# Enforcement on real processes: freezer stops a busy loop (and stops it again when
# continued from outside), cpuset changes affinity and (memory_migrate) moves pages,
# a member's own affinity outside its cpuset is clamped back (beside the kernel's EINVAL),
# cpuacct counts real CPU time, pids.current counts real threads.
. "$(dirname "$0")/lib.sh" "$1" "$2"
# What a host without a delegated cgroup2 controller gets (fs_v2 and fs_bpf test the
# kernel backend): pinned, since a host whose cgroup2 holds a controller (hugetlb, when
# v1 has no hierarchy for it) would otherwise freeze through cgroup.freeze here.
export UCG_ENFORCE=0
fs_setup

state() { awk '{print $3}' /proc/$1/stat; }

# ---- freezer
if F=$(mnt f freezer 2>/dev/null); then
	mkdir $F/fz
	spawn bash -c 'while :; do :; done'; B=$LAST
	echo $B > $F/fz/cgroup.procs
	echo FROZEN > $F/fz/freezer.state
	for i in $(seq 100); do [ "$(cat $F/fz/freezer.state)" = FROZEN ] && break; sleep 0.02; done
	check "freezer reads FROZEN" "$(cat $F/fz/freezer.state)" "FROZEN"
	check "busy loop really stopped" "$(state $B)" "T"
	T1=$(awk '{print $14+$15}' /proc/$B/stat); sleep 0.3; T2=$(awk '{print $14+$15}' /proc/$B/stat)
	check "no CPU while frozen" "$T2" "$T1"
	kill -CONT $B
	for i in $(seq 100); do [ "$(state $B)" = T ] && [ "$(cat $F/fz/freezer.state)" = FROZEN ] && break; sleep 0.02; done
	check "continued from outside: stopped again" "$(state $B)" "T"
	echo THAWED > $F/fz/freezer.state
	sleep 0.1
	check "thawed runs" "$(state $B)" "R"
	check "freezer reads THAWED" "$(cat $F/fz/freezer.state)" "THAWED"
	{ kill -9 $B; wait $B; } 2>/dev/null
else
	SKIP=$((SKIP + 1)); echo "SKIP freezer: no freezer controller in this engine"
fi

# ---- cpuset
NC=$(nproc)
if [ "$NC" -ge 2 ] && C=$(mnt c cpuset 2>/dev/null); then
	mkdir $C/one
	echo 0 > $C/one/cpuset.mems
	echo 1 > $C/one/cpuset.cpus
	spawn sleep 300; S=$LAST
	echo $S > $C/one/tasks
	check "affinity follows cpuset" "$(taskset -pc $S | sed 's/.*: //')" "1"
	echo 0 > $C/one/cpuset.cpus
	check "affinity follows cpuset.cpus writes" "$(taskset -pc $S | sed 's/.*: //')" "0"
	echo $S > $C/tasks
	check "back in the root: every cpu" "$(taskset -pc $S | sed 's/.*: //')" "$(taskset -pc 1 | sed 's/.*: //')"
else
	SKIP=$((SKIP + 1)); echo "SKIP cpuset: needs 2 cpus and the cpuset controller"
fi

# ---- cpuset held: a member's own sched_setaffinity() outside its cpuset. The kernel
# answers at the call (EINVAL when the request has no CPU of the cpuset, else the
# intersection); the daemon sees the new mask on its next poll and clamps it (the
# 6.18 rule, host/cpuhold.h). The difference is the point: the call succeeds here and
# the task runs with what it asked for until the clamp, at most one period later.
HOLD_BOUND_MS=1000 # the period is 50 ms; a loaded 2-CPU machine gets slack
# ms until task $1's cpu list reads $2 (polled every 5 ms), or "timeout"
until_mask() {
	local t0=$(date +%s%N) i
	for i in $(seq 400); do
		[ "$(taskset -pc $1 | sed 's/.*: //')" = "$2" ] && { echo $((($(date +%s%N) - t0) / 1000000)); return; }
		sleep 0.005
	done
	echo timeout
}
within() { [ "$1" != timeout ] && [ "$1" -le $HOLD_BOUND_MS ] && echo yes; }
mask() { taskset -pc $1 | sed 's/.*: //'; }
if [ "$NC" -lt 2 ]; then
	SKIP=$((SKIP + 1)); echo "SKIP cpuset held: needs 2 CPUs (nproc: $NC)"
elif [ -z "${C:-}" ]; then
	SKIP=$((SKIP + 1)); echo "SKIP cpuset held: no cpuset controller"
else
	mkdir $C/held
	echo 0 > $C/held/cpuset.mems
	echo 1 > $C/held/cpuset.cpus
	spawn sleep 300; S=$LAST
	echo $S > $C/held/tasks
	check "held: affinity is the cpuset" "$(mask $S)" "1"
	taskset -p 0x1 $S >/dev/null 2>&1
	check "held: ucg accepts {0} at the call (the kernel: EINVAL)" "$?" "0"
	T0=$(until_mask $S 1)
	check "held: {0} clamped back to the cpuset" "$(within $T0)" "yes"
	taskset -p 0x3 $S >/dev/null 2>&1
	T01=$(until_mask $S 1)
	check "held: {0,1} clamped to {1}" "$(within $T01)" "yes"
	echo "# held: {0} back in $T0 ms, {0,1} back in $T01 ms (bound $HOLD_BOUND_MS ms)"
	# the request is kept, as 6.18 keeps it: a wider cpuset gives request & cpus
	echo 0-1 > $C/held/cpuset.cpus
	check "held: request {0,1} kept for a wider cpuset" "$(mask $S)" "0,1"
	echo 0 > $C/held/cpuset.cpus
	check "held: request & cpus on a move to {0}" "$(mask $S)" "0"
	echo 0-1 > $C/held/cpuset.cpus
	check "held: request still kept" "$(mask $S)" "0,1"
	echo 1 > $C/held/cpuset.cpus
	# a fork inherits the hold
	spawn bash -c 'until grep -qx $$ "$0/tasks"; do sleep 0.01; done; sleep 300 & echo $! > "$1"; wait' \
		$C/held "$SCRATCH/heldchild"; SH=$LAST
	echo $SH > $C/held/cgroup.procs
	for i in $(seq 200); do [ -s "$SCRATCH/heldchild" ] && break; sleep 0.02; done
	HC=$(cat "$SCRATCH/heldchild" 2>/dev/null)
	taskset -p 0x1 $HC >/dev/null 2>&1
	check "held: a forked child's {0} clamped too" "$(within $(until_mask $HC 1))" "yes"
	grep -q '^cpuset_hold tasks' <("$UCG" ctl stats) && ok "held: ctl stats has cpuset_hold" ||
		bad "held: ctl stats has cpuset_hold"
	"$UCG" ctl stats | grep '^cpuset_hold' | sed 's/^/# /'
	kill $HC $SH 2>/dev/null; wait $SH 2>/dev/null
	# The kernel beside it, in a scratch child of the host's cpuset hierarchy.
	K=/sys/fs/cgroup/cpuset/ucgtest-held-$$
	if [ -d /sys/fs/cgroup/cpuset ] && mkdir $K 2>/dev/null; then
		echo 0 > $K/cpuset.mems; echo 1 > $K/cpuset.cpus
		spawn sleep 300; KS=$LAST
		echo $KS > $K/tasks
		check "kernel: affinity is the cpuset" "$(mask $KS)" "1"
		taskset -p 0x1 $KS >/dev/null 2>&1
		check "kernel: {0} is EINVAL at the call" "$?" "1"
		check "kernel: {0} leaves the mask at once" "$(mask $KS)" "1"
		taskset -p 0x3 $KS >/dev/null 2>&1
		check "kernel: {0,1} gives {1} at the call" "$(mask $KS)" "1"
		echo 0-1 > $K/cpuset.cpus
		check "kernel: request {0,1} kept for a wider cpuset" "$(mask $KS)" "0,1"
		echo 0 > $K/cpuset.cpus
		check "kernel: request & cpus on a move to {0}" "$(mask $KS)" "0"
		echo 0-1 > $K/cpuset.cpus
		check "kernel: request still kept" "$(mask $KS)" "0,1"
		{ kill -9 $KS; wait $KS; } 2>/dev/null
		for i in $(seq 50); do rmdir $K 2>/dev/null && break; sleep 0.05; done
		[ -d $K ] && bad "kernel: scratch cpuset $K left behind"
	else
		SKIP=$((SKIP + 1)); echo "SKIP cpuset held, kernel side: no writable /sys/fs/cgroup/cpuset"
	fi
fi

# ---- cpuacct
if A=$(mnt a cpuacct 2>/dev/null); then
	mkdir $A/acct
	spawn bash -c 'while :; do :; done'; B=$LAST
	echo $B > $A/acct/cgroup.procs
	sleep 2.2 # the daemon samples once a second
	# sampled at most 1 s ago: within one second of CPU of the truth, never above it.
	# A loaded machine (the ASan build beside a UML guest) can delay a sample past
	# its second, so a few reads are allowed; each compares with the time then.
	for i in $(seq 20); do
		U=$(cat $A/acct/cpuacct.usage)
		R=$(awk '{printf "%.0f\n", ($14+$15)*10000000}' /proc/$B/stat) # its real time, ns (USER_HZ 100)
		[ "$U" -gt 0 ] && [ "$U" -ge $((R - 1000000000)) ] && break
		sleep 0.25
	done
	check "cpuacct.usage within 1 s of real" "$([ "$U" -ge $((R - 1000000000)) ] && [ "$U" -gt 0 ] && echo yes)" "yes"
	check "cpuacct.usage <= its real CPU time" "$([ "$U" -le "$R" ] && echo yes)" "yes"
	echo "# cpuacct.usage $U real $R"
	{ kill -9 $B; wait $B; } 2>/dev/null
	# an exited task's last CPU time is counted too (taskstats at exit)
	mkdir $A/gone
	bash -c 'echo $BASHPID > '$A'/gone/cgroup.procs; end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do :; done
		awk "{printf \"%.0f\n\", (\$14+\$15)*10000000}" /proc/$BASHPID/stat > '$SCRATCH'/ctime'
	sleep 1.2
	# (the exit is counted when the daemon hears it: under load, a read or a few late)
	R=$(cat $SCRATCH/ctime)
	for i in $(seq 20); do
		U=$(cat $A/gone/cpuacct.usage)
		[ "$U" -ge "$R" ] && break
		sleep 0.25
	done
	# at least its time up to the last read; a little more for its tail and the awk child
	check "exited task fully counted" "$([ "$U" -ge "$R" ] && [ "$U" -le $((R + 1000000000)) ] && echo yes)" "yes"
	echo "# exited: cpuacct.usage $U, its CPU time before exit $R"
else
	SKIP=$((SKIP + 1)); echo "SKIP cpuacct: no cpuacct controller"
fi

# ---- pids.current
if P=$(mnt p pids 2>/dev/null); then
	mkdir $P/pp
	python3 -c 'import threading,time
ts=[threading.Thread(target=time.sleep,args=(300,),daemon=True) for _ in range(4)]
[t.start() for t in ts]; time.sleep(300)' &
	PY=$!; PIDS+=("$PY")
	for i in $(seq 100); do [ "$(ls /proc/$PY/task | wc -l)" = 5 ] && break; sleep 0.05; done
	echo $PY > $P/pp/cgroup.procs
	check "pids.current = real threads" "$(cat $P/pp/pids.current)" "5"
	kill $PY; wait $PY 2>/dev/null
	sleep 0.1
	check "pids.current after exit" "$(cat $P/pp/pids.current)" "0"
	# pids.max is policy on real processes: a fork past it (which the kernel allowed)
	# stays where it was made, is charged and counted in pids.events.
	mkdir $P/lim; echo 1 > $P/lim/pids.max
	spawn bash -c 'until grep -qx $$ "$0/cgroup.procs"; do sleep 0.01; done
		sleep 300 & echo $! > "$1"; wait' $P/lim "$SCRATCH/limchild"; SH=$LAST
	echo $SH > $P/lim/cgroup.procs
	for i in $(seq 200); do [ -s "$SCRATCH/limchild" ] && break; sleep 0.02; done
	LC=$(cat "$SCRATCH/limchild" 2>/dev/null)
	check "fork past pids.max stays in its cgroup" "$(grep -cx "$LC" $P/lim/cgroup.procs)" "1"
	# The shell's own grep children were forked past the limit too: pids.current
	# counts whatever really lives there (polled: the last grep's exit event).
	for i in $(seq 100); do [ "$(cat $P/lim/pids.current)" = "$(wc -l < $P/lim/tasks)" ] && break; sleep 0.02; done
	check "fork past pids.max is charged" "$(cat $P/lim/pids.current)" "$(wc -l < $P/lim/tasks)"
	check "over the limit" "$([ "$(cat $P/lim/pids.current)" -ge 2 ] && echo yes)" "yes"
	check "fork past pids.max is counted" "$(awk '$2 >= 1 {print "yes"}' $P/lim/pids.events)" "yes"
	kill $LC $SH 2>/dev/null; wait $SH 2>/dev/null
else
	SKIP=$((SKIP + 1)); echo "SKIP pids: no pids controller"
fi

# ---- cpuset.mems: with memory_migrate the daemon moves pages by migrate_pages(2) where
# the kernel would; a task's mems_allowed cannot be set from outside (not enforced).
NODES=$(cat /sys/devices/system/node/has_memory 2>/dev/null || echo 0)
[ -n "${C:-}" ] || C=$(mnt c cpuset 2>/dev/null) || C=
if [ -z "$C" ]; then
	SKIP=$((SKIP + 1)); echo "SKIP cpuset.mems: no cpuset controller"
elif [ "$NODES" != 0 ]; then
	# a real move: 64 MiB touched on the first node, then the cpuset gives it another
	N1=$(echo "$NODES" | sed 's/[-,].*//'); N2=$(echo "$NODES" | sed 's/.*[-,]//')
	mkdir $C/m1 $C/m2
	for d in m1 m2; do echo 0 > $C/$d/cpuset.cpus; done
	echo $N1 > $C/m1/cpuset.mems; echo $N2 > $C/m2/cpuset.mems
	echo 1 > $C/m2/cpuset.memory_migrate
	python3 -c 'import time; b = bytearray(64 << 20); time.sleep(300)' &
	PY=$!; PIDS+=("$PY")
	echo $PY > $C/m1/cgroup.procs
	sleep 0.5
	echo $PY > $C/m2/cgroup.procs
	ON2=$(awk -v n="N$N2=" '{ for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) } END { print s + 0 }' /proc/$PY/numa_maps)
	check "memory_migrate moved the pages to node $N2" "$([ "$ON2" -ge 16384 ] && echo yes)" "yes"
	echo "# pages on node $N2 after the move: $ON2"
	{ kill $PY; wait $PY; } 2>/dev/null
else
	SKIP=$((SKIP + 1)); echo "SKIP cpuset.mems page moves: one memory node here ($NODES); the call path is checked below"
fi
if [ -n "$C" ]; then
	# the call path on any machine: a daemon told of two nodes asks the kernel to move the
	# pages (node 1 may not exist: then the kernel answers EINVAL, and we log that)
	kill $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
	UCG_NR_MEMS=2 UCG_ENFORCE_LOG=$SCRATCH/migrate.log start_daemon || bad "daemon with two nodes"
	for i in $(seq 100); do [ -e $C/cpuset.mems ] && break; sleep 0.02; done # restored
	check "root mems are both nodes" "$(cat $C/cpuset.mems)" "0-1"
	mkdir $C/mm
	echo 0 > $C/mm/cpuset.cpus; echo 1 > $C/mm/cpuset.mems
	spawn sleep 300; S=$LAST
	echo $S > $C/mm/cgroup.procs
	check "no memory_migrate: no move" "$(cat $SCRATCH/migrate.log 2>/dev/null | wc -l)" "0"
	echo $S > $C/cgroup.procs
	echo 1 > $C/mm/cpuset.memory_migrate
	echo $S > $C/mm/cgroup.procs
	check "attach moves from the old mems to the new" "$(sed -n 1p $SCRATCH/migrate.log | cut -d' ' -f3-7)" "$S from 0x3 to 0x2"
	echo 0 > $C/mm/cpuset.mems
	check "a mems write moves its tasks" "$(sed -n 2p $SCRATCH/migrate.log | cut -d' ' -f3-7)" "$S from 0x2 to 0x1"
	sed 's/^/# /' $SCRATCH/migrate.log
fi
fs_done
