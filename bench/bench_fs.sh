#!/bin/bash
# bench/bench_fs.sh [UCG [BENCH_FS [FUSE_FLOOR]]] — runs bench_fs on a scratch ucg mount,
# on the trivial FUSE filesystem fuse_floor (the round-trip floor: the same requests
# answered with no work behind them) and on a scratch kernel cgroup v1 hierarchy
# (none,name=), in the same run; prints "name value unit" lines (fs.NAME, floor.NAME,
# kernel.NAME) and the ratios to the kernel: ratio.NAME (ours) and floor_ratio.NAME
# (the best any FUSE filesystem gets here). Cleans up after itself.
UCG=${1:-./build/src/cli/ucg}
B=${2:-./build/bench/bench_fs}
FL=${3:-$(dirname "$B")/fuse_floor}
[ "$(id -u)" = 0 ] && [ -c /dev/fuse ] || { echo "SKIP: needs root and /dev/fuse"; exit 77; }
S=$(mktemp -d /tmp/ucgbench.XXXXXX)
export UCG_RUNTIME_DIR=$S/run
mkdir -p $UCG_RUNTIME_DIR $S/fs $S/k $S/fl
DP=
FP=
cleanup() {
	mountpoint -q $S/fs && umount $S/fs
	mountpoint -q $S/fl && umount $S/fl
	if mountpoint -q $S/k; then
		rmdir $S/k/* 2>/dev/null; umount $S/k
		# removed cgroups are freed asynchronously: the hierarchy may outlive this
		# umount; mount and unmount again until it is gone (core.md §1.5)
		for i in $(seq 20); do
			grep -q ":name=ucgbench$$:" /proc/self/cgroup || break
			sleep 0.5
			mount -t cgroup -o none,name=ucgbench$$ cgroup $S/k 2>/dev/null || break
			umount $S/k
		done
	fi
	[ -n "$DP" ] && { kill $DP; wait $DP; } 2>/dev/null
	[ -n "$FP" ] && { kill $FP; wait $FP; } 2>/dev/null
	rm -rf $S
}
trap cleanup EXIT
"$UCG" daemon > $S/daemon.log 2>&1 & DP=$!
for i in $(seq 100); do "$UCG" ctl ping >/dev/null 2>&1 && break; sleep 0.05; done
"$UCG" mount -o none,name=bench cgroup $S/fs || exit 1
"$B" $S/fs fs | tee $S/fs.out
# the daemon follows every fork on the host: stop it, so that the kernel's fork storm
# below runs at the machine's full rate
umount $S/fs; kill $DP; wait $DP 2>/dev/null; DP=
if [ -x "$FL" ]; then
	"$FL" $S/fl & FP=$!
	for i in $(seq 100); do mountpoint -q $S/fl && break; sleep 0.05; done
	"$B" $S/fl floor | tee $S/floor.out
	umount $S/fl; wait $FP; FP=
fi
if mount -t cgroup -o none,name=ucgbench$$ cgroup $S/k 2>/dev/null; then
	"$B" $S/k kernel | tee $S/k.out
	for n in mkdir_ns rmdir_ns rename_ns attach_ns procs_read_ns file_read_ns reread_ns forks_per_s; do
		k=$(awk -v n=kernel.$n '$1==n{print $2}' $S/k.out)
		for p in fs floor; do
			f=$(awk -v n=$p.$n '$1==n{print $2}' $S/$p.out 2>/dev/null)
			r=ratio; [ $p = floor ] && r=floor_ratio
			[ -n "$f" ] && [ -n "$k" ] && awk -v r=$r -v n=$n -v f=$f -v k=$k 'BEGIN{printf "%s.%s %.2f x\n", r, n, f/k}'
		done
	done
else
	echo "# kernel cgroup v1 not available: no kernel figures"
fi
