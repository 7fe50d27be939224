/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROBESET_H
#define TAPKIT_PROBESET_H

/*
 * A bcc-style probe pattern (funccount, funclatency) turned into the events
 * of a session, every match at once:
 *
 *	[p:]FUNC*		kernel functions (kprobes; common/kfunc.h)
 *	[p:]LIB:FUNC*		functions of a program or library (uprobes;
 *				LIB as bcc: a path, a program, `c` or `libc`)
 *	t:SYS:EVENT*		tracepoints
 *	u:LIB:[PROVIDER:]PROBE	USDT probes (uprobes with their semaphores)
 *
 * One probeset_probe per site; the sites of one function or USDT probe
 * share its name, so a tool sums by name.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tracefs/session.h"

enum probeset_kind {
	PROBESET_KFUNC,
	PROBESET_UFUNC,
	PROBESET_TRACEPOINT,
	PROBESET_USDT,
};

struct probeset_probe {
	char *name;		/* as printed: "vfs_read", "malloc",
				 * "syscalls:sys_enter_read", "tk:compiled" */
	struct tp *entry;	/* its event */
	struct tp *ret;		/* its return event (PROBESET_RET), else NULL */
};

/* A USDT semaphore the caller must raise itself: the kernel's uprobes take
 * no reference counter (session_has_ref_ctr()). */
struct probeset_sema {
	char *path;		/* the object */
	uint64_t offset;	/* the semaphore's file offset */
};

struct probeset {
	enum probeset_kind kind;
	struct probeset_probe *v;
	size_t n;
	double attach_ms;	/* defining and adding every event took */
	size_t nnames;		/* distinct names among v (functions, probes) */
	char **defs;		/* the dynamic event definitions written */
	size_t ndefs;
	struct probeset_sema *semas;	/* semaphores not counted by the kernel */
	size_t nsemas;
};

/* probeset_opts.flags */
#define PROBESET_RET	(1 << 0)	/* also a return probe on each function
					 * (refused for t: and u:) */
#define PROBESET_REGEX	(1 << 1)	/* the function name is a POSIX extended
					 * regular expression, matched from the
					 * name's start as bcc's -r (refused for
					 * t: and u:) */

struct probeset_opts {
	pid_t pid;		/* 0, or the process whose view counts
				 * (its executable when LIB is left out) */
	enum tp_mode mode;	/* of every event */
	unsigned int flags;
	size_t max;		/* refuse a pattern matching more; 0: 1000 */
};

/**
 * probeset_add() - define and add to @s every probe @pattern matches
 *
 * 0 with @ps filled (at least one probe), or -errno with the reason in
 * @err: a malformed pattern (-EINVAL), nothing matched (-ENOENT), too many
 * matches (-E2BIG), a kernel without the probe kind (-ENOTSUP) or what
 * the session said.  Release @ps with probeset_release(); the events go
 * with the session.
 */
int probeset_add(struct session *s, const char *pattern,
		 const struct probeset_opts *o, struct probeset *ps,
		 char *err, size_t errlen);

/*
 * probeset_check() - is @pattern well-formed (for @flags)?  0, or -EINVAL
 * with the reason in @err; touches nothing (for usage errors).
 */
int probeset_check(const char *pattern, unsigned int flags, char *err,
		   size_t errlen);

void probeset_release(struct probeset *ps);

/**
 * probeset_session() - a new session of @so in *@s, opened, with the fd
 * limit raised for its counters or samplers, and every probe @pattern
 * matches added (probeset_add())
 * Return: 0, or -1 after saying why on stderr; *@s is set even then (the
 * caller's teardown frees it).
 */
int probeset_session(const struct session_opts *so, const char *pattern,
		     const struct probeset_opts *o, struct session **s,
		     struct probeset *ps);

#endif
