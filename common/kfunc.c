// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel functions a kprobe can go on.
 *
 * The table is built once per process from three files, each read whole
 * and parsed in place (names point into the buffers):
 *
 *  - /proc/kallsyms: the text symbols (t T w W), module ones by their bare
 *    name.  Init text (between _sinittext/__init_begin and
 *    _einittext/__init_end) is freed after boot and marked so.  The section
 *    bounds are compared by address, or by line order when kptr_restrict
 *    shows every address as 0 (the core kernel is listed in address order).
 *    Pseudo-modules ([bpf], [__builtin__ftrace], ...) are not functions.
 *  - the kprobes blacklist (debugfs, "0xstart-0xend\tname [module]"), when
 *    readable: by name, and by address range when addresses are shown.
 *  - available_filter_functions, when readable: what kfunc_match() lists
 *    (as bcc's funccount); else the kallsyms text symbols.
 *
 * kfunc_match() also leaves out what bcc's get_kprobe_functions() does for
 * recursion safety: NOKPROBE_SYMBOL markers (_kbl_addr_*), perf's own code
 * (__perf*, perf_*), static call trampolines (__SCT__*), gcc's split-off
 * .cold parts, the irqentry text, and the padding symbols of call-depth
 * tracking and kCFI (__pfx_*, __cfi_*) and section markers (_stext).  kfunc_check() refuses only what the
 * kernel would: a name that is no text symbol, the blacklist, init text.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/kfunc.h"
#include "common/log.h"

#define KF_INIT		(1u << 0)	/* init text, freed after boot */
#define KF_EXCLUDED	(1u << 1)	/* bcc's recursion-safety list */
#define KF_BLACK	(1u << 2)	/* on the kprobes blacklist */

struct kent {
	const char *name;
	uint64_t addr;
	unsigned int flags;
};

struct brange {
	uint64_t start, end;
};

static struct {
	const char *kallsyms, *filter, *blacklist;
} paths = {
	"/proc/kallsyms",
	"/sys/kernel/tracing/available_filter_functions",
	"/sys/kernel/debug/kprobes/blacklist",
};

static struct {
	bool loaded;
	char *ksbuf, *flbuf, *blbuf;
	struct kent *v;			/* by name, each once */
	size_t n;
	const char **filter;		/* available_filter_functions, sorted */
	size_t nfilter;
	bool have_filter;
} tab;

static void drop_table(void)
{
	free(tab.ksbuf);
	free(tab.flbuf);
	free(tab.blbuf);
	free(tab.v);
	free(tab.filter);
	memset(&tab, 0, sizeof(tab));
}

void kfunc_set_paths(const char *kallsyms, const char *filter_functions,
		     const char *blacklist)
{
	drop_table();
	paths.kallsyms = kallsyms ? kallsyms : "/proc/kallsyms";
	paths.filter = filter_functions ? filter_functions :
		"/sys/kernel/tracing/available_filter_functions";
	paths.blacklist = blacklist ? blacklist : "/sys/kernel/debug/kprobes/blacklist";
}

/* All of @path, NUL-terminated; NULL with errno. */
static char *read_file(const char *path)
{
	size_t cap = 1 << 16, len = 0;
	char *buf;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Next line of the buffer at *@p, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p)
{
	char *s = *p, *nl;

	if (!*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

/* "name\t[module]" or "name [module]" -> "name", the module in *@mod. */
static char *split_module(char *s, const char **mod)
{
	char *sp = s + strcspn(s, " \t");

	*mod = NULL;
	if (*sp) {
		char *m = sp + strspn(sp, " \t");

		*sp = '\0';
		if (*m == '[') {
			m[strcspn(m, "]")] = '\0';
			*mod = m + 1;
		}
	}
	return s;
}

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* "foo.cold" or "foo.cold.12" (gcc's split-off unlikely parts) */
static bool is_cold(const char *s)
{
	const char *c = strstr(s, ".cold");

	for (; c; c = strstr(c + 1, ".cold")) {
		const char *e = c + 5;

		if (!*e)
			return true;
		if (*e == '.' && e[1] && strspn(e + 1, "0123456789") == strlen(e + 1))
			return true;
	}
	return false;
}

/* Section markers kallsyms lists as text; not functions. */
static bool is_marker(const char *s)
{
	return !strcmp(s, "_stext") || !strcmp(s, "_etext") ||
	       !strcmp(s, "_sinittext") || !strcmp(s, "_einittext") ||
	       has_prefix(s, "__irqentry_text_") ||
	       has_prefix(s, "__softirqentry_text_") ||
	       has_prefix(s, "__entry_text_");
}

static bool excluded(const char *s)
{
	return is_marker(s) || has_prefix(s, "_kbl_addr_") || has_prefix(s, "__perf") ||
	       has_prefix(s, "perf_") || has_prefix(s, "__SCT__") ||
	       has_prefix(s, "__pfx_") || has_prefix(s, "__cfi_") || is_cold(s);
}

static int cmp_kent(const void *a, const void *b)
{
	return strcmp(((const struct kent *)a)->name, ((const struct kent *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_range(const void *a, const void *b)
{
	const struct brange *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static struct kent *find(const char *name)
{
	struct kent key = { .name = name };

	return tab.n ? bsearch(&key, tab.v, tab.n, sizeof(*tab.v), cmp_kent) : NULL;
}

/* Section bounds in "position" units: the address, or the line number
 * when addresses are hidden.  [lo, hi) or lo == hi when unknown. */
struct section {
	uint64_t lo, hi;
	bool have_lo, have_hi;
};

static void mark_bound(struct section *s, uint64_t pos, bool start)
{
	if (start && !s->have_lo) {
		s->lo = pos;
		s->have_lo = true;
	} else if (!start && !s->have_hi) {
		s->hi = pos;
		s->have_hi = true;
	}
}

static bool in_section(const struct section *s, uint64_t pos)
{
	return s->have_lo && s->have_hi && pos >= s->lo && pos < s->hi;
}

/* kallsyms -> tab.v (unsorted), with init and irqentry text marked. */
static int load_kallsyms(void)
{
	struct section init = { 0 }, irq = { 0 };
	size_t cap = 0, line = 0, i;
	uint64_t *pos = NULL;
	bool hidden = true;
	char *p, *l;

	tab.ksbuf = read_file(paths.kallsyms);
	if (!tab.ksbuf)
		return -errno;
	p = tab.ksbuf;
	while ((l = next_line(&p))) {
		char *end, *name, type;
		const char *mod;
		uint64_t addr;

		line++;
		addr = strtoull(l, &end, 16);
		if (end == l || *end != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = split_module(end + 3, &mod);
		if (!*name)
			continue;
		if (addr)
			hidden = false;
		if (!mod) {
			if (!strcmp(name, "_sinittext") || !strcmp(name, "__init_begin"))
				mark_bound(&init, addr ? addr : line, true);
			else if (!strcmp(name, "_einittext") || !strcmp(name, "__init_end"))
				mark_bound(&init, addr ? addr : line, false);
			else if (!strcmp(name, "__irqentry_text_start"))
				mark_bound(&irq, addr ? addr : line, true);
			else if (!strcmp(name, "__irqentry_text_end"))
				mark_bound(&irq, addr ? addr : line, false);
		}
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (mod && (!strcmp(mod, "bpf") || has_prefix(mod, "__builtin__")))
			continue;
		if (tab.n == cap) {
			cap = cap ? cap * 2 : 4096;
			tab.v = xrealloc(tab.v, cap * sizeof(*tab.v));
			pos = xrealloc(pos, cap * sizeof(*pos));
		}
		/* module lines come after the core kernel's: never in a
		 * core section by line order */
		pos[tab.n] = mod && !addr ? UINT64_MAX : addr ? addr : line;
		tab.v[tab.n++] = (struct kent){ .name = name, .addr = addr };
	}
	for (i = 0; i < tab.n; i++) {
		/* with hidden addresses every bound is a line number */
		if (hidden || tab.v[i].addr) {
			if (in_section(&init, pos[i]))
				tab.v[i].flags |= KF_INIT;
			if (in_section(&irq, pos[i]))
				tab.v[i].flags |= KF_EXCLUDED;
		}
		if (excluded(tab.v[i].name))
			tab.v[i].flags |= KF_EXCLUDED;
	}
	free(pos);
	return 0;
}

/* The blacklist: ranges marked now, by address; its names returned for
 * marking after the sort (free the array). */
static const char **load_blacklist(size_t *nnames)
{
	struct brange *r = NULL;
	size_t nr = 0, cap = 0, ncap = 0, i;
	const char **names = NULL;
	char *p, *l;

	*nnames = 0;
	tab.blbuf = read_file(paths.blacklist);
	if (!tab.blbuf)
		return NULL;	/* no debugfs, or not root: the kernel still refuses */
	p = tab.blbuf;
	while ((l = next_line(&p))) {
		char *end, *tabc = strchr(l, '\t');
		const char *mod, *name;
		uint64_t s, e;

		if (!tabc)
			continue;
		s = strtoull(l, &end, 16);
		e = *end == '-' ? strtoull(end + 1, NULL, 16) : 0;
		if (s && e > s) {
			if (nr == cap) {
				cap = cap ? cap * 2 : 256;
				r = xrealloc(r, cap * sizeof(*r));
			}
			r[nr++] = (struct brange){ s, e };
		}
		name = split_module(tabc + 1, &mod);
		if (!*name)
			continue;
		if (*nnames == ncap) {
			ncap = ncap ? ncap * 2 : 256;
			names = xrealloc(names, ncap * sizeof(*names));
		}
		names[(*nnames)++] = name;
	}
	if (nr)
		qsort(r, nr, sizeof(*r), cmp_range);
	for (i = 0; nr && i < tab.n; i++) {
		uint64_t a = tab.v[i].addr;
		size_t lo = 0, hi = nr;

		if (!a)
			continue;
		while (hi - lo > 1) {	/* the last range starting at or below a */
			size_t mid = (lo + hi) / 2;

			if (r[mid].start <= a)
				lo = mid;
			else
				hi = mid;
		}
		if (r[lo].start <= a && a < r[lo].end)
			tab.v[i].flags |= KF_BLACK;
	}
	free(r);
	return names;
}

static void load_filter(void)
{
	size_t cap = 0;
	char *p, *l;

	tab.flbuf = read_file(paths.filter);
	if (!tab.flbuf)
		return;		/* EPERM under lockdown, ENOENT without ftrace */
	tab.have_filter = true;
	p = tab.flbuf;
	while ((l = next_line(&p))) {
		const char *mod;
		char *name = split_module(l, &mod);

		if (!*name || has_prefix(name, "__ftrace_invalid_address__"))
			continue;
		if (tab.nfilter == cap) {
			cap = cap ? cap * 2 : 4096;
			tab.filter = xrealloc(tab.filter, cap * sizeof(*tab.filter));
		}
		tab.filter[tab.nfilter++] = name;
	}
	if (tab.nfilter)
		qsort(tab.filter, tab.nfilter, sizeof(*tab.filter), cmp_str);
}

static int load(char *err, size_t errlen)
{
	const char **black;
	size_t i, j, nblack;
	struct kent *k;
	int ret;

	if (tab.loaded)
		return 0;
	ret = load_kallsyms();
	if (ret < 0) {
		snprintf(err, errlen, "cannot read %s: %s", paths.kallsyms, strerror(-ret));
		drop_table();
		return ret;
	}
	black = load_blacklist(&nblack);
	if (tab.n)
		qsort(tab.v, tab.n, sizeof(*tab.v), cmp_kent);
	/* one entry a name: excluded or blacklisted if any copy is, init
	 * only if every copy is */
	for (i = 0, j = 0; i < tab.n; i++) {
		if (j && !strcmp(tab.v[j - 1].name, tab.v[i].name)) {
			unsigned int init = tab.v[j - 1].flags & tab.v[i].flags & KF_INIT;

			tab.v[j - 1].flags = ((tab.v[j - 1].flags | tab.v[i].flags) & ~KF_INIT) | init;
			continue;
		}
		tab.v[j++] = tab.v[i];
	}
	tab.n = j;
	for (i = 0; i < nblack; i++)
		if ((k = find(black[i])))
			k->flags |= KF_BLACK;
	free(black);
	load_filter();
	tab.loaded = true;
	return 0;
}

static void list_add(struct kfunc_list *out, size_t *cap, const char *name)
{
	if (out->n && !strcmp(out->v[out->n - 1], name))
		return;		/* input sorted: duplicates are adjacent */
	if (out->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		out->v = xrealloc(out->v, *cap * sizeof(*out->v));
	}
	out->v[out->n++] = xstrdup(name);
}

int kfunc_match(const char *pattern, struct kfunc_list *out, char *err,
		size_t errlen)
{
	size_t cap = 0, i;
	int ret;

	out->v = NULL;
	out->n = 0;
	if (!pattern || !*pattern) {
		snprintf(err, errlen, "empty function pattern");
		return -EINVAL;
	}
	ret = load(err, errlen);
	if (ret < 0)
		return ret;
	if (tab.have_filter) {
		for (i = 0; i < tab.nfilter; i++) {
			const char *name = tab.filter[i];
			struct kent *k;

			if (fnmatch(pattern, name, 0) || excluded(name))
				continue;
			k = find(name);
			if (k && (k->flags & (KF_EXCLUDED | KF_BLACK | KF_INIT)))
				continue;
			list_add(out, &cap, name);
		}
		return 0;
	}
	for (i = 0; i < tab.n; i++) {
		const struct kent *k = &tab.v[i];

		if (!(k->flags & (KF_EXCLUDED | KF_BLACK | KF_INIT)) &&
		    !fnmatch(pattern, k->name, 0))
			list_add(out, &cap, k->name);
	}
	return 0;
}

/* "foo" absent but "foo.isra.0" present: the compiler's renamed copy. */
static const char *renamed(const char *name)
{
	size_t len = strlen(name), lo = 0, hi = tab.n;

	while (lo < hi) {		/* first entry >= name */
		size_t mid = (lo + hi) / 2;

		if (strcmp(tab.v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < tab.n && !strncmp(tab.v[lo].name, name, len); lo++)
		if (tab.v[lo].name[len] == '.')
			return tab.v[lo].name;
	return NULL;
}

int kfunc_check(const char *name, char *err, size_t errlen)
{
	const char *plus = strchr(name, '+');
	char fn[512];
	struct kent *k;
	size_t len;
	int ret;

	len = plus ? (size_t)(plus - name) : strlen(name);
	if (!len || len >= sizeof(fn)) {
		snprintf(err, errlen, "no kernel function '%s'", name);
		return -ENOENT;
	}
	if (plus) {
		char *end;

		errno = 0;
		(void)strtoull(plus + 1, &end, 0);
		if (!isdigit((unsigned char)plus[1]) || *end || errno) {
			snprintf(err, errlen, "bad offset in '%s': a number, e.g. %.*s+0x10",
				 name, (int)len, name);
			return -EINVAL;
		}
	}
	memcpy(fn, name, len);
	fn[len] = '\0';
	ret = load(err, errlen);
	if (ret < 0)
		return ret;
	k = find(fn);
	if (!k) {
		const char *r = renamed(fn);

		if (r)
			snprintf(err, errlen, "no kernel function '%s' (the compiler renamed it: %s)",
				 fn, r);
		else
			snprintf(err, errlen, "no kernel function '%s'", fn);
		return -ENOENT;
	}
	if (k->flags & KF_BLACK) {
		snprintf(err, errlen, "'%s' is on the kernel's kprobe blacklist", fn);
		return -EPERM;
	}
	if (k->flags & KF_INIT) {
		snprintf(err, errlen, "'%s' is init code, freed after boot", fn);
		return -EINVAL;
	}
	return 0;
}

void kfunc_list_release(struct kfunc_list *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
