/*
 * pcio: page cache reads and writes of a known number of 4 KiB pages, for
 * cachestat's tests.
 *   pcio [wait-stdin] read FILE N     evict FILE's cached pages, then read
 *                                     its first N pages one by one, twice:
 *                                     N misses, then N hits
 *   pcio [wait-stdin] write FILE N    overwrite the first N pages of FILE
 *                                     (already written, synced and cached)
 *                                     one by one: N pages dirtied
 * Read-ahead is off (POSIX_FADV_RANDOM): each read brings in its one page.
 * Exits 0, or 1 with a message.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wait_stdin.h"

#define PAGE 4096

int main(int argc, char **argv)
{
	char buf[PAGE];
	long i, n;
	int fd, pass;

	wait_stdin(&argc, &argv);
	if (argc != 4 || (strcmp(argv[1], "read") && strcmp(argv[1], "write"))) {
		fprintf(stderr, "usage: pcio [wait-stdin] read|write FILE N\n");
		return 1;
	}
	n = strtol(argv[3], NULL, 10);
	fd = open(argv[2], argv[1][0] == 'r' ? O_RDONLY : O_WRONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	if (argv[1][0] == 'w') {
		memset(buf, 'w', sizeof(buf));
		for (i = 0; i < n; i++)
			if (pwrite(fd, buf, PAGE, i * PAGE) != PAGE) {
				perror("pwrite");
				return 1;
			}
		return 0;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (pread(fd, buf, PAGE, i * PAGE) != PAGE) {
				perror("pread");
				return 1;
			}
	return 0;
}
