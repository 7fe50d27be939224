// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbolizer over /proc/kallsyms.
 *
 * The file is read whole into one buffer and parsed in place: names and
 * module names point into that buffer, so a 120k-symbol kallsyms costs one
 * read, one array and one sort, and no per-symbol allocation.  Lookups are a
 * binary search for the last symbol at or below the address; kallsyms has
 * no sizes, so an address between two symbols belongs to the lower one (as
 * in perf and bcc).
 *
 * Kept: text (t T w W), data (d D b B r R v V) and whatever else has an
 * address; dropped: absolute symbols (a A, e.g. per-CPU offsets near 0 that
 * would shadow nothing useful and confuse range checks) and undefined ones
 * (U).  Several names at one address (aliases) are all kept for
 * ksyms_addr(); ksyms_lookup() reports the most telling one: global text
 * over local text over weak over data, then the first in file order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ksym.h"
#include "common/log.h"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* NULL for the core kernel */
	unsigned int rank;	/* alias preference, higher wins */
	unsigned int order;	/* line number, for a stable sort */
};

struct ksyms {
	struct ksym *syms;
	size_t n;
	char *text;		/* the file, NULs written in */
};

/* Read all of @fd (a /proc file reports size 0, so no fstat). */
static char *read_all(int fd, size_t *lenp)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = xmalloc(cap);
	ssize_t r;

	for (;;) {
		if (cap - len < 4096) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return NULL;
		}
		if (r == 0)
			break;
		len += r;
	}
	buf[len] = '\0';
	*lenp = len;
	return buf;
}

static unsigned int type_rank(char t)
{
	switch (t) {
	case 'T': return 4;
	case 't': return 3;
	case 'W': return 2;
	case 'w': return 1;
	default:  return 0;
	}
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* among aliases the preferred one sorts last: lookups take the last */
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->order > y->order ? -1 : x->order < y->order;
}

/*
 * Parse one line "ADDR TYPE NAME[\t[MODULE]]" in place into @s.  Returns
 * false for lines to skip (malformed, absolute, undefined).
 */
static bool parse_line(char *line, struct ksym *s)
{
	char *p = line, *end, *name, *mod;
	char type;

	s->addr = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	type = *p;
	if (!type || p[1] != ' ')
		return false;
	if (type == 'a' || type == 'A' || type == 'U' || type == 'u')
		return false;
	name = p + 2;
	end = name + strcspn(name, " \t");
	mod = NULL;
	if (*end) {
		*end++ = '\0';
		end += strspn(end, " \t");
		if (*end == '[') {
			mod = end + 1;
			mod[strcspn(mod, "]")] = '\0';
		}
	}
	if (!*name)
		return false;
	s->name = name;
	s->module = mod;
	s->rank = type_rank(type);
	return true;
}

/**
 * ksyms_load() - read and sort the kernel's symbols
 * @path: a kallsyms-format file, or NULL for /proc/kallsyms
 *
 * Returns the table, freed by the caller with ksyms_free(), or NULL with
 * errno set: the open/read error, EPERM when every address reads as zero
 * (kptr_restrict, or not root), ENODATA when the file holds no symbols.
 */
struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *ks;
	size_t len, cap = 0, n = 0;
	unsigned int line_no = 0;
	bool any_addr = false;
	char *text, *line, *next;
	int fd, err;

	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	text = read_all(fd, &len);
	err = errno;
	close(fd);
	if (!text) {
		errno = err;
		return NULL;
	}

	ks = xcalloc(1, sizeof(*ks));
	ks->text = text;
	for (line = text; *line; line = next) {
		struct ksym s;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		line_no++;
		if (!parse_line(line, &s))
			continue;
		if (s.addr)
			any_addr = true;
		s.order = line_no;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			ks->syms = xrealloc(ks->syms, cap * sizeof(*ks->syms));
		}
		ks->syms[n++] = s;
	}
	ks->n = n;

	if (!n || !any_addr) {
		ksyms_free(ks);
		errno = n ? EPERM : ENODATA;
		return NULL;
	}
	qsort(ks->syms, n, sizeof(*ks->syms), cmp_sym);
	return ks;
}

/** ksyms_free() - free @ks and every string it returned (NULL is a no-op) */
void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->text);
	free(ks);
}

/**
 * ksyms_lookup() - the symbol at or below @addr
 * @offset: set to @addr minus the symbol's address (may be NULL)
 * @module: set to the module name, NULL for the core kernel (may be NULL)
 *
 * Returns the name (valid as long as @ks), or NULL when @addr lies below the
 * first symbol.
 */
const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset, const char **module)
{
	size_t lo = 0, hi = ks ? ks->n : 0;
	const struct ksym *s;

	/* find the first symbol above addr; the answer is just before it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &ks->syms[lo - 1];
	if (offset)
		*offset = addr - s->addr;
	if (module)
		*module = s->module;
	return s->name;
}

/**
 * ksyms_addr() - the address of symbol @name, 0 when absent
 *
 * A linear scan (for setup, not per event); with duplicate local names the
 * lowest address wins, which puts the core kernel before modules.
 */
uint64_t ksyms_addr(const struct ksyms *ks, const char *name)
{
	size_t i;

	/* sorted by address, so the first match is the lowest */
	for (i = 0; ks && i < ks->n; i++)
		if (!strcmp(ks->syms[i].name, name))
			return ks->syms[i].addr;
	return 0;
}

/**
 * ksyms_size() - the extent of the symbol holding @addr: from its address
 * to the next higher symbol's (kallsyms has no sizes; perf and stap
 * estimate them so); 0 when @addr lies below the first symbol or in the
 * last one.
 */
uint64_t ksyms_size(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi = ks ? ks->n : 0;
	uint64_t at;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo >= ks->n)
		return 0;
	at = ks->syms[lo - 1].addr;
	return ks->syms[lo].addr - at;
}
