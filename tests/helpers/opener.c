/*
 * opener: a workload with exactly known opens, for opensnoop tests.
 *   opener [wait-stdin] DIR
 * Opens files in DIR (an existing, empty, writable directory) through the
 * C library's open family and raw syscalls, some failing with known
 * errnos, and prints one line per call on stdout:
 *   CALL FD ERRNO FLAGS PATH
 * FD is the result (-1 on failure), ERRNO 0 on success, FLAGS the open
 * flags in decimal as the kernel gets them.  Each path is its own string,
 * kept until exit.  wait-stdin blocks until a byte arrives on stdin first,
 * and until stdin closes at the end, so the process is still there to be
 * looked at.  Built static (gcc -static) the same calls go through no
 * shared C library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

struct how {			/* struct open_how */
	unsigned long long flags, mode, resolve;
};

static const char *dir;

/* DIR/NAME, never freed: a raw call's path stays readable until exit */
static char *at(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		exit(1);
	return p;
}

static void note(const char *call, long fd, int flags, const char *path)
{
	int err = fd < 0 ? errno : 0;

	printf("%s %ld %d %d %s\n", call, fd < 0 ? -1 : fd, err, flags, path);
	if (fd >= 0)
		close((int)fd);
}

int main(int argc, char **argv)
{
	int wr = O_WRONLY | O_CREAT | O_TRUNC, dfd;
	struct how how = { .flags = O_RDONLY };
	int held = argc > 1 && !strcmp(argv[1], "wait-stdin");
	char c, *p;
	FILE *f;

	if (held) {
		if (read(0, &c, 1) != 1)
			return 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: opener [wait-stdin] DIR\n");
		return 2;
	}
	dir = argv[1];

	p = at("open"); note("open", open(p, O_WRONLY | O_CREAT, 0644), O_WRONLY | O_CREAT, p);
	p = at("open64"); note("open64", open64(p, O_RDWR | O_CREAT, 0600), O_RDWR | O_CREAT, p);
	p = at("open"); note("openat", openat(AT_FDCWD, p, O_RDONLY), O_RDONLY, p);
	p = at("openat64"); note("openat64", openat64(AT_FDCWD, p, O_RDONLY), O_RDONLY, p);
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	printf("open %d %d %d %s\n", dfd, dfd < 0 ? errno : 0, O_RDONLY | O_DIRECTORY, dir);
	note("openat", openat(dfd, "relative", O_WRONLY | O_CREAT, 0644), O_WRONLY | O_CREAT,
	     "relative");
	close(dfd);
	p = at("fopen");
	f = fopen(p, "w");
	printf("fopen %d %d %d %s\n", f ? fileno(f) : -1, f ? 0 : errno, wr, p);
	if (f)
		fclose(f);
	p = at("creat"); note("creat", creat(p, 0644), wr, p);
	p = at("raw-openat");
	note("raw-openat", syscall(SYS_openat, AT_FDCWD, p, O_RDONLY | O_CREAT, 0644),
	     O_RDONLY | O_CREAT, p);
#ifdef SYS_open
	p = at("raw-open"); note("raw-open", syscall(SYS_open, p, O_RDONLY), O_RDONLY, p);
#endif
	p = at("creat");
	note("raw-openat2", syscall(SYS_openat2, AT_FDCWD, p, &how, sizeof(how)), O_RDONLY, p);
	p = at("missing/x"); note("open", open(p, O_RDONLY), O_RDONLY, p);	/* ENOENT */
	p = at("open/x"); note("open", open(p, O_RDONLY), O_RDONLY, p);	/* ENOTDIR */
	note("open", open(dir, O_WRONLY), O_WRONLY, dir);			/* EISDIR */
	p = at("open64");							/* EEXIST */
	note("open", open(p, O_WRONLY | O_CREAT | O_EXCL, 0644), O_WRONLY | O_CREAT | O_EXCL, p);
	p = at("missing/y");
	f = fopen(p, "r");
	note("fopen", f ? fileno(f) : -1, O_RDONLY, p);			/* ENOENT */
	fflush(stdout);

	if (held)
		while (read(0, &c, 1) > 0)
			;
	return 0;
}
