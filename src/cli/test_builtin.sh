#!/usr/bin/env bash
# cli/test_builtin.sh UCG FUSE — the commands a ucg has built in. FUSE is "yes" for a
# build with the filesystem, "no" for -Dfuse=disabled: then each daemon command exits
# 2 saying it is not built in (and prints nothing on stdout), `ucg help` marks them, and
# the commands that need no daemon still run.
set -u
ucg=$1 fuse=$2
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$ucg" help >"$tmp/help" 2>&1 || bad "ucg help exits $?"
if [ "$fuse" = no ]; then
	for cmd in daemon mount umount proc cgroups up down ctl exec shell classify; do
		"$ucg" "$cmd" x "$tmp/m" >"$tmp/out" 2>"$tmp/err"
		st=$?
		[ "$st" -eq 2 ] && ok || bad "ucg $cmd: exit $st, want 2"
		grep -q "^ucg: $cmd: not built in" "$tmp/err" && ok || bad "ucg $cmd: $(cat "$tmp/err")"
		[ ! -s "$tmp/out" ] && ok || bad "ucg $cmd printed on stdout"
		grep -qE "^  $cmd .*\(not built in\)$" "$tmp/help" && ok || bad "help does not mark $cmd"
	done
	[ ! -e "$tmp/m" ] && ok || bad "a daemon command made $tmp/m"
else
	! grep -q "not built in" "$tmp/help" && ok || bad "help marks commands not built in"
fi
for cmd in demo tc sim ls; do
	grep -qE "^  $cmd " "$tmp/help" && ok || bad "help does not list $cmd"
	! grep -qE "^  $cmd .*not built in" "$tmp/help" && ok || bad "help marks $cmd"
done
"$ucg" demo >"$tmp/demo" 2>&1 && ok || bad "ucg demo exits $?"
echo "RESULT passed=$pass failed=$fail skipped=0"
[ "$fail" -eq 0 ]
