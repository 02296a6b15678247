#!/bin/bash
# `ucg up ROOT` mounts the default layout (one hierarchy per controller, cpu with
# cpuacct, name=systemd with user.slice/user-UID.slice/session-N.scope and
# system.slice); `ucg down ROOT` takes it away. ROOT is a scratch dir, never
# /sys/fs/cgroup.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
R=$SCRATCH/up
check "refuses /sys/fs/cgroup" "$($UCG up /sys/fs/cgroup/x 2>&1 >/dev/null | grep -c refusing)" "1"

# a login session of our own: setting loginuid gives the process a new session id
bash -c 'echo 64011 > /proc/self/loginuid 2>/dev/null; exec sleep 300' &
L=$!; PIDS+=("$L"); sleep 0.2
SES=$(cat /proc/$L/sessionid)
LUID=$(cat /proc/$L/loginuid)
spawn sleep 300; S=$LAST

$UCG up $R; check "up exit status" "$?" "0"
MOUNTS+=($(ls -d $R/*/ 2>/dev/null))
check "cpu,cpuacct together" "$(ls -d $R/cpu,cpuacct >/dev/null && readlink $R/cpu && readlink $R/cpuacct)" "cpu,cpuacct
cpu,cpuacct"
check "one hierarchy per controller" "$($UCG cgroups | awk 'NR>1 && $1!="debug" && $2==0' | wc -l)" "0"
check "cpu and cpuacct share an id" "$($UCG cgroups | awk '$1=="cpu"||$1=="cpuacct"{print $2}' | uniq | wc -l)" "1"
check "systemd hierarchy" "$(grep -c name=systemd <<<"$($UCG proc $S)")" "1"
check "a plain process in system.slice" "$(grep name=systemd <<<"$($UCG proc $S)" | cut -d: -f3)" "/system.slice"
if [ "$LUID" = 64011 ] && [ "$SES" != 4294967295 ]; then
	check "session scope" "$(grep name=systemd <<<"$($UCG proc $L)" | cut -d: -f3)" "/user.slice/user-64011.slice/session-$SES.scope"
else
	SKIP=$((SKIP + 1)); echo "SKIP session scope: cannot set loginuid here"
fi
check "pid 1 stays in the root" "$(grep name=systemd <<<"$($UCG proc 1)" | cut -d: -f3)" "/"
check "kthreadd stays in the root" "$(grep name=systemd <<<"$($UCG proc 2)" | cut -d: -f3)" "/"
$UCG down $R; check "down exit status" "$?" "0"
check "down unmounted everything" "$($UCG mount | grep -c " $R/")" "0"
check "down removed ROOT" "$(test -e $R && echo left || echo gone)" "gone"
fs_done
