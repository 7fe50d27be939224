/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_OUTFILE_H
#define TAPKIT_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/**
 * outfile_open() - open @path to write our output (created 0644, or
 * truncated), never through what another user planted: in a directory
 * that anyone may write and only owners may delete from (sticky, like
 * /tmp), a symbolic link or a file that belongs to neither us nor the
 * directory's owner is refused (as the kernel's protected_symlinks and
 * protected_regular would), and the check and the open see the same file.
 *
 * Returns the stream, or NULL with errno and the reason in @err ("cannot
 * open '/tmp/x': ...").
 */
FILE *outfile_open(const char *path, char *err, size_t errlen);

#endif
