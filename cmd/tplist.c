// SPDX-License-Identifier: GPL-2.0
/*
 * tplist: list tracepoints, or the USDT probes of a binary or a process
 * (bcc's tplist).  Nothing is traced and nothing in tracefs is changed:
 * tracepoints come from the events directory, USDT probes from the
 * objects' .note.stapsdt (common/usdt.c).  -v adds what a probe needs:
 * a tracepoint's fields, a USDT probe's call sites, arguments and whether
 * it is in use (its semaphore's value in the process with -p, else a
 * uprobe defined at the call site).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

#include "common/escape.h"
#include "common/elffile.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/target.h"
#include "tool/tool.h"
#include "common/usdt.h"
#include "tracefs/format.h"
#include "tracefs/tpoints.h"

struct opts {
	bool json;
	int verbose;
	pid_t pid;
	const char *lib, *filter;
};

static const char usage[] =
"List tracepoints, or the USDT probes of a binary or a process.\n"
"\n"
"USAGE: tplist [-hjv] [-p PID | -l BINARY] [filter]\n"
"\n"
"  -p, --pid PID        USDT probes of this process (executable and libraries)\n"
"  -l, --lib BINARY     USDT probes of this binary or library (path or name)\n"
"  -v, --verbose        tracepoint fields; USDT call sites, arguments, state\n"
"                       (-vv: tracepoints' common fields too)\n"
"  -j, --json           JSON Lines: one object per tracepoint or probe\n"
"  -h, --help           this help\n"
"  filter               glob on system:event or provider:name\n"
"\n"
"EXAMPLES:\n"
"  tplist                       # all tracepoints\n"
"  tplist 'sched:*'             # the scheduler's tracepoints\n"
"  tplist -v block:block_rq_issue  # its fields\n"
"  tplist -l libc               # USDT probes of the C library\n"
"  tplist -l /usr/bin/python3 -v '*gc*'  # with call sites and arguments\n"
"  tplist -p 181                # USDT probes of PID 181 and its libraries\n"
"  tplist -j -p 181 -v          # the same, JSON Lines\n";

/* -v is a level of detail here, not the suite's diagnostics */
static const struct tool_option options[] = {
	{ 'l', "lib", required_argument, NULL },
	{ 'v', "verbose", no_argument, NULL },
	{ 0 },
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;

	switch (key) {
	case 'l':
		if (!*arg)
			usage_error("-l needs a binary or library name");
		o->lib = arg;
		break;
	case 'v': o->verbose++; break;
	}
}

static int list(struct tool *t);

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (optind < argc)
		o->filter = argv[optind++];
	if (optind < argc)
		usage_error("unexpected argument '%s' (one filter)", argv[optind]);
	o->pid = t->opt.pid;
	o->json = t->opt.json;
	t->list = list;
	return 0;
}

/* --- tracepoints --- */

/*
 * One "field:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" line of a format
 * file, printed as bcc does ("    TYPE NAME;") or as a JSON element.
 */
static void print_field(const char *line, const struct opts *o, struct json *j)
{
	const char *p = strstr(line, "field:"), *end;
	char decl[256], *name, *br;
	unsigned int off = 0, size = 0, sgn = 0;
	const char *q;

	if (!p)
		return;
	p += 6;
	end = strchr(p, ';');
	if (!end || end - p >= (long)sizeof(decl))
		return;
	snprintf(decl, sizeof(decl), "%.*s", (int)(end - p), p);
	name = strrchr(decl, ' ');
	if (!name)
		return;
	if (o->verbose < 2 && !strncmp(name + 1, "common_", 7))
		return;
	if (!o->json) {
		printf("    %s;\n", decl);
		return;
	}
	if ((q = strstr(end, "offset:")))
		sscanf(q, "offset:%u", &off);
	if ((q = strstr(end, "size:")))
		sscanf(q, "size:%u", &size);
	if ((q = strstr(end, "signed:")))
		sscanf(q, "signed:%u", &sgn);
	*name++ = '\0';
	br = strchr(name, '[');
	json_obj_open(j, NULL);
	json_strn(j, "name", name, br ? (size_t)(br - name) : strlen(name));
	if (br) {
		char type[300];

		snprintf(type, sizeof(type), "%s%s", decl, br);
		json_str(j, "type", type);
	} else {
		json_str(j, "type", decl);
	}
	json_uint(j, "offset", off);
	json_uint(j, "size", size);
	json_bool(j, "signed", sgn);
	json_obj_close(j);
}

static void print_tracepoint(const char *sys, const char *ev, const struct opts *o)
{
	char *fmt = NULL, *line, *save = NULL;
	struct json j;

	if (o->verbose)
		fmt = format_text(sys, ev, NULL);
	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "tracepoint");
		json_str(&j, "system", sys);
		json_str(&j, "event", ev);
		if (o->verbose)
			json_arr_open(&j, "fields");
	} else {
		printf("%s:%s\n", sys, ev);
	}
	for (line = fmt ? strtok_r(fmt, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		print_field(line, o, &j);
	if (o->json) {
		if (o->verbose)
			json_arr_close(&j);
		json_end(&j);
	}
	free(fmt);
}

static int list_tracepoints(const struct opts *o)
{
	struct tpoint_query q = { .full = o->filter, .sorted = true };
	struct tpoint_list l = { 0 };
	size_t i;
	int n = tpoints_find(&q, &l);

	if (n < 0) {
		pr_err("cannot read the tracing filesystem: %s",
		       geteuid() ? "tracing needs root" : strerror(-n));
		return TK_EXIT_RUNTIME;
	}
	for (i = 0; i < l.n; i++)
		print_tracepoint(l.v[i].sys, l.v[i].name, o);
	tpoints_release(&l);
	tool_flush();
	return TK_EXIT_OK;
}

/* --- USDT --- */

/* The uprobe_events file, read once: "PATH:0xOFFSET" per definition. */
static char *uprobe_defs;

static bool uprobe_defined(const char *path, uint64_t offset)
{
	char *p, *line, *save = NULL, *copy;
	bool found = false;

	if (!uprobe_defs)
		return false;
	copy = xstrdup(uprobe_defs);
	for (line = strtok_r(copy, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *colon;
		unsigned long long off;

		if (!sp)
			continue;
		p = sp + 1;
		sp = strchr(p, ' ');
		if (sp)
			*sp = '\0';
		colon = strrchr(p, ':');
		if (!colon)
			continue;
		*colon = '\0';
		off = strtoull(colon + 1, NULL, 0);
		found = off == offset && !strcmp(p, path);
	}
	free(copy);
	return found;
}

/* The semaphore's value in @pid, -1 when it cannot be read. */
static long sema_value(pid_t pid, const char *path, uint64_t sema_off)
{
	uint64_t addr = target_proc_addr(pid, path, sema_off);
	unsigned short v;
	char fn[64];
	int fd;
	ssize_t n;

	if (!addr)
		return -1;
	snprintf(fn, sizeof(fn), "/proc/%d/mem", pid);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, &v, sizeof(v), (off_t)addr);
	close(fd);
	return n == sizeof(v) ? v : -1;
}

/* Each fetch arg as "arg1=%di:u32", or "arg1=? (why)" when refused. */
static char *fetch_text(const struct fetcharg *a)
{
	char *s = fetcharg_format(a);

	return s ? s : xasprintf("%s=? (%s)", a->name, a->refused ? a->refused : "refused");
}

static void print_location(const struct usdt_probe *p, int k, const char *path,
			   const struct opts *o, struct json *j)
{
	bool defined = uprobe_defined(path, p->offset);
	size_t a;

	if (o->json) {
		char *spec, *tok, *save = NULL;

		json_obj_open(j, NULL);
		json_uint(j, "addr", p->pc);
		json_uint(j, "offset", p->offset);
		json_bool(j, "uprobe", defined);
		json_arr_open(j, "args");
		spec = xstrdup(p->argstr ? p->argstr : "");
		for (tok = strtok_r(spec, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			json_elem_str(j, tok);
		free(spec);
		json_arr_close(j);
		json_arr_open(j, "fetchargs");
		for (a = 0; a < p->nargs; a++) {
			char *s = fetcharg_format(&p->args[a]);

			json_obj_open(j, NULL);
			json_str(j, "name", p->args[a].name);
			json_str(j, "fetch", s);
			json_str(j, "refused", p->args[a].refused);
			json_obj_close(j);
			free(s);
		}
		json_arr_close(j);
		json_str(j, "refused", p->refused);
		json_obj_close(j);
		return;
	}
	printf("  location #%d: 0x%llx (file offset 0x%llx), uprobe %s\n", k,
	       (unsigned long long)p->pc, (unsigned long long)p->offset,
	       defined ? "defined" : "not defined");
	if (p->refused)
		printf("    cannot be probed: %s\n", esc_str(p->refused));
	printf("    args: %s\n", p->argstr && *p->argstr ? esc_str(p->argstr) : "(none)");
	if (p->nargs) {
		printf("    fetch:");
		for (a = 0; a < p->nargs; a++) {
			char *s = fetch_text(&p->args[a]);

			printf(" %s", s);
			free(s);
		}
		printf("\n");
	}
}

/* Print probe @i of @l (every site of the same provider:name together). */
static void print_probe(const struct usdt_list *l, size_t i, const char *path,
			const struct opts *o)
{
	const struct usdt_probe *p = &l->v[i];
	long val = p->sema_offset && o->pid ? sema_value(o->pid, path, p->sema_offset) : -1;
	struct json j;
	size_t k;
	int n = 0;

	if (o->json) {
		json_begin(&j, stdout);
		json_str(&j, "type", "usdt");
		json_str(&j, "path", path);
		json_str(&j, "provider", p->provider);
		json_str(&j, "name", p->name);
	} else {
		printf("%s %s:%s\n", esc_str(path), esc_str(p->provider),
		       esc_str(p->name));
	}
	if (!o->verbose)
		goto out;
	if (o->json) {
		if (p->sema) {
			json_obj_open(&j, "semaphore");
			json_uint(&j, "addr", p->sema);
			json_uint(&j, "offset", p->sema_offset);
			if (o->pid && val >= 0)
				json_int(&j, "value", val);
			else
				json_null(&j, "value");
			json_obj_close(&j);
		} else {
			json_null(&j, "semaphore");
		}
		json_arr_open(&j, "locations");
	} else if (p->sema) {
		printf("  semaphore: 0x%llx (file offset 0x%llx)",
		       (unsigned long long)p->sema, (unsigned long long)p->sema_offset);
		if (o->pid && val >= 0)
			printf(", value %ld (%s)", val, val ? "enabled" : "disabled");
		else if (o->pid)
			printf(", value unknown");
		printf("\n");
	}
	for (k = i; k < l->n; k++)
		if (!strcmp(l->v[k].provider, p->provider) && !strcmp(l->v[k].name, p->name))
			print_location(&l->v[k], ++n, path, o, &j);
	if (o->json)
		json_arr_close(&j);
out:
	if (o->json)
		json_end(&j);
}

/* The probes of one object; -1 (reported) when it cannot be read. */
static int list_object(const char *path, const struct opts *o, bool quiet)
{
	struct usdt_list l = { 0 };
	struct elffile *ef;
	char err[512];
	size_t i, k;

	ef = elffile_open(path, err, sizeof(err));
	if (!ef) {
		if (!quiet)
			pr_err("%s", err);
		return -1;
	}
	if (usdt_find(ef, NULL, NULL, &l, err, sizeof(err)) < 0) {
		if (!quiet)
			pr_err("%s", err);
		elffile_free(ef);
		return -1;
	}
	for (i = 0; i < l.n; i++) {
		char *full = xasprintf("%s:%s", l.v[i].provider, l.v[i].name);
		bool seen = false;

		for (k = 0; k < i && !seen; k++)
			seen = !strcmp(l.v[k].provider, l.v[i].provider) &&
			       !strcmp(l.v[k].name, l.v[i].name);
		if (!seen && (!o->filter || !fnmatch(o->filter, full, 0)))
			print_probe(&l, i, path, o);
		free(full);
	}
	usdt_list_release(&l);
	elffile_free(ef);
	return 0;
}

static int list_usdt(const struct opts *o)
{
	char err[512], **paths = NULL, *path = NULL;
	size_t n = 0, i;
	int ret = TK_EXIT_OK;

	if (o->verbose)
		uprobe_defs = tracefs_instance_file_read(NULL, "uprobe_events", NULL);
	if (o->lib) {
		if (target_resolve(o->lib, o->pid, &path, err, sizeof(err)) < 0) {
			pr_err("%s", err);
			return TK_EXIT_RUNTIME;
		}
		if (list_object(path, o, false) < 0)
			ret = TK_EXIT_RUNTIME;
		free(path);
	} else {
		if (target_objects(o->pid, &paths, &n, err, sizeof(err)) < 0) {
			pr_err("%s", err);
			return TK_EXIT_RUNTIME;
		}
		/* the executable must be readable; libraries are best effort */
		for (i = 0; i < n; i++)
			if (list_object(paths[i], o, i > 0) < 0 && i == 0)
				ret = TK_EXIT_RUNTIME;
		target_objects_free(paths, n);
	}
	free(uprobe_defs);
	tool_flush();
	return ret;
}

/* A listing: no loop (tool_run() stops after the checks). */
static int list(struct tool *t)
{
	struct opts *o = t->ctx;

	if (o->pid || o->lib)
		return list_usdt(o);
	return list_tracepoints(o);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct tool t = {
		.ctx = &o,
		.usage = usage,
		.shared = TOPT_PID | TOPT_JSON,
		.options = options,
		.option = option,
		.check = check,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
