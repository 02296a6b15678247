#!/bin/bash
# Acknowledged means kept: the daemon is killed (-9) 20 times at random moments during
# bursts of mkdir, control-file writes, attaches, renames, chmods and rmdirs; after
# each restart every operation that had returned success is there (0 lost) and the
# state is the same after a further clean restart. The one operation in flight at a
# kill may have been journaled but not answered: it may be there or not, nothing in
# between. Compactions run during the bursts (a small UCG_JOURNAL_MAX), so some kills
# land in one. On a difference the runtime dir as the kill left it, the daemon's log
# and the operations are kept under /tmp/fs_journal-fail.* (a stress run: JRNL_ROUNDS,
# JRNL_FAST=1 for bursts by tests/fs/jrnlburst.c, hundreds of operations a round, and
# UCG_JOURNAL_MAX from the environment). Then: a torn journal tail (a
# record cut short, a record with a wrong hash and a good one after it) is ignored; a
# symlink planted as the next journal is not written through; --sync fdatasyncs.
. "$(dirname "$0")/lib.sh" "$1" "$2"
export UCG_JOURNAL_MAX=${UCG_JOURNAL_MAX:-4096} # a compaction every ~40 changes
ROUNDS=${JRNL_ROUNDS:-20}
fs_setup

M=$(mnt j none,name=jrnl$$) || { bad "mount"; fs_done; exit 1; }
RUN=$UCG_RUNTIME_DIR
spawn sleep 600; S1=$LAST
spawn sleep 600; S2=$LAST

# burst R LOG: operations under $M/rR, each logged once it returned success, until
# one fails (the daemon is gone). The one under way is in $LOG.pending (began: sets it,
# acked: logs it and clears it); tests/fs/jrnlburst.c does the same, faster.
began() { echo "$1" > $2.pending; }
acked() { echo "$1" >> $2; : > $2.pending; }
burst() {
	local r=$1 log=$2 i=0 d s
	began "d r$r" $log
	mkdir $M/r$r && acked "d r$r" $log || return
	while :; do
		i=$((i + 1))
		d=r$r/c$i
		began "d $d" $log
		mkdir $M/$d || return
		acked "d $d" $log
		began "w $d $((i % 2))" $log
		echo $((i % 2)) > $M/$d/notify_on_release || return
		acked "w $d $((i % 2))" $log
		s=$S1
		[ $((i % 3)) = 0 ] && s=$S2
		began "t $d $s" $log
		echo $s > $M/$d/cgroup.procs || return
		acked "t $d $s" $log
		if [ $((i % 4)) = 0 ]; then
			began "n $d $d.m" $log
			mv $M/$d $M/$d.m || return
			acked "n $d $d.m" $log
			d=$d.m
		fi
		if [ $((i % 5)) = 0 ]; then
			began "c $d 700" $log
			chmod 0700 $M/$d || return
			acked "c $d 700" $log
		fi
		if [ $((i % 7)) = 0 ]; then
			began "d $d/gone" $log
			mkdir $M/$d/gone || return
			acked "d $d/gone" $log
			began "r $d/gone" $log
			rmdir $M/$d/gone || return
			acked "r $d/gone" $log
		fi
	done
}

# The state a log says: one line per directory (mode, notify_on_release), then where
# each sleeper is. awk replays the log as the daemon should have.
expected() {
	awk -v s1=$S1 -v s2=$S2 '
	$1 == "d" { dir[$2] = 1; mode[$2] = 755; p = $2; sub("/[^/]*$", "", p)
		    val[$2] = p != $2 && p in dir ? val[p] : 0 } # notify_on_release is inherited
	$1 == "w" { val[$2] = $3 }
	$1 == "c" { mode[$2] = $3 }
	$1 == "r" { delete dir[$2] }
	$1 == "t" { at[$3] = $2 }
	$1 == "n" { for (k in dir) if (k == $2 || index(k, $2 "/") == 1) {
			nk = $3 substr(k, length($2) + 1)
			dir[nk] = 1; mode[nk] = mode[k]; val[nk] = val[k]; delete dir[k]
		  }
		  for (p in at) if (at[p] == $2) at[p] = $3 }
	END {
		for (k in dir) print "dir /" k " " mode[k] " " val[k]
		print "s1 /" at[s1]; print "s2 /" at[s2]
	}' "$@" | sort
}

# The same from the mount, in a few processes.
actual() {
	{
		find $M -mindepth 1 -type d -printf 'm /%P %m\n'
		find $M -mindepth 2 -name notify_on_release -exec grep -H '' {} + | sed "s|^$M|v |"
	} | awk '$1 == "m" { mode[$2] = $3 }
		$1 == "v" { split($2, a, ":"); sub("/notify_on_release$", "", a[1]); val[a[1]] = a[2] }
		END { for (k in mode) print "dir " k " " mode[k] " " val[k] }'
	echo "s1 $("$UCG" proc $S1 | grep -o ":name=jrnl$$:.*" | cut -d: -f3)"
	echo "s2 $("$UCG" proc $S2 | grep -o ":name=jrnl$$:.*" | cut -d: -f3)"
}

wait_mount() {
	local i
	for i in $(seq 100); do stat $M/cgroup.procs >/dev/null 2>&1 && return 0; sleep 0.05; done
	return 1
}

# journaled_last OP: the last record journaled before the kill (the newest journal
# that has one, as the kill left it in $SCRATCH/pre) is OP's: an operation under way
# may be kept only so, not as an acknowledged one lost (mkdir X lost looks like rmdir
# X kept).
journaled_last() {
	local pat last
	set -- $1
	case $1 in
	d) pat="^d [0-9]+ /$2 755 " ;;
	c) pat="^d [0-9]+ /$2 700 " ;;
	r) pat="^r [0-9]+ /$2 ~" ;;
	w) pat="^w [0-9]+ /$2/notify_on_release " ;;
	t) pat="^t [0-9]+ /$2 $3 " ;;
	n) pat="^n [0-9]+ /$2 /$3 ~" ;;
	esac
	last=$(cd $SCRATCH/pre && ls journal.* | sort -t. -k2 -n | while read -r j; do
		[ -s $j ] && echo $j; done | tail -1)
	[ -n "$last" ] && tail -n 1 $SCRATCH/pre/$last | grep -Eq -- "$pat"
}

LOG=$SCRATCH/ops
: > $LOG
LOST=0
DIFFS=0
KEPT=0
T0=$SECONDS
# Round 1 kills in the window between a change's journal record and its answer, held
# open by strace (the return of the daemon's writev delayed): the caller sees mkdir
# fail, the restart has the directory, and the round must pass.
ST=
if command -v strace >/dev/null; then
	strace -f -qq -p $DAEMON_PID -e trace=writev -e inject=writev:delay_exit=5s \
		-o /dev/null 2>/dev/null &
	ST=$!
	for i in $(seq 50); do
		grep -q 'TracerPid:.[1-9]' /proc/$DAEMON_PID/status && break
		sleep 0.05
	done
	if grep -q 'TracerPid:.[1-9]' /proc/$DAEMON_PID/status; then
		sleep 0.2 # every thread attached
	else # no ptrace here
		kill $ST 2>/dev/null
		wait $ST 2>/dev/null
		ST=
	fi
fi
for r in $(seq $ROUNDS); do
	: > $LOG.pending
	if [ "${JRNL_FAST:-0}" = 1 ]; then
		"$(dirname "$FSOP")/jrnlburst" $M $r $LOG $S1 $S2 2>/dev/null &
	else
		burst $r $LOG 2>/dev/null &
	fi
	B=$!
	if [ $r = 1 ] && [ -n "$ST" ]; then
		# the burst's first change is journaled, its answer held back by strace. Every
		# writev returns 5 s late, the reply to mkdir's LOOKUP of r1 too: the record
		# comes after that one, so the wait is longer than the delay (a 5 s wait lost
		# the race once and killed before the mkdir had begun).
		for i in $(seq 400); do grep -qs ' /r1 ' $RUN/journal.* && break; sleep 0.05; done
		grep -qs ' /r1 ' $RUN/journal.* || echo "# round 1: no record of r1 in 20 s"
		echo "# DEBUG round 1 record after $i waits" >&2
	else
		sleep 0.$((RANDOM % 4))$((RANDOM % 10))
	fi
	kill -9 $DAEMON_PID
	wait $DAEMON_PID 2>/dev/null
	wait $B 2>/dev/null
	[ $r = 1 ] && [ -n "$ST" ] && { wait $ST 2>/dev/null; WINDOW=$(cat $LOG.pending); }
	rm -rf $SCRATCH/pre && cp -a $RUN $SCRATCH/pre # as the kill left it
	start_daemon || { bad "restart $r"; break; }
	wait_mount || { bad "remount $r"; break; }
	WANT=$(expected $LOG)
	GOT=$(actual | sort)
	PENDING=$(cat $LOG.pending)
	if [ "$GOT" != "$WANT" ] && [ -n "$PENDING" ] && journaled_last "$PENDING" &&
		[ "$GOT" = "$(cat $LOG $LOG.pending | expected)" ]; then
		# journaled, then the kill before the answer: kept, as it may be
		echo "# round $r: the operation under way at the kill is kept: $PENDING"
		cat $LOG.pending >> $LOG
		KEPT=$((KEPT + 1))
	elif [ "$GOT" != "$WANT" ]; then
		LOST=$((LOST + $(comm -23 <(echo "$WANT") <(echo "$GOT") | wc -l)))
		DIFFS=$((DIFFS + 1))
		echo "# round $r: wanted, then got (under way at the kill: ${PENDING:-nothing}):"
		diff <(echo "$WANT") <(echo "$GOT") | head -10 | sed 's/^/# /'
		K=/tmp/fs_journal-fail.$$.$r
		mkdir -p $K && cp -a $SCRATCH/pre $K/before && cp -a $RUN $K/after &&
			cp $LOG $LOG.pending $SCRATCH/daemon.log $K/
		echo "# kept in $K; the records of the paths that differ, as the kill left them:"
		diff <(echo "$WANT") <(echo "$GOT") | awk '/^[<>] dir / { print $3 }' | head -3 |
			while read -r p; do
				(cd $K/before && grep -n -- " $p[ ~]" state journal.* | tail -4)
			done | sed 's/^/#   /'
	fi
done
OPS=$(($(wc -l < $LOG) - KEPT))
echo "# $ROUNDS rounds in $((SECONDS - T0)) s; kept under way at the kill: $KEPT"
echo "# $OPS acknowledged operations in $ROUNDS kills, $(grep -c '^d' $LOG) mkdirs"
check "nothing acknowledged lost in $ROUNDS kill -9 ($OPS operations)" "$LOST" "0"
check "state as acknowledged after every restart" "$DIFFS" "0"
if [ -n "$ST" ]; then
	check "round 1: the mkdir under way at the kill failed, and is kept" \
		"$WINDOW, $(head -1 $LOG)" "d r1, d r1"
else
	SKIP=$((SKIP + 1))
	echo "skip a kill in the window held open (no strace, or no ptrace)"
fi
check "compactions ran during the bursts" \
	"$(test "$("$UCG" ctl stats | awk '$1 == "journal_gen" { print $2 }')" -gt $ROUNDS && echo yes)" "yes"

# a clean restart changes nothing
BEFORE=$(actual | sort)
kill $DAEMON_PID; wait $DAEMON_PID
start_daemon || bad "clean restart"
wait_mount || bad "remount after clean stop"
check "clean restart: same state" "$(actual | sort)" "$BEFORE"
# (the mounts made again are served by new FUSE connections: c records, nothing else)
check "clean stop: one snapshot, a journal of the new connections only" \
	"$(cd $RUN && ls journal.* | wc -l) $(cd $RUN && cat journal.* | grep -c '^c ') $(cd $RUN && cat journal.* | grep -vc '^c ')" \
	"1 $(grep -c '^m ' $RUN/state) 0"

# ---- hierarchies: a remount (agent, then a controller bound) and a hierarchy mounted,
# used and unmounted (so destroyed) are kept through kill -9 as acknowledged
R=$(mnt rm none,name=jrm$$) || bad "mount rm"
"$UCG" mount -o remount,none,name=jrm$$,release_agent=/bin/x cgroup $R || bad "remount agent"
"$UCG" mount -o remount,hugetlb,name=jrm$$ cgroup $R || bad "remount hugetlb"
X=$(mnt gone none,name=jgone$$) || bad "mount gone"
mkdir $X/a && rmdir $X/a && "$UCG" umount $X || bad "use and umount gone"
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
start_daemon || bad "restart after remounts"
wait_mount || bad "remount after remounts"
check "remount: agent kept" "$(cat $R/release_agent)" "/bin/x"
check "remount: controller kept" "$(ls $R | grep -q '^hugetlb\.' && echo yes)" "yes"
check "umount: not mounted again" "$("$UCG" ctl mounts | grep -c " $X ")" "0"
check "umount: hierarchy gone" "$("$UCG" proc $S1 | grep -c "name=jgone$$")" "0"
check "remounted hierarchy there" "$("$UCG" proc $S1 | grep -c "hugetlb,name=jrm$$")" "1"
check "the rest as it was" "$(actual | sort)" "$BEFORE"

# ---- a torn tail: a record cut short is ignored, and so is everything after a record
# whose hash is wrong (a good record copied after it is not replayed)
mkdir $M/kept $M/again
rmdir $M/again
J=$(ls $RUN/journal.* | tail -1)
GOOD=$(grep ' /again 755 ' $J | head -1)
check "the journal has mkdir again" "$(test -n "$GOOD" && echo yes)" "yes"
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
printf 'd %s /bad 755 0 0 ~00000000\n%s\n' "$(awk '$1 == "d" { print $2; exit }' $J)" "$GOOD" >> $J
printf 'd 1 /torn 75' >> $J
start_daemon || bad "restart after a torn tail"
wait_mount || bad "remount after a torn tail"
check "torn tail: the change before it kept" "$(test -d $M/kept && echo yes)" "yes"
check "torn tail: the bad record ignored" "$(test -e $M/bad && echo there || echo absent)" "absent"
check "torn tail: the record after it ignored" "$(test -e $M/again && echo there || echo absent)" "absent"
check "torn tail: the cut record ignored" "$(test -e $M/torn && echo there || echo absent)" "absent"
check "torn tail: said in the log" "$(grep -c 'a record cut by a crash: ignored' $SCRATCH/daemon.log)" "1"
check "torn tail: the rest as it was" "$(actual | grep -v ' /kept ' | sort)" "$BEFORE"

# ---- a symlink planted as the next journal is not written through: that compaction
# fails, changes still go to the current journal
GEN=$("$UCG" ctl stats | awk '$1 == "journal_gen" { print $2 }')
ln -s $SCRATCH/victim $RUN/journal.$((GEN + 1))
"$UCG" ctl compact
check "journal symlink: not written through" "$(test -e $SCRATCH/victim && echo written || echo refused)" "refused"
mkdir $M/after-symlink
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
rm $RUN/journal.$((GEN + 1))
start_daemon || bad "restart after the symlink"
wait_mount || bad "remount after the symlink"
check "journal symlink: the change kept" "$(test -d $M/after-symlink && echo yes)" "yes"

# ---- --sync: an fdatasync per change
kill $DAEMON_PID; wait $DAEMON_PID
start_daemon --sync || bad "start --sync"
wait_mount || bad "remount --sync"
check "--sync" "$("$UCG" ctl stats | awk '$1 == "journal_sync" { print $2 }')" "fdatasync"
mkdir $M/synced
kill -9 $DAEMON_PID; wait $DAEMON_PID 2>/dev/null
start_daemon || bad "restart after --sync"
wait_mount || bad "remount after --sync"
check "--sync: the change kept" "$(test -d $M/synced && echo yes)" "yes"
fs_done
