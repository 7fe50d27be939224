// SPDX-License-Identifier: GPL-2.0
/*
 * tracetop's "net" feeder: TCP by connection.
 *
 *	sock:inet_sock_set_state	every TCP state change, with the
 *					connection's addresses and ports: the
 *					socket (its kernel address) is learnt
 *					here (kept after CLOSE: data
 *					received before it is read after)
 *	sock:sock_send_length		bytes sent / received by a socket
 *	sock:sock_recv_length		(6.4 and later), mapped to the
 *					connection by the socket's address
 *	tcp:tcp_retransmit_skb		a retransmission, with its addresses
 *
 * Keys are the local and remote address:port as text ("10.0.0.1:22",
 * "[::1]:8080").  The process is the one that last sent or received on the
 * socket, or connected it (a state change is often made in softirq, in
 * whatever task was interrupted, so it names no process).  Connections
 * made before tracing began are unknown to the sock records: their bytes
 * are not counted (their retransmits are).  A kernel without the length
 * tracepoints leaves the byte columns empty, and says so with -v.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/task.h"
#include "tool/tcpsock.h"
#include "tool/top_int.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

enum {
	F_LADDR, F_RADDR, F_PID, F_COMM, F_TX, F_RX, F_RETRANS, F_STATE,
	F_NEWSTATE, F_SK, F_N
};

static const struct top_field fields[F_N] = {
	[F_LADDR]    = { "laddr", "LADDR", AGT_STR, AGT_PLAIN, 17 },
	[F_RADDR]    = { "raddr", "RADDR", AGT_STR, AGT_PLAIN, 17 },
	[F_PID]      = { "pid", "PID", AGT_INT, AGT_PLAIN, 7 },
	[F_COMM]     = { "comm", "COMM", AGT_STR, AGT_PLAIN, 15 },
	[F_TX]       = { "tx", "TX", AGT_INT, AGT_BYTES, 0 },
	[F_RX]       = { "rx", "RX", AGT_INT, AGT_BYTES, 0 },
	[F_RETRANS]  = { "retrans", "RETRANS", AGT_INT, AGT_PLAIN, 0 },
	[F_STATE]    = { "state", "STATES", AGT_INT, AGT_PLAIN, 0 },
	[F_NEWSTATE] = { "newstate", "STATE", AGT_STR, AGT_PLAIN, 11 },
	[F_SK]       = { "sk", "SK", AGT_INT, AGT_HEX, 0 },
};

struct conn {
	char laddr[48], raddr[48];
	pid_t pid;		/* 0: no process seen yet */
	char comm[16];
	int pending;		/* state changes before the local port was
				 * known (connect() binds it after SYN_SENT) */
};

#define MAX_CONNS	65536

struct net {
	struct top_feed *f;
	int state_id, send_id, recv_id, retrans_id;
	struct tcp_fields st, rt;
	struct tk_field st_old, st_new;
	struct tk_field send_sk, send_ret, recv_sk, recv_ret;
	struct hmap *conns;	/* sk -> struct conn */
};

static int net_init(struct top_feed *f)
{
	f->fields = fields;
	f->nfields = F_N;
	return 0;
}

/* Both ends of @ev's connection as text into @c. */
static void endpoints(const struct tk_event *ev, const struct tcp_fields *f,
		      struct conn *c, struct tcp_ends *e)
{
	tcp_ends_read(ev, f, e);
	tcp_endpoint_str(e, true, c->laddr, sizeof(c->laddr));
	tcp_endpoint_str(e, false, c->raddr, sizeof(c->raddr));
}

static void emit(struct net *n, const struct tk_event *ev, const struct conn *c,
		 int what, int64_t v, const char *newstate, uint64_t sk)
{
	struct agt_sample s;

	memset(&s, 0, sizeof(s));
	s.str[F_LADDR] = c->laddr;
	s.str[F_RADDR] = c->raddr;
	s.num[F_PID] = c->pid;
	s.str[F_COMM] = c->comm;
	s.num[F_TX] = what == F_TX ? v : 0;
	s.num[F_RX] = what == F_RX ? v : 0;
	s.num[F_RETRANS] = what == F_RETRANS;
	s.num[F_STATE] = what == F_STATE ? v : 0;
	s.str[F_NEWSTATE] = newstate;
	s.num[F_SK] = (int64_t)sk;
	s.have = (1ull << F_N) - 1;
	if (!c->pid)
		s.have &= ~(1ull << F_PID | 1ull << F_COMM);
	if (!newstate)
		s.have &= ~(1ull << F_NEWSTATE);
	if (!n->send_id)	/* no length tracepoints: no bytes */
		s.have &= ~(1ull << F_TX | 1ull << F_RX);
	top_emit(n->f, ev, &s);
}

static void own(struct top_feed *f, struct conn *c, pid_t tid)
{
	pid_t tgid = task_cache_tgid(tid);

	c->pid = tgid > 0 ? tgid : tid;
	snprintf(c->comm, sizeof(c->comm), "%s", session_comm(f->s, tid));
}

static void on_state(struct net *n, const struct tk_event *ev)
{
	int old = (int)field_int(ev, &n->st_old);
	int new = (int)field_int(ev, &n->st_new);
	uint64_t sk = (uint64_t)field_int(ev, &n->st.sk);
	struct conn *c = hmap_get(n->conns, sk, false);
	struct tcp_ends e;

	if (!c) {
		if (hmap_count(n->conns) >= MAX_CONNS)
			hmap_clear(n->conns);
		c = hmap_get(n->conns, sk, true);
	}
	/* a socket's life begins (its address may be a closed one's) */
	if (new == TCP_SYN_SENT || new == TCP_SYN_RECV || new == TCP_LISTEN)
		memset(c, 0, sizeof(*c));
	endpoints(ev, &n->st, c, &e);
	/* connect() runs in its process; other changes may not */
	if (old == TCP_CLOSE && new == TCP_SYN_SENT)
		own(n->f, c, ev->pid);
	if (!e.sport) {	/* not bound yet: later */
		c->pending++;
		return;
	}
	emit(n, ev, c, F_STATE, 1 + c->pending, tcp_state_name(new), sk);
	c->pending = 0;
	/* kept after CLOSE: data read after the peer's FIN comes later */
}

static void on_length(struct net *n, const struct tk_event *ev, bool send)
{
	uint64_t sk = (uint64_t)field_int(ev, send ? &n->send_sk : &n->recv_sk);
	int64_t ret = field_int(ev, send ? &n->send_ret : &n->recv_ret);
	struct conn *c;

	if (ret <= 0)
		return;
	c = hmap_get(n->conns, sk, false);
	if (!c)		/* not a TCP connection we saw made */
		return;
	own(n->f, c, ev->pid);
	emit(n, ev, c, send ? F_TX : F_RX, ret, NULL, sk);
}

static void on_retransmit(struct net *n, const struct tk_event *ev)
{
	uint64_t sk = (uint64_t)field_int(ev, &n->rt.sk);
	struct conn *c = hmap_get(n->conns, sk, false);
	struct tcp_ends e;
	struct conn tmp;

	if (!c) {
		memset(&tmp, 0, sizeof(tmp));
		endpoints(ev, &n->rt, &tmp, &e);
		c = &tmp;
	}
	emit(n, ev, c, F_RETRANS, 1, NULL, sk);
}

static void net_event(struct top_feed *f, const struct tk_event *ev)
{
	struct net *n = f->priv;

	if (ev->id == n->send_id)
		on_length(n, ev, true);
	else if (ev->id == n->recv_id)
		on_length(n, ev, false);
	else if (ev->id == n->state_id)
		on_state(n, ev);
	else if (ev->id == n->retrans_id)
		on_retransmit(n, ev);
}

static int bad_format(struct top_feed *f, const char *ev)
{
	snprintf(f->err, sizeof(f->err), "net: unexpected format of %s", ev);
	return -ENOENT;
}

static int net_setup(struct top_feed *f)
{
	struct net *n = xcalloc(1, sizeof(*n));
	struct tp *st, *snd = NULL, *rcv = NULL, *rt;
	const char *tcp = "protocol == 6";	/* IPPROTO_TCP */

	f->priv = n;
	n->f = f;
	n->conns = hmap_new(sizeof(struct conn));
	st = session_add(f->s, "sock", "inet_sock_set_state", TP_RECORD, tcp);
	rt = st ? session_add(f->s, "tcp", "tcp_retransmit_skb", TP_RECORD, NULL)
		: NULL;
	if (!rt) {
		snprintf(f->err, sizeof(f->err), "net: %s", session_error(f->s));
		return errno ? -errno : -ENOENT;
	}
	if (format_event_id("sock", "sock_send_length") >= 0 &&
	    format_event_id("sock", "sock_recv_length") >= 0) {
		snd = session_add(f->s, "sock", "sock_send_length", TP_RECORD, tcp);
		rcv = snd ? session_add(f->s, "sock", "sock_recv_length",
					TP_RECORD, tcp) : NULL;
		if (!rcv) {
			snprintf(f->err, sizeof(f->err), "net: %s", session_error(f->s));
			return errno ? -errno : -ENOENT;
		}
	}
	n->state_id = st->id;
	n->retrans_id = rt->id;
	if (tcp_fields_find(st->event, "skaddr", &n->st) ||
	    format_field(st->event, "oldstate", &n->st_old) ||
	    format_field(st->event, "newstate", &n->st_new))
		return bad_format(f, "sock:inet_sock_set_state");
	if (tcp_fields_find(rt->event, "skaddr", &n->rt))
		return bad_format(f, "tcp:tcp_retransmit_skb");
	if (snd) {
		n->send_id = snd->id;
		n->recv_id = rcv->id;
		if (format_field(snd->event, "sk", &n->send_sk) ||
		    format_field(snd->event, "ret", &n->send_ret) ||
		    format_field(rcv->event, "sk", &n->recv_sk) ||
		    format_field(rcv->event, "ret", &n->recv_ret))
			return bad_format(f, "sock:sock_send_length");
	}
	if (f->verbose)
		pr_info(snd ? "net: TCP connections from sock:inet_sock_set_state, bytes from sock:sock_send_length and sock:sock_recv_length, retransmits from tcp:tcp_retransmit_skb"
			    : "net: this kernel has no sock:sock_send_length/sock_recv_length (6.4 and later): no bytes; TCP connections from sock:inet_sock_set_state, retransmits from tcp:tcp_retransmit_skb");
	return 0;
}

static void net_release(struct top_feed *f)
{
	struct net *n = f->priv;

	if (!n)
		return;
	hmap_free(n->conns);
	free(n);
	f->priv = NULL;
}

const struct top_feeder top_feed_net = {
	.name = "net",
	.init = net_init,
	.setup = net_setup,
	.event = net_event,
	.release = net_release,
	.ordered = true,
	.keep_self = true,
	.scope_by_field = true,
	.pid_field = "pid",
};
