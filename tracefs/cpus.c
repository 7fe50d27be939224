// SPDX-License-Identifier: GPL-2.0
/* The online CPUs: one ring per CPU, one perf event per CPU. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "tracefs/internal.h"

/* Every online CPU, from "0-3,6,8-9"; the caller frees *cpus. */
int online_cpus(int **cpus)
{
	char buf[4096], *p, *end;
	int fd, n = 0, cap = 16;
	ssize_t r;

	*cpus = xmalloc(cap * sizeof(**cpus));
	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (r <= 0) {
		/* no sysfs: assume CPUs 0..N-1 */
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		strcpy(buf, "0");
		if (nr > 1)
			snprintf(buf, sizeof(buf), "0-%ld", nr - 1);
	} else {
		buf[r] = '\0';
	}
	for (p = buf; *p && *p != '\n';) {
		long lo = strtol(p, &end, 10), hi = lo, c;

		if (end == p || lo < 0)
			goto bad;
		if (*end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo)
				goto bad;
		}
		for (c = lo; c <= hi; c++) {
			if (n == cap) {
				cap *= 2;
				*cpus = xrealloc(*cpus, cap * sizeof(**cpus));
			}
			(*cpus)[n++] = c;
		}
		p = end;
		if (*p == ',')
			p++;
	}
	if (n)
		return n;
bad:
	free(*cpus);
	*cpus = NULL;
	return -EINVAL;
}

