#!/bin/bash
# The release agent really runs, as the kernel runs it: argv [agent, path], cwd /,
# env HOME and PATH only, fds 0-2 closed, as root; and is not left a zombie.
. "$(dirname "$0")/lib.sh" "$1" "$2"
fs_setup

AGENT=$SCRATCH/agent
LOG=$SCRATCH/agent.log
cat > $AGENT <<AG
#!/bin/bash
/bin/ls /proc/\$\$/fd > $LOG.fds.\$\$
{ echo "argv \$#:\$1"; echo "cwd \$(pwd)"; echo "uid \$(id -u)";
  echo "env \$(env | grep -v -e '^PWD=' -e '^SHLVL=' -e '^_=' | sort | paste -sd' ')";
  echo "fds \$(sort -n $LOG.fds.\$\$ | paste -sd' ')"; } >> $LOG.\$\$ 2>&1
mv $LOG.\$\$ $LOG.done.\$\$
echo \$\$ > $LOG.pid; sleep 1
AG
chmod 755 $AGENT
M=$(mnt a none,name=rel,release_agent=$AGENT) || { bad "mount"; fs_done; exit 1; }
check "agent from mount option" "$(cat $M/release_agent)" "$AGENT"
mkdir $M/c
echo 1 > $M/c/notify_on_release
bash -c 'echo $$ > '$M'/c/cgroup.procs; exec sleep 0.3'
for i in $(seq 60); do ls $LOG.done.* >/dev/null 2>&1 && break; sleep 0.05; done
OUT=$(cat $LOG.done.* 2>/dev/null)
check "agent argv" "$(echo "$OUT" | grep ^argv)" "argv 1:/c"
check "agent cwd" "$(echo "$OUT" | grep ^cwd)" "cwd /"
check "agent uid" "$(echo "$OUT" | grep ^uid)" "uid 0"
check "agent env" "$(echo "$OUT" | grep ^env)" "env HOME=/ PATH=/sbin:/bin:/usr/sbin:/usr/bin"
# fds 0-2 start closed: at its first command the agent's bash holds only its script
check "agent fds" "$(echo "$OUT" | grep ^fds)" "fds 255"
rm -f $LOG.done.*
# moved out: runs again; flag 0: not run
mkdir $M/m; echo 1 > $M/m/notify_on_release
spawn sleep 300; S=$LAST
echo $S > $M/m/cgroup.procs; echo $S > $M/cgroup.procs
for i in $(seq 60); do ls $LOG.done.* >/dev/null 2>&1 && break; sleep 0.05; done
check "agent after move out" "$(cat $LOG.done.* 2>/dev/null | grep ^argv)" "argv 1:/m"
rm -f $LOG.done.*
mkdir $M/n
echo $S > $M/n/cgroup.procs; echo $S > $M/cgroup.procs
sleep 0.5
check "flag 0: not run" "$(ls $LOG.done.* 2>/dev/null | wc -l)" "0"
# child removal releases the parent
mkdir -p $M/p/q; echo 1 > $M/p/notify_on_release; rmdir $M/p/q
for i in $(seq 60); do ls $LOG.done.* >/dev/null 2>&1 && break; sleep 0.05; done
check "rmdir of last child" "$(cat $LOG.done.* 2>/dev/null | grep ^argv)" "argv 1:/p"
sleep 0.3
# agents start in the roots even when the daemon itself sits in a cgroup
mkdir $M/dmn; echo $DAEMON_PID > $M/dmn/cgroup.procs
rm -f $LOG.done.* $LOG.pid
mkdir $M/r; echo 1 > $M/r/notify_on_release
bash -c 'echo $$ > '$M'/r/cgroup.procs; exit 0'
for i in $(seq 60); do [ -s $LOG.pid ] && break; sleep 0.05; done
check "agent starts in the root" "$($UCG proc $(cat $LOG.pid) 2>&1)" "1:name=rel:/"
echo $DAEMON_PID > $M/cgroup.procs
sleep 1
check "no zombie agents" "$(ps --ppid $DAEMON_PID -o stat= | grep -c Z)" "0"
fs_done
