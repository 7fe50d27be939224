// SPDX-License-Identifier: GPL-2.0
/*
 * The suite's option table (see options.h): getopt_long()'s optstring and
 * long options are built from the shared entries a command takes plus its
 * own, so every command spells a shared option the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/opt.h"
#include "tool/options.h"

#define SECS_MAX (86400L * 365)
#define PID_MAX_OPT (1L << 30)

static const struct shared {
	unsigned bit;
	struct tool_option opt;
	const char *alias2;
} shared[] = {
	{ TOPT_PID, { 'p', "pid", required_argument, NULL }, NULL },
	{ TOPT_TID, { 't', "tid", required_argument, NULL }, NULL },
	{ TOPT_TIMESTAMP, { 'T', "timestamp", no_argument, "time" }, NULL },
	{ TOPT_DURATION, { 'd', "duration", required_argument, NULL }, NULL },
	{ TOPT_VERBOSE, { 'v', "verbose", no_argument, NULL }, NULL },
	{ TOPT_FAILED, { 'x', "failed", no_argument, "fails" }, "failures" },
	{ TOPT_NAME, { 'n', "name", required_argument, NULL }, NULL },
	{ TOPT_JSON, { 'j', "json", no_argument, NULL }, NULL },
	{ TOPT_HELP, { 'h', "help", no_argument, NULL }, NULL },
	{ TOPT_COMMAND, { 'c', "command", required_argument, NULL }, NULL },
};
#define NSHARED (sizeof(shared) / sizeof(shared[0]))

static bool own_key(const struct tool_option *own, int key)
{
	for (; own && own->key; own++)
		if (own->key == key)
			return true;
	return false;
}

/* The shared options @cli takes: those asked for whose letter is free. */
static unsigned taken(const struct tool_cli *cli)
{
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < NSHARED; i++)
		if (((cli->shared | TOPT_HELP) & shared[i].bit) &&
		    !own_key(cli->own, shared[i].opt.key))
			bits |= shared[i].bit;
	return bits;
}

static void add(const struct tool_option *op, char *optstr, size_t *nopt,
		struct option *lo, size_t *nlo)
{
	if (op->key < 256) {
		optstr[(*nopt)++] = (char)op->key;
		if (op->has_arg == required_argument)
			optstr[(*nopt)++] = ':';
	}
	if (op->name)
		lo[(*nlo)++] = (struct option){ op->name, op->has_arg, NULL, op->key };
	if (op->alias)
		lo[(*nlo)++] = (struct option){ op->alias, op->has_arg, NULL, op->key };
}

static void shared_option(int key, const char *arg, struct tool_opts *o,
			  const char *usage)
{
	switch (key) {
	case 'p': o->pid = (pid_t)opt_num("-p", arg, 1, PID_MAX_OPT); break;
	case 't': o->tid = (pid_t)opt_num("-t", arg, 1, PID_MAX_OPT); break;
	case 'T': o->timestamp = true; break;
	case 'd': o->duration = opt_num("-d", arg, 1, SECS_MAX); break;
	case 'v': tk_verbose++; break;
	case 'x': o->failed = true; break;
	case 'n': o->name = arg; break;
	case 'j': o->json = true; break;
	case 'c':
		if (!*arg)
			usage_error("empty command for -c");
		o->command = arg;
		break;
	case 'h':
		fputs(usage, stdout);
		exit(TK_EXIT_OK);
	}
}

int tool_options_parse(int argc, char **argv, const struct tool_cli *cli,
		       struct tool_opts *o)
{
	const struct tool_option *op;
	size_t n = NSHARED * 3 + 1, nopt = 1, nlo = 0, i;
	unsigned bits = taken(cli);
	struct option *lo;
	char *optstr;
	int c;

	for (op = cli->own; op && op->key; op++)
		n += 2;
	lo = xcalloc(n, sizeof(*lo));
	optstr = xcalloc(n * 2 + 2, 1);
	optstr[0] = ':';
	for (i = 0; i < NSHARED; i++) {
		if (!(bits & shared[i].bit))
			continue;
		add(&shared[i].opt, optstr, &nopt, lo, &nlo);
		if (shared[i].alias2)
			lo[nlo++] = (struct option){ shared[i].alias2,
				shared[i].opt.has_arg, NULL, shared[i].opt.key };
	}
	for (op = cli->own; op && op->key; op++)
		add(op, optstr, &nopt, lo, &nlo);

	opterr = 0;
	while ((c = getopt_long(argc, argv, optstr, lo, NULL)) != -1) {
		if (c == '?' || c == ':')
			usage_bad_option(argv, c);
		if (own_key(cli->own, c))
			cli->option(cli->ctx, c, optarg);
		else
			shared_option(c, optarg, o, cli->usage);
	}
	free(lo);
	free(optstr);

	if (o->pid && o->tid)
		usage_error("-p and -t cannot be used together");
	if (o->command && (o->pid || o->tid))
		usage_error("-c and -%c cannot be used together", o->pid ? 'p' : 't');
	return optind;
}

void tool_check_comm(const char *name)
{
	if (name && (!*name || strlen(name) > 15 || strpbrk(name, "\"\\\n")))
		usage_error("invalid process name '%s' (1 to 15 characters)", name);
}
