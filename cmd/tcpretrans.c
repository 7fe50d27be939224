// SPDX-License-Identifier: GPL-2.0
/*
 * tcpretrans: trace or count TCP retransmits.
 *
 * tcp:tcp_retransmit_skb gives the connection's addresses, ports and state
 * at each retransmitted segment.  It fires in a timer or softirq, in
 * whatever task was running: its common_pid is what bcc prints as PID.
 * Here the PID is the socket's owner when the connection was seen made
 * (connect(), or listen() for a passive one: sock:inet_sock_set_state),
 * else the task the record was made in, as bcc's.  Tail loss probes have
 * no tracepoint (bcc's -l needs a kprobe on tcp_send_loss_probe): -l says
 * so and fails.
 */
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

struct opts {
	bool json, count, lossprobe;
	int family;			/* 0, 4 or 6 */
};

static const char usage[] =
"Trace TCP retransmits.\n"
"\n"
"USAGE: tcpretrans [-hjcv46] [-p PID] [-d SECS] [--command CMD]\n"
"\n"
"  -c, --count          count retransmits per flow, print them at the end\n"
"  -l, --lossprobe      include tail loss probes (needs kprobes: refused)\n"
"  -4, --ipv4           only IPv4\n"
"  -6, --ipv6           only IPv6\n"
"  -p, --pid PID        only connections this process made or listened for\n"
"  -d, --duration SECS  trace for SECS seconds\n"
"      --command CMD    run CMD, trace only its process tree's connections,\n"
"                       end when it exits, with its exit status\n"
"  -j, --json           JSON Lines: one object per retransmit (or flow)\n"
"  -v, --verbose        say which events and filters are used\n"
"  -h, --help           this help\n"
"\n"
"EXAMPLES:\n"
"  tcpretrans             # trace TCP retransmits\n"
"  tcpretrans -c -d 10    # count retransmits per flow for 10 seconds\n"
"  tcpretrans -4          # trace IPv4 family only\n"
"  tcpretrans -j          # JSON Lines\n";

enum { OPT_COMMAND = 256 };

static const struct tool_option options[] = {
	{ 'c', "count", no_argument, NULL },
	{ 'l', "lossprobe", no_argument, NULL },
	{ '4', "ipv4", no_argument, NULL },
	{ '6', "ipv6", no_argument, NULL },
	{ OPT_COMMAND, "command", required_argument, NULL },
	{ 0 },
};

struct tcpretrans {
	struct opts o;
	struct session *s;
	struct tcp_track *track;
	struct tcp_flows flows;
	uint64_t start_ns;
	pid_t pid;
	bool tree;
};

static void option(struct tool *t, int key, const char *arg)
{
	struct opts *o = t->ctx;	/* the first member of struct tcpretrans */

	switch (key) {
	case 'c': o->count = true; break;
	case 'l': o->lossprobe = true; break;
	case '4': case '6':
		if (o->family && o->family != key - '0')
			usage_error("-4 and -6 cannot be used together");
		o->family = key - '0';
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
	if (o->lossprobe) {
		pr_err("cannot trace tail loss probes (-l): no tracepoint marks them, and kprobes (tcp_send_loss_probe) are needed");
		return -1;
	}
	o->json = t->opt.json;
	t->summarises = o->count;
	return 0;
}

static void on_conn(void *arg, enum tcp_what what, const struct tcp_conn *c,
		    int state, const struct tk_event *ev)
{
	struct tcpretrans *tr = arg;
	char laddr[64], raddr[64], hms[16], ip[48];
	pid_t pid = c->pid;

	if (what != TCP_EV_RETRANS || !tcp_pid_in(c->pid, tr->pid, tr->tree))
		return;
	if (tr->o.count) {
		tcp_flows_add(&tr->flows, &c->e, true);
		return;
	}
	if (!pid) {		/* bcc's answer: the task interrupted */
		pid = task_cache_tgid(ev->pid);
		pid = pid > 0 ? pid : ev->pid;
	}
	time_hms(ev->ts, hms, sizeof(hms));
	if (tr->o.json) {
		struct json j;

		tcp_addr_str(&c->e, true, laddr, sizeof(laddr));
		tcp_addr_str(&c->e, false, raddr, sizeof(raddr));
		json_begin(&j, stdout);
		json_str(&j, "time", hms);
		json_uint(&j, "ts_ns", time_to_real(ev->ts));
		json_double(&j, "elapsed_s", (ev->ts - tr->start_ns) / 1e9);
		json_int(&j, "pid", pid);
		json_bool(&j, "owner", c->pid != 0);
		if (c->pid)
			json_str(&j, "comm", c->comm);
		json_int(&j, "ip", tcp_ipver(&c->e));
		json_str(&j, "laddr", laddr);
		json_int(&j, "lport", c->e.sport);
		json_str(&j, "raddr", raddr);
		json_int(&j, "rport", c->e.dport);
		json_str(&j, "type", "R");
		json_str(&j, "state", tcp_state_name(state));
		json_end(&j);
		return;
	}
	snprintf(laddr, sizeof(laddr), "%s:%u",
		 tcp_addr_str(&c->e, true, ip, sizeof(ip)), c->e.sport);
	snprintf(raddr, sizeof(raddr), "%s:%u",
		 tcp_addr_str(&c->e, false, ip, sizeof(ip)), c->e.dport);
	printf("%-8s %-6d %-2d %-20s %1s> %-20s %s\n", hms, pid, tcp_ipver(&c->e),
	       laddr, "R", raddr, tcp_state_name(state));
}

static void on_event(const struct tk_event *ev, void *arg)
{
	struct tcpretrans *tr = arg;

	tcp_track_event(tr->track, ev);
}

static int setup(struct tool *t, struct loop *l)
{
	struct tcpretrans *tr = t->ctx;
	/* no PID in the session: retransmits are made in timers and softirq */
	struct session_opts so = {
		.ordered = true, .keep_self = true, .batch_end = tool_flush_batch,
	};
	char family[32] = "";
	/* the owners: connect(), listen() and its children; and the ends */
	char states[256];
	struct tcp_track_opts to = {
		.fn = on_conn, .arg = tr, .retrans = true, .listeners = true,
		.state_filter = states, .retrans_filter = family,
	};

	tr->pid = t->opt.pid;
	tr->tree = t->opt.tree;
	if (tr->o.family)
		snprintf(family, sizeof(family), "family == %d",
			 tr->o.family == 6 ? 10 : 2);
	snprintf(states, sizeof(states),
		 "(newstate == %d || oldstate == %d || newstate == %d || oldstate == %d)%s%s",
		 TCP_SYN_SENT, TCP_LISTEN, TCP_LISTEN, TCP_SYN_SENT,
		 family[0] ? " && " : "", family);
	tr->s = session_new(&so);
	if (session_open(tr->s) < 0 || !(tr->track = tcp_track_new(tr->s, &to))) {
		pr_err("%s", session_error(tr->s));
		return -1;
	}
	pr_info("recording tcp:tcp_retransmit_skb%s%s, and sock:inet_sock_set_state with filter protocol == 6 && %s",
		family[0] ? " with filter " : "", family, states);
	if (session_start(tr->s, l, on_event, tr) < 0) {
		pr_err("%s", session_error(tr->s));
		return -1;
	}
	tr->start_ns = time_mono_ns();
	if (tr->o.count)
		fprintf(stderr, "Tracing retransmits ... Hit Ctrl-C to end\n");
	else if (!tr->o.json)
		printf("%-8s %-6s %-2s %-20s %1s> %-20s %-4s\n", "TIME", "PID", "IP",
		       "LADDR:LPORT", "T", "RADDR:RPORT", "STATE");
	tool_flush();
	return 0;
}

static void summary(struct tool *t)
{
	struct tcpretrans *tr = t->ctx;
	size_t i;

	if (tr->o.count) {
		tcp_flows_sort(&tr->flows, false);
		if (!tr->o.json)
			printf("\n%-25s %-25s %-10s\n", "LADDR:LPORT", "RADDR:RPORT",
			       "RETRANSMITS");
		for (i = 0; i < tr->flows.n; i++) {
			const struct tcp_flow *f = &tr->flows.v[i];
			char sa[48], da[48], l[64], r[64];

			tcp_addr_str(&f->e, true, sa, sizeof(sa));
			tcp_addr_str(&f->e, false, da, sizeof(da));
			if (tr->o.json) {
				struct json j;

				json_begin(&j, stdout);
				json_int(&j, "ip", tcp_ipver(&f->e));
				json_str(&j, "laddr", sa);
				json_int(&j, "lport", f->e.sport);
				json_str(&j, "raddr", da);
				json_int(&j, "rport", f->e.dport);
				json_uint(&j, "retransmits", f->n);
				json_end(&j);
				continue;
			}
			snprintf(l, sizeof(l), "[%s]#%u", sa, f->e.sport);
			snprintf(r, sizeof(r), "[%s]#%u", da, f->e.dport);
			printf("%-20s <-> %-20s %10llu\n", l, r,
			       (unsigned long long)f->n);
		}
	}
	session_tool_summary(t);
}

static void teardown(struct tool *t)
{
	struct tcpretrans *tr = t->ctx;

	tcp_track_free(tr->track);
	tr->track = NULL;
	tcp_flows_release(&tr->flows);
	session_tool_teardown(t);
}

int main(int argc, char **argv)
{
	struct tcpretrans tr = { 0 };
	struct tool t = {
		.ctx = &tr,
		.usage = usage,
		.shared = TOPT_PID | TOPT_DURATION | TOPT_JSON | TOPT_VERBOSE,
		.options = options,
		.option = option,
		.check = check,
		.setup = setup,
		.drain = session_tool_drain,
		.summary = summary,
		.teardown = teardown,
		.session = &tr.s,
	};

	log_init(argv[0]);
	return tool_run(&t, argc, argv);
}
