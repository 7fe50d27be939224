// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the reading of ELF objects and their DWARF: the input is an object
 * file, truncated or corrupted as a binary being replaced or a hostile one
 * may be.  Its symbol table is read as the uprobe tools read it (every
 * symbol, then main by name), and its DWARF as the language reads it for
 * process().function("*"): every function and inline instance, each
 * one's parameters as fetch arguments at its entry and after its
 * prologue (the location expressions of common/dwloc.c), and the line of
 * its entry.  Errors are the normal result; a crash or a sanitizer report
 * is the bug.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/dwinfo.h"
#include "common/elffile.h"
#include "common/elfsym.h"
#include "common/fetcharg.h"
#include "tests/fuzz/fuzz.h"

/* At most this many functions are looked into, so that one input stays
 * short. */
#define MAX_FUNCS 64

static void symbols(const char *path)
{
	struct elfsym_list l = { 0 };
	struct elfsym sym = { 0 };
	struct elffile *ef;
	char err[256];
	uint64_t addr;

	ef = elffile_open(path, err, sizeof(err));
	if (!ef)
		return;
	if (elfsym_find(ef, "*", &l, err, sizeof(err)) == 0)
		elfsym_list_release(&l);
	(void)elfsym_addr(ef, "main", &addr);
	if (elfsym_resolve(ef, "main", &sym, err, sizeof(err)) == 0)
		elfsym_release(&sym);
	elffile_free(ef);
}

static void dwarf(const char *path)
{
	struct dwfunc_list l = { 0 };
	struct fetcharg *args;
	struct dwinfo *dw;
	char err[256];
	const char *file;
	size_t i, n;
	int line;

	dw = dwinfo_open(path, "", err, sizeof(err));
	if (!dw)
		return;
	if (dwinfo_funcs(dw, "*", DWINFO_INLINE, &l, err, sizeof(err)) == 0) {
		for (i = 0; i < l.n && i < MAX_FUNCS; i++) {
			const struct dwfunc *f = &l.v[i];

			if (dwinfo_params(dw, f, f->entry, &args, &n, err,
					  sizeof(err)) == 0)
				fetchargs_free(args, n);
			if (dwinfo_params(dw, f, f->body, &args, &n, err,
					  sizeof(err)) == 0)
				fetchargs_free(args, n);
			(void)dwinfo_line(dw, f->entry, &file, &line);
		}
		dwfunc_list_release(&l);
	}
	dwinfo_free(dw);
}

FUZZ_TARGET(elf)
{
	char path[64];
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		symbols(path);
		dwarf(path);
	}
	close(fd);
	return 0;
}
