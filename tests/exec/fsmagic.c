/* tests/exec/fsmagic.c — prints the filesystem magic of each PATH as statfs(2) and as
 * fstatfs(2) on an O_PATH descriptor see it: "PATH STATFS FSTATFS" in hex. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		struct statfs a, b;
		int fd = open(argv[i], O_PATH | O_CLOEXEC);

		if (fd < 0 || statfs(argv[i], &a) < 0 || fstatfs(fd, &b) < 0) {
			perror(argv[i]);
			return 1;
		}
		printf("%s %lx %lx\n", argv[i], (unsigned long)a.f_type, (unsigned long)b.f_type);
		close(fd);
	}
	return 0;
}
