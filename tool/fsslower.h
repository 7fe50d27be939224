/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_FSSLOWER_H
#define TAPKIT_FSSLOWER_H

/*
 * File operations slower than a threshold (bcc's ext4slower and
 * fileslower): a kprobe at the entry of each kernel function of the
 * operations and one at its return, the entry fetching the file's name
 * (and the position, the request's size) through the function's BTF, the
 * return its result; each return paired with its thread's entry in
 * userspace and the ones slower than the threshold handed on.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"

struct session;


/* One operation: a kernel function and where its values are. */
struct fsslower_op {
	char type;		/* 'R' read, 'W' write, 'O' open, 'S' fsync */
	const char *func;	/* "ext4_file_read_iter" */
	const char *param;	/* its parameter reaching the file */
	const char *const *name;	/* members from @param to the name */
	const char *const *pos;	/* to the position (NULL: 0) */
	const char *const *mode;	/* to the inode's mode (NULL: none) */
	const char *size;	/* the parameter with the size asked (NULL:
				 * the result is the size) */
};

struct fsslower_event {
	uint64_t ts;		/* at the return (CLOCK_MONOTONIC ns) */
	uint64_t lat_ns;
	pid_t tid;
	char type;
	int64_t bytes;		/* the result of a read or write */
	int64_t pos;		/* the offset before the operation */
	unsigned int mode;	/* the inode's mode, 0 when not fetched */
	char file[256];		/* the dentry's name */
};

typedef void (*fsslower_fn)(const struct fsslower_event *e, void *arg);

struct fsslower;

/**
 * fsslower_add() - define the probes of @ops (@n of them) in session @s:
 * in the BTF of kernel module @module (NULL: vmlinux), only events of at
 * least @min_ns handed to @fn
 *
 * NULL with a one-line reason in @err: no kprobes, a function this
 * kernel lacks, a member its BTF lacks.  Free with fsslower_free() (the
 * events go with the session).
 */
struct fsslower *fsslower_add(struct session *s, const char *module,
			      const struct fsslower_op *ops, size_t n,
			      uint64_t min_ns, fsslower_fn fn, void *arg,
			      char *err, size_t errlen);
void fsslower_free(struct fsslower *f);

struct tool;
struct loop;

/* What ext4slower and fileslower keep, first in their own state (the
 * struct tool's ctx). */
struct fsslower_cmd {
	long min_ms;		/* the [min_ms] operand, default 10 */
	bool json;
	struct session *s;
	struct fsslower *f;
};

/* struct tool callbacks over a struct fsslower_cmd: the [min_ms] operand;
 * undo fsslower_setup(). */
int fsslower_check(struct tool *t, int argc, char **argv, int optind);
void fsslower_teardown(struct tool *t);

/**
 * fsslower_setup() - a command's setup: a session scoped as @t's options
 * say (-p, -c), the probes of @ops (fsslower_add() in @module's BTF, the
 * threshold min_ms), listed with -v, started in @l
 * Return: 0, or -1 after saying why.
 */
int fsslower_setup(struct tool *t, struct loop *l, const char *module,
		   const struct fsslower_op *ops, size_t n, fsslower_fn fn);

#endif
