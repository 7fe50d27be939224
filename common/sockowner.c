// SPDX-License-Identifier: GPL-2.0
/*
 * The holder of a TCP listener, found in /proc (see sockowner.h).  A scan
 * of every process's fds: a tool calls it once per listener it did not see
 * made, never per event.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "common/sockowner.h"

#define TCP_LISTEN_HEX	0x0A

/* Append the listeners of /proc/net/tcp or tcp6 to *@v (*@n of them). */
static int read_listeners(int family, struct sockowner **v, int *n)
{
	FILE *f = fopen(family == AF_INET6 ? "/proc/net/tcp6" : "/proc/net/tcp", "re");
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char local[64];
		unsigned int lport, st;
		unsigned long inode;
		char *colon;

		/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
		if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*u %*u %lu",
			   local, &st, &inode) != 3)
			continue;
		colon = strchr(local, ':');
		if (!colon || sscanf(colon + 1, "%x", &lport) != 1 ||
		    st != TCP_LISTEN_HEX || !inode)
			continue;
		if (!(*n & (*n + 1)))	/* 0, 1, 3, 7...: full, grow */
			*v = xrealloc(*v, (size_t)(*n * 2 + 2) * sizeof(**v));
		(*v)[(*n)++] = (struct sockowner){ family, lport, inode, 0 };
	}
	fclose(f);
	return 0;
}

/* Give the listeners of @v that process @pid holds their holder. */
static void holds(const char *pid, struct sockowner *v, int n)
{
	char path[300], link[64];
	struct dirent *d;
	pid_t p = (pid_t)strtol(pid, NULL, 10);
	DIR *dir;
	int i;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char fd[600];
		unsigned long ino;
		ssize_t len;

		if (d->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", path, d->d_name);
		len = readlink(fd, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%lu]", &ino) != 1)
			continue;
		for (i = 0; i < n; i++)
			if (v[i].inode == ino && (!v[i].pid || p < v[i].pid))
				v[i].pid = p;
	}
	closedir(dir);
}

int sockowner_listeners(struct sockowner **out)
{
	struct sockowner *v = NULL;
	struct dirent *d;
	int n = 0, err;
	DIR *proc;

	err = read_listeners(AF_INET, &v, &n);
	if (!err)
		read_listeners(AF_INET6, &v, &n);	/* no IPv6: none */
	if (err) {
		free(v);
		return err;
	}
	proc = n ? opendir("/proc") : NULL;
	while (proc && (d = readdir(proc)))
		if (isdigit((unsigned char)d->d_name[0]))
			holds(d->d_name, v, n);
	if (proc)
		closedir(proc);
	*out = v;
	return n;
}

pid_t sockowner_listener(int family, unsigned int port)
{
	struct sockowner *v = NULL;
	pid_t pid = -ENOENT;
	int n, i;

	n = sockowner_listeners(&v);
	for (i = 0; i < n; i++)
		if (v[i].family == family && v[i].port == port && v[i].pid &&
		    (pid < 0 || v[i].pid < pid))
			pid = v[i].pid;
	free(v);
	return pid;
}
