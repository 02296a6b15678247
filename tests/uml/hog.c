/* tests/uml/hog.c — memory for the uml tests.
 *
 *   hog MIB   allocate and touch MIB mebibytes, one at a time; print "survived" and
 *             exit 0 if all of it was had (an OOM kill ends us by SIGKILL first)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long mib = argc == 2 ? atol(argv[1]) : 0;

	if (mib <= 0) {
		fprintf(stderr, "usage: hog MIB\n");
		return 2;
	}
	for (long i = 0; i < mib; i++) {
		char *p = malloc(1 << 20);

		if (!p) {
			printf("malloc failed at %ld MiB\n", i);
			return 1;
		}
		memset(p, 0x5a, 1 << 20);
	}
	printf("survived\n");
	return 0;
}
