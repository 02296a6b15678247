#!/bin/bash
# bench/bench_journal.sh [UCG [JOURNAL_PAIRS]] — what saving the daemon's state costs
# (fs/journal.c), on a scratch runtime directory and a name= mount under /tmp; prints
# "name value unit" lines:
#   journal.bytes_per_change.{1k,20k}   journal bytes a mkdir or an rmdir appends,
#                                       with 1,000 and 20,000 cgroups in the tree
#   journal.bytes_per_change_amortized.* the same with the snapshots' bytes shared out
#                                       (a snapshot per journal_max bytes of journal)
#   snapshot.bytes.*                    one snapshot; the old daemon wrote one per change
#                                       (at most one per 200 ms)
#   pair.{p50,p99,p999,max}.20k         a mkdir+rmdir pair, 20,000 cgroups, no compaction
#   pair_compacting.*.20k               the same while compactions run back to back
#                                       (UCG_JOURNAL_MAX=16 KiB: one every ~270 pairs,
#                                       the next as soon as a child is done)
#   compact.{fork_last,lock_max}.20k    the fork and the longest lock hold of a compaction
#                                       (what a request may wait)
#   compact.{serialize,write}.20k       the child's work, out of the lock
#   append.us, append_sync.us           one append, without and with --sync (fdatasync)
#   pair_sync.p50.20k                   a pair with --sync
# Cleans up after itself.
UCG=${1:-./build/src/cli/ucg}
PAIRS=${2:-$(dirname "$UCG")/../../bench/journal_pairs}
[ "$(id -u)" = 0 ] && [ -c /dev/fuse ] || { echo "SKIP: needs root and /dev/fuse"; exit 77; }
[ -x "$UCG" ] && [ -x "$PAIRS" ] || { echo "SKIP: no $UCG or $PAIRS"; exit 77; }
S=$(mktemp -d /tmp/ucgjbench.XXXXXX)
export UCG_RUNTIME_DIR=$S/run
M=$S/m
DP=
mkdir -p $UCG_RUNTIME_DIR $M
stop() {
	[ -n "$DP" ] || return 0
	kill $DP 2>/dev/null
	wait $DP 2>/dev/null
	DP=
}
cleanup() {
	stop
	mountpoint -q $M && umount -l $M
	rm -rf $S
}
trap cleanup EXIT
start() { # start [ENV=V...]: a daemon ($SYNC: --sync), the mount restored if it had one
	local i
	env "$@" "$UCG" daemon ${SYNC:+--sync} >>$S/log 2>&1 &
	DP=$!
	for i in $(seq 600); do "$UCG" ctl ping >/dev/null 2>&1 && break; sleep 0.05; done
	[ -e $UCG_RUNTIME_DIR/state ] && grep -q '^m ' $UCG_RUNTIME_DIR/state || return 0
	for i in $(seq 600); do [ -e $M/cgroup.procs ] && return 0; sleep 0.05; done
	[ -e $M/cgroup.procs ]
}
stat_of() { "$UCG" ctl stats | awk -v k=$1 '$1 == k { print $2 }'; }
# grow N: the tree to N cgroups, in groups of 100 (gNNN/cNNN)
grow() {
	local g
	for ((g = $(ls -d $M/g* 2>/dev/null | wc -l); g * 100 < $1; g++)); do
		mkdir $(printf "$M/g%03d " $g) && mkdir $(printf "$M/g%03d/c%03d " $(for c in $(seq 0 99); do echo $g $c; done)) || exit 1
	done
}
# per_change LABEL: journal bytes of 500 pairs (1,000 changes)
per_change() {
	local b0 b1 snap max
	b0=$(stat_of journal_append_bytes)
	"$PAIRS" $M/g000 500 bc >/dev/null || exit 1
	b1=$(stat_of journal_append_bytes)
	"$UCG" ctl compact
	snap=$(stat_of snapshot_bytes)
	max=$(stat_of journal_max)
	awk -v a=$b0 -v b=$b1 -v s=$snap -v m=$max -v l=$1 'BEGIN {
		pc = (b - a) / 1000
		printf "journal.bytes_per_change.%s %.1f B\n", l, pc
		printf "journal.bytes_per_change_amortized.%s %.1f B\n", l, pc * (1 + s / m)
		printf "snapshot.bytes.%s %d B\n", l, s
	}'
}
# pairs NAME LABEL N: p50, p99, p999, max of N pairs
pairs() {
	"$PAIRS" $M/g001 $3 $1 | awk -v n=$1 -v l=$2 '{
		printf "%s.p50.%s %s us\n%s.p99.%s %s us\n%s.p999.%s %s us\n%s.max.%s %s us\n",
			n, l, $1, n, l, $2, n, l, $3, n, l, $4 }'
}

echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
start || { echo "FAIL: daemon"; exit 1; }
"$UCG" mount -o none,name=jbench$$ cgroup $M || exit 1
grow 1000
per_change 1k
grow 20000
per_change 20k
pairs pair 20k 3000
stop

# compactions back to back: a 16 KiB bound, reached every ~70 pairs
start UCG_JOURNAL_MAX=16384 || { echo "FAIL: restart"; exit 1; }
g0=$(stat_of journal_gen)
pairs pair_compacting 20k 20000
echo "compactions_during_run.20k $(($(stat_of journal_gen) - g0)) count"
"$UCG" ctl stats | awk '
	$1 == "compact_fork_us" { printf "compact.fork_last.20k %.2f ms\n", $2 / 1000 }
	$1 == "compact_lock_us_max" { printf "compact.lock_max.20k %.2f ms\n", $2 / 1000 }
	$1 == "compact_serialize_us" { printf "compact.serialize.20k %.1f ms\n", $2 / 1000 }
	$1 == "compact_write_us" { printf "compact.write.20k %.1f ms\n", $2 / 1000 }
	$1 == "journal_appends" { n = $2 } $1 == "journal_append_ns" { ns = $2 }
	END { printf "append.us %.2f us\n", ns / n / 1000 }'
stop

# --sync: an fdatasync per append
SYNC=1 start || { echo "FAIL: restart --sync"; exit 1; }
a0=$(stat_of journal_appends)
n0=$(stat_of journal_append_ns)
"$PAIRS" $M/g001 300 sy | awk '{ printf "pair_sync.p50.20k %s us\npair_sync.p99.20k %s us\n", $1, $2 }'
awk -v a=$(($(stat_of journal_appends) - a0)) -v ns=$(($(stat_of journal_append_ns) - n0)) \
	'BEGIN { printf "append_sync.us %.1f us\n", ns / a / 1000 }'
