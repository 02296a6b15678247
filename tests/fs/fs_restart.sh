#!/bin/bash
# State survives the daemon: tree, settings, ownership and the membership of
# processes that still live, after a clean stop and after kill -9 (whose stale
# mounts the next `ucg mount` clears).
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup

M=$(mnt a none,name=keep,release_agent=/bin/true) || { bad "mount"; fs_done; exit 1; }
mkdir -p "$M/a/b c" $M/d
chown 64011:64011 $M/d $M/d/tasks
chmod 0700 "$M/a/b c"
echo 1 > $M/a/notify_on_release
spawn sleep 300; S=$LAST
echo $S > $M/d/cgroup.procs
sleep 0.3
snapshot() {
	echo "agent $(cat $M/release_agent)"
	echo "notify $(cat $M/a/notify_on_release)"
	echo "mode $(stat -c %a "$M/a/b c")"
	echo "own $(stat -c %u:%g $M/d $M/d/tasks | paste -sd' ')"
	echo "procs $(cat $M/d/cgroup.procs)"
	echo "proc $($UCG proc $S)"
}
BEFORE=$(snapshot)

# clean stop, then a new daemon restores and remounts
kill $DAEMON_PID; wait $DAEMON_PID
start_daemon || bad "restart after stop"
for i in $(seq 40); do mountpoint -q $M && break; sleep 0.05; done
check "remounted after clean stop" "$(mountpoint -q $M && echo yes)" "yes"
check "state after clean stop" "$(snapshot)" "$BEFORE"

# kill -9: the mount goes stale (ENOTCONN); a new daemon clears and restores it
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
# over io_uring the kernel aborts the connection after the daemon's exit, from its
# ring's teardown, a moment later: a short wait for it (/dev/fuse: at once)
for i in $(seq 40); do stat $M 2>&1 | grep -q 'not connected' && break; sleep 0.05; done
check "stale mount" "$(stat $M 2>&1 | grep -c 'not connected')" "1"
start_daemon || bad "restart after kill -9"
for i in $(seq 40); do stat $M >/dev/null 2>&1 && break; sleep 0.05; done
check "state after kill -9" "$(snapshot)" "$BEFORE"

# the next `ucg mount` says the daemon died and starts one, which logs the same,
# clears the stale mount and restores it; mounting the same hierarchy on the same
# directory again is then EBUSY, as on the kernel
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
DAEMON_PID=
M2=$SCRATCH/b; mkdir -p $M2; MOUNTS+=("$M2")
OUT=$($UCG mount -o none,name=other cgroup $M2 2>&1 && echo OK)
DAEMON_PID=$($UCG ctl ping)
check "ucg mount after a dead daemon" "$(echo "$OUT" | tail -1)" "OK"
check "ucg mount says the daemon died" "$(echo "$OUT" | head -1)" \
	"ucg: mount: the daemon had died (nothing answered on $UCG_RUNTIME_DIR/ctl.sock); started a new one, pid $DAEMON_PID, which restores its state"
check "the new daemon logs it" "$(grep -c 'did not stop cleanly' $UCG_RUNTIME_DIR/daemon.log)" "1"
check "tree back at the old mount" "$(test -d "$M/a/b c" && echo yes)" "yes"
check "stale mounts cleared, not stacked" "$(grep -c " $M " /proc/self/mountinfo)" "1"
check "same hierarchy, same dir" "$($UCG mount -o none,name=keep cgroup $M 2>&1)" "ucg: mount: $M: Device or resource busy"
fs_done
