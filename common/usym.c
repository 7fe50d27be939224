// SPDX-License-Identifier: GPL-2.0
/*
 * File offsets of C library functions, from our own mapping of the library:
 * dlsym() on a handle to libc gives the definition (never a PLT stub), and
 * the loaded program headers turn its address into a file offset.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/usym.h"

struct phdr_query {
	uintptr_t base;
	uintptr_t vaddr;	/* relative to base */
	long long offset;	/* result, -1 until found */
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct phdr_query *q = arg;
	int i;

	if (info->dlpi_addr != q->base)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && q->vaddr >= ph->p_vaddr &&
		    q->vaddr < ph->p_vaddr + ph->p_memsz) {
			q->offset = (long long)(q->vaddr - ph->p_vaddr + ph->p_offset);
			return 1;
		}
	}
	return 0;
}

int usym_libc(const char *sym, char *path, size_t n, unsigned long long *offset)
{
	struct phdr_query q = { .offset = -1 };
	char real[PATH_MAX];
	void *h, *addr;
	Dl_info info;

	h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return -ENOENT;
	addr = dlsym(h, sym);
	dlclose(h);
	if (!addr || !dladdr(addr, &info) || !info.dli_fname)
		return -ENOENT;
	q.base = (uintptr_t)info.dli_fbase;
	q.vaddr = (uintptr_t)addr - q.base;
	dl_iterate_phdr(find_segment, &q);
	if (q.offset < 0)
		return -ENOENT;
	if (!realpath(info.dli_fname, real))
		return -errno;
	if (snprintf(path, n, "%s", real) >= (int)n)
		return -ENAMETOOLONG;
	*offset = (unsigned long long)q.offset;
	return 0;
}
