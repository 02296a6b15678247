#!/bin/bash
# Pids.max, written through ucg's v1 file, refuses a fork in the cgroup with EAGAIN (the
# kernel's pids.max on the v2 leaf).
. "$(dirname "$0")/lib.sh" "$1" "$2"

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt pids pids) || { bad "ucg mount -o pids"; uml_done; exit 1; }
mkdir $M/p
echo 3 > $M/p/pids.max
check "pids.max reads back" "$(cat $M/p/pids.max)" "3"
# The forker joins first, then forks: itself and two children make 3.
spawn sh -c "echo \$\$ > $M/p/cgroup.procs && exec $HELPERS/forker hold 5" > /tmp/hold.out
wait_line /tmp/hold.out 'forked *' $LAST
check "third fork refused with EAGAIN" "$(cat /tmp/hold.out)" "forked 2 errno EAGAIN"
check "pids.current" "$(cat $M/p/pids.current)" "3"
check "pids.events counts the refusal" "$(cat $M/p/pids.events)" "max 1"
kill $LAST; wait $LAST 2>/dev/null
for ((i = 0; i < 100; i++)); do read -r n < $M/p/pids.current; [ "$n" = 0 ] && break; nap 0.05; done
check "pids.current after the exits" "$(cat $M/p/pids.current)" "0"
# Raised, the same forker gets all five.
echo max > $M/p/pids.max
spawn sh -c "echo \$\$ > $M/p/cgroup.procs && exec $HELPERS/forker hold 5" > /tmp/hold.out
wait_line /tmp/hold.out 'forked *' $LAST
check "max: every fork succeeds" "$(cat /tmp/hold.out)" "forked 5 errno OK"
kill $LAST; wait $LAST 2>/dev/null
# The controller leaves the subtree while the daemon runs (disabled by hand, bottom
# up): a pids.max write then stays policy, with a log line, never an error or a crash.
for d in $(find $CG2/ucgroups -depth -type d); do echo -pids > $d/cgroup.subtree_control; done 2>/dev/null
check "pids gone from the mirrors" "$([ -e $CG2/ucgroups/p/pids.max ] && echo still || echo gone)" "gone"
err=$({ echo 7 > $M/p/pids.max; } 2>&1)
check "pids.max written all the same" "$err$(cat $M/p/pids.max)" "7"
check "stats say it left" "$("$UCG" ctl stats | grep -c '^enforce_gone pids')" "1"
check "the daemon logged it" "$(grep -c 'pids controller left the subtree' $UCG_RUNTIME_DIR/daemon.out)" "1"
check "the daemon lives" "$("$UCG" ctl ping >/dev/null && echo yes)" "yes"
uml_done
