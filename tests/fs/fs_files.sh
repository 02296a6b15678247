#!/bin/bash
# Every file, written by a throwaway user: tests/fs/matrix_files.sh on the kernel's
# hierarchies and on ours, compared line by line (the file lists included). The
# kernel side mounts the host's existing v1 hierarchies a second time under the
# scratch dir and works at the root for what the user may only try (every write
# there is refused by mode), in children it makes with a unique tag for the rest; the
# memory hierarchy is used only below a child of our own, on both sides. A hierarchy
# the host lacks as v1 is skipped with one line.
. "$(dirname "$0")/lib.sh" "$1" "$2"
. "$(dirname "$0")/matrix_files.sh"
fs_setup
command -v setpriv >/dev/null || skip_all "no setpriv"

TAG=ucgh$$
KSHARED=()
files_cleanup() {
	local i m
	for ((i = ${#KSHARED[@]} - 1; i >= 0; i--)); do
		m=${KSHARED[i]}
		# only what we made: our tagged children, never the hierarchy's own
		find $m -depth -type d -name "$TAG*" -exec rmdir {} \; 2>/dev/null
		umount $m 2>/dev/null || umount -l $m
	done
	fs_cleanup
}
trap files_cleanup EXIT

# kshared CTRL: the host's hierarchy of CTRL mounted again, if it is v1 and bound
# to exactly CTRL (a second mount of the same hierarchy: no new state)
kshared() {
	local d=$SCRATCH/k-${1//,/-}
	mkdir -p $d
	mount -t cgroup -o "$1" cgroup $d 2>/dev/null || return 1
	KSHARED+=($d)
	echo $d
}

# Which of the kernel's answers ucg cannot give, and why (docs/filesystem.md):
# "hierarchy:label reason" lines, matched exactly; none today.
EXCLUDE=
# Files of this host's kernel that are not upstream, so not made by ucg: left out of
# the kernel's lists and never written (docs/kernel/controllers.md).
VENDOR_FILES='memory\.shown_ram_in_bytes'
# Files of ucg's reference machine (docs/controllers-verified.md: loop devices on bfq,
# 2MB and 1GB huge pages) that a host without bfq or 1GB pages does not have: left
# out of our lists when the kernel's has none of them.
MODEL_FILES='blkio\.bfq\..*|hugetlb\.1GB\..*'

# the first CPU this test may run on (the matrices run there, see below)
PIN=$(awk '/^Cpus_allowed_list/ { split($2, a, "[,-]"); print a[1] }' /proc/self/status)

for ctl in cpu cpuacct cpuset blkio pids devices freezer net_cls,net_prio perf_event hugetlb memory; do
	K=$(kshared $ctl) || { echo "skip $ctl: not a v1 hierarchy of its own here"; continue; }
	KSHARED+=($K)
	M=$(mnt ${ctl//,/-} $ctl) || { bad "$ctl: ucg mount"; continue; }
	KB=$K UB=$M
	if [ $ctl = memory ]; then
		KB=$K/$TAG-memory UB=$M/$TAG-memory
		mkdir $KB $UB || { bad "memory: scratch child"; continue; }
	fi
	for f in $(ls $KB | grep -xE "$VENDOR_FILES"); do
		echo "skip $ctl:$f: a vendor file of this kernel, not upstream, not made by ucg"
		SKIP=$((SKIP + 1))
	done
	# what ucg makes for its reference machine and this host's kernel does not
	ONLY=
	if ! ls $KB | grep -qxE "$MODEL_FILES"; then
		ONLY=$MODEL_FILES
		for f in $(ls $UB | grep -xE "$MODEL_FILES"); do
			echo "skip $ctl:$f: ucg's reference machine has it, this host not (bfq, 1GB pages)"
			SKIP=$((SKIP + 1))
		done
	fi
	# On one CPU: the kernel keeps a cgroup's charges in per-CPU caches, and a limit
	# write drains the other CPUs' caches only asynchronously, so a writer of
	# memory.limit_in_bytes after the writers of tasks had left got EBUSY or OK by
	# which CPU each had run on (about half the runs on 2 CPUs). On one CPU the drain
	# is synchronous and the kernel's answer is OK every time (30 runs of 30).
	(
		taskset -cp $PIN $BASHPID > /dev/null
		SKIP_FILES=$VENDOR_FILES run_files_matrix $KB $FSOP $TAG > $SCRATCH/kernel-$ctl.out 2>/dev/null
		SKIP_FILES=$ONLY run_files_matrix $UB $FSOP $TAG > $SCRATCH/ours-$ctl.out 2>/dev/null
	)
	[ $ctl = memory ] && rmdir $KB $UB
	n=0
	while read -r label want; do
		n=$((n + 1))
		reason=$(echo "$EXCLUDE" | awk -v l="$ctl:$label" '$1 == l { $1 = ""; print substr($0, 2) }')
		[ -n "$reason" ] && { echo "skip $ctl:$label: $reason"; SKIP=$((SKIP + 1)); continue; }
		got=$(grep -m1 "^$label " $SCRATCH/ours-$ctl.out | cut -d' ' -f2-)
		check "$ctl: $label (kernel: $want)" "$got" "$want"
	done < $SCRATCH/kernel-$ctl.out
	check "$ctl: as many lines as the kernel" "$(wc -l < $SCRATCH/ours-$ctl.out)" "$n"
	[ -n "${UCG_FILES_KEEP:-}" ] && cp $SCRATCH/kernel-$ctl.out $SCRATCH/ours-$ctl.out $UCG_FILES_KEEP/
done
fs_done
