/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_DWTYPE_INT_H
#define TAPKIT_DWTYPE_INT_H

/*
 * What dwtype.c (finding variables, walking paths) and dwtype_print.c
 * (C type names, $x$ / $x$$ templates) share.  Private to the two.
 */
#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/dwinfo.h"
#include "common/tpath.h"

/* An object reached by a path: where it is and its type. */
struct dwobj {
	struct tplace pl;	/* its place (tpath.h); "@+" for a global */
	Dwarf_Die type;		/* unpeeled; meaningless when is_void */
	bool is_void;
	int dim;		/* array dimensions already indexed */
	int bits;		/* a bitfield: its width, else 0 */
	int bitoff;		/* its first bit in the container at pl.off */
	int bitcont;		/* the container's size in bytes */
};

/* The walk's state: for messages and for the address of a global. */
struct dwwalk {
	struct dwinfo *dw;
	bool have_pc;		/* @pc is where the probe fires */
	uint64_t pc;		/* link-time */
	char *what;		/* the expression so far ("n->next[1]") */
	char *root;		/* a C identifier naming the fetch args */
	char *err;
	size_t errlen;
};

/* @t with typedefs and qualifiers peeled, false for void. */
bool dwt_peel(Dwarf_Die *t, Dwarf_Die *out);
/* DW_AT_type of @die into @out, false when it has none (void). */
bool dwt_type_of(Dwarf_Die *die, Dwarf_Die *out);
/* A one-byte character base type? */
bool dwt_is_char(Dwarf_Die *peeled);
/* DW_ATE_* of a base type (or of an enum's underlying type), -1 unknown. */
int dwt_encoding(Dwarf_Die *peeled);
/* Byte size of type @t (arrays included), -1 unknown. */
int64_t dwt_size(Dwarf_Die *t);
/* The counts of array type @arr's dimensions (-1: unknown) into @dims
 * (up to @max); returns how many it has. */
int dwt_dims(Dwarf_Die *arr, int64_t *dims, int max);

/*
 * dwt_name() - the C spelling of type @t ("struct node *", "const char *",
 * "int [4]", "int (*)(int)"); NULL @t is void.  @skip_dims array
 * dimensions of @t are left out (a partly indexed array).  Caller frees.
 */
char *dwt_name(Dwarf_Die *t, int skip_dims);
/* @t declaring @inner ("*": the type of a pointer to @t, "int (*)[4]"). */
char *dwt_name_decl(Dwarf_Die *t, const char *inner, int skip_dims);
/* The type name of @o as dwt_name() spells it. */
char *dwt_obj_name(struct dwobj *o);

/* The number of fetch args a pretty-printed value may use. */
#define DWT_PRETTY_MAX	32

/*
 * dwt_pretty() - @o printed as $x$ (@level 1) or $x$$ (2) into @out
 * (TVAL_PRETTY).  0, or -errno with the reason in w->err.
 */
int dwt_pretty(struct dwwalk *w, struct dwobj *o, int level,
	       struct tval *out);

/* The scopes around a pc, innermost first (dwtype_scope.c). */
struct dwt_scopes {
	Dwarf_Die cu;
	Dwarf_Die *v;
	int n;
	int func;		/* the innermost function scope, -1 none */
	int frame;		/* the out-of-line function, -1 none */
	Dwarf_Die outer;
};

/* 0, or -ENOENT when no function covers link-time @pc; free s->v. */
int dwt_scopes_at(struct dwinfo *dw, uint64_t pc, struct dwt_scopes *s);
/* The (defined) variable or parameter @name among @scope's children. */
bool dwt_var_in(Dwarf_Die *scope, const char *name, Dwarf_Die *out);
/* A parameter an inline instance @scope lost (its origin has it). */
bool dwt_dropped_param(Dwarf_Die *scope, const char *name);
/* A global @name of unit @cu (NULL: the first of any unit) whose unit or
 * declaring file matches @file (NULL: any). */
bool dwt_find_global(struct dwinfo *dw, Dwarf_Die *cu, const char *name,
		     const char *file, Dwarf_Die *out);
/* The defined type "struct x", "union x", "enum x", or "x" (a typedef or
 * base type, else a struct, union or enum tag) of any unit. */
bool dwt_find_type(struct dwinfo *dw, const char *type, Dwarf_Die *out);
/* The link-time address of a static (DW_OP_addr location). */
bool dwt_static_addr(struct dwinfo *dw, Dwarf_Die *die, uint64_t *addr);
/* A thread-local variable? */
bool dwt_is_tls(Dwarf_Die *die);

/* Helpers of dwtype.c that dwt_pretty() uses. */
int dwt_member_at(struct dwwalk *w, struct dwobj *o, Dwarf_Die *member);
void dwt_obj_copy(struct dwobj *to, const struct dwobj *from);
void dwt_scalar_arg(Dwarf_Die *peeled, struct dwobj *o, struct fetcharg *a);

#endif
