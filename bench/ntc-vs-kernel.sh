#!/bin/sh
# bench/ntc-vs-kernel.sh — shapes real traffic with tbf and htb on a veth pair between
# two network namespaces and compares the measured layer-2 rates with the NTC model's
# for the same configuration.
#
#   bench/ntc-vs-kernel.sh [BUILD_DIR] [SECONDS]
#
# Needs root, iproute2 and python3 (the traffic is greedy UDP: 1400-byte payloads,
# 1442 bytes at layer 2, one sender process per flow, blocked by its socket buffer
# rather than dropping, as in spec section 15). The kernel's rates come from the
# "Sent" byte counters of the shaping class (htb) or qdisc (tbf), read 2 s after the
# senders start and again SECONDS later; the model's from BUILD_DIR/bench/ntc_rates
# over the same span of model time after a 1 s warm-up. Segmentation offload is
# limited to one segment per packet (gso_max_segs 1), so queue entries are packets.
# Prints "case flow kernel model diff" lines, then kernel.NAME / model.NAME figures,
# and which qdiscs and classifiers the running kernel lacks.
# The namespaces are named ucgtest-ntck*-PID and are deleted on exit.
set -eu
build=${1:-build}
dur=${2:-10}
here=$(cd "$(dirname "$0")/.." && pwd)
rates=$here/$build/bench/ntc_rates
[ -x "$rates" ] || rates=$build/bench/ntc_rates
[ -x "$rates" ] || { echo "ntc_rates not found under $build" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root" >&2; exit 77; }
a=ucgtest-ntcka-$$
b=ucgtest-ntckb-$$
tmp=$(mktemp -d)
pids=""
. "$here/bench/netns-lib.sh"
trap 'netns_cleanup "$a" "$b"' EXIT INT TERM

netns_pair "$a" "$b" 10.77.0
py_sender "$tmp/send.py" 10.77.0

# run_case NAME "FLOW_SPECS" (tc lines in $tmp/case.tc); FLOW_SPEC = dport/kind/id/want, kind being
# class or qdisc and id as tc prints it (1:10, 1:)
run_case() {
	name=$1
	specs=$2
	tc -n "$a" qdisc del dev eth0 root 2>/dev/null || true
	tc -n "$a" -batch "$tmp/case.tc"
	senders_start "$specs" python3 "$tmp/send.py"
	sleep "$dur"
	senders_stop "$specs"
	ports=""
	for s in $specs; do ports="$ports ${s%%/*}"; done
	# shellcheck disable=SC2086
	"$rates" "$dur" "$tmp/case.tc" $ports > "$tmp/model.out"
	for s in $specs; do
		set -- $(echo "$s" | tr '/' ' ')
		eval "k0=\$b0_$1; k1=\$b1_$1"
		model=$(awk -v k="model.$1_mbit" '$1 == k { print $2 }' "$tmp/model.out")
		awk -v n="$name" -v p="$1" -v w="$4" -v k0="$k0" -v k1="$k1" -v t0="$t0" -v t1="$t1" -v m="$model" 'BEGIN {
			k = (k1 - k0) * 8 / (t1 - t0) / 1e6
			printf "%-22s flow %-5s want %6.2f  kernel %8.3f  model %8.3f  model-kernel %+6.2f%%\n", n, p, w, k, m, (m - k) / k * 100
			printf "kernel.%s.%s_mbit %.3f Mbit/s\nmodel.%s.%s_mbit %.3f Mbit/s\n", n, p, k, n, p, m > "/dev/stderr"
		}'
	done
	tc -n "$a" qdisc del dev eth0 root 2>/dev/null || true
}

echo "# model vs kernel, layer-2 rates in Mbit/s over ${dur} s (kernel $(uname -r))"
shaping_cases run_case

printf '# this kernel lacks:'
tc -n "$a" qdisc add dev eth0 root handle 1: htb 2>/dev/null || true
for k in prio sfq drr; do
	tc -n "$a" qdisc add dev eth0 parent 1: handle 2: "$k" 2>/dev/null && tc -n "$a" qdisc del dev eth0 parent 1: 2>/dev/null || printf ' qdisc:%s' "$k"
	tc -n "$a" qdisc del dev eth0 root 2>/dev/null || true
	tc -n "$a" qdisc add dev eth0 root handle 1: htb 2>/dev/null || true
done
for k in cgroup fw basic matchall u32; do
	case $k in
	cgroup) args="handle 1: cgroup" ;;
	fw) args="handle 1 fw classid 1:1" ;;
	u32) args="u32 match ip dport 1 0xffff flowid 1:1" ;;
	*) args="$k classid 1:1" ;;
	esac
	# shellcheck disable=SC2086
	tc -n "$a" filter add dev eth0 parent 1: protocol ip prio 9 $args 2>/dev/null || printf ' classifier:%s' "$k"
	tc -n "$a" filter del dev eth0 parent 1: prio 9 2>/dev/null || true
done
echo
