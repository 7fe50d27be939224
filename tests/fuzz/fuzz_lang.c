// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the language front end: the input is a script, taken through the
 * preprocessor and the lexer, the parser, the elaborator and the code
 * generator, as tapkit -p3 takes it.  The elaborator has the tapsets of
 * scripts/tapset (read when a point is unknown, as at run time) and the
 * probe families that need no kernel (begin, end, error, never, timers):
 * every other point is an error, and errors are the normal result.  A
 * crash, a hang or a sanitizer report is the bug.
 */
#include <stdlib.h>
#include <string.h>

#include "lang/ast.h"
#include "lang/diag.h"
#include "lang/elab.h"
#include "lang/gen.h"
#include "lang/parse.h"
#include "prov/prov.h"
#include "tests/fuzz/fuzz.h"

FUZZ_TARGET(lang)
{
	static const char *const dirs[] = { "scripts/tapset", NULL };
	static const struct provider *const providers[] = { &prov_basic, NULL };
	static const char *const argv[] = { "1", "two", "" };
	const struct lex_config lc = {
		.argv = argv, .argc = 3, .kernel_vr = "6.1.0-18-amd64",
		.arch = "x86_64",
	};
	const struct elab_opts eo = {
		.tapset_dirs = dirs, .lex = &lc, .providers = providers,
		.no_display = true,
	};
	const struct gen_opts go = { .maxstrlen = 512, .maxmapentries = 2048 };
	struct diag *d = diag_new();
	struct ast_script *s = ast_script_new();
	struct elab *e = NULL;

	diag_set_limit(d, 20);
	parse_text(s, d, "<fuzz>", (const char *)data, size, &lc, 0);
	if (!diag_errors(d)) {
		e = elab_new(s, d, &eo);
		if (!diag_errors(d))
			gen_free(gen_program(e, &go, d));
		elab_free(e);
	}
	ast_script_free(s);
	diag_free(d);
	return 0;
}
