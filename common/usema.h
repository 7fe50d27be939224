/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_USEMA_H
#define TAPKIT_USEMA_H

/*
 * USDT semaphores raised by hand, for kernels whose uprobes take no
 * reference counter (before 4.20): a probe guarded by a semaphore
 * (`if (PROV_NAME_ENABLED())`) fires only while the semaphore in the
 * process's memory is non-zero.  The kernel's reference counter covers
 * every process mapping the object and undoes itself; by hand, only one
 * process can be covered, through /proc/PID/mem.
 *
 * Undoing is not left to the caller's exit paths: a watchdog process
 * lowers the semaphores when the caller closes its pipe, which the kernel
 * does for it however it ends (exit, a signal, SIGKILL).
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct usema;

/**
 * usema_hold() - add one to the @n semaphores at file offsets @offsets of
 * objects @paths in process @pid, and start the watchdog that takes it
 * back.  Returns the hold (usema_release() it), or NULL with errno and
 * the reason in @err (a semaphore not mapped, memory not writable).
 */
struct usema *usema_hold(pid_t pid, char *const *paths, const uint64_t *offsets,
			 size_t n, char *err, size_t errlen);

/* Take the semaphores back now (the watchdog does it; this waits for it).
 * NULL is a no-op. */
void usema_release(struct usema *u);

#endif
