// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's DWARF.
 *
 * Finding it: where perf and SystemTap look for a debug vmlinux (Debian's
 * linux-image-R-dbg installs /usr/lib/debug/boot/vmlinux-R), checked by
 * GNU build ID against the running kernel's own note in /sys/kernel/notes:
 * a vmlinux of another build would put probes at wrong addresses.
 *
 * Keeping it cheap: a distribution vmlinux holds some 3,000 compile units
 * and 600 MB of DWARF.  libdw maps the file and reads a unit only when
 * asked, so every question here is kept to the units it concerns: the
 * units of a source file (kdwarf_scope(): a local function of the file,
 * after its FILE symbol in vmlinux's symbol table, leads through
 * .debug_aranges to its unit), or the unit around an address
 * (kdwarf_scope_at()).  Only a file without local functions, or a header,
 * falls back to reading every unit's name.
 *
 * Kprobes are defined at `symbol+offset` from vmlinux's own symbol table,
 * which KASLR leaves as it is.  Globals are read at their running address,
 * the link-time one plus the distance between _text in /proc/kallsyms and
 * in vmlinux.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/kdwarf.h"
#include "common/log.h"

#define BUILD_ID_MAX	64

struct ksym {
	uint64_t addr, size;
	const char *name;	/* in the symbol table's string section */
	const char *file;	/* a local's source file (its FILE symbol:
				 * a base name), NULL for a global */
};

struct kunit {
	uint64_t off;		/* the unit DIE's offset */
	const char *name;	/* DW_AT_name, owned by libdw */
};

struct kdwarf {
	struct dwinfo *dw;
	char *path;
	int fd;
	Elf *elf;
	struct ksym *syms;	/* functions, by address */
	size_t nsyms;
	struct kunit *units;
	size_t nunits;
	uint64_t *scope;	/* offsets kdwarf_scope() left */
	size_t nscope;
	char *root;		/* the source tree, "/build/linux-6.1/" */
};

static const char *p_vmlinux, *p_notes, *p_kallsyms;

void kdwarf_set_paths(const char *vmlinux, const char *notes,
		      const char *kallsyms)
{
	p_vmlinux = vmlinux;
	p_notes = notes;
	p_kallsyms = kallsyms;
}

static void hex(const unsigned char *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n && i < BUILD_ID_MAX; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * i] = '\0';
}

/* The GNU build ID among the ELF notes in @buf, as hex; false if none. */
static bool notes_build_id(const unsigned char *buf, size_t n, char *out)
{
	size_t off = 0;

	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3) & ~3u);
		if (desc + descsz > n || desc < name)
			return false;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(buf + name, "GNU", 4) && descsz) {
			hex(buf + desc, descsz, out);
			return true;
		}
		off = desc + ((descsz + 3) & ~3u);
	}
	return false;
}

/* The running kernel's build ID, from its notes; false if unknown. */
static bool running_build_id(char *out)
{
	const char *path = p_notes ? p_notes : "/sys/kernel/notes";
	unsigned char buf[8192];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 && notes_build_id(buf, (size_t)n, out);
}

/* The first debug vmlinux that exists; NULL with the paths looked at. */
static char *find_vmlinux(const char *release, char *looked, size_t len)
{
	static const char *const fmt[] = {
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/vmlinux-%s",
		"/lib/modules/%s/build/vmlinux",
	};
	size_t i, used = 0;
	char *p;

	if (p_vmlinux)
		return access(p_vmlinux, R_OK) ? NULL : xstrdup(p_vmlinux);
	looked[0] = '\0';
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		p = xasprintf(fmt[i], release);
		if (!access(p, R_OK))
			return p;
		if (used < len)
			used += (size_t)snprintf(looked + used, len - used, "%s%s",
						 i ? ", " : "", p);
		free(p);
	}
	return NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

/* The function symbols of vmlinux, and the link-time _text. */
static int load_symbols(struct kdwarf *k, uint64_t *text)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;

	*text = 0;
	while ((scn = elf_nextscn(k->elf, scn))) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		const char *file = NULL;

		n = sh.sh_size / sh.sh_entsize;
		for (i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) ||
			    !(name = elf_strptr(k->elf, sh.sh_link, s.st_name)))
				continue;
			if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
				file = name;
				continue;
			}
			if (!*text && !strcmp(name, "_text"))
				*text = s.st_value;
			if (GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size)
				continue;
			if (k->nsyms == cap) {
				cap = cap ? 2 * cap : 4096;
				k->syms = xrealloc(k->syms, cap * sizeof(*k->syms));
			}
			k->syms[k->nsyms++] = (struct ksym){ s.st_value, s.st_size,
				name, GELF_ST_BIND(s.st_info) == STB_LOCAL ? file : NULL };
		}
	}
	if (k->nsyms)
		qsort(k->syms, k->nsyms, sizeof(*k->syms), cmp_sym);
	return k->nsyms ? 0 : -ENOENT;
}

/* _text of the running kernel from kallsyms; 0 when not shown. */
static uint64_t running_text(void)
{
	FILE *f = fopen(p_kallsyms ? p_kallsyms : "/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	uint64_t ret = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, "_text")) {
			ret = a;
			break;
		}
	fclose(f);
	return ret;
}

/* The source tree: the directories the first unit's name shares with its
 * compilation directory (a build folder inside the tree, or the tree). */
static void set_root(struct kdwarf *k, Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_diename(cudie), *dir;
	size_t i, last = 0;

	dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	if (!name || !dir || name[0] != '/')
		return;
	for (i = 0; name[i] && name[i] == dir[i]; i++)
		if (name[i] == '/')
			last = i + 1;
	if (!dir[i] && name[i] == '/')
		last = i + 1;
	if (last > 1)
		k->root = xasprintf("%.*s", (int)last, name);
}

static void load_units(struct kdwarf *k)
{
	Dwarf *dbg = dwinfo_dwarf(k->dw);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	size_t cap = 0;
	uint8_t type;

	while (dwarf_get_units(dbg, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		if (type != DW_UT_compile && type != DW_UT_partial)
			continue;
		if (k->nunits == cap) {
			cap = cap ? 2 * cap : 1024;
			k->units = xrealloc(k->units, cap * sizeof(*k->units));
		}
		k->units[k->nunits].off = dwarf_dieoffset(&cudie);
		k->units[k->nunits].name = dwarf_diename(&cudie);
		if (!k->root && !k->nunits)
			set_root(k, &cudie);
		k->nunits++;
	}
}

/*
 * libdw maps vmlinux and finds a unit by walking the unit headers before
 * it: one page each, thousands of pages far apart.  Readahead would read
 * a whole window around each (hundreds of megabytes in all, minutes over
 * 9p or NFS); the pages are wanted one at a time.
 */
static void random_access(struct kdwarf *k)
{
	Elf *elf = dwarf_getelf(dwinfo_dwarf(k->dw));
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a, end;
	size_t size = 0;
	char *p;

	if (!elf || !(p = elf_rawfile(elf, &size)) || !size || pg <= 0)
		return;
	a = (uintptr_t)p & ~(uintptr_t)(pg - 1);
	end = (uintptr_t)p + size;
	madvise((void *)a, end - a, MADV_RANDOM);
}

struct kdwarf *kdwarf_open(char *err, size_t errlen)
{
	char want[2 * BUILD_ID_MAX + 1], have[2 * BUILD_ID_MAX + 1];
	char looked[1024];
	struct kdwarf *k;
	struct utsname u;
	const void *id;
	uint64_t text, rtext;
	ssize_t n;
	int ret;

	if (uname(&u)) {
		errno = errno ?: EIO;
		errmsg(err, errlen, -errno, "uname: %s", strerror(errno));
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	k->fd = -1;
	k->path = find_vmlinux(u.release, looked, sizeof(looked));
	if (!k->path) {
		ret = p_vmlinux ?
		      errmsg(err, errlen, -ENOENT, "cannot read '%s'", p_vmlinux) :
		      errmsg(err, errlen, -ENOENT, "the kernel's DWARF debug "
			     "info is not installed (looked for %s; install "
			     "linux-image-%s-dbg or your distribution's kernel "
			     "debug package)", looked, u.release);
		goto fail;
	}
	elf_version(EV_CURRENT);
	k->fd = open(k->path, O_RDONLY | O_CLOEXEC);
	k->elf = k->fd < 0 ? NULL : elf_begin(k->fd, ELF_C_READ_MMAP, NULL);
	if (!k->elf) {
		ret = errmsg(err, errlen, -EIO, "cannot read '%s': %s", k->path,
			     k->fd < 0 ? strerror(errno) : elf_errmsg(-1));
		goto fail;
	}
	n = dwelf_elf_gnu_build_id(k->elf, &id);
	if (n <= 0) {
		ret = errmsg(err, errlen, -ESTALE, "'%s' has no build ID to "
			     "check against the running kernel's", k->path);
		goto fail;
	}
	hex(id, (size_t)n, have);
	if (!running_build_id(want)) {
		ret = errmsg(err, errlen, -ESTALE, "cannot read the running "
			     "kernel's build ID from %s, to check '%s' against",
			     p_notes ? p_notes : "/sys/kernel/notes", k->path);
		goto fail;
	}
	if (strcmp(want, have)) {
		ret = errmsg(err, errlen, -ESTALE, "'%s' is not the running "
			     "kernel's: its build ID is %s, the running kernel's "
			     "%s", k->path, have, want);
		goto fail;
	}
	if (load_symbols(k, &text) < 0 || !text) {
		ret = errmsg(err, errlen, -ENOENT, "'%s' has no symbol table",
			     k->path);
		goto fail;
	}
	k->dw = dwinfo_open(k->path, "", err, errlen);
	if (!k->dw) {
		ret = -errno;
		goto fail;
	}
	random_access(k);
	/* no _text in kallsyms (kptr_restrict): globals cannot be placed */
	rtext = running_text();
	dwinfo_set_kernel(k->dw, rtext ? (int64_t)(rtext - text) : 0);
	return k;
fail:
	kdwarf_free(k);
	errno = -ret;
	return NULL;
}

void kdwarf_free(struct kdwarf *k)
{
	if (!k)
		return;
	dwinfo_free(k->dw);
	if (k->elf)
		elf_end(k->elf);
	if (k->fd >= 0)
		close(k->fd);
	free(k->syms);
	free(k->units);
	free(k->scope);
	free(k->root);
	free(k->path);
	free(k);
}

struct dwinfo *kdwarf_dwinfo(struct kdwarf *k)
{
	return k->dw;
}

const char *kdwarf_path(const struct kdwarf *k)
{
	return k->path;
}

static void add_scope(struct kdwarf *k, uint64_t off)
{
	size_t i;

	for (i = 0; i < k->nscope; i++)
		if (k->scope[i] == off)
			return;
	k->scope = xrealloc(k->scope, (k->nscope + 1) * sizeof(*k->scope));
	k->scope[k->nscope++] = off;
}

static int cmp_off(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * The units of @file found through the symbol table: a local function
 * of each object named like it (its FILE symbol) leads through
 * .debug_aranges to its unit.  Touches a few pages where reading every
 * unit's header touches thousands (minutes over a slow file system).
 */
static void scope_by_symbols(struct kdwarf *k, const char *file)
{
	const char *base = strrchr(file, '/'), *seen = NULL, *name;
	Dwarf *dbg = dwinfo_dwarf(k->dw);
	Dwarf_Die cu;
	size_t i;

	base = base ? base + 1 : file;
	for (i = 0; i < k->nsyms; i++) {
		const struct ksym *s = &k->syms[i];

		if (!s->file || s->file == seen || fnmatch(base, s->file, 0))
			continue;
		seen = s->file;
		if (!dwarf_addrdie(dbg, dwinfo_to_dwarf(k->dw, s->addr), &cu) ||
		    !(name = dwarf_diename(&cu)) ||
		    !dwinfo_file_matches(name, file))
			continue;
		if (!k->root)
			set_root(k, &cu);
		add_scope(k, dwarf_dieoffset(&cu));
	}
}

int kdwarf_scope(struct kdwarf *k, const char *file)
{
	size_t i;

	dwinfo_set_units(k->dw, NULL, 0);
	free(k->scope);
	k->scope = NULL;
	k->nscope = 0;
	if (!file)
		return 0;
	scope_by_symbols(k, file);
	if (k->nscope) {
		qsort(k->scope, k->nscope, sizeof(*k->scope), cmp_off);
		dwinfo_set_units(k->dw, k->scope, k->nscope);
		return 0;
	}
	/* a file without local functions, or a header: the unit names */
	if (!k->units)
		load_units(k);
	for (i = 0; i < k->nunits; i++) {
		if (!k->units[i].name ||
		    !dwinfo_file_matches(k->units[i].name, file))
			continue;
		k->scope = xrealloc(k->scope, (k->nscope + 1) * sizeof(*k->scope));
		k->scope[k->nscope++] = k->units[i].off;
	}
	if (!k->nscope)
		return -ENOENT;
	/* the units come in offset order, which bsearch needs */
	dwinfo_set_units(k->dw, k->scope, k->nscope);
	return 0;
}

void kdwarf_scope_at(struct kdwarf *k, uint64_t pc)
{
	Dwarf_Die cu;

	kdwarf_scope(k, NULL);
	k->scope = xmalloc(sizeof(*k->scope));
	k->nscope = 0;
	if (dwarf_addrdie(dwinfo_dwarf(k->dw), dwinfo_to_dwarf(k->dw, pc), &cu))
		k->scope[k->nscope++] = dwarf_dieoffset(&cu);
	dwinfo_set_units(k->dw, k->scope, k->nscope);
}

int kdwarf_symbol(struct kdwarf *k, uint64_t addr, const char **name,
		  uint64_t *off)
{
	size_t lo = 0, hi = k->nsyms, best = SIZE_MAX, i;

	/* the last symbol starting at or below @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	/* aliases share an address: the first that covers @addr, looking
	 * back over a few for a longer one (nested symbols) */
	for (i = best; i != SIZE_MAX && best - i < 8; i--) {
		if (addr < k->syms[i].addr + k->syms[i].size) {
			while (i > 0 && k->syms[i - 1].addr == k->syms[i].addr &&
			       addr < k->syms[i - 1].addr + k->syms[i - 1].size)
				i--;
			*name = k->syms[i].name;
			*off = addr - k->syms[i].addr;
			return 0;
		}
	}
	return -ENOENT;
}

bool kdwarf_symbol_unique(struct kdwarf *k, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < k->nsyms && n < 2; i++)
		if (!strcmp(k->syms[i].name, name) &&
		    (!i || k->syms[i - 1].addr != k->syms[i].addr ||
		     strcmp(k->syms[i - 1].name, name)))
			n++;
	return n == 1;
}

const char *kdwarf_relpath(const struct kdwarf *k, const char *path)
{
	size_t n = k->root ? strlen(k->root) : 0;

	return n && !strncmp(path, k->root, n) ? path + n : path;
}
