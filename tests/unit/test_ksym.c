// SPDX-License-Identifier: GPL-2.0
/* Kernel symbolizer: a fake kallsyms written here, then the real one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/ksym.h"
#include "tests/unit/unit.h"

/* Write @text to a temporary file; the caller unlinks and frees the path. */
static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/tapkit_ksym_XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

/* Out of address order on purpose, with aliases, absolutes and modules. */
static const char fake[] =
	"ffffffff81000200 T second\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 t startup_64\n"
	"ffffffff81000100 t local_fn\n"
	"ffffffff81000100 W local_fn_weak_alias\n"
	"ffffffff81000100 T global_fn\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000300 d some_data_local\n"
	"0000000000001000 A __per_cpu_thing\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0001080 T mod_fn2\t[mymod]\n"
	"ffffffffc0002000 t bpf_prog_abc_x\t[bpf]\n"
	"garbage line\n"
	"\n"
	"ffffffff81000400 t last_core";		/* no final newline */

UNIT_TEST(fake_lookup)
{
	char *path = write_tmp(fake);
	struct ksyms *ks = ksyms_load(path);
	const char *mod = "unset";
	uint64_t off = 99;

	CHECK(ks != NULL);
	if (!ks)
		goto out;
	/* exact address of an alias group: global text wins */
	CHECK_STR(ksyms_lookup(ks, 0xffffffff81000000, &off, &mod), "_text");
	CHECK_INT(off, 0);
	CHECK(mod == NULL);
	CHECK_STR(ksyms_lookup(ks, 0xffffffff81000100, &off, NULL), "global_fn");
	/* between symbols: the preceding one */
	CHECK_STR(ksyms_lookup(ks, 0xffffffff810001ff, &off, NULL), "global_fn");
	CHECK_INT(off, 0xff);
	CHECK_STR(ksyms_lookup(ks, 0xffffffff81000234, &off, NULL), "second");
	CHECK_INT(off, 0x34);
	/* data aliases: global before local */
	CHECK_STR(ksyms_lookup(ks, 0xffffffff81000310, &off, NULL), "some_data");
	CHECK_STR(ksyms_lookup(ks, 0xffffffff81000400, &off, NULL), "last_core");
	/* modules */
	CHECK_STR(ksyms_lookup(ks, 0xffffffffc0001010, &off, &mod), "mod_fn");
	CHECK_INT(off, 0x10);
	CHECK_STR(mod, "mymod");
	CHECK_STR(ksyms_lookup(ks, 0xffffffffc0001080, &off, &mod), "mod_fn2");
	CHECK_STR(mod, "mymod");
	CHECK_STR(ksyms_lookup(ks, 0xffffffffc0002008, NULL, &mod), "bpf_prog_abc_x");
	CHECK_STR(mod, "bpf");
	/* below the first symbol: absolutes were dropped, so nothing */
	CHECK(ksyms_lookup(ks, 0x1000, &off, &mod) == NULL);
	CHECK(ksyms_lookup(ks, 0xffffffff80ffffff, &off, &mod) == NULL);
	CHECK(ksyms_lookup(ks, 0, NULL, NULL) == NULL);
out:
	ksyms_free(ks);
	unlink(path);
	free(path);
}

UNIT_TEST(fake_addr)
{
	char *path = write_tmp(fake);
	struct ksyms *ks = ksyms_load(path);

	CHECK(ks != NULL);
	if (ks) {
		CHECK(ksyms_addr(ks, "_text") == 0xffffffff81000000ULL);
		CHECK(ksyms_addr(ks, "startup_64") == 0xffffffff81000000ULL);
		CHECK(ksyms_addr(ks, "local_fn_weak_alias") == 0xffffffff81000100ULL);
		CHECK(ksyms_addr(ks, "some_data_local") == 0xffffffff81000300ULL);
		CHECK(ksyms_addr(ks, "mod_fn2") == 0xffffffffc0001080ULL);
		CHECK(ksyms_addr(ks, "last_core") == 0xffffffff81000400ULL);
		CHECK_INT(ksyms_addr(ks, "fixed_percpu_data"), 0);	/* absolute */
		CHECK_INT(ksyms_addr(ks, "nope"), 0);
		CHECK_INT(ksyms_addr(ks, "mymod"), 0);
	}
	ksyms_free(ks);
	unlink(path);
	free(path);
}

UNIT_TEST(hidden_addresses_give_eperm)
{
	char *path = write_tmp("0000000000000000 T _text\n"
			       "0000000000000000 t foo\n"
			       "0000000000000000 t bar\t[m]\n");

	errno = 0;
	CHECK(ksyms_load(path) == NULL);
	CHECK_INT(errno, EPERM);
	unlink(path);
	free(path);
}

UNIT_TEST(empty_and_missing_files)
{
	char *path = write_tmp("");

	errno = 0;
	CHECK(ksyms_load(path) == NULL);
	CHECK_INT(errno, ENODATA);
	unlink(path);
	free(path);

	errno = 0;
	CHECK(ksyms_load("/nonexistent/kallsyms") == NULL);
	CHECK_INT(errno, ENOENT);
	ksyms_free(NULL);
}

/* The real table: a known symbol's address maps back to it. */
UNIT_TEST(real_kallsyms_round_trip)
{
	struct ksyms *ks = ksyms_load(NULL);
	const char *names[] = { "schedule", "do_sys_openat2", "vfs_read" };
	unsigned int i, found = 0;

	if (!ks && errno == EPERM)
		SKIP("requires: readable kallsyms addresses");
	CHECK(ks != NULL);
	if (!ks)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t a = ksyms_addr(ks, names[i]), off = 1;
		const char *mod = "unset";

		if (!a)
			continue;
		found++;
		CHECK_STR(ksyms_lookup(ks, a, &off, &mod), names[i]);
		CHECK_INT(off, 0);
		CHECK(mod == NULL);
		/* a few bytes in still maps to it */
		CHECK_STR(ksyms_lookup(ks, a + 4, &off, NULL), names[i]);
		CHECK_INT(off, 4);
	}
	CHECK(ksyms_addr(ks, "schedule") != 0);
	CHECK(found > 0);
	ksyms_free(ks);
}

UNIT_MAIN()
