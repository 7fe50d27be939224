/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_SYSCALLS_H
#define TAPKIT_SYSCALLS_H

/* Syscall numbers and names of the build architecture (from the UAPI headers). */

/* "getppid" for its number; NULL for numbers the headers do not name. */
const char *syscall_name(long nr);
/* The number of @name, or -1. */
long syscall_nr(const char *name);

#endif
