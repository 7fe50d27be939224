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
/* The session's handler: hand it every event. */
void fsslower_event(const struct tk_event *ev, void *arg);
/* The probe definitions written, for -v: @i-th, NULL past the end. */
const char *fsslower_def(const struct fsslower *f, size_t i);
void fsslower_free(struct fsslower *f);

#endif
