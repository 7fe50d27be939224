/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_GEN_H
#define TAPKIT_LANG_GEN_H

/*
 * Code generation: elaborated probes and functions (lang/elab.h) to the
 * bytecode of lang/opcodes.h, a stack machine.  Why a stack machine: code
 * generation stays a plain post-order walk, every value slot has a fixed
 * string buffer next to it (strings never allocate at run time), and the
 * hot shapes (`c[execname()]++` is BCALL, MOP) are a handful of opcodes
 * anyway; superinstructions (INCL) cover the loops.
 *
 * The program is self-contained: it copies what the VM needs from the
 * AST (constants, formats, regexes, locations as text), but keeps pointers
 * to the providers' probes, which the struct elab owns.
 */
#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lang/elab.h"
#include "lang/fmt.h"
#include "lang/map.h"
#include "lang/stat.h"

enum gen_op {
#define OP(name, nops, doc) OP_##name,
#include "lang/opcodes.h"
#undef OP
	OP_COUNT_
};

/* MOP operators and flags */
enum { MOP_ADD, MOP_SUB, MOP_MUL, MOP_DIV, MOP_MOD, MOP_SHL, MOP_SHR,
       MOP_AND, MOP_OR, MOP_XOR, MOP_CAT };
enum { MOP_KEEP = 1, MOP_POST = 2 };
/* HPRINT/HBUCKET flags */
enum { HIST_KEYED = 1, HIST_TOSTR = 2 };
/* ITER flags */
enum { ITER_LIMIT = 1, ITER_SLICE = 2 };

/* Operand count of each opcode, and its name ("PUSHI"). */
extern const int gen_op_nops[OP_COUNT_];
extern const char *const gen_op_name[OP_COUNT_];

struct prog_global {
	char *name;
	enum ast_type type;		/* value type */
	int nkeys;			/* 0: scalar */
	struct map_cfg mcfg;		/* arrays */
	struct stat_cfg scfg;		/* statistics */
	bool sized;			/* `global a[N]`: N in overflow errors */
	bool has_init;
	int64_t init_l;
	char *init_s;
};

struct prog_func {
	char *name;
	int entry, end;			/* word offsets */
	bool used;			/* reachable: has code */
	int nparams, nlocals;		/* frame: params first */
	int maxstack;			/* operand stack depth */
	enum ast_type ret;
};

struct prog_probe {
	struct prov_probe *pp;		/* owned by the struct elab */
	int entry, end;
	int nlocals, maxstack;
	bool synthetic;
};

/* A run-time error location: "operator '/' at t.stp:3:10". */
struct prog_loc {
	char *near;
};

struct prog_fmt {
	char *text;			/* the format (specs point into it) */
	struct fmt_spec *specs;
	int nspecs;
	int nargs;			/* argument slots ('*' included) */
	enum fmt_type types[FMT_MAX_ARGS];
};

struct prog_iter {
	int global;
	struct map_sort sort;
	int slice_mask;			/* bit i: column i fixed by the slice */
};

struct prog_tvar {
	int idx;			/* the provider's */
	char *name;
	enum ast_type type;
};

struct prog {
	int32_t *code;
	size_t ncode, capcode;
	int64_t *consts;
	size_t nconsts;
	char **strs;
	size_t nstrs;
	struct prog_loc *locs;
	size_t nlocs;
	struct prog_fmt *fmts;
	size_t nfmts;
	regex_t *regexes;
	char **regex_src;
	size_t nregexes;
	struct prog_iter *iters;
	size_t niters;
	struct prog_tvar *tvars;
	size_t ntvars;
	struct prog_global *globals;
	size_t nglobals;
	struct prog_func *funcs;
	size_t nfuncs;
	struct prog_probe *probes;
	size_t nprobes;
	int maxframe;			/* most slots one frame needs */
	size_t maxstrlen;		/* MAXSTRINGLEN used for sizes */
};

struct gen_opts {
	size_t maxstrlen;		/* MAXSTRINGLEN (512) */
	size_t maxmapentries;		/* MAXMAPENTRIES (2048) */
	int hist_width, hist_elision;	/* -D HIST_WIDTH, HIST_ELISION */
};

/**
 * gen_program() - compile an elaborated script
 * @e: the result of elab_new() without errors
 * @opts: limits that shape the program (array sizes, string length)
 * @d: receives errors found this late (bad regex, histogram ranges)
 *
 * Return: the program (free with gen_free()), or NULL after errors.
 */
struct prog *gen_program(const struct elab *e, const struct gen_opts *opts,
			 struct diag *d);
void gen_free(struct prog *p);

/* -p3: every probe's and function's code, with the opcode table's names. */
void gen_disasm(const struct prog *p, FILE *f);

#endif
