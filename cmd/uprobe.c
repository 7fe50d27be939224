// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe: trace one user-level function entry or return (perf-tools'
 * uprobe), printing each hit ftrace-style with its fetch args, or list the
 * functions of a target.  The definition is resolved by usite_functions()
 * (paths, PIE, IFUNC, `func+off` checked to be on an instruction boundary)
 * and defined in the session's own event group, removed on every exit.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "common/elffile.h"
#include "common/elfsym.h"
#include "common/evout.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/target.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "common/tool.h"
#include "common/usite.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

struct opts {
	struct trace_opts t;
	bool ret;
	const char *list, *filter;
	char *def;			/* the definition, split in place */
	char *alias, *target, *spec, *args;
};

static const char usage[] =
"Trace a user-level function's entry or return (a uprobe definition).\n"
"\n"
"USAGE: uprobe [-hHsvj] [-d SECS] [-p PID] [-t TID] [-b KB]\n"
"              'p|r:[NAME ][TARGET:]FUNC[+OFF] [ARGS]' [filter]\n"
"       uprobe -l TARGET\n"
"\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -p, --pid PID        only this process (ends when it does); TARGET\n"
"                       defaults to its executable\n"
"  -t, --tid TID        only this thread\n"
"  -H, --headers        print column headers\n"
"  -s, --stacks         print the user stack of each hit (addresses)\n"
"  -v, --verbose        print the event's format (its fields) and exit\n"
"  -l, --list TARGET    list the traceable functions of TARGET\n"
"  -b, --buffer-kb KB   per-CPU ring size\n"
"  -j, --json           JSON Lines: one object per hit\n"
"  -h, --help           this help\n"
"  TARGET               a path, a program in $PATH, or a library (libc)\n"
"  FUNC[+OFF]           a function, an offset into it (on an instruction\n"
"                       boundary), or a link-time address 0x...\n"
"  ARGS                 fetch args in the kernel's syntax (%di, $retval,\n"
"                       +0(%si):string, size=%di:u64)\n"
"  filter               kernel filter on the args, e.g. 'size > 4096'\n"
"\n"
"EXAMPLES:\n"
"  uprobe p:bash:readline             # trace readline() in every bash\n"
"  uprobe 'r:bash:readline +0($retval):string'  # the lines it returns\n"
"  uprobe p:libc:gettimeofday         # every process's gettimeofday()\n"
"  uprobe 'p:libc:malloc size=%di:u64' 'size > 65536'\n"
"  uprobe -p 1182 p:libc:sleep        # only process 1182\n"
"  uprobe p:readline -p 1182          # in its executable\n"
"  uprobe p:/bin/bash:0x48ae40        # at a link-time address\n"
"  uprobe -v 'p:libc:open file=+0(%di):string'  # show the fields\n"
"  uprobe -l libc                     # list libc's functions\n";

static const struct option longopts[] = {
	OPT_TRACE_LONG,
	{ "list", required_argument, NULL, 'l' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static bool is_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* A probe `[TARGET:]FUNC`, not a fetch arg (`%di:u64`, `n=+0(%si):string`). */
static bool is_probe(const char *tok)
{
	size_t n = strcspn(tok, ":=%$()@\\");

	return tok[n] == ':' && n > 0 && *tok != '+' && *tok != '-';
}

/*
 * definition := ('p' | 'r') ':' [NAME ' '] [TARGET ':'] SPEC [' ' ARGS]
 * (perf-tools' form: the event name is separated by a space)
 */
static void parse_def(struct opts *o, char *def)
{
	char *tok, *rest, *colon;

	if ((def[0] != 'p' && def[0] != 'r') || def[1] != ':')
		usage_error("definition must start with p: or r:, not '%s'", def);
	o->ret = def[0] == 'r';
	rest = def + 2 + strspn(def + 2, " \t");
	tok = rest;
	rest += strcspn(rest, " \t");
	if (*rest)
		*rest++ = '\0';
	rest += strspn(rest, " \t");
	if (!strchr(tok, ':') && *rest && is_probe(rest)) {
		o->alias = tok;
		tok = rest;
		rest += strcspn(rest, " \t");
		if (*rest)
			*rest++ = '\0';
		rest += strspn(rest, " \t");
		if (strchr(o->alias, '/'))
			usage_error("the event group is uprobe's own: give only an event name, not '%s'",
				    o->alias);
		if (!is_ident(o->alias))
			usage_error("event name must be a C identifier, not '%s'", o->alias);
	}
	if (!*tok)
		usage_error("no function in '%s'", def);
	colon = strrchr(tok, ':');
	if (colon) {
		*colon = '\0';
		o->target = tok;
		o->spec = colon + 1;
		if (!*o->target || !*o->spec)
			usage_error("probe must be [TARGET:]FUNC, not '%s:%s'", tok, o->spec);
	} else {
		o->spec = tok;
	}
	if (strpbrk(o->spec, "*?["))
		usage_error("one function, not a pattern: '%s'", o->spec);
	if (!o->target && !o->t.pid && !o->t.tid)
		usage_error("no target for '%s' (TARGET:FUNC, or -p PID for its executable)",
			    o->spec);
	o->args = *rest ? rest : NULL;
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" OPT_TRACE_SHORT "l:h", longopts, NULL)) != -1) {
		if (opt_trace(c, optarg, &o->t))
			continue;
		switch (c) {
		case 'l': o->list = optarg; break;
		case 'h': fputs(usage, stdout); exit(TK_EXIT_OK);
		default: usage_bad_option(argv, c);
		}
	}
	opt_trace_done(&o->t);
	if (o->list) {
		if (!*o->list)
			usage_error("-l needs a target (a path, program or library)");
		if (optind < argc)
			usage_error("-l takes a target only, not '%s'", argv[optind]);
		return;
	}
	if (optind >= argc)
		usage_error("no uprobe definition given (p:TARGET:FUNC, or -l TARGET)");
	if (o->t.view && o->t.duration)
		usage_error("-v and -d cannot be used together");
	o->def = argv[optind++];
	if (optind < argc)
		o->filter = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s' (quote the definition and the filter)",
			    argv[optind]);
	parse_def(o, o->def);
}

struct uprobe {
	struct opts o;
	struct session *s;
	struct tp *tp;
	char *event;
	struct tk_field ip, ret_ip;	/* __probe_ip, or __probe_func/ret_ip */
	struct tk_field *fields;	/* the args */
	int nfields;
	struct trace_seq seq;
};

static void on_event(const struct tk_event *ev, void *arg)
{
	struct uprobe *u = arg;
	const char *comm = session_comm(u->s, ev->pid);
	unsigned int i;

	if (u->o.t.json) {
		pid_t tgid = u->o.t.pid ? u->o.t.pid : task_cache_tgid(ev->pid);
		struct json j;

		if (tgid <= 0)
			tgid = task_tgid(ev->pid);
		json_begin(&j, stdout);
		json_uint(&j, "ts_ns", time_to_real(ev->ts));
		json_str(&j, "comm", comm);
		if (tgid > 0)
			json_int(&j, "pid", tgid);
		else
			json_null(&j, "pid");
		json_int(&j, "tid", ev->pid);
		json_int(&j, "cpu", ev->cpu);
		json_str(&j, "event", u->tp->name);
		json_uint(&j, "addr", (uint64_t)field_int(ev, &u->ip));
		if (u->o.ret)
			json_uint(&j, "ret_addr", (uint64_t)field_int(ev, &u->ret_ip));
		evout_json_fields(&j, "args", u->fields, u->nfields, ev);
		if (u->o.t.stacks) {
			json_arr_open(&j, "ustack");
			for (i = ev->nkstack; i < ev->nstack; i++)
				json_elem_uint(&j, ev->stack[i]);
			json_arr_close(&j);
		}
		json_end(&j);
		return;
	}
	struct tep_record rec = {
		.ts = ev->ts, .size = (int)ev->size, .record_size = (int)ev->size,
		.data = (void *)ev->data, .cpu = ev->cpu,
	};

	const char *info;
	char addr[64];

	/* the args as libtraceevent prints them; the address as the kernel
	 * does, "(0x...)" (the format file's print fmt says "(%lx)") */
	trace_seq_reset(&u->seq);
	tep_print_event(session_tep(u->s), &u->seq, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&u->seq);
	info = strchr(u->seq.buffer, ')');
	info = info ? info + 1 : "";
	if (u->o.ret)
		snprintf(addr, sizeof(addr), "(0x%llx <- 0x%llx)",
			 (unsigned long long)field_int(ev, &u->ret_ip),
			 (unsigned long long)field_int(ev, &u->ip));
	else
		snprintf(addr, sizeof(addr), "(0x%llx)",
			 (unsigned long long)field_int(ev, &u->ip));
	evout_line(comm, ev->pid, ev->cpu, ev->ts, u->tp->name, "%s%s", addr, info);
	if (u->o.t.stacks)
		for (i = ev->nkstack; i < ev->nstack; i++)
			printf(" => 0x%llx\n", (unsigned long long)ev->stack[i]);
}

/* The args, and the probe's address fields the kernel adds (__probe_ip,
 * or __probe_func and __probe_ret_ip), which are printed apart. */
static void collect_fields(struct uprobe *u)
{
	int i, k = 0;

	u->fields = format_fields(u->tp->event, &u->nfields);
	for (i = 0; i < u->nfields; i++) {
		const char *name = u->fields[i].name;

		if (!strcmp(name, "__probe_ip") || !strcmp(name, "__probe_func"))
			u->ip = u->fields[i];
		else if (!strcmp(name, "__probe_ret_ip"))
			u->ret_ip = u->fields[i];
		else
			u->fields[k++] = u->fields[i];
	}
	u->nfields = k;
}

/* The event name: the alias, else FUNC (`main+0x4` as main_0x4), else
 * TARGET_ADDR for an address (as perf-tools). */
static char *event_name(const struct opts *o)
{
	const char *base;
	char *name, *p;

	if (o->alias)
		return xstrdup(o->alias);
	if (!strncmp(o->spec, "0x", 2)) {
		base = o->target ? strrchr(o->target, '/') : NULL;
		base = base ? base + 1 : o->target ? o->target : "exe";
		name = xasprintf("%.*s_%s", (int)strcspn(base, "."), base, o->spec);
	} else {
		name = xstrdup(o->spec);
	}
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	if (isdigit((unsigned char)*name)) {
		p = xasprintf("_%s", name);
		free(name);
		name = p;
	}
	return name;
}

/* Resolve and define the probe; -1 after saying why. */
static int define(struct uprobe *u, enum tp_mode mode, const char *filter)
{
	struct usite_opts uo = { .pid = u->o.t.pid ? u->o.t.pid : u->o.t.tid };
	struct usite_list l = { 0 };
	char err[512];
	int ret;

	ret = usite_functions(u->o.target, u->o.spec, &uo, &l, err, sizeof(err));
	if (ret < 0) {
		pr_err("%s", err);
		return -1;
	}
	if (l.n != 1) {
		pr_err("%s '%s' in '%s'", l.n ? "more than one function" : "no function",
		       u->o.spec, u->o.target ? u->o.target : "the process's executable");
		usite_list_release(&l);
		return -1;
	}
	if (!strncmp(u->o.spec, "0x", 2) && !l.v[0].func)
		pr_warn("address %s is in no known function: not checked to be on an instruction boundary",
			u->o.spec);
	if (l.v[0].ifunc)
		pr_warn("%s is an IFUNC resolver: tracing the resolver, not its pick",
			u->o.spec);
	u->event = event_name(&u->o);
	u->tp = session_add_uprobe(u->s, u->event, l.v[0].path, l.v[0].offset,
				   u->o.args, u->o.ret, mode, filter);
	usite_list_release(&l);
	if (!u->tp) {
		pr_err("%s", session_error(u->s));
		return -1;
	}
	return 0;
}

static int open_session(struct uprobe *u)
{
	struct session_opts so = {
		.ordered = true, .pid = u->o.t.pid, .tid = u->o.t.tid,
		.buffer_kb = (unsigned long)u->o.t.buffer_kb,
		.batch_end = tool_flush_batch,
	};

	if (!session_has_uprobes() && geteuid() == 0 &&
	    access("/sys/kernel/tracing/events", F_OK) == 0) {
		pr_err("this kernel has no uprobe events (CONFIG_UPROBE_EVENTS)");
		return -1;
	}
	u->s = session_new(&so);
	if (session_open(u->s) < 0) {
		pr_err("%s", session_error(u->s));
		return -1;
	}
	return 0;
}

static int setup(struct tool *t, struct loop *l)
{
	struct uprobe *u = t->ctx;

	if (open_session(u) < 0 ||
	    define(u, u->o.t.stacks ? TP_STACK : TP_RECORD, u->o.filter) < 0)
		return -1;
	collect_fields(u);
	trace_seq_init(&u->seq);
	if (session_start(u->s, l, on_event, u) < 0) {
		pr_err("%s", session_error(u->s));
		return -1;
	}
	evout_start(&u->o.t, "uprobe %s", u->event);
	return 0;
}

static void teardown(struct tool *t)
{
	struct uprobe *u = t->ctx;

	session_tool_teardown(t);
	if (u->seq.buffer)
		trace_seq_destroy(&u->seq);
	u->seq.buffer = NULL;
	free(u->fields);
	u->fields = NULL;
	free(u->event);
	u->event = NULL;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -l: the functions of @name, sorted, each once (perf-tools' uprobe -l). */
static int list(const char *name, pid_t pid)
{
	struct elfsym_list syms = { 0 };
	struct elffile *ef;
	char err[512], *path = NULL, **names;
	size_t i;

	if (usite_open(name, pid, &path, &ef, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		return TK_EXIT_RUNTIME;
	}
	if (elfsym_find(ef, "*", &syms, err, sizeof(err)) < 0) {
		pr_err("%s", err);
		elffile_free(ef);
		free(path);
		return TK_EXIT_RUNTIME;
	}
	names = xcalloc(syms.n ? syms.n : 1, sizeof(*names));
	for (i = 0; i < syms.n; i++)
		names[i] = syms.v[i].name;
	qsort(names, syms.n, sizeof(*names), cmp_str);
	for (i = 0; i < syms.n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]))
			printf("%s\n", names[i]);
	free(names);
	elfsym_list_release(&syms);
	elffile_free(ef);
	free(path);
	tool_flush();
	return TK_EXIT_OK;
}

/* -v: define the probe, print its format, remove it (as perf-tools). */
static int view(struct uprobe *u)
{
	char *rel, *buf;

	if (open_session(u) < 0 || define(u, TP_RECORD, u->o.filter) < 0)
		return TK_EXIT_RUNTIME;
	rel = xasprintf("events/%s/%s/format", session_name(u->s), u->event);
	buf = tracefs_instance_file_read(NULL, rel, NULL);
	free(rel);
	if (buf)
		fputs(buf, stdout);
	else
		pr_err("cannot read the format of %s: %s", u->event, strerror(errno));
	free(buf);
	free(u->event);
	session_close(u->s);
	session_free(u->s);
	return buf ? TK_EXIT_OK : TK_EXIT_RUNTIME;
}

int main(int argc, char **argv)
{
	struct uprobe u = { 0 };
	struct tool t = {
		.ctx = &u,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &u.s,
	};

	log_init(argv[0]);
	parse_args(argc, argv, &u.o);
	if (u.o.list)
		return list(u.o.list, u.o.t.pid ? u.o.t.pid : u.o.t.tid);
	if (u.o.t.view)
		return view(&u);
	t.json = u.o.t.json;
	t.duration = u.o.t.duration;
	t.target = u.o.t.pid ? u.o.t.pid : u.o.t.tid;
	return tool_run(&t);
}
