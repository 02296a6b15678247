#!/bin/bash
# Acknowledged means kept: the daemon is killed (-9) 20 times at random moments during
# bursts of mkdir, control-file writes, attaches, renames, chmods and rmdirs; after
# each restart every operation that had returned success is there (0 lost) and the
# state is the same after a further clean restart. Compactions run during the bursts
# (a small UCG_JOURNAL_MAX), so some kills land in one. Then: a torn journal tail (a
# record cut short, a record with a wrong hash and a good one after it) is ignored; a
# symlink planted as the next journal is not written through; --sync fdatasyncs.
. "$(dirname "$0")/lib.sh" "$1" "$2"
export UCG_JOURNAL_MAX=4096 # a compaction every ~40 changes
fs_setup

M=$(mnt j none,name=jrnl$$) || { bad "mount"; fs_done; exit 1; }
RUN=$UCG_RUNTIME_DIR
spawn sleep 600; S1=$LAST
spawn sleep 600; S2=$LAST

# burst R LOG: operations under $M/rR, each logged once it returned success, until
# one fails (the daemon is gone).
burst() {
	local r=$1 log=$2 i=0 d s
	mkdir $M/r$r && echo "d r$r" >> $log || return
	while :; do
		i=$((i + 1))
		d=r$r/c$i
		mkdir $M/$d || return
		echo "d $d" >> $log
		echo $((i % 2)) > $M/$d/notify_on_release || return
		echo "w $d $((i % 2))" >> $log
		s=$S1
		[ $((i % 3)) = 0 ] && s=$S2
		echo $s > $M/$d/cgroup.procs || return
		echo "t $d $s" >> $log
		if [ $((i % 4)) = 0 ]; then
			mv $M/$d $M/$d.m || return
			echo "n $d $d.m" >> $log
			d=$d.m
		fi
		if [ $((i % 5)) = 0 ]; then
			chmod 0700 $M/$d || return
			echo "c $d 700" >> $log
		fi
		if [ $((i % 7)) = 0 ]; then
			mkdir $M/$d/gone || return
			echo "d $d/gone" >> $log
			rmdir $M/$d/gone || return
			echo "r $d/gone" >> $log
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

LOG=$SCRATCH/ops
: > $LOG
LOST=0
DIFFS=0
T0=$SECONDS
for r in $(seq 20); do
	burst $r $LOG 2>/dev/null &
	B=$!
	sleep 0.$((RANDOM % 4))$((RANDOM % 10))
	kill -9 $DAEMON_PID
	wait $DAEMON_PID 2>/dev/null
	wait $B 2>/dev/null
	start_daemon || { bad "restart $r"; break; }
	wait_mount || { bad "remount $r"; break; }
	WANT=$(expected $LOG)
	GOT=$(actual | sort)
	if [ "$GOT" != "$WANT" ]; then
		LOST=$((LOST + $(comm -23 <(echo "$WANT") <(echo "$GOT") | wc -l)))
		DIFFS=$((DIFFS + 1))
		echo "# round $r: wanted, then got:"
		diff <(echo "$WANT") <(echo "$GOT") | head -10 | sed 's/^/# /'
	fi
done
OPS=$(wc -l < $LOG)
echo "# 20 rounds in $((SECONDS - T0)) s"
echo "# $OPS acknowledged operations in 20 kills, $(grep -c '^d' $LOG) mkdirs"
check "nothing acknowledged lost in 20 kill -9 ($OPS operations)" "$LOST" "0"
check "state as acknowledged after every restart" "$DIFFS" "0"
check "compactions ran during the bursts" \
	"$(test "$("$UCG" ctl stats | awk '$1 == "journal_gen" { print $2 }')" -gt 20 && echo yes)" "yes"

# a clean restart changes nothing
BEFORE=$(actual | sort)
kill $DAEMON_PID; wait $DAEMON_PID
start_daemon || bad "clean restart"
wait_mount || bad "remount after clean stop"
check "clean restart: same state" "$(actual | sort)" "$BEFORE"
check "clean stop: one snapshot, an empty journal" \
	"$(cd $RUN && wc -c journal.* | awk '{ print $1 }' | paste -sd' ')" "0"

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
