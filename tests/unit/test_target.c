// SPDX-License-Identifier: GPL-2.0
/*
 * Probe targets: the linker cache (synthetic files, then the system's, as
 * `ldconfig -p` reads it), $PATH, processes and their mount namespaces.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ldcache.h"
#include "common/target.h"
#include "tests/unit/elftest.h"
#include "tests/unit/unit.h"

struct cache {
	uint8_t b[4096];
	size_t n;
};

/* A new-format cache with @n entries (name, path, flags), after @pre
 * bytes of old-format data when @old. */
static void make_cache(struct cache *c, bool old, size_t n,
		       const char *const (*ent)[2], const int32_t *flags)
{
	size_t start = 0, strs, i, at;
	uint32_t v;

	memset(c, 0, sizeof(*c));
	if (old) {		/* "ld.so-1.7.0", nlibs 1, one 12-byte entry */
		memcpy(c->b, "ld.so-1.7.0", 11);
		v = 1;
		memcpy(c->b + 12, &v, 4);
		start = (16 + 12 + 7) & ~7;
	}
	memcpy(c->b + start, "glibc-ld.so.cache1.1", 20);
	v = n;
	memcpy(c->b + start + 20, &v, 4);
	strs = 48 + 24 * n;
	at = strs;
	for (i = 0; i < n; i++) {
		uint8_t *e = c->b + start + 48 + 24 * i;
		uint32_t k = at, p;

		memcpy(e, &flags[i], 4);
		strcpy((char *)c->b + start + at, ent[i][0]);
		at += strlen(ent[i][0]) + 1;
		p = at;
		strcpy((char *)c->b + start + at, ent[i][1]);
		at += strlen(ent[i][1]) + 1;
		memcpy(e + 4, &k, 4);
		memcpy(e + 8, &p, 4);
	}
	c->n = start + at;
}

static const char *const ents[][2] = {
	{ "libfoo.so.1", "/lib32/libfoo.so.1" },		/* i386 */
	{ "libfoo.so.1", "/lib/x86_64-linux-gnu/libfoo.so.1" },
	{ "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6" },
	{ "libcap.so.2", "/lib/x86_64-linux-gnu/libcap.so.2" },
	{ "libbar-2.31.so", "/lib/libbar-2.31.so" },
};
static const int32_t flags[] = { 0x0003, 0x0303, 0x0303, 0x0303, 0x0303 };

static const char *lookup(const struct cache *c, const char *name)
{
	static char path[256];
	int ret = ldcache_lookup(c->b, c->n, name, path, sizeof(path));

	return ret ? (ret == -ENOENT ? "ENOENT" : "EINVAL") : path;
}

UNIT_TEST(ldcache_formats)
{
	struct cache c;
	int old;

	for (old = 0; old < 2; old++) {
		make_cache(&c, old, 5, ents, flags);
		CHECK_STR(lookup(&c, "foo"), "/lib/x86_64-linux-gnu/libfoo.so.1");
		CHECK_STR(lookup(&c, "libfoo"), "/lib/x86_64-linux-gnu/libfoo.so.1");
		CHECK_STR(lookup(&c, "libc"), "/lib/x86_64-linux-gnu/libc.so.6");
		CHECK_STR(lookup(&c, "c"), "/lib/x86_64-linux-gnu/libc.so.6");
		CHECK_STR(lookup(&c, "libc.so.6"), "/lib/x86_64-linux-gnu/libc.so.6");
		CHECK_STR(lookup(&c, "libc.so"), "/lib/x86_64-linux-gnu/libc.so.6");
		CHECK_STR(lookup(&c, "cap"), "/lib/x86_64-linux-gnu/libcap.so.2");
		CHECK_STR(lookup(&c, "bar"), "/lib/libbar-2.31.so");
		CHECK_STR(lookup(&c, "libc.so.5"), "ENOENT");
		CHECK_STR(lookup(&c, "ca"), "ENOENT");
		CHECK_STR(lookup(&c, "nothing"), "ENOENT");
	}
}

UNIT_TEST(ldcache_malformed)
{
	static const char *const bad[][2] = { { "libx.so", "/x" } };
	static const int32_t f[] = { 0x0303 };
	struct cache c, t;
	uint32_t v;

	make_cache(&c, false, 1, bad, f);
	t = c;
	t.n = 30;		/* header cut */
	CHECK_STR(lookup(&t, "x"), "EINVAL");
	t = c;			/* more entries than bytes */
	v = 1000;
	memcpy(t.b + 20, &v, 4);
	CHECK_STR(lookup(&t, "x"), "EINVAL");
	t = c;			/* a key past the end */
	v = 100000;
	memcpy(t.b + 48 + 4, &v, 4);
	CHECK_STR(lookup(&t, "x"), "EINVAL");
	t = c;			/* the last string unterminated */
	t.n--;
	CHECK_STR(lookup(&t, "x"), "EINVAL");
	t = c;
	memcpy(t.b, "glibc-ld.so.cacheX.X", 20);
	CHECK_STR(lookup(&t, "x"), "EINVAL");
	CHECK_INT(ldcache_lookup("", 0, "x", NULL, 0), -EINVAL);
}

/* The system's cache agrees with ldconfig -p. */
UNIT_TEST(ldcache_system)
{
	char *out = sh_out("ldconfig -p | awk '/libc.so.6 .*x86-64/ { print $NF; exit }'");
	char path[PATH_MAX];
	FILE *f = fopen(LDCACHE_PATH, "rb");
	static uint8_t data[4 << 20];
	size_t n;

	if (!f || !out[0]) {
		free(out);
		if (f)
			fclose(f);
		SKIP("requires: /etc/ld.so.cache and ldconfig");
	}
	n = fread(data, 1, sizeof(data), f);
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	CHECK_INT(ldcache_lookup(data, n, "libc", path, sizeof(path)), 0);
	CHECK_STR(path, out);
	free(out);
}

/* The C library this test runs on, found through the dynamic linker. */
static void libc_path(char *path, size_t n)
{
	unsigned long long off;

	if (libc_sym("malloc", path, n, &off))
		path[0] = '\0';
}

UNIT_TEST(libraries_and_programs)
{
	char libc[PATH_MAX], err[256], *p = NULL, *want;
	static const char *const names[] = { "libc", "c", "libc.so.6" };
	size_t i;

	libc_path(libc, sizeof(libc));
	CHECK(libc[0] != '\0');
	for (i = 0; i < 3; i++) {
		CHECK_INT(target_resolve(names[i], 0, &p, err, sizeof(err)), 0);
		CHECK_STR(p, libc);
		free(p);
		/* with our pid: from our own mappings */
		CHECK_INT(target_resolve(names[i], getpid(), &p, err,
					 sizeof(err)), 0);
		CHECK_STR(p, libc);
		free(p);
	}
	want = sh_out("readlink -f \"$(which true)\"");
	want[strcspn(want, "\n")] = '\0';
	CHECK_INT(target_resolve("true", 0, &p, err, sizeof(err)), 0);
	CHECK_STR(p, want);
	free(p);
	free(want);
	/* paths as given (made canonical) */
	CHECK_INT(target_resolve("./" FIX("prog-pie"), 0, &p, err,
				 sizeof(err)), 0);
	CHECK(p && p[0] == '/' && strstr(p, "/build/tests/elf/prog-pie"));
	free(p);
	CHECK_INT(target_resolve(NULL, getpid(), &p, err, sizeof(err)), 0);
	CHECK(p && strstr(p, "/tests/test_target"));
	free(p);

	CHECK_INT(target_resolve("tk_no_such_thing", 0, &p, err, sizeof(err)),
		  -ENOENT);
	CHECK_STR(err, "cannot find 'tk_no_such_thing': no such program or "
		  "library");
	CHECK(p == NULL);
	CHECK_INT(target_resolve("/tk/no/such", 0, &p, err, sizeof(err)),
		  -ENOENT);
	CHECK_STR(err, "cannot find '/tk/no/such': No such file or directory");
	CHECK_INT(target_resolve("libc", INT_MAX, &p, err, sizeof(err)), -ESRCH);
	CHECK_STR(err, "no process 2147483647");
	CHECK_INT(target_resolve(NULL, 0, &p, err, sizeof(err)), -EINVAL);
}

UNIT_TEST(process_objects)
{
	char libc[PATH_MAX], exe[PATH_MAX], **v;
	size_t n, i;
	bool has_libc = false;
	ssize_t len;

	libc_path(libc, sizeof(libc));
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	CHECK_INT(target_objects(getpid(), &v, &n, NULL, 0), 0);
	CHECK(n >= 2);
	if (n)
		CHECK_STR(v[0], exe);
	for (i = 0; i < n; i++)
		has_libc |= !strcmp(v[i], libc);
	CHECK(has_libc);
	for (i = 1; i < n; i++)
		CHECK(strcmp(v[i], v[0]));	/* each once */
	target_objects_free(v, n);
	CHECK_INT(target_objects(INT_MAX, &v, &n, NULL, 0), -ESRCH);
}

/*
 * A process in its own mount namespace (a container's view): its files
 * are reached through /proc/PID/root.
 */
UNIT_TEST(other_mount_namespace)
{
	char root[64], want[PATH_MAX + 64], libc[PATH_MAX], *p = NULL, *exe;
	int sync_pipe[2], status;
	pid_t child;
	char c;

	if (geteuid())
		SKIP("requires: root (unshare of the mount namespace)");
	CHECK_INT(target_root(getpid(), root, sizeof(root)), 0);
	CHECK_STR(root, "");
	if (pipe(sync_pipe))
		return;
	child = fork();
	if (!child) {
		c = 'n';
		if (!unshare(CLONE_NEWNS) &&
		    !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			c = 'y';
		if (write(sync_pipe[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(sync_pipe[0], &c, 1) != 1 || c != 'y') {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
		SKIP("requires: unshare(CLONE_NEWNS)");
	}
	CHECK_INT(target_root(child, root, sizeof(root)), 0);
	snprintf(want, sizeof(want), "/proc/%d/root", (int)child);
	CHECK_STR(root, want);
	/* its executable (ours, forked) and its libc, under its root */
	CHECK_INT(target_resolve(NULL, child, &p, NULL, 0), 0);
	exe = sh_out("readlink -f /proc/%d/exe | tr -d '\\n'", (int)getpid());
	snprintf(want, sizeof(want), "/proc/%d/root%s", (int)child, exe);
	CHECK_STR(p, want);
	free(exe);
	free(p);
	libc_path(libc, sizeof(libc));
	CHECK_INT(target_resolve("libc", child, &p, NULL, 0), 0);
	CHECK(p && !strncmp(p, root, strlen(root)) &&
	      !strcmp(p + strlen(root), libc));
	free(p);
	CHECK_INT(target_resolve("/usr/bin/true", child, &p, NULL, 0), 0);
	snprintf(want, sizeof(want), "%s/usr/bin/true", root);
	CHECK_STR(p, want);
	free(p);
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	close(sync_pipe[0]);
	close(sync_pipe[1]);
}

UNIT_MAIN()
