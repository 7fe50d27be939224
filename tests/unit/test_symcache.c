// SPDX-License-Identifier: GPL-2.0
/*
 * Stack symbolizer: a copy of the stackprog workload (a PIE and its own
 * shared library) is run from a temporary folder, noted, then ended and
 * deleted before its addresses are looked up, as a backtrace printed in an
 * end probe would see it.  The addresses come from the program itself,
 * the expected names, sizes and lines from binutils (nm, addr2line).
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "common/symcache.h"
#include "tests/unit/unit.h"

#define HELPERS "build/tests/helpers/"

struct prog {
	pid_t pid;
	int in;			/* its stdin: closing it ends it */
	char dir[64];
	char path[128];		/* the program's copy */
	unsigned long a, b, c, main, lib;
	bool stripped;		/* set before start() */
};

static int sh(const char *fmt, const char *arg, char *out, size_t outlen)
{
	char cmd[512];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), fmt, arg, arg);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	return pclose(f) == 0 ? 0 : -1;
}

/* Copy stackprog and its library into a new folder and start it there in
 * "addrs" mode: it says where its functions are and waits. */
static int start(struct prog *p, const char *prog)
{
	int to[2], from[2];
	char cmd[512];
	FILE *f;

	bool stripped = p->stripped;

	memset(p, 0, sizeof(*p));
	p->stripped = stripped;
	strcpy(p->dir, "/tmp/tapkit_symcache_XXXXXX");
	if (!mkdtemp(p->dir))
		return -1;
	snprintf(p->path, sizeof(p->path), "%s/%s", p->dir, prog);
	snprintf(cmd, sizeof(cmd), "cp " HELPERS "%s " HELPERS "libtkstack.so %s/",
		 prog, p->dir);
	if (system(cmd) != 0 || pipe(to) || pipe(from))
		return -1;
	/* stripped, its symbols in a debug file beside it (.gnu_debuglink) */
	snprintf(cmd, sizeof(cmd), "cd %s && objcopy --only-keep-debug %s %s.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=%s.debug %s", p->dir,
		 prog, prog, prog, prog);
	if (p->stripped && system(cmd) != 0)
		return -1;
	p->pid = fork();
	if (p->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(p->path, p->path, "addrs", (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	p->in = to[1];
	f = fdopen(from[0], "r");
	if (!f || fscanf(f, "%lx a %lx b %lx c %lx main %lx tkstack_lib",
			 &p->a, &p->b, &p->c, &p->main, &p->lib) != 5)
		return -1;
	fclose(f);
	return 0;
}

/* End it, and remove its files. */
static void finish(struct prog *p)
{
	char cmd[128];
	int st;

	close(p->in);
	waitpid(p->pid, &st, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", p->dir);
}

/* nm's size of @sym in @path. */
static unsigned long nm_size(const char *path, const char *sym)
{
	char cmd[256], out[256];

	snprintf(cmd, sizeof(cmd), "nm -S --defined-only %%s | awk '$4 == \"%s\" { print $2 }'",
		 sym);
	if (sh(cmd, path, out, sizeof(out)))
		return 0;
	return strtoul(out, NULL, 16);
}

UNIT_TEST(pie_and_library_after_exit_and_removal)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	unsigned long csize = nm_size(HELPERS "stackprog", "c");
	unsigned long lsize = nm_size(HELPERS "libtkstack.so", "tkstack_lib");
	char lib[160];
	struct prog p = { 0 };

	if (start(&p, "stackprog"))
		SKIP("requires: " HELPERS "stackprog (make tests-build)");
	CHECK_INT(symcache_note(c, p.pid), 0);
	CHECK_INT(symcache_note(c, p.pid), 0);
	finish(&p);
	snprintf(lib, sizeof(lib), "%s/libtkstack.so", p.dir);

	CHECK_INT(symcache_user(c, p.pid, p.c + 5, 0, &s), 0);
	CHECK_STR(s.name, "c");
	CHECK_INT(s.offset, 5);
	CHECK(csize > 0);
	CHECK_INT(s.size, csize);
	CHECK_STR(s.module, p.path);
	CHECK(s.file == NULL);

	CHECK_INT(symcache_user(c, p.pid, p.a, 0, &s), 0);
	CHECK_STR(s.name, "a");
	CHECK_INT(s.offset, 0);
	CHECK_INT(symcache_user(c, p.pid, p.main + 1, 0, &s), 0);
	CHECK_STR(s.name, "main");
	CHECK_INT(s.offset, 1);

	CHECK_INT(symcache_user(c, p.pid, p.lib + 4, 0, &s), 0);
	CHECK_STR(s.name, "tkstack_lib");
	CHECK_INT(s.offset, 4);
	CHECK_INT(s.size, lsize);
	CHECK_STR(s.module, lib);

	/* another pid (an end probe's): the process that maps it answers */
	CHECK_INT(symcache_user(c, 0, p.b + 2, 0, &s), 0);
	CHECK_STR(s.name, "b");
	CHECK_INT(s.offset, 2);

	CHECK_INT(symcache_user(c, p.pid, 0x1000, 0, &s), -ENOENT);
	CHECK(s.name == NULL && s.module == NULL);
	symcache_free(c);
}

UNIT_TEST(stripped_with_a_debug_file_beside_it)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	struct prog p = { .stripped = true };
	char out[64];

	if (start(&p, "stackprog"))
		SKIP("requires: " HELPERS "stackprog and objcopy");
	/* really stripped: no symbol table left in the program */
	CHECK(sh("readelf -S %s | grep -c '\\.symtab' || true", p.path, out, sizeof(out)) == 0 &&
	      atoi(out) == 0);
	CHECK_INT(symcache_note(c, p.pid), 0);
	finish(&p);
	/* c is not exported (in .symtab only): named from the debug file */
	CHECK_INT(symcache_user(c, p.pid, p.c + 2, 0, &s), 0);
	CHECK_STR(s.name, "c");
	CHECK_INT(s.offset, 2);
	CHECK_STR(s.module, p.path);
	symcache_free(c);
}

UNIT_TEST(fixed_address_executable)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	struct prog p = { 0 };

	if (start(&p, "stackprog-nopie"))
		SKIP("requires: " HELPERS "stackprog-nopie (make tests-build)");
	CHECK_INT(symcache_note(c, p.pid), 0);
	finish(&p);
	CHECK(p.b < 0x10000000);	/* really not moved */
	CHECK_INT(symcache_user(c, p.pid, p.b + 3, 0, &s), 0);
	CHECK_STR(s.name, "b");
	CHECK_INT(s.offset, 3);
	CHECK_STR(s.module, p.path);
	symcache_free(c);
}

/* The line of @sym's first address in @path, from nm and addr2line. */
static int a2l_line(const char *path, const char *sym, char *file, size_t n)
{
	char cmd[300], out[256], *colon;

	snprintf(cmd, sizeof(cmd), "addr2line -e %%s $(nm %%s | awk '$3 == \"%s\" { print $1 }')",
		 sym);
	if (sh(cmd, path, out, sizeof(out)) || !(colon = strrchr(out, ':')))
		return -1;
	*colon = '\0';
	snprintf(file, n, "%s", out);
	return atoi(colon + 1);
}

UNIT_TEST(file_and_line)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	char want[256];
	int line = a2l_line(HELPERS "stackprog", "c", want, sizeof(want));
	struct prog p = { 0 };

	if (line <= 0 || start(&p, "stackprog"))
		SKIP("requires: " HELPERS "stackprog and addr2line");
	CHECK_INT(symcache_note(c, p.pid), 0);
	finish(&p);
	CHECK_INT(symcache_user(c, p.pid, p.c, SYMCACHE_LINES, &s), 0);
	CHECK_STR(s.name, "c");
	/* the line table's name: addr2line joins it to the build folder */
	CHECK(s.file && strlen(want) >= strlen(s.file) &&
	      !strcmp(want + strlen(want) - strlen(s.file), s.file));
	CHECK_INT(s.line, line);
	/* a return address is looked up one byte back: still in c */
	CHECK_INT(symcache_user(c, p.pid, p.c + 1, SYMCACHE_LINES | SYMCACHE_RETADDR,
				&s), 0);
	CHECK_INT(s.line, line);
	symcache_free(c);
}

UNIT_TEST(jit_map_in_the_process_root)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	char map[64], mod[64];
	struct prog p = { 0 };
	FILE *f;

	if (start(&p, "stackprog"))
		SKIP("requires: " HELPERS "stackprog (make tests-build)");
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)p.pid);
	f = fopen(map, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "10000 40 tk_unit_jit\n"
			"not a line\n"
			"20000 10 LazyCompile:*foo bar.js:1\n");
		fclose(f);
	}
	CHECK_INT(symcache_note(c, p.pid), 0);
	finish(&p);
	unlink(map);
	snprintf(mod, sizeof(mod), "/tmp/perf-%d.map", (int)p.pid);

	CHECK_INT(symcache_user(c, p.pid, 0x10008, 0, &s), 0);
	CHECK_STR(s.name, "tk_unit_jit");
	CHECK_INT(s.offset, 8);
	CHECK_INT(s.size, 0x40);
	CHECK_STR(s.module, mod);
	CHECK_INT(symcache_user(c, p.pid, 0x20000, 0, &s), 0);
	CHECK_STR(s.name, "LazyCompile:*foo bar.js:1");
	CHECK_INT(symcache_user(c, p.pid, 0x10040, 0, &s), -ENOENT);
	symcache_free(c);
}

/* The executable mapping of @path in process @pid, read from its maps
 * here (not by the code under test). */
static int exec_map(pid_t pid, const char *path, unsigned long *start,
		    unsigned long *end, unsigned long *pgoff)
{
	char fn[64], line[512], perms[8], file[256];
	int found = -1;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	f = fopen(fn, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", start, end, perms,
			   pgoff, file) == 5 && perms[2] == 'x' && !strcmp(file, path)) {
			found = 0;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

UNIT_TEST(maps_told_for_a_process_never_noted)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	unsigned long lo, hi, pg;
	pid_t fake = 4194000;	/* above any pid_max default: never a process */
	struct prog p = { 0 };

	if (start(&p, "stackprog"))
		SKIP("requires: " HELPERS "stackprog (make tests-build)");
	CHECK_INT(exec_map(p.pid, p.path, &lo, &hi, &pg), 0);
	/* told while the file exists, looked up after the process ended */
	CHECK_INT(symcache_add_map(c, fake, lo, hi - lo, pg, p.path), 0);
	finish(&p);
	CHECK_INT(symcache_user(c, fake, p.c + 7, 0, &s), 0);
	CHECK_STR(s.name, "c");
	CHECK_INT(s.offset, 7);
	CHECK_STR(s.module, p.path);
	/* a file that is not there: the mapping is still named by its path */
	CHECK_INT(symcache_add_map(c, fake, 0x1000, 0x1000, 0, "/nonexistent/x.so"),
		  -ENOENT);
	CHECK_INT(symcache_user(c, fake, 0x1010, 0, &s), 0);
	CHECK(s.name == NULL);
	CHECK_STR(s.module, "/nonexistent/x.so");
	/* gone: what was told stays, and /proc is not read again */
	CHECK_INT(symcache_note(c, fake), 0);
	CHECK_INT(symcache_user(c, fake, p.c + 7, 0, &s), 0);
	CHECK_STR(s.name, "c");
	symcache_free(c);
}

/*
 * What a perf sideband tells, in record order: a program's mapping (by the
 * kernel's device and inode), a fork that copies it, an exec that forgets
 * it, an exit; a record older than the last one told is ignored; an
 * exited process nobody noted is freed at the second sweep.
 */
UNIT_TEST(sideband_fork_exec_exit_and_sweep)
{
	struct symcache *c = symcache_new(), *sh1, *sh2;
	struct symcache_mapping m = { 0 };
	struct symcache_sym s;
	unsigned long lo, hi, pg;
	pid_t a = 4194001, b = 4194002, d = 4194003;
	struct prog p = { 0 };
	struct stat st;

	if (start(&p, "stackprog"))
		SKIP("requires: " HELPERS "stackprog (make tests-build)");
	CHECK_INT(exec_map(p.pid, p.path, &lo, &hi, &pg), 0);
	CHECK_INT(stat(p.path, &st), 0);
	m.start = lo;
	m.len = hi - lo;
	m.pgoff = pg;
	m.dev = st.st_dev;
	m.ino = st.st_ino;
	m.path = p.path;
	CHECK_INT(symcache_task(c, 100, SYMCACHE_EXEC, a, 0), 0);
	CHECK_INT(symcache_mmap(c, 101, a, &m), 0);
	finish(&p);
	/* the same file again, by the kernel's identity: not opened (it is
	 * removed by now), and " (deleted)" is not part of the name */
	CHECK_INT(symcache_task(c, 102, SYMCACHE_FORK, b, a), 0);
	CHECK_INT(symcache_user(c, b, p.c + 3, 0, &s), 0);
	CHECK_STR(s.name, "c");
	CHECK_INT(symcache_task(c, 103, SYMCACHE_EXEC, d, 0), 0);
	{
		char del[200];

		snprintf(del, sizeof(del), "%s (deleted)", p.path);
		m.path = del;
		CHECK_INT(symcache_mmap(c, 104, d, &m), 0);
		CHECK_INT(symcache_user(c, d, p.b + 2, 0, &s), 0);
		CHECK_STR(s.name, "b");
		CHECK_STR(s.module, p.path);
	}
	/* an exec forgets a's maps; a record of a older than that is not told */
	CHECK_INT(symcache_task(c, 110, SYMCACHE_EXEC, a, 0), 0);
	m.path = p.path;
	CHECK_INT(symcache_mmap(c, 105, a, &m), 0);
	CHECK_INT(symcache_note(c, a), -ESRCH);	/* gone, nothing known */
	/* exits: b was noted (a stack of it was named), d was not */
	CHECK_INT(symcache_note(c, b), 0);
	CHECK_INT(symcache_task(c, 120, SYMCACHE_EXIT, b, 0), 0);
	CHECK_INT(symcache_task(c, 121, SYMCACHE_EXIT, d, 0), 0);
	symcache_sweep(c);
	CHECK_INT(symcache_user(c, d, p.b + 2, 0, &s), 0);	/* not yet */
	symcache_sweep(c);
	CHECK_INT(symcache_user(c, b, p.c + 3, 0, &s), 0);
	CHECK_STR(s.name, "c");
	/* d is gone: its address is named only through another process */
	CHECK_INT(symcache_user(c, d, p.b + 2, 0, &s), 0);
	CHECK_STR(s.name, "b");
	CHECK_INT(symcache_task(c, 0, SYMCACHE_EXIT, 0, 0), -EINVAL);
	symcache_free(c);
	/* the shared cache: one object while referenced */
	sh1 = symcache_shared();
	sh2 = symcache_shared();
	CHECK(sh1 == sh2);
	symcache_free(sh1);
	symcache_free(sh2);
}

UNIT_TEST(gone_process)
{
	struct symcache *c = symcache_new();
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	waitpid(pid, &st, 0);
	CHECK_INT(symcache_note(c, pid), -ESRCH);
	CHECK_INT(symcache_note(c, 0), -EINVAL);
	symcache_free(c);
}

UNIT_TEST(kernel_through_kallsyms)
{
	struct symcache *c = symcache_new();
	struct symcache_sym s;
	char out[128];
	unsigned long addr, next;

	/* two neighbours in address order, from the kallsyms text itself */
	if (sh("sort /proc/kallsyms | awk '$3 == \"%s\" && !f { f = $1; print $1; next } "
	       "f && $1 != f { print $1; exit }'", "do_syscall_64", out,
	       sizeof(out)) || sscanf(out, "%lx %lx", &addr, &next) != 2 || !addr)
		SKIP("requires: readable /proc/kallsyms (root)");
	CHECK_INT(symcache_kernel(c, addr + 3, &s), 0);
	CHECK_STR(s.name, "do_syscall_64");
	CHECK_STR(s.module, "kernel");
	CHECK_INT(s.offset, 3);
	CHECK_INT(s.size, next - addr);
	CHECK_INT(symcache_kernel(c, 0x1000, &s), -ENOENT);
	symcache_free(c);
}

UNIT_MAIN()
