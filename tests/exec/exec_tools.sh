#!/bin/bash
# cgroup-tools (libcgroup 2.0.2's lscgroup, cgcreate, cgset, cgget, cgexec, cgclassify,
# cgdelete) do under `ucg exec` what they do on the kernel: one script, run once on
# the host against the kernel's hierarchies (a scratch named hierarchy and a scratch
# child of the host's cpu,cpuacct, unique names) and once in the view against ucg's,
# must print the same, byte for byte: outputs, messages and exit statuses, the
# refusals included. Then systemd-cgls on one process in a scratch slice of both
# name=systemd hierarchies. Skips with one line without cgroup-tools or systemd.
. "$(dirname "$0")/../fs/lib.sh" "$1" "$2"
fs_setup
command -v cgcreate >/dev/null 2>&1 || skip_all "cgroup-tools not installed (Debian package cgroup-tools)"
N=ucgtools$$
KCPU=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpu(,|$)/ {print $2; exit}' /proc/mounts)
U=$(mnt u none,name=$N) || { bad "mount named"; fs_done; exit 1; }
C=$(mnt c cpu,cpuacct) || { bad "mount cpu"; fs_done; exit 1; }
K=$(kmnt k none,name=$N) || skip_all "cannot mount a scratch named cgroup v1 hierarchy here"

script='
cgcreate -g name=N:/ct; echo "create $?"
cgcreate -g name=N:/ct/sub; echo "create2 $?"
lscgroup -g name=N:/; echo "ls $?"
cgexec -g name=N:/ct sh -c "grep name=N /proc/self/cgroup | cut -d: -f2-"; echo "exec $?"
sleep 30 & P=$!
cgclassify -g name=N:/ct/sub $P; echo "classify $?"
grep name=N /proc/$P/cgroup | cut -d: -f2-
kill $P; wait $P 2>/dev/null
cgcreate -g nosuch:/x; echo "create-bad $?"
cgdelete -g name=N:/ct/sub; echo "delete $?"
cgdelete -g name=N:/nosuch; echo "delete-bad $?"
cgdelete -g name=N:/ct; echo "delete2 $?"
cgcreate -g cpu:/N; echo "cpu-create $?"
cgset -r cpu.shares=512 N; echo "set $?"
cgset -r cpu.cfs_quota_us=50000 N; echo "set2 $?"
cgget -r cpu.shares -r cpu.cfs_quota_us -r cpu.cfs_period_us N; echo "get $?"
cgget -n -v -r cpu.shares N; echo "get-v $?"
cgset -r cpu.shares=abc N; echo "set-bad $?"
cgset -r cpu.cfs_quota_us=500 N; echo "set-bad2 $?"
cgset -r cpu.nosuch=1 N; echo "set-bad3 $?"
cgget -r cpu.shares -r cpu.cfs_quota_us N; echo "get-after $?"
cgexec -g cpu:/N sh -c "grep -c cpu.*:/N\$ /proc/self/cgroup"; echo "cpu-exec $?"
cgdelete -g cpu:/N; echo "cpu-delete $?"
'
script=${script//N/$N}
sh -c "$script" > "$SCRATCH/kernel.out" 2>&1
# whatever the kernel side left (a failed step): our scratch child only
[ -n "$KCPU" ] && [ -d "$KCPU/$N" ] && rmdir "$KCPU/$N"
"$UCG" exec -- sh -c "$script" > "$SCRATCH/ucg.out" 2>&1
echo "# kernel: $(wc -l < "$SCRATCH/kernel.out") lines, ucg: $(wc -l < "$SCRATCH/ucg.out") lines; the kernel's:"
sed 's/^/#   /' "$SCRATCH/kernel.out"
check "the kernel's run succeeded where it should" "$(grep -c -e '^create 0' -e '^cpu-create 0' -e '^set 0' "$SCRATCH/kernel.out")" "3"
check "same output, messages and statuses as on the kernel" \
	"$(diff "$SCRATCH/kernel.out" "$SCRATCH/ucg.out" && echo same)" "same"

# systemd-cgls: one process in a scratch slice of the kernel's name=systemd hierarchy
# and of ucg's; the tree it draws must be the same.
if command -v systemd-cgls >/dev/null 2>&1 && [ -d /sys/fs/cgroup/systemd ]; then
	SD=$(mnt sd none,name=systemd) || bad "mount name=systemd"
	spawn sleep 60
	# on a hybrid host systemd-cgls reads the v2 tree at /sys/fs/cgroup/unified
	KSD=/sys/fs/cgroup/systemd
	[ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ] && KSD=/sys/fs/cgroup/unified
	mkdir $KSD/$N.slice "$SD/$N.slice"
	echo $LAST > $KSD/$N.slice/cgroup.procs
	echo $LAST > "$SD/$N.slice/cgroup.procs"
	kout=$(systemd-cgls --no-pager /$N.slice 2>&1)
	uout=$("$UCG" exec -- systemd-cgls --no-pager /$N.slice 2>&1)
	echo "$kout" | sed 's/^/#   /'
	check "systemd-cgls draws the same tree" "$uout" "$kout"
	check "systemd-cgls: the process in the slice" "$(grep -c "$LAST sleep 60" <<<"$uout")" "1"
	kill $LAST; wait $LAST 2>/dev/null
	for i in $(seq 20); do rmdir $KSD/$N.slice 2>/dev/null && break; sleep 0.1; done
	for i in $(seq 20); do rmdir "$SD/$N.slice" 2>/dev/null && break; sleep 0.1; done
else
	SKIP=$((SKIP + 1)); echo "SKIP systemd-cgls: not installed or no name=systemd hierarchy on the host"
fi
check "nothing left in ucg" "$(ls -d "$U"/*/ "$C"/*/ ${SD:+"$SD"/*/} 2>/dev/null | wc -l)" "0"
fs_done
