// SPDX-License-Identifier: GPL-2.0
/*
 * Function symbols through libelf.
 *
 * .symtab has every function including file-local ones, .dynsym only the
 * exported ones but survives stripping; both are read and a symbol present
 * in both (same name, same address) is kept once.  Each symbol's file
 * offset comes from the program headers (elffile.c).
 *
 * IFUNC symbols (glibc's memcpy, strlen...) are the resolver that picks an
 * implementation at load time; they are listed with a flag so a tool can
 * say so rather than silently probing code that runs once.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/elfsym.h"
#include "common/log.h"
#include "common/x86_insn.h"

/* The .gnu.version data of @elf (one entry per .dynsym symbol), or NULL. */
static Elf_Data *versym_data(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	return NULL;
}

/*
 * A .dynsym symbol of a hidden (non-default) version, like glibc's
 * memcpy@GLIBC_2.2.5 beside memcpy@@GLIBC_2.14: kept for old binaries,
 * never what a name means today.
 */
static bool hidden_version(Elf_Data *versym, size_t i)
{
	GElf_Versym v;

	return versym && gelf_getversym(versym, (int)i, &v) &&
	       (v & 0x8000);
}

/* Calls @fn on each defined symbol of @elf's sections of type @type; the
 * number of such sections in *@seen; stops on non-0. */
static int for_each_in(Elf *elf, Elf64_Word type, size_t *seen,
		       int (*fn)(const char *name, const GElf_Sym *sym, void *arg),
		       void *arg)
{
	Elf_Scn *scn = NULL;
	int ret;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *versym = NULL;
		GElf_Shdr sh;
		size_t i, n;

		char plain[512];
		const char *ver;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		(*seen)++;
		if (sh.sh_type == SHT_DYNSYM)
			versym = versym_data(elf);
		n = data->d_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    hidden_version(versym, i))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			ver = type == SHT_SYMTAB ? strchr(name, '@') : NULL;
			if (ver) {
				/* a .symtab that names versions (a debug file of
				 * glibc): `f@@V` is f, `f@V` an old one, left out
				 * as in .dynsym */
				if (ver[1] != '@' || (size_t)(ver - name) >= sizeof(plain))
					continue;
				memcpy(plain, name, (size_t)(ver - name));
				plain[ver - name] = '\0';
				name = plain;
			}
			ret = fn(name, &sym, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * Calls @fn on each defined symbol of .symtab (the object's, or its debug
 * file's when it has none) then .dynsym; stops on non-0.
 */
static int for_each_sym(struct elffile *ef,
			int (*fn)(const char *name, const GElf_Sym *sym,
				  void *arg),
			void *arg)
{
	Elf *elf = elffile_elf(ef), *dbg = elffile_symbols_elf(ef);
	size_t seen = 0;
	int ret;

	ret = for_each_in(elf, SHT_SYMTAB, &seen, fn, arg);
	if (!ret && !seen && dbg)
		ret = for_each_in(dbg, SHT_SYMTAB, &seen, fn, arg);
	return ret ? ret : for_each_in(elf, SHT_DYNSYM, &seen, fn, arg);
}

struct find_ctx {
	struct elffile *ef;
	const char *pattern;
	struct elfsym_list *out;
	size_t cap;
};

static int add_match(const char *name, const GElf_Sym *sym, void *arg)
{
	struct find_ctx *c = arg;
	int type = GELF_ST_TYPE(sym->st_info);
	struct elfsym *s;
	uint64_t off;

	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return 0;
	if (fnmatch(c->pattern, name, 0))
		return 0;
	if (elffile_vaddr_to_off(c->ef, sym->st_value, &off))
		return 0;
	if (c->out->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->out->v = xrealloc(c->out->v, c->cap * sizeof(*c->out->v));
	}
	s = &c->out->v[c->out->n++];
	s->name = xstrdup(name);
	s->vaddr = sym->st_value;
	s->size = sym->st_size;
	s->offset = off;
	s->ifunc = type == STT_GNU_IFUNC;
	s->global = GELF_ST_BIND(sym->st_info) != STB_LOCAL;
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elfsym *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int elfsym_find(struct elffile *ef, const char *pattern,
		struct elfsym_list *out, char *err, size_t errlen)
{
	struct find_ctx c = { ef, pattern, out, 0 };
	size_t i, j;

	out->v = NULL;
	out->n = 0;
	if (!*pattern)
		return errmsg(err, errlen, -EINVAL, "empty function name");
	for_each_sym(ef, add_match, &c);
	if (out->n)		/* qsort(NULL, 0) is undefined */
		qsort(out->v, out->n, sizeof(*out->v), cmp_sym);
	/* the same symbol from .symtab and .dynsym: keep the first, but a
	 * size only one of them knows */
	for (i = j = 0; i < out->n; i++) {
		if (j && !cmp_sym(&out->v[j - 1], &out->v[i])) {
			if (!out->v[j - 1].size)
				out->v[j - 1].size = out->v[i].size;
			free(out->v[i].name);
			continue;
		}
		out->v[j++] = out->v[i];
	}
	out->n = j;
	return 0;
}

void elfsym_release(struct elfsym *sym)
{
	free(sym->name);
	sym->name = NULL;
}

void elfsym_list_release(struct elfsym_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		elfsym_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

struct addr_ctx {
	const char *name;
	uint64_t vaddr;
	int found;		/* 0, 1, or -ENOTUNIQ */
};

static int match_addr(const char *name, const GElf_Sym *sym, void *arg)
{
	struct addr_ctx *c = arg;

	if (strcmp(name, c->name))
		return 0;
	if (c->found && c->vaddr != sym->st_value) {
		c->found = -ENOTUNIQ;
		return 1;
	}
	c->found = 1;
	c->vaddr = sym->st_value;
	return 0;
}

int elfsym_addr(struct elffile *ef, const char *name, uint64_t *vaddr)
{
	struct addr_ctx c = { name, 0, 0 };

	for_each_sym(ef, match_addr, &c);
	if (c.found < 0)
		return c.found;
	if (!c.found)
		return -ENOENT;
	*vaddr = c.vaddr;
	return 0;
}

/*
 * Walk the instructions of @sym from its start up to @off: @off must be
 * where one of them starts.  The function's bytes are read in one go
 * (functions are small; 1 MiB is plenty for any we decode).
 */
static int check_x86(struct elffile *ef, const struct elfsym *sym,
		     uint64_t off, char *err, size_t errlen)
{
	uint64_t want = off + 15, pos = 0;
	uint8_t *buf;
	ssize_t n;
	int len, ret = 0;

	if (want > 1 << 20)
		return errmsg(err, errlen, -EINVAL,
			      "offset 0x%" PRIx64 " is too far into '%s' to check",
			      off, sym->name);
	buf = xmalloc(want);
	n = elffile_read(ef, sym->vaddr, buf, want);
	if (n < 0) {
		ret = errmsg(err, errlen, (int)n, "cannot read '%s' in '%s': %s",
			     sym->name, elffile_path(ef), strerror((int)-n));
		goto out;
	}
	while (pos < off) {
		len = x86_insn_len(buf + pos, n - pos);
		if (len < 0) {
			ret = errmsg(err, errlen, -EINVAL,
				     "cannot decode the instruction at %s+0x%" PRIx64
				     ": %s", sym->name, pos,
				     len == -ENODATA ? "truncated" : "unknown encoding");
			goto out;
		}
		if (pos + len > off) {
			ret = errmsg(err, errlen, -EINVAL,
				     "%s+0x%" PRIx64 " is inside an instruction "
				     "(the one at %s+0x%" PRIx64 " is %d bytes)",
				     sym->name, off, sym->name, pos, len);
			goto out;
		}
		pos += len;
	}
out:
	free(buf);
	return ret;
}

int elfsym_check_offset(struct elffile *ef, const struct elfsym *sym,
			uint64_t off, char *err, size_t errlen)
{
	if (sym->size && off >= sym->size)
		return errmsg(err, errlen, -EINVAL,
			      "offset 0x%" PRIx64 " is beyond the end of '%s' "
			      "(0x%" PRIx64 " bytes)", off, sym->name, sym->size);
	if (!sym->size && off)
		return errmsg(err, errlen, -EINVAL,
			      "'%s' has no size: cannot check offset 0x%" PRIx64,
			      sym->name, off);
	switch (elffile_machine(ef)) {
	case EM_X86_64:
		return off ? check_x86(ef, sym, off, err, errlen) : 0;
	case EM_AARCH64:
		if (off % 4)
			return errmsg(err, errlen, -EINVAL,
				      "offset 0x%" PRIx64 " into '%s' is not a "
				      "multiple of 4", off, sym->name);
		return 0;
	}
	return 0;
}

/* Parse an unsigned number in decimal or 0x hex filling all of @s. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* A bare address: the function containing it names the location. */
static int resolve_addr(struct elffile *ef, uint64_t vaddr, struct elfsym *out,
			char *err, size_t errlen)
{
	struct elfsym_list all;
	uint64_t off;
	size_t i;

	if (elffile_vaddr_to_off(ef, vaddr, &off))
		return errmsg(err, errlen, -EINVAL,
			      "address 0x%" PRIx64 " is not in a loadable "
			      "segment of '%s'", vaddr, elffile_path(ef));
	memset(out, 0, sizeof(*out));
	out->vaddr = vaddr;
	out->offset = off;
	out->name = xasprintf("0x%" PRIx64, vaddr);
	/* inside a known function: check the instruction boundary */
	if (elfsym_find(ef, "*", &all, NULL, 0))
		return 0;
	for (i = 0; i < all.n; i++) {
		const struct elfsym *s = &all.v[i];
		int ret;

		if (vaddr < s->vaddr || vaddr - s->vaddr >= s->size)
			continue;
		ret = elfsym_check_offset(ef, s, vaddr - s->vaddr, err, errlen);
		out->global = s->global;
		elfsym_list_release(&all);
		if (ret)
			elfsym_release(out);
		return ret;
	}
	elfsym_list_release(&all);
	return 0;
}

int elfsym_resolve(struct elffile *ef, const char *spec, struct elfsym *out,
		   char *err, size_t errlen)
{
	struct elfsym_list l;
	uint64_t off = 0;
	char *name, *plus;
	size_t i;
	int ret;

	if (spec[0] >= '0' && spec[0] <= '9') {
		if (parse_u64(spec, &off))
			return errmsg(err, errlen, -EINVAL, "bad address '%s'",
				      spec);
		return resolve_addr(ef, off, out, err, errlen);
	}
	name = xstrdup(spec);
	plus = strchr(name, '+');
	if (plus) {
		*plus = '\0';
		if (parse_u64(plus + 1, &off)) {
			ret = errmsg(err, errlen, -EINVAL,
				     "bad offset '%s' in '%s'", plus + 1, spec);
			goto out;
		}
	}
	if (!*name || strpbrk(name, "*?[")) {
		ret = errmsg(err, errlen, -EINVAL,
			     "'%s' does not name one function", spec);
		goto out;
	}
	ret = elfsym_find(ef, name, &l, err, errlen);
	if (ret)
		goto out;
	if (!l.n) {
		ret = errmsg(err, errlen, -ENOENT, "no function '%s' in '%s'",
			     name, elffile_path(ef));
		goto out_list;
	}
	for (i = 1; i < l.n; i++) {
		if (l.v[i].vaddr != l.v[0].vaddr) {
			ret = errmsg(err, errlen, -ENOTUNIQ,
				     "%zu functions are named '%s' in '%s' "
				     "(at 0x%" PRIx64 " and 0x%" PRIx64 ")",
				     l.n, name, elffile_path(ef), l.v[0].vaddr,
				     l.v[i].vaddr);
			goto out_list;
		}
	}
	ret = elfsym_check_offset(ef, &l.v[0], off, err, errlen);
	if (ret)
		goto out_list;
	*out = l.v[0];
	out->vaddr += off;
	out->offset += off;
	free(out->name);
	out->name = xstrdup(spec);
	l.v[0].name = NULL;
out_list:
	elfsym_list_release(&l);
out:
	free(name);
	return ret;
}
