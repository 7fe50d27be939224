// SPDX-License-Identifier: GPL-2.0
/*
 * Opens with their paths, from what the kernel offers.
 *
 * The syscall tracepoints see every open and its result, but record the
 * path only as a user pointer: by the time a record is read the process
 * may have changed that memory, or exited.  The path must be fetched while
 * the call runs, which takes a probe that can read user memory:
 *
 * kprobes: do_sys_openat2 (every open(2), openat(2), openat2(2), creat(2)
 *   since 5.6; do_sys_open before) fetches the path with `ustring` and the
 *   flags from its struct open_how; its kretprobe gives the result.  Entry
 *   and return pair by thread (the function does not nest).
 *
 * uprobes + syscall tracepoints: uprobes on the C library's open family
 *   fetch the path (and its pointer) as the wrapper is entered; the same
 *   thread's next sys_enter_open* carries the flags, and its sys_exit_*
 *   the result.  A wrapper hit counts only for the syscall that passes the
 *   same pointer, and only for the next one: a wrapper that failed before
 *   its syscall never lends its path to a later raw call.  Aliases (open,
 *   open64, __open) share one uprobe.  The library's syscall(2) is probed
 *   the same way, its path taken from the argument the number says (a
 *   kernel filter keeps only the open family's numbers).  With -p of a
 *   static program, the program's own copies are probed too.  A syscall no
 *   probe announced (a static program system wide, the dynamic loader's
 *   own opens, an inlined syscall instruction) gets its path from the
 *   process's memory when its exit is read (source "memory", marked as not
 *   captured at the call), or only the pointer when that is gone (source
 *   "none").
 *
 * Task names are taken at the call (tool/comms.h), not at print time.
 *
 * Our own opens (the /proc files read for names and ids) are filtered out
 * in the kernel: they would only be noise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/hmap.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "common/usite.h"
#include "tool/comms.h"
#include "tracefs/format.h"
#include "tool/opens_int.h"
#include "tracefs/session.h"

/* The argument registers as fetch args name them. */
#if defined(__x86_64__)
#define ARG1 "%di"
#define ARG2 "%si"
#define ARG3 "%dx"
#define ARG4 "%cx"
#elif defined(__aarch64__)
#define ARG1 "%x0"
#define ARG2 "%x1"
#define ARG3 "%x2"
#define ARG4 "%x3"
#endif

static const struct { const char *name, *path, *flags, *dfd, *mode; } sys_tab[NSYS] = {
	[SYS_OPEN] = { "open", "filename", "flags", NULL, "mode" },
	[SYS_OPENAT] = { "openat", "filename", "flags", "dfd", "mode" },
	/* struct open_how *: its flags and mode are read at the exit */
	[SYS_OPENAT2] = { "openat2", "filename", "how", "dfd", NULL },
	[SYS_CREAT] = { "creat", "pathname", NULL, NULL, "mode" },
};

struct opens *opens_new(struct session *s, const struct opens_opts *o,
			opens_fn fn, void *arg)
{
	struct opens *op = xcalloc(1, sizeof(*op));

	op->s = s;
	op->o = *o;
	op->fn = fn;
	op->arg = arg;
	op->threads = hmap_new(sizeof(struct thread));
	op->comms = comms_new();
	return op;
}

void opens_free(struct opens *op)
{
	if (!op)
		return;
	hmap_free(op->threads);
	comms_free(op->comms);
	free(op->u);
	free(op->static_exe);
	free(op->mechanism);
	free(op);
}

void opens_started(struct opens *op)
{
	comms_snapshot(op->comms, op->o.pid);
}

const char *opens_mechanism(const struct opens *op)
{
	return op->mechanism ? op->mechanism : "none";
}

const char *opens_source_name(enum opens_source src)
{
	static const char *const names[] = { "kprobe", "uprobe", "memory", "none" };

	return src <= OPENS_NONE ? names[src] : "none";
}

static int field(struct opens *op, struct tp *tp, const char *name,
		 struct tk_field *f, char *err, size_t errlen)
{
	if (format_field(tp->event, name, f) == 0)
		return 0;
	return errmsg(err, errlen, -EINVAL, "event %s has no field '%s'", tp->name, name);
}

static int session_err(struct opens *op, char *err, size_t errlen)
{
	return errmsg(err, errlen, errno ? -errno : -EINVAL, "%s", session_error(op->s));
}

#ifdef ARG1
/*
 * kprobes on do_sys_openat2, or do_sys_open on kernels before 5.6: 1 when
 * defined, 0 when there is no such function or the kernel refuses the
 * probe (lockdown: the reason in @refused), -errno with @err said.
 */
static int add_kprobes(struct opens *op, const char *filter, const char *ret_filter,
		       char *refused, size_t n, char *err, size_t errlen)
{
	static const struct { const char *func, *flags; } k[] = {
		/* how->flags, how->mode */
		{ "do_sys_openat2", "+0(" ARG3 "):u64 mode=+8(" ARG3 "):u64" },
		{ "do_sys_open", ARG3 ":u32 mode=" ARG4 ":u32" },
	};
	/* (register names are no format: "%si") */
	const char *args = "path=+0(" ARG2 "):ustring ptr=" ARG2 ":u64 dfd=" ARG1
			   ":s32 flags=";
	char why[256], *a;
	unsigned int i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		if (kfunc_check(k[i].func, why, sizeof(why)) < 0)
			continue;	/* not in this kernel, or blacklisted */
		a = xasprintf("%s%s", args, k[i].flags);
		op->kentry = session_add_kprobe(op->s, "open_entry", k[i].func, a,
						false, TP_RECORD, filter);
		free(a);
		if (!op->kentry) {
			snprintf(refused, n, "kprobe refused: %s", session_error(op->s));
			return 0;
		}
		op->kret = session_add_kprobe(op->s, "open_return", k[i].func,
					      "ret=$retval:s64", true, TP_RECORD,
					      ret_filter);
		if (!op->kret)
			return session_err(op, err, errlen);
		op->mechanism = xasprintf("kprobes on %s", k[i].func);
		return field(op, op->kentry, "path", &op->k_path, err, errlen) ?:
		       field(op, op->kentry, "ptr", &op->k_ptr, err, errlen) ?:
		       field(op, op->kentry, "flags", &op->k_flags, err, errlen) ?:
		       field(op, op->kentry, "dfd", &op->k_dfd, err, errlen) ?:
		       field(op, op->kentry, "mode", &op->k_mode, err, errlen) ?:
		       field(op, op->kret, "ret", &op->k_ret, err, errlen) ?: 1;
	}
	return 0;
}

/* The C library's open family and the register holding the path. */
static const struct { const char *name, *reg; } libc_tab[] = {
	{ "open", ARG1 }, { "open64", ARG1 }, { "__open", ARG1 },
	{ "__open64", ARG1 }, { "__open_2", ARG1 }, { "__open64_2", ARG1 },
	{ "__open_nocancel", ARG1 }, { "__open64_nocancel", ARG1 },
	{ "creat", ARG1 }, { "creat64", ARG1 },
	{ "openat", ARG2 }, { "openat64", ARG2 }, { "__openat_2", ARG2 },
	{ "__openat64_2", ARG2 }, { "__openat_nocancel", ARG2 },
	{ "__openat64_nocancel", ARG2 },
};
#define NLIBC (sizeof(libc_tab) / sizeof(libc_tab[0]))

/* syscall(3) with a path: its number in ARG1, the path in ARG2 or ARG3 */
static const char syscall_args[] =
	"nr=" ARG1 ":s64 path=+0(" ARG2 "):ustring ptr=" ARG2 ":u64 "
	"path2=+0(" ARG3 "):ustring ptr2=" ARG3 ":u64";

/* A uprobe on @site fetching the path from @reg (syscall(3): NULL). */
static void add_uprobe(struct opens *op, const char *event, const struct usite *site,
		       const char *reg, const char *filter, char *why, size_t n)
{
	struct uprobe_ev *u = &op->u[op->nu];
	char *args, *f = NULL;

	if (reg) {
		args = xasprintf("path=+0(%s):ustring ptr=%s:u64", reg, reg);
	} else {
		args = xstrdup(syscall_args);
		f = xasprintf("%s && (nr == %d || nr == %d || nr == %d || nr == %d)",
			      filter, SYS_NR_OPEN, SYS_NR_OPENAT, SYS_NR_OPENAT2,
			      SYS_NR_CREAT);
	}
	u->tp = session_add_uprobe(op->s, event, site->path, site->offset, args,
				   false, TP_RECORD, f ? f : filter);
	free(args);
	free(f);
	u->syscall = !reg;
	/* one refused uprobe leaves its calls to the memory reads */
	if (!u->tp)
		errmsg(why, n, -EINVAL, "%s", session_error(op->s));
	else if (format_field(u->tp->event, "path", &u->path) == 0 &&
		 format_field(u->tp->event, "ptr", &u->ptr) == 0 &&
		 (reg || (format_field(u->tp->event, "nr", &u->nr) == 0 &&
			  format_field(u->tp->event, "path2", &u->path2) == 0 &&
			  format_field(u->tp->event, "ptr2", &u->ptr2) == 0)))
		op->nu++;
}

/*
 * Uprobes on each function of the family (and syscall(3)) that @target
 * has; its path in @lib.  The number of functions found, or -errno with
 * the reason in @why.
 */
static int add_uprobes_in(struct opens *op, const char *target, const char *filter,
			  char **lib, char *why, size_t n)
{
	struct usite_opts uo = { .pid = op->o.pid };
	uint64_t seen[NLIBC + 1];
	size_t i, k, nseen = 0;

	for (i = 0; i <= NLIBC; i++) {
		const char *name = i < NLIBC ? libc_tab[i].name : "syscall";
		struct usite_list l = { 0 };
		int ret = usite_functions(target, name, &uo, &l, why, n);

		if (ret < 0)
			return ret;
		for (k = 0; l.n && k < nseen && seen[k] != l.v[0].offset; k++)
			;
		if (!l.n || k < nseen) {	/* not there, or an alias */
			usite_list_release(&l);
			continue;
		}
		seen[nseen++] = l.v[0].offset;
		if (!*lib)
			*lib = xstrdup(l.v[0].path);
		add_uprobe(op, name, &l.v[0], i < NLIBC ? libc_tab[i].reg : NULL,
			   filter, why, n);
		usite_list_release(&l);
	}
	return (int)nseen;
}

/* Uprobes on the C library's, and with a PID whose program is static,
 * on that program's own copies; the library's path in @lib.  0, or
 * -errno with the reason in @why. */
static int add_uprobes(struct opens *op, const char *filter, char **lib,
		       char *why, size_t n)
{
	char *interp = NULL, *exe = NULL, tmp[256];
	int ret, found;

	if (!session_has_uprobes())
		return errmsg(why, n, -ENOTSUP, "this kernel has no uprobe events");
	op->u = xcalloc(2 * (NLIBC + 1), sizeof(*op->u));
	ret = add_uprobes_in(op, "libc", filter, lib, why, n);
	if (ret < 0)
		return ret;
	found = ret;
	if (op->o.pid > 0 &&
	    usite_interp(NULL, op->o.pid, &interp, tmp, sizeof(tmp)) == -ENOENT) {
		ret = add_uprobes_in(op, NULL, filter, &exe, tmp, sizeof(tmp));
		if (ret > 0) {
			found += ret;
			op->static_exe = exe;
			exe = NULL;
		}
	}
	free(interp);
	free(exe);
	if (!found)
		return errmsg(why, n, -ENOENT, "no open function in %s",
			      *lib ? *lib : "the C library");
	return op->nu ? 0 : -EINVAL;
}
#endif

static int add_syscalls(struct opens *op, const char *filter, const char *ret_filter,
			char *err, size_t errlen)
{
	char name[64];
	int i;

	for (i = 0; i < NSYS; i++) {
		struct sysc *c = &op->sys[i];

		snprintf(name, sizeof(name), "sys_enter_%s", sys_tab[i].name);
		if (format_event_id("syscalls", name) < 0 && i != SYS_OPENAT)
			continue;	/* not on this machine (arm64: no open) */
		c->enter = session_add(op->s, "syscalls", name, TP_RECORD, filter);
		snprintf(name, sizeof(name), "sys_exit_%s", sys_tab[i].name);
		c->exit = c->enter ? session_add(op->s, "syscalls", name, TP_RECORD,
						 ret_filter) : NULL;
		if (!c->exit)
			return session_err(op, err, errlen);
		if (field(op, c->enter, sys_tab[i].path, &c->path, err, errlen) ||
		    (sys_tab[i].flags && field(op, c->enter, sys_tab[i].flags,
					       &c->flags, err, errlen)) ||
		    (sys_tab[i].dfd && field(op, c->enter, sys_tab[i].dfd,
					     &c->dfd, err, errlen)) ||
		    (sys_tab[i].mode && field(op, c->enter, sys_tab[i].mode,
					      &c->mode, err, errlen)) ||
		    field(op, c->exit, "ret", &c->ret, err, errlen))
			return -EINVAL;
	}
	return 0;
}

int opens_add(struct opens *op, char *err, size_t errlen)
{
	char filter[128], ret_filter[160], why[512] = "no uprobes on this machine";
	char refused[384] = "", *lib = NULL;
	int ret, len;

	len = snprintf(filter, sizeof(filter), "common_pid != %d", getpid());
	if (op->o.comm)
		snprintf(filter + len, sizeof(filter) - len, " && comm ~ \"*%s*\"",
			 op->o.comm);
	snprintf(ret_filter, sizeof(ret_filter), "%s%s", filter,
		 op->o.failed ? " && ret < 0" : "");
#ifdef ARG1
	if (session_has_kprobes()) {
		ret = add_kprobes(op, filter, ret_filter, refused, sizeof(refused),
				  err, errlen);
		if (ret < 0)
			return ret;
		if (ret)
			return comms_add(op->comms, op->s, err, errlen);
	}
#endif
	if (format_event_id("syscalls", "sys_enter_openat") < 0)
		return refused[0] ?
			errmsg(err, errlen, -ENOTSUP, "no syscall tracepoints, and %s", refused) :
			errmsg(err, errlen, -ENOTSUP,
			       "this kernel has neither kprobes nor syscall tracepoints (CONFIG_KPROBE_EVENTS, CONFIG_FTRACE_SYSCALLS)");
	ret = add_syscalls(op, filter, ret_filter, err, errlen) ?:
	      comms_add(op->comms, op->s, err, errlen);
	if (ret)
		return ret;
#ifdef ARG1
	if (add_uprobes(op, filter, &lib, why, sizeof(why)) == 0)
		op->mechanism = xasprintf("uprobes on %s%s%s + syscall tracepoints%s%s%s",
					  lib, op->static_exe ? " and " : "",
					  op->static_exe ? op->static_exe : "",
					  refused[0] ? " (" : "", refused,
					  refused[0] ? ")" : "");
	if (op->mechanism) {
		free(lib);
		return 0;
	}
#endif
	free(lib);
	op->mechanism = xasprintf("syscall tracepoints, paths read from process memory (%s%s%s)",
				  why, refused[0] ? "; " : "", refused);
	return 0;
}

static const struct { const char *name; int flag; } flag_names[] = {
	{ "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
	{ "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_NOCTTY", O_NOCTTY },
	{ "O_TRUNC", O_TRUNC }, { "O_APPEND", O_APPEND },
	{ "O_NONBLOCK", O_NONBLOCK }, { "O_DSYNC", O_DSYNC },
	{ "O_ASYNC", O_ASYNC }, { "O_DIRECT", O_DIRECT },
	{ "O_LARGEFILE", O_LARGEFILE }, { "O_DIRECTORY", O_DIRECTORY },
	{ "O_NOFOLLOW", O_NOFOLLOW }, { "O_NOATIME", O_NOATIME },
	{ "O_CLOEXEC", O_CLOEXEC }, { "O_SYNC", O_SYNC }, { "O_PATH", O_PATH },
	{ "O_TMPFILE", O_TMPFILE },
};

int opens_flag(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (!strcmp(name, flag_names[i].name))
			return flag_names[i].flag;
	return -1;
}

bool opens_flags_any(int64_t flags, const int *want, int n)
{
	int i, f;

	if (!n)
		return true;
	for (i = 0; flags >= 0 && i < n; i++) {
		f = want[i];
		if (f == O_RDONLY || f == O_WRONLY || f == O_RDWR ?
		    (flags & O_ACCMODE) == f : (flags & f) == f)
			return true;
	}
	return false;
}
