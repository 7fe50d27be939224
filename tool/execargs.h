/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_EXECARGS_H
#define TAPKIT_EXECARGS_H

/*
 * Every exec (execve(2), execveat(2), fexecve(3)) with its arguments, from
 * the best mechanism the kernel has (DESIGN.md "Kernel facilities and
 * their fallbacks").  sched:sched_process_exec reports every successful
 * exec with the file name; the argv needs a probe that reads user memory
 * at the time:
 *
 *	kprobe		the syscall entries (__x64_sys_execve/execveat): argv
 *			read through the caller's pt_regs, every exec
 *	uprobe		the C library's execve/execveat wrappers, in the caller
 *	loader		the dynamic loader's entry point, in the new program:
 *			the argv the kernel built, for every dynamically
 *			linked program whatever made the exec (fexecve, a
 *			static program's or a raw execve)
 *	proc		/proc/PID/cmdline when the record is read: the only
 *			way left for a static program exec'd without a
 *			wrapper; not captured at the exec, and marked so
 *	filename	the process is gone by then: the exec's file name
 *			(from the record, exact) stands for the argv
 *
 * Failures come from syscalls:sys_exit_execve{,at} filtered on ret < 0,
 * with the argv an entry probe read (none for execs that bypassed them).
 *
 *	ea = execargs_new(s, &o, fn, arg);	no side effects
 *	execargs_add(ea, l, err, n);		events defined in session @s
 *	session_start(s, l, execargs_record, ea);
 *	execargs_flush(ea);			before the summary: the execs
 *						still waiting for their loader
 *	execargs_free(ea);
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct loop;
struct session;
struct tk_event;

enum execargs_source {
	EXECARGS_KPROBE,	/* at the syscall's entry: exact */
	EXECARGS_UPROBE,	/* at the C library's wrapper: exact */
	EXECARGS_LOADER,	/* at the new program's loader: exact */
	EXECARGS_PROC,		/* /proc/PID/cmdline afterwards: may differ */
	EXECARGS_FILENAME,	/* only the exec's file name is known */
	EXECARGS_NONE,		/* a failed exec no probe saw */
};

struct execargs_event {
	uint64_t ts;		/* CLOCK_MONOTONIC ns of the exec record */
	pid_t pid;		/* the process (its TGID) */
	pid_t ppid;		/* its parent (from fork records, else /proc) */
	const char *comm;	/* the name at the exec: the new one on success */
	long ret;		/* 0, or -errno */
	int argc;
	const char *args;	/* @argc NUL-terminated strings, one after another */
	bool truncated;		/* more arguments than were read */
	enum execargs_source source;
};

typedef void (*execargs_fn)(const struct execargs_event *e, void *arg);

struct execargs_opts {
	long max_args;		/* arguments to read, at most EXECARGS_MAX */
	bool failed;		/* failed execs too */
};

#define EXECARGS_MAX 60

struct execargs;

/* Describe; touches nothing.  Free with execargs_free(). */
struct execargs *execargs_new(struct session *s, const struct execargs_opts *o,
			      execargs_fn fn, void *arg);
void execargs_free(struct execargs *ea);

/**
 * execargs_add() - define and add the events of the best mechanism to the
 * session, and a timer in @l for the execs that wait for their loader.
 * 0, or -errno with the reason in @err.
 */
int execargs_add(struct execargs *ea, struct loop *l, char *err, size_t errlen);

/* "kprobe on __x64_sys_execve/...", "uprobe on the C library's ...". */
const char *execargs_mechanism(const struct execargs *ea);

/* The session's record handler (its arg is the struct execargs). */
void execargs_record(const struct tk_event *ev, void *arg);

/* Report every exec still held (waiting for its loader's record). */
void execargs_flush(struct execargs *ea);

/* After session_start(): task names from /proc for the tasks already there. */
void execargs_started(struct execargs *ea);

/* "kprobe", "uprobe", "loader", "proc", "filename", "none". */
const char *execargs_source_name(enum execargs_source src);

#endif
