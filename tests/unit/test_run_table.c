// SPDX-License-Identifier: GPL-2.0
/*
 * A script's global arrays as tables (lang/run_table.c): scripts whose
 * begin probes fill arrays are compiled and run (no tracing: begin probes
 * only), then their arrays are listed, titled, filled into tables,
 * drilled and switched, and the cells compared with what the script put.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/agtable.h"
#include "common/log.h"
#include "common/loop.h"
#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/elab.h"
#include "lang/gen.h"
#include "lang/parse.h"
#include "lang/run.h"
#include "prov/prov.h"
#include "tests/unit/unit.h"

struct script {
	struct diag *d;
	struct ast_script *s;
	struct elab *e;
	struct prog *prog;
	struct run_opts ro;
	struct run *r;
	struct loop *l;
	struct lex_config lc;
	struct elab_opts eo;
};

static const struct provider *const basic_only[] = { &prov_basic, NULL };

/* Compile @text and run its begin probes; NULL after printing why. */
static struct script *run_script(const char *text)
{
	static const char *const no_dirs[] = { NULL };
	struct script *sc = xcalloc(1, sizeof(*sc));
	struct gen_opts go = { .maxstrlen = 512, .maxmapentries = 2048 };

	sc->d = diag_new();
	sc->s = ast_script_new();
	sc->eo = (struct elab_opts){ .tapset_dirs = no_dirs, .lex = &sc->lc,
				     .providers = basic_only };
	if (parse_text(sc->s, sc->d, "t.stp", text, strlen(text), &sc->lc, 0) == 0)
		sc->e = elab_new(sc->s, sc->d, &sc->eo);
	if (!diag_errors(sc->d))
		sc->prog = gen_program(sc->e, &go, sc->d);
	if (!sc->prog) {
		diag_print(sc->d, stdout);
		return NULL;
	}
	/* what the begin probes print is not TAP */
	sc->ro = (struct run_opts){ .out = fopen("/dev/null", "w"),
				    .providers = basic_only };
	sc->r = run_new(sc->prog, &sc->ro);
	sc->l = loop_new();
	if (!sc->r || run_attach(sc->r, sc->l) < 0 || run_begin(sc->r) < 0)
		return NULL;
	return sc;
}

static void script_free(struct script *sc)
{
	if (!sc)
		return;
	run_finish(sc->r);
	run_free(sc->r);
	if (sc->ro.out)
		fclose(sc->ro.out);
	loop_free(sc->l);
	gen_free(sc->prog);
	elab_free(sc->e);
	ast_script_free(sc->s);
	diag_free(sc->d);
	free(sc);
}

/* The rows of @t sorted by column @sort, each as "cell|cell|...". */
static char *dump(struct agtable *t, int sort)
{
	struct agt_view_opts vo = { .mode = AGT_CUMULATIVE, .sort_col = sort };
	struct agt_row **rows;
	size_t i, n = agt_rows(t, &vo, &rows);
	static char out[2048];
	char cell[300];
	int c;

	out[0] = '\0';
	for (i = 0; i < n; i++) {
		for (c = 0; c < agt_ncols(t); c++) {
			strcat(out, agt_cell(t, rows[i], c, AGT_CUMULATIVE, cell,
					     sizeof(cell)));
			strcat(out, c + 1 < agt_ncols(t) ? "|" : "\n");
		}
	}
	return out;
}

static char *titles(struct agtable *t)
{
	static char out[256];
	int c;

	out[0] = '\0';
	for (c = 0; c < agt_ncols(t); c++) {
		strcat(out, agt_col(t, c)->title);
		if (c + 1 < agt_ncols(t))
			strcat(out, " ");
	}
	return out;
}

static const char counts[] =
	"global c, total, s, names\n"
	"probe begin {\n"
	"	k = \"read\"\n"
	"	for (i = 0; i < 5; i++) c[execname(), k]++\n"
	"	c[\"sshd\", k] = 7\n"
	"	c[\"bash\", \"write\"] = 2\n"
	"	total = 14\n"
	"	for (i = 1; i <= 100; i++) s[\"lat\"] <<< i\n"
	"	s[\"one\"] <<< -3\n"
	"	names[1, 2] = \"one-two\"\n"
	"	print(@hist_log(s[\"lat\"]))\n"
	"}\n";

UNIT_TEST(lists_the_arrays_with_key_titles)
{
	struct script *sc = run_script(counts);
	struct run_array a[8];
	char buf[128];

	CHECK(sc != NULL);
	if (!sc)
		return;
	/* total is a scalar: no view */
	CHECK_INT(run_arrays(sc->prog, sc->e, a, 8), 3);
	CHECK_STR(a[0].name, "c");
	CHECK_INT(a[0].nkeys, 2);
	CHECK_INT(a[0].value, RUN_ARRAY_LONG);
	/* execname() at one write, "sshd" at another: no one name */
	CHECK_STR(a[0].key_title[0], "KEY1");
	CHECK_STR(a[0].key_title[1], "KEY2");
	CHECK_STR(a[1].name, "s");
	CHECK_INT(a[1].value, RUN_ARRAY_STAT);
	CHECK(a[1].hist);
	CHECK_STR(a[2].name, "names");
	CHECK_INT(a[2].value, RUN_ARRAY_STRING);
	CHECK(!a[2].key_str[0]);
	CHECK_STR(run_array_desc(&a[1], buf, sizeof(buf)),
		  "s[KEY1]: statistic with a histogram");
	/* without the elaboration: the same arrays, titled KEYn */
	CHECK_INT(run_arrays(sc->prog, NULL, NULL, 0), 3);
	script_free(sc);
}

UNIT_TEST(titles_keys_by_the_written_expression)
{
	struct script *sc = run_script(
		"global c, d, e\n"
		"probe begin { name = \"x\"; c[execname(), name]++; c[execname(), name] += 2\n"
		"  d[pid()] = 1; d[3] = 2\n"
		"  count = 1; e[count] = 1 }\n");
	struct run_array a[4];
	char buf[128];

	CHECK(sc != NULL);
	if (!sc)
		return;
	CHECK_INT(run_arrays(sc->prog, sc->e, a, 4), 3);
	CHECK_STR(run_array_desc(&a[0], buf, sizeof(buf)),
		  "c[EXECNAME, NAME]: long");
	/* pid() at one write, a number at the other */
	CHECK_STR(a[1].key_title[0], "KEY1");
	/* a key called as a value column is would be ambiguous */
	CHECK_STR(a[2].key_title[0], "KEY1");
	script_free(sc);
}

UNIT_TEST(fills_long_statistic_and_string_arrays)
{
	struct script *sc = run_script(counts);
	struct run_array a[3];
	struct agt_col cols[AGT_MAX_COLS];
	struct agtable *t;
	char want[256];
	int n;

	CHECK(sc != NULL);
	if (!sc)
		return;
	run_arrays(sc->prog, sc->e, a, 3);

	n = run_array_cols(&a[0], 0, cols);
	CHECK_INT(n, 3);
	t = agt_new(cols, n);
	CHECK_INT(run_array_fill(sc->r, &a[0], 0, NULL, t), 3);
	agt_tick(t, 1000000000);
	CHECK_STR(titles(t), "KEY1 KEY2 VALUE");
	CHECK_INT(run_array_sort_col(&a[0], 0), 2);
	snprintf(want, sizeof(want), "sshd|read|7\n%s|read|5\nbash|write|2\n",
		 program_invocation_short_name);
	CHECK_STR(dump(t, 2), want);
	agt_free(t);

	/* a statistic with @hist_log: its percentiles from the buckets */
	n = run_array_cols(&a[1], 0, cols);
	CHECK_INT(n, 8);
	t = agt_new(cols, n);
	CHECK_INT(run_array_fill(sc->r, &a[1], 0, NULL, t), 2);
	agt_tick(t, 1000000000);
	CHECK_STR(titles(t), "KEY1 COUNT SUM MIN MAX AVG P50 P99");
	CHECK_STR(dump(t, 1), "lat|100|5050|1|100|50|50|100\n"
			      "one|1|-3|-3|-3|-3|-3|-3\n");
	agt_free(t);

	/* long keys, a string value */
	n = run_array_cols(&a[2], 0, cols);
	t = agt_new(cols, n);
	CHECK_INT(run_array_fill(sc->r, &a[2], 0, NULL, t), 1);
	agt_tick(t, 1000000000);
	CHECK_STR(titles(t), "KEY1 KEY2 VALUE");
	CHECK_STR(dump(t, 0), "1|2|one-two\n");
	agt_free(t);
	CHECK_INT(run_array_cols(&a[2], 2, cols), -EINVAL);
	script_free(sc);
}

/* The row of @v's table whose first column reads @key. */
static struct agt_row *row_of(struct run_view *v, const char *key)
{
	struct agt_view_opts vo = { .mode = AGT_CUMULATIVE };
	struct agtable *t = run_view_table(v);
	struct agt_row **rows;
	size_t i, n = agt_rows(t, &vo, &rows);
	char cell[300];

	for (i = 0; i < n; i++)
		if (!strcmp(agt_cell(t, rows[i], 0, AGT_CUMULATIVE, cell,
				     sizeof(cell)), key))
			return rows[i];
	return NULL;
}

UNIT_TEST(view_drills_switches_and_goes_back)
{
	struct script *sc = run_script(counts);
	struct run_view *v;
	char err[256], path[128];

	CHECK(sc != NULL);
	if (!sc)
		return;
	CHECK(!run_view_new(sc->r, sc->e, "nosuch", err, sizeof(err)));
	CHECK_INT(errno, ENOENT);
	CHECK_STR(err, "no global array 'nosuch' in the script");
	v = run_view_new(sc->r, sc->e, NULL, err, sizeof(err));
	CHECK(v != NULL);
	if (!v) {
		script_free(sc);
		return;
	}
	CHECK_INT(run_view_count(v), 3);
	CHECK_STR(run_view_path(v, path, sizeof(path)), "c");
	CHECK_INT(run_view_back(v, err, sizeof(err)), -ENOENT);

	/* Enter on bash: its second keys */
	CHECK_INT(run_view_drill(v, row_of(v, "bash"), err, sizeof(err)), 0);
	CHECK_STR(run_view_path(v, path, sizeof(path)), "c > KEY1=bash");
	CHECK_STR(titles(run_view_table(v)), "KEY2 VALUE");
	CHECK_INT(run_view_sort_col(v), 1);
	CHECK_STR(dump(run_view_table(v), 1), "write|2\n");
	/* one key left: nothing to drill into */
	CHECK_INT(run_view_drill(v, row_of(v, "write"), err, sizeof(err)), -ENOENT);
	run_view_tick(v, 1000000000);
	CHECK_STR(dump(run_view_table(v), 1), "write|2\n");
	CHECK_INT(run_view_back(v, err, sizeof(err)), 0);
	CHECK_STR(run_view_path(v, path, sizeof(path)), "c");
	CHECK_STR(titles(run_view_table(v)), "KEY1 KEY2 VALUE");

	/* another array, undrilled */
	CHECK_INT(run_view_drill(v, row_of(v, "sshd"), err, sizeof(err)), 0);
	CHECK_INT(run_view_open(v, "s", err, sizeof(err)), 0);
	CHECK_STR(run_view_path(v, path, sizeof(path)), "s");
	CHECK_INT(run_view_sort_col(v), 1);
	CHECK_INT(run_view_open(v, "total", err, sizeof(err)), -ENOENT);
	CHECK_STR(run_view_path(v, path, sizeof(path)), "s");
	/* long keys drill by number */
	CHECK_INT(run_view_open(v, "names", err, sizeof(err)), 0);
	CHECK_INT(run_view_drill(v, row_of(v, "1"), err, sizeof(err)), 0);
	CHECK_STR(run_view_path(v, path, sizeof(path)), "names > KEY1=1");
	CHECK_STR(dump(run_view_table(v), 0), "2|one-two\n");
	run_view_free(v);
	script_free(sc);
}

UNIT_TEST(a_refill_shows_deletions_and_new_values)
{
	struct script *sc = run_script(
		"global c\n"
		"probe begin { c[\"a\"] = 1; c[\"b\"] = 2 }\n"
		"probe end { delete c[\"a\"]; c[\"b\"] = 5 }\n");
	struct run_view *v;
	char err[256];

	CHECK(sc != NULL);
	if (!sc)
		return;
	v = run_view_new(sc->r, sc->e, "c", err, sizeof(err));
	CHECK(v != NULL);
	if (v) {
		CHECK_STR(dump(run_view_table(v), 1), "b|2\na|1\n");
		run_end(sc->r);		/* the end probe changes the array */
		run_view_tick(v, 500000000);
		CHECK_STR(dump(run_view_table(v), 1), "b|5\n");
		/* the begin and end probes ran between the ticks */
		CHECK(run_view_events(v, NULL) >= 1);
	}
	run_view_free(v);
	script_free(sc);
}

UNIT_TEST(checks_a_view_before_the_run)
{
	struct script *sc = run_script(counts);
	char err[256];
	int col = 7;

	CHECK(sc != NULL);
	if (!sc)
		return;
	CHECK_INT(run_view_check(sc->prog, sc->e, NULL, 1, NULL, &col, err,
				 sizeof(err)), 0);
	CHECK_INT(col, -1);
	CHECK_INT(run_view_check(sc->prog, sc->e, "s", 0, "p99", &col, err,
				 sizeof(err)), 0);
	CHECK_INT(col, 7);
	/* drilled once: KEY2 VALUE */
	CHECK_INT(run_view_check(sc->prog, sc->e, "c", 1, "value", &col, err,
				 sizeof(err)), 0);
	CHECK_INT(col, 1);
	CHECK_INT(run_view_check(sc->prog, sc->e, "c", 2, NULL, &col, err,
				 sizeof(err)), -EINVAL);
	CHECK_STR(err, "'c' has 2 keys: 1 to drill by at most");
	CHECK_INT(run_view_check(sc->prog, sc->e, "total", 0, NULL, &col, err,
				 sizeof(err)), -ENOENT);
	CHECK_STR(err, "no global array 'total' in the script");
	CHECK_INT(run_view_check(sc->prog, sc->e, "names", 0, "count", &col,
				 err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "no column 'count' in 'names' (KEY1 KEY2 VALUE)");
	script_free(sc);
}

UNIT_TEST(no_arrays_no_view)
{
	struct script *sc = run_script("global n\nprobe begin { n = 1 }\n");
	char err[256];
	int col;

	CHECK(sc != NULL);
	if (!sc)
		return;
	CHECK_INT(run_arrays(sc->prog, sc->e, NULL, 0), 0);
	CHECK_INT(run_view_check(sc->prog, sc->e, NULL, 0, NULL, &col, err,
				 sizeof(err)), -ENOENT);
	CHECK_STR(err, "the script has no global arrays to show");
	CHECK(!run_view_new(sc->r, sc->e, NULL, err, sizeof(err)));
	CHECK_INT(errno, ENOENT);
	CHECK_STR(err, "the script has no global arrays");
	script_free(sc);
}

UNIT_MAIN()
