#!/bin/bash
# Fork storms on every core inside cgroups of two hierarchies: membership must be
# exact in both, with no process lost, misplaced or left over, also when the
# connector drops events; and a burst of short-lived processes leaves nothing.
. "$(dirname "$0")/lib.sh" "$1" "$2"
FORKSTORM=$(dirname "$2")/forkstorm
fs_setup

M=$(mnt a none,name=storm) || { bad "mount"; fs_done; exit 1; }
M2=$(mnt b none,name=storm2) || { bad "mount 2"; fs_done; exit 1; }
mkdir $M/s $M2/s2
NC=$(nproc)
# One storm checks both hierarchies: the children of a process in s (h1) and s2 (h2)
# land in both, and leave both the moment they are reaped.
OUT=$($FORKSTORM $M/s $NC 1000 $M2/s2 2>&1); RC=$?
echo "# storm: $OUT"
check "storm exact in two hierarchies" "$RC" "0"

# short-lived processes: a burst of fork+exec+exit; none may stay listed once
# reaped (no settling time: an exit is known before the parent can reap it)
bash -c 'echo $$ > '$M'/s/cgroup.procs; for i in $(seq 1000); do /bin/true & done; wait
	mapfile -t L < '$M'/s/tasks; echo "${L[*]}" > '$SCRATCH'/left' # no fork: only bash
check "burst leaves nothing" "$(cat $SCRATCH/left | wc -w)" "1"
check "daemon counted no leftover" "$($UCG ctl stats | grep -c forks)" "1"
$UCG ctl stats | tr '\n' ' ' | sed 's/^/# /'; echo

# a reused pid is not its predecessor: every task alive on the host before and after
# the listing is listed, and every listed task is alive at one of the two looks. Tasks
# of the host's own that live only between the looks are listed rightly but seen by
# neither: under heavy churn look again (a dead task kept by mistake stays listed).
for try in 1 2 3 4 5; do
	ls /proc/[0-9]*/task 2>/dev/null | grep -x '[0-9][0-9]*' | sort > $SCRATCH/h1
	sort $M/tasks > $SCRATCH/e
	ls /proc/[0-9]*/task 2>/dev/null | grep -x '[0-9][0-9]*' | sort > $SCRATCH/h2
	MISSING=$(comm -12 $SCRATCH/h1 $SCRATCH/h2 | comm -23 - $SCRATCH/e | wc -l)
	STALE=$(sort -u $SCRATCH/h1 $SCRATCH/h2 | comm -13 - $SCRATCH/e | wc -l)
	echo "# engine $(wc -l < $SCRATCH/e) host $(wc -l < $SCRATCH/h2) missing $MISSING stale $STALE"
	[ "$MISSING" = 0 ] && [ "$STALE" -le 3 ] && break
done
check "every live task listed in the root" "$MISSING" "0"
check "no dead task listed (within 3)" "$([ $STALE -le 3 ] && echo yes)" "yes"

# events lost: a daemon with a tiny connector buffer drops events (ENOBUFS) and must
# resynchronise from /proc; membership must still be exact. (This once failed one run
# in three under the sanitizers: forks read after ENOBUFS by parents whose own fork
# was lost went to the roots, and a resync trusted them; see ucg_host_resync.)
kill $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
UCG_HOST_RCVBUF=4096 start_daemon || bad "daemon with a tiny buffer"
for i in $(seq 100); do mountpoint -q $M && mountpoint -q $M2 && break; sleep 0.02; done
OUT=$($FORKSTORM $M/s $NC 1000 $M2/s2 2>&1); RC=$?
echo "# lossy: $OUT"
check "storm exact after lost events" "$RC" "0"
R=$($UCG ctl stats | awk '$1=="resyncs"{print $2}')
check "events were lost and resynchronised" "$([ "${R:-0}" -gt 0 ] && echo yes)" "yes"
echo "# resyncs $R"
fs_done
