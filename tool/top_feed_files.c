// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "files" feeder: opens, reads and writes by file path.
 *
 * Opens come with their paths from opensnoop's machinery (tool/opens.h:
 * kprobes where the kernel has them, else uprobes on the C library beside
 * the syscall tracepoints).  Reads and writes name only a descriptor, so
 * the feeder keeps each process's descriptor table as it learns it:
 *
 *	an open's result	(tgid, fd) -> the opened path, exact
 *	dup(), dup2(), dup3(), fcntl(F_DUPFD)
 *				the new fd names what the old one did
 *	close(fd)		(tgid, fd) forgotten
 *	exec, exit, close_range()
 *				the process's whole table forgotten (a
 *				generation per process: close-on-exec
 *				descriptors, a PID that comes back)
 *	a read or write of an fd not known yet
 *				readlink /proc/TGID/fd/FD once, then kept
 *				(descriptors opened before tracing began,
 *				sockets, pipes)
 *
 * read, write, pread64, pwrite64, readv and writev are paired enter/exit
 * per thread (the enter has the fd, the exit the result); a call counts
 * when it succeeded, its bytes when the result is positive.  A relative
 * path is made absolute with the process's current directory when the open
 * is read, so reads and opens of one file share a row.
 *
 * tracetop's own reads (the rings, /proc) are kept out in the kernel.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/opens.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum {
	F_PATH, F_PID, F_TID, F_COMM, F_OP, F_OPEN, F_READ, F_WRITE,
	F_RBYTES, F_WBYTES, F_FD, F_N
};

static const struct top_field fields[F_N] = {
	[F_PATH]   = { "path", "PATH", AGT_STR, AGT_PLAIN, 33 },
	[F_PID]    = { "pid", "PID", AGT_INT, AGT_PLAIN, 0 },
	[F_TID]    = { "tid", "TID", AGT_INT, AGT_PLAIN, 0 },
	[F_COMM]   = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_OP]     = { "op", "OP", AGT_STR, AGT_PLAIN, 5 },
	[F_OPEN]   = { "open", "OPENS", AGT_INT, AGT_PLAIN, 0 },
	[F_READ]   = { "read", "READS", AGT_INT, AGT_PLAIN, 0 },
	[F_WRITE]  = { "write", "WRITES", AGT_INT, AGT_PLAIN, 0 },
	[F_RBYTES] = { "rbytes", "RBYTES", AGT_INT, AGT_BYTES, 0 },
	[F_WBYTES] = { "wbytes", "WBYTES", AGT_INT, AGT_BYTES, 0 },
	[F_FD]     = { "fd", "FD", AGT_INT, AGT_PLAIN, 0 },
};

/*
 * The calls followed: the read/write family (the enter has the fd, the
 * exit the result), the dup family (the exit's new fd names what the old
 * one did: a shell's `>> FILE` is an open, a dup2() onto 1 and a close),
 * and close.
 */
enum kind { K_READ, K_WRITE, K_DUP, K_CLOSE, K_CLOSE_ALL };

static const struct {
	const char *name;
	enum kind kind;
	const char *fd;		/* the enter's fd field */
	const char *filter;	/* on the enter, besides our own pid */
} calls[] = {
	{ "read", K_READ, "fd", NULL }, { "write", K_WRITE, "fd", NULL },
	{ "pread64", K_READ, "fd", NULL }, { "pwrite64", K_WRITE, "fd", NULL },
	{ "readv", K_READ, "fd", NULL }, { "writev", K_WRITE, "fd", NULL },
	{ "dup", K_DUP, "fildes", NULL }, { "dup2", K_DUP, "oldfd", NULL },
	{ "dup3", K_DUP, "oldfd", NULL },
	/* F_DUPFD, F_DUPFD_CLOEXEC */
	{ "fcntl", K_DUP, "fd", "(cmd == 0 || cmd == 1030)" },
	{ "close", K_CLOSE, "fd", NULL },
	/* what it closes is forgotten with the whole table */
	{ "close_range", K_CLOSE_ALL, "fd", NULL },
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

struct call {
	int enter_id, exit_id;	/* exit_id 0: close, no exit */
	struct tk_field fd, ret;
};

struct thread {
	int call;		/* calls[] index + 1; 0: none in progress */
	int fd;
};

struct fdpath {
	uint32_t gen;		/* its process's table generation */
	char path[AGT_STR_MAX];
};

/* A process's table generation: an exec (close-on-exec descriptors), its
 * exit (the PID may come back) and close_range() forget its descriptors at
 * once by moving to the next one. */
struct proc {
	uint32_t gen;
};

#define MAX_FDS		65536	/* descriptors kept before starting over */
#define MAX_THREADS	65536

struct files {
	struct top_feed *f;
	struct opens *op;
	struct call c[NCALLS];
	struct hmap *threads;	/* tid -> struct thread */
	struct hmap *fds;	/* tgid << 32 | fd -> struct fdpath */
	struct hmap *procs;	/* tgid -> struct proc */
	int exec_id, exit_id;
	struct tk_field exec_pid, exit_pid, exit_group_dead;
	bool have_group_dead;
	bool started;
	const struct tk_event *cur;	/* the record opens_record() reads */
};

static int files_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

static pid_t tgid_of(pid_t tid)
{
	pid_t p = task_cache_tgid(tid);

	return p > 0 ? p : tid;
}

static uint64_t fd_key(pid_t tgid, int fd)
{
	return (uint64_t)(uint32_t)tgid << 32 | (uint32_t)fd;
}

static void emit(struct files *fs, const struct tk_event *ev, pid_t tid,
		 const char *comm, const char *path, int op, int fd, long bytes)
{
	struct agt_sample s;

	memset(&s, 0, sizeof(s));
	s.str[F_PATH] = path;
	s.num[F_PID] = tgid_of(tid);
	s.num[F_TID] = tid;
	s.str[F_COMM] = comm;
	s.str[F_OP] = op == F_OPEN ? "open" : op == F_READ ? "read" : "write";
	s.num[F_OPEN] = op == F_OPEN;
	s.num[F_READ] = op == F_READ;
	s.num[F_WRITE] = op == F_WRITE;
	s.num[F_RBYTES] = op == F_READ && bytes > 0 ? bytes : 0;
	s.num[F_WBYTES] = op == F_WRITE && bytes > 0 ? bytes : 0;
	s.num[F_FD] = fd;
	s.have = (1ull << F_N) - 1;
	top_emit(fs->f, ev, &s);
}

/* @path made absolute with @tgid's current directory, into @buf. */
static const char *absolute(pid_t tgid, const char *path, char *buf, size_t len)
{
	char link[64], cwd[PATH_MAX];
	ssize_t n;

	if (path[0] == '/')
		return path;
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)tgid);
	n = readlink(link, cwd, sizeof(cwd) - 1);
	if (n <= 0)
		return path;
	cwd[n] = 0;
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if ((size_t)n + 1 + strlen(path) >= len)
		return path;
	strcpy(buf, cwd);
	if (n > 1)
		strcat(buf, "/");
	strcat(buf, path);
	return buf;
}

static uint32_t gen_of(struct files *fs, pid_t tgid)
{
	struct proc *p = hmap_get(fs->procs, (uint64_t)tgid, false);

	return p ? p->gen : 0;
}

static void forget_all(struct files *fs, pid_t tgid)
{
	struct proc *p;

	if (hmap_count(fs->procs) >= MAX_FDS)
		hmap_clear(fs->procs);	/* the generations start over */
	p = hmap_get(fs->procs, (uint64_t)tgid, true);
	p->gen++;
}

/* @fd of @tgid names @path from now on. */
static void fd_learn(struct files *fs, pid_t tgid, int fd, const char *path)
{
	char copy[AGT_STR_MAX];
	struct fdpath *p;

	snprintf(copy, sizeof(copy), "%s", path);	/* may be in the map */
	if (hmap_count(fs->fds) >= MAX_FDS)
		hmap_clear(fs->fds);
	p = hmap_get(fs->fds, fd_key(tgid, fd), true);
	p->gen = gen_of(fs, tgid);
	memcpy(p->path, copy, sizeof(p->path));
}

static void on_open(const struct opens_event *oe, void *arg)
{
	struct files *fs = arg;
	pid_t tgid = tgid_of(oe->tid);
	char buf[AGT_STR_MAX];
	const char *path;

	if (oe->ret < 0 || !oe->path)
		return;
	path = absolute(tgid, oe->path, buf, sizeof(buf));
	fd_learn(fs, tgid, (int)oe->ret, path);
	emit(fs, fs->cur, oe->tid, oe->comm, path, F_OPEN, (int)oe->ret, 0);
}

/* The path of @fd in @tgid: learnt from its open, else from /proc. */
static const char *fd_path(struct files *fs, pid_t tgid, int fd)
{
	struct fdpath *p = hmap_get(fs->fds, fd_key(tgid, fd), false);
	char link[64], path[AGT_STR_MAX];
	ssize_t n;

	if (p && p->gen == gen_of(fs, tgid))
		return p->path;
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tgid, fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0) {
		/* gone: not kept, a later read may find it */
		hmap_del(fs->fds, fd_key(tgid, fd));
		return NULL;
	}
	path[n] = 0;
	fd_learn(fs, tgid, fd, path);
	p = hmap_get(fs->fds, fd_key(tgid, fd), false);
	return p->path;
}

static void files_event(struct top_feed *f, const struct tk_event *ev)
{
	struct files *fs = f->priv;
	struct thread *th;
	const char *path;
	size_t i;
	long ret;

	if (!fs->started) {
		/* the names of the tasks already there */
		opens_started(fs->op);
		fs->started = true;
	}
	for (i = 0; i < NCALLS; i++) {
		struct call *c = &fs->c[i];

		if (ev->id == c->enter_id) {
			int fd = (int)field_int(ev, &c->fd);

			if (calls[i].kind == K_CLOSE) {
				hmap_del(fs->fds, fd_key(tgid_of(ev->pid), fd));
				return;
			}
			if (calls[i].kind == K_CLOSE_ALL) {
				forget_all(fs, tgid_of(ev->pid));
				return;
			}
			if (hmap_count(fs->threads) >= MAX_THREADS)
				hmap_clear(fs->threads);
			th = hmap_get(fs->threads, (uint64_t)ev->pid, true);
			th->call = (int)i + 1;
			th->fd = fd;
			return;
		}
		if (ev->id != c->exit_id)
			continue;
		th = hmap_get(fs->threads, (uint64_t)ev->pid, false);
		if (!th || th->call != (int)i + 1)	/* entered before us */
			return;
		th->call = 0;
		ret = (long)field_int(ev, &c->ret);
		if (ret < 0)
			return;
		path = fd_path(fs, tgid_of(ev->pid), th->fd);
		if (!path)
			return;
		if (calls[i].kind == K_DUP) {
			fd_learn(fs, tgid_of(ev->pid), (int)ret, path);
			return;
		}
		emit(fs, ev, ev->pid, session_comm(f->s, ev->pid), path,
		     calls[i].kind == K_WRITE ? F_WRITE : F_READ, th->fd, ret);
		return;
	}
	if (ev->id == fs->exec_id) {
		forget_all(fs, (pid_t)field_int(ev, &fs->exec_pid));
		return;
	}
	if (ev->id == fs->exit_id && (!fs->have_group_dead ||
				      field_int(ev, &fs->exit_group_dead)))
		/* the thread's process, or the thread when it is gone */
		forget_all(fs, tgid_of((pid_t)field_int(ev, &fs->exit_pid)));
	fs->cur = ev;
	opens_record(ev, fs->op);
	fs->cur = NULL;
}

/* sys_enter/sys_exit of calls[@i] with our own calls kept out. */
static int add_call(struct top_feed *f, size_t i, struct call *c)
{
	char ev[64], filter[128];
	struct tp *tp;

	snprintf(filter, sizeof(filter), "common_pid != %d%s%s", (int)getpid(),
		 calls[i].filter ? " && " : "", calls[i].filter ? calls[i].filter : "");
	snprintf(ev, sizeof(ev), "sys_enter_%s", calls[i].name);
	tp = session_add(f->s, "syscalls", ev, TP_RECORD, filter);
	if (!tp || format_field(tp->event, calls[i].fd, &c->fd) < 0)
		goto fail;
	c->enter_id = tp->id;
	if (calls[i].kind == K_CLOSE || calls[i].kind == K_CLOSE_ALL)
		return 0;
	snprintf(ev, sizeof(ev), "sys_exit_%s", calls[i].name);
	filter[strcspn(filter, "&")] = 0;	/* no cmd on the exit */
	tp = session_add(f->s, "syscalls", ev, TP_RECORD, filter);
	if (!tp || format_field(tp->event, "ret", &c->ret) < 0)
		goto fail;
	c->exit_id = tp->id;
	return 0;
fail:
	snprintf(f->err, sizeof(f->err), "files: cannot use syscalls:%s: %s",
		 ev, tp ? "unexpected format" : session_error(f->s));
	return tp ? -EINVAL : (errno ? -errno : -ENOENT);
}

static int files_setup(struct top_feed *f)
{
	struct opens_opts oo = { .pid = f->pid };
	struct files *fs = xcalloc(1, sizeof(*fs));
	struct tp *ex, *xt;
	size_t i;
	int err;

	f->priv = fs;
	fs->f = f;
	fs->threads = hmap_new(sizeof(struct thread));
	fs->fds = hmap_new(sizeof(struct fdpath));
	fs->procs = hmap_new(sizeof(struct proc));
	fs->op = opens_new(f->s, &oo, on_open, fs);
	err = opens_add(fs->op, f->err, sizeof(f->err));
	if (err < 0)
		return err;
	for (i = 0; i < NCALLS; i++) {
		err = add_call(f, i, &fs->c[i]);
		if (err < 0)
			return err;
	}
	/* the ends of descriptor tables (opens' task names use exit too) */
	ex = session_add(f->s, "sched", "sched_process_exec", TP_RECORD, NULL);
	xt = ex ? session_add(f->s, "sched", "sched_process_exit", TP_RECORD, NULL)
		: NULL;
	if (!xt || format_field(ex->event, "pid", &fs->exec_pid) ||
	    format_field(xt->event, "pid", &fs->exit_pid)) {
		snprintf(f->err, sizeof(f->err), "files: %s",
			 xt ? "unexpected format of sched_process_exec/exit"
			    : session_error(f->s));
		return -ENOENT;
	}
	fs->exec_id = ex->id;
	fs->exit_id = xt->id;
	fs->have_group_dead = !format_field(xt->event, "group_dead",
					    &fs->exit_group_dead);
	if (f->verbose)
		pr_info("files: open paths from %s; reads and writes from the syscall tracepoints, paths from each process's descriptors",
			opens_mechanism(fs->op));
	return 0;
}

static void files_release(struct top_feed *f)
{
	struct files *fs = f->priv;

	if (!fs)
		return;
	opens_free(fs->op);
	hmap_free(fs->threads);
	hmap_free(fs->fds);
	hmap_free(fs->procs);
	free(fs);
	f->priv = NULL;
}

const struct top_feeder top_feed_files = {
	.name = "files",
	.init = files_init,
	.setup = files_setup,
	.event = files_event,
	.release = files_release,
	.ordered = true,
	.pid_field = "pid",
};
