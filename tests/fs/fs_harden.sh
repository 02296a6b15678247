#!/bin/bash
# The daemon's runtime directory and control socket against a hostile neighbour:
# the directory made 0700 and refused when another user owns it, when group or others
# may write to it, or when it is a symlink; the socket bound with its mode already
# 0600 (no chmod after bind); state, state.tmp, the log and the pidfile never written
# or read through a planted symlink; and the socket's peer credentials checked, so a
# user who can reach a socket made 0666 by hand still controls nothing.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
RUN=$UCG_RUNTIME_DIR
USER_ID=64011

# start_in DIR [ARGS]: `ucg daemon --detach` with DIR as the runtime directory; prints
# its stderr's last line and exit status
start_in() {
	local dir=$1
	shift
	local st
	UCG_RUNTIME_DIR=$dir "$UCG" daemon --detach "$@" 2> "$SCRATCH/err"
	st=$?
	echo "$(tail -1 "$SCRATCH/err") (status $st)"
}
stop_in() { UCG_RUNTIME_DIR=$1 "$UCG" ctl stop 2>/dev/null; }
no_daemon_in() {
	! UCG_RUNTIME_DIR=$1 "$UCG" ctl ping > /dev/null 2>&1 && [ ! -e "$1/ctl.sock" ] &&
		echo none
}

# ---- a new directory, under a umask that would leave everything open
D=$SCRATCH/fresh
(umask 000; UCG_RUNTIME_DIR=$D "$UCG" daemon --detach) || bad "start in a fresh dir"
mkdir -p $SCRATCH/hm && echo $SCRATCH/hm >> "$SCRATCH/mounts"
UCG_RUNTIME_DIR=$D "$UCG" mount -o none,name=harden$$ cgroup $SCRATCH/hm || bad "mount in fresh"
mkdir $SCRATCH/hm/x
sleep 0.4 # the state is written within 200 ms of a change
check "runtime dir made 0700" "$(stat -c %a $D)" "700"
check "socket 0600" "$(stat -c '%A' $D/ctl.sock)" "srw-------"
check "state 0600" "$(stat -c %a $D/state)" "600"
check "log 0600" "$(stat -c %a $D/daemon.log)" "600"
stop_in $D || bad "stop fresh"

# ---- the socket is bound under umask 0177 and never chmod'ed (strace shows the calls)
if command -v strace > /dev/null; then
	D2=$SCRATCH/traced
	mkdir -m 0700 $D2
	# strace follows the detached daemon: it ends when the daemon does
	(umask 000; UCG_RUNTIME_DIR=$D2 exec strace -f -qq -o $SCRATCH/trace \
		-e trace=umask,bind,chmod,fchmod,fchmodat "$UCG" daemon --detach) &
	ST=$!
	for i in $(seq 100); do UCG_RUNTIME_DIR=$D2 "$UCG" ctl ping > /dev/null 2>&1 && break; sleep 0.05; done
	stop_in $D2 || bad "stop traced"
	wait $ST
	check "bind under umask 0177" "$(grep -B1 "bind(.*$D2/ctl.sock" $SCRATCH/trace | head -1 | grep -c 'umask(0177)')" "1"
	check "no chmod of the socket" "$(grep -E 'chmod.*ctl\.sock' $SCRATCH/trace | wc -l)" "0"
else
	SKIP=$((SKIP + 1))
	echo "SKIP socket creation order: no strace"
fi

# ---- directories the daemon refuses; it leaves nothing behind
mkdir $SCRATCH/theirs && chown $USER_ID:$USER_ID $SCRATCH/theirs && chmod 700 $SCRATCH/theirs
check "another user's dir" "$(start_in $SCRATCH/theirs)" \
	"ucg: daemon: cannot start: runtime directory $SCRATCH/theirs is owned by uid $USER_ID, not 0: Operation not permitted (status 1)"
check "another user's dir: no daemon" "$(no_daemon_in $SCRATCH/theirs)" "none"
mkdir -m 0777 $SCRATCH/open
check "world-writable dir" "$(start_in $SCRATCH/open)" \
	"ucg: daemon: cannot start: runtime directory $SCRATCH/open is writable by others (mode 0777): Operation not permitted (status 1)"
check "world-writable dir: no daemon" "$(no_daemon_in $SCRATCH/open)" "none"
mkdir -m 1777 $SCRATCH/sticky
check "sticky world-writable dir" "$(start_in $SCRATCH/sticky)" \
	"ucg: daemon: cannot start: runtime directory $SCRATCH/sticky is writable by others (mode 1777): Operation not permitted (status 1)"
mkdir -m 0770 $SCRATCH/group
check "group-writable dir" "$(start_in $SCRATCH/group)" \
	"ucg: daemon: cannot start: runtime directory $SCRATCH/group is writable by its group (mode 0770): Operation not permitted (status 1)"
mkdir -m 0700 $SCRATCH/real && ln -s real $SCRATCH/link
check "symlinked dir" "$(start_in $SCRATCH/link)" \
	"ucg: daemon: cannot start: runtime directory $SCRATCH/link is not a directory: Not a directory (status 1)"
check "symlinked dir: nothing in its target" "$(ls -A $SCRATCH/real)" ""
touch $SCRATCH/file
check "a file" "$(start_in $SCRATCH/file)" \
	"ucg: daemon: cannot start: runtime directory $SCRATCH/file is not a directory: Not a directory (status 1)"

# ---- symlinks planted in the runtime directory are not followed
# state.tmp -> victim: the save is refused, the victim never created
M=$(mnt a none,name=hardena$$) || bad "mount a"
sleep 0.4
ln -s $SCRATCH/victim $RUN/state.tmp
mkdir $M/dirty
sleep 0.6
check "state.tmp symlink: not written through" "$(test -e $SCRATCH/victim && echo written || echo refused)" "refused"
check "state.tmp symlink: left as it was" "$(readlink $RUN/state.tmp)" "$SCRATCH/victim"
rm $RUN/state.tmp
# state -> a crafted file: not read at start
"$UCG" ctl stop || bad "stop"
DAEMON_PID=
mkdir -p $SCRATCH/evil
printf 'h 1 none,name=evil%s\nm 1 cgroup %s\n' $$ $SCRATCH/evil > $SCRATCH/crafted
rm -f $RUN/state && ln -s $SCRATCH/crafted $RUN/state
"$UCG" daemon --detach || bad "start with a symlinked state"
DAEMON_PID=$("$UCG" ctl ping)
check "state symlink: not read" "$(mountpoint -q $SCRATCH/evil && echo mounted || echo ignored)" "ignored"
umount $SCRATCH/evil 2>/dev/null
"$UCG" ctl stop --reset
DAEMON_PID=
rm -f $RUN/state
# daemon.log -> victim: a detached daemon does not start
mv $RUN/daemon.log $SCRATCH/daemon.log.detached
ln -s $SCRATCH/victim2 $RUN/daemon.log
check "log symlink" "$(start_in $RUN)" \
	"ucg: daemon: cannot start: log $RUN/daemon.log: Too many levels of symbolic links (status 1)"
check "log symlink: not written through" "$(test -e $SCRATCH/victim2 && echo written || echo refused)" "refused"
rm $RUN/daemon.log
mv $SCRATCH/daemon.log.detached $RUN/daemon.log
# pidfile.tmp -> victim: refused, the daemon gone again
ln -s $SCRATCH/victim3 $SCRATCH/ucg.pid.tmp
check "pidfile symlink" "$(start_in $RUN --pidfile $SCRATCH/ucg.pid)" \
	"ucg: daemon: cannot start: pidfile $SCRATCH/ucg.pid: Too many levels of symbolic links (status 1)"
check "pidfile symlink: not written through" "$(test -e $SCRATCH/victim3 && echo written || echo refused)" "refused"
check "pidfile symlink: no daemon" "$(no_daemon_in $RUN)" "none"

# ---- peer credentials: root and the daemon's uid only
start_daemon || bad "restart"
chmod 0666 $RUN/ctl.sock # as a careless admin might
as_user() { setpriv --reuid $USER_ID --regid $USER_ID --clear-groups "$@"; }
if command -v setpriv > /dev/null; then
	check "user ping refused" "$(as_user "$UCG" ctl ping 2>&1; echo "status $?")" \
		"ucg: ctl: ping: $RUN/ctl.sock: Permission denied
status 1"
	check "user stop refused" "$(as_user "$UCG" ctl stop 2>&1; echo "status $?")" \
		"ucg: ctl: stop: $RUN/ctl.sock: Permission denied
status 1"
	check "user proc refused" "$(as_user "$UCG" proc 1 2>&1; echo "status $?")" \
		"ucg: proc: 1: Permission denied
status 1"
	check "the daemon still serves root" "$("$UCG" ctl ping)" "$DAEMON_PID"
	chmod 0600 $RUN/ctl.sock
	check "user, socket 0600" "$(as_user "$UCG" ctl ping 2>&1; echo "status $?")" \
		"ucg: ctl: ping: $RUN/ctl.sock: Permission denied
status 1"
else
	SKIP=$((SKIP + 1))
	echo "SKIP peer credentials: no setpriv"
fi
fs_done
