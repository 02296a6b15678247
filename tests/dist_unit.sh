#!/bin/bash
# dist/ucgroups.service is a unit systemd accepts (systemd-analyze verify, which needs
# no systemd as PID 1), with ExecStart pointed at the built ucg, and it says what the
# supervised restart needs. tests/uml/test_systemd.sh runs it under systemd.
UCG=$1 UNIT=$(dirname "$0")/../dist/ucgroups.service
PASS=0 FAIL=0
check() { if [ "$2" = "$3" ]; then PASS=$((PASS + 1)); echo "ok   $1"; else FAIL=$((FAIL + 1)); echo "FAIL $1: got '$2', want '$3'"; fi; }
if ! command -v systemd-analyze >/dev/null; then
	echo "SKIP: no systemd-analyze"
	echo "RESULT passed=0 failed=0 skipped=1"
	exit 77
fi
d=$(mktemp -d /tmp/ucgunit.XXXXXX)
trap 'rm -rf $d' EXIT
sed "s|^ExecStart=/usr/local/bin/ucg |ExecStart=$UCG |" "$UNIT" > $d/ucgroups.service
# systemd before 254 does not know DelegateSubgroup= and says so; nothing else may be said
check "systemd-analyze verify" "$(systemd-analyze verify $d/ucgroups.service 2>&1 |
	grep -v "Unknown key 'DelegateSubgroup' in section \[Service\], ignoring"; echo rc=${PIPESTATUS[0]})" "rc=0"
# systemd 254+ knows every key: its systemd-analyze, where scripts/fetch-systemd-bpo
# has unpacked it (uml-systemd254 runs the unit under it), says nothing at all
bpo=${UCG_SYSTEMD_BPO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ucgroups/systemd-bpo}/root
if [ -x $bpo/usr/bin/systemd-analyze ]; then
	check "systemd-analyze verify under $(cat $bpo/VERSION)" "$(LD_LIBRARY_PATH=$bpo/usr/lib/x86_64-linux-gnu/systemd \
		$bpo/usr/bin/systemd-analyze verify $d/ucgroups.service 2>&1; echo rc=$?)" "rc=0"
fi
key() { sed -n "s/^$1=//p" "$UNIT"; }
check "Type=simple (the daemon stays in the foreground)" "$(key Type)" "simple"
check "ExecStart runs the daemon" "$(key ExecStart)" "/usr/local/bin/ucg daemon"
check "Restart=on-failure (kill -9 is a failure)" "$(key Restart)" "on-failure"
check "RestartSec=100ms (the mounts are dead until it is back)" "$(key RestartSec)" "100ms"
check "Delegate=yes" "$(key Delegate)" "yes"
check "DelegateSubgroup=ucgroups-daemon (host/cgv2.h UCG_V2_DAEMON_LEAF)" "$(key DelegateSubgroup)" \
	"$(sed -n 's/^#define UCG_V2_DAEMON_LEAF "\(.*\)"$/\1/p' "$(dirname "$0")/../src/host/cgv2.h")"
check "KillMode=process (members outlive a restart)" "$(key KillMode)" "process"
echo "RESULT passed=$PASS failed=$FAIL skipped=0"
[ "$FAIL" = 0 ]
