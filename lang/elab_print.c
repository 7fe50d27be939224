// SPDX-License-Identifier: GPL-2.0
/*
 * -p2: the elaborated script for people, as stap's pass 2 listing:
 * globals, functions and probes with their types, locals and the
 * mechanism each probe was given.
 */
#include <stdio.h>

#include "lang/elab.h"

static void print_sym_type(FILE *f, const struct elab_sym *s)
{
	int i;

	fprintf(f, "%s:%s", s->name, ast_type_str(s->type));
	if (s->nkeys > 0) {
		fputs(" [", f);
		for (i = 0; i < s->nkeys; i++)
			fprintf(f, "%s%s", i ? ", " : "", ast_type_str(s->keys[i]));
		fputc(']', f);
	}
}

void elab_print(const struct elab *e, FILE *f)
{
	size_t i, j;

	fputs("# global variables\n", f);
	for (i = 0; i < e->globals.n; i++) {
		if (!e->globals.v[i]->used)
			continue;
		print_sym_type(f, e->globals.v[i]);
		fputc('\n', f);
	}
	fputs("# functions\n", f);
	for (i = 0; i < e->funcs.n; i++) {
		const struct elab_func *fn = e->funcs.v[i];

		if (!fn->used)
			continue;
		fprintf(f, "%s:%s (", fn->decl->name, ast_type_str(fn->type));
		for (j = 0; j < fn->nparams; j++) {
			fputs(j ? ", " : "", f);
			print_sym_type(f, fn->locals[j]);
		}
		fputs(")\n", f);
		if (fn->nlocals > fn->nparams) {
			fputs("  # locals\n", f);
			for (j = fn->nparams; j < fn->nlocals; j++) {
				fputs("  ", f);
				print_sym_type(f, fn->locals[j]);
				fputc('\n', f);
			}
		}
	}
	fputs("# probes\n", f);
	for (i = 0; i < e->probes.n; i++) {
		const struct elab_probe *p = e->probes.v[i];

		if (p->synthetic)
			continue;
		fprintf(f, "%s /* <- ", p->pp->pp);
		for (j = 0; j < p->src->pps.n; j++) {
			fputs(j ? ", " : "", f);
			ast_print_pp(f, p->src->pps.v[j]);
		}
		fputs(" */\n", f);
		if (p->pp->prov->describe) {
			fputs("  # mechanism: ", f);
			p->pp->prov->describe(p->pp, false, f);
			fputc('\n', f);
		}
		if (p->pp->scope != PROV_SCOPE_ALL)
			fprintf(f, "  # condition on target() in the kernel: only its %s%s\n",
				p->pp->scope == PROV_SCOPE_TARGET_THREAD ? "thread" :
				"process", p->cond_dropped ? " (applied)" :
				"; the rest stays in the handler");
		if (p->cond_filter)
			fprintf(f, "  # condition as a kernel filter: %s (%s)\n",
				p->cond_filter, p->cond_dropped ? "applied" :
				"declined");
		if (p->nlocals) {
			fputs("  # locals\n", f);
			for (j = 0; j < p->nlocals; j++) {
				fputs("  ", f);
				print_sym_type(f, p->locals[j]);
				fputc('\n', f);
			}
		}
	}
}
