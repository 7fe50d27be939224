// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe: trace one kernel function's entry or return (perf-tools' kprobe),
 * printing each hit ftrace-style with its fetch args.  The function is
 * checked against kallsyms and the kprobes blacklist before anything is
 * defined (-F skips that); arguments may name the function's parameters,
 * which BTF turns into registers and types.  The probe lives in the
 * session's own event group, removed on every exit.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/kbtf.h"
#include "common/kbtf_func.h"
#include "common/kfunc.h"
#include "common/log.h"
#include "common/opt.h"
#include "tool/probedef.h"
#include "tool/tool.h"
#include "tool/probe_tool.h"

struct opts {
	struct trace_opts t;
	bool force;
	const char *filter;
	char *def;			/* the definition, split in place */
	struct probedef pd;
	char *args;			/* pd.args with parameter names resolved */
};

static const char usage[] =
"Trace a kernel function's entry or return (a kprobe definition).\n"
"\n"
"USAGE: kprobe [-FhHsvj] [-d SECS] [-p PID] [-t TID] [-b KB] [-c CMD]\n"
"              'p|r:[NAME ]FUNC[+OFF] [ARGS]' [filter]\n"
"\n"
"  -F, --force          define the probe without checking FUNC first\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -p, --pid PID        only this process (ends when it does)\n"
"  -t, --tid TID        only this thread (-L as in perf-tools)\n"
"  -c, --command CMD    run CMD, trace only its process tree, end when it\n"
"                       exits, with its exit status\n"
"  -H, --headers        print column headers\n"
"  -s, --stacks         print the kernel stack of each hit\n"
"  -v, --verbose        print the event's format (its fields) and exit\n"
"  -b, --buffer-kb KB   per-CPU ring size\n"
"  -j, --json           JSON Lines: one object per hit\n"
"  -h, --help           this help\n"
"  FUNC[+OFF]           a kernel function, or an offset into it\n"
"  ARGS                 fetch args in the kernel's syntax (%di, $retval,\n"
"                       +0(%si):string), or the function's parameter\n"
"                       names from BTF (filename, fd=dfd, n=count:u32)\n"
"  filter               kernel filter on the args, e.g. 'dfd == -100'\n"
"\n"
"EXAMPLES:\n"
"  kprobe p:do_sys_openat2            # trace openat2() entry\n"
"  kprobe r:do_sys_openat2            # trace its return\n"
"  kprobe 'r:do_sys_openat2 $retval'  # with the return value (BTF type)\n"
"  kprobe 'r:myopen do_sys_openat2 $retval'  # a custom event name\n"
"  kprobe 'p:do_sys_openat2 dfd filename'    # parameters by name\n"
"  kprobe 'p:do_sys_openat2 file=+0(%si):string'  # by register\n"
"  kprobe 'p:do_sys_openat2 filename' 'filename ~ \"*stat\"'  # filtered\n"
"  kprobe -s p:tcp_retransmit_skb     # with kernel stacks\n"
"  kprobe -p 1182 p:vfs_read          # only process 1182\n"
"  kprobe -v 'p:vfs_read file count'  # show the fields\n";

static const struct tool_option options[] = {
	TRACE_OPTIONS,
	{ 'F', "force", no_argument, NULL },
	{ 0 },
};

/* Does kallsyms have @name (a function, or not one we may probe)?  True
 * when kallsyms cannot be read: then nothing tells. */
static bool known(const char *name)
{
	char err[256];

	return kfunc_check(name, err, sizeof(err)) != -ENOENT ||
	       !strncmp(err, "cannot read", 11);
}

/*
 * In `p:A B ...`, B is the function and A the event name when B looks like
 * no fetch arg and is a kernel function, or neither is (perf-tools' rule,
 * so that the error names B); else A is the function and B its first arg
 * (a parameter name).
 */
static bool second_is_func(const char *first, const char *second, void *ctx)
{
	if (strpbrk(second, "=%$@()\\:") || *second == '+' || *second == '-')
		return false;
	return known(second) || !known(first);
}

static bool is_ident(const char *s, size_t n)
{
	size_t i;

	if (!n || isdigit((unsigned char)*s))
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* Parameter @name of @f, or -1 after saying which there are. */
static long param_index(const struct kbtf_func *f, const char *name)
{
	char list[512] = "";
	size_t i, n = 0;

	for (i = 0; i < f->nparams; i++)
		if (!strcmp(f->params[i].name, name))
			return (long)i;
	for (i = 0; i < f->nparams; i++)
		n += snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
			      i ? ", " : "", f->params[i].name);
	usage_error("'%s' is not a parameter of %s(%s)", name, f->name, list);
}

/*
 * ARGS with parameter names resolved through BTF: `NAME`, `ALIAS=NAME`,
 * `ALIAS=NAME:TYPE`, and for a return probe a `$retval` without a type;
 * everything else as written.  Usage errors exit.
 */
static char *resolve_args(struct opts *o, const char *func)
{
	struct kbtf_func f = { 0 };
	struct kbtf *btf = NULL;
	char err[512], *out = xstrdup(""), *copy, *tok, *save = NULL, *next;

	copy = xstrdup(o->pd.args);
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '='), *val = eq ? eq + 1 : tok;
		size_t vlen = strcspn(val, ":");
		const char *type = val[vlen] == ':' ? val + vlen + 1 : NULL;
		bool retval = vlen == 7 && !strncmp(val, "$retval", 7);
		char *fetch, *name;

		if ((!retval && !is_ident(val, vlen)) || (retval && (type || !o->pd.ret)) ||
		    (eq && !is_ident(tok, (size_t)(eq - tok)))) {
			next = xasprintf("%s%s%s", out, *out ? " " : "", tok);
			free(out);
			out = next;
			continue;
		}
		if (!btf) {
			if (strchr(func, '+'))
				usage_error("parameter names are known at the entry of %.*s only, not at '%s'",
					    (int)strcspn(func, "+"), func, func);
			btf = kbtf_open(err, sizeof(err));
			if (!btf)
				die("parameter names need the kernel's BTF: %s", err);
			if (kbtf_func_find(btf, func, &f, err, sizeof(err)) < 0)
				die("%s", err);
		}
		/* the field's name: ALIAS, the parameter's, or the kernel's
		 * own for a bare $retval */
		name = eq ? xasprintf("%.*s=", (int)(eq - tok), tok)
			  : retval ? xstrdup("") : xasprintf("%.*s=", (int)vlen, val);
		if (retval) {
			const char *rt = kbtf_fetch_type(&f.ret);

			if (!rt)
				usage_error("%s returns %s: no $retval to fetch", func,
					    kbtf_class_name(f.ret.cls));
			fetch = xasprintf("$retval:%s", rt);
		} else {
			long i;

			val[vlen] = '\0';
			if (o->pd.ret)
				usage_error("parameters are gone at the return of %s: use $retval, or a p: probe for '%s'",
					    func, val);
			i = param_index(&f, val);
			fetch = kbtf_param_fetch(&f, (size_t)i, type, err, sizeof(err));
			if (!fetch)
				usage_error("%s", err);
		}
		next = xasprintf("%s%s%s%s", out, *out ? " " : "", name, fetch);
		free(out);
		out = next;
		free(name);
		free(fetch);
	}
	free(copy);
	kbtf_func_release(&f);
	kbtf_free(btf);
	return out;
}

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = ((struct probe_tool *)t->ctx)->ctx;

	if (key == 'F')
		o->force = true;
	else
		trace_option(t, &o->t, key, arg);
}

static int check_func(struct opts *o);

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct probe_tool *pt = t->ctx;
	struct opts *o = pt->ctx;
	char err[512];

	trace_opts_sync(&o->t, t);
	trace_opts_def(argc, argv, optind, &o->t,
		       "no kprobe definition given (p:FUNC or r:FUNC)", &o->def, &o->filter);
	if (probedef_parse(o->def, second_is_func, o, &o->pd, err, sizeof(err)) < 0)
		usage_error("%s", err);
	if (strpbrk(o->pd.probe, "*?["))
		usage_error("one function, not a pattern: '%s'", o->pd.probe);
	probe_tool_check(t);
	if (check_func(o) < 0)
		return -1;
	pt->ret = o->pd.ret;
	return 0;
}

/* What needs no kernel support: FUNC exists and may be probed, the
 * parameter names are known.  -1 after saying why. */
static int check_func(struct opts *o)
{
	const char *func = o->pd.probe;
	char err[512];

	if (!o->force && kfunc_check(func, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (o->pd.args)
		o->args = resolve_args(o, func);
	return 0;
}

/* probe_tool's define */
static struct tp *define(struct probe_tool *pt, struct session *s, enum tp_mode mode)
{
	struct opts *o = pt->ctx;
	char *event = o->pd.alias ? xstrdup(o->pd.alias) : probedef_event_name(o->pd.probe);
	struct tp *tp;

	tp = session_add_kprobe(s, event, o->pd.probe, o->args, o->pd.ret, mode, o->filter);
	free(event);
	if (!tp)
		pr_err("%s", session_error(s));
	return tp;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct probe_tool pt = {
		.tool = "kprobe", .t = &o.t, .kernel = true, .define = define,
		.ctx = &o,
	};
	struct tool t = {
		.usage = usage, .options = options, .option = option,
		.check = check,
	};
	int rc;

	log_init(argv[0]);
	probe_tool_init(&pt, &t);
	rc = tool_run(&t, argc, argv);
	free(o.args);
	return rc;
}
