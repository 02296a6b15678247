#!/bin/sh
# bench/sim-vs-kernel-net.sh — tbf and htb rates at simulator level against the kernel:
# the same configurations run through `ucg sim` (tasks sending flows through the tc
# model of the simulated interface) and through the kernel (a veth pair between two
# network namespaces made here, greedy UDP senders), layer-2 rates side by side.
#
#   bench/sim-vs-kernel-net.sh [BUILD_DIR] [SECONDS]
#
# Classification is u32 on the destination port on both sides (cls_cgroup is missing
# from this kernel); the simulator also runs every htb case a second time with the
# tasks in net_cls cgroups (classid = the flow's class) and a cgroup filter instead of
# u32, the column "sim-cgroup". Kernel senders: one process per flow (C with
# sendmmsg if cc is here, else python3; at nice -5, as a loaded machine starves them)
# sending 1400-byte UDP payloads (1442 bytes at layer 2) as fast as the socket
# buffer lets it; segmentation offload limited to one segment per packet. Simulator senders: one
# task per flow, open-loop at 200 Mbit/s of 1442-byte packets (the excess is dropped
# by the qdisc, the sim has no socket backpressure), interface at 10 Gbit/s like a
# veth that never binds. Rates come from the "Sent" counter of the shaping class
# (htb) or qdisc (tbf): in the kernel read 2 s after the senders start and SECONDS
# later, in the simulator at 2 s and 2 s + SECONDS of virtual time.
# Prints a table (want, kernel, sim, sim-cgroup, sim-kernel difference, "agree"
# when within 5%, "starved" instead of "DISAGREE" when the kernel's queue was seen
# empty at a once-a-second sample: its sender fell behind, the kernel figure is not a
# shaping rate), then kernel.NAME / sim.NAME lines, and the number of disagreements
# (exit 1 if any). Namespaces ucgtest-simnet*-PID are deleted on exit.
set -eu
build=${1:-build}
dur=${2:-8}
here=$(cd "$(dirname "$0")/.." && pwd)
ucg=$here/$build/src/cli/ucg
[ -x "$ucg" ] || ucg=$build/src/cli/ucg
[ -x "$ucg" ] || { echo "ucg not found under $build" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root" >&2; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: needs python3" >&2; exit 77; }
a=ucgtest-simneta-$$
b=ucgtest-simnetb-$$
tmp=$(mktemp -d)
. "$here/bench/netns-lib.sh"
trap 'netns_cleanup "$a" "$b"' EXIT INT TERM

netns_pair "$a" "$b" 10.78.0

# the sender: C with sendmmsg (32 datagrams per call) when a compiler is here, so a
# loaded machine still keeps the qdiscs backlogged; python3 otherwise
cat > "$tmp/send.c" <<'C'
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
int main(int argc, char **argv)
{
	static char data[1400];
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	struct mmsghdr m[32];
	struct iovec iov = { data, sizeof(data) };
	int s = socket(AF_INET, SOCK_DGRAM, 0), i;

	src.sin_port = htons(40000 + atoi(argv[2]));
	inet_pton(AF_INET, "10.78.0.1", &src.sin_addr);
	dst.sin_port = htons(atoi(argv[1]));
	inet_pton(AF_INET, "10.78.0.2", &dst.sin_addr);
	if (s < 0 || bind(s, (struct sockaddr *)&src, sizeof(src)) < 0)
		return 1;
	memset(m, 0, sizeof(m));
	for (i = 0; i < 32; i++) {
		m[i].msg_hdr.msg_name = &dst;
		m[i].msg_hdr.msg_namelen = sizeof(dst);
		m[i].msg_hdr.msg_iov = &iov;
		m[i].msg_hdr.msg_iovlen = 1;
	}
	for (;;)
		sendmmsg(s, m, 32, 0);
}
C
sender="python3 $tmp/send.py"
if command -v cc >/dev/null && cc -O2 -o "$tmp/send" "$tmp/send.c" 2>/dev/null; then
	sender=$tmp/send
fi
py_sender "$tmp/send.py" 10.78.0

# kernel_backlog KIND ID: packets queued in class ID (htb) or qdisc ID (tbf) now; 0
# means the sender did not keep it busy (a starved sender on a loaded machine)
kernel_backlog() {
	tc -n "$a" -s "$1" show dev eth0 | awk -v id="$2" -v kind="$1" '
		$1 == kind && $3 == id { grab = 1; next }
		grab && $1 == "backlog" { sub(/p$/, "", $3); print $3; exit }'
}

# sim_sent FILE KIND ID N: the Sent counter of ID in the N-th "tc -s KIND show" output
sim_sent() {
	awk -v kind="$2" -v id="$3" -v want="$4" '
		/\$ tc -s / { n++; grab = 0; next }
		n == want && $1 == kind && $3 == id { grab = 1; next }
		grab && $1 == "Sent" { print $2; exit }' "$1"
}

# sim_scenario CGROUP SPECS: the case as a scenario (CGROUP 1: net_cls + cgroup filter)
sim_scenario() {
	pkts=$(( (dur + 3) * 17400 ))
	echo "cpus 1"
	echo "iface eth0 rate=10gbit"
	echo "mount -o net_cls net"
	if [ "$1" = 1 ] && [ "$kind" = class ]; then
		grep -v ' u32 ' "$tmp/case.tc" | sed 's/^/tc /'
		echo "tc filter add dev eth0 parent 1: protocol ip prio 10 handle 1: cgroup"
	else
		sed 's/^/tc /' "$tmp/case.tc"
	fi
	i=0
	for s in $2; do
		set -- $(echo "$s" | tr '/' ' ')
		echo "spawn s$i"
		if [ "$CG" = 1 ] && [ "$2" = class ]; then
			echo "mkdir net/c$i"
			printf 'echo 0x%04x%04x > net/c%s/net_cls.classid\n' \
				"0x${3%%:*}" "0x${3#*:}" "$i"
			echo "echo \$s$i > net/c$i/cgroup.procs"
		fi
		echo "flow s$i eth0 pkts=$pkts size=1442 rate=200mbit dport=$1"
		i=$((i + 1))
	done
	echo "run 2s"
	echo "tc -s $kind show dev eth0"
	echo "run ${dur}s"
	echo "tc -s $kind show dev eth0"
}

fails=0
# run_case NAME "SPECS" (tc lines in $tmp/case.tc); SPEC = dport/kind/id/want, kind
# being class or qdisc and id as tc prints it (1:10, 1:)
run_case() {
	name=$1
	specs=$2
	kind=${specs#*/}; kind=${kind%%/*}
	tc -n "$a" qdisc del dev eth0 root 2>/dev/null || true
	tc -n "$a" -batch "$tmp/case.tc"
	for s in $specs; do eval "idle_${s%%/*}=0"; done
	# shellcheck disable=SC2086
	senders_start "$specs" nice -n -5 $sender
	# sample the backlogs each second: an empty queue means the sender fell behind
	n=0
	while [ "$n" -lt "$dur" ]; do
		sleep 1
		for s in $specs; do
			set -- $(echo "$s" | tr '/' ' ')
			[ "$(kernel_backlog "$2" "$3")" = 0 ] && eval "idle_$1=\$((idle_$1 + 1))"
		done
		n=$((n + 1))
	done
	senders_stop "$specs"
	tc -n "$a" qdisc del dev eth0 root 2>/dev/null || true

	for CG in 0 1; do
		sim_scenario "$CG" "$specs" > "$tmp/case$CG.ucg"
		"$ucg" sim "$tmp/case$CG.ucg" > "$tmp/sim$CG.out" 2>&1 ||
			{ echo "ucg sim failed on $name:" >&2; cat "$tmp/sim$CG.out" >&2; exit 2; }
	done
	for s in $specs; do
		set -- $(echo "$s" | tr '/' ' ')
		eval "k0=\$b0_$1; k1=\$b1_$1; idle=\$idle_$1"
		s0=$(sim_sent "$tmp/sim0.out" "$2" "$3" 1)
		s1=$(sim_sent "$tmp/sim0.out" "$2" "$3" 2)
		c0=$(sim_sent "$tmp/sim1.out" "$2" "$3" 1)
		c1=$(sim_sent "$tmp/sim1.out" "$2" "$3" 2)
		line=$(awk -v n="$name" -v p="$1" -v w="$4" -v k0="$k0" -v k1="$k1" -v t0="$t0" \
			-v t1="$t1" -v s0="$s0" -v s1="$s1" -v c0="$c0" -v c1="$c1" -v d="$dur" \
			-v idle="$idle" 'BEGIN {
			k = (k1 - k0) * 8 / (t1 - t0) / 1e6
			s = (s1 - s0) * 8 / d / 1e6
			c = (c1 - c0) * 8 / d / 1e6
			diff = (s - k) / k * 100
			ok = (diff < 5 && diff > -5) ? "agree" : "DISAGREE"
			if (ok != "agree" && idle > 0)
				ok = "starved(" idle "/" d "s queue empty)"
			printf "%-20s flow %-5s want %6.2f  kernel %8.3f  sim %8.3f  sim-cgroup %8.3f  sim-kernel %+6.2f%%  %s\n", n, p, w, k, s, c, diff, ok
			printf "kernel.%s.%s_mbit %.3f Mbit/s\nsim.%s.%s_mbit %.3f Mbit/s\nsim_cgroup.%s.%s_mbit %.3f Mbit/s\n", n, p, k, n, p, s, n, p, c > "/dev/stderr"
		}' 2>>"$tmp/figures")
		echo "$line"
		case $line in *DISAGREE) fails=$((fails + 1)) ;; esac
	done
}

echo "# ucg sim vs kernel, layer-2 rates in Mbit/s over ${dur} s (kernel $(uname -r))"
shaping_cases run_case
cat "$tmp/figures"
echo "disagreements $fails cases"
[ "$fails" = 0 ]
