#!/bin/bash
# bench/bench_fs.sh [UCG [BENCH_FS [FUSE_FLOOR]]] — runs bench_fs on a scratch ucg mount,
# on the trivial FUSE filesystem fuse_floor (the round-trip floor: the same requests
# answered with no work behind them) and on a scratch kernel cgroup v1 hierarchy
# (none,name=), in the same run; prints "name value unit" lines and the ratios to the
# kernel. Cleans up after itself.
#
# Ours runs in both file-serving modes (docs/filesystem.md, "Latency"), and both FUSE
# filesystems over each transport:
#   fs.*           ours in the default exact mode (every open and read asks the
#                  daemon), through io_uring when the kernel has it (else /dev/fuse)
#   fs_dev.*       ours, exact mode, through /dev/fuse (UCG_FUSE_URING=0), when fs.*
#                  used io_uring
#   fs_cache.*     ours in the opt-in cache mode (UCG_FUSE_CACHE=1: file content kept
#                  by the kernel), same transport as fs.*
#   floor.*        fuse_floor through /dev/fuse
#   floor_uring.*  fuse_floor through io_uring, when the kernel has it
#   kernel.*       the kernel's cgroupfs
# with ratio.*, dev_ratio.*, cache_ratio.*, floor_ratio.* and floor_uring_ratio.* to the
# kernel, and a "# ..." line per FUSE run saying how many requests came through
# io_uring. The kernel's fuse parameter enable_uring is set to Y for the run and put
# back as it was.
UCG=${1:-./build/src/cli/ucg}
B=${2:-./build/bench/bench_fs}
FL=${3:-$(dirname "$B")/fuse_floor}
P=/sys/module/fuse/parameters/enable_uring
[ "$(id -u)" = 0 ] && [ -c /dev/fuse ] || { echo "SKIP: needs root and /dev/fuse"; exit 77; }
S=$(mktemp -d /tmp/ucgbench.XXXXXX)
mkdir -p $S/k
DP=
FP=
ORIG_P=
cleanup() {
	local m
	for m in $S/fs.* $S/fl.*; do mountpoint -q $m && umount $m; done
	if mountpoint -q $S/k; then
		rmdir $S/k/* 2>/dev/null; umount $S/k
		# removed cgroups are freed asynchronously: the hierarchy may outlive this
		# umount; mount and unmount again until it is gone (docs/kernel/core.md §1.5)
		for i in $(seq 20); do
			grep -q ":name=ucgbench$$:" /proc/self/cgroup || break
			sleep 0.5
			mount -t cgroup -o none,name=ucgbench$$ cgroup $S/k 2>/dev/null || break
			umount $S/k
		done
	fi
	[ -n "$DP" ] && { kill $DP; wait $DP; } 2>/dev/null
	[ -n "$FP" ] && { kill $FP; wait $FP; } 2>/dev/null
	[ -n "$ORIG_P" ] && echo "$ORIG_P" > $P
	rm -rf $S
}
trap cleanup EXIT
if [ -w $P ]; then
	ORIG_P=$(cat $P)
	echo Y > $P
fi

# ours PREFIX [VAR=VALUE...]: a daemon with that environment, one mount, bench_fs on
# it; leaves the number of requests answered through io_uring in URING. The daemon is
# stopped after: it follows every fork on the host, and the kernel's fork storm below
# is to run at the machine's full rate.
ours() {
	local prefix=$1 rt=$S/run.$1
	shift
	mkdir -p $rt $S/fs.$prefix
	env "$@" UCG_RUNTIME_DIR=$rt "$UCG" daemon > $S/daemon.$prefix.log 2>&1 & DP=$!
	for i in $(seq 100); do UCG_RUNTIME_DIR=$rt "$UCG" ctl ping >/dev/null 2>&1 && break; sleep 0.05; done
	UCG_RUNTIME_DIR=$rt "$UCG" mount -o none,name=bench$prefix cgroup $S/fs.$prefix || exit 1
	"$B" $S/fs.$prefix $prefix | tee $S/$prefix.out
	URING=$(UCG_RUNTIME_DIR=$rt "$UCG" ctl stats | awk '$1 == "uring_requests" { print $2 }')
	echo "# $prefix: ${URING:-0} requests through io_uring"
	umount $S/fs.$prefix
	kill $DP; wait $DP; DP=
}

# floor PREFIX [VAR=VALUE...]: fuse_floor with that environment; URING as for ours.
floor() {
	local prefix=$1
	shift
	mkdir -p $S/fl.$prefix
	env "$@" "$FL" $S/fl.$prefix 2> $S/floor.$prefix.log & FP=$!
	for i in $(seq 100); do mountpoint -q $S/fl.$prefix && break; sleep 0.05; done
	"$B" $S/fl.$prefix $prefix | tee $S/$prefix.out
	umount $S/fl.$prefix; wait $FP; FP=
	URING=$(awk '$1 == "uring_requests" { print $2 }' $S/floor.$prefix.log)
	echo "# $prefix: ${URING:-0} requests through io_uring"
}

ours fs
[ "${URING:-0}" -gt 0 ] && ours fs_dev UCG_FUSE_URING=0
ours fs_cache UCG_FUSE_CACHE=1
if [ -x "$FL" ]; then
	floor floor UCG_FUSE_URING=0
	if [ -w $P ]; then
		floor floor_uring
		[ "${URING:-0}" -gt 0 ] || rm -f $S/floor_uring.out # it fell back: not a figure
	fi
fi
if mount -t cgroup -o none,name=ucgbench$$ cgroup $S/k 2>/dev/null; then
	"$B" $S/k kernel | tee $S/k.out
	for n in mkdir_ns rmdir_ns rename_ns attach_ns procs_read_ns file_read_ns reread_ns forks_per_s; do
		k=$(awk -v n=kernel.$n '$1==n{print $2}' $S/k.out)
		for p in fs:ratio fs_dev:dev_ratio fs_cache:cache_ratio floor:floor_ratio floor_uring:floor_uring_ratio; do
			f=$(awk -v n=${p%%:*}.$n '$1==n{print $2}' $S/${p%%:*}.out 2>/dev/null)
			[ -n "$f" ] && [ -n "$k" ] && awk -v r=${p#*:} -v n=$n -v f=$f -v k=$k 'BEGIN{printf "%s.%s %.2f x\n", r, n, f/k}'
		done
	done
else
	echo "# kernel cgroup v1 not available: no kernel figures"
fi
