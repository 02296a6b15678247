/* tests/exec/rawcat.c — prints a file read with raw system calls (no libc open, no
 * stdio): built -static by exec_view.sh, it stands for the statically linked and Go
 * programs a preload library would miss. */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	long fd, n;

	if (argc != 2)
		return 2;
	fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	while ((n = syscall(SYS_read, fd, buf, sizeof(buf))) > 0)
		syscall(SYS_write, 1, buf, n);
	return 0;
}
