# tests/fs/matrix.sh — one sequence of operations run on a cgroup mount, printing one
# "label result" line each. fs_kernel.sh runs it on the kernel's cgroupfs and on ours
# and compares the lines; fs_perm.sh checks ours against the expected answers.
# Usage (sourced): run_matrix MNT FSOP SCRATCH  (root, with setpriv)
run_matrix() {
	local M=$1 F=$2 S=$3 U="setpriv --reuid=64011 --regid=64011 --clear-groups"
	local pids=() R1 R2 U1 E1

	r() { echo "$1 $2"; }
	mkdir "$M/d" "$M/o"
	chown 64011:64011 "$M/d" "$M/d/cgroup.procs" "$M/d/tasks" "$M/d/notify_on_release"
	sleep 300 & R1=$!; pids+=($R1)
	$U sleep 300 & U1=$!; pids+=($U1)
	setpriv --euid=64011 sleep 300 & E1=$!; pids+=($E1)
	sleep 0.3
	r user-open-root-procs "$($U $F open $M/o/cgroup.procs w)"
	r user-write-root-procs "$($U $F write $M/o/cgroup.procs $U1)"
	r user-move-own-into-delegated "$($U $F write $M/d/cgroup.procs $U1)"
	r user-move-root-into-delegated "$($U $F write $M/d/cgroup.procs $R1)"
	r user-move-euid-suid-match "$($U $F write $M/d/cgroup.procs $E1)"
	r user-move-pid1 "$($U $F write $M/d/cgroup.procs 1)"
	r user-mkdir-below "$($U $F mkdir $M/d/sub)"
	r user-sub-owner "$(stat -c '%u:%g %a' $M/d/sub $M/d/sub/tasks $M/d/sub/notify_on_release | paste -sd' ')"
	r user-rename-in-delegated "$($U $F rename $M/d/sub $M/d/sub2)"
	r user-rmdir-own "$($U $F rmdir $M/d/sub2)"
	r user-mkdir-beside "$($U $F mkdir $M/x)"
	r user-rename-delegated "$($U $F rename $M/d $M/d2)"
	r user-rmdir-delegated "$($U $F rmdir $M/d)"
	r user-move-back-to-root-owned "$($U $F write $M/o/cgroup.procs $U1)"
	chmod 0666 "$M/o/cgroup.procs"
	r user-move-into-0666 "$($U $F write $M/o/cgroup.procs $U1)"
	chown 64011 "$M/release_agent" 2>/dev/null
	r user-release-agent "$($U $F write $M/release_agent /bin/true)"
	chown 0 "$M/release_agent" 2>/dev/null
	r user-notify-owned "$($U $F write $M/d/notify_on_release 1)"
	r user-notify-not-owned "$($U $F write $M/o/notify_on_release 1)"
	r root-chmod-root "$(chmod 0700 $M/o && stat -c %a $M/o)"
	r user-chown "$($U chown 64011 $M/o 2>&1 | sed 's/.*: //')"
	r root-mode-ignores-umask "$(umask 077; mkdir $M/um; stat -c %a $M/um $M/um/tasks | paste -sd' ')"
	# errnos of the core (§3-6)
	r mkdir-newline "$($F mkdir $M/$'n\nl')"
	r mkdir-file-name "$($F mkdir $M/cgroup.procs)"
	r mkdir-dot "$($F mkdir $M/d/.)"
	r rmdir-root "$($F rmdir $M)"
	r rmdir-busy "$($F rmdir $M/d)"
	r rename-cross "$($F rename $M/d/ $M/o/d)"
	r rename-exists "$($F rename $M/d $M/o)"
	r unlink "$($F unlink $M/d/tasks)"
	r create "$($F create $M/d/newfile)"
	r mknod "$($F mknod $M/d/fifo)"
	r symlink "$($F symlink /x $M/d/ln)"
	r write-procs-garbage "$($F write $M/d/cgroup.procs abc)"
	r write-procs-two "$($F write $M/d/cgroup.procs '1 2')"
	r write-procs-neg "$($F write $M/d/cgroup.procs -1)"
	r write-procs-big "$($F write $M/d/cgroup.procs 2147483648)"
	r write-procs-none "$($F write $M/d/cgroup.procs 99999999)"
	r write-procs-empty "$($F write $M/d/cgroup.procs '')"
	r write-procs-nl "$($F write $M/d/cgroup.procs '\n')"
	r write-procs-hex "$($F write $M/o/cgroup.procs $(printf '0x%x' $R1)) $(cat $M/o/cgroup.procs | grep -cx $R1)"
	r write-kthreadd "$($F write $M/d/cgroup.procs 2)"
	r write-bool-2nl "$($F write $M/d/notify_on_release '1\n\n')"
	r write-bool-octal "$($F write $M/d/notify_on_release 09)"
	r write-bool-hex "$($F write $M/d/notify_on_release 0x10) $(cat $M/d/notify_on_release)"
	r write-agent-big "$($F write $M/release_agent "$(printf '%4096s' x)")"
	r write-page "$($F write $M/d/tasks "$(printf '%4097s' 1)")"
	r sane-root-write "$($F write $M/cgroup.sane_behavior 1)"
	r sane-user-open "$($U $F open $M/cgroup.sane_behavior w)"
	r sane-user-write "$($U $F write $M/cgroup.sane_behavior 1)"
	r ls-root "$(ls $M | paste -sd' ')"
	r ls-child "$(ls $M/d | paste -sd' ')"
	r nlink "$(stat -c %h $M $M/d $M/d/tasks | paste -sd' ')"
	r size "$(stat -c %s $M/d $M/d/tasks | paste -sd' ')"
	r root-mode "$(stat -c %a $M)"
	# clean up what we made, leaving the mount as it was
	for p in "${pids[@]}"; do echo $p > $M/cgroup.procs 2>/dev/null; { kill -9 $p; wait $p; } 2>/dev/null; done
	rmdir $M/um $M/d $M/o 2>/dev/null
	unset -f r
}
