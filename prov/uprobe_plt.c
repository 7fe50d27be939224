// SPDX-License-Identifier: GPL-2.0
/*
 * process("x").plt("name"): the PLT entries of an object, the stubs its
 * calls to another object's functions go through.
 *
 * x86-64's PLT has one 16-byte entry per R_X86_64_JUMP_SLOT relocation of
 * .rela.plt, in the same order: in .plt after its 16-byte header, or in
 * .plt.sec when the object has one (IBT: .plt then holds the lazy-binding
 * halves).  The relocation's symbol names the function the entry calls.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/elffile.h"
#include "common/log.h"
#include "common/usite.h"
#include "prov/uprobe.h"

int uprobe_plt_sites(const char *obj, pid_t pid, const char *glob,
		     struct usite_list *out, char *err, size_t errlen)
{
	GElf_Shdr rsh, psh, symsh;
	Elf_Scn *rela, *plt, *symscn;
	Elf_Data *data, *symdata;
	struct elffile *ef;
	uint64_t base, off;
	char *path;
	size_t i, n, cap = 0;
	int ret;

	out->v = NULL;
	out->n = 0;
	ret = usite_open(obj, pid, &path, &ef, err, errlen);
	if (ret)
		return ret;
	rela = elffile_section(ef, ".rela.plt", &rsh);
	plt = elffile_section(ef, ".plt.sec", &psh);
	base = plt ? psh.sh_addr : 0;
	if (!plt && (plt = elffile_section(ef, ".plt", &psh)))
		base = psh.sh_addr + 16;
	if (!rela || !plt || !(data = elf_getdata(rela, NULL)) ||
	    !(symscn = elf_getscn(elffile_elf(ef), rsh.sh_link)) ||
	    !gelf_getshdr(symscn, &symsh) || !(symdata = elf_getdata(symscn, NULL))) {
		ret = errmsg(err, errlen, -ENOENT, "%s has no PLT", path);
		goto out;
	}
	n = rsh.sh_entsize ? rsh.sh_size / rsh.sh_entsize : 0;
	for (i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		struct usite *s;

		if (!gelf_getrela(data, (int)i, &r) ||
		    !gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		name = elf_strptr(elffile_elf(ef), symsh.sh_link, sym.st_name);
		if (!name || !*name || fnmatch(glob, name, 0) ||
		    elffile_vaddr_to_off(ef, base + 16 * i, &off))
			continue;
		if (out->n == cap) {
			cap = cap ? 2 * cap : 8;
			out->v = xrealloc(out->v, cap * sizeof(*out->v));
		}
		s = &out->v[out->n++];
		memset(s, 0, sizeof(*s));
		s->path = xstrdup(path);
		s->offset = off;
		s->vaddr = base + 16 * i;
		s->name = xasprintf("%s@plt", name);
		s->func = xstrdup(name);
	}
out:
	elffile_free(ef);
	free(path);
	return ret;
}
