// SPDX-License-Identifier: GPL-2.0
/*
 * Debug information through libdwfl.
 *
 * libdwfl finds the DWARF wherever it is: in the object, or in a separate
 * file by build ID or .gnu_debuglink under the search path we give it
 * (":.debug:ROOTS" - the object's folder, its .debug/ folder, then each
 * root), including dwz's shared .gnu_debugaltlink files.  It also tells
 * how the DWARF's addresses relate to the object's: a debug file split off
 * before prelinking is off by the prelink distance.  We keep both biases
 * and speak only link-time addresses of the object outward.
 *
 * Functions are found by walking each unit's DIE tree: subprograms with
 * code are out-of-line functions; with DWINFO_INLINE, inlined_subroutine
 * DIEs below them are the inline instances.  The walk is bounded in depth
 * so hostile DWARF cannot exhaust the stack.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/dwinfo.h"
#include "common/dwloc.h"
#include "common/log.h"

#define MAX_DEPTH	64

struct dwinfo {
	Dwfl_Callbacks cb;	/* libdwfl keeps a pointer to it */
	char *search;		/* cb.debuginfo_path points here */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dbg;
	Dwarf_Addr dwbias;	/* module address = DWARF address + dwbias */
	GElf_Addr mainbias;	/* module address = link-time + mainbias */
	int machine;
	char *debug_file;
	const uint64_t *units;	/* sorted unit DIE offsets walked; NULL: all */
	size_t nunits;
	bool kernel;		/* statics at kernel addresses (+ kreloc) */
	int64_t kreloc;
};

/* What dwinfo_params() needs of a function: its DIE and the enclosing
 * out-of-line function's (for the frame base). */
struct fpriv {
	Dwarf_Die die;
	Dwarf_Die outer;
};

static uint64_t to_link(const struct dwinfo *dw, Dwarf_Addr a)
{
	return a + dw->dwbias - dw->mainbias;
}

static Dwarf_Addr to_dwarf(const struct dwinfo *dw, uint64_t a)
{
	return a + dw->mainbias - dw->dwbias;
}

struct dwinfo *dwinfo_open(const char *path, const char *debug_dirs,
			   char *err, size_t errlen)
{
	struct dwinfo *dw = xcalloc(1, sizeof(*dw));
	const char *mainfile = NULL, *debugfile = NULL;
	GElf_Ehdr eh;
	Elf *elf;
	int ret;

	elf_version(EV_CURRENT);
	dw->search = xasprintf(":.debug:%s", debug_dirs ? debug_dirs :
			       "/usr/lib/debug");
	dw->cb.find_elf = dwfl_build_id_find_elf;
	dw->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	dw->cb.section_address = dwfl_offline_section_address;
	dw->cb.debuginfo_path = &dw->search;
	dw->dwfl = dwfl_begin(&dw->cb);
	if (!dw->dwfl) {
		ret = errmsg(err, errlen, -ENOMEM, "libdwfl: %s",
			     dwfl_errmsg(-1));
		goto fail;
	}
	dw->mod = dwfl_report_offline(dw->dwfl, path, path, -1);
	if (!dw->mod) {
		ret = errmsg(err, errlen, -ENOEXEC, "'%s': %s", path,
			     dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_report_end(dw->dwfl, NULL, NULL);
	elf = dwfl_module_getelf(dw->mod, &dw->mainbias);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		ret = errmsg(err, errlen, -ENOEXEC, "'%s': %s", path,
			     dwfl_errmsg(-1));
		goto fail;
	}
	dw->machine = eh.e_machine;
	dw->dbg = dwfl_module_getdwarf(dw->mod, &dw->dwbias);
	if (!dw->dbg) {
		ret = errmsg(err, errlen, -ENODATA, "no debug information for "
			     "'%s' (%s)", path, dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_module_info(dw->mod, NULL, NULL, NULL, NULL, NULL, &mainfile,
			 &debugfile);
	dw->debug_file = xstrdup(debugfile ? debugfile :
				 mainfile ? mainfile : path);
	return dw;
fail:
	dwinfo_free(dw);
	errno = -ret;
	return NULL;
}

char *dwinfo_symbol_file(const char *path, const char *debug_dirs)
{
	Dwfl_Callbacks cb = {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	char *search = xasprintf(":.debug:%s", debug_dirs ? debug_dirs : "/usr/lib/debug");
	const char *debugfile = NULL;
	char *out = NULL;
	Dwfl_Module *mod;
	Dwfl *dwfl;

	elf_version(EV_CURRENT);
	cb.debuginfo_path = &search;
	dwfl = dwfl_begin(&cb);
	mod = dwfl ? dwfl_report_offline(dwfl, path, path, -1) : NULL;
	if (mod) {
		dwfl_report_end(dwfl, NULL, NULL);
		/* libdwfl takes the symbol table from the debug file when the
		 * object has none, without reading its DWARF */
		if (dwfl_module_getsymtab(mod) > 0)
			dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL,
					 &debugfile);
		if (debugfile && strcmp(debugfile, path))
			out = xstrdup(debugfile);
	}
	if (dwfl)
		dwfl_end(dwfl);
	free(search);
	return out;
}

void dwinfo_free(struct dwinfo *dw)
{
	if (!dw)
		return;
	if (dw->dwfl)
		dwfl_end(dw->dwfl);
	free(dw->search);
	free(dw->debug_file);
	free(dw);
}

int dwinfo_line(struct dwinfo *dw, uint64_t addr, const char **file, int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(dw->mod, addr + dw->mainbias);
	const char *f;
	int n = 0;

	if (!l)
		return -ENOENT;
	f = dwfl_lineinfo(l, NULL, &n, NULL, NULL, NULL);
	if (!f || n <= 0)
		return -ENOENT;
	*file = f;
	*line = n;
	return 0;
}

const char *dwinfo_debug_file(const struct dwinfo *dw)
{
	return dw->debug_file;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
}

/* Where code of @die begins: the entry of an inline instance, the first
 * range of a function (GCC lists the hot part before a .cold one). */
static int entry_of(Dwarf_Die *die, Dwarf_Addr *addr)
{
	Dwarf_Addr base, start, end, low;
	Dwarf_Attribute attr;
	Dwarf_Word off;

	if (dwarf_tag(die) == DW_TAG_inlined_subroutine &&
	    dwarf_attr(die, DW_AT_entry_pc, &attr)) {
		if (!dwarf_formaddr(&attr, addr))
			return 0;
		/* DWARF 5: an offset from the low address */
		if (!dwarf_formudata(&attr, &off) && !dwarf_lowpc(die, &low)) {
			*addr = low + off;
			return 0;
		}
	}
	if (!dwarf_lowpc(die, addr))
		return 0;
	if (dwarf_ranges(die, 0, &base, &start, &end) > 0) {
		*addr = start;
		return 0;
	}
	return -1;
}

/*
 * The first address after the prologue of the function @die entered at
 * @entry: a line-table row flagged prologue_end (clang), else the first
 * statement row after the entry's (GCC; as gdb's prologue analysis).
 */
static Dwarf_Addr body_of(Dwarf_Die *die, Dwarf_Addr entry)
{
	Dwarf_Addr base, start, high = 0, a, best = 0, pe = 0;
	Dwarf_Lines *lines;
	Dwarf_Die cu;
	size_t i, n;
	bool flag;

	if (dwarf_highpc(die, &high) &&
	    dwarf_ranges(die, 0, &base, &start, &high) <= 0)
		return entry;
	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return entry;
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (!l || dwarf_lineaddr(l, &a) || a <= entry || a >= high)
			continue;
		if (!dwarf_lineendsequence(l, &flag) && flag)
			continue;
		if (!dwarf_lineprologueend(l, &flag) && flag &&
		    (!pe || a < pe))
			pe = a;
		if (!dwarf_linebeginstatement(l, &flag) && flag &&
		    (!best || a < best))
			best = a;
	}
	return pe ? pe : best ? best : entry;
}

struct walk {
	struct dwinfo *dw;
	const char *pattern;
	unsigned int flags;
	struct dwfunc_list *out;
	size_t cap;
	bool bad;		/* libdw failed to read a DIE */
};

static bool has_code(Dwarf_Die *die)
{
	return !dwarf_hasattr(die, DW_AT_declaration) &&
	       (dwarf_hasattr(die, DW_AT_low_pc) ||
		dwarf_hasattr(die, DW_AT_ranges));
}

static void add_func(struct walk *w, Dwarf_Die *die, Dwarf_Die *outer)
{
	const char *name = die_name(die), *file;
	struct fpriv *p;
	struct dwfunc *f;
	Dwarf_Addr entry;
	int line = 0;

	if (!name || fnmatch(w->pattern, name, 0) || entry_of(die, &entry))
		return;
	if (w->out->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->out->v = xrealloc(w->out->v, w->cap * sizeof(*w->out->v));
	}
	f = &w->out->v[w->out->n++];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->entry = to_link(w->dw, entry);
	f->body = outer ? f->entry : to_link(w->dw, body_of(die, entry));
	file = dwarf_decl_file(die);
	f->file = file ? xstrdup(file) : NULL;
	if (!dwarf_decl_line(die, &line))
		f->line = line;
	if (outer) {
		name = die_name(outer);
		f->inlined_into = xstrdup(name ? name : "?");
	}
	p = xmalloc(sizeof(*p));
	p->die = *die;
	p->outer = outer ? *outer : *die;
	f->priv = p;
}

/* Functions in the subtree below @parent; @outer is the out-of-line
 * function the subtree belongs to, NULL above functions. */
static void walk_die(struct walk *w, Dwarf_Die *parent, Dwarf_Die *outer,
		     int depth)
{
	Dwarf_Die child;
	int ret;

	if (depth > MAX_DEPTH)
		return;
	ret = dwarf_child(parent, &child);
	if (ret) {
		w->bad |= ret < 0;
		return;
	}
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (!has_code(&child))
				break;
			add_func(w, &child, NULL);
			if (w->flags & DWINFO_INLINE)
				walk_die(w, &child, &child, depth + 1);
			break;
		case DW_TAG_inlined_subroutine:
			if (outer)
				add_func(w, &child, outer);
			walk_die(w, &child, outer, depth + 1);
			break;
		case DW_TAG_lexical_block:
			if (outer)
				walk_die(w, &child, outer, depth + 1);
			break;
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
			if (!outer)
				walk_die(w, &child, outer, depth + 1);
			break;
		}
	} while ((ret = dwarf_siblingof(&child, &child)) == 0);
	w->bad |= ret < 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct dwfunc *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return strcmp(x->name, y->name);
}

int dwinfo_funcs(struct dwinfo *dw, const char *pattern, unsigned int flags,
		 struct dwfunc_list *out, char *err, size_t errlen)
{
	struct walk w = { dw, pattern, flags, out, 0, false };
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	int ret;

	out->v = NULL;
	out->n = 0;
	while ((ret = dwarf_get_units(dw->dbg, cu, &cu, NULL, &type, &cudie,
				      NULL)) == 0) {
		if ((type == DW_UT_compile || type == DW_UT_partial) &&
		    dwinfo_unit_wanted(dw, &cudie))
			walk_die(&w, &cudie, NULL, 0);
	}
	if (ret < 0 || w.bad) {
		dwfunc_list_release(out);
		return errmsg(err, errlen, -EINVAL, "'%s': bad debug "
			      "information: %s", dw->debug_file,
			      dwarf_errmsg(-1));
	}
	if (out->n)		/* qsort(NULL, 0) is undefined */
		qsort(out->v, out->n, sizeof(*out->v), cmp_func);
	return 0;
}

void dwfunc_list_release(struct dwfunc_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].file);
		free(l->v[i].inlined_into);
		free(l->v[i].priv);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* The CFA rule at the pc, from .debug_frame or else .eh_frame. */
static int cfa_at(void *priv, Dwarf_Op *op, char *err, size_t errlen)
{
	struct dwinfo_cfa *c = priv;
	Dwarf_Frame *frame;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;
	Dwarf_Op *ops;
	size_t nops;
	int i, ret;

	for (i = 0; i < 2; i++) {
		cfi = i ? dwfl_module_eh_cfi(c->dw->mod, &bias) :
			  dwfl_module_dwarf_cfi(c->dw->mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, c->pc + c->dw->mainbias -
						bias, &frame))
			continue;
		ret = dwarf_frame_cfa(frame, &ops, &nops);
		if (!ret && nops == 1)
			*op = ops[0];
		free(frame);
		if (!ret && nops == 1)
			return 0;
	}
	return errmsg(err, errlen, -ENOENT, "no call frame information at "
		      "0x%" PRIx64, c->pc);
}

/* The child of @parent whose abstract origin is @origin, if any. */
static bool concrete_of(Dwarf_Die *parent, Dwarf_Die *origin, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die o;

	if (dwarf_child(parent, out))
		return false;
	do {
		if (dwarf_attr(out, DW_AT_abstract_origin, &attr) &&
		    dwarf_formref_die(&attr, &o) &&
		    dwarf_dieoffset(&o) == dwarf_dieoffset(origin))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

int dwinfo_params(struct dwinfo *dw, const struct dwfunc *f, uint64_t pc,
		  struct fetcharg **args, size_t *n, char *err, size_t errlen)
{
	struct fpriv *p = f->priv;
	struct dwinfo_cfa cc = { dw, pc };
	struct dwloc_ctx ctx = {
		.pc = to_dwarf(dw, pc),
		.entry = to_dwarf(dw, f->entry),
		.body = to_dwarf(dw, f->body),
		.machine = dw->machine,
		.kernel = dw->kernel,
		.frame = &p->outer,
		.cfa = cfa_at,
		.priv = &cc,
	};
	Dwarf_Attribute attr;
	Dwarf_Die child, origin, conc;
	struct fetcharg *v = NULL;
	bool has_origin;
	size_t k = 0;
	const char *name;

	*args = NULL;
	*n = 0;
	if (!p)
		return errmsg(err, errlen, -EINVAL, "no debug information "
			      "entry for '%s'", f->name);
	/*
	 * An inline instance or an out-of-line copy of an inline function
	 * has its names in the abstract origin, and may lack parameters the
	 * compiler dropped: walk the origin's list, in declaration order.
	 */
	has_origin = dwarf_attr(&p->die, DW_AT_abstract_origin, &attr) &&
		     dwarf_formref_die(&attr, &origin);
	if (dwarf_child(has_origin ? &origin : &p->die, &child))
		goto out;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		v = xrealloc(v, (k + 1) * sizeof(*v));
		if (!has_origin) {
			dwloc_param(&child, (int)k + 1, &ctx, &v[k]);
		} else if (concrete_of(&p->die, &child, &conc)) {
			dwloc_param(&conc, (int)k + 1, &ctx, &v[k]);
		} else {
			name = die_name(&child);
			memset(&v[k], 0, sizeof(v[k]));
			v[k].name = name ? xstrdup(name) :
					   xasprintf("arg%zu", k + 1);
			fetcharg_refuse(&v[k], "'%s' is optimized out",
					v[k].name);
		}
		k++;
	} while (k < 128 && dwarf_siblingof(&child, &child) == 0);
out:
	*args = v;
	*n = k;
	return 0;
}

Dwarf *dwinfo_dwarf(const struct dwinfo *dw)
{
	return dw->dbg;
}

int dwinfo_machine(const struct dwinfo *dw)
{
	return dw->machine;
}

uint64_t dwinfo_to_dwarf(const struct dwinfo *dw, uint64_t addr)
{
	return to_dwarf(dw, addr);
}

uint64_t dwinfo_to_link(const struct dwinfo *dw, uint64_t dwaddr)
{
	return to_link(dw, dwaddr);
}

int dwinfo_file_offset(const struct dwinfo *dw, uint64_t addr, uint64_t *off)
{
	GElf_Addr bias;
	GElf_Phdr ph;
	size_t i, n;
	Elf *elf = dwfl_module_getelf(dw->mod, &bias);

	if (!elf || elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X))
			continue;
		if (addr < ph.p_vaddr - ph.p_offset)
			return -ENOENT;
		*off = addr - (ph.p_vaddr - ph.p_offset);
		return 0;
	}
	return -ENOENT;
}

void dwinfo_loc_ctx(struct dwinfo *dw, uint64_t pc, Dwarf_Die *func,
		    struct dwinfo_cfa *cfa, struct dwloc_ctx *ctx)
{
	Dwarf_Addr entry;

	cfa->dw = dw;
	cfa->pc = pc;
	memset(ctx, 0, sizeof(*ctx));
	ctx->pc = to_dwarf(dw, pc);
	ctx->entry = entry_of(func, &entry) ? ctx->pc : entry;
	ctx->body = body_of(func, ctx->entry);
	ctx->machine = dw->machine;
	ctx->kernel = dw->kernel;
	ctx->frame = func;
	ctx->cfa = cfa_at;
	ctx->priv = cfa;
}

bool dwinfo_file_matches(const char *path, const char *want)
{
	const char *base = strrchr(path, '/');
	size_t lp = strlen(path), lw = strlen(want);

	base = base ? base + 1 : path;
	if (strpbrk(want, "*?["))
		return strchr(want, '/') ? !fnmatch(want, path, 0) ||
					   (lp > lw && !fnmatch(want, path + lp - lw, 0)) :
					   !fnmatch(want, base, 0);
	if (!strchr(want, '/'))
		return !strcmp(base, want);
	/* a path suffix, at a component boundary */
	return lp >= lw && !strcmp(path + lp - lw, want) &&
	       (lp == lw || want[0] == '/' || path[lp - lw - 1] == '/');
}

/* The innermost function around DWARF address @a in @cu matching @pattern
 * (all when NULL); NULL when none. */
static const char *func_at(Dwarf_Die *cu, Dwarf_Addr a, const char *pattern,
			   bool *found)
{
	Dwarf_Die *scopes;
	const char *name, *ret = NULL;
	int i, n;

	*found = false;
	n = dwarf_getscopes(cu, a, &scopes);
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_subprogram &&
		    tag != DW_TAG_inlined_subroutine)
			continue;
		name = die_name(&scopes[i]);
		if (!name)
			continue;
		if (!pattern || !fnmatch(pattern, name, 0)) {
			ret = name;
			*found = true;
			break;
		}
	}
	free(scopes);
	return ret;
}

struct stmt {
	const char *func;	/* NULL: any */
	const char *file;
	int line;
	struct dwline *v;
	size_t n, cap;
	int below, above;	/* the nearest lines with code, for messages */
	bool bad;		/* a line table could not be read */
};

static void add_line(struct dwinfo *dw, struct stmt *s, Dwarf_Die *cu,
		     Dwarf_Line *l, Dwarf_Addr a)
{
	const char *name;
	bool found;
	size_t i;

	name = func_at(cu, a, s->func, &found);
	if (s->func && !found)
		return;
	for (i = 0; i < s->n; i++)
		if (s->v[i].addr == to_link(dw, a))
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n].addr = to_link(dw, a);
	s->v[s->n].func = name ? xstrdup(name) : NULL;
	s->v[s->n].file = xstrdup(dwarf_linesrc(l, NULL, NULL));
	s->v[s->n].line = s->line;
	s->n++;
}

/* The rows of @cu's line table that start a run of @s's line. */
static void scan_cu(struct dwinfo *dw, struct stmt *s, Dwarf_Die *cu)
{
	Dwarf_Lines *lines;
	const char *src, *prev_src = NULL;
	int lineno, prev_line = 0;
	Dwarf_Addr a;
	bool stmt, end;
	size_t i, n;

	if (dwarf_getsrclines(cu, &lines, &n)) {
		/* a unit without code has no line table; others must */
		s->bad |= dwarf_hasattr(cu, DW_AT_stmt_list);
		return;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (!l || dwarf_lineendsequence(l, &end) || end ||
		    dwarf_lineno(l, &lineno) || dwarf_lineaddr(l, &a) ||
		    !(src = dwarf_linesrc(l, NULL, NULL))) {
			prev_src = NULL;
			continue;
		}
		if (!dwinfo_file_matches(src, s->file)) {
			prev_src = src;
			prev_line = lineno;
			continue;
		}
		if (lineno < s->line && lineno > s->below)
			s->below = lineno;
		if (lineno > s->line && (!s->above || lineno < s->above))
			s->above = lineno;
		if (lineno == s->line && !dwarf_linebeginstatement(l, &stmt) &&
		    stmt && !(prev_src && prev_line == lineno &&
			      !strcmp(prev_src, src)))
			add_line(dw, s, cu, l, a);
		prev_src = src;
		prev_line = lineno;
	}
}

static int cmp_line(const void *a, const void *b)
{
	const struct dwline *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* spec := [func '@'] file ':' line */
int dwinfo_statement(struct dwinfo *dw, const char *spec, struct dwline **out,
		     size_t *n, char *err, size_t errlen)
{
	struct stmt s = { 0 };
	char *copy = xstrdup(spec), *at, *colon, *end;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	long line;
	int ret;

	*out = NULL;
	*n = 0;
	colon = strrchr(copy, ':');
	if (!colon) {
		ret = errmsg(err, errlen, -EINVAL, "'%s': expected "
			     "[FUNC@]FILE:LINE", spec);
		goto out;
	}
	*colon = '\0';
	errno = 0;
	line = strtol(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || line <= 0 || line > INT32_MAX) {
		ret = errmsg(err, errlen, -EINVAL, "'%s': bad line number",
			     spec);
		goto out;
	}
	at = strchr(copy, '@');
	if (at) {
		*at = '\0';
		s.func = copy;
		s.file = at + 1;
	} else {
		s.file = copy;
	}
	if (!*s.file || (s.func && !*s.func)) {
		ret = errmsg(err, errlen, -EINVAL, "'%s': expected "
			     "[FUNC@]FILE:LINE", spec);
		goto out;
	}
	s.line = (int)line;
	while ((ret = dwarf_get_units(dw->dbg, cu, &cu, NULL, &type, &cudie,
				      NULL)) == 0)
		if (type == DW_UT_compile && dwinfo_unit_wanted(dw, &cudie))
			scan_cu(dw, &s, &cudie);
	if (ret < 0 || s.bad) {
		dwlines_free(s.v, s.n);
		ret = errmsg(err, errlen, -EINVAL, "'%s': bad debug information:"
			     " %s", dw->debug_file, dwarf_errmsg(-1));
		goto out;
	}
	ret = 0;
	if (!s.n && s.below && s.above)
		ret = errmsg(err, errlen, -ENOENT, "no code at %s (nearest "
			     "lines with code: %d and %d)", spec, s.below,
			     s.above);
	else if (!s.n && (s.below || s.above))
		ret = errmsg(err, errlen, -ENOENT, "no code at %s (nearest "
			     "line with code: %d)", spec, s.below ?: s.above);
	else if (!s.n)
		ret = errmsg(err, errlen, -ENOENT, "no code at %s", spec);
	if (ret)
		goto out;
	qsort(s.v, s.n, sizeof(*s.v), cmp_line);
	*out = s.v;
	*n = s.n;
out:
	free(copy);
	return ret;
}

void dwlines_free(struct dwline *v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++) {
		free(v[i].func);
		free(v[i].file);
	}
	free(v);
}

void dwinfo_set_units(struct dwinfo *dw, const uint64_t *offs, size_t n)
{
	dw->units = offs;
	dw->nunits = n;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

bool dwinfo_unit_wanted(const struct dwinfo *dw, Dwarf_Die *cudie)
{
	uint64_t off;

	if (!dw->units)
		return true;
	off = dwarf_dieoffset(cudie);
	return bsearch(&off, dw->units, dw->nunits, sizeof(off), cmp_u64);
}

void dwinfo_set_kernel(struct dwinfo *dw, int64_t reloc)
{
	dw->kernel = true;
	dw->kreloc = reloc;
}

bool dwinfo_kernel_addr(const struct dwinfo *dw, uint64_t addr, uint64_t *out)
{
	if (!dw->kernel)
		return false;
	*out = addr + (uint64_t)dw->kreloc;
	return true;
}
