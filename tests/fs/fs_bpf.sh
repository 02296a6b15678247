#!/bin/bash
# devices and net_cls through the daemon's BPF programs (docs/enforcement.md): with
# UCG_ENFORCE=1 and a scratch UCG_V2_ROOT, devices.deny written through ucg's v1 file
# makes open(2) of that device fail with EPERM in the cgroup while the others open,
# devices.allow undoes it, and net_cls.classid becomes SO_PRIORITY of new sockets.
# Skips without a writable cgroup2 mount or when the daemon cannot use bpf(2).
. "$(dirname "$0")/lib.sh" "$1" "$2"
CG2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$CG2" ] && [ -w "$CG2/cgroup.procs" ] || skip_all "no writable cgroup2 mount"
V2NAME=ucgtest-fsbpf-$$
export UCG_ENFORCE=1 UCG_V2_ROOT=$V2NAME
fs_setup
V2=$CG2/$V2NAME
cleanup_v2() {
	local d
	for d in $(find "$V2" -depth -type d 2>/dev/null); do rmdir "$d" 2>/dev/null; done
}
trap 'fs_cleanup; cleanup_v2' EXIT
"$UCG" ctl stats | grep -q '^enforce_bpf devices' || skip_all "no bpf(2) for the daemon"

D=$(mnt d devices) || { bad "mount devices"; fs_done; }
mkdir $D/x
# in the cgroup: open(2) /dev/full (1:7) and /dev/zero (1:5) for reading, the errnos
try() {
	bash -c "echo \$\$ > $D/x/cgroup.procs || exit 9
		echo full=\$($FSOP open /dev/full r) zero=\$($FSOP open /dev/zero r)"
}
check "before: both open" "$(try)" "full=OK zero=OK"
echo 'c 1:7 rwm' > $D/x/devices.deny
check "devices.list after the deny" "$(cat $D/x/devices.list)" "a *:* rwm"
check "denied: open(2) fails with EPERM" "$(try)" "full=EPERM zero=OK"
echo 'c 1:7 rwm' > $D/x/devices.allow
check "allowed again" "$(try)" "full=OK zero=OK"
echo a > $D/x/devices.deny
echo 'c 1:5 r' > $D/x/devices.allow
check "deny-all with one grant" "$(try)" "full=EPERM zero=OK"

if command -v python3 >/dev/null; then
	N=$(mnt n net_cls) || { bad "mount net_cls"; fs_done; }
	mkdir $N/y
	echo 0x100001 > $N/y/net_cls.classid
	check "classid is SO_PRIORITY of a new socket" "$(bash -c "echo \$\$ > $N/y/cgroup.procs &&
		python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
print(s.getsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY))'")" "$((0x100001))"
fi
check "stats count no refusal" "$("$UCG" ctl stats | grep -c '^enforce_bpf.* refusals 0$')" "1"
fs_done
