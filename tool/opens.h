/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_OPENS_H
#define TAPKIT_OPENS_H

/*
 * Every open(2), openat(2), openat2(2) and creat(2) with its path, flags
 * and result, from the best mechanism the kernel has (DESIGN.md "Kernel
 * facilities and their fallbacks"):
 *
 *	kprobes		do_sys_openat2 (do_sys_open before 5.6) and its
 *			return: the kernel fetches the path at the call
 *	uprobes		syscall tracepoints give every call and its result;
 *			uprobes on the C library's open family and its
 *			syscall(3) (raw open, openat, openat2, creat) fetch
 *			the path as the function is entered, paired with the
 *			syscall by thread and pointer; with a PID whose
 *			program is static, its own copies too.  Calls no
 *			uprobe saw (static programs, the dynamic loader's own
 *			opens, inline syscalls) get their path from
 *			/proc/TID/mem when the record is read: not captured
 *			at the call (OPENS_PROC), so it may differ.
 *
 * The task's name is taken at the call too (tool/comms.h).
 *
 *	op = opens_new(s, &o, fn, arg);		no side effects
 *	opens_add(op, err, sizeof(err));	events defined in session @s
 *	session_start(s, l, opens_record, op);	fn(oe, arg) per open
 *	opens_started(op);			names of the tasks there
 *	opens_free(op);				before the session goes
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct session;
struct tk_event;

/* Where an open's path came from. */
enum opens_source {
	OPENS_KPROBE,	/* fetched by the kernel at the call: exact */
	OPENS_UPROBE,	/* fetched at the C library's wrapper: exact */
	OPENS_PROC,	/* read from /proc/TID/mem afterwards: may differ */
	OPENS_NONE,	/* unreadable: only its address is known */
};

struct opens_event {
	uint64_t ts;		/* the call's entry, CLOCK_MONOTONIC ns */
	pid_t tid;
	const char *comm;	/* the task's name at the call */
	long ret;		/* fd, or -errno */
	const char *path;	/* NULL with OPENS_NONE */
	uint64_t addr;		/* the path's user address; 0 when unknown */
	int64_t flags;		/* open flags as the kernel got them; -1: unknown */
	int64_t mode;		/* the mode argument; -1: unknown */
	int dfd;		/* the directory a relative path starts from:
				 * AT_FDCWD (also for open, creat) or an fd */
	enum opens_source source;
};

typedef void (*opens_fn)(const struct opens_event *oe, void *arg);

struct opens_opts {
	pid_t pid;		/* 0, or the process whose C library counts */
	bool failed;		/* only failed opens (a kernel filter) */
	const char *comm;	/* only tasks whose comm contains this (a
				 * kernel filter; glob characters work) */
};

struct opens;

/* Describe; touches nothing.  Free with opens_free(). */
struct opens *opens_new(struct session *s, const struct opens_opts *o,
			opens_fn fn, void *arg);
void opens_free(struct opens *op);

/**
 * opens_add() - define and add the events of the best mechanism to the
 * session.  0, or -errno with the reason in @err: -ENOTSUP when the kernel
 * has neither kprobes nor syscall tracepoints, else what the session said.
 */
int opens_add(struct opens *op, char *err, size_t errlen);

/* After session_start(): the names of the tasks already there (/proc). */
void opens_started(struct opens *op);

/* "kprobes on do_sys_openat2", "uprobes on PATH + syscall tracepoints". */
const char *opens_mechanism(const struct opens *op);

/* The session's record handler (its arg is the struct opens). */
void opens_record(const struct tk_event *ev, void *arg);

/* "O_WRONLY" -> its value (the open flags by name); -1 when unknown. */
int opens_flag(const char *name);

/*
 * Has an open with @flags (-1: unknown) any of the @n flags of @want?  An
 * access mode (O_RDONLY, O_WRONLY, O_RDWR) is compared with flags &
 * O_ACCMODE, another flag must be all there.  True when @n is 0.
 */
bool opens_flags_any(int64_t flags, const int *want, int n);

/* "kprobe", "uprobe", "proc", "none". */
const char *opens_source_name(enum opens_source src);

#endif
