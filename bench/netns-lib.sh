# bench/netns-lib.sh — sourced by bench/ntc-vs-kernel.sh and bench/sim-vs-kernel-net.sh:
# the veth pair between two network namespaces they shape traffic on, the Sent counter
# they read, the greedy UDP sender in python, and the tbf/htb cases both compare.
# Expects $tmp (a scratch directory) to be set; senders' pids go to $tmp/pids.

# netns_pair A B NET: namespaces A and B (IPv6 off, lo up) joined by a veth pair named
# eth0 on both sides, A at NET.1/24 and B at NET.2/24; segmentation offload limited to
# one segment per packet, so queue entries are packets.
netns_pair() {
	ip netns add "$1"
	ip netns add "$2"
	for ns in "$1" "$2"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		ip -n "$ns" link set lo up
	done
	ip -n "$1" link add eth0 type veth peer name eth0 netns "$2"
	ip -n "$1" link set eth0 gso_max_segs 1 2>/dev/null || true
	ip -n "$1" addr add "$3.1/24" dev eth0
	ip -n "$2" addr add "$3.2/24" dev eth0
	ip -n "$1" link set eth0 up
	ip -n "$2" link set eth0 up
	sleep 0.5
}

# netns_cleanup A B: ends the senders, deletes both namespaces and $tmp.
netns_cleanup() {
	[ -f "$tmp/pids" ] && for p in $(cat "$tmp/pids"); do kill "$p" 2>/dev/null || true; done
	ip netns del "$1" 2>/dev/null || true
	ip netns del "$2" 2>/dev/null || true
	rm -rf "$tmp"
}

# py_sender FILE NET: writes the python sender (args: DPORT N) of 1400-byte UDP
# payloads from NET.1:40000+N to NET.2:DPORT, as fast as the socket buffer lets it.
py_sender() {
	cat > "$1" <<PY
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("$2.1", 40000 + int(sys.argv[2])))
data = b"x" * 1400
addr = ("$2.2", int(sys.argv[1]))
while True:
    try:
        s.sendto(data, addr)
    except OSError:
        pass
PY
}

# tc_sent NS KIND ID: the Sent counter of class ID (htb) or qdisc ID (tbf) on eth0
tc_sent() {
	tc -n "$1" -s "$2" show dev eth0 | awk -v id="$3" -v kind="$2" '
		$1 == kind && $3 == id { grab = 1; next }
		grab && $1 == "Sent" { print $2; exit }'
}

# sent_into VAR "SPECS": each flow's Sent counter (SPEC = dport/kind/id/want) into
# VAR_DPORT
sent_into() {
	local var=$1 s port kind id
	for s in $2; do
		IFS=/ read -r port kind id _ <<< "$s"
		eval "${var}_$port=$(tc_sent "$a" "$kind" "$id")"
	done
}

# senders_start "SPECS" CMD...: one sender per flow in namespace $a, run as
# CMD DPORT N (pids in $pids and $tmp/pids); after 2 s of warm-up, the Sent counters
# into b0_DPORT and the time into t0
senders_start() {
	local specs=$1 s i=0
	shift
	pids=""
	for s in $specs; do
		ip netns exec "$a" "$@" "${s%%/*}" "$i" &
		pids="$pids $!"
		echo "$!" >> "$tmp/pids"
		i=$((i + 1))
	done
	sleep 2
	sent_into b0 "$specs"
	t0=$(date +%s.%N)
}

# senders_stop "SPECS": the Sent counters into b1_DPORT, the time into t1, then the
# senders ended
senders_stop() {
	local p
	sent_into b1 "$1"
	t1=$(date +%s.%N)
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	pids=""
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

# shaping_cases RUN: for each case, writes its tc lines to $tmp/case.tc and calls
# RUN NAME "SPECS", SPEC = dport/kind/id/want (kind class or qdisc, id as tc prints it)
shaping_cases() {
	printf 'qdisc add dev eth0 root handle 1: tbf rate 20mbit burst 32kb latency 50ms\n' > "$tmp/case.tc"
	"$1" tbf-20mbit "5001/qdisc/1:/20"
	printf 'qdisc add dev eth0 root handle 1: tbf rate 5mbit burst 10kb latency 20ms peakrate 10mbit mtu 1514\n' > "$tmp/case.tc"
	"$1" tbf-5mbit-peak "5001/qdisc/1:/5"
	htb_tree 30mbit 10mbit 0 20mbit 0 > "$tmp/case.tc"; "$1" htb-10+20-both "5001/class/1:10/10 5002/class/1:20/20"
	htb_tree 30mbit 10mbit 0 20mbit 0 > "$tmp/case.tc"; "$1" htb-10-alone-ceil30 "5001/class/1:10/30"
	htb_tree 10mbit 10mbit 0 20mbit 0 > "$tmp/case.tc"; "$1" htb-10-alone-ceil10 "5001/class/1:10/10"
	htb_tree 30mbit 5mbit 0 15mbit 0 > "$tmp/case.tc"; "$1" htb-quantum-5+15 "5001/class/1:10/7.5 5002/class/1:20/22.5"
	htb_tree 30mbit 5mbit 0 5mbit 0 > "$tmp/case.tc"; "$1" htb-equal-5+5 "5001/class/1:10/15 5002/class/1:20/15"
	htb_tree 30mbit 5mbit 0 5mbit 1 > "$tmp/case.tc"; "$1" htb-prio-0+1 "5001/class/1:10/25 5002/class/1:20/5"
}
