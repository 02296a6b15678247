/* fs/release_agent.c — release agents, run as the kernel runs them and moved to
 * the root cgroup of every hierarchy.
 */
#include "fs/daemon_impl.h"

#include "engine/ucg.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* As the kernel runs it: argv [agent, path], cwd /, HOME and PATH only, fds 0-2
 * closed, root's credentials (ours), in a session of its own; not waited for. */
static pid_t spawn_agent(const struct ucg_release *rel)
{
	static char *const envp[] = { "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };
	char *argv[] = { rel->agent, rel->path, NULL };
	struct sigaction sa;
	sigset_t none;
	pid_t pid;
	int sig;

	if (strlen(rel->path) >= 4096 || !rel->agent[0])
		return -1;
	pid = fork();
	if (pid != 0)
		return pid;
	sigemptyset(&none);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setsid();
	if (chdir("/") < 0)
		_exit(127);
	syscall(SYS_close_range, 0u, ~0u, 0u);
	execve(rel->agent, argv, envp);
	_exit(127);
}

/* The kernel starts agents in the root cgroup of every hierarchy; ours would start in
 * the daemon's cgroups. */
static void agent_to_roots(struct daemon *d, pid_t pid)
{
	struct ucg_cred root = ucg_cred_root();
	struct ucg_hierarchy *h = NULL;
	char s[32];

	snprintf(s, sizeof(s), "%d", (int)pid);
	pthread_mutex_lock(&d->lock);
	while ((h = ucg_hierarchy_next(d->e, h)))
		ucg_fs_write_all(d->e, h, "/cgroup.procs", &root, s, strlen(s));
	ucgfs_unlock_checked(d);
}

void ucgfs_run_releases(struct daemon *d)
{
	struct ucg_release rel[16];
	int n, i;

	do {
		pthread_mutex_lock(&d->lock);
		for (n = 0; n < 16 && ucg_release_next(d->e, &rel[n]) == 1; n++)
			;
		pthread_mutex_unlock(&d->lock);
		for (i = 0; i < n; i++) {
			pid_t pid = spawn_agent(&rel[i]);

			if (pid > 0)
				agent_to_roots(d, pid);
			ucg_release_fini(&rel[i]);
		}
	} while (n == 16);
}
