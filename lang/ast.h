/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_LANG_AST_H
#define TAPKIT_LANG_AST_H

/*
 * The abstract syntax tree of a probe-language script.
 *
 * Ownership: a struct ast_script owns its declarations; a declaration owns
 * its probe points, statements and expressions; a node owns its children
 * and its strings.  Every pointer below is owned by the structure holding
 * it unless its comment says otherwise.  ast_script_free() frees it all;
 * the ast_*_free() helpers free one subtree (NULL is a no-op).
 *
 * Locations: every node has a struct diag_loc (file:line:col of its first
 * token), pointing into the struct diag the source was parsed with, which
 * must outlive the tree.  Operator nodes also keep op_loc, the operator
 * token, for run-time messages ("division by 0 near operator '/' at
 * t.stp:3:10").
 *
 * Later stages annotate in place: every expression has a type (the parser
 * fills it only where the source declares one), and `sym`/`slot` for the
 * symbol a name resolves to; statements and declarations have `aux`.  The
 * parser leaves them 0/NULL and never reads them; ast_*_free() does not
 * free what they point to.
 *
 * What the parser has already done (so later stages need not):
 *   - brace expansion and comma lists of probe points: every struct
 *     ast_pp is a full, concrete point (`syscall.{open,close}` gives two);
 *   - adjacent string literals are concatenated, escapes decoded;
 *   - '-' before an integer literal is folded into it (so
 *     -9223372036854775808 is one AST_E_NUM holding INT64_MIN);
 *   - script arguments, macros and %( %) conditionals are gone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/log.h"	/* xrealloc, for AST_VEC_PUSH */
#include "lang/diag.h"

/* Append @item to a { T **v; size_t n, cap; } vector. */
#define AST_VEC_PUSH(vec, item) do {					\
	if ((vec)->n == (vec)->cap) {					\
		(vec)->cap = (vec)->cap ? 2 * (vec)->cap : 4;		\
		(vec)->v = xrealloc((vec)->v,				\
				    (vec)->cap * sizeof(*(vec)->v));	\
	}								\
	(vec)->v[(vec)->n++] = (item);					\
} while (0)

enum ast_type {
	AST_T_UNKNOWN,		/* not inferred (yet) */
	AST_T_LONG,		/* int64 */
	AST_T_STRING,
	AST_T_STATS,		/* a statistic fed with <<< */
};

/* Operators, by their source spelling (ast_op_str()). */
enum ast_op {
	AST_OP_NONE,
	/* AST_E_BINARY */
	AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_MOD,
	AST_OP_SHL, AST_OP_SHR, AST_OP_BAND, AST_OP_BOR, AST_OP_BXOR,
	/* AST_E_CONCAT */
	AST_OP_CONCAT,
	/* AST_E_COMPARE */
	AST_OP_EQ, AST_OP_NE, AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE,
	/* AST_E_LOGICAL */
	AST_OP_LAND, AST_OP_LOR,
	/* AST_E_REGEX */
	AST_OP_MATCH, AST_OP_NOMATCH,
	/* AST_E_UNARY */
	AST_OP_NEG, AST_OP_PLUS, AST_OP_NOT, AST_OP_BNOT,
	/* AST_E_CREMENT */
	AST_OP_PREINC, AST_OP_PREDEC, AST_OP_POSTINC, AST_OP_POSTDEC,
	/* AST_E_ASSIGN */
	AST_OP_ASSIGN, AST_OP_ADD_ASSIGN, AST_OP_SUB_ASSIGN, AST_OP_MUL_ASSIGN,
	AST_OP_DIV_ASSIGN, AST_OP_MOD_ASSIGN, AST_OP_SHL_ASSIGN,
	AST_OP_SHR_ASSIGN, AST_OP_AND_ASSIGN, AST_OP_XOR_ASSIGN,
	AST_OP_OR_ASSIGN, AST_OP_CONCAT_ASSIGN,
	AST_OP_STAT_ADD,	/* x <<< v */
	AST_OP_COUNT_
};

enum ast_ekind {
	AST_E_NUM,		/* u.num */
	AST_E_STR,		/* u.str */
	AST_E_VAR,		/* u.var: a name (local, global, or $-less) */
	AST_E_INDEX,		/* u.index: base[args]; base VAR or HIST */
	AST_E_STAR,		/* '*' in an index list: a[*, 3] (no fields) */
	AST_E_CALL,		/* u.call: f(args) */
	AST_E_PRINT,		/* u.print: printf and friends */
	AST_E_UNARY,		/* u.unary, op NEG PLUS NOT BNOT */
	AST_E_CREMENT,		/* u.unary, op PRE/POST INC/DEC */
	AST_E_BINARY,		/* u.bin: + - * / % << >> & | ^ */
	AST_E_CONCAT,		/* u.bin: . */
	AST_E_COMPARE,		/* u.bin: == != < <= > >= */
	AST_E_LOGICAL,		/* u.bin: && || */
	AST_E_REGEX,		/* u.bin: =~ !~, right always an AST_E_STR */
	AST_E_ASSIGN,		/* u.bin: = += ... .= <<< */
	AST_E_TERNARY,		/* u.ternary */
	AST_E_IN,		/* u.in: [k1, k2] in a (an AST_E_INDEX inside) */
	AST_E_TARGET,		/* u.target: $var->f[i], $$vars, autocast */
	AST_E_DEFINED,		/* u.unary.operand: @defined(e) */
	AST_E_ENTRY,		/* u.unary.operand: @entry(e) */
	AST_E_PERF,		/* u.str: @perf("name") */
	AST_E_STAT,		/* u.stat: @count(x) ... @variance(x, b) */
	AST_E_HIST,		/* u.hist: @hist_log(x), @hist_linear(x,l,h,s) */
	AST_E_COUNT_
};

enum ast_stat {
	AST_STAT_NONE,
	AST_STAT_COUNT, AST_STAT_SUM, AST_STAT_MIN, AST_STAT_MAX,
	AST_STAT_AVG, AST_STAT_VARIANCE,
};

enum ast_hist { AST_HIST_LOG, AST_HIST_LINEAR };

/* What a print-family call does; AST_PRINT_* flags in u.print.flags. */
enum {
	AST_PRINT_FORMAT = 1 << 0,	/* printf/sprintf: fmt is the format */
	AST_PRINT_DELIM = 1 << 1,	/* printd/printdln: fmt is the delimiter */
	AST_PRINT_NEWLINE = 1 << 2,	/* println/printdln/sprintln... */
	AST_PRINT_TOSTR = 1 << 3,	/* sprint*: returns the text */
};

struct ast_expr;

struct ast_exprs {
	struct ast_expr **v;
	size_t n, cap;
};

/* One step after a target variable: ->name, [expr], or pretty-print $/$$. */
enum ast_tcomp_kind { AST_TC_MEMBER, AST_TC_INDEX, AST_TC_PRETTY };

struct ast_tcomp {
	enum ast_tcomp_kind kind;
	struct diag_loc loc;
	char *name;		/* MEMBER: field name; PRETTY: "$" or "$$" */
	struct ast_expr *index;	/* INDEX */
};

struct ast_expr {
	enum ast_ekind kind;
	enum ast_op op;		/* operator kinds; AST_OP_NONE otherwise */
	struct diag_loc loc;	/* the first token of the expression */
	struct diag_loc op_loc;	/* the operator / the @word / the name */

	/* for later stages; the parser leaves them 0/NULL */
	enum ast_type type;
	int slot;		/* e.g. local or global index */
	void *sym;		/* e.g. the declaration a name resolves to */

	union {
		int64_t num;
		struct {
			char *s;	/* decoded bytes, NUL-terminated */
			size_t len;	/* may be < strlen when s holds NULs */
		} str;
		struct {
			char *name;
		} var;
		struct {
			struct ast_expr *base;	/* AST_E_VAR or AST_E_HIST */
			struct ast_exprs args;	/* may hold AST_E_STAR */
		} index;
		struct {
			char *name;
			struct ast_exprs args;
		} call;
		struct {
			char *name;	/* "printf", "println"... */
			unsigned flags;	/* AST_PRINT_* */
			struct ast_expr *fmt;	/* AST_E_STR or NULL */
			/* for print/println/sprint/sprintln, args.v[0] may
			 * be an AST_E_HIST: print the histogram */
			struct ast_exprs args;
		} print;
		struct {
			struct ast_expr *operand;
		} unary;
		struct {
			struct ast_expr *left, *right;
		} bin;
		struct {
			struct ast_expr *cond, *then, *els;
		} ternary;
		struct {
			struct ast_expr *index;	/* AST_E_INDEX: keys, array */
		} in;
		struct {
			char *name;	/* "$var", "$$vars"; NULL: @cast,
					 * @var, autocast; raw: the call,
					 * "int_arg" */
			struct ast_expr *base;	/* autocast: e.g. @entry(..)->f;
						 * @cast: the pointer */
			bool addressof;		/* &$var */
			struct ast_tcomp *comps;
			size_t ncomps;
			char *cast_type;	/* @cast(base, "type", "mod") */
			int64_t cast_off;	/* set by elab: bytes added to
						 * base (@cast(p - 8, ...)) */
			char *cast_module;	/* and @var(name, "mod") */
			char *global;		/* @var("name@file", "mod") */
			/* set by elab: a raw operand of the provider
			 * (enum prov_raw) from register(), int_arg()... */
			int raw;
			int raw_arg;
			char *raw_reg;		/* register("rax"): "rax" */
			const char *raw_type;	/* static: "s64"... */
			bool typed;	/* resolved by the provider's target():
					 * comps are compiled in, not indexes */
		} target;
		struct {
			enum ast_stat op;
			struct ast_expr *operand;	/* VAR or INDEX */
			int64_t params[1];	/* @variance(x, bshift) */
			size_t nparams;
		} stat;
		struct {
			enum ast_hist kind;
			struct ast_expr *operand;	/* VAR or INDEX */
			int64_t params[3];	/* linear: lo, hi, step */
		} hist;
	} u;
};

enum ast_skind {
	AST_S_BLOCK,		/* u.block: { stmts } */
	AST_S_NULL,		/* ; */
	AST_S_EXPR,		/* u.expr */
	AST_S_IF,		/* u.if_ */
	AST_S_WHILE,		/* u.loop, only cond and body */
	AST_S_FOR,		/* u.loop; init/cond/incr may be NULL */
	AST_S_FOREACH,		/* u.foreach */
	AST_S_BREAK,
	AST_S_CONTINUE,
	AST_S_NEXT,
	AST_S_RETURN,		/* u.expr, NULL for a bare return */
	AST_S_DELETE,		/* u.expr: a[k], a, a[*, k], x */
	AST_S_TRY,		/* u.try_ */
	AST_S_COUNT_
};

struct ast_stmt;

struct ast_stmts {
	struct ast_stmt **v;
	size_t n, cap;
};

struct ast_stmt {
	enum ast_skind kind;
	struct diag_loc loc;	/* the first token */
	void *aux;		/* for later stages */
	union {
		struct ast_stmts block;
		struct ast_expr *expr;
		struct {
			struct ast_expr *cond;
			struct ast_stmt *then, *els;	/* els may be NULL */
		} if_;
		struct {
			/* for (init; cond; incr) body -- NULL cond: true */
			struct ast_expr *init, *cond, *incr;
			struct ast_stmt *body;
		} loop;
		struct {
			struct ast_expr *value;	/* v in foreach (v = k in a) */
			struct ast_exprs keys;	/* AST_E_VAR each */
			struct ast_expr *array;	/* AST_E_VAR or AST_E_HIST */
			struct ast_exprs slice;	/* a[*, 3]: may hold STAR */
			int sort_dir;	/* 0 none, +1 ascending, -1 descending */
			int sort_col;	/* 0: value, k: the k-th key (1-based) */
			enum ast_stat sort_aggr;	/* in a @sum+ ... */
			struct ast_expr *limit;	/* may be NULL */
			struct ast_stmt *body;
		} foreach;
		struct {
			struct ast_stmt *body;
			char *var;	/* catch (var); NULL when absent */
			struct diag_loc var_loc;
			struct ast_stmt *handler;
		} try_;
	} u;
};

/* A probe point component: name ("function", "open*", "*") and argument. */
struct ast_ppcomp {
	char *name;
	struct ast_expr *arg;	/* AST_E_NUM, AST_E_STR or NULL */
	struct diag_loc loc;
};

/* One concrete probe point: kernel.function("f").return? if (c) */
struct ast_pp {
	struct diag_loc loc;
	struct ast_ppcomp *comps;
	size_t ncomps;
	bool optional;		/* '?' or '!' */
	bool sufficient;	/* '!' */
	struct ast_expr *cond;	/* if (cond), or NULL */
};

struct ast_pps {
	struct ast_pp **v;
	size_t n, cap;
};

/* probe PP, PP... { body } */
struct ast_probe {
	struct diag_loc loc;	/* the 'probe' keyword */
	struct ast_pps pps;
	struct ast_stmt *body;	/* AST_S_BLOCK */
	bool library;		/* from a tapset file */
	void *aux;
};

/*
 * probe NAME = PP, PP { prologue }     (epilogue false)
 * probe NAME += PP, PP { epilogue }    (epilogue true)
 * probe NAME = PP { prologue }, { epilogue }   (body and body2)
 * probe N1 = N2 = PP { }               (several names)
 */
struct ast_alias {
	struct diag_loc loc;
	struct ast_pps names;	/* each a point without '?'/cond */
	struct ast_pps pps;
	bool epilogue;
	struct ast_stmt *body;
	struct ast_stmt *body2;	/* the epilogue of the combined form */
	bool library;
	void *aux;
};

/* global NAME[%][[SIZE]] [= literal] */
struct ast_global {
	struct diag_loc loc;	/* the name */
	char *name;
	bool private_;		/* private global: file scope */
	bool wrap;		/* NAME%: a full array wraps around */
	int64_t maxsize;	/* [SIZE], 0 when not given */
	bool array;		/* declared with [SIZE] */
	struct ast_expr *init;	/* AST_E_NUM / AST_E_STR, or NULL */
	enum ast_type type;	/* from init; later stages complete it */
	bool library;
	void *aux;
};

struct ast_param {
	char *name;
	enum ast_type type;	/* AST_T_UNKNOWN unless declared (a:long) */
	struct diag_loc loc;
};

/* function NAME[:type] (params) [:priority] { body } */
struct ast_func {
	struct diag_loc loc;	/* the name */
	char *name;
	enum ast_type type;	/* declared return type or AST_T_UNKNOWN */
	struct ast_param *params;
	size_t nparams;
	bool private_;
	int64_t priority;	/* ": N" after the parameters, 0 if none */
	struct ast_stmt *body;	/* AST_S_BLOCK */
	bool library;
	void *aux;
};

/* A source file parsed into a script. */
struct ast_file {
	const struct diag_file *src;	/* owned by the struct diag */
	bool library;		/* a tapset, not the user's script */
};

/*
 * Everything parsed so far: the user's script and any tapsets parsed into
 * the same object (parse_file(..., PARSE_LIBRARY)).  Declarations keep
 * the order of the sources and of their appearance.
 */
struct ast_script {
	struct { struct ast_file **v; size_t n, cap; } files;
	struct { struct ast_probe **v; size_t n, cap; } probes;
	struct { struct ast_alias **v; size_t n, cap; } aliases;
	struct { struct ast_global **v; size_t n, cap; } globals;
	struct { struct ast_func **v; size_t n, cap; } funcs;
};

/* Constructors: zeroed nodes at @loc (op_loc = loc); the caller owns them. */
struct ast_script *ast_script_new(void);
struct ast_expr *ast_expr_new(enum ast_ekind kind, struct diag_loc loc);
struct ast_stmt *ast_stmt_new(enum ast_skind kind, struct diag_loc loc);
struct ast_expr *ast_num(struct diag_loc loc, int64_t v);
/* A string node holding a copy of @len bytes of @s. */
struct ast_expr *ast_str(struct diag_loc loc, const char *s, size_t len);
/* A name node (AST_E_VAR) holding a copy of @name. */
struct ast_expr *ast_var(struct diag_loc loc, const char *name);
/* An operator node of @kind (BINARY ... ASSIGN) taking @l and @r. */
struct ast_expr *ast_binary(enum ast_ekind kind, enum ast_op op,
			    struct diag_loc op_loc, struct ast_expr *l,
			    struct ast_expr *r);

/* Destructors for a subtree; NULL is a no-op. */
void ast_expr_free(struct ast_expr *e);
void ast_stmt_free(struct ast_stmt *s);
void ast_pp_free(struct ast_pp *pp);
void ast_probe_free(struct ast_probe *p);
void ast_alias_free(struct ast_alias *a);
void ast_global_free(struct ast_global *g);
void ast_func_free(struct ast_func *f);
void ast_script_free(struct ast_script *s);

/*
 * Deep copies (the caller owns the result), e.g. for probe alias bodies
 * spliced into each use.  The annotation slots are copied as they are.
 */
struct ast_expr *ast_expr_clone(const struct ast_expr *e);
struct ast_stmt *ast_stmt_clone(const struct ast_stmt *s);
struct ast_pp *ast_pp_clone(const struct ast_pp *pp);

/*
 * The children of one node (lang/walk.c, the only place that knows each
 * kind's layout): @fn is called on the slot of every non-NULL direct
 * child, in source order, and may replace the child through it.  A
 * return < 0 stops and is returned; otherwise 0.  Statements have
 * expression children (@efn) and statement children (@sfn).
 */
typedef int (*ast_expr_slot_fn)(struct ast_expr **slot, void *ctx);
typedef int (*ast_stmt_slot_fn)(struct ast_stmt **slot, void *ctx);

int ast_expr_children(struct ast_expr *e, ast_expr_slot_fn fn, void *ctx);
int ast_stmt_children(struct ast_stmt *s, ast_expr_slot_fn efn,
		      ast_stmt_slot_fn sfn, void *ctx);

/*
 * A walk over a tree (lang/walk.c), the traversal every pass uses.
 * @expr/@stmt are called before the children (return 0 to go on, 1 to
 * skip the children and the post call, <0 to stop the walk and return
 * that value); @expr_post/@stmt_post after them (0 or <0).  Any callback
 * may be NULL.  Children are visited in source order, as
 * ast_expr_children() gives them: the index and slice lists of foreach,
 * the components of target variables, a print's format and the arguments
 * of probe points are visited too.  A callback that needs its children
 * in another order, or only some of them, walks them itself with
 * ast_walk_expr()/ast_walk_stmt() and returns 1.
 */
struct ast_visitor {
	int (*expr)(struct ast_expr *e, void *ctx);
	int (*expr_post)(struct ast_expr *e, void *ctx);
	int (*stmt)(struct ast_stmt *s, void *ctx);
	int (*stmt_post)(struct ast_stmt *s, void *ctx);
	void *ctx;
};

int ast_walk_expr(struct ast_expr *e, const struct ast_visitor *v);
int ast_walk_stmt(struct ast_stmt *s, const struct ast_visitor *v);
/* Probe points, probe and alias bodies, global initializers, functions. */
int ast_walk_script(struct ast_script *s, const struct ast_visitor *v);

/* "+", "<<=", "++" (both pre and post)...; "" for AST_OP_NONE. */
const char *ast_op_str(enum ast_op op);
/* "long", "string", "stats", "unknown" */
const char *ast_type_str(enum ast_type t);
/* "count", "sum"... as after the '@' */
const char *ast_stat_str(enum ast_stat s);
/* "AST_E_NUM" ... for debugging */
const char *ast_ekind_str(enum ast_ekind k);

/*
 * The -p1 dump: "# parse tree dump", then for each non-library file
 * "# file NAME" and its globals, functions, aliases and probes, as
 * normalized stap source that parses back to the same tree: one
 * statement per line, two-space indentation, every operator expression
 * below the top of a statement in parentheses: x = ((a + b) * c);
 */
void ast_print(FILE *f, const struct ast_script *s);
/* One expression (no outer parentheses), statement, or probe point. */
void ast_print_expr(FILE *f, const struct ast_expr *e);
void ast_print_stmt(FILE *f, const struct ast_stmt *s, int indent);
void ast_print_pp(FILE *f, const struct ast_pp *pp);

#endif
