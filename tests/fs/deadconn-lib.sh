# tests/fs/deadconn-lib.sh — a killed daemon that cannot finish dying, made on
# purpose (sourced by tests/fs/fs_deadconn.sh and bench/bench_deadconn.sh, after
# lib.sh): how it happens for real is in src/fs/deadconn.h. Needs holddead beside
# FSOP; keeps every connection it touches in CONNS (CONN:DIR), which abort_conns ends
# while still mounted there (an EXIT trap's job: nothing is left hung whatever happens).
HOLD=$(dirname "$FSOP")/holddead
CONNS=()

# Whatever happens, no hung mount or unkillable process is left behind. CONNS holds
# CONN:DIR pairs: a connection is aborted only while it still serves a mount at its
# directory, since a minor freed by an umount is soon another FUSE mount's (a test
# beside this one, say).
abort_conns() {
	local e c dir ctl=/sys/fs/fuse/connections priv
	[ ${#CONNS[@]} -gt 0 ] || return 0
	if [ "$(stat -f -c %t $ctl 2>/dev/null)" != 65735543 ]; then
		priv=$(mktemp -d /tmp/ucgfusectl.XXXXXX)
		mount -t fusectl fusectl "$priv" 2>/dev/null && ctl=$priv
	fi
	for e in "${CONNS[@]}"; do
		c=${e%%:*}; dir=${e#*:}
		awk -v d="$dir" -v c="0:$c" '$5 == d && $3 == c { f = 1 } END { exit !f }' \
			/proc/self/mountinfo || continue
		[ -e "$ctl/$c/abort" ] && echo 1 > "$ctl/$c/abort" 2>/dev/null
	done
	[ -n "$priv" ] && { umount "$priv" 2>/dev/null; rmdir "$priv"; }
}
conn_of() { awk -v m="$1" '$5 == m { split($3, a, ":"); c = a[2] } END { print c }' /proc/self/mountinfo; }
tid_named() { # tid_named PID NAME: every thread of PID so named
	local t
	for t in /proc/$1/task/*; do
		[ "$(cat $t/comm 2>/dev/null)" = "$2" ] && basename $t
	done
}
guard_of() { # the daemon's guard: its child named ucg-guard
	local p
	for p in /proc/[0-9]*; do
		[ "$(cat $p/comm 2>/dev/null)" = ucg-guard ] &&
			[ "$(awk '{ print $4 }' $p/stat 2>/dev/null)" = "$1" ] && { basename $p; return; }
	done
}
state_of() { sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1; }
# until_state TID STATE [TENTHS]
until_state() {
	local i
	for i in $(seq ${3:-30}); do [ "$(state_of $1)" = "$2" ] && return 0; sleep 0.1; done
	return 1
}

# deadlock DIR1 DIR2: the hierarchy at both; leaves the daemon (DAEMON_PID, kept in
# OLD) with the second mount's notifier (NOTE2) blocked for good, the callers LOOKUP
# and REMOVER waiting. Returns 1 where ptrace cannot stop a thread, 2 if the notifier
# did not block within DEADLOCK_TENTHS tenths of a second (default 30).
deadlock() {
	mkdir $1/X $1/Q
	local c1=$(conn_of $1) c2=$(conn_of $2) serve
	CONNS+=("$c1:$1" "$c2:$2")
	serve=$(tid_named $DAEMON_PID ucgfs/$c2)
	NOTE2=$(tid_named $DAEMON_PID ucgnote/$c2)
	OLD=$DAEMON_PID
	$HOLD stop $serve > $SCRATCH/stopped & # with io_uring, one thread a CPU as well
	TRACER=$!; PIDS+=($TRACER)
	for i in $(seq 50); do grep -q stopped $SCRATCH/stopped && break; sleep 0.1; done
	if ! grep -q stopped $SCRATCH/stopped; then
		echo "SKIP: cannot stop the serving thread of $2 (ptrace)"
		kill $TRACER
		return 1
	fi
	rm -f $SCRATCH/stopped
	# a lookup on the second mount waits, holding its root's lock ...
	stat $2/X >/dev/null 2>&1 &
	LOOKUP=$!; PIDS+=($LOOKUP)
	sleep 0.3
	# ... and an rmdir on the first makes the second's notifier wait for that lock
	# (the entry's removal is told to the second mount's kernel, which locks the root)
	rmdir $1/Q 2>/dev/null &
	REMOVER=$!; PIDS+=($REMOVER)
	if ! until_state $NOTE2 D ${DEADLOCK_TENTHS:-30}; then
		echo "SKIP: the notifier of $2 did not block (state $(state_of $NOTE2))"
		kill $TRACER
		return 2
	fi
}
callers_returned() {
	local p
	for p in $LOOKUP $REMOVER $TRACER; do timeout 5 tail --pid=$p -f /dev/null; done
	check "$1: the blocked callers returned" \
		"$(for p in $LOOKUP $REMOVER $TRACER; do kill -0 $p 2>/dev/null && echo $p; done | grep -c .)" "0"
}

