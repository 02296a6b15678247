#!/bin/bash
# `ucg exec`, `ucg shell` and `ucg classify`: unmodified v1 programs in the view
# (docs/exec-view.md). A daemon of our own serves the default layout (`ucg up`) under
# a scratch dir; every view is a private mount namespace that dies with its processes.
# Java and cgroup-tools parts skip with one line each when not installed.
. "$(dirname "$0")/../fs/lib.sh" "$1" "$2"
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$(dirname "$UCG")/../.." && pwd)
fs_setup
R=$SCRATCH/up
$UCG up "$R" >/dev/null || { bad "ucg up"; fs_done; exit 1; }
MOUNTS+=($(ls -d "$R"/*/))
CPU=$R/cpu,cpuacct
MEM=$R/memory
mkdir "$CPU/t1" "$MEM/t1" "$CPU/t2" "$MEM/t2"
NH=$($UCG mount | wc -l)
host_mi=$(grep -c ' /sys/fs/cgroup' /proc/self/mountinfo)

# ---- bad input fails before COMMAND runs, with cgexec's message and status
out=$($UCG exec -g nosuch:/ -- touch "$SCRATCH/ran" 2>&1); st=$?
check "unknown controller: status" "$st" "84"
check "unknown controller: message" "$out" "cgroup change of group failed"
$UCG exec -g cpu:/missing -- touch "$SCRATCH/ran" 2>/dev/null; st=$?
check "missing path: status" "$st" "82"
$UCG exec -g cpu -- touch "$SCRATCH/ran" 2>/dev/null; st=$?
check "-g without a path: status" "$st" "255"
check "COMMAND never ran" "$(test -e "$SCRATCH/ran" && echo ran || echo no)" "no"

# ---- exit status and signals
$UCG exec -- sh -c 'exit 7'; check "COMMAND's exit status" "$?" "7"
$UCG exec -- sh -c 'kill -TERM $$'; check "COMMAND killed by a signal" "$?" "143"
$UCG exec -- sleep 30 &
E=$!; PIDS+=("$E"); sleep 0.5
kill -TERM "$E"; wait "$E"; check "a signal to ucg exec reaches COMMAND" "$?" "143"

HAVE_STATIC=0
gcc -static -O1 -o "$SCRATCH/rawcat" "$HERE/rawcat.c" 2>/dev/null && HAVE_STATIC=1

# ---- the view
v=$($UCG exec -g cpu,memory:/t1 -- sh -c '
	echo "pid $$"; cat /proc/self/cgroup
	echo "thread $(cat /proc/thread-self/cgroup | grep -c memory:/t1)"
	echo "child $(sh -c "cat /proc/self/cgroup" | grep -c cpu,cpuacct:/t1)"
	echo "cgroups $(cat /proc/cgroups | md5sum)"
	echo "mi_cpu $(grep " /sys/fs/cgroup/cpu,cpuacct " /proc/self/mountinfo | sed "s/.* - //")"
	echo "mi_cgroup $(grep -c " - cgroup cgroup " /proc/self/mountinfo)"
	echo "mi_other $(grep -c -e " - cgroup2 " -e " - fuse.cgroup " /proc/self/mountinfo)"
	echo "mounts_cpu $(grep " /sys/fs/cgroup/cpu,cpuacct " /proc/mounts)"
	echo "link $(readlink /sys/fs/cgroup/cpu) $(readlink /sys/fs/cgroup/cpuacct)"
	echo "limit $(cat /sys/fs/cgroup/memory/t1/memory.limit_in_bytes)"
	echo "static $('"$SCRATCH"'/rawcat /proc/self/cgroup | grep -c memory:/t1)"
	'"$BUILD"'/tests/exec/fsmagic /sys/fs/cgroup /sys/fs/cgroup/memory /sys/fs/cgroup/cpu/t1/cpu.shares
' 2>&1)
field() { awk -v k="$1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' <<<"$v"; }
P=$(field pid)
check "moved into cpu,cpuacct:/t1" "$(grep -c ':cpu,cpuacct:/t1$' <<<"$v")" "1"
check "moved into memory:/t1" "$(grep -c ':memory:/t1$' <<<"$v")" "1"
check "/proc/thread-self/cgroup" "$(field thread)" "1"
check "a forked child sees its cgroup" "$(field child)" "1"
check "/proc/cgroups is ucg's" "$(field cgroups)" "$($UCG cgroups | md5sum)"
check "mountinfo: kernel fields" "$(field mi_cpu)" "cgroup cgroup rw,cpu,cpuacct"
check "mountinfo: one cgroup line per hierarchy" "$(field mi_cgroup)" "$NH"
check "mountinfo: no other cgroup mounts" "$(field mi_other)" "0"
check "/proc/mounts" "$(field mounts_cpu)" "cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,nosuid,nodev,noexec,relatime,cpu,cpuacct 0 0"
check "statfs: /sys/fs/cgroup is a tmpfs" "$(field /sys/fs/cgroup)" "1021994 1021994"
check "statfs: a hierarchy is cgroupfs" "$(field /sys/fs/cgroup/memory)" "27e0eb 27e0eb"
check "statfs: a file below is cgroupfs" "$(field /sys/fs/cgroup/cpu/t1/cpu.shares)" "27e0eb 27e0eb"
check "statfs outside the view: FUSE's" "$("$BUILD"/tests/exec/fsmagic "$MEM" | cut -d' ' -f2)" "65735546"
check "cpu and cpuacct symlinks" "$(field link)" "cpu,cpuacct cpu,cpuacct"
check "hierarchy files reachable" "$(field limit)" "$(cat "$MEM/t1/memory.limit_in_bytes")"
if [ "$HAVE_STATIC" = 1 ]; then
	check "a static binary with raw syscalls sees the view" "$(field static)" "1"
else
	SKIP=$((SKIP + 1)); echo "SKIP static binary: gcc -static fails (no libc6-dev static libs?)"
fi
check "nothing leaks: host's /sys/fs/cgroup mounts unchanged" "$(grep -c ' /sys/fs/cgroup' /proc/self/mountinfo)" "$host_mi"
check "nothing leaks: no /sys/fs/cgroup/cpu,cpuacct here" "$(grep -c ' /sys/fs/cgroup/cpu,cpuacct ' /proc/self/mountinfo)" "0"

# ---- mount -t cgroup inside the view is served by ucg
m=$($UCG exec -- sh -c '
	D=$(mktemp -d); D2=$(mktemp -d); D3=$(mktemp -d)
	mount -t cgroup -o cpu,cpuacct none $D; echo "same $? $(test -d $D/t1 && echo t1)"
	echo "mi $(grep " $D " /proc/self/mountinfo | sed "s/.* - //")"
	echo "magic $('"$BUILD"'/tests/exec/fsmagic $D | cut -d" " -f2)"
	mount -t cgroup -o cpu none $D2 2>&1 | grep -c busy | sed "s/^/busy /"
	mount -t cgroup -o none,name=viewtest none $D3; echo "named $? $(grep -c ":name=viewtest:/$" /proc/self/cgroup)"
	echo "outside $('"$UCG"' mount | grep -c " '"$UCG_RUNTIME_DIR"'/view\.")"
	umount $D; echo "umount $? $(grep -c " $D " /proc/self/mountinfo)"
	rmdir $D $D2 2>/dev/null
' 2>&1)
mf() { awk -v k="$1 " 'index($0, k) == 1 { print substr($0, length(k) + 1) }' <<<"$m"; }
check "mount -t cgroup: same options, same hierarchy" "$(mf same)" "0 t1"
check "mount -t cgroup: mountinfo" "$(mf mi)" "cgroup cgroup rw,cpu,cpuacct"
check "mount -t cgroup: statfs" "$(mf magic)" "27e0eb"
check "mount -t cgroup: EBUSY for a controller bound elsewhere" "$(mf busy)" "1"
check "mount -t cgroup: a new named hierarchy" "$(mf named)" "0 1"
check "mount -t cgroup: the daemon's mounts for the view" "$(mf outside)" "2"
check "umount in the view" "$(mf umount)" "0 0"
check "the view's mounts undone when it ends" "$($UCG mount | grep -c -e "$UCG_RUNTIME_DIR/view\." -e name=viewtest)" "0"

# ---- a process moved later sees its new cgroup at its next open
rm -f "$SCRATCH/pid" "$SCRATCH/go"
$UCG exec -g memory:/t1 -- sh -c "echo \$\$ > $SCRATCH/pid; while [ ! -e $SCRATCH/go ]; do sleep 0.05; done; grep memory /proc/self/cgroup > $SCRATCH/after; $UCG classify -g cpu:/t2 \$\$ && grep cpu, /proc/self/cgroup >> $SCRATCH/after" &
E=$!; PIDS+=("$E")
for i in $(seq 100); do [ -s "$SCRATCH/pid" ] && break; sleep 0.05; done
$UCG classify -g memory:/t2 "$(cat "$SCRATCH/pid")"; check "ucg classify from outside: status" "$?" "0"
touch "$SCRATCH/go"; wait "$E"
check "moved by ucg classify from outside" "$(sed -n 1p "$SCRATCH/after" | cut -d: -f3)" "/t2"
check "moved by ucg classify inside the view" "$(sed -n 2p "$SCRATCH/after" | cut -d: -f3)" "/t2"
out=$($UCG classify -g nosuch:/ $$ 2>&1); st=$?
check "classify: unknown controller" "$st:$out" "84:cgroup change of group failed"

# ---- Java
if command -v java >/dev/null 2>&1; then
	mkdir "$CPU/j" "$MEM/j"
	echo 268435456 > "$MEM/j/memory.limit_in_bytes"
	echo 50000 > "$CPU/j/cpu.cfs_quota_us"
	j=$($UCG exec -g cpu,memory:/j -- java -XshowSettings:system -version 2>&1)
	check "java: provider" "$(grep -c 'Provider: cgroupv1' <<<"$j")" "1"
	check "java: memory limit" "$(grep -o 'Memory Limit: .*' <<<"$j")" "Memory Limit: 256.00M"
	check "java: CPU quota" "$(grep -o 'CPU Quota: .*' <<<"$j")" "CPU Quota: 50000us"
	check "java: CPU period" "$(grep -o 'CPU Period: .*' <<<"$j")" "CPU Period: 100000us"
	check "java: effective CPUs" "$(grep -o 'Effective CPU Count: .*' <<<"$j")" "Effective CPU Count: 1"
else
	SKIP=$((SKIP + 1)); echo "SKIP java: not installed"
fi

# ---- cgroup-tools
if command -v cgcreate >/dev/null 2>&1; then
	t=$($UCG exec -- sh -c '
		echo "ls $(lscgroup | grep -c -x "cpu,cpuacct:/t1")"
		cgcreate -g cpu,memory:/ct; echo "create $?"
		cgset -r cpu.shares=512 ct; echo "set $?"
		echo "get $(cgget -n -v -r cpu.shares ct)"
		echo "exec $(cgexec -g cpu:/ct cat /proc/self/cgroup | grep -c ":cpu,cpuacct:/ct$")"
		sleep 30 & S=$!
		cgclassify -g memory:/ct $S; echo "classify $(grep -c ":memory:/ct$" /proc/$S/cgroup)"
		kill $S; wait $S
		echo "pidgone $(grep -c . /sys/fs/cgroup/memory/ct/cgroup.procs)"
	' 2>&1)
	tf() { sed -n "s/^$1 //p" <<<"$t"; }
	check "lscgroup lists ucg's cgroups" "$(tf ls)" "1"
	check "cgcreate" "$(tf create):$(test -d "$CPU/ct" && test -d "$MEM/ct" && echo made)" "0:made"
	check "cgset" "$(tf set):$(cat "$CPU/ct/cpu.shares" 2>/dev/null)" "0:512"
	check "cgget" "$(tf get)" "512"
	check "cgexec" "$(tf exec)" "1"
	check "cgclassify" "$(tf classify)" "1"
	# the daemon learns of the exit from the process connector: give it a moment
	for i in $(seq 40); do grep -q . "$MEM/ct/cgroup.procs" || break; sleep 0.05; done
	# one call per hierarchy: libcgroup 2.0.2's cgdelete removes the group of the first
	# hierarchy only (-g cpu,memory:/x or two -g), on the kernel too
	$UCG exec -- sh -c 'cgdelete -g cpu:/ct && cgdelete -g memory:/ct'; st=$?
	check "cgdelete" "$st:$(test -e "$CPU/ct" || test -e "$MEM/ct" && echo left || echo gone)" "0:gone"
else
	SKIP=$((SKIP + 1)); echo "SKIP cgroup-tools: not installed (Debian package cgroup-tools)"
fi

rmdir "$CPU"/t1 "$CPU"/t2 "$MEM"/t1 "$MEM"/t2 "$CPU"/j "$MEM"/j 2>/dev/null
$UCG down "$R" >/dev/null
fs_done
