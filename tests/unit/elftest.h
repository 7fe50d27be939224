/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_ELFTEST_H
#define TAPKIT_ELFTEST_H

/*
 * Helpers for the resolver tests: the fixtures built into build/tests/elf/
 * (tests/unit/elf/), and what binutils (nm, readelf, objdump) say about
 * them, so expected values never come from the code under test.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIX(name) "build/tests/elf/" name

/*
 * Where function @sym of the C library we run on lives on disk, told by
 * the dynamic linker (dlsym() and our loaded program headers), not by the
 * resolver under test: 0 with @path and @offset set, or -ENOENT.
 */
struct libc_phdr_query {
	uintptr_t base, vaddr;
	long long offset;
};

static inline int libc_find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct libc_phdr_query *q = arg;
	int i;

	(void)size;
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

static inline int libc_sym(const char *sym, char *path, size_t n,
			   unsigned long long *offset)
{
	struct libc_phdr_query q = { .offset = -1 };
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
	dl_iterate_phdr(libc_find_segment, &q);
	if (q.offset < 0 || !realpath(info.dli_fname, real) ||
	    snprintf(path, n, "%s", real) >= (int)n)
		return -ENOENT;
	*offset = (unsigned long long)q.offset;
	return 0;
}

/* The output of a shell command (allocated, "" on failure). */
static inline char *sh_out(const char *fmt, ...)
{
	char cmd[1024], *out = NULL;
	size_t len = 0, cap = 0, r;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	p = popen(cmd, "r");
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 8192;
			out = realloc(out, cap);
		}
		r = p ? fread(out + len, 1, cap - len - 1, p) : 0;
		len += r;
	} while (r > 0);
	out[len] = '\0';
	if (p)
		pclose(p);
	return out;
}

/* A symbol's address as nm prints it; 0 when absent. */
static inline uint64_t nm_addr(const char *file, const char *sym)
{
	char *out = sh_out("{ nm %s; nm -D %s; } 2>/dev/null | "
			   "awk '$3 == \"%s\" { print $1; exit }'", file, file,
			   sym);
	uint64_t v = strtoull(out, NULL, 16);

	free(out);
	return v;
}

/* A section's address and file offset as readelf prints them; 0 or -1. */
static inline int section_info(const char *file, const char *name,
			       uint64_t *addr, uint64_t *off)
{
	char *out = sh_out("readelf -SW %s | sed 's/^ *\\[ *[0-9]*\\] //' | "
			   "awk '$1 == \"%s\" { print $3, $4; exit }'", file, name);
	int n = sscanf(out, "%" SCNx64 " %" SCNx64, addr, off);

	free(out);
	return n == 2 ? 0 : -1;
}

/* The file offset of @vaddr computed from section @sec's header. */
static inline uint64_t sec_offset(const char *file, const char *sec,
				  uint64_t vaddr)
{
	uint64_t addr = 0, off = 0;

	if (section_info(file, sec, &addr, &off))
		return (uint64_t)-1;
	return vaddr - addr + off;
}

/* @n bytes of @file at offset @off into @buf; 0 or -1. */
static inline int file_bytes(const char *file, uint64_t off, void *buf,
			     size_t n)
{
	FILE *f = fopen(file, "rb");
	int ret = -1;

	if (f && !fseek(f, (long)off, SEEK_SET) && fread(buf, 1, n, f) == n)
		ret = 0;
	if (f)
		fclose(f);
	return ret;
}

#endif
