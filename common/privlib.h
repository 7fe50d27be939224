/* SPDX-License-Identifier: GPL-2.0 */
/* Private copies of the libraries a run probes and runs on (privlib.c). */
#ifndef TAPKIT_COMMON_PRIVLIB_H
#define TAPKIT_COMMON_PRIVLIB_H

#include <stddef.h>

/**
 * privlib_restore() - first thing in main(): when this image was started by
 * privlib_reexec(), take the user's LD_PRELOAD back and close the copies'
 * fds (their mappings stay)
 */
void privlib_restore(void);

/**
 * privlib_reexec() - start this program again on private copies of those of
 * @paths it maps itself
 * @paths: the @n files the run will put uprobes in (NULL entries skipped)
 * @argv: the program's arguments, as main() got them
 *
 * Returns 0 when none of @paths is mapped here, or when this image already
 * runs on copies; does not return when the exec works; -errno with the
 * reason in @err otherwise.  Call it before anything the new image could
 * not take over: tracefs state, a child, a consumed stdin.
 */
int privlib_reexec(const char *const *paths, size_t n, char *const *argv,
		   char *err, size_t errlen);

#endif
