/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SOCKOWNER_H
#define TAPKIT_SOCKOWNER_H

/*
 * Which process holds a TCP listening socket, from /proc as ss -p finds it:
 * /proc/net/tcp or tcp6 gives the listener's inode, a /proc/PID/fd link
 * "socket:[INODE]" its holder.  Only our network namespace is seen.
 */
#include <sys/types.h>

/* One TCP listener and its holder. */
struct sockowner {
	int family;		/* AF_INET or AF_INET6 */
	unsigned int port;
	unsigned long inode;
	pid_t pid;		/* the lowest PID holding it; 0: none found */
};

/**
 * sockowner_listeners() - every TCP listener of our network namespace and
 * its holder, in one scan of /proc
 *
 * Fills *@out with an array the caller frees; returns its length, or
 * -errno when /proc/net/tcp cannot be read.
 */
int sockowner_listeners(struct sockowner **out);

/**
 * sockowner_listener() - the process holding a TCP listener on local port
 * @port of @family (AF_INET or AF_INET6)
 *
 * Returns its PID (the lowest, when several hold it), or -ENOENT when no
 * such listener or no holder is found.
 */
pid_t sockowner_listener(int family, unsigned int port);

#endif
