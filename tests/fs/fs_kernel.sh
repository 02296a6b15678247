#!/bin/bash
# The same operations on the kernel's cgroupfs (a scratch none,name= hierarchy) and on
# ours: every answer must be the kernel's. Skips if the kernel has no cgroup v1.
. "$(dirname "$0")/lib.sh" "$1" "$2"
. "$(dirname "$0")/matrix.sh"
fs_setup
command -v setpriv >/dev/null || skip_all "no setpriv"

K=$(kmnt k none,name=ucgtest$$) || skip_all "kernel has no cgroup v1 (mount -t cgroup failed)"
M=$(mnt a none,name=ucgtest$$) || { bad "mount"; fs_done; exit 1; }
run_matrix $K $FSOP $SCRATCH > $SCRATCH/kernel.out 2>/dev/null
run_matrix $M $FSOP $SCRATCH > $SCRATCH/ours.out 2>/dev/null
# The daemon's default, exact mode, answers as the kernel does everywhere (the cache
# mode, UCG_FUSE_CACHE=1, has documented differences: docs/filesystem.md).
while read -r label want; do
	got=$(grep -m1 "^$label " $SCRATCH/ours.out | cut -d' ' -f2-)
	check "$label (kernel: $want)" "$got" "$want"
done < $SCRATCH/kernel.out
fs_done
