# tests/fs/lib.sh — shared setup for the filesystem tests (sourced by bash).
#
# Usage: . lib.sh UCG FSOP; fs_setup; ...checks...; fs_done
# fs_setup makes a unique scratch dir and runtime dir, starts a daemon whose pid we
# keep, and an EXIT trap unmounts everything we mounted, stops that daemon (by its
# pid), kills the processes we started (by pid) and removes the directories.

UCG=$1
FSOP=$2
PASS=0
FAIL=0
SKIP=0
MOUNTS=()
KMOUNTS=()
PIDS=()
DAEMON_PID=
SCRATCH=

ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; }
# check NAME GOT WANT
check() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', want '$3'"; fi
}
skip_all() {
	echo "SKIP: $1"
	echo "RESULT passed=0 failed=0 skipped=1"
	exit 77
}

fs_cleanup() {
	local m p i
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		m=${MOUNTS[i]}
		mountpoint -q "$m" 2>/dev/null && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; }
	done
	# mounts made inside $(...) are listed in files, not in the arrays
	[ -f "$SCRATCH/kmounts" ] && while read -r m; do KMOUNTS+=("$m"); done < "$SCRATCH/kmounts"
	[ -f "$SCRATCH/mounts" ] && while read -r m; do MOUNTS+=("$m"); done < "$SCRATCH/mounts"
	for ((i = ${#KMOUNTS[@]} - 1; i >= 0; i--)); do
		kernel_release "${KMOUNTS[i]}"
	done
	for p in "${PIDS[@]}"; do { kill -9 "$p"; wait "$p"; } 2>/dev/null; done
	if [ -n "$DAEMON_PID" ]; then
		kill "$DAEMON_PID" 2>/dev/null
		for i in $(seq 50); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$DAEMON_PID" 2>/dev/null
	fi
	# mounts left by a daemon we killed
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		# stale mounts may be stacked: take every one
		for p in $(seq 10); do
			grep -q " ${MOUNTS[i]} " /proc/self/mountinfo || break
			umount -l "${MOUNTS[i]}" 2>/dev/null || break
		done
	done
	[ -n "$SCRATCH" ] && rm -rf "$SCRATCH" 2>/dev/null
	v2_release
}

# Each test's daemon enforces, where the host's cgroup2 has a controller to delegate,
# in a scratch subtree of its own: the default (ucgroups beside the daemon's cgroup)
# would be shared by tests running side by side, each daemon's restart scan taking
# the others' processes. A test that names its own UCG_V2_ROOT keeps it.
v2_scratch() {
	[ -n "${UCG_V2_ROOT:-}" ] && return
	UCG_V2_ROOT=ucgtest-$(basename "$0" .sh)-$$
	V2_SCRATCH=$UCG_V2_ROOT
	export UCG_V2_ROOT
}
v2_release() {
	local mnt d
	[ -n "${V2_SCRATCH:-}" ] || return 0
	mnt=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	[ -n "$mnt" ] && [ -d "$mnt/$V2_SCRATCH" ] || return 0
	for d in $(find "$mnt/$V2_SCRATCH" -depth -type d 2>/dev/null); do rmdir "$d" 2>/dev/null; done
}

# A scratch kernel hierarchy: remove its cgroups and unmount it. A hierarchy whose
# removed children the kernel has not freed yet outlives its last umount (docs/kernel/core.md
# §1.5); mount and unmount it again until it is gone.
kernel_release() {
	local m=$1 name i
	mountpoint -q "$m" 2>/dev/null || return 0
	name=$(awk -v m="$m" '$5 == m {print $NF}' /proc/self/mountinfo | tr ',' '\n' | sed -n 's/^name=//p')
	find "$m" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
	umount "$m" 2>/dev/null || umount -l "$m"
	[ -n "$name" ] || return 0
	for i in $(seq 20); do
		grep -q ":name=$name:" /proc/self/cgroup || return 0
		sleep 0.5
		mount -t cgroup -o "none,name=$name" cgroup "$m" 2>/dev/null || return 0
		umount "$m"
	done
}

fs_setup() {
	[ "$(id -u)" = 0 ] || skip_all "needs root (FUSE allow_other, process connector)"
	[ -c /dev/fuse ] || skip_all "no /dev/fuse"
	[ -x "$UCG" ] || skip_all "no ucg binary"
	SCRATCH=$(mktemp -d /tmp/ucgfs.XXXXXX)
	chmod 755 "$SCRATCH" # the throwaway user must reach the mounts
	v2_scratch
	export UCG_RUNTIME_DIR=$SCRATCH/run
	mkdir -p "$UCG_RUNTIME_DIR"
	trap fs_cleanup EXIT
	start_daemon || skip_all "daemon does not start (FUSE unusable here?)"
}

# start_daemon [ARGS]: ARGS go to `ucg daemon`
start_daemon() {
	local i
	"$UCG" daemon "$@" >>"$SCRATCH/daemon.log" 2>&1 &
	DAEMON_PID=$!
	for i in $(seq 100); do
		[ -S "$UCG_RUNTIME_DIR/ctl.sock" ] && "$UCG" ctl ping >/dev/null 2>&1 && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# mnt NAME OPTS: mounts a hierarchy on a new dir under SCRATCH, prints the dir
mnt() {
	local d=$SCRATCH/$1
	mkdir -p "$d"
	echo "$d" >> "$SCRATCH/mounts"
	"$UCG" mount -o "$2" cgroup "$d" || return 1
	echo "$d"
}

# kmnt NAME OPTS: a scratch kernel cgroup v1 hierarchy (for errno comparisons)
kmnt() {
	local d=$SCRATCH/k$1
	mkdir -p "$d"
	mount -t cgroup -o "$2" cgroup "$d" 2>/dev/null || return 1
	echo "$d" >> "$SCRATCH/kmounts"
	echo "$d"
}

spawn() { # spawn CMD...: runs it in the background, remembers its pid in LAST
	"$@" &
	LAST=$!
	PIDS+=("$LAST")
}

fs_done() {
	local i
	# stop the daemon cleanly and look at what it said (sanitizer reports land there)
	if [ -n "$DAEMON_PID" ]; then
		kill "$DAEMON_PID" 2>/dev/null
		for i in $(seq 100); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
		wait "$DAEMON_PID" 2>/dev/null
		DAEMON_PID=
	fi
	if grep -q -e 'Sanitizer' -e 'runtime error' "$SCRATCH/daemon.log" "$UCG_RUNTIME_DIR/daemon.log" 2>/dev/null; then
		cat "$SCRATCH/daemon.log" "$UCG_RUNTIME_DIR/daemon.log" 2>/dev/null | head -60
		bad "daemon log has a sanitizer report"
	else
		ok "daemon log clean"
	fi
	# A failure in CI is seen only through the lines tests/run picks out (FAIL,
	# SKIP): the daemon's last words go with it, as FAIL lines that count nothing
	if [ "$FAIL" != 0 ]; then
		for i in "$UCG_RUNTIME_DIR/daemon.log" "$SCRATCH/daemon.log"; do
			[ -s "$i" ] && tail -n 8 "$i" | sed "s|^|FAIL   (${i#$SCRATCH/}) |"
		done
	fi
	echo "RESULT passed=$PASS failed=$FAIL skipped=$SKIP"
	[ "$FAIL" = 0 ]
}
