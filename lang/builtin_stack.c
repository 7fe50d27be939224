// SPDX-License-Identifier: GPL-2.0
/*
 * Stack and symbol built-ins: stap's context-symbols, ucontext-symbols,
 * context-unwind and ucontext-unwind tapsets.
 *
 * The callchain is the one the probe's provider recorded with the event
 * (provider.h stack(): kernel addresses, then user ones, innermost
 * first); the probe records one because its handler calls a built-in that
 * builtin_uses_stack() names.  Addresses are named through one symcache
 * per run (common/symcache.h, symcache_shared(): the providers' perf
 * sideband tells it the mappings of the sampled processes as they are
 * made): the process of an event is noted when a built-in here first
 * runs for it, so a stack kept as a hex string
 * (ubacktrace()) and printed in an end probe, after the process exited,
 * still resolves: the process of the current event answers first, else
 * the most recently noted process that maps the address.
 *
 * Formats are the runtime's (_stp_snprint_addr() and its _STP_SYM_*
 * flags), one per family of functions:
 *
 *	backtrace()          "0x1 0x2 0x3"                     (hex, spaces)
 *	print_backtrace()    " 0x1 : f+0x16/0x30 [module]\n"   (full)
 *	sprint_backtrace()   "f+0x16 [module]\n..."            (simple, basename;
 *	                                                        no last newline)
 *	print_ubacktrace_brief()  "f+0x16\n"
 *	print_ubacktrace_fileline()
 *	                     " 0x1 : f+0x16/0x30 at file.c:12 [module]\n"
 *	symdata(addr)        "f+0x16/0x30 [module]"
 *	symname(addr)        "f"
 *	print_syms(str)      " TOKEN : symdata\n" per address of str
 *
 * An address no symbol names is printed in hex; with only its module
 * known, as "0x1 [module+0xoff/0xsize]".  A probe without a stack prints
 * "<no user backtrace at PP>" as stap does where it has none.  The kernel
 * is "kernel"; a user module is the file's path as the process mapped it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/symcache.h"
#include "lang/builtin.h"
#include "lang/fmt_sb.h"

struct stack_state {
	struct symcache *syms;
	struct strbuf sb;	/* sprint_*'s text before truncation */
};

/* The formats of _stp_snprint_addr() that tapset functions use. */
enum sym_fmt {
	SYM_NONE,		/* "0x1 " */
	SYM_SYMBOL,		/* "f" */
	SYM_DATA,		/* "f+0x1/0x2 [mod]" */
	SYM_FULL,		/* " 0x1 : f+0x1/0x2 [mod]\n" */
	SYM_FULLER,		/* ... " at file:line" */
	SYM_SIMPLE,		/* "f+0x1 [basename]\n" */
	SYM_BRIEF,		/* "f+0x1\n" */
	SYM_FILELINE,		/* "file:line" */
};

static struct stack_state *state(struct vm *vm)
{
	if (!vm->stk) {
		vm->stk = xcalloc(1, sizeof(*vm->stk));
		vm->stk->syms = symcache_shared();
	}
	return vm->stk;
}

void builtin_stack_release(struct vm *vm)
{
	if (!vm || !vm->stk)
		return;
	symcache_free(vm->stk->syms);
	fmt_sb_release(&vm->stk->sb);
	free(vm->stk);
	vm->stk = NULL;
}

/* ---- the event ------------------------------------------------------------ */

/* The process of the current event, 0 outside one (begin, end, timers). */
static pid_t event_pid(struct vm *vm)
{
	const struct prov_probe *pp = vm->probe ? vm->probe->pp : NULL;
	struct lang_val v = { 0, "" };

	if (!pp || !vm->ev || !pp->prov->context ||
	    pp->prov->context(pp, vm->ev, PROV_CTX_PID, &v) || v.l <= 0)
		return 0;
	return (pid_t)v.l;
}

/* The user pid to look addresses up in; the event's process is noted. */
static pid_t user_pid(struct vm *vm)
{
	pid_t pid = event_pid(vm);

	if (pid > 0)
		symcache_note(state(vm)->syms, pid);
	return pid;
}

/* The recorded callchain's kernel (@user false) or user part; false when
 * the event has none. */
static bool chain(struct vm *vm, bool user, const uint64_t **pcs, size_t *n)
{
	const struct prov_probe *pp = vm->probe ? vm->probe->pp : NULL;
	const uint64_t *v;
	size_t nk = 0, nu = 0;

	if (!pp || !vm->ev || !pp->prov->stack ||
	    pp->prov->stack(pp, vm->ev, &v, &nk, &nu) < 0)
		return false;
	*pcs = user ? v + nk : v;
	*n = user ? nu : nk;
	return *n > 0;
}

/* ---- formatting ------------------------------------------------------------ */

static void hex(struct strbuf *sb, uint64_t v)
{
	fmt_sb_addf(sb, "0x%llx", (unsigned long long)v);
}

/*
 * Name @addr (kernel or @user of process @pid) in format @f onto @sb
 * (_stp_snprint_addr()).  @ret: a return address (lines of the call).
 */
static void add_addr(struct vm *vm, struct strbuf *sb, uint64_t addr,
		     bool user, pid_t pid, enum sym_fmt f, bool ret)
{
	struct symcache *c = state(vm)->syms;
	struct symcache_sym s = { 0 };
	unsigned int flags = 0;
	const char *mod;

	if (f == SYM_NONE) {
		hex(sb, addr);
		fmt_sb_addc(sb, ' ');
		return;
	}
	if (f == SYM_FULLER || f == SYM_FILELINE)
		flags = SYMCACHE_LINES | (ret ? SYMCACHE_RETADDR : 0);
	if (user)
		symcache_user(c, pid, addr, flags, &s);
	else
		symcache_kernel(c, addr, &s);
	mod = s.module;
	if (mod && f == SYM_SIMPLE && strrchr(mod, '/'))
		mod = strrchr(mod, '/') + 1;
	if (f == SYM_FULL || f == SYM_FULLER)
		fmt_sb_addc(sb, ' ');
	switch (f) {
	case SYM_SYMBOL:
		if (s.name) {
			fmt_sb_addstr(sb, s.name);
			return;
		}
		break;
	case SYM_FILELINE:
		if (s.file) {
			fmt_sb_addf(sb, "%s:%d", s.file, s.line);
			return;
		}
		break;
	case SYM_BRIEF:
		if (s.name) {
			fmt_sb_addf(sb, "%s+0x%llx\n", s.name,
				    (unsigned long long)s.offset);
			return;
		}
		break;
	case SYM_SIMPLE:
		if (s.name)
			fmt_sb_addf(sb, "%s+0x%llx", s.name,
				    (unsigned long long)s.offset);
		else if (mod) {
			hex(sb, addr);
			fmt_sb_addf(sb, " [%s+0x%llx]\n", mod,
				    (unsigned long long)s.offset);
			return;
		}
		if (s.name && mod)
			fmt_sb_addf(sb, " [%s]", mod);
		if (s.name) {
			fmt_sb_addc(sb, '\n');
			return;
		}
		break;
	case SYM_DATA:
	case SYM_FULL:
	case SYM_FULLER:
		if (!s.name && !mod)
			break;
		if (f != SYM_DATA || !s.name) {
			hex(sb, addr);
			fmt_sb_addstr(sb, s.name ? " : " : " ");
		}
		if (s.name)
			fmt_sb_addf(sb, "%s+0x%llx/0x%llx", s.name,
				    (unsigned long long)s.offset,
				    (unsigned long long)s.size);
		else
			fmt_sb_addf(sb, "[%s+0x%llx/0x%llx]", mod,
				    (unsigned long long)s.offset,
				    (unsigned long long)s.size);
		if (f == SYM_FULLER && s.file)
			fmt_sb_addf(sb, " at %s:%d", s.file, s.line);
		if (s.name && mod)
			fmt_sb_addf(sb, " [%s]", mod);
		if (f != SYM_DATA)
			fmt_sb_addc(sb, '\n');
		return;
	default:
		break;
	}
	/* no names: hex only */
	hex(sb, addr);
	if (f == SYM_FULL || f == SYM_FULLER || f == SYM_SIMPLE ||
	    f == SYM_BRIEF)
		fmt_sb_addc(sb, '\n');
}

/* A whole stack of the event in format @f (_stp_stack_*_print()). */
static void add_stack(struct vm *vm, struct strbuf *sb, bool user,
		      enum sym_fmt f)
{
	const uint64_t *pcs;
	size_t i, n;
	pid_t pid = user ? user_pid(vm) : 0;

	if (!chain(vm, user, &pcs, &n)) {
		if (f == SYM_NONE)
			fmt_sb_addc(sb, '\n');
		else
			fmt_sb_addf(sb, "<no %s backtrace at %s>\n",
				    user ? "user" : "kernel",
				    vm->probe ? vm->probe->pp->pp : "");
		return;
	}
	for (i = 0; i < n; i++)
		add_addr(vm, sb, pcs[i], user, pid, f, i > 0);
}

/*
 * A string result as _stp_stack_*_sprint() makes it: the text less its
 * last character (the separator after the last address), or the first
 * MAXSTRINGLEN - 1 characters (strlcpy()).
 */
static int ret_text(struct vm *vm, struct strbuf *sb, struct lang_val *ret,
		    char *buf)
{
	size_t n = sb->len ? sb->len - 1 : 0;

	if (n > vm->maxstr - 1)
		n = vm->maxstr - 1;
	memcpy(buf, fmt_sb_str(sb), n);
	buf[n] = '\0';
	ret->s = buf;
	return 0;
}

static struct strbuf *scratch(struct vm *vm)
{
	struct strbuf *sb = &state(vm)->sb;

	fmt_sb_reset(sb);
	return sb;
}

/* ---- the built-ins ---------------------------------------------------------- */

#define STACK_STR_FN(fname, user, f)					\
int fname(struct vm *vm, struct lang_val *a, int n,			\
	  struct lang_val *ret, char *buf)				\
{									\
	struct strbuf *sb = scratch(vm);				\
									\
	add_stack(vm, sb, user, f);					\
	return ret_text(vm, sb, ret, buf);				\
}

#define STACK_PRINT_FN(fname, user, f)					\
int fname(struct vm *vm, struct lang_val *a, int n,			\
	  struct lang_val *ret, char *buf)				\
{									\
	add_stack(vm, &vm->out, user, f);				\
	ret->l = 0;							\
	return 0;							\
}

STACK_STR_FN(bstack_backtrace, false, SYM_NONE)
STACK_STR_FN(bstack_ubacktrace, true, SYM_NONE)
STACK_STR_FN(bstack_sprint_backtrace, false, SYM_SIMPLE)
STACK_STR_FN(bstack_sprint_ubacktrace, true, SYM_SIMPLE)
STACK_PRINT_FN(bstack_print_backtrace, false, SYM_FULL)
STACK_PRINT_FN(bstack_print_ubacktrace, true, SYM_FULL)
STACK_PRINT_FN(bstack_print_ubacktrace_brief, true, SYM_BRIEF)
STACK_PRINT_FN(bstack_print_ubacktrace_fileline, true, SYM_FULLER)

/*
 * print_syms(), sprint_syms() and the u variants (the tapset's loops):
 * each space-separated token of @s as " TOKEN : symdata(TOKEN)\n"; the
 * string form stops before a line that would not fit whole.
 */
static void add_syms(struct vm *vm, struct strbuf *sb, const char *s,
		     bool user, bool whole_lines)
{
	pid_t pid = user ? user_pid(vm) : 0;
	size_t limit = vm->maxstr;

	while (*s) {
		size_t len = strcspn(s, " "), mark = sb->len;
		uint64_t addr;

		if (!len) {
			s++;
			continue;
		}
		addr = strtoull(s, NULL, 16);
		fmt_sb_addc(sb, ' ');
		fmt_sb_add(sb, s, len);
		fmt_sb_addstr(sb, " : ");
		add_addr(vm, sb, addr, user, pid, SYM_DATA, false);
		fmt_sb_addc(sb, '\n');
		if (whole_lines && sb->len > limit) {
			fmt_sb_truncate(sb, mark);
			break;
		}
		s += len;
	}
}

int bstack_print_syms(struct vm *vm, struct lang_val *a, int n,
		      struct lang_val *ret, char *buf)
{
	add_syms(vm, &vm->out, a[0].s, false, false);
	ret->l = 0;
	return 0;
}

int bstack_print_usyms(struct vm *vm, struct lang_val *a, int n,
		       struct lang_val *ret, char *buf)
{
	add_syms(vm, &vm->out, a[0].s, true, false);
	ret->l = 0;
	return 0;
}

/* A whole text as a string value (truncated to MAXSTRINGLEN - 1). */
static int ret_all(struct vm *vm, struct strbuf *sb, struct lang_val *ret,
		   char *buf)
{
	size_t n = sb->len;

	if (n > vm->maxstr - 1)
		n = vm->maxstr - 1;
	memcpy(buf, fmt_sb_str(sb), n);
	buf[n] = '\0';
	ret->s = buf;
	return 0;
}

int bstack_sprint_syms(struct vm *vm, struct lang_val *a, int n,
		       struct lang_val *ret, char *buf)
{
	struct strbuf *sb = scratch(vm);

	add_syms(vm, sb, a[0].s, false, true);
	return ret_all(vm, sb, ret, buf);
}

int bstack_sprint_usyms(struct vm *vm, struct lang_val *a, int n,
			struct lang_val *ret, char *buf)
{
	struct strbuf *sb = scratch(vm);

	add_syms(vm, sb, a[0].s, true, true);
	return ret_all(vm, sb, ret, buf);
}

#define SYM_FN(fname, user, f)						\
int fname(struct vm *vm, struct lang_val *a, int n,			\
	  struct lang_val *ret, char *buf)				\
{									\
	struct strbuf *sb = scratch(vm);				\
									\
	add_addr(vm, sb, (uint64_t)a[0].l, user,			\
		 user ? user_pid(vm) : 0, f, false);			\
	return ret_all(vm, sb, ret, buf);				\
}

SYM_FN(bstack_symname, false, SYM_SYMBOL)
SYM_FN(bstack_symdata, false, SYM_DATA)
SYM_FN(bstack_usymname, true, SYM_SYMBOL)
SYM_FN(bstack_usymdata, true, SYM_DATA)
SYM_FN(bstack_usymfileline, true, SYM_FILELINE)

/*
 * callers(n), ucallers(n): the first n + 1 addresses of backtrace() or
 * ubacktrace() (stap's loop over stack(0)...stack(n)), "0x%x" each, one
 * space apart, all of them for n = -1; a string that would pass
 * MAXSTRINGLEN stops before the address that does not fit; a stack
 * shallower than asked is an error, as stap's unwinder reports it.
 */
static int add_callers(struct vm *vm, bool user, int64_t depth,
		       struct lang_val *ret, char *buf)
{
	const uint64_t *pcs;
	size_t i, n = 0, len = 0;

	buf[0] = '\0';
	ret->s = buf;
	if (!chain(vm, user, &pcs, &n))
		n = 0;
	for (i = 0; depth == -1 ? i < n : (int64_t)i <= depth; i++) {
		char tok[24];
		int l;

		if (i >= n) {
			vm_raise(vm, "cannot unwind the %s stack to depth %lld "
				 "(%zu frames at %s)", user ? "user" : "kernel",
				 (long long)depth, n,
				 vm->probe ? vm->probe->pp->pp : "");
			return -1;
		}
		l = snprintf(tok, sizeof(tok), "%s0x%llx", i ? " " : "",
			     (unsigned long long)pcs[i]);
		if (len + l > vm->maxstr - 1)
			break;
		memcpy(buf + len, tok, l + 1);
		len += l;
	}
	return 0;
}

int bstack_callers(struct vm *vm, struct lang_val *a, int n,
		   struct lang_val *ret, char *buf)
{
	return add_callers(vm, false, a[0].l, ret, buf);
}

int bstack_ucallers(struct vm *vm, struct lang_val *a, int n,
		    struct lang_val *ret, char *buf)
{
	return add_callers(vm, true, a[0].l, ret, buf);
}

/*
 * ppfunc(): the function the probe point names (stap parses pp() for
 * function("NAME") or inline("NAME"); here also plt("NAME")), as the
 * provider resolved it for this probe; "" for a point naming none
 * (timer.profile, perf.*, tracepoints, statements), where probefunc()
 * names the function the event happened in.
 */
int bstack_ppfunc(struct vm *vm, struct lang_val *a, int n,
		  struct lang_val *ret, char *buf)
{
	const char *pp = vm->probe ? vm->probe->pp->pp : "";

	ret->s = "";
	if (strstr(pp, "function(\"") || strstr(pp, "inline(\"") ||
	    strstr(pp, "plt(\""))
		vm_context(vm, PROV_CTX_PROBEFUNC, ret);
	return 0;
}
