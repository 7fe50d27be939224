/*
 * mutopen: open a file through syscall(2), then overwrite the path's
 * buffer, for the opensnoop tests of paths read late from memory.
 *   mutopen [wait-stdin] DIR
 * Opens (creates) DIR/mutA with syscall(SYS_openat), prints "FD PATH",
 * then turns the buffer into DIR/mutB (never opened) and stays until
 * stdin closes, so its memory can still be read.  Built static
 * (mutopen-static), the call goes through no shared C library.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "wait_stdin.h"

int main(int argc, char **argv)
{
	static char path[4096];
	char c;
	long fd;

	wait_stdin(&argc, &argv);
	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/mutA", argv[1]);
	fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CREAT, 0644);
	printf("%ld %s\n", fd, path);
	fflush(stdout);
	path[strlen(path) - 1] = 'B';
	while (read(0, &c, 1) > 0)
		;
	return fd < 0;
}
