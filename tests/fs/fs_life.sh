#!/bin/bash
# The daemon's life, as a script drives it: `ucg daemon --detach` returns once the
# daemon answers (or fails saying why), --pidfile, the daemon's cwd and stdin,
# `ucg ctl ping`'s answer, `ucg ctl stop` returning after the exit and the unmounts,
# `--reset` forgetting the saved state, a dead daemon replaced with a word, `ucg proc`
# on pids that name no process, and the last line of every error ending with strerror.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup

# every strerror text, to check the last line of an error against
python3 -c 'import os; [print(os.strerror(i)) for i in range(1, 134)]' > "$SCRATCH/errnos" 2>/dev/null ||
	perl -e 'for (1..133) { $! = $_; print "$!\n" }' > "$SCRATCH/errnos"
# errline NAME WANT_STATUS CMD...: runs CMD; its status must be WANT_STATUS and its last
# line on stderr must end with ": <strerror text>"
errline() {
	local name=$1 want=$2 st last
	shift 2
	"$@" > /dev/null 2> "$SCRATCH/err"
	st=$?
	last=$(tail -1 "$SCRATCH/err")
	check "$name: status" "$st" "$want"
	if grep -qxF -f "$SCRATCH/errnos" <<< "${last##*: }" && [ "${last#ucg: }" != "$last" ]; then
		ok "$name: last line ends with strerror"
	else
		bad "$name: last line '$last'"
	fi
}

# alive PID: running, not a zombie waiting for whoever reaps it
alive() {
	[ -r /proc/$1/stat ] && [ "$(sed 's/.*) //' /proc/$1/stat | cut -d' ' -f1)" != Z ]
}

# ---- the test's own foreground daemon (lib.sh) works from / with stdin on /dev/null
check "foreground: cwd" "$(readlink /proc/$DAEMON_PID/cwd)" "/"
check "foreground: stdin" "$(readlink /proc/$DAEMON_PID/fd/0)" "/dev/null"
check "ping prints the pid, one line" "$("$UCG" ctl ping)" "$DAEMON_PID"
M=$(mnt a none,name=life$$) || bad "mount"
T0=$(date +%s%N)
"$UCG" ctl stop; st=$?
T1=$(date +%s%N)
check "stop: status" "$st" "0"
check "stop returns after the exit" "$(alive $DAEMON_PID && echo running || echo exited)" "exited"
check "stop returns after the unmount" "$(grep -c " $M " /proc/self/mountinfo)" "0"
echo "# ctl stop with one mount: $(((T1 - T0) / 1000000)) ms"
wait $DAEMON_PID 2>/dev/null
DAEMON_PID=
errline "ctl stop, no daemon" 1 "$UCG" ctl stop
errline "ctl ping, no daemon" 1 "$UCG" ctl ping
errline "cgroups, no daemon" 1 "$UCG" cgroups
errline "detach, pidfile in a missing dir" 1 "$UCG" daemon --detach --pidfile $SCRATCH/nodir/pid
check "detach, pidfile in a missing dir: why" "$(tail -1 "$SCRATCH/err")" \
	"ucg: daemon: cannot start: pidfile $SCRATCH/nodir/pid: No such file or directory"
check "detach, pidfile in a missing dir: no daemon left" "$("$UCG" ctl ping 2>/dev/null)" ""

# ---- --detach: returns once the daemon answers; --pidfile
PIDF=$SCRATCH/ucg.pid
"$UCG" daemon --detach --pidfile "$PIDF"; st=$?
P=$("$UCG" ctl ping)     # no retry: it answers at once
DAEMON_PID=$P
check "detach: status" "$st" "0"
check "detach: answers at once" "$([ -n "$P" ] && echo yes)" "yes"
check "pidfile holds the pid" "$(cat "$PIDF")" "$P"
check "detach: own session" "$([ "$(ps -o sid= -p $P)" != "$(ps -o sid= -p $$)" ] && echo yes)" "yes"
check "detach: not our child" "$([ "$(ps -o ppid= -p $P | tr -d ' ')" != "$$" ] && echo yes)" "yes"
check "detach: cwd" "$(readlink /proc/$P/cwd)" "/"
check "detach: stdin" "$(readlink /proc/$P/fd/0)" "/dev/null"
check "detach: log" "$(readlink /proc/$P/fd/2)" "$UCG_RUNTIME_DIR/daemon.log"
check "detach: no terminal" "$(ps -o tty= -p $P | tr -d ' ')" "?"
errline "detach while one runs" 1 "$UCG" daemon --detach
check "detach while one runs: why" "$(tail -1 "$SCRATCH/err")" \
	"ucg: daemon: cannot start: control socket $UCG_RUNTIME_DIR/ctl.sock: a daemon answers there: Address already in use"
check "the running daemon kept its pidfile" "$(cat "$PIDF")" "$P"

# ---- state kept by a stop, forgotten by stop --reset
M=$(mnt b none,name=life$$) || bad "mount b"
mkdir $M/kept
"$UCG" ctl stop || bad "stop"
check "pidfile removed at exit" "$(test -e "$PIDF" && echo present || echo gone)" "gone"
check "stop keeps the state" "$(grep -c "^m .* $M [0-9]*\$" "$UCG_RUNTIME_DIR/state")" "1"
"$UCG" daemon --detach || bad "restart"
DAEMON_PID=$("$UCG" ctl ping)
check "restored mount" "$(test -d $M/kept && echo yes)" "yes"
"$UCG" ctl stop --reset; st=$?
check "stop --reset: status" "$st" "0"
check "stop --reset: unmounted" "$(grep -c " $M " /proc/self/mountinfo)" "0"
check "stop --reset: state gone" "$(test -e "$UCG_RUNTIME_DIR/state" && echo present || echo gone)" "gone"
"$UCG" daemon --detach || bad "start after reset"
DAEMON_PID=$("$UCG" ctl ping)
check "nothing mounted after reset" "$("$UCG" ctl mounts)" ""
check "no hierarchy kept after reset" "$("$UCG" cgroups | awk 'NR > 1 && $2 != 0' | wc -l)" "0"

# ---- down --reset: the layout under ROOT unmounted, the daemon stopped, state gone
R=$SCRATCH/root
mkdir -p $R/x
M=$(mnt root/x none,name=lifed$$) || bad "mount under root"
"$UCG" down --reset $R; st=$?
check "down --reset: status" "$st" "0"
check "down --reset: unmounted" "$(grep -c " $R/x " /proc/self/mountinfo)" "0"
check "down --reset: daemon gone" "$(alive $DAEMON_PID && echo running || echo gone)" "gone"
check "down --reset: state gone" "$(test -e "$UCG_RUNTIME_DIR/state" && echo present || echo gone)" "gone"
DAEMON_PID=
check "down --reset with no daemon" "$("$UCG" down --reset $SCRATCH/nothing 2>&1; echo $?)" "0"

# ---- a dead daemon: `ucg mount` says so and starts a new one, which logs it
M=$(mnt c none,name=lifec$$) || bad "mount c"
DAEMON_PID=$("$UCG" ctl ping)
sleep 0.4 # the state file is written within 200 ms of a change
kill -9 $DAEMON_PID
for i in $(seq 50); do kill -0 $DAEMON_PID 2>/dev/null || break; sleep 0.02; done
M2=$SCRATCH/c2; mkdir -p $M2; echo $M2 >> "$SCRATCH/mounts"
OUT=$("$UCG" mount -o none,name=lifec2$$ cgroup $M2 2>&1); st=$?
NEW=$("$UCG" ctl ping)
DAEMON_PID=$NEW
check "mount after a death: status" "$st" "0"
check "mount after a death: says so" "$OUT" \
	"ucg: mount: the daemon had died (nothing answered on $UCG_RUNTIME_DIR/ctl.sock); started a new one, pid $NEW, which restores its state"
check "the new daemon logs it" "$(grep -c 'did not stop cleanly' "$UCG_RUNTIME_DIR/daemon.log")" "1"
check "the old mount is back" "$(stat -c %F $M 2>&1)" "directory"

# ---- umount while the daemon is stopped (or wedged): umount asks nothing of the
# mount (a call that did would wait in the kernel past every signal but SIGKILL, as
# long as the daemon does not answer); when the daemon does not answer in
# UCG_CTL_WAIT_MS, the kernel detaches the mount, and the daemon, let go on,
# forgets it, as after umount(8), and mounts there again
on_top() { awk -v d="$1" '$5 == d' /proc/self/mountinfo | wc -l; }
W=$(mnt w none,name=lifew$$) || bad "mount w"
DAEMON_PID=$("$UCG" ctl ping)
kill -STOP $DAEMON_PID
# a ping and a mount say it does not answer, and start no second daemon
PING=$(UCG_CTL_WAIT_MS=500 timeout -s KILL 60 "$UCG" ctl ping 2>&1); st=$?
check "ping, daemon stopped" "$st $PING" \
	"1 ucg: ctl: ping: $UCG_RUNTIME_DIR/ctl.sock: Connection timed out"
mkdir -p $SCRATCH/w2
OUT=$(UCG_CTL_WAIT_MS=500 timeout -s KILL 60 "$UCG" mount -o none,name=lifew2$$ cgroup $SCRATCH/w2 2>&1)
st=$?
check "mount, daemon stopped" "$st $OUT" \
	"32 ucg: mount: the daemon on $UCG_RUNTIME_DIR/ctl.sock does not answer: Connection timed out
ucg: mount: $SCRATCH/w2: Connection timed out"
check "mount, daemon stopped: no second daemon" "$(on_top $SCRATCH/w2)" "0"
# the queries say so too, in the wait, and print nothing else
for q in "ctl stats" "ctl mounts" "cgroups" "proc $$" "mount"; do
	T0=$(date +%s%N)
	OUT=$(UCG_CTL_WAIT_MS=500 timeout -s KILL 60 "$UCG" $q 2>&1); st=$?
	T1=$(date +%s%N)
	code=1; [ "$q" = mount ] && code=32
	what=${q/$$/PID}
	check "$what, daemon stopped" "$st $OUT" \
		"$code ucg: ${q%% *}: the daemon on $UCG_RUNTIME_DIR/ctl.sock does not answer: Connection timed out"
	check "$what, daemon stopped: within the wait" \
		"$([ $(((T1 - T0) / 1000000)) -lt 10000 ] && echo yes)" "yes"
done
T0=$(date +%s%N)
# (by a relative path: resolved by its parent, as an absolute one)
(cd $SCRATCH && UCG_CTL_WAIT_MS=1000 exec timeout -s KILL 60 "$UCG" umount w) 2> "$SCRATCH/werr"
st=$?
T1=$(date +%s%N)
kill -CONT $DAEMON_PID
check "umount, daemon stopped: status" "$st" "0"
check "umount, daemon stopped: detached" "$(on_top $W)" "0"
check "umount, daemon stopped: says so" "$(cat "$SCRATCH/werr")" \
	"ucg: umount: w: the daemon did not answer in 1000 ms: detached"
check "umount, daemon stopped: within the wait" "$([ $(((T1 - T0) / 1000000)) -lt 10000 ] && echo yes)" "yes"
for i in $(seq 50); do "$UCG" mount | grep -q " $W " || break; sleep 0.1; done
check "the daemon, let go on, forgot it" "$("$UCG" mount | grep -c " $W ")" "0"
check "and mounts there again" "$("$UCG" mount -o none,name=lifew$$ cgroup $W && stat -c %F $W)" "directory"
check "and unmounts it" "$("$UCG" umount $W && on_top $W)" "0"
# a symlink to the mount point names the mount, as umount(8) resolves it
ln -s $W $SCRATCH/wlink
"$UCG" mount -o none,name=lifew$$ cgroup $W || bad "mount w again"
check "umount through a symlink" "$("$UCG" umount $SCRATCH/wlink && on_top $W)" "0"
# a relative path, and one through a symlinked parent: resolved by the parent
"$UCG" mount -o none,name=lifew$$ cgroup $W || bad "mount w again"
check "umount by a relative path" "$(cd $SCRATCH && "$UCG" umount w && on_top $W)" "0"
"$UCG" mount -o none,name=lifew$$ cgroup $W || bad "mount w again"
ln -s $SCRATCH $SCRATCH/plink
check "umount through a symlinked parent" "$("$UCG" umount $SCRATCH/plink/w/ && on_top $W)" "0"

# ---- ucg proc: pids that name no process, as /proc answers them
spawn true; wait $LAST
for p in 0 -1 abc 12x 99999999999 $LAST; do
	check "proc $p" "$("$UCG" proc $p 2>&1; echo "status $?")" "ucg: proc: $p: No such process
status 1"
done
check "proc PID TID, bad TID" "$("$UCG" proc $$ x 2>&1; echo "status $?")" "ucg: proc: x: No such process
status 1"
check "proc of a live pid" "$("$UCG" proc $$ > /dev/null; echo $?)" "0"

# ---- errors: the last line ends with the errno's text
mkdir -p $SCRATCH/e
errline "mount bogus option" 32 "$UCG" mount -o bogus cgroup $SCRATCH/e
errline "mount missing dir" 32 "$UCG" mount -o none,name=q cgroup $SCRATCH/nodir
errline "umount not ours" 32 "$UCG" umount $SCRATCH
errline "proc 0" 1 "$UCG" proc 0
errline "proc exited" 1 "$UCG" proc $LAST
errline "ls missing" 1 "$UCG" ls $SCRATCH/nodir
errline "down missing root" 1 "$UCG" down $SCRATCH/nodir
errline "up on the kernel's cgroupfs" 2 "$UCG" up /sys/fs/cgroup/x
errline "sim missing scenario" 2 "$UCG" sim $SCRATCH/nodir/scenario
fs_done
