#!/bin/bash
# The supervised daemon: systemd (PID 1 in the instance, run-in-uml with
# UCG_UML_PID1) runs dist/ucgroups.service as shipped but for ExecStart's path; a
# hierarchy is mounted, a cgroup made and a process attached; the daemon is killed
# with SIGKILL; systemd must start it again by itself (Restart=on-failure), the mount
# must answer again with the same cgroup and member, the member must have lived
# through it (KillMode=process) and the daemon must sit in its delegated subtree.
# Under systemd 254+ (DelegateSubgroup=, uml-systemd254: run-in-uml with
# UCG_UML_PID1_ROOT) it must also enforce: the daemon in the leaf ucgroups-daemon,
# the controllers on, a v1 pids.max of 2 refusing a fork with EAGAIN before the kill
# and after the restart, the members where they were and counted once.
# Skips with one line when PID 1 is not systemd, or not 254+ with UCG_SYSTEMD_WANT=254.
. "$(dirname "$0")/lib.sh" "$1" "$2"
UNIT=$(cd "$(dirname "$0")/../.." && pwd)/dist/ucgroups.service
if [ "$(cat /proc/1/comm)" != systemd ]; then
	echo "SKIP: PID 1 is $(cat /proc/1/comm), not systemd (run-in-uml without UCG_UML_PID1?)"
	echo "RESULT passed=0 failed=0 skipped=1"
	exit 77
fi
SDV=$(systemctl show -p Version --value 2>/dev/null)
sd254=
[ "${SDV%%[!0-9]*}" -ge 254 ] 2>/dev/null && sd254=1
if [ -n "${UCG_SYSTEMD_WANT:-}" ] && [ -z "$sd254" ]; then
	echo "SKIP: PID 1 is systemd ${SDV:-of no version}, not $UCG_SYSTEMD_WANT+ (its tree not mounted?)"
	echo "RESULT passed=0 failed=0 skipped=1"
	exit 77
fi
echo "  PID 1: systemd $SDV"
export UCG_RUNTIME_DIR=/run/ucgroups # the unit's: no Environment= sets another
ms() { echo $(($(date +%s%N) / 1000000)); }
main_pid() { systemctl show -p MainPID --value ucgroups.service; }
serves() { [ "$(stat -f -c %t "$1" 2>/dev/null)" = 65735546 ]; }
stop_unit() { systemctl stop ucgroups.service 2>/dev/null; rm -f /run/systemd/system/ucgroups.service; }
trap 'stop_unit; uml_cleanup' EXIT

sed "s|^ExecStart=/usr/local/bin/ucg |ExecStart=$UCG |" "$UNIT" > /run/systemd/system/ucgroups.service
check "unit: only ExecStart's path changed" \
	"$(diff "$UNIT" /run/systemd/system/ucgroups.service | grep -c '^[<>]')" "2"
systemctl daemon-reload
t0=$(ms)
systemctl start ucgroups.service
check "unit starts" "$(systemctl is-active ucgroups.service)" "active"
for ((i = 0; i < 400; i++)); do "$UCG" ctl ping >/dev/null 2>&1 && break; nap 0.05; done
P1=$(main_pid)
check "the daemon answers" "$("$UCG" ctl ping 2>&1)" "$P1"
echo "  first start to ping: $(($(ms) - t0)) ms"
check "Delegate=yes" "$(systemctl show -p Delegate --value ucgroups.service)" "yes"
# in the unit's delegated cgroup (its leaf ucgroups-daemon when the daemon could
# enable domain controllers there: docs/enforcement.md)
in_unit() { sed -n 's|^0::/system.slice/ucgroups.service\(/ucgroups-daemon\)\{0,1\}$|yes|p' /proc/$1/cgroup; }
check "the daemon in the unit's delegated cgroup" "$(in_unit $P1)" "yes"
echo "  daemon: $(cat /proc/$P1/cgroup); $(journalctl -u ucgroups.service --no-pager 2>/dev/null | grep -o 'enforce[: ][^(]*' | head -1)"
UNITCG=$CG2/system.slice/ucgroups.service
if [ -n "$sd254" ]; then
	# DelegateSubgroup=: started in the leaf, the subtree beside it, the unit's
	# cgroup empty and enabling the controllers for both
	check "254: the daemon in the leaf" "$(cat /proc/$P1/cgroup)" \
		"0::/system.slice/ucgroups.service/ucgroups-daemon"
	check "254: no process in the unit's own cgroup" "$(cat $UNITCG/cgroup.procs)" ""
	check "254: pids and memory on for the subtree" \
		"$(tr ' ' '\n' < $UNITCG/cgroup.subtree_control | grep -c -x -e pids -e memory)" "2"
	en=$("$UCG" ctl stats | grep -m 1 '^enforce ')
	check "254: enforcement on (ucg ctl stats)" "$(grep -c -w pids <<<"$en")" "1"
	echo "  $en"
fi

M=$(ucg_mnt sd-pids pids) || { bad "ucg mount -o pids"; uml_done; exit 1; }
mkdir $M/a
spawn sleep 600
S=$LAST
echo $S > $M/a/cgroup.procs
check "member attached" "$(cat $M/a/cgroup.procs)" "$S"
if [ -n "$sd254" ]; then
	# a real limit: /b with pids.max 2 holds a forker and one child, the second
	# fork refused by the kernel; the members in the daemon's v2 subtree
	mkdir $M/b
	echo 2 > $M/b/pids.max
	spawn sh -c "echo \$\$ > $M/b/cgroup.procs && exec $HELPERS/forker hold 5" > /tmp/hold1.out
	F1=$LAST
	wait_line /tmp/hold1.out 'forked *' $F1
	check "254: pids.max 2 refuses the second fork" "$(cat /tmp/hold1.out)" "forked 1 errno EAGAIN"
	check "254: the member in the v2 subtree" "$(cat /proc/$S/cgroup)" \
		"0::/system.slice/ucgroups.service/ucgroups/a/.ucg"
	check "254: pids.max written on the mirror" "$(cat $UNITCG/ucgroups/b/pids.max)" "2"
	B1=$(sort -n $M/b/cgroup.procs | paste -s -d ' ')
	check "254: /b holds the forker and its child" "$(wc -w <<<"$B1") $(cat $M/b/pids.current)" "2 2"
	check "254: the forker in the v2 subtree" "$(cat /proc/$F1/cgroup)" \
		"0::/system.slice/ucgroups.service/ucgroups/b/.ucg"
fi

# deadwin (tests/fs) polls the mount with statfs from before the kill until it
# answers again: the dead window, RestartSec and the restart
"$2/../fs/deadwin" 120000 $M > /tmp/deadwin.out &
W=$!
for ((i = 0; i < 200; i++)); do grep -q polling /tmp/deadwin.out && break; nap 0.05; done
kill -9 $P1
wait $W
P2=$(main_pid)
back=$(awk '$1 == "window_ms" && $2 >= 0 { print int($2) }' /tmp/deadwin.out)
dead=$(awk -v m=$M '$1 == m { print int($2) }' /tmp/deadwin.out)
check "systemd started the daemon again by itself" "$([ -n "$back" ] && echo yes)" "yes"
echo "  kill -9 to the mount answering again: ${back:-never} ms (RestartSec and the restart)"
[ -n "$back" ] || journalctl -u ucgroups.service --no-pager 2>&1 | grep -v ': ucg: ' | tail -4 | sed 's/^/  /'
check "mount answered ENOTCONN while no daemon ran" "$([ "${dead:-0}" -gt 0 ] && echo yes)" "yes"
check "no other error meanwhile" "$(awk -v m=$M '$1 == m { print $4, $5 }' /tmp/deadwin.out)" "0 -"
echo "  requests cut by the kill (ECONNABORTED, EIO): $(awk -v m=$M '$1 == m { print $6 }' /tmp/deadwin.out)"
echo "  $(awk -v m=$M '$1 == m { print "ENOTCONN " $2 " ms, bare dir " $3 " ms" }' /tmp/deadwin.out)"
check "NRestarts" "$(systemctl show -p NRestarts --value ucgroups.service)" "1"
check "the new daemon answers" "$("$UCG" ctl ping 2>&1)" "$P2"
check "same cgroup, same member" "$(cat $M/a/cgroup.procs 2>&1)" "$S"
check "the member lived through it" "$(kill -0 $S && echo alive)" "alive"
check "one mount, none stacked" "$(grep -c " $M " /proc/self/mountinfo)" "1"
check "the new daemon in the unit's cgroup too" "$(in_unit $P2)" "yes"
if [ -n "$sd254" ]; then
	check "254: the new daemon in the leaf again" "$(cat /proc/$P2/cgroup)" \
		"0::/system.slice/ucgroups.service/ucgroups-daemon"
	check "254: still enforcing" "$("$UCG" ctl stats | grep -m 1 '^enforce ' | grep -c -w pids)" "1"
	check "254: /b: the same members, counted once" \
		"$(sort -n $M/b/cgroup.procs | paste -s -d ' '), $(cat $M/b/pids.current)" "$B1, 2"
	check "254: the members still in the v2 subtree" "$(cat /proc/$S/cgroup /proc/$F1/cgroup)" \
		"0::/system.slice/ucgroups.service/ucgroups/a/.ucg
0::/system.slice/ucgroups.service/ucgroups/b/.ucg"
	# the limit still bites: the old forker gone, a new one gets one child only
	{ kill $F1; wait $F1; } 2>/dev/null
	for ((i = 0; i < 100; i++)); do read -r n < $M/b/pids.current; [ "$n" = 0 ] && break; nap 0.05; done
	spawn sh -c "echo \$\$ > $M/b/cgroup.procs && exec $HELPERS/forker hold 5" > /tmp/hold2.out
	F2=$LAST
	wait_line /tmp/hold2.out 'forked *' $F2
	check "254: after the restart pids.max 2 still refuses" "$(cat /tmp/hold2.out)" \
		"forked 1 errno EAGAIN"
	{ kill $F2; wait $F2; } 2>/dev/null
	for ((i = 0; i < 100; i++)); do read -r n < $M/b/pids.current; [ "$n" = 0 ] && break; nap 0.05; done
	rmdir $M/b
fi

# A kill -9 the daemon cannot finish dying from (src/fs/guard.h): the hierarchy
# mounted twice, the second mount's serving thread stopped (ptrace), a lookup through
# it holding its root's lock and an rmdir through the first blocking the second's
# notifier in D. The guard aborts the connections, the daemon exits, and systemd
# restarts it by itself.
M2=$(ucg_mnt sd-pids2 pids) || bad "the same hierarchy mounted twice"
FSOP=$2/../fs/fsop SCRATCH=/tmp DAEMON_PID=$P2 DEADLOCK_TENTHS=50
. "$(dirname "$0")/../fs/deadconn-lib.sh"
deadlock $M $M2
case $? in
1)
	echo "  SKIP the guard round: cannot stop a thread with ptrace here"
	SKIP=$((SKIP + 1))
	;;
2)
	bad "guard round: the notifier blocked"
	;;
*)
	ok "guard round: the notifier blocked"
	t0=$(ms)
	kill -9 $P2
	for ((i = 0; i < 600; i++)); do
		P3=$(main_pid)
		[ "$P3" != 0 ] && [ "$P3" != "$P2" ] && "$UCG" ctl ping >/dev/null 2>&1 && break
		nap 0.05
	done
	echo "  kill -9 of a daemon that cannot finish dying to a new one answering: $(($(ms) - t0)) ms"
	check "guard round: systemd restarted the daemon by itself" \
		"$(systemctl show -p NRestarts --value ucgroups.service) $([ -n "$P3" ] && [ "$P3" != "$P2" ] && echo new)" "2 new"
	check "guard round: the old daemon is gone" "$(test -d /proc/$P2 && echo there || echo gone)" "gone"
	check "guard round: the guard said so" \
		"$(journalctl -u ucgroups.service --no-pager 2>/dev/null | grep -c "guard: daemon $P2 was killed and did not finish dying: aborted 2 of its 2")" "1"
	for ((i = 0; i < 100; i++)); do grep -q " $M2 " /proc/self/mountinfo && serves $M2 && break; nap 0.05; done
	check "guard round: both mounts served, the member kept" \
		"$(cat $M/a/cgroup.procs 2>&1) $(cat $M2/a/cgroup.procs 2>&1)" "$S $S"
	callers_returned "guard round"
	;;
esac
umount $M2
rmdir $M/X $M/Q 2>/dev/null
{ kill -9 $S; wait $S; } 2>/dev/null
rmdir $M/a
umount $M
systemctl stop ucgroups.service
check "a clean stop is not restarted" "$(systemctl is-active ucgroups.service)" "inactive"
uml_done
