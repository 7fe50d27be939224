// SPDX-License-Identifier: GPL-2.0
/*
 * The -p3 listing: each function and probe handler's bytecode, one
 * instruction a line, operands decoded where a name says more than a
 * number (globals, strings, formats, built-ins, jump targets).
 */
#include <stdio.h>
#include <string.h>

#include "lang/backend.h"

static void quoted(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	fmt_quote(&sb, s);
	fputs(fmt_sb_str(&sb), f);
	fmt_sb_release(&sb);
}

static void comment(const struct prog *p, const int32_t *w, FILE *f)
{
	int op = w[0];

	switch (op) {
	case OP_PUSHK:
		fprintf(f, "\t; %lld", (long long)p->consts[w[1]]);
		break;
	case OP_PUSHS:
		fputs("\t; ", f);
		quoted(f, p->strs[w[1]]);
		break;
	case OP_LDG: case OP_LDGS: case OP_STG: case OP_STGS: case OP_CLRG:
	case OP_MGET: case OP_MSET: case OP_MOP: case OP_MIN: case OP_MINW:
	case OP_MDEL: case OP_MDELW: case OP_MCLR: case OP_SADD:
	case OP_MSADD: case OP_SGET: case OP_MSGET: case OP_HPRINT:
	case OP_HBUCKET:
		fprintf(f, "\t; %s", p->globals[w[1]].name);
		break;
	case OP_ITER:
		fprintf(f, "\t; %s", p->globals[w[2]].name);
		break;
	case OP_CALL:
		fprintf(f, "\t; %s()", p->funcs[w[1]].name);
		break;
	case OP_BCALL:
		fprintf(f, "\t; %s()", builtin_table[w[1]].name);
		break;
	case OP_PRINTF: case OP_SPRINTF:
		fputs("\t; ", f);
		quoted(f, p->fmts[w[1]].text);
		break;
	case OP_REGEX:
		fputs("\t; ", f);
		quoted(f, p->regex_src[w[1]]);
		break;
	case OP_TVAR: case OP_TVARI:
		fprintf(f, "\t; %s", p->tvars[w[1]].name);
		break;
	default:
		break;
	}
}

static void listing(const struct prog *p, int entry, int end, FILE *f)
{
	size_t pc = (size_t)entry;

	while (pc < (size_t)end) {
		const int32_t *w = &p->code[pc];
		int op = w[0], i;

		fprintf(f, "  %5zu  %-8s", pc, gen_op_name[op]);
		for (i = 1; i <= gen_op_nops[op]; i++)
			fprintf(f, " %d", w[i]);
		comment(p, w, f);
		fputc('\n', f);
		pc += 1 + (size_t)gen_op_nops[op];
	}
}

void gen_disasm(const struct prog *p, FILE *f)
{
	size_t i;

	fprintf(f, "# bytecode: %zu words, %zu globals, %zu functions, "
		"%zu probes\n", p->ncode, p->nglobals, p->nfuncs, p->nprobes);
	for (i = 0; i < p->nglobals; i++)
		fprintf(f, "# global %zu: %s:%s%s\n", i, p->globals[i].name,
			ast_type_str(p->globals[i].type),
			p->globals[i].nkeys ? " (array)" : "");
	for (i = 0; i < p->nfuncs; i++) {
		const struct prog_func *fn = &p->funcs[i];

		if (!fn->used)
			continue;
		fprintf(f, "function %s (params %d, locals %d, stack %d):\n",
			fn->name, fn->nparams, fn->nlocals, fn->maxstack);
		listing(p, fn->entry, fn->end, f);
	}
	for (i = 0; i < p->nprobes; i++) {
		const struct prog_probe *pr = &p->probes[i];

		fprintf(f, "probe %s (locals %d, stack %d):\n", pr->pp->pp,
			pr->nlocals, pr->maxstack);
		listing(p, pr->entry, pr->end, f);
	}
}
