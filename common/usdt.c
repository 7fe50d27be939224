// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes from .note.stapsdt.
 *
 * <sys/sdt.h> leaves a nop at each call site and an ELF note describing it
 * (owner "stapsdt", type 3):
 *
 *	desc:	pc, base, semaphore	(one address each, 8 or 4 bytes)
 *		provider\0 name\0 args\0
 *
 * pc is the nop, semaphore an optional unsigned short the program tests
 * before computing costly arguments (the kernel increments it while a
 * uprobe with a reference counter offset is attached), base the address
 * of the .stapsdt.base section as the assembler saw it.  Notes carry no
 * relocations, so when prelink moves an object its notes go stale; the
 * distance between .stapsdt.base's current address and the recorded base
 * moves them back (bcc and libbpf do the same).
 *
 * Both addresses become file offsets through the program headers: the
 * uprobe is `PATH:OFFSET(REF_CTR_OFFSET)`, and the kernel finds the
 * counter by file offset in the object's mappings.  A semaphore must
 * therefore be file-backed (sdt.h puts them in the .probes data section).
 *
 * The notes themselves are parsed in usdt_note.c, the argument specs in
 * usdt_arg.c.
 */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/elfsym.h"
#include "common/log.h"
#include "common/usdt.h"
#include "common/usdt_arg.h"

static int sym_addr(void *priv, const char *name, uint64_t *vaddr)
{
	return elfsym_addr(priv, name, vaddr);
}

/* Fill @p from note @n moved by @delta (prelink). */
static void make_probe(struct elffile *ef, const struct usdt_note *n,
		       uint64_t delta, struct usdt_probe *p)
{
	struct usdt_arg_ctx ctx = {
		.absolute = elffile_type(ef) == ET_EXEC,
		.sym_addr = sym_addr,
		.priv = ef,
	};
	char why[256];
	size_t i;

	memset(p, 0, sizeof(*p));
	p->provider = xstrdup(n->provider);
	p->name = xstrdup(n->name);
	p->argstr = xstrdup(n->args);
	p->pc = n->pc + delta;
	p->sema = n->sema ? n->sema + delta : 0;
	if (elffile_vaddr_to_off(ef, p->pc, &p->offset)) {
		p->refused = xasprintf("call site 0x%" PRIx64 " is outside the "
				       "file's loadable segments", p->pc);
		return;
	}
	if (p->sema && elffile_vaddr_to_off(ef, p->sema, &p->sema_offset)) {
		p->refused = xasprintf("semaphore 0x%" PRIx64 " is not backed "
				       "by the file", p->sema);
		return;
	}
	ctx.pc = p->pc;
	if (usdt_args_parse(n->args, &ctx, &p->args, &p->nargs, why,
			    sizeof(why))) {
		p->refused = xasprintf("arguments '%s': %s", n->args, why);
		return;
	}
	if (elffile_machine(ef) == EM_X86_64)
		return;
	for (i = 0; i < p->nargs; i++)
		fetcharg_refuse(&p->args[i], "argument specs of machine %d "
				"are not supported", elffile_machine(ef));
}

static bool matches(const char *pattern, const char *s)
{
	return !pattern || !fnmatch(pattern, s, 0);
}

int usdt_find(struct elffile *ef, const char *provider, const char *name,
	      struct usdt_list *out, char *err, size_t errlen)
{
	GElf_Shdr sh, base_sh;
	struct usdt_note n;
	char why[256];
	uint64_t delta;
	Elf_Data *data;
	Elf_Scn *scn;
	size_t pos = 0, cap = 0;
	int ret;

	out->v = NULL;
	out->n = 0;
	scn = elffile_section(ef, ".note.stapsdt", &sh);
	if (!scn || sh.sh_type != SHT_NOTE)
		return 0;
	data = elf_rawdata(scn, NULL);
	if (!data || !data->d_buf)
		return errmsg(err, errlen, -EINVAL, "'%s': cannot read "
			      ".note.stapsdt: %s", elffile_path(ef),
			      elf_errmsg(-1));
	/* .stapsdt.base is where the notes' base field says it was */
	if (!elffile_section(ef, ".stapsdt.base", &base_sh))
		base_sh.sh_addr = 0;
	while ((ret = usdt_note_next(data->d_buf, data->d_size, &pos,
				     elffile_addr_size(ef), &n, why,
				     sizeof(why))) > 0) {
		if (!matches(provider, n.provider) || !matches(name, n.name))
			continue;
		delta = base_sh.sh_addr && n.base ? base_sh.sh_addr - n.base : 0;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 16;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		make_probe(ef, &n, delta, &out->v[out->n++]);
	}
	if (ret < 0) {
		usdt_list_release(out);
		return errmsg(err, errlen, ret, "'%s': %s", elffile_path(ef),
			      why);
	}
	return 0;
}

void usdt_list_release(struct usdt_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct usdt_probe *p = &l->v[i];

		free(p->provider);
		free(p->name);
		free(p->argstr);
		fetchargs_free(p->args, p->nargs);
		free(p->refused);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
