#!/bin/bash
# Clients that hold the filesystem do not stall the others: a reader stopped (SIGSTOP)
# halfway through cgroup.procs, and a process holding 5,000 open files of the mount,
# while another process makes cgroups, attaches a process, reads cgroup.procs and
# removes the cgroups; each of those operations must finish within 1 s more than
# twice the slowest of the same operations run alone first (the machine's own delays:
# load, sanitizers). The daemon serves one request per thread at a time: a request
# that waited for a client would hold every other caller of that thread for as long
# as the client stays stopped. The same runs on a scratch kernel hierarchy for
# comparison; the maxima are printed.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup
BOUND_US=1000000 # more than the operations alone took (below)
ROUNDS=20
NFDS=5000

# microseconds, without a fork (a fork on a loaded machine is itself a delay)
now_us() { NOW=${EPOCHREALTIME/./}; }

# holders DIR: the stopped reader and the fd holder on DIR's hierarchy; sets READER
# and HOLDER, or fails
holders() {
	local dir=$1 i
	mkdir "$dir/held" || return 1
	spawn sleep 1000
	echo "$LAST" > "$dir/held/cgroup.procs" || return 1
	spawn sleep 1000
	echo "$LAST" > "$dir/held/cgroup.procs" || return 1
	# reads 3 bytes of the file (one read(2) each), stops itself with the file open
	# halfway; once continued, reads the rest and writes the whole of it to $2
	rm -f "$SCRATCH/reader.out"
	spawn bash -c 'exec 3< "$1/held/cgroup.procs" || exit 1
		x=$(dd bs=1 count=3 status=none <&3)
		kill -STOP $BASHPID
		printf "%s%s\n" "$x" "$(cat <&3)" > "$2.tmp" && mv "$2.tmp" "$2"
		exec sleep 1000' reader "$dir" "$SCRATCH/reader.out"
	READER=$LAST
	for i in $(seq 100); do
		[ "$(awk '{print $3}' /proc/$READER/stat 2>/dev/null)" = T ] && break
		sleep 0.05
	done
	[ "$(awk '{print $3}' /proc/$READER/stat)" = T ] || return 1
	# 5,000 files held open (ulimit raised in that shell only): every cgroup file of
	# the hierarchy's root and of held, again and again
	rm -f "$SCRATCH/holder.ready"
	spawn bash -c 'ulimit -n $(($2 + 64)) || exit 1
		files=("$1"/cgroup.procs "$1"/tasks "$1"/held/cgroup.procs "$1"/held/tasks
		       "$1"/notify_on_release "$1"/held/notify_on_release)
		for ((i = 0; i < $2; i++)); do
			exec {fd}< "${files[i % ${#files[@]}]}" || exit 1
		done
		echo "$(ls /proc/$BASHPID/fd | wc -l)" > "$3"
		exec sleep 1000' holder "$dir" "$NFDS" "$SCRATCH/holder.ready"
	HOLDER=$LAST
	for i in $(seq 600); do
		[ -s "$SCRATCH/holder.ready" ] && break
		kill -0 "$HOLDER" 2>/dev/null || return 1
		sleep 0.05
	done
	[ -s "$SCRATCH/holder.ready" ]
}

# timed_ops DIR: ROUNDS of mkdir, attach, read cgroup.procs, move back, rmdir; sets
# MAX (us, the slowest single operation) and ERRS. Not in $(...): the process it
# spawns would hold the substitution's pipe open.
timed_ops() {
	local dir=$1 i t0 pid op lines
	MAX=0
	ERRS=0
	spawn sleep 1000
	pid=$LAST
	for ((i = 0; i < ROUNDS; i++)); do
		for op in mkdir attach read back rmdir; do
			now_us
			t0=$NOW
			case $op in
			mkdir) mkdir "$dir/s$i" ;;
			attach) echo "$pid" > "$dir/s$i/cgroup.procs" ;;
			read) mapfile -t lines < "$dir/s$i/cgroup.procs" && [ "${lines[*]}" = "$pid" ] ;;
			back) echo "$pid" > "$dir/cgroup.procs" ;;
			rmdir) rmdir "$dir/s$i" ;;
			esac || ERRS=$((ERRS + 1))
			now_us
			((NOW - t0 > MAX)) && MAX=$((NOW - t0))
		done
	done
}

M=$(mnt stall "none,name=ucgstall$$") || bad "mount"
timed_ops "$M" # alone first: the machine's own delays, for comparison
echo "ucg: slowest of $((ROUNDS * 5)) operations alone: $((MAX / 1000)) ms"
check "ucg: every operation succeeds alone" "$ERRS" 0
BOUND_US=$((BOUND_US + 2 * MAX))
if holders "$M"; then
	ok "ucg: a reader stopped mid-read, $(cat "$SCRATCH/holder.ready") fds held open"
	timed_ops "$M"
	echo "ucg: slowest of $((ROUNDS * 5)) operations beside them: $((MAX / 1000)) ms"
	check "ucg: every operation succeeds" "$ERRS" 0
	check "ucg: every operation within $((BOUND_US / 1000)) ms" "$((MAX < BOUND_US))" 1
	check "ucg: the stopped reader is still stopped" \
		"$(awk '{print $3}' /proc/$READER/stat)" T
	check "ucg: the holder still holds its files" \
		"$(($(ls /proc/$HOLDER/fd | wc -l) >= NFDS))" 1
	# the stopped reader resumes and reads the rest of the file after all that
	kill -CONT "$READER"
	for i in $(seq 100); do [ -s "$SCRATCH/reader.out" ] && break; sleep 0.05; done
	check "ucg: the stopped reader's read, resumed, is whole" \
		"$(sort "$SCRATCH/reader.out" | tr '\n' ' ')" \
		"$(sort "$M/held/cgroup.procs" | tr '\n' ' ')"
else
	bad "ucg: set up the stopped reader and the fd holder"
fi
for p in "${PIDS[@]}"; do { kill -9 "$p"; wait "$p"; } 2>/dev/null; done
PIDS=()

if K=$(kmnt stall "none,name=ucgkstall$$"); then
	if holders "$K"; then
		timed_ops "$K"
		echo "kernel: slowest of $((ROUNDS * 5)) operations beside the same holders: $((MAX / 1000)) ms"
		check "kernel: every operation succeeds" "$ERRS" 0
		check "kernel: every operation within $((BOUND_US / 1000)) ms" "$((MAX < BOUND_US))" 1
	else
		bad "kernel: set up the stopped reader and the fd holder"
	fi
	for p in "${PIDS[@]}"; do { kill -9 "$p"; wait "$p"; } 2>/dev/null; done
	PIDS=()
else
	SKIP=$((SKIP + 1))
	echo "SKIP kernel comparison: no scratch cgroup v1 hierarchy here"
fi
fs_done
