// SPDX-License-Identifier: GPL-2.0
/* Kernel function checks and globs: fixture files written here, then the
 * running kernel's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/kfunc.h"
#include "tests/unit/unit.h"

/* Write @text to a temporary file; the caller unlinks and frees the path. */
static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/tapkit_kfunc_XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T vfs_read\n"
	"ffffffff81000200 T vfs_write\n"
	"ffffffff81000280 t __pfx_vfs_open\n"
	"ffffffff81000290 t vfs_open\n"
	"ffffffff81000300 t dup_static\n"
	"ffffffff81000400 t dup_static\n"
	"ffffffff81000500 D vfs_data\n"
	"ffffffff81000600 T __irqentry_text_start\n"
	"ffffffff81000610 T irq_entry_fn\n"
	"ffffffff81000700 T __irqentry_text_end\n"
	"ffffffff81000800 T perf_event_foo\n"
	"ffffffff81000900 t vfs_cold_path.cold\n"
	"ffffffff81000a00 T __SCT__vfs_thing\n"
	"ffffffff81000b00 t do_thing.isra.0\n"
	"ffffffff81000c00 W vfs_weak\n"
	"ffffffff81000d00 T blacklisted_fn\n"
	"ffffffff81000e00 T in_range_fn\n"
	"ffffffff82000000 T _sinittext\n"
	"ffffffff82000000 B __init_begin\n"
	"ffffffff82000100 T vfs_caches_init\n"
	"ffffffff82000200 T _einittext\n"
	"ffffffff82000300 D __init_end\n"
	"ffffffffc0001000 t ext4_vfs_mod\t[ext4]\n"
	"ffffffffc0001100 t vfs_dup_mod\t[m1]\n"
	"ffffffffc0002000 t vfs_dup_mod\t[m2]\n"
	"ffffffffc0003000 t bpf_prog_x_vfs\t[bpf]\n"
	"ffffffffc0004000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"garbage\n"
	"\n"
	"ffffffff81000f00 T last_fn";

static const char blacklist[] =
	"0xffffffff81000d00-0xffffffff81000d20\tblacklisted_fn\n"
	"0xffffffff81000e00-0xffffffff81000e40\tother_alias\n"
	"0xffffffffc0001000-0xffffffffc0001040\text4_vfs_mod [ext4]\n";

/* List as one string "a b c" for comparison. */
static char *join(const struct kfunc_list *l)
{
	static char buf[1024];
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < l->n; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", l->v[i]);
	return buf;
}

UNIT_TEST(match_kallsyms)
{
	char *ks = write_tmp(kallsyms), *bl = write_tmp(blacklist), err[256];
	struct kfunc_list l;

	kfunc_set_paths(ks, "/nonexistent/filter", bl);
	CHECK_INT(kfunc_match("vfs_*", &l, err, sizeof(err)), 0);
	/* data, init, .cold, __SCT__, __pfx_, bpf and duplicates left out */
	CHECK_STR(join(&l), "vfs_dup_mod vfs_open vfs_read vfs_weak vfs_write");
	kfunc_list_release(&l);
	CHECK_INT(kfunc_match("*", &l, err, sizeof(err)), 0);
	CHECK_STR(join(&l), "do_thing.isra.0 dup_static last_fn vfs_dup_mod "
		  "vfs_open vfs_read vfs_weak vfs_write");
	kfunc_list_release(&l);
	CHECK_INT(kfunc_match("nothing*", &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 0);
	kfunc_list_release(&l);
	CHECK_INT(kfunc_match("", &l, err, sizeof(err)), -EINVAL);
	unlink(ks);
	unlink(bl);
	free(ks);
	free(bl);
}

UNIT_TEST(match_filter_functions)
{
	char *ks = write_tmp(kallsyms), *bl = write_tmp(blacklist), err[256];
	char *ff = write_tmp("vfs_read\nvfs_write\nvfs_write\n"
			     "__ftrace_invalid_address___64\nperf_event_foo\n"
			     "ext4_vfs_mod [ext4]\nvfs_mod_only [m1]\nblacklisted_fn\n");
	struct kfunc_list l;

	kfunc_set_paths(ks, ff, bl);
	CHECK_INT(kfunc_match("*vfs*", &l, err, sizeof(err)), 0);
	/* only what the filter lists; the blacklisted module function out */
	CHECK_STR(join(&l), "vfs_mod_only vfs_read vfs_write");
	kfunc_list_release(&l);
	CHECK_INT(kfunc_match("*", &l, err, sizeof(err)), 0);
	CHECK_STR(join(&l), "vfs_mod_only vfs_read vfs_write");
	kfunc_list_release(&l);
	unlink(ks);
	unlink(bl);
	unlink(ff);
	free(ks);
	free(bl);
	free(ff);
}

UNIT_TEST(check_fixture)
{
	char *ks = write_tmp(kallsyms), *bl = write_tmp(blacklist), err[256];

	kfunc_set_paths(ks, NULL, bl);
	CHECK_INT(kfunc_check("vfs_read", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("vfs_read+0x10", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("vfs_read+16", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("vfs_weak", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("ext4_vfs_mod", err, sizeof(err)), -EPERM);
	CHECK_INT(kfunc_check("vfs_dup_mod", err, sizeof(err)), 0);
	/* recursion-safety exclusions are for globs only */
	CHECK_INT(kfunc_check("perf_event_foo", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("vfs_data", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "no kernel function 'vfs_data'");
	CHECK_INT(kfunc_check("nope+4", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "no kernel function 'nope'");
	CHECK_INT(kfunc_check("do_thing", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "no kernel function 'do_thing' (the compiler renamed it: do_thing.isra.0)");
	CHECK_INT(kfunc_check("blacklisted_fn", err, sizeof(err)), -EPERM);
	CHECK_STR(err, "'blacklisted_fn' is on the kernel's kprobe blacklist");
	/* by address range, under another name */
	CHECK_INT(kfunc_check("in_range_fn", err, sizeof(err)), -EPERM);
	CHECK_INT(kfunc_check("vfs_caches_init", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "'vfs_caches_init' is init code, freed after boot");
	CHECK_INT(kfunc_check("vfs_read+x", err, sizeof(err)), -EINVAL);
	CHECK_INT(kfunc_check("vfs_read+", err, sizeof(err)), -EINVAL);
	CHECK_INT(kfunc_check("+4", err, sizeof(err)), -ENOENT);
	CHECK_INT(kfunc_check("", err, sizeof(err)), -ENOENT);
	unlink(ks);
	unlink(bl);
	free(ks);
	free(bl);
}

/* kptr_restrict: every address 0, the sections found by line order */
UNIT_TEST(check_hidden_addresses)
{
	char *ks = write_tmp("0000000000000000 T _stext\n"
			     "0000000000000000 T vfs_read\n"
			     "0000000000000000 T __irqentry_text_start\n"
			     "0000000000000000 T irq_fn\n"
			     "0000000000000000 T __irqentry_text_end\n"
			     "0000000000000000 T _sinittext\n"
			     "0000000000000000 T start_kernel\n"
			     "0000000000000000 T _einittext\n"
			     "0000000000000000 t mod_fn\t[m]\n");
	char err[256];
	struct kfunc_list l;

	kfunc_set_paths(ks, "/nonexistent", "/nonexistent");
	CHECK_INT(kfunc_check("vfs_read", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("mod_fn", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("start_kernel", err, sizeof(err)), -EINVAL);
	CHECK_INT(kfunc_match("*", &l, err, sizeof(err)), 0);
	CHECK_STR(join(&l), "mod_fn vfs_read");
	kfunc_list_release(&l);
	unlink(ks);
	free(ks);
}

UNIT_TEST(unreadable_kallsyms)
{
	struct kfunc_list l;
	char err[256];

	kfunc_set_paths("/nonexistent/kallsyms", NULL, NULL);
	CHECK_INT(kfunc_check("vfs_read", err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "cannot read /nonexistent/kallsyms: No such file or directory");
	CHECK_INT(kfunc_match("vfs_*", &l, err, sizeof(err)), -ENOENT);
	kfunc_set_paths(NULL, NULL, NULL);
}

UNIT_TEST(running_kernel)
{
	struct kfunc_list l;
	char err[256];
	size_t i;
	int found = 0;

	kfunc_set_paths(NULL, NULL, NULL);
	if (access("/proc/kallsyms", R_OK))
		SKIP("requires: /proc/kallsyms");
	CHECK_INT(kfunc_check("do_sys_openat2", err, sizeof(err)), 0);
	CHECK_INT(kfunc_check("tapkit_no_such_function", err, sizeof(err)), -ENOENT);
	CHECK_INT(kfunc_match("do_sys_open*", &l, err, sizeof(err)), 0);
	for (i = 0; i < l.n; i++) {
		found += !strcmp(l.v[i], "do_sys_openat2");
		CHECK(i == 0 || strcmp(l.v[i - 1], l.v[i]) < 0);
	}
	CHECK_INT(found, 1);
	kfunc_list_release(&l);
	CHECK_INT(kfunc_match("perf_*", &l, err, sizeof(err)), 0);
	CHECK_INT(l.n, 0);
	kfunc_list_release(&l);
}

UNIT_MAIN()
