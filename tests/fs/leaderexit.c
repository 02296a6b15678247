/* tests/fs/leaderexit.c — a process whose leader exits first (pthread_exit in main),
 * after which its remaining thread makes another thread.
 *
 *   leaderexit FILE   writes "ready" to FILE once the late thread exists, then
 *                     sleeps 30 s (the test kills it before)
 *
 * The kernel starts the late thread in its creator's cgroups, not in the roots, and
 * lists the exited leader in cgroup.procs (not in tasks) while the process lives.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static const char *ready_file;

static void *late(void *arg)
{
	(void)arg;
	sleep(30);
	return NULL;
}

static void *first(void *arg)
{
	pthread_t t;
	FILE *f;

	(void)arg;
	usleep(300 * 1000); /* the leader has exited by now */
	if (pthread_create(&t, NULL, late, NULL) != 0)
		return NULL;
	f = fopen(ready_file, "w");
	if (f) {
		fputs("ready\n", f);
		fclose(f);
	}
	sleep(30);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2)
		return 2;
	ready_file = argv[1];
	if (pthread_create(&t, NULL, first, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
