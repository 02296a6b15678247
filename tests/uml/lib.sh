# tests/uml/lib.sh — shared by the scripts run inside User-mode Linux (sourced by bash).
#
# Usage: . lib.sh UCG HELPERS; ...checks...; uml_done
# UCG is build/src/cli/ucg, HELPERS the build dir of tests/uml (forker, spinner, hog).
# Inside the instance we are root on a private v2-only kernel, so a missing piece of
# the environment (cgroup2, /dev/fuse, the connector) is a failure, not a skip.
# ucg_start and ucg_mnt keep what they start; an EXIT trap unmounts, stops the daemon
# and kills the processes we started, by pid.

UCG=$1
HELPERS=$2
PASS=0
FAIL=0
SKIP=0
MOUNTS=()
PIDS=()
DAEMON_PID=
export UCG_RUNTIME_DIR=/run/ucg-uml
CG2=/sys/fs/cgroup

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; }
# check NAME GOT WANT
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}
# within NAME GOT LOW HIGH: integers
within() {
	if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1 ($2)"; else bad "$1: $2 not in [$3, $4]"; fi
}

# Forks cost milliseconds here (each UML process is a host process driven by ptrace):
# the waits below fork nothing. nap SECONDS sleeps on a fifo nobody writes.
NAP=/run/ucg-uml.nap
[ -p $NAP ] || mkfifo $NAP
nap() { read -r -t "$1" _ <>$NAP; }
# wait_line FILE PATTERN PID [SECONDS]: until a line of FILE matches PATTERN (a bash
# glob), PID exits, or SECONDS (default 60) pass; 0 when the line came.
wait_line() {
	local f=$1 pat=$2 pid=$3 n=$((${4:-60} * 20)) line
	while [ $n -gt 0 ]; do
		if [ -f "$f" ]; then
			while IFS= read -r line; do
				# shellcheck disable=SC2053
				[[ $line == $pat ]] && return 0
			done < "$f"
		fi
		kill -0 "$pid" 2>/dev/null || break
		nap 0.05
		n=$((n - 1))
	done
	return 1
}

uml_cleanup() {
	local i p
	for p in "${PIDS[@]}"; do { kill -9 "$p"; wait "$p"; } 2>/dev/null; done
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		mountpoint -q "${MOUNTS[i]}" 2>/dev/null && umount -l "${MOUNTS[i]}" 2>/dev/null
	done
	if [ -n "$DAEMON_PID" ]; then
		kill "$DAEMON_PID" 2>/dev/null
		for ((i = 0; i < 50; i++)); do kill -0 "$DAEMON_PID" 2>/dev/null || break; nap 0.1; done
		kill -9 "$DAEMON_PID" 2>/dev/null
	fi
}
trap uml_cleanup EXIT

# ucg_start [ARGS]: the daemon in the background (ARGS to `ucg daemon`); 0 once it
# answers a ping.
ucg_start() {
	local i
	mkdir -p "$UCG_RUNTIME_DIR"
	"$UCG" daemon "$@" >> "$UCG_RUNTIME_DIR/daemon.out" 2>&1 &
	DAEMON_PID=$!
	for ((i = 0; i < 400; i++)); do
		[ -S "$UCG_RUNTIME_DIR/ctl.sock" ] && "$UCG" ctl ping >/dev/null 2>&1 && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || return 1
		nap 0.05
	done
	return 1
}

# ucg_stop: `ucg ctl stop`, then wait for the daemon's exit; 0 when it exited by itself.
ucg_stop() {
	local i
	"$UCG" ctl stop >/dev/null 2>&1
	for ((i = 0; i < 400; i++)); do
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		nap 0.05
	done
	if kill -0 "$DAEMON_PID" 2>/dev/null; then
		return 1
	fi
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
}

# ucg_mnt NAME OPTS: a ucg hierarchy on /tmp/NAME; prints the dir.
ucg_mnt() {
	local d=/tmp/$1
	mkdir -p "$d"
	MOUNTS+=("$d")
	"$UCG" mount -o "$2" cgroup "$d" >&2 || return 1
	echo "$d"
}

spawn() { # spawn CMD...: in the background; its pid in LAST
	"$@" &
	LAST=$!
	PIDS+=("$LAST")
}

# ticker_start: a ticker (spinner tick: a count each 10 ms in /tmp/ticks) started as
# the child of a watcher (forker watch, its log /tmp/watch.log); T the ticker's pid,
# W the watcher's.
ticker_start() {
	spawn "$HELPERS/forker" watch "$HELPERS/spinner" tick /tmp/ticks > /tmp/watch.log
	W=$LAST
	wait_line /tmp/watch.log 'pid *' $W
	wait_line /tmp/ticks '[0-9]*' $W
	T=$(sed -n 's/^pid //p' /tmp/watch.log)
}
ticks() { local t; read -r t < /tmp/ticks; echo "$t"; }
# ticking NAME: the ticker advances in half a second
ticking() {
	local a b
	a=$(ticks); nap 0.5; b=$(ticks)
	within "$1: ticks in 0.5 s" "$((b - a))" 5 1000000
}
# frozen_checks: the ticker, frozen, makes no progress, a SIGCONT does not run it, and
# /proc shows it sleeping, not stopped.
frozen_checks() {
	local a b c
	a=$(ticks); nap 1; b=$(ticks)
	check "frozen: no progress in 1 s" "$((b - a))" "0"
	kill -CONT "$T"
	nap 1; c=$(ticks)
	check "SIGCONT runs nothing" "$((c - b))" "0"
	check "not stopped in /proc" "$(sed -n 's/^State:\t\(.\).*/\1/p' /proc/$T/status)" "S"
}
# ticker_kill: SIGKILL the ticker; the watcher saw no stop, only the kill.
ticker_kill() {
	kill -KILL "$T"
	wait_line /tmp/watch.log 'killed *' $W
	check "the parent saw no stop" "$(grep -v '^pid ' /tmp/watch.log | tr '\n' ' ')" "killed 9 "
}

uml_done() {
	if [ -n "$DAEMON_PID" ]; then
		ucg_stop || bad "daemon did not stop on ucg ctl stop"
	fi
	if grep -q -e 'Sanitizer' -e 'runtime error' "$UCG_RUNTIME_DIR"/daemon.* 2>/dev/null; then
		head -60 "$UCG_RUNTIME_DIR"/daemon.*
		bad "daemon log has a sanitizer report"
	fi
	echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
	[ "$FAIL" = 0 ]
}
