// SPDX-License-Identifier: GPL-2.0
/*
 * stap's task tapset: task_current(), pid2task() and the task_*()
 * functions of a task.
 *
 * stap's task is a kernel task_struct address; tapkit's handlers run in
 * its own process, so a task here is a handle: bit 62 set, the thread id
 * in bits 0-21 and the process id in bits 22-43 (PID_MAX_LIMIT is 2^22).
 * task_pid() and task_tid() of a handle are exact.  The rest are exact
 * for the task the event happened in (from the event's context, as
 * pid() and execname() are) and read from /proc/TID otherwise, when the
 * handler runs: a task that has exited by then reads as 0 or "".  In a
 * kernel function probe, the task functions of a task_struct pointer the
 * probe fetches ($p, pointer_arg(1)) are reads of it (lang/elab_task.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/task.h"
#include "lang/backend.h"
#include "lang/builtin.h"

#define TASK_BIT	(1LL << 62)
#define ID_MASK		((1LL << 22) - 1)

static int64_t make(int64_t tid, int64_t pid)
{
	if (tid <= 0 || tid > ID_MASK)
		return 0;
	if (pid <= 0 || pid > ID_MASK)
		pid = tid;
	return TASK_BIT | (pid << 22) | tid;
}

/* The thread id of handle @t, or -1 after the error stap would give. */
static pid_t tid_of(struct vm *vm, const char *fn, int64_t t)
{
	if (t && (t & ~(TASK_BIT | (ID_MASK << 22) | ID_MASK)) == 0 &&
	    (t & TASK_BIT))
		return (pid_t)(t & ID_MASK);
	if (t < 0)
		vm_raise(vm, "%s: 0x%llx is a kernel task_struct address: tapkit "
			 "reads tasks by handle (task_current(), pid2task()); "
			 "pass the kernel probe's variable itself (task_pid($p)) "
			 "or use @cast(..., \"task_struct\")",
			 fn, (unsigned long long)t);
	else
		vm_raise(vm, "%s: 0x%llx is not a task", fn,
			 (unsigned long long)t);
	return -1;
}

/* Whether @tid is the thread the event happened in. */
static bool current(struct vm *vm, pid_t tid)
{
	struct lang_val v;

	vm_context(vm, PROV_CTX_TID, &v);
	return v.l == tid;
}

#define TASK_ARG(fn)							\
	pid_t tid = tid_of(vm, fn, a[0].l);				\
	if (tid < 0)							\
		return -1

int btask_current(struct vm *vm, struct lang_val *a, int n,
		  struct lang_val *ret, char *buf)
{
	struct lang_val tid, pid;

	vm_context(vm, PROV_CTX_TID, &tid);
	vm_context(vm, PROV_CTX_PID, &pid);
	ret->l = make(tid.l, pid.l);
	return 0;
}

/* pid2task(pid): the task of a process (its main thread), 0 if none */
int btask_pid2task(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	ret->l = a[0].l > 0 && task_exists((pid_t)a[0].l) ?
		 make(a[0].l, task_tgid((pid_t)a[0].l)) : 0;
	return 0;
}

/* __task_make(tid, pid): a handle of a task a record names (tapsets) */
int btask_make(struct vm *vm, struct lang_val *a, int n,
	       struct lang_val *ret, char *buf)
{
	ret->l = make(a[0].l, a[1].l);
	return 0;
}

int btask_pid(struct vm *vm, struct lang_val *a, int n,
	      struct lang_val *ret, char *buf)
{
	TASK_ARG("task_pid");
	ret->l = (a[0].l >> 22) & ID_MASK;
	(void)tid;
	return 0;
}

int btask_tid(struct vm *vm, struct lang_val *a, int n,
	      struct lang_val *ret, char *buf)
{
	TASK_ARG("task_tid");
	ret->l = tid;
	return 0;
}

int btask_parent(struct vm *vm, struct lang_val *a, int n,
		 struct lang_val *ret, char *buf)
{
	struct lang_val v;
	pid_t pp;

	TASK_ARG("task_parent");
	if (current(vm, tid)) {
		vm_context(vm, PROV_CTX_PPID, &v);
		pp = (pid_t)v.l;
	} else {
		pp = task_ppid(tid);
	}
	ret->l = pp > 0 ? make(pp, pp) : 0;
	return 0;
}

int btask_execname(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	TASK_ARG("task_execname");
	if (current(vm, tid)) {
		vm_context(vm, PROV_CTX_EXECNAME, ret);
		return 0;
	}
	if (task_comm(tid, buf, vm->maxstr) < 0)
		buf[0] = '\0';
	ret->s = buf;
	return 0;
}

#define TASK_ID_FN(fname, name, ctx, field, col)			\
int fname(struct vm *vm, struct lang_val *a, int n,			\
	  struct lang_val *ret, char *buf)				\
{									\
	TASK_ARG(name);							\
	if (current(vm, tid))						\
		vm_context(vm, ctx, ret);				\
	else								\
		ret->l = task_status_num(tid, field, col);		\
	return 0;							\
}

TASK_ID_FN(btask_uid, "task_uid", PROV_CTX_UID, "Uid", 1)
TASK_ID_FN(btask_euid, "task_euid", PROV_CTX_EUID, "Uid", 2)
TASK_ID_FN(btask_gid, "task_gid", PROV_CTX_GID, "Gid", 1)
TASK_ID_FN(btask_egid, "task_egid", PROV_CTX_EGID, "Gid", 2)

/* task_state(): the kernel's state bits (TASK_RUNNING 0, INTERRUPTIBLE 1,
 * UNINTERRUPTIBLE 2, __TASK_STOPPED 4, __TASK_TRACED 8, EXIT_DEAD 16,
 * EXIT_ZOMBIE 32, TASK_IDLE 0x402) from /proc's letter */
int btask_state(struct vm *vm, struct lang_val *a, int n,
		struct lang_val *ret, char *buf)
{
	TASK_ARG("task_state");
	switch (task_state(tid)) {
	case 'S': ret->l = 1; break;
	case 'D': ret->l = 2; break;
	case 'T': ret->l = 4; break;
	case 't': ret->l = 8; break;
	case 'X': ret->l = 16; break;
	case 'Z': ret->l = 32; break;
	case 'I': ret->l = 0x402; break;
	default: ret->l = 0; break;	/* R, or gone */
	}
	return 0;
}

#define TASK_STAT_FN(fname, name, field)				\
int fname(struct vm *vm, struct lang_val *a, int n,			\
	  struct lang_val *ret, char *buf)				\
{									\
	long long v = 0;						\
	TASK_ARG(name);							\
	task_stat_num(tid, field, &v);					\
	ret->l = v;							\
	return 0;							\
}

/* task_prio(): prio - MAX_RT_PRIO (20 at nice 0), /proc's "priority" */
TASK_STAT_FN(btask_prio, "task_prio", 18)
TASK_STAT_FN(btask_nice, "task_nice", 19)

int btask_cpu(struct vm *vm, struct lang_val *a, int n,
	      struct lang_val *ret, char *buf)
{
	long long v = 0;

	TASK_ARG("task_cpu");
	if (current(vm, tid)) {
		vm_context(vm, PROV_CTX_CPU, ret);
		return 0;
	}
	task_stat_num(tid, 39, &v);
	ret->l = v;
	return 0;
}

/* task_start_time(): ns since boot */
int btask_start_time(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);

	TASK_ARG("task_start_time");
	ret->l = task_start_time(tid, &ticks) == 0 && hz > 0 ?
		 (int64_t)(ticks * (1000000000ULL / (unsigned long long)hz)) : 0;
	return 0;
}

/* task_open_file_handles(): the process's open descriptors */
int btask_open_files(struct vm *vm, struct lang_val *a, int n,
		     struct lang_val *ret, char *buf)
{
	int k;

	TASK_ARG("task_open_file_handles");
	k = task_fd_count(tid);
	ret->l = k < 0 ? 0 : k;
	return 0;
}

/* task_max_file_handles(): its RLIMIT_NOFILE soft limit */
int btask_max_files(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	long long v;

	TASK_ARG("task_max_file_handles");
	v = task_nofile_limit(tid);
	ret->l = v < 0 ? 0 : v;
	return 0;
}
