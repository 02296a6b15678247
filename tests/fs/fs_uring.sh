#!/bin/bash
# FUSE over io_uring (src/fs/uring.c). With the kernel's fuse parameter enable_uring Y,
# requests made on every CPU are answered through the rings (the daemon's
# uring_requests counter grows with them) with the same answers as over /dev/fuse,
# long writes and reads included, and the queue threads end with the mount. With
# UCG_FUSE_URING=0, or enable_uring N, the daemon says why on one log line and serves
# everything through /dev/fuse. The parameter is put back as it was found.
. "$(dirname "$0")/lib.sh" "$1" "$2"
P=/sys/module/fuse/parameters/enable_uring
fs_setup
[ -w "$P" ] || skip_all "this kernel has no FUSE over io_uring ($P: Linux 6.14+, CONFIG_FUSE_IO_URING)"
# The parameter is global: one run of this test at a time changes it.
exec 9>/tmp/ucg-fs-uring.lock
flock 9
ORIG=$(cat "$P")
trap 'echo "$ORIG" > "$P"; fs_cleanup' EXIT

stat_of() { "$UCG" ctl stats | awk -v k="$1" '$1 == k { print $2 }'; }
threads() { ls "/proc/$DAEMON_PID/task" | wc -l; }
restart_daemon() {
	kill "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
	start_daemon || { bad "daemon restart"; fs_done; exit 1; }
}
# cpus LIST: the CPU numbers of a sysfs list such as 0-3,6
cpus() { tr ',' '\n' <"$1" | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'; }
# the same operations through any transport: prints what they showed
exercise() {
	local m=$1 c=$2 pid
	taskset -c "$c" sleep 300 &
	pid=$!
	PIDS+=("$pid")
	taskset -c "$c" mkdir "$m/c$c" &&
		taskset -c "$c" sh -c "echo $pid > $m/c$c/cgroup.procs" &&
		taskset -c "$c" cat "$m/c$c/cgroup.procs" | sed "s/^$pid\$/PID/" &&
		taskset -c "$c" mv "$m/c$c" "$m/r$c" && ls "$m" | grep -c "^r$c\$" &&
		taskset -c "$c" sh -c "echo $pid > $m/cgroup.procs" &&
		taskset -c "$c" rmdir "$m/r$c" && echo done
	kill "$pid"
}

# ---- with the rings ----
echo Y >"$P"
T0=$(threads)
M=$(mnt a none,name=uringa) || { bad "mount"; fs_done; exit 1; }
grep -q "built without liburing" "$SCRATCH/daemon.log" && skip_all "ucg built without liburing: no io_uring transport"
ls "$M" >/dev/null # INIT is answered after the mount returns; the first access waits for it
check "mount served by rings" "$(stat_of uring_mounts)" "1"
for c in $(cpus /sys/devices/system/cpu/online); do
	R0=$(stat_of uring_requests)
	check "cpu $c: answers" "$(exercise "$M" "$c" | tr '\n' ' ')" "PID 1 done "
	R1=$(stat_of uring_requests)
	# LOOKUP, MKDIR, OPEN, WRITE, OPEN, READ, LOOKUP, RENAME, RMDIR at least
	check "cpu $c: requests through its ring" "$((R1 - R0 >= 9))" "1"
done
# a payload of 4000 bytes each way (release_agent takes up to PATH_MAX)
A=/$(head -c 3999 /dev/zero | tr '\0' a)
echo "$A" >"$M/release_agent"
check "long write and read back through a ring" "$(cat "$M/release_agent")" "$A"
check "no fallback logged" "$(grep -c 'through /dev/fuse' "$SCRATCH/daemon.log")" "0"
$UCG umount "$M"
for i in $(seq 50); do [ "$(threads)" = "$T0" ] && break; sleep 0.1; done
check "queue threads end with the mount" "$(threads)" "$T0"

# falls_back TAG NAME WHY: a mount NAME on the daemon just restarted is served through
# /dev/fuse, answers, and the log has one line saying WHY
falls_back() {
	local m
	m=$(mnt "$2" "none,name=$2") || { bad "$1: mount"; return; }
	check "$1: no ring mount" "$(stat_of uring_mounts)" "0"
	check "$1: answers" "$(exercise "$m" 0 | tr '\n' ' ')" "PID 1 done "
	check "$1: no request through a ring" "$(stat_of uring_requests)" "0"
	check "$1: one line says why" "$(grep -c "through /dev/fuse: $3" "$SCRATCH/daemon.log")" "1"
	$UCG umount "$m"
}

# ---- UCG_FUSE_URING=0: /dev/fuse ----
UCG_FUSE_URING=0 restart_daemon
falls_back off uringb 'io_uring turned off by UCG_FUSE_URING'

# ---- enable_uring N: /dev/fuse ----
echo N >"$P"
restart_daemon
falls_back N uringc '/sys/module/fuse/parameters/enable_uring is N'
fs_done
