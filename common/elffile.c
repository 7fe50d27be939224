// SPDX-License-Identifier: GPL-2.0
/*
 * ELF objects opened for probing.
 *
 * A uprobe is placed at a file offset, while symbols, USDT notes and DWARF
 * speak in link-time virtual addresses.  The PT_LOAD program headers relate
 * the two: offset = vaddr - p_vaddr + p_offset in the segment holding
 * vaddr.  Section headers would do for most files, but segments are what
 * the kernel maps, they survive `strip --strip-all`, and they handle
 * prelinked objects (moved by a constant) with no special case.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/elffile.h"
#include "common/log.h"

struct elffile {
	char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	GElf_Phdr *loads;	/* the PT_LOAD headers */
	size_t nloads;
	int symfd;		/* a separate debug file's symbols, -1: none */
	Elf *symelf;
};

static const unsigned char host_data =
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	ELFDATA2LSB;
#else
	ELFDATA2MSB;
#endif

/* Fill @ef->loads; -ENOEXEC for a file without loadable segments. */
static int read_loads(struct elffile *ef, char *err, size_t errlen)
{
	size_t i, nph;
	GElf_Phdr ph;

	if (elf_getphdrnum(ef->elf, &nph))
		return errmsg(err, errlen, -ENOEXEC,
			      "'%s': cannot read program headers: %s",
			      ef->path, elf_errmsg(-1));
	ef->loads = xcalloc(nph ? nph : 1, sizeof(*ef->loads));
	for (i = 0; i < nph; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph))
			return errmsg(err, errlen, -ENOEXEC,
				      "'%s': bad program header %zu: %s",
				      ef->path, i, elf_errmsg(-1));
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_filesz > ph.p_memsz ||
		    ph.p_vaddr + ph.p_memsz < ph.p_vaddr ||
		    ph.p_offset + ph.p_filesz < ph.p_offset)
			return errmsg(err, errlen, -ENOEXEC,
				      "'%s': bad loadable segment %zu",
				      ef->path, i);
		ef->loads[ef->nloads++] = ph;
	}
	if (!ef->nloads)
		return errmsg(err, errlen, -ENOEXEC,
			      "'%s' has no loadable segments", ef->path);
	return 0;
}

static int check_header(struct elffile *ef, char *err, size_t errlen)
{
	if (elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &ef->ehdr))
		return errmsg(err, errlen, -ENOEXEC, "'%s' is not an ELF file",
			      ef->path);
	if (ef->ehdr.e_ident[EI_DATA] != host_data)
		return errmsg(err, errlen, -ENOEXEC,
			      "'%s' is of another byte order than this machine",
			      ef->path);
	if (ef->ehdr.e_type != ET_EXEC && ef->ehdr.e_type != ET_DYN)
		return errmsg(err, errlen, -ENOEXEC,
			      "'%s' is not an executable or shared object",
			      ef->path);
	return 0;
}

struct elffile *elffile_open(const char *path, char *err, size_t errlen)
{
	struct elffile *ef;
	int ret;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		errmsg(err, errlen, 0, "libelf is too old");
		errno = ENOSYS;
		return NULL;
	}
	ef = xcalloc(1, sizeof(*ef));
	ef->path = xstrdup(path);
	ef->symfd = -1;
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0) {
		ret = -errno;
		errmsg(err, errlen, 0, "cannot open '%s': %s", path,
		       strerror(errno));
		goto fail;
	}
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf) {
		ret = errmsg(err, errlen, -ENOEXEC, "'%s' is not an ELF file: %s",
			     path, elf_errmsg(-1));
		goto fail;
	}
	ret = check_header(ef, err, errlen);
	if (!ret)
		ret = read_loads(ef, err, errlen);
	if (ret)
		goto fail;
	return ef;
fail:
	elffile_free(ef);
	errno = -ret;
	return NULL;
}

void elffile_free(struct elffile *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	if (ef->symelf)
		elf_end(ef->symelf);
	if (ef->symfd >= 0)
		close(ef->symfd);
	free(ef->loads);
	free(ef->path);
	free(ef);
}

Elf *elffile_elf(const struct elffile *ef)
{
	return ef->elf;
}

const char *elffile_path(const struct elffile *ef)
{
	return ef->path;
}

int elffile_type(const struct elffile *ef)
{
	return ef->ehdr.e_type;
}

int elffile_machine(const struct elffile *ef)
{
	return ef->ehdr.e_machine;
}

int elffile_addr_size(const struct elffile *ef)
{
	return ef->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
}

/* The segment that maps @vaddr from the file, or NULL. */
static const GElf_Phdr *file_segment(const struct elffile *ef, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < ef->nloads; i++) {
		const GElf_Phdr *ph = &ef->loads[i];

		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr < ph->p_filesz)
			return ph;
	}
	return NULL;
}

int elffile_vaddr_to_off(const struct elffile *ef, uint64_t vaddr,
			 uint64_t *off)
{
	const GElf_Phdr *ph = file_segment(ef, vaddr);

	if (!ph)
		return -ENOENT;
	*off = vaddr - ph->p_vaddr + ph->p_offset;
	return 0;
}

ssize_t elffile_read(const struct elffile *ef, uint64_t vaddr, void *buf,
		     size_t n)
{
	const GElf_Phdr *ph = file_segment(ef, vaddr);
	uint64_t left;
	ssize_t r;

	if (!ph)
		return -ENOENT;
	left = ph->p_filesz - (vaddr - ph->p_vaddr);
	if (n > left)
		n = left;
	r = pread(ef->fd, buf, n, vaddr - ph->p_vaddr + ph->p_offset);
	return r < 0 ? -errno : r;
}

Elf_Scn *elffile_section(const struct elffile *ef, const char *name,
			 GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *s;

	if (elf_getshdrstrndx(ef->elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, shdr))
			continue;
		s = elf_strptr(ef->elf, shstrndx, shdr->sh_name);
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

int elffile_add_symbols(struct elffile *ef, const char *debug_path)
{
	int fd = open(debug_path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	if (ef->symelf)
		elf_end(ef->symelf);
	if (ef->symfd >= 0)
		close(ef->symfd);
	ef->symelf = elf;
	ef->symfd = fd;
	return 0;
}

Elf *elffile_symbols_elf(const struct elffile *ef)
{
	return ef->symelf;
}
