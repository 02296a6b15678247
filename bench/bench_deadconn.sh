#!/bin/bash
# bench/bench_deadconn.sh [UCG [FSOP]] — how fast a killed daemon's mounts come back
# when they hang instead of answering ENOTCONN (src/fs/deadconn.h, src/fs/guard.h),
# beside a plain kill -9, in the same run. Each figure is the median of
# UCG_BENCH_ROUNDS rounds (default 3), all of them after it:
#
#   deadconn.plain_restart_ms   kill -9, then `ucg daemon` until the mount answers
#   deadconn.held_restart_ms    the same with the killed daemon's /dev/fuse held by
#                               another process (holddead getfd): the new daemon
#                               aborts the connection first
#   deadconn.guard_enotconn_ms  the deadlock (tests/fs/deadconn-lib.sh), kill -9: until
#                               the mounts answer ENOTCONN, the guard's abort
#   deadconn.dying_ping_ms      the same with the guard killed too: `ucg ctl ping`
#                               until it says no daemon (instead of hanging)
#   deadconn.dying_restart_ms   then `ucg daemon` until both mounts answer: the new
#                               daemon aborts the connections and the old one exits
#
# The kernel has no figure: its cgroupfs has no daemon to lose. Needs root and
# /dev/fuse (exit 77 without). Cleans up after itself, hung mounts included.
SRC=$(cd "$(dirname "$0")/.." && pwd)
UCG=${1:-$SRC/build/src/cli/ucg}
FSOP=${2:-$SRC/build/tests/fs/fsop}
. "$SRC/tests/fs/lib.sh" "$UCG" "$FSOP"
. "$SRC/tests/fs/deadconn-lib.sh"
ROUNDS=${UCG_BENCH_ROUNDS:-3}
[ -x "$HOLD" ] || { echo "SKIP: no $HOLD (build first)"; exit 77; }
fs_setup
trap 'abort_conns; fs_cleanup' EXIT

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# answers DIR...: every mount answers with its tree (up to 10 s)
answers() {
	local i m ok
	for i in $(seq 200); do
		ok=1
		for m in "$@"; do timeout 0.5 ls -d $m/[xX] >/dev/null 2>&1 || ok=; done
		[ -n "$ok" ] && return 0
		sleep 0.05
	done
	return 1
}
enotconn() { # enotconn DIR: until statfs there fails with ENOTCONN (up to 10 s)
	local i
	for i in $(seq 100); do
		timeout 0.5 stat -f $1 2>&1 | grep -q 'not connected' && return 0
	done
	return 1
}
restart() { # restart: a new daemon in the background (lib.sh's start_daemon)
	start_daemon >/dev/null 2>&1
}
done_with() { # done_with DIR...: unmounted, not remounted by the next restart
	local m
	for m in "$@"; do "$UCG" umount $m 2>/dev/null; done
}
declare -A FIG
add() { FIG[$1]="${FIG[$1]} $2"; }

for ((r = 0; r < ROUNDS; r++)); do
	# plain kill -9
	M=$(mnt p$r none,name=bp$r) && mkdir $M/x || exit 1
	kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
	t=$(date +%s%N); restart; answers $M && add plain_restart_ms $(ms_since $t)
	done_with $M

	# the device held elsewhere
	M=$(mnt h$r none,name=bh$r) && mkdir $M/x || exit 1
	CONNS+=("$(conn_of $M):$M")
	$HOLD getfd $DAEMON_PID > $SCRATCH/held &
	H=$!; PIDS+=($H)
	for i in $(seq 50); do grep -q held $SCRATCH/held && break; sleep 0.1; done
	kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
	t=$(date +%s%N); restart; answers $M && add held_restart_ms $(ms_since $t)
	kill $H; wait $H 2>/dev/null
	done_with $M

	# the deadlock, the guard at work
	M1=$(mnt g1_$r none,name=bg$r) && M2=$(mnt g2_$r none,name=bg$r) || exit 1
	if deadlock $M1 $M2 >/dev/null; then
		t=$(date +%s%N); kill -9 $OLD
		enotconn $M1 && enotconn $M2 && add guard_enotconn_ms $(ms_since $t)
		wait $OLD 2>/dev/null
		restart; answers $M1 $M2
	fi
	done_with $M1 $M2

	# the deadlock with the guard killed too: the next daemon at work
	M1=$(mnt d1_$r none,name=bd$r) && M2=$(mnt d2_$r none,name=bd$r) || exit 1
	if deadlock $M1 $M2 >/dev/null; then
		kill -9 $(guard_of $OLD) $OLD
		until_state $OLD Z 30
		t=$(date +%s%N); timeout 10 "$UCG" ctl ping >/dev/null 2>&1
		add dying_ping_ms $(ms_since $t)
		t=$(date +%s%N); restart; answers $M1 $M2 && add dying_restart_ms $(ms_since $t)
		wait $OLD 2>/dev/null
	fi
	done_with $M1 $M2
done

for k in plain_restart_ms held_restart_ms guard_enotconn_ms dying_ping_ms dying_restart_ms; do
	v=$(tr ' ' '\n' <<<"${FIG[$k]}" | grep . | sort -n)
	[ -n "$v" ] || { echo "# deadconn.$k: no round completed"; continue; }
	n=$(wc -l <<<"$v")
	echo "deadconn.$k $(sed -n "$(((n + 1) / 2))p" <<<"$v") ms"
	echo "# deadconn.$k rounds:$(tr '\n' ' ' <<<"$v" | sed 's/ $//; s/^/ /') (load $(cut -d' ' -f1 /proc/loadavg))"
done
