#!/bin/bash
# The attach-permission matrix with a throwaway non-root uid (64011, via setpriv):
# owner match, chown delegation, moving between groups owned and not owned.
. "$(dirname "$0")/lib.sh" "$1" "$2"
. "$(dirname "$0")/matrix.sh"
fs_setup
command -v setpriv >/dev/null || skip_all "no setpriv"
M=$(mnt a none,name=perm) || { bad "mount"; fs_done; exit 1; }
run_matrix $M $FSOP $SCRATCH > $SCRATCH/ours.out 2>/dev/null
want() { check "$1" "$(grep -m1 "^$1 " $SCRATCH/ours.out | cut -d' ' -f2-)" "$2"; }
want user-open-root-procs EACCES
want user-write-root-procs EACCES
want user-move-own-into-delegated OK
want user-move-root-into-delegated EACCES
want user-move-euid-suid-match OK # setpriv --euid sets the saved uid too
want user-move-pid1 EACCES
want user-mkdir-below OK
want user-sub-owner "64011:64011 755 64011:64011 644 64011:64011 644"
want user-rename-in-delegated OK
want user-rmdir-own OK
want user-mkdir-beside EACCES
want user-rename-delegated EACCES
want user-rmdir-delegated EACCES
want user-move-back-to-root-owned EACCES
want user-move-into-0666 OK
want user-release-agent EPERM
want user-notify-owned OK
want user-notify-not-owned EACCES
want root-mode-ignores-umask "700 644"
fs_done
