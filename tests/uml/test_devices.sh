#!/bin/bash
# Devices.deny, written through ucg's v1 file, makes open(2) of that device fail with
# EPERM in the cgroup (a device BPF program on the v2 leaf), while the devices still
# allowed open.
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt devices devices) || { bad "ucg mount -o devices"; uml_done; exit 1; }
mkdir $M/d
FSOP=$HELPERS/../fs/fsop
# in the cgroup: open(2) /dev/full (1:7) and /dev/zero (1:5) for reading, the errnos
try() {
	sh -c "echo \$\$ > $M/d/cgroup.procs || exit 9
		echo full=\$($FSOP open /dev/full r) zero=\$($FSOP open /dev/zero r)"
}
check "before: both open" "$(try)" "full=OK zero=OK"
echo 'c 1:7 rwm' > $M/d/devices.deny
check "devices.list after the deny" "$(cat $M/d/devices.list)" "a *:* rwm"
check "denied: open(2) fails with EPERM" "$(try)" "full=EPERM zero=OK"
echo 'c 1:7 rwm' > $M/d/devices.allow
check "allowed again" "$(try)" "full=OK zero=OK"
uml_done
