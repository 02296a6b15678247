#!/bin/sh
# tests/ntc/record-golden.sh — records real tc(8) output for every golden/*.tc file.
#
# Each case file is a list of tc command lines (without the leading "tc"); each line
# runs against a fresh veth named eth0 inside a private network namespace (the peer
# lives in a second namespace, so the first one holds only lo and eth0, like a fresh
# model instance with a veth-like eth0). The output file NAME.out holds, per line:
#   $ LINE
#   stdout of tc, then stderr of tc, then "[exit N]" when N != 0
# test_golden.c replays the same lines through the model and compares byte for byte.
# Needs root and iproute2; removes its namespaces on exit.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ns=ucgtest-ntcg$$
ns2=ucgtest-ntcp$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; ip netns del "$ns2" 2>/dev/null || true; }
trap cleanup EXIT
[ $# -gt 0 ] || set -- "$here"/golden/*.tc
for f in "$@"; do
	[ -f "$f" ] || continue
	ip netns add "$ns"
	ip netns add "$ns2"
	# no IPv6 autoconfiguration traffic in the counters
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	ip -n "$ns" link add eth0 type veth peer name peer0
	ip -n "$ns" link set peer0 netns "$ns2"
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	ip -n "$ns2" link set peer0 up
	out=${f%.tc}.out
	: > "$out"
	# auto handles (8xxx:) come from a system-wide counter: the comparison maps them
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in ''|'#'*) continue ;; esac
		printf '$ %s\n' "$line" >> "$out"
		rc=0
		# shellcheck disable=SC2086
		tc -n "$ns" $line > /tmp/ntcg.out.$$ 2> /tmp/ntcg.err.$$ || rc=$?
		cat /tmp/ntcg.out.$$ /tmp/ntcg.err.$$ >> "$out"
		[ "$rc" -eq 0 ] || printf '[exit %d]\n' "$rc" >> "$out"
	done < "$f"
	rm -f /tmp/ntcg.out.$$ /tmp/ntcg.err.$$
	cleanup
	echo "recorded $out"
done
