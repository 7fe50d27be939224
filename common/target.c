// SPDX-License-Identifier: GPL-2.0
/*
 * Probe targets: from what the user typed to a file the kernel can open.
 *
 * A uprobe is keyed on an inode; the path is only how the kernel finds it,
 * resolved in the mount namespace of the process writing the definition
 * (us).  A process in a container sees its files under another root, which
 * /proc/PID/root exposes to us: paths taken from its view (its maps, its
 * executable, its ld.so.cache) get that prefix when its mount namespace
 * is not ours.  Paths in our own namespace are made canonical with
 * realpath(), so they read like /proc/PID/maps; paths under a foreign root
 * are not (its absolute symlinks would resolve against our root).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/ldcache.h"
#include "common/log.h"
#include "common/target.h"

int target_root(pid_t pid, char *buf, size_t n)
{
	char a[64], b[64], p[64];
	ssize_t la, lb;

	snprintf(p, sizeof(p), "/proc/%d/ns/mnt", (int)pid);
	la = readlink("/proc/self/ns/mnt", a, sizeof(a));
	lb = readlink(p, b, sizeof(b));
	if (la > 0 && la == lb && !memcmp(a, b, la))
		return snprintf(buf, n, "%s", "") >= (int)n ? -ENAMETOOLONG : 0;
	if (lb < 0 && errno == ENOENT)
		return -ESRCH;
	return snprintf(buf, n, "/proc/%d/root", (int)pid) >= (int)n ?
	       -ENAMETOOLONG : 0;
}

/* @root + @p as an allocated string, canonical when @root is ours. */
static char *under_root(const char *root, const char *p)
{
	char real[PATH_MAX];

	if (!*root && realpath(p, real))
		return xstrdup(real);
	return xasprintf("%s%s", root, p);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * Calls @fn on the path of each executable file mapping of @pid, in
 * address order (the executable comes first for ordinary programs).  Stops
 * when @fn returns non-0 and returns that.  -ESRCH when there is no such
 * process.
 */
static int for_each_mapping(pid_t pid, int (*fn)(const char *path, void *arg),
			    void *arg)
{
	char file[64], *line = NULL;
	size_t cap = 0;
	int ret = 0;
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/maps", (int)pid);
	f = fopen(file, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!ret && getline(&line, &cap, f) > 0) {
		char perms[8], *path;
		unsigned long ino;
		int at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%*x-%*x %7s %*x %*x:%*x %lu %n", perms, &ino,
			   &at) < 2 || !at || !ino || perms[2] != 'x')
			continue;
		path = line + at;
		if (*path != '/')
			continue;
		/* the file was replaced or removed since it was mapped */
		if (strlen(path) > 10 &&
		    !strcmp(path + strlen(path) - 10, " (deleted)"))
			continue;
		ret = fn(path, arg);
	}
	free(line);
	fclose(f);
	return ret;
}

struct map_match {
	const char *name;
	char *found;		/* in the process's view */
};

static int match_mapping(const char *path, void *arg)
{
	struct map_match *m = arg;
	const char *base = base_name(path);

	if (strcmp(base, m->name) && !ldcache_name_match(base, m->name))
		return 0;
	m->found = xstrdup(path);
	return 1;
}

/* Look @name up in the linker cache under @root; 0 with @out allocated. */
static int from_ldcache(const char *root, const char *name, char **out)
{
	char file[PATH_MAX], lib[PATH_MAX];
	struct stat st;
	void *data;
	ssize_t r;
	int fd, ret;

	snprintf(file, sizeof(file), "%s%s", root, LDCACHE_PATH);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0 || st.st_size > 64 << 20) {
		close(fd);
		return -EINVAL;
	}
	data = xmalloc(st.st_size);
	r = pread(fd, data, st.st_size, 0);
	close(fd);
	ret = r == st.st_size ?
	      ldcache_lookup(data, st.st_size, name, lib, sizeof(lib)) : -EIO;
	free(data);
	if (!ret)
		*out = under_root(root, lib);
	return ret;
}

/* An executable regular file named @name in one of $PATH's directories. */
static int from_path(const char *root, const char *name, char **out)
{
	const char *env = getenv("PATH");
	char *dirs, *dir, *save, file[PATH_MAX];
	struct stat st;
	int ret = -ENOENT;

	dirs = xstrdup(env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir;
	     dir = strtok_r(NULL, ":", &save)) {
		if (*dir != '/')
			continue;
		snprintf(file, sizeof(file), "%s%s/%s", root, dir, name);
		if (!stat(file, &st) && S_ISREG(st.st_mode) &&
		    !access(file, X_OK)) {
			*out = *root ? xstrdup(file) : under_root("", file);
			break;
		}
	}
	if (dir)
		ret = 0;
	free(dirs);
	return ret;
}

/* The process's executable, as its own mount namespace names it. */
static int exe_of(pid_t pid, const char *root, char **out, char *err,
		  size_t errlen)
{
	char link[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n < 0)
		return errmsg(err, errlen, errno == ENOENT ? -ESRCH : -errno,
			      "cannot read the executable of process %d: %s",
			      (int)pid, strerror(errno));
	exe[n] = '\0';
	if (n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		return errmsg(err, errlen, -ENOENT,
			      "the executable of process %d was deleted ('%s')",
			      (int)pid, exe);
	*out = under_root(root, exe);
	return 0;
}

static bool looks_like_library(const char *name)
{
	return !strncmp(name, "lib", 3) || strstr(name, ".so");
}

/* A name without a slash: mappings, then the cache and $PATH. */
static int resolve_bare(const char *name, pid_t pid, const char *root,
			char **path)
{
	struct map_match m = { name, NULL };
	int ret;

	if (pid > 0) {
		ret = for_each_mapping(pid, match_mapping, &m);
		if (ret < 0)
			return ret;
		if (m.found) {
			*path = under_root(root, m.found);
			free(m.found);
			return 0;
		}
	}
	if (looks_like_library(name))
		return from_ldcache(root, name, path);
	ret = from_path(root, name, path);
	if (ret)
		ret = from_ldcache(root, name, path);
	return ret;
}

int target_resolve(const char *name, pid_t pid, char **path, char *err,
		   size_t errlen)
{
	char root[64] = "";
	int ret;

	*path = NULL;
	if (pid > 0) {
		ret = target_root(pid, root, sizeof(root));
		if (ret)
			return errmsg(err, errlen, ret, "no process %d",
				      (int)pid);
	}
	if (!name || !*name) {
		if (pid <= 0)
			return errmsg(err, errlen, -EINVAL,
				      "no target: give a file or a process");
		return exe_of(pid, root, path, err, errlen);
	}
	if (strchr(name, '/')) {
		/* relative paths are ours: the user typed them here */
		*path = under_root(*name == '/' ? root : "", name);
		if (access(*path, F_OK)) {
			ret = -errno;
			errmsg(err, errlen, ret, "cannot find '%s': %s", *path,
			       strerror(errno));
			free(*path);
			*path = NULL;
			return ret;
		}
		return 0;
	}
	ret = resolve_bare(name, pid, root, path);
	if (ret == -ESRCH)
		return errmsg(err, errlen, ret, "no process %d", (int)pid);
	if (ret && pid > 0)
		return errmsg(err, errlen, -ENOENT, "cannot find '%s': no such "
			      "program or library (nor mapped by process %d)",
			      name, (int)pid);
	if (ret)
		return errmsg(err, errlen, -ENOENT, "cannot find '%s': no such "
			      "program or library", name);
	return 0;
}

struct objects {
	const char *root;
	char **v;
	size_t n, cap;
};

static int add_object(const char *path, void *arg)
{
	struct objects *o = arg;
	size_t i;

	for (i = 0; i < o->n; i++)
		if (!strcmp(o->v[i] + strlen(o->root), path))
			return 0;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 16;
		o->v = xrealloc(o->v, o->cap * sizeof(*o->v));
	}
	/* not under_root(): the comparison above needs root + path as is */
	o->v[o->n++] = xasprintf("%s%s", o->root, path);
	return 0;
}

int target_objects(pid_t pid, char ***paths, size_t *n, char *err,
		   size_t errlen)
{
	char root[64] = "";
	struct objects o = { .root = root };
	int ret;

	*paths = NULL;
	*n = 0;
	ret = target_root(pid, root, sizeof(root));
	if (!ret)
		ret = for_each_mapping(pid, add_object, &o);
	if (ret) {
		target_objects_free(o.v, o.n);
		return errmsg(err, errlen, ret, ret == -ESRCH ?
			      "no process %d" : "cannot read the mappings of "
			      "process %d", (int)pid);
	}
	*paths = o.v;
	*n = o.n;
	return 0;
}

void target_objects_free(char **paths, size_t n)
{
	size_t i;

	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

uint64_t target_proc_addr(pid_t pid, const char *path, uint64_t off)
{
	char fn[64], line[4096];
	uint64_t addr = 0;
	struct stat st;
	FILE *f;

	if (stat(path, &st) < 0)
		return 0;
	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	f = fopen(fn, "re");
	if (!f)
		return 0;
	while (!addr && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, moff, ino;
		unsigned int maj, min;

		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end,
			   &moff, &maj, &min, &ino) != 6)
			continue;
		if (ino == st.st_ino && makedev(maj, min) == st.st_dev &&
		    off >= moff && off < moff + (end - start))
			addr = start + (off - moff);
	}
	fclose(f);
	return addr;
}
