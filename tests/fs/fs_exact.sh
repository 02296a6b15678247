#!/bin/bash
# Exact mode, the daemon's default (docs/filesystem.md, "Latency"): every open asks the
# engine and every read is answered from the engine's content at that moment, so a
# read is always one whole value, never stale, cut or NUL-padded, however it overlaps
# changes made through this mount or another (what makes `kill $(cat cgroup.procs)`
# safe). Readers through one mount while the other (then the same) mount rewrites
# values of different lengths back to back; cgroup.procs and tasks read while a
# process is moved and cgroups made and removed through both mounts. The cache mode's
# deviations (fs_cache.sh) must not show here: every count of bad or stale reads is 0.
. "$(dirname "$0")/lib.sh" "$1" "$2"
STRESS=$(dirname "$FSOP")/cachestress
unset UCG_FUSE_CACHE
fs_setup
[ -x "$STRESS" ] || skip_all "no cachestress helper"
A=$(mnt a cpu,name=ucgexact) || { bad "mount A"; fs_done; exit 1; }
B=$(mnt b cpu,name=ucgexact) || { bad "mount B"; fs_done; exit 1; }
N=$(mnt n none,name=ucgexactn) || { bad "mount N"; fs_done; exit 1; }
O=$(mnt o none,name=ucgexactn) || { bad "mount O"; fs_done; exit 1; }

check "ctl stats: exact mode" "$("$UCG" ctl stats | grep '^file_mode ')" "file_mode exact"
check "a file's size is 0, as in the kernel" "$(stat -c %s $A/notify_on_release $A/cpu.shares | paste -sd' ')" "0 0"
mkdir $A/x
check "a kept fd sees a write through the other mount" \
	"$(exec 3<$A/x/cpu.shares; echo 3 > $B/x/cpu.shares; cat <&3; exec 3<&-)" "3"

# reads: 4 readers x OPS, printed "reads N bad N stale N opfail N"
OPS=3000
stress() { # stress NAME MODE READ_FILE WRITE_FILE
	local out rc
	echo 3 > $4 # the value before the first write, counted "stale" if read: none of them
	out=$(timeout 150 $STRESS $2 $3 $4 $OPS); rc=$?
	echo "# $1: $(echo "$out" | head -1)"; echo "$out" | sed -n 's/^first bad/# first bad/p'
	check "$1: every read one whole current value" \
		"$([ $rc != 124 ] && echo "$out" | awk '/^reads / {print $2, $4, $6, $8}')" "$((4 * OPS)) 0 0 0"
}
stress "readers on A, writer on B, lengths differ" values $A/x/cpu.shares $B/x/cpu.shares
stress "readers and writer on A, lengths differ" values $A/x/cpu.shares $A/x/cpu.shares
stress "readers on A, writer on B, one length" samelen $A/x/cpu.shares $B/x/cpu.shares

# cgroup.procs and tasks while a process moves and cgroups come and go through both
# mounts: every read well formed, and after each move both mounts show it at once
mkdir $N/x $N/y
out=$(timeout 150 $STRESS mixed $N $O $OPS); rc=$?
echo "# mixed: $out"
check "mixed: ends, no bad or stale read, every op succeeds" \
	"$([ $rc != 124 ] && echo "$out" | awk '/^reads / {print $4, $6, $8}')" "0 0 0"
fs_done
