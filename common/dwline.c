// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines through libdwfl: the object is reported offline, as
 * dwinfo.c does, so libdwfl finds the DWARF in it or in a separate debug
 * file; dwfl_module_getsrc() then searches the units' line tables.  The
 * module's addresses are the link-time ones plus the bias libdwfl chose.
 */
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>

#include "common/dwline.h"
#include "common/log.h"

struct dwline_map {
	Dwfl_Callbacks cb;	/* libdwfl keeps a pointer to it */
	char *search;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;		/* module address = link-time + bias */
};

struct dwline_map *dwline_open(const char *path, const char *debug_dirs)
{
	struct dwline_map *dl = xcalloc(1, sizeof(*dl));
	Dwarf_Addr dwbias;
	int err = ENODATA;

	elf_version(EV_CURRENT);
	dl->search = xasprintf(":.debug:%s", debug_dirs ? debug_dirs :
			       "/usr/lib/debug");
	dl->cb.find_elf = dwfl_build_id_find_elf;
	dl->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	dl->cb.section_address = dwfl_offline_section_address;
	dl->cb.debuginfo_path = &dl->search;
	dl->dwfl = dwfl_begin(&dl->cb);
	if (!dl->dwfl)
		goto fail;
	dl->mod = dwfl_report_offline(dl->dwfl, path, path, -1);
	if (!dl->mod) {
		err = ENOEXEC;
		goto fail;
	}
	dwfl_report_end(dl->dwfl, NULL, NULL);
	if (!dwfl_module_getelf(dl->mod, &dl->bias)) {
		err = ENOEXEC;
		goto fail;
	}
	if (!dwfl_module_getdwarf(dl->mod, &dwbias))
		goto fail;
	return dl;
fail:
	dwline_free(dl);
	errno = err;
	return NULL;
}

void dwline_free(struct dwline_map *dl)
{
	if (!dl)
		return;
	if (dl->dwfl)
		dwfl_end(dl->dwfl);
	free(dl->search);
	free(dl);
}

int dwline_lookup(struct dwline_map *dl, uint64_t addr, const char **file,
		  int *line)
{
	Dwfl_Line *l = dwfl_module_getsrc(dl->mod, addr + dl->bias);
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
