// SPDX-License-Identifier: GPL-2.0
/*
 * tcpaccept: trace passive TCP connections (accepted).
 *
 * A passive open is sock:inet_sock_set_state's SYN_RECV -> ESTABLISHED of
 * the listener's child socket, made in softirq when the handshake's last
 * ACK arrives: the connection is then in the accept queue, and the line is
 * printed.  That record names no process (bcc reads it at accept()'s
 * return, which has no tracepoint of its own); the process is the one
 * that called listen() on the port, seen while tracing, or for an older
 * listener the one holding it (tool/tcpsock.c).  A server that listens in
 * one process and accepts in its children is shown as the listener.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"
#include "common/json.h"
#include "common/log.h"
#include "common/opt.h"
#include "common/timefmt.h"
#include "tool/tcpsock.h"
#include "tool/tool.h"
#include "tracefs/session.h"

#define MAX_PORTS	64

struct opts {
	bool json, time, timestamp;
	int family;			/* 0, 4 or 6 */
	char ports[MAX_PORTS * 20];	/* -P as a kernel filter */
};

static const char usage[] =
"Trace TCP passive connections (accepted).\n"
"\n"
"USAGE: tcpaccept [-hjTtv46] [-p PID] [-P PORT[,PORT]] [-d SECS] [-c CMD]\n"
"\n"
"  -T, --time           TIME column: HH:MM:SS\n"
"  -t, --timestamp      TIME(s) column: seconds since tracing began\n"
"  -p, --pid PID        only connections accepted by this process\n"
"  -P, --port PORTS     only these local ports (comma-separated)\n"
"  -4, --ipv4           only IPv4\n"
"  -6, --ipv6           only IPv6\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only connections its process tree\n"
"                       accepts, end when it exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per connection\n"
"  -v, --verbose        say which events and filters are used\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  tcpaccept              # trace all TCP accepts\n"
"  tcpaccept -t           # include timestamps\n"
"  tcpaccept -p 181       # only PID 181\n"
"  tcpaccept -P 80,81     # only local ports 80 and 81\n"
"  tcpaccept -j           # JSON Lines\n";

static const struct tool_option options[] = {
	{ 'T', "time", no_argument, NULL },
	{ 't', "timestamp", no_argument, NULL },
	{ 'P', "port", required_argument, NULL },
	{ '4', "ipv4", no_argument, NULL },
	{ '6', "ipv6", no_argument, NULL },
	{ 0 },
};

struct tcpaccept {
	struct opts o;
	struct session *s;
	struct tcp_track *track;
	uint64_t start_ns;
	pid_t pid;
	bool tree;
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct tcpaccept */
	unsigned int ports[MAX_PORTS];
	int n;

	switch (key) {
	case 'T': o->time = true; break;
	case 't': o->timestamp = true; break;
	case '4': case '6':
		if (o->family && o->family != key - '0')
			usage_error("-4 and -6 cannot be used together");
		o->family = key - '0';
		break;
	case 'P':
		if (tcp_ports_filter(arg, "sport", o->ports, sizeof(o->ports),
				     ports, MAX_PORTS, &n) < 0)
			usage_error("bad port list '%s' for -P: ports 1-65535, comma-separated", arg);
		break;
	}
}

static int check(struct tool *t, int argc, char **argv, int optind)
{
	struct opts *o = t->ctx;

	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	o->json = t->opt.json;
	return 0;
}

static void on_conn(void *arg, enum tcp_what what, const struct tcp_conn *c,
		    int state, const struct tk_event *ev)
{
	struct tcpaccept *ta = arg;
	char raddr[48], laddr[48], hms[16];

	(void)state;
	if (what != TCP_EV_ACCEPT || !tcp_pid_in(c->pid, ta->pid, ta->tree))
		return;
	tcp_addr_str(&c->e, false, raddr, sizeof(raddr));
	tcp_addr_str(&c->e, true, laddr, sizeof(laddr));
	time_hms(ev->ts, hms, sizeof(hms));
	if (ta->o.json) {
		struct json j;

		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_uint(&j, "ts_ns", time_to_real(ev->ts));
		json_double(&j, "elapsed_s", (ev->ts - ta->start_ns) / 1e9);
		if (c->pid) {
			json_int(&j, "pid", c->pid);
			json_str(&j, "comm", c->comm);
		} else {
			json_null(&j, "pid");
			json_null(&j, "comm");
		}
		json_int(&j, "ip", tcp_ipver(&c->e));
		json_str(&j, "raddr", raddr);
		json_int(&j, "rport", c->e.dport);
		json_str(&j, "laddr", laddr);
		json_int(&j, "lport", c->e.sport);
		json_end(&j);
		return;
	}
	if (ta->o.time)
		printf("%-9s", hms);
	if (ta->o.timestamp)
		printf("%-9.3f", (ev->ts - ta->start_ns) / 1e9);
	printf("%-7d %-12.12s %-2d %-16s %-5u %-16s %-5u\n", c->pid,
	       c->pid ? esc_str(c->comm) : "?", tcp_ipver(&c->e), raddr,
	       c->e.dport, laddr, c->e.sport);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct tcpaccept *ta = arg;

	tcp_track_event(ta->track, ev);
}

static int setup(struct tool *t, struct loop *l)
{
	struct tcpaccept *ta = t->ctx;
	/* no PID in the session: the opens are recorded in softirq */
	struct session_opts so = {
		.ordered = true, .keep_self = true, .batch_end = tool_flush_batch,
	};
	char filter[1600];
	struct tcp_track_opts to = {
		.fn = on_conn, .arg = ta, .state_filter = filter, .listeners = true,
	};
	int len;

	ta->pid = t->opt.pid;
	ta->tree = t->opt.tree;
	/* listeners made and closed, children born, established and closed */
	len = snprintf(filter, sizeof(filter),
		       "(newstate == %d || oldstate == %d || newstate == %d || "
		       "(oldstate == %d && newstate == %d))", TCP_LISTEN, TCP_LISTEN,
		       TCP_CLOSE, TCP_SYN_RECV, TCP_ESTABLISHED);
	if (ta->o.family)
		len += snprintf(filter + len, sizeof(filter) - len, " && family == %d",
				ta->o.family == 6 ? 10 : 2);
	if (ta->o.ports[0])
		snprintf(filter + len, sizeof(filter) - len, " && %s", ta->o.ports);
	ta->s = session_new(&so);
	if (session_open(ta->s) < 0 || !(ta->track = tcp_track_new(ta->s, &to))) {
		pr_err("%s", session_error(ta->s));
		return -1;
	}
	pr_info("recording sock:inet_sock_set_state with filter protocol == 6 && (%s)",
		filter);
	if (session_start(ta->s, l, on_event, ta) < 0) {
		pr_err("%s", session_error(ta->s));
		return -1;
	}
	ta->start_ns = time_mono_ns();
	if (!ta->o.json) {
		if (ta->o.time)
			printf("%-9s", "TIME");
		if (ta->o.timestamp)
			printf("%-9s", "TIME(s)");
		printf("%-7s %-12s %-2s %-16s %-5s %-16s %-5s\n", "PID", "COMM",
		       "IP", "RADDR", "RPORT", "LADDR", "LPORT");
		tool_flush();
	}
	return 0;
}

static void teardown(struct tool *t)
{
	struct tcpaccept *ta = t->ctx;

	tcp_track_free(ta->track);
	ta->track = NULL;
	session_tool_teardown(t);
}

int main(int argc, char **argv)
{
	struct tcpaccept ta = { 0 };
	struct tool t = {
		.ctx = &ta,
		.usage = usage,
		.shared = TOPT_PID | TOPT_DURATION | TOPT_JSON | TOPT_VERBOSE |
			  TOPT_COMMAND,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = session_tool_summary,
		.teardown = teardown,
		.session = &ta.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
