// SPDX-License-Identifier: GPL-2.0
/*
 * Tell a waiting script that tracing is live: $TAPKIT_READY_FILE is created
 * once every probe is attached (systemd's READY=1, as a file, for scripts
 * that start their workload only then).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/ready.h"

int ready_create(char *err, size_t errlen)
{
	const char *path = getenv("TAPKIT_READY_FILE");
	int fd;

	if (!path || !*path)
		return 0;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return errmsg(err, errlen, -errno, "cannot create TAPKIT_READY_FILE "
			      "'%s': %s", path, strerror(errno));
	close(fd);
	return 0;
}
