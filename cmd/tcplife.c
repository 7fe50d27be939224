// SPDX-License-Identifier: GPL-2.0
/*
 * tcplife: one line per TCP session, when it closes, with its bytes and
 * its lifespan.
 *
 * sock:inet_sock_set_state gives the birth (SYN_SENT or SYN_RECV) and the
 * close; sock:sock_send_length and sock:sock_recv_length (6.4 and later)
 * give the bytes each sendmsg()/recvmsg() moved on the socket, in the
 * calling task, which owns the session (tool/tcpsock.c).  bcc reads the
 * socket's bytes_acked and bytes_received instead: the two differ only
 * when a session ends with data sent but never acknowledged (a reset), or
 * received but never read.  Sessions born before tracing began are not
 * shown, as bcc does not show them.
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
	bool json, time, timestamp, wide, csv;
	int family;			/* 0, 4 or 6 */
	unsigned int lports[MAX_PORTS], dports[MAX_PORTS];
	int nlports, ndports;
};

static const char usage[] =
"Trace the lifespan of TCP sessions and summarize.\n"
"\n"
"USAGE: tcplife [-hjTtwsv46] [-p PID] [-L PORT[,PORT]] [-D PORT[,PORT]]\n"
"               [-d SECS] [-c CMD]\n"
"\n"
"  -T, --time           TIME column: HH:MM:SS\n"
"  -t, --timestamp      TIME(s) column: seconds since tracing began\n"
"  -w, --wide           wide columns (fit IPv6 addresses), IP column\n"
"  -s, --csv            comma-separated values\n"
"  -p, --pid PID        only sessions of this process\n"
"  -L, --localport PORTS   only these local ports (comma-separated)\n"
"  -D, --remoteport PORTS  only these remote ports (comma-separated)\n"
"  -4, --ipv4           only IPv4\n"
"  -6, --ipv6           only IPv6\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"  -c, --command CMD    run CMD, trace only its process tree's sessions,\n"
"                       end when it exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per session\n"
"  -v, --verbose        say which events and filters are used\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  tcplife                # trace all TCP connect()s\n"
"  tcplife -t             # include time column (seconds)\n"
"  tcplife -w             # wider columns (fit IPv6)\n"
"  tcplife -p 181         # only PID 181\n"
"  tcplife -L 80          # only local port 80\n"
"  tcplife -L 80,81       # only local ports 80 and 81\n"
"  tcplife -D 80          # only remote port 80\n"
"  tcplife -j             # JSON Lines, exact bytes\n";

static const struct tool_option options[] = {
	{ 'T', "time", no_argument, NULL },
	{ 't', "timestamp", no_argument, NULL },
	{ 'w', "wide", no_argument, NULL },
	{ 's', "csv", no_argument, NULL },
	{ 'L', "localport", required_argument, NULL },
	{ 'D', "remoteport", required_argument, NULL },
	{ '4', "ipv4", no_argument, NULL },
	{ '6', "ipv6", no_argument, NULL },
	{ 0 },
};

struct tcplife {
	struct opts o;
	struct session *s;
	struct tcp_track *track;
	uint64_t start_ns;
	pid_t pid;
	bool tree;
};

static void ports(const char *opt, const char *arg, unsigned int *v, int *n)
{
	char filter[MAX_PORTS * 20];

	if (tcp_ports_filter(arg, "port", filter, sizeof(filter), v, MAX_PORTS, n) < 0)
		usage_error("bad port list '%s' for %s: ports 1-65535, comma-separated",
			    arg, opt);
}

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct tcplife */

	switch (key) {
	case 'T': o->time = true; break;
	case 't': o->timestamp = true; break;
	case 'w': o->wide = true; break;
	case 's': o->csv = true; break;
	case 'L': ports("-L", arg, o->lports, &o->nlports); break;
	case 'D': ports("-D", arg, o->dports, &o->ndports); break;
	case '4': case '6':
		if (o->family && o->family != key - '0')
			usage_error("-4 and -6 cannot be used together");
		o->family = key - '0';
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

static bool port_in(const unsigned int *v, int n, unsigned int port)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == port)
			return true;
	return !n;
}

static void print_json(struct tcplife *tl, const struct tcp_conn *c,
		       const struct tk_event *ev, const char *laddr,
		       const char *raddr, const char *hms)
{
	struct json j;

	json_begin(&j, stdout);
	json_str(&j, "time", hms);
	json_uint(&j, "ts_ns", time_to_real(ev->ts));
	json_double(&j, "elapsed_s", (ev->ts - tl->start_ns) / 1e9);
	if (c->pid) {
		json_int(&j, "pid", c->pid);
		json_str(&j, "comm", c->comm);
	} else {
		json_null(&j, "pid");
		json_null(&j, "comm");
	}
	json_int(&j, "ip", tcp_ipver(&c->e));
	json_str(&j, "laddr", laddr);
	json_int(&j, "lport", c->e.sport);
	json_str(&j, "raddr", raddr);
	json_int(&j, "rport", c->e.dport);
	json_uint(&j, "tx_bytes", c->tx);
	json_uint(&j, "rx_bytes", c->rx);
	json_uint(&j, "tx_kb", c->tx / 1024);
	json_uint(&j, "rx_kb", c->rx / 1024);
	json_double(&j, "ms", (c->closed - c->birth) / 1e6);
	json_bool(&j, "active", c->active);
	json_end(&j);
}

static void on_conn(void *arg, enum tcp_what what, const struct tcp_conn *c,
		    int state, const struct tk_event *ev)
{
	struct tcplife *tl = arg;
	const struct opts *o = &tl->o;
	char laddr[48], raddr[48], hms[16];
	const char *comm = c->pid ? esc_str(c->comm) : "?";
	double ms = (c->closed - c->birth) / 1e6;
	unsigned long long txk = c->tx / 1024, rxk = c->rx / 1024;

	(void)state;
	if (what != TCP_EV_CLOSE || !c->birth ||
	    (o->family && tcp_ipver(&c->e) != o->family) ||
	    !port_in(o->lports, o->nlports, c->e.sport) ||
	    !port_in(o->dports, o->ndports, c->e.dport) ||
	    !tcp_pid_in(c->pid, tl->pid, tl->tree))
		return;
	tcp_addr_str(&c->e, true, laddr, sizeof(laddr));
	tcp_addr_str(&c->e, false, raddr, sizeof(raddr));
	time_hms(ev->ts, hms, sizeof(hms));
	if (o->json) {
		print_json(tl, c, ev, laddr, raddr, hms);
		return;
	}
	if (o->time)
		printf(o->csv ? "%s," : "%-8s ", hms);
	if (o->timestamp)
		printf(o->csv ? "%.6f," : "%-9.6f ", (ev->ts - tl->start_ns) / 1e9);
	if (o->csv)
		printf("%d,%s,%d,%s,%u,%s,%u,%llu,%llu,%.2f\n", c->pid, comm,
		       tcp_ipver(&c->e), laddr, c->e.sport, raddr, c->e.dport,
		       txk, rxk, ms);
	else if (o->wide)
		printf("%-5d %-16.16s %-2d %-26s %-5u %-26s %-5u %6llu %6llu %.2f\n",
		       c->pid, comm, tcp_ipver(&c->e), laddr, c->e.sport, raddr,
		       c->e.dport, txk, rxk, ms);
	else
		printf("%-5d %-10.10s %-15s %-5u %-15s %-5u %5llu %5llu %.2f\n",
		       c->pid, comm, laddr, c->e.sport, raddr, c->e.dport, txk,
		       rxk, ms);
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct tcplife *tl = arg;

	tcp_track_event(tl->track, ev);
}

static void header(const struct opts *o)
{
	if (o->time)
		printf(o->csv ? "%s," : "%-8s ", "TIME");
	if (o->timestamp)
		printf(o->csv ? "%s," : "%-9s ", "TIME(s)");
	if (o->csv)
		printf("PID,COMM,IP,LADDR,LPORT,RADDR,RPORT,TX_KB,RX_KB,MS\n");
	else if (o->wide)
		printf("%-5s %-16.16s %-2s %-26s %-5s %-26s %-5s %6s %6s %s\n",
		       "PID", "COMM", "IP", "LADDR", "LPORT", "RADDR", "RPORT",
		       "TX_KB", "RX_KB", "MS");
	else
		printf("%-5s %-10.10s %-15s %-5s %-15s %-5s %5s %5s %s\n", "PID",
		       "COMM", "LADDR", "LPORT", "RADDR", "RPORT", "TX_KB",
		       "RX_KB", "MS");
}

static int setup(struct tool *t, struct loop *l)
{
	struct tcplife *tl = t->ctx;
	/* no PID in the session: state changes are made in softirq */
	struct session_opts so = {
		.ordered = true, .keep_self = true, .batch_end = tool_flush_batch,
	};
	char filter[32] = "";
	struct tcp_track_opts to = {
		.fn = on_conn, .arg = tl, .bytes = true, .destroy = true,
		.listeners = true,
		.state_filter = filter,
	};

	tl->pid = t->opt.pid;
	tl->tree = t->opt.tree;
	if (tl->o.family)
		snprintf(filter, sizeof(filter), "family == %d",
			 tl->o.family == 6 ? 10 : 2);
	if (!tcp_track_has_bytes()) {
		pr_err("this kernel has no sock:sock_send_length/sock_recv_length tracepoints (Linux 6.4 and later): no bytes per session");
		return -1;
	}
	tl->s = session_new(&so);
	if (session_open(tl->s) < 0 || !(tl->track = tcp_track_new(tl->s, &to))) {
		pr_err("%s", session_error(tl->s));
		return -1;
	}
	pr_info("recording sock:inet_sock_set_state, sock:sock_send_length and sock:sock_recv_length (protocol == 6%s%s)",
		filter[0] ? " && " : "", filter);
	if (session_start(tl->s, l, on_event, tl) < 0) {
		pr_err("%s", session_error(tl->s));
		return -1;
	}
	tl->start_ns = time_mono_ns();
	if (!tl->o.json) {
		header(&tl->o);
		tool_flush();
	}
	return 0;
}

static void teardown(struct tool *t)
{
	struct tcplife *tl = t->ctx;

	tcp_track_free(tl->track);
	tl->track = NULL;
	session_tool_teardown(t);
}

int main(int argc, char **argv)
{
	struct tcplife tl = { 0 };
	struct tool t = {
		.ctx = &tl,
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
		.session = &tl.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
