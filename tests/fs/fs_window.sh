#!/bin/bash
# The dead-mount window after kill -9: three mounts with cgroups and members, the
# daemon killed with SIGKILL and restarted at once (`ucg daemon --detach`, as a
# supervisor would), while deadwin polls the mounts. Asserts that when the restart
# returns every mount answers, with the same cgroups and the same members, no mount
# is left stacked on a dead one, the mounts were down no longer than the kill and the
# restart took, and (Linux 6.5 and later) the directory under a mount never showed;
# prints the window (docs/filesystem.md, "Restart").
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
DEADWIN=$(dirname "$FSOP")/deadwin

A=$(mnt a none,name=win$$) || { bad "mount"; fs_done; exit 1; }
B=$(mnt b cpu,cpuacct) || { bad "mount"; fs_done; exit 1; }
C=$(mnt c pids) || { bad "mount"; fs_done; exit 1; }
for m in $A $B $C; do mkdir -p $m/x/y $m/z; done
spawn sleep 600; S1=$LAST
spawn sleep 600; S2=$LAST
for m in $A $B $C; do echo $S1 > $m/x/y/cgroup.procs; echo $S2 > $m/z/cgroup.procs; done
echo 7 > $C/z/pids.max
snapshot() {
	local m
	for m in $A $B $C; do
		(cd $m && find . -mindepth 2 -name cgroup.procs | sort | while read -r f; do
			echo "$m $f $(cat $f | paste -sd,)"
		done)
	done
	cat $C/z/pids.max
}
BEFORE=$(snapshot)
ms() { echo $(($(date +%s%N) / 1000000)); }
WINDOWS=() RESTARTS=()
BENEATH=$(uname -r | awk -F. '{ print ($1 > 6 || ($1 == 6 && $2 >= 5)) ? "yes" : "no" }')
for round in 1 2 3; do
	$DEADWIN 20000 $A $B $C > $SCRATCH/poll.out &
	POLL=$!
	for i in $(seq 200); do grep -q polling $SCRATCH/poll.out && break; sleep 0.01; done
	t0=$(ms)
	kill -9 $DAEMON_PID
	wait $DAEMON_PID 2>/dev/null
	OUT=$($UCG daemon --detach 2>&1) || bad "round $round: ucg daemon --detach: $OUT"
	t1=$(ms)
	DAEMON_PID=$($UCG ctl ping)
	alive=yes
	for m in $A $B $C; do
		[ "$(stat -f -c %T $m 2>&1)" = fuseblk ] || [ "$(stat -f -c %t $m 2>&1)" = 65735546 ] ||
			alive="no: $m: $(stat -f -c %t $m 2>&1)"
	done
	check "round $round: every mount answers when the restart returns" "$alive" "yes"
	wait $POLL
	RES=$(grep -v polling $SCRATCH/poll.out)
	win=$(echo "$RES" | awk '$1 == "window_ms" { print $2 }')
	echo "$RES" | sed "s/^/  round $round: /"
	echo "  round $round: kill to restart returned $((t1 - t0)) ms"
	WINDOWS+=($win) RESTARTS+=($((t1 - t0)))
	check "round $round: mounts came back" "$([ "${win%.*}" -ge 0 ] 2>/dev/null && echo yes)" "yes"
	# the poller sees them back within the kill and restart, plus its own lag on a
	# loaded host
	check "round $round: down no longer than the restart (+250 ms of poller lag)" \
		"$(awk -v w="$win" -v r=$((t1 - t0)) 'BEGIN { print (w <= r + 250) ? "yes" : w " > " r }')" "yes"
	check "round $round: no other errors" "$(echo "$RES" | awk 'NF == 6 { s += $4 } END { print s + 0 }')" "0"
	# from Linux 6.5 the new mount goes in beneath the dead one (MOVE_MOUNT_BENEATH):
	# the directory under the mount never shows
	if [ "$BENEATH" = yes ]; then
		check "round $round: never the bare directory" \
			"$(echo "$RES" | awk 'NF == 6 && $3 > 0 { print $1 }' | paste -sd' ')" ""
	fi
	AFTER=$(snapshot)
	check "round $round: same cgroups, members, settings" "$AFTER" "$BEFORE"
	[ "$AFTER" = "$BEFORE" ] || diff <(echo "$BEFORE") <(echo "$AFTER")
	check "round $round: one mount each, none stacked" \
		"$(for m in $A $B $C; do grep -c " $m " /proc/self/mountinfo; done | paste -sd' ')" "1 1 1"
done
echo "restart_window_ms ${WINDOWS[*]} (kill to restart returned: ${RESTARTS[*]} ms; load $(cut -d' ' -f1 /proc/loadavg))"
fs_done
