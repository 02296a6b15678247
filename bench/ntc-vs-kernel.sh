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
cleanup() {
	[ -f "$tmp/pids" ] && for p in $(cat "$tmp/pids"); do kill "$p" 2>/dev/null || true; done
	ip netns del "$a" 2>/dev/null || true
	ip netns del "$b" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

ip netns add "$a"
ip netns add "$b"
for ns in "$a" "$b"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link set lo up
done
ip -n "$a" link add eth0 type veth peer name eth0 netns "$b"
ip -n "$a" link set eth0 gso_max_segs 1 2>/dev/null || true
ip -n "$a" addr add 10.77.0.1/24 dev eth0
ip -n "$b" addr add 10.77.0.2/24 dev eth0
ip -n "$a" link set eth0 up
ip -n "$b" link set eth0 up
sleep 0.5

cat > "$tmp/send.py" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.77.0.1", 40000 + int(sys.argv[2])))
data = b"x" * 1400
addr = ("10.77.0.2", int(sys.argv[1]))
while True:
    try:
        s.sendto(data, addr)
    except OSError:
        pass
PY

# sent_bytes KIND ID: the Sent counter of class ID (htb) or qdisc ID (tbf)
sent_bytes() {
	tc -n "$a" -s "$1" show dev eth0 | awk -v id="$2" -v kind="$1" '
		$1 == kind && $3 == id { grab = 1; next }
		grab && $1 == "Sent" { print $2; exit }'
}

# run_case NAME "FLOW_SPECS" (tc lines in $tmp/case.tc); FLOW_SPEC = dport/kind/id/want, kind being
# class or qdisc and id as tc prints it (1:10, 1:)
run_case() {
	name=$1
	specs=$2
	tc -n "$a" qdisc del dev eth0 root 2>/dev/null || true
	tc -n "$a" -batch "$tmp/case.tc"
	pids=""
	i=0
	for s in $specs; do
		port=${s%%/*}
		ip netns exec "$a" python3 "$tmp/send.py" "$port" "$i" &
		pids="$pids $!"
		echo "$!" >> "$tmp/pids"
		i=$((i + 1))
	done
	sleep 2
	for s in $specs; do
		set -- $(echo "$s" | tr '/' ' ')
		eval "b0_$1=$(sent_bytes "$2" "$3")"
	done
	t0=$(date +%s.%N)
	sleep "$dur"
	for s in $specs; do
		set -- $(echo "$s" | tr '/' ' ')
		eval "b1_$1=$(sent_bytes "$2" "$3")"
	done
	t1=$(date +%s.%N)
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=""
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

htb_tree() { # CEIL10 RATE10 PRIO10 RATE20 PRIO20
	cat <<EOT
qdisc add dev eth0 root handle 1: htb default 30
class add dev eth0 parent 1: classid 1:1 htb rate 30mbit ceil 30mbit
class add dev eth0 parent 1:1 classid 1:10 htb rate $2 ceil $1 prio $3
class add dev eth0 parent 1:1 classid 1:20 htb rate $4 ceil 30mbit prio $5
class add dev eth0 parent 1:1 classid 1:30 htb rate 1mbit ceil 1mbit
filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 5001 0xffff flowid 1:10
filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 5002 0xffff flowid 1:20
EOT
}

echo "# model vs kernel, layer-2 rates in Mbit/s over ${dur} s (kernel $(uname -r))"
printf 'qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 32kb latency 50ms\n' > "$tmp/case.tc"
run_case tbf-20mbit "5001/qdisc/1:/20"
printf 'qdisc add dev eth0 root handle 1: tbf rate 5mbit burst 10kb latency 20ms peakrate 10mbit mtu 1514\n' > "$tmp/case.tc"
run_case tbf-5mbit-peak "5001/qdisc/1:/5"
htb_tree 30mbit 10mbit 0 20mbit 0 > "$tmp/case.tc"; run_case htb-10+20-both "5001/class/1:10/10 5002/class/1:20/20"
htb_tree 30mbit 10mbit 0 20mbit 0 > "$tmp/case.tc"; run_case htb-10-alone-ceil30 "5001/class/1:10/30"
htb_tree 10mbit 10mbit 0 20mbit 0 > "$tmp/case.tc"; run_case htb-10-alone-ceil10 "5001/class/1:10/10"
htb_tree 30mbit 5mbit 0 15mbit 0 > "$tmp/case.tc"; run_case htb-quantum-5+15 "5001/class/1:10/7.5 5002/class/1:20/22.5"
htb_tree 30mbit 5mbit 0 5mbit 0 > "$tmp/case.tc"; run_case htb-equal-5+5 "5001/class/1:10/15 5002/class/1:20/15"
htb_tree 30mbit 5mbit 0 5mbit 1 > "$tmp/case.tc"; run_case htb-prio-0+1 "5001/class/1:10/25 5002/class/1:20/5"

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
