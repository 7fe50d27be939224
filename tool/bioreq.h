/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_BIOREQ_H
#define TAPKIT_BIOREQ_H

/*
 * Block I/O requests followed through the block tracepoints, from the task
 * that started them to their completion (biosnoop, biolatency, bitesize):
 *
 *	start     block:block_io_start (6.5+; the submitting task's context),
 *	          else block:block_rq_insert: who asked for the I/O, and when
 *	issue     block:block_rq_issue: handed to the driver, with its size
 *	complete  block:block_rq_complete
 *
 * The tracepoints carry no request pointer, so the records of one request
 * are paired by device, sector and operation (read, write, discard...), as
 * bcc's tracepoint versions of these tools do.  A request is reported once
 * it completes, if its issue was seen; one issued before tracing began is
 * not.  The session must deliver records in timestamp order (ordered) and
 * keep our own threads' (keep_self): completions run in any context.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/event.h"
#include "common/hist.h"

struct session;

/* One completed request. */
struct bioreq {
	uint32_t dev;		/* the kernel's dev_t: MAJOR << 20 | MINOR */
	uint64_t sector;
	uint32_t bytes;		/* its size at issue */
	pid_t tid;		/* the task that started it (else issued it) */
	char comm[16];
	char rwbs[10];		/* the kernel's flags: "WS", "R", "FWFS"... */
	uint64_t start_ts;	/* started (queued); 0: not seen */
	uint64_t issue_ts;	/* issued to the driver */
	uint64_t done_ts;	/* completed */
	int error;
};

typedef void (*bioreq_fn)(const struct bioreq *r, void *arg);

struct bioreqs;

/* Describe the tracking; nothing touched.  @fn gets each completed request. */
struct bioreqs *bioreqs_new(bioreq_fn fn, void *arg);
void bioreqs_free(struct bioreqs *b);

/**
 * bioreqs_add() - add the start, issue and complete events to @s, only for
 * device @dev (a kernel filter "dev == N") unless @dev < 0.  0, or -errno
 * with the reason in @err.
 */
int bioreqs_add(struct bioreqs *b, struct session *s, int64_t dev,
		char *err, size_t errlen);
/**
 * bioreqs_tree() - report only the requests started by the process tree of
 * @pid (-c CMD): @pid's threads and every task they clone from now on,
 * followed through sched:sched_process_fork records (the session itself
 * must not be scoped to @pid: the requests are issued and completed by
 * other tasks).  0, or -errno with the reason in @err.
 */
int bioreqs_tree(struct bioreqs *b, struct session *s, pid_t pid,
		 char *err, size_t errlen);
struct tep_event;
/**
 * bioreqs_use() - take the ids and fields of the start, issue and complete
 * events from their formats: what bioreqs_add() does with the events it
 * adds, for records read some other way (a test).  0, or -ENOENT with the
 * reason in @err when a field is missing.
 */
int bioreqs_use(struct bioreqs *b, const struct tep_event *start,
		const struct tep_event *issue, const struct tep_event *done,
		char *err, size_t errlen);
/* Feed a record; false when it is none of ours. */
bool bioreqs_event(struct bioreqs *b, const struct tk_event *ev);
/* The events used, for -v: "block:block_io_start, block:block_rq_issue..." */
const char *bioreqs_events(const struct bioreqs *b);
/* The start event's name ("block_io_start" or "block_rq_insert"). */
const char *bioreqs_start_event(const struct bioreqs *b);

/* @dev's name ("loop0", the kernel's DEVNAME), else "MAJ:MIN"; cached. */
const char *bioreqs_dev_name(struct bioreqs *b, uint32_t dev);

/**
 * bio_dev_parse() - a disk as the user names it ("sda", "/dev/sda", "8:0")
 * to the kernel's dev_t, or -errno with the reason in @err: -ENOENT no such
 * disk; -EISDIR @text is a partition (requests are traced against the
 * whole disk); -ENOTBLK not a block device.
 */
int64_t bio_dev_parse(const char *text, char *err, size_t errlen);

/* 'W' for a write (any 'W' in @rwbs, as bcc's tools tell them), else 'R'. */
char bio_rw(const char *rwbs);
/* bcc biolatency -F's name of a request's flags ("Sync-Write") from @rwbs,
 * into @buf. */
const char *bio_flags_name(const char *rwbs, char *buf, size_t size);

/* Histograms by a name (a disk, a set of flags, a process name). */
struct bio_hist {
	char name[64];
	struct hist_log2 h;
};

struct bio_hists {
	struct bio_hist *v;
	size_t n, cap;
};

/* The histogram named @name, created empty if new. */
struct hist_log2 *bio_hists_get(struct bio_hists *hs, const char *name);
/* Sorted by name, for printing. */
void bio_hists_sort(struct bio_hists *hs);
/* Forget them all (each interval). */
void bio_hists_clear(struct bio_hists *hs);
void bio_hists_release(struct bio_hists *hs);

#endif
