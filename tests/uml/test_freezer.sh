#!/bin/bash
# Freezer.state FROZEN, written through ucg's v1 file, stops the cgroup's tasks making
# progress (the kernel's cgroup.freeze on the v2 leaf); a SIGCONT does not run them;
# their parent, outside the cgroup, sees no stop in waitpid(WUNTRACED | WCONTINUED), as
# it would under a SIGSTOP freezer.
. "$(dirname "$0")/lib.sh" "$1" "$2"

# wait_state WANT: up to 5 s for freezer.state to read WANT
wait_state() {
	local s i
	for ((i = 0; i < 100; i++)); do read -r s < $M/f/freezer.state; [ "$s" = "$1" ] && break; nap 0.05; done
	echo "$s"
}

ucg_start || { bad "daemon starts"; uml_done; exit 1; }
M=$(ucg_mnt freezer freezer) || { bad "ucg mount -o freezer"; uml_done; exit 1; }
mkdir $M/f
# The watcher stays in the root; its child, the ticker, goes into f.
ticker_start
echo "$T" > $M/f/cgroup.procs
check "ticker in f" "$(cat $M/f/cgroup.procs)" "$T"
ticking "thawed"
echo FROZEN > $M/f/freezer.state
check "freezer.state" "$(wait_state FROZEN)" "FROZEN"
frozen_checks
echo THAWED > $M/f/freezer.state
check "freezer.state thawed" "$(wait_state THAWED)" "THAWED"
ticking "thawed again"
ticker_kill
uml_done
