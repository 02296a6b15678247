#!/bin/bash
# A daemon killed with -9 whose mounts hang instead of answering ENOTCONN
# (fs/deadconn.h, fs/guard.h): their connections are aborted through fusectl and the
# daemon comes back as after any kill -9. Round 1: another process holds the dead
# daemon's /dev/fuse; the next daemon aborts them. Rounds 2 and 3: the deadlock met
# under stress, made on purpose (deadconn-lib.sh) -- the killed daemon cannot finish
# dying and keeps its control socket; its guard aborts them (2), or, the guard killed
# too, the next daemon does (3).
. "$(dirname "$0")/lib.sh" "$1" "$2"
. "$(dirname "$0")/deadconn-lib.sh"

fs_setup
trap 'abort_conns; fs_cleanup' EXIT
[ -x "$HOLD" ] || skip_all "no holddead helper"

# --- round 1: the device held by another process ---
M=$(mnt a none,name=dcone) || { bad "mount"; fs_done; exit 1; }
mkdir $M/x
C=$(conn_of $M); CONNS+=("$C:$M")
check "the serving threads are named after their connection" \
	"$(test "$(tid_named $DAEMON_PID ucgfs/$C | grep -c .)" -ge 1 && echo yes)" "yes"
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

# --- round 2: the killed daemon cannot finish dying; its guard ends it ---
M1=$(mnt b1 none,name=dctwo) && M2=$(mnt b2 none,name=dctwo) || { bad "mount twice"; fs_done; exit 1; }
# Served over io_uring (the sanitizer pass turns it on), the hang does not happen: the
# rings' teardown as the killed threads exit ends the waiting requests.
URING=$(ls $M1 >/dev/null; "$UCG" ctl stats | awk '$1 == "uring_requests" { print ($2 > 0) }')
GUARD=$(guard_of $DAEMON_PID)
check "the daemon has a guard" "$(echo $GUARD | grep -c .)" "1"
if ! deadlock $M1 $M2; then
	SKIP=$((SKIP + 1))
else
	T0=$(date +%s%N)
	kill -9 $OLD
	for i in $(seq 100); do
		timeout 0.5 stat -f $M1 2>&1 | grep -q 'not connected' && break
	done
	T1=$(date +%s%N)
	echo "kill -9 to the mounts answering ENOTCONN (the guard's abort; io_uring: the kernel's): $(((T1 - T0) / 1000000)) ms"
	for i in $(seq 100); do kill -0 $GUARD 2>/dev/null || break; sleep 0.05; done
	wait $OLD 2>/dev/null
	check "round 2: the old daemon exited by itself" "$(kill -0 $OLD 2>/dev/null && echo alive || echo gone)" "gone"
	if [ "$URING" = 1 ]; then
		# the kernel's io_uring teardown at the exit ended the requests itself
		check "round 2 (io_uring): the guard had nothing to do" \
			"$(grep -c "ucg: guard: daemon $OLD" $SCRATCH/daemon.log)" "0"
	else
		check "round 2: the guard aborted its three connections" \
			"$(grep -c "ucg: guard: daemon $OLD was killed and did not finish dying: aborted 3 of its 3 FUSE connections" $SCRATCH/daemon.log) $(grep -c "ucg: guard: daemon $OLD has exited" $SCRATCH/daemon.log)" "1 1"
	fi
	check "round 2: its mounts answer ENOTCONN, not hang" \
		"$(timeout 2 stat -f $M1 2>&1 | grep -c 'not connected') $(timeout 2 stat -f $M2 2>&1 | grep -c 'not connected')" "1 1"
	callers_returned "round 2"
	start_daemon || bad "round 2: restart"
	check "round 2: every mount answers, the tree kept" \
		"$(for m in $M $M1 $M2; do timeout 5 ls -d $m/[xX] 2>&1; done | paste -sd' ')" \
		"$M/x $M1/X $M2/X"
fi

# --- round 3: the same with the guard killed first (a SIGKILL of the whole group):
# the killed daemon keeps its socket; a client says "no daemon", and the next daemon
# aborts the connections and lets it go ---
C1=$(mnt c1 none,name=dcthree) && C2=$(mnt c2 none,name=dcthree) || { bad "mount twice"; fs_done; exit 1; }
if [ "$URING" = 1 ]; then
	echo "SKIP round 3: over io_uring a killed daemon does not linger"
	SKIP=$((SKIP + 1))
elif ! deadlock $C1 $C2; then
	SKIP=$((SKIP + 1))
else
	GUARD=$(guard_of $OLD)
	kill -9 $GUARD $OLD
	until_state $OLD Z 30
	check "round 3: the killed daemon cannot finish dying (leader zombie, notifier in D)" \
		"$(state_of $OLD)$(state_of $NOTE2)" "ZD"
	timeout 2 stat -f $C1 >/dev/null 2>&1
	check "round 3: its other mount hangs too" "$?" "124"
	T0=$(date +%s%N)
	timeout 10 $UCG ctl ping >/dev/null 2>&1
	R=$?
	T1=$(date +%s%N)
	check "round 3: ucg ctl ping says no daemon (not a hang)" "$R" "1"
	echo "ping of a dying daemon: $(((T1 - T0) / 1000000)) ms"
	M4=$SCRATCH/d; mkdir -p $M4; echo $M4 >> $SCRATCH/mounts
	T0=$(date +%s%N)
	OUT=$(timeout 30 $UCG mount -o none,name=dcfour cgroup $M4 2>&1 && echo OK)
	T1=$(date +%s%N)
	echo "ucg mount restarting over a dying daemon: $(((T1 - T0) / 1000000)) ms"
	DAEMON_PID=$($UCG ctl ping 2>/dev/null)
	check "round 3: ucg mount restarts the daemon" "$(echo "$OUT" | tail -1)" "OK"
	check "round 3: the new daemon saw the old one dying" \
		"$(grep -c "the previous daemon, pid $OLD, was killed but has not finished dying" $UCG_RUNTIME_DIR/daemon.log)" "1"
	check "round 3: it aborted the old daemon's five connections" \
		"$(grep -c "aborted 5 FUSE connections of the previous daemon" $UCG_RUNTIME_DIR/daemon.log)" "1"
	check "round 3: and the old one exited" \
		"$(grep -c "the previous daemon, pid $OLD, has exited" $UCG_RUNTIME_DIR/daemon.log)" "1"
	wait $OLD 2>/dev/null
	check "round 3: old daemon gone" "$(kill -0 $OLD 2>/dev/null && echo alive || echo gone)" "gone"
	check "round 3: every mount answers, the tree kept" \
		"$(for m in $M $M1 $M2 $C1 $C2; do timeout 5 ls -d $m/[xX] 2>&1; done | paste -sd' ')" \
		"$M/x $M1/X $M2/X $C1/X $C2/X"
	callers_returned "round 3"
fi
fs_done
