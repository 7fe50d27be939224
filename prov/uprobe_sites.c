// SPDX-License-Identifier: GPL-2.0
/*
 * Where process(...).function/statement points are: the sites that
 * common/usite.c does not find by itself (name@file[:line] patterns,
 * inline instances, .exported, line ranges and .nearest).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dwinfo.h"
#include "common/elffile.h"
#include "common/elfsym.h"
#include "common/log.h"
#include "common/target.h"
#include "common/usite.h"
#include "prov/uprobe.h"

/* Sites of .function(SPEC): SPEC is "glob", "glob@file" or
 * "glob@file:line" (the function declared there). */
int uprobe_find_functions(const char *obj, const struct upoint *u,
			  const struct usite_opts *o, struct usite_list *out,
			  char *err, size_t errlen)
{
	char *glob = xstrdup(u->spec), *at = strchr(glob, '@'), *file, *colon;
	struct dwfunc_list fl = { 0 };
	struct usite_list one;
	struct dwinfo *dw;
	char *path = NULL;
	int line = 0, ret;
	size_t i, j;

	if (!at) {
		ret = usite_functions(obj, glob, o, out, err, errlen);
		free(glob);
		return ret;
	}
	*at = '\0';
	file = at + 1;
	colon = strchr(file, ':');
	if (colon) {
		*colon = '\0';
		line = atoi(colon + 1);
	}
	out->v = NULL;
	out->n = 0;
	ret = target_resolve(obj, o->pid, &path, err, errlen);
	if (ret)
		goto out;
	dw = dwinfo_open(path, o->debug_dirs, err, errlen);
	if (!dw) {
		ret = -errno;
		goto out;
	}
	ret = dwinfo_funcs(dw, glob, 0, &fl, err, errlen);
	for (i = 0; !ret && i < fl.n; i++) {
		const struct dwfunc *f = &fl.v[i];
		const char *base = f->file ? strrchr(f->file, '/') : NULL;

		base = base ? base + 1 : f->file;
		if (!f->file || (fnmatch(file, base, 0) && fnmatch(file, f->file, 0)))
			continue;
		if (line && f->line != line)
			continue;
		if (usite_functions(path, f->name, o, &one, err, errlen))
			continue;
		out->v = xrealloc(out->v, (out->n + one.n) * sizeof(*out->v));
		for (j = 0; j < one.n; j++)
			out->v[out->n++] = one.v[j];
		free(one.v);
	}
	err[0] = '\0';
	dwfunc_list_release(&fl);
	dwinfo_free(dw);
out:
	free(path);
	free(glob);
	return ret;
}

/*
 * The inline instances of .function(GLOB) (plain, or .inline): sites at
 * each instance's entry, from DWARF, with the parameters readable there.
 * Appended to @l; the number added (0 without DWARF).
 */
size_t uprobe_add_inlines(const char *obj, const struct upoint *u,
			  struct usite_list *l)
{
	struct dwfunc_list fl = { 0 };
	struct elffile *ef;
	struct dwinfo *dw;
	char *path, *glob, err[256];
	size_t i, n = 0;
	uint64_t off;

	if (usite_open(obj, u->pid, &path, &ef, err, sizeof(err)))
		return 0;
	glob = xasprintf("%.*s", (int)strcspn(u->spec, "@"), u->spec);
	dw = dwinfo_open(path, NULL, NULL, 0);
	if (dw && !dwinfo_funcs(dw, glob, DWINFO_INLINE, &fl, NULL, 0)) {
		for (i = 0; i < fl.n; i++) {
			const struct dwfunc *f = &fl.v[i];
			struct usite *s;

			if (!f->inlined_into ||
			    elffile_vaddr_to_off(ef, f->entry, &off))
				continue;
			l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
			s = &l->v[l->n++];
			memset(s, 0, sizeof(*s));
			s->path = xstrdup(path);
			s->offset = off;
			s->vaddr = f->entry;
			s->func = xstrdup(f->name);
			s->name = xasprintf("%s@%s", f->name, f->inlined_into);
			dwinfo_params(dw, f, f->entry, &s->args, &s->nargs, NULL, 0);
			n++;
		}
	}
	dwfunc_list_release(&fl);
	dwinfo_free(dw);
	elffile_free(ef);
	free(glob);
	free(path);
	return n;
}

/* Is @name a function @ef defines in its .dynsym (what it exports)? */
static bool exported(struct elffile *ef, const char *name)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elffile_section(ef, ".dynsym", &sh);
	Elf_Data *data;
	GElf_Sym sym;
	const char *n;
	size_t i, cnt;

	if (!scn || !(data = elf_getdata(scn, NULL)) || !sh.sh_entsize)
		return false;
	cnt = sh.sh_size / sh.sh_entsize;
	for (i = 1; i < cnt; i++) {
		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		n = elf_strptr(elffile_elf(ef), sh.sh_link, sym.st_name);
		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/* .exported: only the functions of the object's dynamic symbol table. */
void uprobe_keep_exported(const char *obj, const struct upoint *u,
			  struct usite_list *l)
{
	struct elffile *ef;
	char *path, err[256];
	size_t i, k = 0;

	if (usite_open(obj, u->pid, &path, &ef, err, sizeof(err)))
		return;
	for (i = 0; i < l->n; i++) {
		if (l->v[i].func && exported(ef, l->v[i].func)) {
			l->v[k++] = l->v[i];
		} else {
			struct usite *copy = xmalloc(sizeof(*copy));
			struct usite_list one = { copy, 1 };

			*copy = l->v[i];
			usite_list_release(&one);
		}
	}
	l->n = k;
	elffile_free(ef);
	free(path);
}

/* "f@file:N-M": each line of the range; "...:N" with .nearest: the
 * first line from N on that has code. */
int uprobe_find_statements(const char *obj, const struct upoint *u,
			   const struct usite_opts *o, struct usite_list *out,
			   char *err, size_t errlen)
{
	const char *colon = strrchr(u->spec, ':');
	char *dash, *spec;
	long lo, hi, ln;
	struct usite_list one;
	size_t j;
	int ret = -ENOENT;

	if (!colon)
		return usite_statement(obj, u->spec, o, out, err, errlen);
	lo = strtol(colon + 1, &dash, 10);
	hi = lo;
	if (*dash == '-')
		hi = strtol(dash + 1, NULL, 10);
	if (hi == lo && !u->nearest)
		return usite_statement(obj, u->spec, o, out, err, errlen);
	if (u->nearest && hi == lo)
		hi = lo + 50;
	out->v = NULL;
	out->n = 0;
	for (ln = lo; ln <= hi; ln++) {
		spec = xasprintf("%.*s:%ld", (int)(colon - u->spec), u->spec, ln);
		if (!usite_statement(obj, spec, o, &one, err, errlen)) {
			out->v = xrealloc(out->v, (out->n + one.n) * sizeof(*out->v));
			for (j = 0; j < one.n; j++)
				out->v[out->n++] = one.v[j];
			free(one.v);
			ret = 0;
		}
		free(spec);
		if (!ret && u->nearest)
			break;
	}
	if (!ret)
		err[0] = '\0';
	return ret;
}


/*
 * Would the kernel's x86 uprobes take the instruction at @offset of @path?
 * They refuse (ENOTSUPP when the probe is enabled) segment-override and
 * LOCK prefixes and the opcodes their table of good instructions leaves
 * out: VEX and EVEX (0xc4, 0xc5, 0x62: AVX, AVX-512), int3/int/iret,
 * in/out, hlt, cli/sti and what 64-bit mode has not.  Read
 * from the file (the code of the object), so a wildcard can leave those
 * sites out instead of failing the whole run.  True when unknown.
 */
bool uprobe_insn_ok(const char *path, uint64_t offset)
{
	static const unsigned char bad[] = { 0x06, 0x07, 0x0e, 0x16, 0x17,
		0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x60, 0x61, 0x62, 0x82, 0x9a,
		0xc4, 0xc5, 0xcc, 0xcd, 0xce, 0xcf, 0xd4, 0xd5, 0xd6, 0xe4, 0xe5,
		0xe6, 0xe7, 0xea, 0xec, 0xed, 0xee, 0xef, 0xf1, 0xf4, 0xfa, 0xfb };
	unsigned char b[16];
	ssize_t n;
	size_t i = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return true;
	n = pread(fd, b, sizeof(b), (off_t)offset);
	close(fd);
	if (n <= 0)
		return true;
	for (; i < (size_t)n; i++) {
		if (b[i] == 0xf0 || b[i] == 0x26 || b[i] == 0x2e || b[i] == 0x36 ||
		    b[i] == 0x3e)
			return false;
		if (b[i] != 0x66 && b[i] != 0x67 && b[i] != 0xf2 && b[i] != 0xf3 &&
		    b[i] != 0x64 && b[i] != 0x65)
			break;
	}
	if (i < (size_t)n && (b[i] & 0xf0) == 0x40)
		i++;
	if (i >= (size_t)n)
		return true;
	return !memchr(bad, b[i], sizeof(bad));
}
