// SPDX-License-Identifier: GPL-2.0
/*
 * One file mapped by traced processes, for symcache.c.
 *
 * The file is held open by an fd taken when a process mapping it was
 * noted, so it stays readable after the process exits, is deleted or
 * replaced, or lives in another mount namespace: everything here opens it
 * again through /proc/self/fd/N.  Its segments, symbols and line tables
 * are read at the first address looked up in it.
 *
 * Several symbols at one address (glibc's getppid and __getppid) are kept
 * once: the global one, then the one without leading underscores, then the
 * shorter name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/dwinfo.h"
#include "common/elffile.h"
#include "common/elfsym.h"
#include "common/log.h"
#include "common/symcache_int.h"

struct sc_seg {
	uint64_t vaddr, off, filesz, memsz;
};

struct sc_file {
	dev_t dev;
	ino_t ino;
	int fd;
	char *root_path;
	char self_path[48];	/* /proc/self/fd/N */
	bool loaded, lines_tried;
	struct elffile *ef;	/* NULL: not an ELF object */
	struct sc_seg *segs;
	size_t nsegs;
	struct elfsym_list syms;
	struct dwinfo *dl;	/* its DWARF, for file:line */
};

void scfile_free(struct sc_file *f)
{
	if (!f)
		return;
	dwinfo_free(f->dl);
	elfsym_list_release(&f->syms);
	elffile_free(f->ef);
	free(f->segs);
	free(f->root_path);
	if (f->fd >= 0)
		close(f->fd);
	free(f);
}

bool scfile_is(const struct sc_file *f, dev_t dev, ino_t ino)
{
	return f->dev == dev && f->ino == ino;
}

static bool has_symtab(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return true;
	return false;
}

/* How much a name tells: higher wins among symbols at one address. */
static int name_rank(const struct elfsym *s)
{
	int r = s->global ? 4 : 0;

	if (s->name[0] != '_')
		r += 2;
	return r;
}

static bool better(const struct elfsym *a, const struct elfsym *b)
{
	int ra = name_rank(a), rb = name_rank(b);

	if (ra != rb)
		return ra > rb;
	return strlen(a->name) < strlen(b->name);
}

/* One symbol per address, the most telling (sorted by address already). */
static void dedup(struct elfsym_list *l)
{
	size_t i, j;

	for (i = j = 0; i < l->n; i++) {
		if (j && l->v[j - 1].vaddr == l->v[i].vaddr) {
			struct elfsym *keep = &l->v[j - 1];

			if (better(&l->v[i], keep)) {
				if (!l->v[i].size)
					l->v[i].size = keep->size;
				free(keep->name);
				*keep = l->v[i];
			} else {
				if (!keep->size)
					keep->size = l->v[i].size;
				free(l->v[i].name);
			}
			continue;
		}
		l->v[j++] = l->v[i];
	}
	l->n = j;
}

static void load_segs(struct sc_file *f)
{
	Elf *elf = elffile_elf(f->ef);
	size_t i, nph = 0;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &nph))
		return;
	f->segs = xcalloc(nph ? nph : 1, sizeof(*f->segs));
	for (i = 0; i < nph; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->segs[f->nsegs++] = (struct sc_seg){
				ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz };
}

/* The ELF object, its segments and, when stripped, its debug file's
 * symbol table: at once, while the process and the files beside its
 * object are there. */
static void open_elf(struct sc_file *f)
{
	char err[256];

	f->ef = elffile_open(f->self_path, err, sizeof(err));
	if (!f->ef)
		return;
	load_segs(f);
	if (!has_symtab(elffile_elf(f->ef)) && f->root_path) {
		char *dbg = dwinfo_symbol_file(f->root_path, NULL);

		if (dbg)
			elffile_add_symbols(f->ef, dbg);
		free(dbg);
	}
}

/* Its symbols: at the first address looked up in it. */
static void load(struct sc_file *f)
{
	char err[256];

	if (f->loaded)
		return;
	f->loaded = true;
	if (f->ef && elfsym_find(f->ef, "*", &f->syms, err, sizeof(err)) == 0)
		dedup(&f->syms);
}

struct sc_file *scfile_new(int fd, dev_t dev, ino_t ino, const char *root_path)
{
	struct sc_file *f = xcalloc(1, sizeof(*f));

	f->fd = fd;
	f->dev = dev;
	f->ino = ino;
	f->root_path = root_path ? xstrdup(root_path) : NULL;
	snprintf(f->self_path, sizeof(f->self_path), "/proc/self/fd/%d", fd);
	open_elf(f);
	return f;
}

int scfile_vaddr(struct sc_file *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	load(f);
	for (i = 0; i < f->nsegs; i++) {
		const struct sc_seg *s = &f->segs[i];

		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = off - s->off + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t scfile_size(struct sc_file *f)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t i;

	load(f);
	for (i = 0; i < f->nsegs; i++) {
		if (f->segs[i].vaddr < lo)
			lo = f->segs[i].vaddr;
		if (f->segs[i].vaddr + f->segs[i].memsz > hi)
			hi = f->segs[i].vaddr + f->segs[i].memsz;
	}
	return hi > lo ? hi - lo : 0;
}

const char *scfile_sym(struct sc_file *f, uint64_t vaddr, uint64_t *start,
		       uint64_t *size)
{
	size_t lo = 0, hi, k;
	const struct elfsym *s;

	load(f);
	hi = f->syms.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms.v[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the closest symbol at or below that covers vaddr (a sized one
	 * ends where its size says; an unsized one at the next symbol) */
	for (k = lo; k-- > 0 && lo - k <= 4;) {
		s = &f->syms.v[k];
		if (s->size ? vaddr - s->vaddr < s->size : k + 1 == lo) {
			*start = s->vaddr;
			*size = s->size;
			return s->name;
		}
	}
	return NULL;
}

int scfile_line(struct sc_file *f, uint64_t vaddr, const char **file,
		int *line)
{
	if (!f->lines_tried) {
		struct stat st;

		f->lines_tried = true;
		/* by its own path while it is the same file: a debug file
		 * beside it (.gnu_debuglink) is found there */
		if (f->root_path && stat(f->root_path, &st) == 0 &&
		    st.st_dev == f->dev && st.st_ino == f->ino)
			f->dl = dwinfo_open(f->root_path, NULL, NULL, 0);
		if (!f->dl)
			f->dl = dwinfo_open(f->self_path, NULL, NULL, 0);
	}
	if (!f->dl)
		return -ENOENT;
	return dwinfo_line(f->dl, vaddr, file, line);
}
