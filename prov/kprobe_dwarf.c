// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel probe points by source, from the kernel's DWARF (common/kdwarf.c):
 *
 *	kernel.function("f@fs/open.c")		out-of-line and inline instances
 *	kernel.function("*@fs/open.c").call	out-of-line only
 *	kernel.function("f@fs/open.c").inline	inline instances only
 *	kernel.function("f@fs/open.c:1310")	a line of f
 *	kernel.statement("f@fs/open.c:1310")	its addresses
 *	kernel.statement("*@fs/open.c:1300-1310"), ... .nearest
 *
 * Each site is a link-time address of vmlinux, turned into the kprobe's
 * `symbol+offset` (KASLR leaves that alone; a symbol name the kernel has
 * more than once becomes the running address).  A site the kernel would
 * refuse is refused here with the reason: no function symbol, a
 * blacklisted (NOKPROBE) or init function, or a notrace one, which kprobe
 * events may not enter on kernels without KPROBE_EVENTS_ON_NOTRACE.  A
 * wildcard leaves such sites out; a named site reports them.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/kdwarf.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "prov/kprobe.h"

struct kdwarf *kprobe_dwarf(char *err, size_t errlen)
{
	static struct kdwarf *k;
	static char why[512];
	static bool tried;

	if (!tried) {
		tried = true;
		k = kdwarf_open(why, sizeof(why));
	}
	if (!k)
		snprintf(err, errlen, "%s", why);
	return k;
}

static void push(struct kdsite_list *l, char *pp, const char *func, char *addr,
		 uint64_t pc)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].pc == pc && !strcmp(l->v[i].pp, pp)) {
			free(pp);
			free(addr);
			return;
		}
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = (struct kdsite){ pp, xstrdup(func), addr, pc };
}

void kdsite_list_release(struct kdsite_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].pp);
		free(l->v[i].func);
		free(l->v[i].addr);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* Where a kprobe at link-time @pc goes ("sym+0x1a"), or NULL and why. */
static char *place(struct kdwarf *kd, uint64_t pc, bool ret, char *err,
		   size_t errlen)
{
	struct kfunc_list l = { 0 };
	const char *sym;
	uint64_t off, abs;
	char *dot, *base, why[256];

	if (kdwarf_symbol(kd, pc, &sym, &off)) {
		errmsg(err, errlen, -ENOENT, "no function symbol of '%s' covers "
		       "0x%" PRIx64, kdwarf_path(kd), pc);
		return NULL;
	}
	if (ret && off) {
		errmsg(err, errlen, -EINVAL, "0x%" PRIx64 " is inside '%s': a "
		       "return probe needs a function's entry", pc, sym);
		return NULL;
	}
	if (kfunc_check(sym, err, errlen) < 0)
		return NULL;
	/* notrace: the kernel refuses kprobe events in functions ftrace
	 * cannot trace (a suffixed copy goes by its base name) */
	base = xstrdup(sym);
	if (kfunc_match(base, &l, why, sizeof(why)) >= 0 && !l.n &&
	    (dot = strchr(base, '.'))) {
		*dot = '\0';
		kfunc_match(base, &l, why, sizeof(why));
	}
	if (!l.n) {
		errmsg(err, errlen, -EPERM, "'%s' is notrace (not in "
		       "available_filter_functions): kprobe events cannot go "
		       "there", sym);
		free(base);
		return NULL;
	}
	kfunc_list_release(&l);
	free(base);
	if (kdwarf_symbol_unique(kd, sym))
		return off ? xasprintf("%s+0x%" PRIx64, sym, off) : xstrdup(sym);
	if (!dwinfo_kernel_addr(kdwarf_dwinfo(kd), pc, &abs) || abs == pc) {
		/* without KASLR the link-time address is the running one */
		abs = pc;
	}
	return xasprintf("0x%" PRIx64, abs);
}

/* "f@file:12" -> func "f", file "file", lines "12" (each may be NULL). */
static void split_spec(char *s, char **func, char **file, char **lines)
{
	char *at = strchr(s, '@'), *colon;

	*func = s;
	*file = NULL;
	*lines = NULL;
	if (at) {
		*at = '\0';
		*file = at + 1;
	}
	colon = strrchr(at ? at + 1 : s, ':');
	if (colon) {
		*colon = '\0';
		*lines = colon + 1;
		if (!at) {
			*file = s;
			*func = NULL;
		}
	}
}

static int parse_lines(const char *s, long *lo, long *hi)
{
	char *end;

	*lo = strtol(s, &end, 10);
	*hi = *lo;
	if (*end == '-')
		*hi = strtol(end + 1, &end, 10);
	return *end || *lo <= 0 || *hi < *lo || *hi - *lo > 100000 ? -EINVAL : 0;
}

/* The addresses of lines @lo..@hi of @func@@file (the first line from @lo
 * on with code for @nearest). */
static int statements(struct kdwarf *kd, const char *what, const char *func,
		      const char *file, long lo, long hi, bool nearest,
		      struct kdsite_list *out, char *err,
		      size_t errlen)
{
	struct dwinfo *dw = kdwarf_dwinfo(kd);
	char first[512] = "";
	int ret = -ENOENT, skipped = 0;
	size_t i, n;
	long ln;

	if (nearest && hi == lo)
		hi = lo + 50;
	for (ln = lo; ln <= hi; ln++) {
		struct dwline *v;
		char *spec = func ? xasprintf("%s@%s:%ld", func, file, ln) :
				    xasprintf("%s:%ld", file, ln);
		int r = dwinfo_statement(dw, spec, &v, &n, err, errlen);

		free(spec);
		if (r == -ENOENT) {
			if (ln == lo)
				snprintf(first, sizeof(first), "%s", err);
			continue;
		}
		if (r < 0)
			return r;
		for (i = 0; i < n; i++) {
			char why[256], *addr = place(kd, v[i].addr, false, why,
						     sizeof(why));

			if (!addr) {
				if (!skipped++)
					snprintf(first, sizeof(first), "%s:%d: %s",
						 file, v[i].line, why);
				continue;
			}
			push(out, xasprintf("%s(\"%s@%s:%d\")", what,
					    v[i].func ? v[i].func : "?", file,
					    v[i].line),
			     v[i].func ? v[i].func : "", addr, v[i].addr);
			ret = 0;
		}
		dwlines_free(v, n);
		if (!ret && nearest)
			break;
	}
	if (ret && first[0])
		return errmsg(err, errlen, ret, "%s", first);
	if (ret)
		return errmsg(err, errlen, ret, "no code at %s:%ld-%ld", file,
			      lo, hi);
	return 0;
}

int kprobe_dwarf_sites(const char *spec, enum kdkind kind, bool nearest,
		       struct kdsite_list *out, char *err, size_t errlen)
{
	static const char *const suffix[] = {
		[KD_FUNC] = "", [KD_CALL] = ".call", [KD_INLINE] = ".inline",
		[KD_RETURN] = ".return", [KD_STMT] = "",
	};
	struct kdwarf *kd = kprobe_dwarf(err, errlen);
	char *copy, *func, *file, *lines;
	struct dwfunc_list fl = { 0 };
	bool glob;
	long lo, hi;
	size_t i;
	int ret, skipped = 0;
	char first[512] = "";

	memset(out, 0, sizeof(*out));
	if (!kd)
		return -ENOENT;
	copy = xstrdup(spec);
	split_spec(copy, &func, &file, &lines);
	if (!file || !*file || (func && !*func)) {
		ret = errmsg(err, errlen, -EINVAL, "\"%s\": expected %s", spec,
			     kind == KD_STMT ? "FUNC@FILE:LINE" : "FUNC@FILE[:LINE]");
		goto out;
	}
	if (kdwarf_scope(kd, file) == -ENOENT)
		kdwarf_scope(kd, NULL);		/* a header: every unit */
	if (lines || kind == KD_STMT) {
		if (!lines || parse_lines(lines, &lo, &hi)) {
			ret = errmsg(err, errlen, -EINVAL, "\"%s\": bad line "
				     "number", spec);
			goto out;
		}
		if (kind != KD_STMT && kind != KD_FUNC) {
			ret = errmsg(err, errlen, -EINVAL, "\"%s\": a source "
				     "line takes no .%s", spec, suffix[kind] + 1);
			goto out;
		}
		ret = statements(kd, kind == KD_STMT ? "kernel.statement" :
				 "kernel.function", func, file, lo, hi, nearest,
				 out, err, errlen);
		goto out;
	}
	ret = dwinfo_funcs(kdwarf_dwinfo(kd), func,
			   kind == KD_FUNC || kind == KD_INLINE ? DWINFO_INLINE : 0,
			   &fl, err, errlen);
	if (ret < 0)
		goto out;
	glob = strpbrk(func, "*?[");
	for (i = 0; i < fl.n; i++) {
		struct dwfunc *f = &fl.v[i];
		const char *rel;
		char why[256], *addr;

		if (!f->file || !dwinfo_file_matches(f->file, file))
			continue;
		if ((kind == KD_INLINE && !f->inlined_into) ||
		    ((kind == KD_CALL || kind == KD_RETURN) && f->inlined_into))
			continue;
		addr = place(kd, f->entry, kind == KD_RETURN, why, sizeof(why));
		rel = kdwarf_relpath(kd, f->file);
		if (!addr) {
			if (!skipped++)
				snprintf(first, sizeof(first), "%s@%s:%d: %s",
					 f->name, rel, f->line, why);
			continue;
		}
		push(out, xasprintf("kernel.function(\"%s@%s:%d\")%s", f->name,
				    rel, f->line, suffix[kind]),
		     f->name, addr, f->entry);
	}
	ret = 0;
	if (!out->n && skipped && !glob)
		ret = errmsg(err, errlen, -EPERM, "%s", first);
	else if (!out->n && skipped)
		ret = errmsg(err, errlen, -EPERM, "no site of \"%s\" takes a "
			     "kprobe (%d refused; the first: %s)", spec, skipped,
			     first);
out:
	dwfunc_list_release(&fl);
	kdwarf_scope(kd, NULL);
	free(copy);
	return ret;
}
