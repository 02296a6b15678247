/* tests/fs/fsop.c — one filesystem call, its errno printed by name.
 *
 *   fsop mkdir PATH [MODE] | rmdir PATH | rename FROM TO | unlink PATH | mknod PATH
 *   fsop symlink TARGET PATH | link FROM TO | create PATH | open PATH r|w
 *   fsop write PATH DATA     (one write(2) of DATA; "\n" escapes are expanded)
 *   fsop writefd PATH DATA... (open once, one write(2) per DATA)
 *   fsop rmread FILE DIR     (open FILE, rmdir DIR, then read FILE)
 *   fsop stat PATH           (prints "MODE UID GID NLINK SIZE")
 *   fsop mkrm PATH N         (N pairs of mkdir PATH, rmdir PATH; stops at the first error)
 *
 * Prints "OK" or the errno's name (EEXIST, ...), exits 0 either way (2 on usage).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int report(int r)
{
	if (r < 0) {
		const char *n = strerrorname_np(errno);

		printf("%s\n", n ? n : "E?");
	} else {
		printf("OK\n");
	}
	return 0;
}

static size_t unescape(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '\\' && r[1] == 'n') {
			*w++ = '\n';
			r += 2;
		} else if (r[0] == '\\' && r[1] == '0') {
			*w++ = '\0';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	return (size_t)(w - s);
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	int fd, i;

	if (argc < 3)
		return 2;
	if (!strcmp(op, "mkdir"))
		return report(mkdir(argv[2], argc > 3 ? (mode_t)strtoul(argv[3], NULL, 8) : 0755));
	if (!strcmp(op, "rmdir"))
		return report(rmdir(argv[2]));
	if (!strcmp(op, "rename") && argc == 4)
		return report(rename(argv[2], argv[3]));
	if (!strcmp(op, "unlink"))
		return report(unlink(argv[2]));
	if (!strcmp(op, "mknod"))
		return report(mknod(argv[2], S_IFIFO | 0644, 0));
	if (!strcmp(op, "symlink") && argc == 4)
		return report(symlink(argv[2], argv[3]));
	if (!strcmp(op, "link") && argc == 4)
		return report(link(argv[2], argv[3]));
	if (!strcmp(op, "create")) {
		fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0)
			close(fd);
		return report(fd);
	}
	if (!strcmp(op, "open") && argc == 4) {
		fd = open(argv[2], argv[3][0] == 'w' ? O_WRONLY : O_RDONLY);
		if (fd >= 0)
			close(fd);
		return report(fd);
	}
	if (!strcmp(op, "rmread") && argc == 4) { /* open FILE, rmdir DIR, read FILE */
		char buf[64];

		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			return report(-1);
		if (rmdir(argv[3]) < 0)
			return report(-1);
		i = (int)read(fd, buf, sizeof(buf));
		close(fd);
		return report(i);
	}
	if (!strcmp(op, "mkrm") && argc >= 4) {
		long n = strtol(argv[3], NULL, 10);

		for (; n > 0; n--)
			if (mkdir(argv[2], 0755) < 0 || rmdir(argv[2]) < 0)
				return report(-1);
		return report(0);
	}
	if (!strcmp(op, "stat")) {
		struct stat st;

		if (stat(argv[2], &st) < 0)
			return report(-1);
		printf("%o %u %u %lu %lld\n", (unsigned)st.st_mode & 07777, st.st_uid, st.st_gid,
		       (unsigned long)st.st_nlink, (long long)st.st_size);
		return 0;
	}
	if ((!strcmp(op, "write") || !strcmp(op, "writefd")) && argc >= 4) {
		fd = open(argv[2], O_WRONLY);
		if (fd < 0)
			return report(-1);
		for (i = 3; i < argc; i++) {
			size_t len = unescape(argv[i]);

			if (write(fd, argv[i], len) < 0) {
				close(fd);
				return report(-1);
			}
		}
		close(fd);
		return report(0);
	}
	return 2;
}
