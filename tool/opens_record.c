// SPDX-License-Identifier: GPL-2.0
/*
 * Opens from their records: entries held per thread until their result,
 * wrapper hits (uprobes) lent to the syscall that follows with the same
 * pointer, paths no probe fetched read from the process's memory.  The
 * mechanisms are described in opens.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/hmap.h"
#include "tool/comms.h"
#include "tool/opens_int.h"
#include "tracefs/session.h"

/* A __data_loc string the probe fetched: length 0 is the kernel's fault. */
static bool fetched(const struct tk_event *ev, const struct tk_field *f)
{
	return ((uint64_t)field_int(ev, f) >> 16 & 0xffff) != 0;
}

/*
 * The NUL-terminated string at @addr in @tid's memory, a page at a time
 * (the string may end just before an unmapped page).  0 or -errno.
 */
static int read_string(pid_t tid, uint64_t addr, char *buf, size_t n)
{
	size_t got = 0, page = (size_t)sysconf(_SC_PAGESIZE);

	if (!addr)
		return -EFAULT;
	while (got < n - 1) {
		size_t want = page - (size_t)((addr + got) % page);
		struct iovec local, remote;
		ssize_t r;

		if (want > n - 1 - got)
			want = n - 1 - got;
		local = (struct iovec){ buf + got, want };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + got), want };
		r = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (r <= 0)
			return r < 0 ? -errno : -EFAULT;
		if (memchr(buf + got, '\0', (size_t)r))
			return 0;
		got += (size_t)r;
	}
	buf[n - 1] = '\0';
	return 0;
}

static void emit(struct opens *op, struct thread *th, pid_t tid, long ret)
{
	struct opens_event oe = {
		.ts = th->ts, .tid = tid, .ret = ret, .path = th->path,
		.comm = comms_get(op->comms, op->s, tid),
		.addr = th->ptr, .flags = th->flags, .source = th->src,
		.mode = th->mode, .dfd = th->dfd,
	};
	uint64_t how[2];	/* struct open_how's flags and mode */
	struct iovec local = { how, sizeof(how) };
	struct iovec remote = { (void *)(uintptr_t)th->how, sizeof(how) };

	if (oe.source == OPENS_NONE &&
	    read_string(tid, th->ptr, th->path, sizeof(th->path)) == 0)
		oe.source = OPENS_PROC;
	if (oe.source == OPENS_NONE)
		oe.path = NULL;
	/* openat2: the flags and mode are the first members of its struct
	 * open_how */
	if (th->how && process_vm_readv(tid, &local, 1, &remote, 1, 0) == sizeof(how)) {
		oe.flags = (int64_t)how[0];
		oe.mode = (int64_t)how[1];
	}
	th->in_call = false;
	op->fn(&oe, op->arg);
}

static void on_kprobe(struct opens *op, const struct tk_event *ev)
{
	struct thread *th;

	if (ev->id == op->kentry->id) {
		th = hmap_get(op->threads, (uint64_t)ev->pid, true);
		th->in_call = true;
		th->ts = ev->ts;
		th->ptr = (uint64_t)field_int(ev, &op->k_ptr);
		th->flags = field_int(ev, &op->k_flags) & 0xffffffff;
		th->mode = field_int(ev, &op->k_mode) & 0xffffffff;
		th->dfd = (int)field_int(ev, &op->k_dfd);
		th->how = 0;
		th->src = fetched(ev, &op->k_path) ? OPENS_KPROBE : OPENS_NONE;
		field_str(ev, &op->k_path, th->path, sizeof(th->path));
	} else if (ev->id == op->kret->id) {
		th = hmap_get(op->threads, (uint64_t)ev->pid, false);
		if (!th || !th->in_call)	/* began before us */
			return;
		emit(op, th, ev->pid, (long)field_int(ev, &op->k_ret));
		hmap_del(op->threads, (uint64_t)ev->pid);
	}
}

static void on_enter(struct opens *op, const struct tk_event *ev, int i)
{
	struct thread *th = hmap_get(op->threads, (uint64_t)ev->pid, true);
	const struct sysc *c = &op->sys[i];

	th->in_call = true;
	th->sys = i;
	th->ts = ev->ts;
	th->ptr = (uint64_t)field_int(ev, &c->path);
	th->how = 0;
	th->dfd = c->dfd.size ? (int)field_int(ev, &c->dfd) : AT_FDCWD;
	th->mode = c->mode.size ? field_int(ev, &c->mode) & 0xffffffff : -1;
	if (i == SYS_CREAT)
		th->flags = O_CREAT | O_WRONLY | O_TRUNC;
	else if (i == SYS_OPENAT2)
		th->flags = -1, th->how = (uint64_t)field_int(ev, &c->flags);
	else
		th->flags = field_int(ev, &c->flags) & 0xffffffff;
	th->src = OPENS_NONE;
	if (th->have_u && th->u_ptr == th->ptr) {
		memcpy(th->path, th->u_path, sizeof(th->path));
		th->src = OPENS_UPROBE;
	}
	th->have_u = false;
}

void opens_record(const struct tk_event *ev, void *arg)
{
	struct opens *op = arg;
	const struct tk_field *path, *ptr;
	const struct uprobe_ev *u;
	struct thread *th;
	size_t i;

	if (comms_record(op->comms, ev))
		return;
	if (op->kentry) {
		on_kprobe(op, ev);
		return;
	}
	for (i = 0; i < NSYS; i++) {
		if (!op->sys[i].enter)
			continue;
		if (ev->id == op->sys[i].enter->id) {
			on_enter(op, ev, (int)i);
			return;
		}
		if (ev->id == op->sys[i].exit->id) {
			th = hmap_get(op->threads, (uint64_t)ev->pid, false);
			if (!th || !th->in_call || th->sys != (int)i)
				return;
			emit(op, th, ev->pid, (long)field_int(ev, &op->sys[i].ret));
			if (!th->have_u)
				hmap_del(op->threads, (uint64_t)ev->pid);
			return;
		}
	}
	for (i = 0; i < op->nu; i++) {
		if (ev->id != op->u[i].tp->id)
			continue;
		u = &op->u[i];
		path = &u->path;
		ptr = &u->ptr;
		if (u->syscall) {
			long nr = (long)field_int(ev, &u->nr);

			if (nr != SYS_NR_OPEN && nr != SYS_NR_CREAT)
				path = &u->path2, ptr = &u->ptr2;
		}
		th = hmap_get(op->threads, (uint64_t)ev->pid, true);
		th->have_u = fetched(ev, path);
		th->u_ptr = (uint64_t)field_int(ev, ptr);
		field_str(ev, path, th->u_path, sizeof(th->u_path));
		return;
	}
}
