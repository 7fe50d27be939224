// SPDX-License-Identifier: GPL-2.0
/*
 * tcpconnect: trace active TCP connections (connect()).
 *
 * sock:inet_sock_set_state's CLOSE -> SYN_SENT is made by connect() in
 * the calling task, with the source address already chosen and the local
 * port not yet (bcc prints no local port by default either): the line is
 * printed from that record, and -p, -c and -P are kernel filters, so
 * nothing else is recorded.  A connect() that fails later (refused, timed
 * out) is shown, as bcc shows it: it is an attempt, the SYN was sent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/task.h"
#include "common/timefmt.h"
#include "tool/tcpsock.h"
#include "tool/tool.h"
#include "tracefs/session.h"

#define MAX_PORTS	64

struct opts {
	bool json, timestamp, uid_col, count;
	int family;			/* 0, 4 or 6 */
	long uid;			/* -1: any */
	char ports[MAX_PORTS * 20];	/* -P as a kernel filter */
};

static const char usage[] =
"Trace TCP active connections (connect()).\n"
"\n"
"USAGE: tcpconnect [-hjtUcv46] [-p PID] [-P PORT[,PORT]] [-u UID] [-d SECS]\n"
"                  [--command CMD]\n"
"\n"
"  -t, --timestamp      TIME(s) column: seconds since tracing began\n"
"  -p, --pid PID        only connections made by this process\n"
"  -P, --port PORTS     only these destination ports (comma-separated)\n"
"  -U, --print-uid      UID column\n"
"  -u, --uid UID        only connections made by this UID\n"
"  -4, --ipv4           only IPv4\n"
"  -6, --ipv6           only IPv6\n"
"  -c, --count          count connects per source address, destination\n"
"                       address and port, print them at the end\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"      --command CMD    run CMD, trace only its process tree's connections,\n"
"                       end when it exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per connection (or flow)\n"
"  -v, --verbose        say which events and filters are used\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  tcpconnect              # trace all TCP connect()s\n"
"  tcpconnect -t           # include timestamps\n"
"  tcpconnect -p 181       # only PID 181\n"
"  tcpconnect -P 80,81     # only ports 80 and 81\n"
"  tcpconnect -U -u 1000   # UID column, only UID 1000\n"
"  tcpconnect -c -d 10     # count connects per flow for 10 seconds\n"
"  tcpconnect -j           # JSON Lines\n";

enum { OPT_COMMAND = 256 };

static const struct tool_option options[] = {
	{ 't', "timestamp", no_argument, NULL },
	{ 'P', "port", required_argument, NULL },
	{ 'U', "print-uid", no_argument, NULL },
	{ 'u', "uid", required_argument, NULL },
	{ '4', "ipv4", no_argument, NULL },
	{ '6', "ipv6", no_argument, NULL },
	{ 'c', "count", no_argument, NULL },
	{ OPT_COMMAND, "command", required_argument, NULL },
	{ 0 },
};

struct tcpconnect {
	struct opts o;
	struct session *s;
	struct tcp_track *track;
	uint64_t start_ns;
	struct tcp_flows flows;
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct tcpconnect */
	unsigned int ports[MAX_PORTS];
	int n;

	switch (key) {
	case 't': o->timestamp = true; break;
	case 'U': o->uid_col = true; break;
	case 'c': o->count = true; break;
	case 'u': o->uid = opt_num("-u", arg, 0, 4294967294L); break;
	case '4': case '6':
		if (o->family && o->family != key - '0')
			usage_error("-4 and -6 cannot be used together");
		o->family = key - '0';
		break;
	case 'P':
		if (tcp_ports_filter(arg, "dport", o->ports, sizeof(o->ports),
				     ports, MAX_PORTS, &n) < 0)
			usage_error("bad port list '%s' for -P: ports 1-65535, comma-separated", arg);
		break;
	case OPT_COMMAND:
		if (!*arg)
			usage_error("empty command for --command");
		t->opt.command = arg;
		break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (t->opt.command && t->opt.pid)
		usage_error("--command and -p cannot be used together");
	o->json = t->opt.json;
	t->summarises = o->count;
	return 0;
}

static void print_conn(struct tcpconnect *tc, const struct tcp_conn *c,
		       const struct tk_event *ev, long uid)
{
	char saddr[48], daddr[48], hms[16];

	tcp_addr_str(&c->e, true, saddr, sizeof(saddr));
	tcp_addr_str(&c->e, false, daddr, sizeof(daddr));
	if (tc->o.json) {
		struct json j;

		time_hms(ev->ts, hms, sizeof(hms));
		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_uint(&j, "ts_ns", time_to_real(ev->ts));
		json_double(&j, "elapsed_s", (ev->ts - tc->start_ns) / 1e9);
		json_int(&j, "uid", uid);
		json_int(&j, "pid", c->pid);
		json_int(&j, "tid", ev->pid);
		json_str(&j, "comm", c->comm);
		json_int(&j, "ip", tcp_ipver(&c->e));
		json_str(&j, "saddr", saddr);
		json_str(&j, "daddr", daddr);
		json_int(&j, "dport", c->e.dport);
		json_end(&j);
		return;
	}
	if (tc->o.timestamp)
		printf("%-9.3f", (ev->ts - tc->start_ns) / 1e9);
	if (tc->o.uid_col)
		printf("%-6ld", uid);
	printf("%-7d %-12.12s %-2d %-16s %-16s %-6u\n", c->pid, esc_str(c->comm),
	       tcp_ipver(&c->e), saddr, daddr, c->e.dport);
}

static void on_conn(void *arg, enum tcp_what what, const struct tcp_conn *c,
		    int state, const struct tk_event *ev)
{
	struct tcpconnect *tc = arg;
	long uid = -1;

	(void)state;
	if (what != TCP_EV_CONNECT)
		return;
	if (tc->o.uid_col || tc->o.uid >= 0 || tc->o.json)
		uid = task_uid(ev->pid);	/* connect() runs in it: alive */
	if (tc->o.uid >= 0 && uid != tc->o.uid)
		return;
	if (tc->o.count)
		tcp_flows_add(&tc->flows, &c->e, false);
	else
		print_conn(tc, c, ev, uid);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct tcpconnect *tc = arg;

	tcp_track_event(tc->track, ev);
}

static int setup(struct tool *t, struct loop *l)
{
	struct tcpconnect *tc = t->ctx;
	struct session_opts so = {
		.ordered = true, .pid = t->opt.pid, .tree = t->opt.tree,
		.batch_end = tool_flush_batch,
	};
	char filter[1600];
	struct tcp_track_opts to = {
		.fn = on_conn, .arg = tc, .state_filter = filter, .forget = true,
	};
	int len;

	len = snprintf(filter, sizeof(filter), "oldstate == %d && newstate == %d",
		       TCP_CLOSE, TCP_SYN_SENT);
	if (tc->o.family)
		len += snprintf(filter + len, sizeof(filter) - len, " && family == %d",
				tc->o.family == 6 ? 10 : 2);
	if (tc->o.ports[0])
		snprintf(filter + len, sizeof(filter) - len, " && %s", tc->o.ports);
	tc->s = session_new(&so);
	if (session_open(tc->s) < 0 || !(tc->track = tcp_track_new(tc->s, &to))) {
		pr_err("%s", session_error(tc->s));
		return -1;
	}
	pr_info("recording sock:inet_sock_set_state with filter protocol == 6 && (%s)",
		filter);
	if (session_start(tc->s, l, on_event, tc) < 0) {
		pr_err("%s", session_error(tc->s));
		return -1;
	}
	tc->start_ns = time_mono_ns();
	if (tc->o.count) {
		fprintf(stderr, "Tracing connect ... Hit Ctrl-C to end\n");
	} else if (!tc->o.json) {
		if (tc->o.timestamp)
			printf("%-9s", "TIME(s)");
		if (tc->o.uid_col)
			printf("%-6s", "UID");
		printf("%-7s %-12s %-2s %-16s %-16s %-6s\n", "PID", "COMM", "IP",
		       "SADDR", "DADDR", "DPORT");
	}
	tool_flush();
	return 0;
}

static void summary(struct tool *t)
{
	struct tcpconnect *tc = t->ctx;
	size_t i;

	if (tc->o.count) {
		tcp_flows_sort(&tc->flows, true);
		if (!tc->o.json)
			printf("\n%-25s %-25s %-20s %-10s\n", "LADDR", "RADDR",
			       "RPORT", "CONNECTS");
		for (i = 0; i < tc->flows.n; i++) {
			const struct tcp_flow *f = &tc->flows.v[i];
			char sa[48], da[48];

			tcp_addr_str(&f->e, true, sa, sizeof(sa));
			tcp_addr_str(&f->e, false, da, sizeof(da));
			if (tc->o.json) {
				struct json j;

				json_begin(&j, stdout);
				json_int(&j, "ip", tcp_ipver(&f->e));
				json_str(&j, "saddr", sa);
				json_str(&j, "daddr", da);
				json_int(&j, "dport", f->e.dport);
				json_uint(&j, "connects", f->n);
				json_end(&j);
			} else {
				printf("%-25s %-25s %-20u %-10llu\n", sa, da, f->e.dport,
				       (unsigned long long)f->n);
			}
		}
	}
	session_tool_summary(t);
}

static void teardown(struct tool *t)
{
	struct tcpconnect *tc = t->ctx;

	tcp_track_free(tc->track);
	tc->track = NULL;
	tcp_flows_release(&tc->flows);
	session_tool_teardown(t);
}

int main(int argc, char **argv)
{
	struct tcpconnect tc = { .o.uid = -1 };
	struct tool t = {
		.ctx = &tc,
		.usage = usage,
		.shared = TOPT_PID | TOPT_DURATION | TOPT_JSON | TOPT_VERBOSE,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = summary,
		.teardown = teardown,
		.session = &tc.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
