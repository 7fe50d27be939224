// SPDX-License-Identifier: GPL-2.0
/*
 * Symbols of stack addresses (symcache.h).
 *
 * A stack sampled from a short-lived process is often printed after the
 * process is gone, when /proc/PID no longer says what was mapped where.
 * So the first time a process's sample is handled (symcache_note()), its
 * maps are copied and each mapped file is opened and held (per device and
 * inode, shared between processes: symcache_file.c); symbols are read
 * from those files only when an address in them is first looked up.  JIT
 * compilers (perf's /tmp/perf-PID.map convention) write their map in the
 * process's own root and under its own PID in its namespace; that file is
 * held open too and read again when it has grown.
 *
 * A process whose address misses every mapping (a library loaded after
 * it was noted) has its maps read again, at most once a second.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "common/hmap.h"
#include "common/ksym.h"
#include "common/log.h"
#include "common/symcache.h"
#include "common/symcache_int.h"

struct sc_map {
	uint64_t start, end, pgoff;
	struct sc_file *file;	/* NULL: anonymous or special */
	char *name;		/* the path as the process named it, or
				 * "[vdso]"...; NULL for anonymous memory */
};

struct sc_jit {
	uint64_t start, size;
	char *name;
};

struct sc_proc {
	pid_t pid;
	struct sc_map *maps;	/* sorted by start */
	size_t nmaps;
	int jit_fd;		/* its perf map, -1: none */
	off_t jit_size;		/* how much of it was read */
	char *jit_module;	/* "/tmp/perf-NSPID.map" */
	struct sc_jit *jit;
	size_t njit;
	time_t refreshed;	/* when its maps were last read */
	bool noted;		/* by symcache_note(), not only told maps */
	bool exited;		/* told it exited */
	bool swept;		/* exited and unused at the last sweep */
	uint64_t told_ts;	/* the time of the last record told */
};

/* A mapped file as the kernel names it (PERF_RECORD_MMAP2's device and
 * inode), which stat() may not (btrfs subvolumes, overlayfs). */
struct sc_kid {
	dev_t dev;
	uint64_t ino;
	struct sc_file *file;
};

struct symcache {
	struct hmap *by_pid;	/* pid -> struct sc_proc * */
	struct sc_proc **procs;	/* in the order noted, newest last */
	size_t nprocs;
	struct sc_file **files;
	size_t nfiles;
	struct sc_kid *kids;	/* files by the kernel's identity */
	size_t nkids;
	struct ksyms *ks;
	bool ks_tried;
	int refs;
	size_t exited;		/* at least the exited unnoted processes */
};

/* symcache_shared()'s cache while someone holds it. */
static struct symcache *shared;

struct symcache *symcache_new(void)
{
	struct symcache *c = xcalloc(1, sizeof(*c));

	c->by_pid = hmap_new(sizeof(struct sc_proc *));
	c->refs = 1;
	return c;
}

struct symcache *symcache_shared(void)
{
	if (shared)
		shared->refs++;
	else
		shared = symcache_new();
	return shared;
}

static void free_maps(struct sc_proc *p)
{
	size_t i;

	for (i = 0; i < p->nmaps; i++)
		free(p->maps[i].name);
	free(p->maps);
	p->maps = NULL;
	p->nmaps = 0;
}

static void free_jit(struct sc_proc *p)
{
	size_t i;

	for (i = 0; i < p->njit; i++)
		free(p->jit[i].name);
	free(p->jit);
	p->jit = NULL;
	p->njit = 0;
}

/* Forget @p's JIT map (an exec, a new process under its PID). */
static void close_jit(struct sc_proc *p)
{
	free_jit(p);
	if (p->jit_fd >= 0)
		close(p->jit_fd);
	p->jit_fd = -1;
	p->jit_size = 0;
	free(p->jit_module);
	p->jit_module = NULL;
}

static void free_proc(struct sc_proc *p)
{
	free_maps(p);
	close_jit(p);
	free(p);
}

void symcache_free(struct symcache *c)
{
	size_t i;

	if (!c || --c->refs > 0)
		return;
	if (c == shared)
		shared = NULL;
	for (i = 0; i < c->nprocs; i++)
		free_proc(c->procs[i]);
	for (i = 0; i < c->nfiles; i++)
		scfile_free(c->files[i]);
	free(c->procs);
	free(c->files);
	free(c->kids);
	hmap_free(c->by_pid);
	ksyms_free(c->ks);
	free(c);
}

/* ---- a process's maps -------------------------------------------------- */

/* Is @pid's root gone (the process exited, or a zombie)?  Then its files
 * are opened as they are named in our own mount namespace. */
static bool root_gone(pid_t pid)
{
	char fn[64], link[8];

	snprintf(fn, sizeof(fn), "/proc/%d/root", (int)pid);
	return readlink(fn, link, sizeof(link)) < 0 &&
	       (errno == ENOENT || errno == ESRCH);
}

/* The file of mapping @m of @pid, opened and cached by (dev, inode). */
static struct sc_file *map_file(struct symcache *c, pid_t pid,
				const struct sc_map *m, const char *path)
{
	char where[PATH_MAX + 64], root[PATH_MAX + 64];
	const char *beside = root;	/* where its debug file is looked for */
	struct stat st;
	size_t i;
	int fd;

	snprintf(where, sizeof(where), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, m->start, m->end);
	snprintf(root, sizeof(root), "/proc/%d/root%s", (int)pid, path);
	fd = open(where, O_RDONLY | O_CLOEXEC);
	if (fd < 0)		/* map_files needs CAP_SYS_ADMIN */
		fd = open(root, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == ENOENT || errno == ESRCH) && root_gone(pid)) {
		fd = open(path, O_RDONLY | O_CLOEXEC);	/* the process is gone */
		beside = path;
	}
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	for (i = 0; i < c->nfiles; i++)
		if (scfile_is(c->files[i], st.st_dev, st.st_ino)) {
			close(fd);
			return c->files[i];
		}
	c->files = xrealloc(c->files, (c->nfiles + 1) * sizeof(*c->files));
	c->files[c->nfiles] = scfile_new(fd, st.st_dev, st.st_ino, beside);
	return c->files[c->nfiles++];
}

/*
 * One line of /proc/PID/maps:
 *	start-end perms offset dev inode [path]
 * The path may hold spaces and ends in " (deleted)" for a removed file.
 */
static bool parse_map(char *line, struct sc_map *m, char **path)
{
	unsigned long long start, end, off, ino;
	int n = 0;
	char *p;

	if (sscanf(line, "%llx-%llx %*s %llx %*s %llu %n", &start, &end, &off,
		   &ino, &n) < 4 || !n)
		return false;
	m->start = start;
	m->end = end;
	m->pgoff = off;
	p = line + n;
	p[strcspn(p, "\n")] = '\0';
	*path = *p ? p : NULL;
	if (*path && ino && strlen(p) > 10 &&
	    !strcmp(p + strlen(p) - 10, " (deleted)"))
		p[strlen(p) - 10] = '\0';
	return true;
}

static int read_maps(struct symcache *c, struct sc_proc *p)
{
	char fn[64], *line = NULL;
	size_t cap = 0, n = 0, alloc = 0;
	struct sc_map *v = NULL;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)p->pid);
	f = fopen(fn, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &cap, f) > 0) {
		struct sc_map m = { 0 };
		char *path;

		if (!parse_map(line, &m, &path))
			continue;
		if (path && path[0] == '/')
			m.file = map_file(c, p->pid, &m, path);
		m.name = path ? xstrdup(path) : NULL;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[n++] = m;
	}
	free(line);
	fclose(f);
	if (!n) {		/* a zombie: no memory left to describe */
		free(v);
		return -ESRCH;
	}
	free_maps(p);
	p->maps = v;
	p->nmaps = n;
	p->refreshed = time(NULL);
	return 0;
}

/* ---- JIT maps ------------------------------------------------------------ */

/* The PID @pid has in its own namespace (the last NSpid of its status). */
static pid_t ns_pid(pid_t pid)
{
	char fn[64], *line = NULL;
	size_t cap = 0;
	pid_t ns = pid;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/status", (int)pid);
	f = fopen(fn, "re");
	if (!f)
		return pid;
	while (getline(&line, &cap, f) > 0)
		if (!strncmp(line, "NSpid:", 6)) {
			char *s = strrchr(line, '\t');

			ns = s ? (pid_t)strtol(s + 1, NULL, 10) : pid;
			break;
		}
	free(line);
	fclose(f);
	return ns > 0 ? ns : pid;
}

static int cmp_jit(const void *a, const void *b)
{
	const struct sc_jit *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* (Re)read the JIT map: "START SIZE name" per line, in hex. */
static void read_jit(struct sc_proc *p)
{
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	struct stat st;
	FILE *f;
	int fd;

	if (p->jit_fd < 0 || fstat(p->jit_fd, &st) < 0 || st.st_size == p->jit_size)
		return;
	fd = dup(p->jit_fd);
	if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	free_jit(p);
	while (getline(&line, &cap, f) > 0) {
		unsigned long long start, size;
		int n = 0;

		if (sscanf(line, "%llx %llx %n", &start, &size, &n) < 2 || !n)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (p->njit == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			p->jit = xrealloc(p->jit, alloc * sizeof(*p->jit));
		}
		p->jit[p->njit++] = (struct sc_jit){ start, size, xstrdup(line + n) };
	}
	free(line);
	fclose(f);
	if (p->njit)
		qsort(p->jit, p->njit, sizeof(*p->jit), cmp_jit);
	p->jit_size = st.st_size;
}

static void open_jit(struct sc_proc *p)
{
	char fn[PATH_MAX];
	pid_t ns = ns_pid(p->pid);

	snprintf(fn, sizeof(fn), "/proc/%d/root/tmp/perf-%d.map", (int)p->pid,
		 (int)ns);
	p->jit_fd = open(fn, O_RDONLY | O_CLOEXEC);
	p->jit_module = xasprintf("/tmp/perf-%d.map", (int)ns);
	read_jit(p);
}

static const struct sc_jit *find_jit(struct sc_proc *p, uint64_t addr)
{
	size_t lo = 0, hi;

	read_jit(p);
	hi = p->njit;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->jit[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - p->jit[lo - 1].start < p->jit[lo - 1].size)
		return &p->jit[lo - 1];
	return NULL;
}

/* ---- noting -------------------------------------------------------------- */

static struct sc_proc *find_proc(struct symcache *c, pid_t pid)
{
	struct sc_proc **pp = hmap_get(c->by_pid, (uint64_t)pid, false);

	return pp ? *pp : NULL;
}

static struct sc_proc *add_proc(struct symcache *c, pid_t pid)
{
	struct sc_proc *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->jit_fd = -1;
	*(struct sc_proc **)hmap_get(c->by_pid, (uint64_t)pid, true) = p;
	c->procs = xrealloc(c->procs, (c->nprocs + 1) * sizeof(*c->procs));
	c->procs[c->nprocs++] = p;
	return p;
}

int symcache_note(struct symcache *c, pid_t pid)
{
	struct sc_proc *p;
	int err;

	if (pid <= 0)
		return -EINVAL;
	p = find_proc(c, pid);
	if (p && p->noted)
		return p->nmaps ? 0 : -ESRCH;
	if (!p) {
		struct sc_proc tmp = { .pid = pid, .jit_fd = -1 };

		err = read_maps(c, &tmp);
		p = add_proc(c, pid);	/* a gone one: not tried again */
		p->maps = tmp.maps;
		p->nmaps = tmp.nmaps;
		p->refreshed = tmp.refreshed;
	} else {
		/* gone: what was told of it stays */
		err = read_maps(c, p);
	}
	p->noted = true;
	if (err < 0)
		return p->nmaps ? 0 : err;
	open_jit(p);
	return 0;
}

/* Insert mapping @m (taken over) into @p's, replacing what it overlaps. */
static void put_map(struct sc_proc *p, struct sc_map m)
{
	size_t i, j;

	for (i = j = 0; i < p->nmaps; i++) {
		if (p->maps[i].start < m.end && m.start < p->maps[i].end) {
			free(p->maps[i].name);
			continue;
		}
		p->maps[j++] = p->maps[i];
	}
	p->maps = xrealloc(p->maps, (j + 1) * sizeof(*p->maps));
	for (i = j; i > 0 && p->maps[i - 1].start > m.start; i--)
		p->maps[i] = p->maps[i - 1];
	p->maps[i] = m;
	p->nmaps = j + 1;
}

/*
 * The process a record at @ts tells of, created when new; NULL when a
 * later record of it was told already (a second sideband, read later).
 */
static struct sc_proc *told_proc(struct symcache *c, pid_t pid, uint64_t ts)
{
	struct sc_proc *p = find_proc(c, pid);

	if (!p)
		p = add_proc(c, pid);
	else if (ts && ts < p->told_ts)
		return NULL;
	if (ts)
		p->told_ts = ts;
	return p;
}

/* The file the kernel names (@dev, @ino), from an earlier mapping. */
static struct sc_file *kid_file(struct symcache *c, dev_t dev, uint64_t ino)
{
	size_t i;

	for (i = 0; i < c->nkids; i++)
		if (c->kids[i].dev == dev && c->kids[i].ino == ino)
			return c->kids[i].file;
	return NULL;
}

int symcache_mmap(struct symcache *c, uint64_t ts, pid_t pid,
		  const struct symcache_mapping *mp)
{
	struct sc_map m = { mp->start, mp->start + mp->len, mp->pgoff, NULL, NULL };
	const char *path = mp->path;
	struct sc_proc *p;
	size_t n;

	if (pid <= 0 || !mp->len || !path)
		return -EINVAL;
	p = told_proc(c, pid, ts);
	if (!p)
		return 0;
	n = strlen(path);
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		n -= 10;
	m.name = xasprintf("%.*s", (int)n, path);
	if (path[0] == '/') {
		m.file = mp->ino ? kid_file(c, mp->dev, mp->ino) : NULL;
		if (!m.file)
			m.file = map_file(c, pid, &m, m.name);
		if (m.file && mp->ino) {
			c->kids = xrealloc(c->kids, (c->nkids + 1) * sizeof(*c->kids));
			c->kids[c->nkids++] = (struct sc_kid){ mp->dev, mp->ino, m.file };
		}
	}
	put_map(p, m);
	return m.file || path[0] != '/' ? 0 : -ENOENT;
}

int symcache_add_map(struct symcache *c, pid_t pid, uint64_t start,
		     uint64_t len, uint64_t pgoff, const char *path)
{
	struct symcache_mapping m = { start, len, pgoff, 0, 0, path };

	return symcache_mmap(c, 0, pid, &m);
}

int symcache_task(struct symcache *c, uint64_t ts, enum symcache_task_ev what,
		  pid_t pid, pid_t ppid)
{
	struct sc_proc *p, *parent;
	size_t i;

	if (pid <= 0)
		return -EINVAL;
	p = told_proc(c, pid, ts);
	if (!p)
		return 0;
	switch (what) {
	case SYMCACHE_FORK:	/* a new process under @pid: @ppid's copy */
	case SYMCACHE_EXEC:	/* a new program: nothing mapped yet */
		free_maps(p);
		close_jit(p);
		p->noted = p->exited = p->swept = false;
		parent = what == SYMCACHE_FORK && ppid > 0 && ppid != pid ?
			 find_proc(c, ppid) : NULL;
		if (parent && parent->nmaps) {
			p->maps = xcalloc(parent->nmaps, sizeof(*p->maps));
			for (i = 0; i < parent->nmaps; i++) {
				p->maps[i] = parent->maps[i];
				if (p->maps[i].name)
					p->maps[i].name = xstrdup(p->maps[i].name);
			}
			p->nmaps = parent->nmaps;
		}
		return 0;
	case SYMCACHE_EXIT:
		if (!p->exited && !p->noted)
			c->exited++;
		p->exited = true;
		return 0;
	}
	return -EINVAL;
}

void symcache_sweep(struct symcache *c)
{
	size_t i, j;

	if (!c->exited)		/* the common case: nothing to look at */
		return;
	c->exited = 0;
	for (i = j = 0; i < c->nprocs; i++) {
		struct sc_proc *p = c->procs[i];

		if (p->exited && !p->noted && p->swept) {
			hmap_del(c->by_pid, (uint64_t)p->pid);
			free_proc(p);
			continue;
		}
		if (p->exited && !p->noted) {
			p->swept = true;
			c->exited++;	/* freed at the next sweep */
		}
		c->procs[j++] = p;
	}
	c->nprocs = j;
}

/* ---- lookups ------------------------------------------------------------- */

static const struct sc_map *find_map(const struct sc_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < p->maps[lo - 1].end)
		return &p->maps[lo - 1];
	return NULL;
}

/* Name @addr in process @p: 0, or -ENOENT when @p has nothing there. */
static int lookup_in(struct sc_proc *p, uint64_t addr, unsigned int flags,
		     struct symcache_sym *out)
{
	const struct sc_map *m = find_map(p, addr);
	const struct sc_jit *j;
	uint64_t vaddr, start, size;
	const char *name;

	memset(out, 0, sizeof(*out));
	if (m && m->file && scfile_vaddr(m->file, addr - m->start + m->pgoff,
					 &vaddr) == 0) {
		out->module = m->name;
		name = scfile_sym(m->file, vaddr, &start, &size);
		if (name) {
			out->name = name;
			out->offset = vaddr - start;
			out->size = size;
		} else {
			out->offset = vaddr;
			out->size = scfile_size(m->file);
		}
		if (flags & SYMCACHE_LINES)
			scfile_line(m->file, (flags & SYMCACHE_RETADDR) && vaddr ?
				    vaddr - 1 : vaddr, &out->file, &out->line);
		return 0;
	}
	if ((!m || !m->name) && (j = find_jit(p, addr))) {
		out->module = p->jit_module;
		out->name = j->name;
		out->offset = addr - j->start;
		out->size = j->size;
		return 0;
	}
	if (m && m->name) {	/* [vdso], [heap], a file not readable */
		out->module = m->name;
		out->offset = addr - m->start;
		out->size = m->end - m->start;
		return 0;
	}
	return -ENOENT;
}

int symcache_user(struct symcache *c, pid_t pid, uint64_t addr,
		  unsigned int flags, struct symcache_sym *out)
{
	struct sc_proc *p = pid > 0 ? find_proc(c, pid) : NULL;
	size_t i;

	if (p) {
		if (lookup_in(p, addr, flags, out) == 0)
			return 0;
		/* mapped since it was noted (dlopen)?  read again, rarely */
		if (!find_map(p, addr) && time(NULL) != p->refreshed &&
		    read_maps(c, p) == 0 && lookup_in(p, addr, flags, out) == 0)
			return 0;
	}
	for (i = c->nprocs; i-- > 0;)
		if (c->procs[i] != p && find_map(c->procs[i], addr) &&
		    lookup_in(c->procs[i], addr, flags, out) == 0)
			return 0;
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

int symcache_kernel(struct symcache *c, uint64_t addr,
		    struct symcache_sym *out)
{
	const char *name, *mod = NULL;
	uint64_t off = 0;

	memset(out, 0, sizeof(*out));
	if (!c->ks_tried) {
		c->ks_tried = true;
		c->ks = ksyms_load(NULL);
	}
	name = c->ks ? ksyms_lookup(c->ks, addr, &off, &mod) : NULL;
	if (!name)
		return -ENOENT;
	out->name = name;
	out->module = mod ? mod : "kernel";
	out->offset = off;
	out->size = ksyms_size(c->ks, addr);
	return 0;
}
