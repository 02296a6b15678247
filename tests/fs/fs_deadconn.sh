#!/bin/bash
# A daemon killed with -9 whose mounts hang instead of answering ENOTCONN
# (fs/deadconn.h): the next daemon ends its connections through fusectl and comes up
# as fast as after any kill -9. Round 1: another process holds the dead daemon's
# /dev/fuse. Round 2: the deadlock met under stress, made on purpose -- a mount's
# notifier waits for a directory lock held by a lookup that waits for the daemon, so
# the killed daemon cannot finish dying and keeps its control socket.
. "$(dirname "$0")/lib.sh" "$1" "$2"
HOLD=$(dirname "$FSOP")/holddead
CONNS=()

# Whatever happens, no hung mount or unkillable process is left behind.
abort_conns() {
	local c ctl=/sys/fs/fuse/connections priv
	[ ${#CONNS[@]} -gt 0 ] || return 0
	if [ "$(stat -f -c %t $ctl 2>/dev/null)" != 65735543 ]; then
		priv=$(mktemp -d /tmp/ucgfusectl.XXXXXX)
		mount -t fusectl fusectl "$priv" 2>/dev/null && ctl=$priv
	fi
	for c in "${CONNS[@]}"; do
		[ -e "$ctl/$c/abort" ] && echo 1 > "$ctl/$c/abort" 2>/dev/null
	done
	[ -n "$priv" ] && { umount "$priv" 2>/dev/null; rmdir "$priv"; }
}
conn_of() { awk -v m="$1" '$5 == m { split($3, a, ":"); c = a[2] } END { print c }' /proc/self/mountinfo; }
tid_named() { # tid_named PID NAME
	local t
	for t in /proc/$1/task/*; do
		[ "$(cat $t/comm 2>/dev/null)" = "$2" ] && { basename $t; return; }
	done
}
state_of() { sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1; }
# until_state TID STATE [TENTHS]
until_state() {
	local i
	for i in $(seq ${3:-30}); do [ "$(state_of $1)" = "$2" ] && return 0; sleep 0.1; done
	return 1
}

fs_setup
trap 'abort_conns; fs_cleanup' EXIT
[ -x "$HOLD" ] || skip_all "no holddead helper"

# --- round 1: the device held by another process ---
M=$(mnt a none,name=dcone) || { bad "mount"; fs_done; exit 1; }
mkdir $M/x
C=$(conn_of $M); CONNS+=($C)
check "the serving thread is named after its connection" "$(tid_named $DAEMON_PID ucgfs/$C | grep -c .)" "1"
$HOLD getfd $DAEMON_PID > $SCRATCH/held &
HOLDER=$!; PIDS+=($HOLDER)
for i in $(seq 50); do grep -q held $SCRATCH/held && break; sleep 0.1; done
if ! grep -q 'held [1-9]' $SCRATCH/held; then
	echo "SKIP round 1: could not take the daemon's /dev/fuse (pidfd_getfd): $(cat $SCRATCH/held)"
	SKIP=$((SKIP + 1))
	kill $HOLDER
else
	kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
	timeout 2 stat -f $M >/dev/null 2>&1
	check "a held device: the dead mount hangs (statfs times out)" "$?" "124"
	T0=$(date +%s%N)
	start_daemon || bad "restart with the dead mount hanging"
	T1=$(date +%s%N)
	echo "restart with a hanging mount: $(((T1 - T0) / 1000000)) ms"
	check "the mount answers again" "$(timeout 5 ls $M | grep -c '^x$')" "1"
	check "the daemon says it aborted the connection" \
		"$(grep -c 'aborted 1 FUSE connection of the previous daemon' $SCRATCH/daemon.log)" "1"
	check "one mount there, not stacked" "$(grep -c " $M " /proc/self/mountinfo)" "1"
	kill $HOLDER; wait $HOLDER 2>/dev/null
fi

# --- round 2: the killed daemon cannot finish dying ---
M1=$(mnt b1 none,name=dctwo) && M2=$(mnt b2 none,name=dctwo) || { bad "mount twice"; fs_done; exit 1; }
mkdir $M1/X $M1/Q
C1=$(conn_of $M1); C2=$(conn_of $M2); CONNS+=($C1 $C2)
SERVE2=$(tid_named $DAEMON_PID ucgfs/$C2)
NOTE2=$(tid_named $DAEMON_PID ucgnote/$C2)
OLD=$DAEMON_PID
$HOLD stop $SERVE2 > $SCRATCH/stopped &
TRACER=$!; PIDS+=($TRACER)
for i in $(seq 50); do grep -q stopped $SCRATCH/stopped && break; sleep 0.1; done
if ! grep -q stopped $SCRATCH/stopped; then
	echo "SKIP round 2: cannot stop the serving thread of $M2 (ptrace)"
	SKIP=$((SKIP + 1))
	kill $TRACER
else
	# a lookup on the second mount waits, holding its root's lock ...
	stat $M2/X >/dev/null 2>&1 &
	LOOKUP=$!; PIDS+=($LOOKUP)
	sleep 0.3
	# ... and an rmdir on the first makes the second's notifier wait for that lock
	# (the entry's removal is told to the second mount's kernel, which locks the root)
	rmdir $M1/Q 2>/dev/null &
	MAKER=$!; PIDS+=($MAKER)
	if ! until_state $NOTE2 D; then
		echo "SKIP round 2: the notifier of $M2 did not block (state $(state_of $NOTE2))"
		SKIP=$((SKIP + 1))
		kill $TRACER
	else
		kill -9 $OLD
		until_state $OLD Z 30
		check "the killed daemon cannot finish dying (leader zombie, notifier in D)" \
			"$(state_of $OLD)$(state_of $NOTE2)" "ZD"
		timeout 2 stat -f $M1 >/dev/null 2>&1
		check "its other mount hangs too" "$?" "124"
		T0=$(date +%s%N)
		timeout 10 $UCG ctl ping >/dev/null 2>&1
		R=$?
		T1=$(date +%s%N)
		check "ucg ctl ping: no daemon (not a hang)" "$R" "1"
		echo "ping of a dying daemon: $(((T1 - T0) / 1000000)) ms"
		M3=$SCRATCH/b3; mkdir -p $M3; echo $M3 >> $SCRATCH/mounts
		T0=$(date +%s%N)
		OUT=$(timeout 30 $UCG mount -o none,name=dcthree cgroup $M3 2>&1 && echo OK)
		T1=$(date +%s%N)
		echo "ucg mount restarting over a dying daemon: $(((T1 - T0) / 1000000)) ms"
		DAEMON_PID=$($UCG ctl ping 2>/dev/null)
		check "ucg mount restarts the daemon" "$(echo "$OUT" | tail -1)" "OK"
		check "the new daemon saw the old one dying" \
			"$(grep -c "the previous daemon, pid $OLD, was killed but has not finished dying" $UCG_RUNTIME_DIR/daemon.log)" "1"
		check "it aborted the three connections of the old daemon" \
			"$(grep -c 'aborted 3 FUSE connections of the previous daemon' $UCG_RUNTIME_DIR/daemon.log)" "1"
		check "and the old one exited" \
			"$(grep -c "the previous daemon, pid $OLD, has exited" $UCG_RUNTIME_DIR/daemon.log)" "1"
		wait $OLD 2>/dev/null
		check "old daemon gone" "$(kill -0 $OLD 2>/dev/null && echo alive || echo gone)" "gone"
		check "every mount answers, the tree kept" \
			"$(for m in $M $M1 $M2; do timeout 5 ls -d $m/[xX] 2>&1; done | paste -sd' ')" \
			"$M/x $M1/X $M2/X"
		for p in $LOOKUP $MAKER $TRACER; do
			timeout 5 tail --pid=$p -f /dev/null
		done
		check "the blocked callers returned" \
			"$(for p in $LOOKUP $MAKER $TRACER; do kill -0 $p 2>/dev/null && echo $p; done | grep -c .)" "0"
	fi
fi
fs_done
