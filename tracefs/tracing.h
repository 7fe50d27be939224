/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TRACING_H
#define TAPKIT_TRACING_H

/*
 * Where the tracing filesystem is, and whether we may use it: the one place
 * that knows the root (every other path is relative to it, or goes through
 * libtracefs, which finds the same root).
 */

/**
 * tracing_dir() - the root of the mounted tracing filesystem (e.g.
 * /sys/kernel/tracing), looked up once: libtracefs checks that it is still
 * mounted on every file it opens (a stat each), and syscount reads ~360 ids.
 * Mounts tracefs when it is not mounted and we may.  NULL with errno.
 */
const char *tracing_dir(void);

/**
 * tracing_access() - whether we may access @rel ("events", "" for the root)
 * under the tracing root with @mode (access(2)'s R_OK, W_OK, F_OK), without
 * mounting anything.  0 or -errno (-EACCES: not root).
 */
int tracing_access(const char *rel, int mode);

/**
 * tracing_mount() - check that we may trace (root, or write access to
 * events/), mount tracefs if needed, and check the root is writable.
 * *@dir receives the root.  0 or -errno: -EACCES/-EPERM without the
 * privilege, -ENODEV when tracefs cannot be mounted.
 */
int tracing_mount(const char **dir);

#endif
