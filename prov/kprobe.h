/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_PROV_KPROBE_H
#define TAPKIT_PROV_KPROBE_H

/*
 * kernel.function's probe data, shared by prov/kprobe.c (points and
 * target variables) and prov/kprobe_run.c (the events and their records);
 * prov/layout.c shares the kernel's BTF (kprobe_btf()).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/event.h"
#include "common/tpath.h"
#include "lang/fmt_sb.h"
#include "lang/provider.h"

#define KPROBE_STR_MAX 4096

struct session;
struct kbtf_var;

/* A variable the handler reads: one or more fetch args of an event. */
struct kvar {
	char *key;		/* what it is, to share one fetch */
	char *name;		/* its name for messages and prov_var */
	struct tval v;		/* args renamed v<I>_<J> */
	bool entry;		/* a return probe's $param: fetched at entry */
	/* while attached: where each arg is in its record */
	struct tk_field *fields;
	char *buf;		/* string text, KPROBE_STR_MAX */
	struct strbuf text;	/* pretty text (kept: no allocation per
				 * event) */
};

struct kprobe {
	char *func;		/* the function ("" for an absolute address) */
	char *module;		/* module("m"): its name; NULL: vmlinux */
	char *addr;		/* the kprobe's place: "f", "m:f", "f+0x10",
				 * "0xffffffff81000000" */
	bool ret;		/* .return */
	bool typed;		/* BTF variables (kernel.function, module) */
	bool dwarf;		/* placed and typed by the kernel's DWARF
				 * (prov/kprobe_dwarf.c) */
	uint64_t pc;		/* dwarf: the link-time address probed */
	bool params_loaded;
	struct kbtf_var *params;
	size_t nparams;
	char *retctype;		/* NULL: void or unknown */
	struct kvar *vars;
	int nvars;
	char *ename;		/* its event in our group (at attach) */
	char *entry_ename;	/* the entry twin of a .return with $params */
	/* an entry() twin (@entry): the .return probe it belongs to */
	const struct prov_probe *ret_probe;
	struct session *s;	/* while attached */
};

/* The kbtf handle, opened once; NULL with the reason in @err. */
struct kbtf *kprobe_btf(char *err, size_t errlen);

/* prov/kprobe_dwarf.c: sites by source line and file */
struct kdwarf;

/* The kernel's DWARF, opened once; NULL with the reason in @err. */
struct kdwarf *kprobe_dwarf(char *err, size_t errlen);

enum kdkind { KD_FUNC, KD_CALL, KD_INLINE, KD_RETURN, KD_STMT };

struct kdsite {
	char *pp;		/* kernel.function("f@fs/open.c:1300") */
	char *func;		/* probefunc() */
	char *addr;		/* the kprobe's place: "f+0x1a" */
	uint64_t pc;		/* link-time address */
};

struct kdsite_list {
	struct kdsite *v;
	size_t n;
};

/**
 * kprobe_dwarf_sites() - the sites of @spec ("f@file", "*@file:N-M")
 * @kind: which of a function's sites (KD_STMT: a kernel.statement)
 * @nearest: a line without code means the next one with
 *
 * 0 with @out (possibly empty: nothing matched), or -errno with the reason
 * in @err: -ENOENT no DWARF or no code at a line, -EPERM sites the kernel
 * refuses kprobes at, -EINVAL a bad spec.  Release with
 * kdsite_list_release().
 */
int kprobe_dwarf_sites(const char *spec, enum kdkind kind, bool nearest,
		       struct kdsite_list *out, char *err, size_t errlen);
void kdsite_list_release(struct kdsite_list *l);

/* Is variable/arg @v fetched at entry (in a .return's entry twin)? */
static inline bool kprobe_has_entry(const struct kprobe *k)
{
	int i;

	for (i = 0; k->ret && i < k->nvars; i++)
		if (k->vars[i].entry)
			return true;
	return false;
}

/*
 * The fetch args of @k's event (@entry false) or of its entry twin
 * (@entry true), " v0_0=+8($arg1):s32 ..."; the caller frees.
 */
char *kprobe_args(const struct kprobe *k, bool entry);

/* The event of probe @p in our group (@entry: its entry twin's name),
 * "<func>_<id>" made of what event names may hold. */
void kprobe_ename(const struct prov_probe *p, bool entry, char *buf,
		  size_t len);

/* prov/kprobe_run.c */
int kprobe_fetch(const struct prov_probe *p, void *ev, int idx, int64_t sub,
		 struct lang_val *out);
int kprobe_context(const struct prov_probe *p, void *ev, enum prov_ctx what,
		   struct lang_val *out);
int kprobe_stack(const struct prov_probe *p, void *ev, const uint64_t **pcs,
		 size_t *nk, size_t *nu);
int kprobe_attach(struct run *run, struct prov_probe *const *probes, size_t n,
		  void **state);
void kprobe_phase(struct run *run, void *state, enum prov_phase ph);
void kprobe_detach(struct run *run, void *state);

#endif
