#!/bin/bash
# Enforcement on real processes: freezer stops a busy loop (and stops it again when
# continued from outside), cpuset changes affinity and (memory_migrate) moves pages,
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

# ---- cpuacct
if A=$(mnt a cpuacct 2>/dev/null); then
	mkdir $A/acct
	spawn bash -c 'while :; do :; done'; B=$LAST
	echo $B > $A/acct/cgroup.procs
	sleep 2.2 # the daemon samples once a second
	U=$(cat $A/acct/cpuacct.usage)
	R=$(awk '{printf "%.0f\n", ($14+$15)*10000000}' /proc/$B/stat) # its real time, ns (USER_HZ 100)
	# sampled at most 1 s ago: within one second of CPU of the truth, never above it
	check "cpuacct.usage within 1 s of real" "$([ "$U" -ge $((R - 1000000000)) ] && [ "$U" -gt 0 ] && echo yes)" "yes"
	check "cpuacct.usage <= its real CPU time" "$([ "$U" -le "$R" ] && echo yes)" "yes"
	echo "# cpuacct.usage $U real $R"
	{ kill -9 $B; wait $B; } 2>/dev/null
	# an exited task's last CPU time is counted too (taskstats at exit)
	mkdir $A/gone
	bash -c 'echo $BASHPID > '$A'/gone/cgroup.procs; end=$((SECONDS + 2)); while [ $SECONDS -lt $end ]; do :; done
		awk "{printf \"%.0f\n\", (\$14+\$15)*10000000}" /proc/$BASHPID/stat > '$SCRATCH'/ctime'
	sleep 1.2
	U=$(cat $A/gone/cpuacct.usage); R=$(cat $SCRATCH/ctime)
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
