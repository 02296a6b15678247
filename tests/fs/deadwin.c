/* tests/fs/deadwin.c — how long mounts stay dead across a daemon's crash and restart.
 *
 *   deadwin TIMEOUT_MS DIR...
 *
 * Polls each DIR in turn with statfs (stat may be answered from attributes the
 * kernel cached; statfs always asks the daemon) and classifies every answer: served
 * (a FUSE file system answered), dead (ENOTCONN: the FUSE connection of a killed
 * daemon; ECONNABORTED or EIO for a request its death cut) or bare (another file
 * system: the directory under the mount shows through, nothing is mounted). Starts
 * timing at the first answer that is not "served" and ends when every DIR has gone
 * down and has answered "served" again, or at TIMEOUT_MS. Prints, per DIR, "DIR
 * dead_ms bare_ms other errno aborted" (the time it was dead, the time it was bare,
 * the count of other errors and the first one's name, how many dead answers were
 * ECONNABORTED or EIO) and last "window_ms W" from the first failure to the last
 * recovery (-1 if something never came back).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>

#define FUSE_SUPER_MAGIC 0x65735546

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

struct dir {
	const char *path;
	int down, back, other, other_errno, aborted;
	double dead_ms, bare_ms, last;
};

int main(int argc, char **argv)
{
	struct dir *d;
	double timeout, start = -1, end = -1, t0;
	int n = argc - 2, i, pending;
	struct statfs sfs;

	if (argc < 3)
		return 2;
	timeout = atof(argv[1]);
	d = calloc((size_t)n, sizeof(*d));
	if (!d)
		return 1;
	for (i = 0; i < n; i++)
		d[i].path = argv[i + 2];
	t0 = now_ms();
	/* the caller kills the daemon after this line: we are polling by then */
	printf("polling\n");
	fflush(stdout);
	for (;;) {
		pending = 0;
		for (i = 0; i < n; i++) {
			double t = now_ms();
			int r = statfs(d[i].path, &sfs) < 0 ? errno : 0;

			if (!r && sfs.f_type != FUSE_SUPER_MAGIC)
				r = ENOENT; /* bare */

			if (r && start < 0)
				start = t;
			if (r) {
				/* a request cut by the daemon's death, or racing its
				 * exit, gets ECONNABORTED or EIO (Linux 6.1), ECANCELED
				 * when it was on a FUSE io_uring queue */
				if (r == ECONNABORTED || r == EIO || r == ECANCELED)
					d[i].aborted++;
				if (r == ENOTCONN || r == ECONNABORTED || r == EIO ||
				    r == ECANCELED)
					d[i].dead_ms += d[i].last ? t - d[i].last : 0;
				else if (r == ENOENT)
					d[i].bare_ms += d[i].last ? t - d[i].last : 0;
				else if (!d[i].other++)
					d[i].other_errno = r;
				d[i].down = 1;
				d[i].last = t;
			} else if (d[i].down && !d[i].back) {
				d[i].back = 1;
				end = t;
			} else {
				d[i].last = t;
			}
			pending += !(d[i].down && d[i].back);
		}
		if (!pending || now_ms() - t0 > timeout)
			break;
	}
	for (i = 0; i < n; i++)
		printf("%s %.1f %.1f %d %s %d\n", argv[i + 2], d[i].dead_ms, d[i].bare_ms,
		       d[i].other, d[i].other ? strerrorname_np(d[i].other_errno) : "-",
		       d[i].aborted);
	printf("window_ms %.1f\n", pending ? -1.0 : end - start);
	free(d); /* LeakSanitizer aborts a leaking exit in the sanitizer pass */
	return 0;
}
