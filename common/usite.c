// SPDX-License-Identifier: GPL-2.0
/*
 * User-space probe sites: target.c finds the file, elffile.c/elfsym.c the
 * symbols and offsets, dwinfo.c the parameters and lines, usdt.c the
 * marks; here they are put together into what a uprobe definition needs.
 *
 * Decisions taken here rather than in each tool:
 * - A function site is at the symbol's entry; with USITE_ARGS and
 *   unoptimized code whose parameters are readable only after the
 *   prologue, at the end of the prologue instead (as stap and gdb do).
 * - IFUNC resolvers (glibc's memcpy and friends) are replaced by the
 *   implementation the resolver picks in our own process, for libraries
 *   already loaded here: our CPU is the target's.  dlopen(RTLD_NOLOAD)
 *   never loads anything nor runs a constructor.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dwinfo.h"
#include "common/elffile.h"
#include "common/elfsym.h"
#include "common/hmap.h"
#include "common/log.h"
#include "common/target.h"
#include "common/usdt.h"
#include "common/usite.h"

static const struct usite_opts no_opts;

static struct usite *add_site(struct usite_list *l, size_t *cap,
			      const char *path)
{
	struct usite *s;

	if (l->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		l->v = xrealloc(l->v, *cap * sizeof(*l->v));
	}
	s = &l->v[l->n++];
	memset(s, 0, sizeof(*s));
	s->path = xstrdup(path);
	return s;
}

/* The plainer of two names for one address: fewer leading '_', shorter. */
static bool plainer(const char *a, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_");

	if (ua != ub)
		return ua < ub;
	if (strlen(a) != strlen(b))
		return strlen(a) < strlen(b);
	return strcmp(a, b) < 0;
}

static void site_release(struct usite *u)
{
	free(u->path);
	free(u->name);
	free(u->func);
	fetchargs_free(u->args, u->nargs);
}

void usite_dedupe(struct usite_list *l, struct usite_list *paired)
{
	struct hmap *seen = hmap_new(sizeof(size_t));	/* offset -> index + 1 */
	size_t i, k = 0, *at;

	for (i = 0; i < l->n; i++) {
		struct usite *u = &l->v[i];

		at = hmap_get(seen, u->offset, true);
		if (*at && !strcmp(l->v[*at - 1].path, u->path)) {
			struct usite *kept = &l->v[*at - 1];

			if (plainer(u->name, kept->name)) {
				char *t = kept->name;

				kept->name = u->name;
				u->name = t;
			}
			site_release(u);
			if (paired)
				site_release(&paired->v[i]);
			continue;
		}
		if (!*at)
			*at = k + 1;
		l->v[k] = *u;
		if (paired)
			paired->v[k] = paired->v[i];
		k++;
	}
	l->n = k;
	if (paired)
		paired->n = k;
	hmap_free(seen);
}

void usite_list_release(struct usite_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		site_release(&l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * The implementation IFUNC @name of the library at @path resolves to in
 * this process, as a link-time address of that library; -ENOENT when the
 * library is not loaded here.
 */
static int ifunc_target(const char *path, const char *name, uint64_t *vaddr)
{
	struct link_map *lib = NULL, *def = NULL;
	void *h, *addr;
	Dl_info info;
	int ret = -ENOENT;

	h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return -ENOENT;
	addr = dlsym(h, name);
	/* defined in that library, not one it depends on */
	if (addr && !dlinfo(h, RTLD_DI_LINKMAP, &lib) &&
	    dladdr1(addr, &info, (void **)&def, RTLD_DL_LINKMAP) &&
	    def == lib && (uintptr_t)addr >= lib->l_addr) {
		*vaddr = (uintptr_t)addr - lib->l_addr;
		ret = 0;
	}
	dlclose(h);
	return ret;
}

/* Replace an IFUNC resolver by its implementation when we can tell it. */
static void resolve_ifunc(struct elffile *ef, struct elfsym *sym)
{
	uint64_t vaddr, off;

	if (ifunc_target(elffile_path(ef), sym->name, &vaddr) ||
	    elffile_vaddr_to_off(ef, vaddr, &off))
		return;
	sym->vaddr = vaddr;
	sym->offset = off;
	sym->ifunc = false;
}

static size_t count_refused(const struct fetcharg *a, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		k += a[i].refused != NULL;
	return k;
}

/* DWARF parameters for the site at @s->vaddr (a function of @fl), moving
 * it past the prologue when that makes more of them readable. */
static void add_params(struct dwinfo *dw, const struct dwfunc_list *fl,
		       struct elffile *ef, struct usite *s)
{
	const struct dwfunc *f = NULL;
	struct fetcharg *a;
	uint64_t off;
	size_t i, n;

	for (i = 0; i < fl->n && !f; i++)
		if (fl->v[i].entry == s->vaddr && !strcmp(fl->v[i].name, s->func))
			f = &fl->v[i];
	if (!f || dwinfo_params(dw, f, s->vaddr, &s->args, &s->nargs, NULL, 0) ||
	    !count_refused(s->args, s->nargs) || f->body == f->entry ||
	    dwinfo_params(dw, f, f->body, &a, &n, NULL, 0))
		return;
	if (count_refused(a, n) < count_refused(s->args, s->nargs) &&
	    !elffile_vaddr_to_off(ef, f->body, &off)) {
		fetchargs_free(s->args, s->nargs);
		s->args = a;
		s->nargs = n;
		s->vaddr = f->body;
		s->offset = off;
		s->after_prologue = true;
	} else {
		fetchargs_free(a, n);
	}
}

static bool is_single(const char *pattern)
{
	return strchr(pattern, '+') || (pattern[0] >= '0' && pattern[0] <= '9');
}

/*
 * A stripped object keeps only .dynsym (its exported functions); its
 * separate debug file, found as its DWARF is (build ID, .gnu_debuglink),
 * has the .symtab with the file-local ones too.
 */
static void add_debug_symbols(struct elffile *ef, const char *path)
{
	GElf_Shdr sh;
	char *dbg;

	if (elffile_section(ef, ".symtab", &sh))
		return;
	dbg = dwinfo_symbol_file(path, NULL);
	if (dbg)
		elffile_add_symbols(ef, dbg);
	free(dbg);
}

int usite_open(const char *target, pid_t pid, char **path, struct elffile **ef,
	       char *err, size_t errlen)
{
	int ret = target_resolve(target, pid, path, err, errlen);

	if (ret)
		return ret;
	*ef = elffile_open(*path, err, errlen);
	if (!*ef) {
		ret = -errno;
		free(*path);
		*path = NULL;
		return ret;
	}
	add_debug_symbols(*ef, *path);
	return 0;
}

/* Empty @out and usite_open() @target. */
static int open_object(const char *target, const struct usite_opts *o,
		       struct usite_list *out, char **path, struct elffile **ef,
		       char *err, size_t errlen)
{
	out->v = NULL;
	out->n = 0;
	return usite_open(target, o->pid, path, ef, err, errlen);
}

int usite_functions(const char *target, const char *pattern,
		    const struct usite_opts *o, struct usite_list *out,
		    char *err, size_t errlen)
{
	struct elfsym_list syms = { 0 };
	struct dwfunc_list fl = { 0 };
	struct dwinfo *dw = NULL;
	struct elffile *ef;
	struct usite *s;
	char *path;
	size_t i, cap = 0;
	int ret;

	o = o ? o : &no_opts;
	ret = open_object(target, o, out, &path, &ef, err, errlen);
	if (ret)
		return ret;
	if (is_single(pattern)) {
		syms.v = xcalloc(1, sizeof(*syms.v));
		ret = elfsym_resolve(ef, pattern, syms.v, err, errlen);
		syms.n = !ret;
	} else {
		ret = elfsym_find(ef, pattern, &syms, err, errlen);
	}
	if (ret)
		goto out;
	/* parameters are known at a function's entry only; one DWARF walk
	 * for all the matches */
	if ((o->flags & USITE_ARGS) && !is_single(pattern))
		dw = dwinfo_open(path, o->debug_dirs, NULL, 0);
	if (dw && dwinfo_funcs(dw, pattern, 0, &fl, NULL, 0)) {
		dwinfo_free(dw);
		dw = NULL;
	}
	for (i = 0; i < syms.n; i++) {
		struct elfsym *sym = &syms.v[i];

		if (sym->ifunc)
			resolve_ifunc(ef, sym);
		s = add_site(out, &cap, path);
		s->offset = sym->offset;
		s->vaddr = sym->vaddr;
		s->name = xstrdup(sym->name);
		if (!(pattern[0] >= '0' && pattern[0] <= '9'))
			s->func = xasprintf("%.*s", (int)strcspn(sym->name, "+"),
					    sym->name);
		s->ifunc = sym->ifunc;
		if (dw)
			add_params(dw, &fl, ef, s);
	}
out:
	dwfunc_list_release(&fl);
	dwinfo_free(dw);
	elfsym_list_release(&syms);
	elffile_free(ef);
	free(path);
	return ret;
}

/* The marks of one object into @out. */
static int marks_of(const char *path, const char *provider, const char *name,
		    struct usite_list *out, size_t *cap, char *why,
		    size_t whylen)
{
	struct elffile *ef = elffile_open(path, why, whylen);
	struct usdt_list l;
	struct usite *s;
	size_t i;
	int ret;

	if (!ef)
		return -errno;
	ret = usdt_find(ef, provider, name, &l, why, whylen);
	for (i = 0; !ret && i < l.n; i++) {
		struct usdt_probe *p = &l.v[i];

		if (p->refused) {
			errmsg(why, whylen, 0, "%s:%s at 0x%" PRIx64 ": %s",
			       p->provider, p->name, p->pc, p->refused);
			continue;
		}
		s = add_site(out, cap, path);
		s->offset = p->offset;
		s->ref_ctr_offset = p->sema_offset;
		s->vaddr = p->pc;
		s->name = xasprintf("%s:%s", p->provider, p->name);
		s->args = p->args;
		s->nargs = p->nargs;
		p->args = NULL;
		p->nargs = 0;
	}
	usdt_list_release(&l);
	elffile_free(ef);
	return ret;
}

int usite_marks(const char *target, const char *provider, const char *name,
		const struct usite_opts *o, struct usite_list *out, char *err,
		size_t errlen)
{
	char **paths = NULL, *path = NULL, why[256] = "";
	size_t n = 0, i, cap = 0;
	int ret;

	o = o ? o : &no_opts;
	out->v = NULL;
	out->n = 0;
	if ((!target || !*target) && o->pid > 0) {
		ret = target_objects(o->pid, &paths, &n, err, errlen);
		if (ret)
			return ret;
		/* objects we cannot read (vdso-like, gone) are skipped */
		for (i = 0; i < n; i++)
			marks_of(paths[i], provider, name, out, &cap, why,
				 sizeof(why));
		target_objects_free(paths, n);
	} else {
		ret = target_resolve(target, o->pid, &path, err, errlen);
		if (ret)
			return ret;
		ret = marks_of(path, provider, name, out, &cap, why,
			       sizeof(why));
		free(path);
		if (ret)
			return errmsg(err, errlen, ret, "%s", why);
	}
	if (!out->n && why[0])
		return errmsg(err, errlen, -EINVAL, "%s", why);
	return 0;
}

int usite_statement(const char *target, const char *spec,
		    const struct usite_opts *o, struct usite_list *out,
		    char *err, size_t errlen)
{
	struct dwinfo *dw = NULL;
	struct dwline *lines = NULL;
	struct elffile *ef = NULL;
	struct usite *s;
	size_t n = 0, i, cap = 0;
	uint64_t off;
	char *path;
	int ret;

	o = o ? o : &no_opts;
	ret = open_object(target, o, out, &path, &ef, err, errlen);
	if (ret)
		return ret;
	dw = dwinfo_open(path, o->debug_dirs, err, errlen);
	if (!dw) {
		ret = -errno;
		goto out;
	}
	ret = dwinfo_statement(dw, spec, &lines, &n, err, errlen);
	for (i = 0; !ret && i < n; i++) {
		if (elffile_vaddr_to_off(ef, lines[i].addr, &off))
			continue;
		s = add_site(out, &cap, path);
		s->offset = off;
		s->vaddr = lines[i].addr;
		s->name = xstrdup(spec);
		s->func = lines[i].func ? xstrdup(lines[i].func) : NULL;
	}
out:
	dwlines_free(lines, n);
	dwinfo_free(dw);
	elffile_free(ef);
	free(path);
	return ret;
}

int usite_entry(const char *target, const struct usite_opts *o,
		struct usite_list *out, char *err, size_t errlen)
{
	struct elffile *ef;
	struct usite *s;
	GElf_Ehdr eh;
	uint64_t off;
	size_t cap = 0;
	char *path;
	int ret;

	o = o ? o : &no_opts;
	ret = open_object(target, o, out, &path, &ef, err, errlen);
	if (ret)
		return ret;
	if (!gelf_getehdr(elffile_elf(ef), &eh) || !eh.e_entry)
		ret = errmsg(err, errlen, -ENOEXEC, "%s has no entry point", path);
	else if (elffile_vaddr_to_off(ef, eh.e_entry, &off))
		ret = errmsg(err, errlen, -ENOEXEC,
			     "the entry point of %s is not in the file", path);
	if (!ret) {
		s = add_site(out, &cap, path);
		s->offset = off;
		s->vaddr = eh.e_entry;
		s->name = xstrdup("_entry");
	}
	elffile_free(ef);
	free(path);
	return ret;
}

int usite_interp(const char *target, pid_t pid, char **path, char *err,
		 size_t errlen)
{
	char interp[4096], root[4096] = "", *real, *full;
	struct elffile *ef;
	GElf_Phdr ph;
	size_t i, n;
	ssize_t r = -1;
	int fd, ret = -ENOENT;

	ret = usite_open(target, pid, &full, &ef, err, errlen);
	if (ret)
		return ret;
	ret = -ENOENT;
	if (elf_getphdrnum(elffile_elf(ef), &n))
		n = 0;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elffile_elf(ef), (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		fd = open(full, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && ph.p_filesz < sizeof(interp))
			r = pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset);
		if (fd >= 0)
			close(fd);
		if (r <= 0)
			break;
		interp[r] = '\0';
		ret = 0;
		break;
	}
	elffile_free(ef);
	if (ret) {
		ret = errmsg(err, errlen, ret, "%s has no program interpreter", full);
		free(full);
		return ret;
	}
	free(full);
	if (pid > 0)
		target_root(pid, root, sizeof(root));
	full = xasprintf("%s%s", root, interp);
	real = realpath(full, NULL);
	if (!real) {
		ret = errmsg(err, errlen, -errno, "cannot resolve '%s': %s", full,
			     strerror(errno));
		free(full);
		return ret;
	}
	free(full);
	*path = real;
	return 0;
}
