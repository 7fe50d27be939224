// SPDX-License-Identifier: GPL-2.0
/*
 * TCP connections from the sock and tcp tracepoints (see tcpsock.h).
 *
 * What one connection looks like in sock:inet_sock_set_state (loopback,
 * 6.x): the client's CLOSE -> SYN_SENT in connect(), with the local port
 * still 0 (inet_hash_connect() picks it just after); its SYN_SENT ->
 * ESTABLISHED in softirq; the server's child socket LISTEN -> SYN_RECV ->
 * ESTABLISHED in softirq, when the handshake's last ACK arrives (the
 * request sock before it makes no state change); then FIN_WAIT1/2 or
 * CLOSE_WAIT -> LAST_ACK and -> CLOSE on each side.  close() and
 * shutdown() make FIN_WAIT1 and LAST_ACK in the closing task.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/hmap.h"
#include "common/log.h"
#include "common/sockowner.h"
#include "common/task.h"
#include "tool/tcpsock.h"
#include "tracefs/format.h"
#include "tracefs/session.h"

static const char *const states[] = {
	"?", "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
	"TIME_WAIT", "CLOSE", "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
	"NEW_SYN_RECV",
};

const char *tcp_state_name(int state)
{
	if (state < 1 || state >= (int)(sizeof(states) / sizeof(states[0])))
		return "?";
	return states[state];
}

int tcp_fields_find(const struct tep_event *ev, const char *skname,
		    struct tcp_fields *f)
{
	return format_field(ev, skname, &f->sk) ||
	       format_field(ev, "sport", &f->sport) ||
	       format_field(ev, "dport", &f->dport) ||
	       format_field(ev, "family", &f->family) ||
	       format_field(ev, "saddr", &f->saddr) ||
	       format_field(ev, "daddr", &f->daddr) ||
	       format_field(ev, "saddr_v6", &f->saddr6) ||
	       format_field(ev, "daddr_v6", &f->daddr6) ? -ENOENT : 0;
}

static void copy_addr(const struct tk_event *ev, const struct tk_field *f,
		      int size, unsigned char *out)
{
	memset(out, 0, 16);
	if (f->offset >= 0 && f->size == size &&
	    (unsigned int)(f->offset + f->size) <= ev->size)
		memcpy(out, (const unsigned char *)ev->data + f->offset, size);
}

void tcp_ends_read(const struct tk_event *ev, const struct tcp_fields *f,
		   struct tcp_ends *e)
{
	bool v6;

	e->sk = (uint64_t)field_int(ev, &f->sk);
	e->family = (int)field_int(ev, &f->family);
	e->sport = (unsigned int)field_int(ev, &f->sport);
	e->dport = (unsigned int)field_int(ev, &f->dport);
	v6 = e->family == AF_INET6;
	copy_addr(ev, v6 ? &f->saddr6 : &f->saddr, v6 ? 16 : 4, e->saddr);
	copy_addr(ev, v6 ? &f->daddr6 : &f->daddr, v6 ? 16 : 4, e->daddr);
}

int tcp_ipver(const struct tcp_ends *e)
{
	return e->family == AF_INET6 ? 6 : 4;
}

const char *tcp_addr_str(const struct tcp_ends *e, bool local, char *buf,
			 size_t n)
{
	int af = e->family == AF_INET6 ? AF_INET6 : AF_INET;

	if (!inet_ntop(af, local ? e->saddr : e->daddr, buf, (socklen_t)n))
		snprintf(buf, n, "?");
	return buf;
}

const char *tcp_endpoint_str(const struct tcp_ends *e, bool local, char *buf,
			     size_t n)
{
	char ip[INET6_ADDRSTRLEN];

	tcp_addr_str(e, local, ip, sizeof(ip));
	snprintf(buf, n, e->family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip,
		 local ? e->sport : e->dport);
	return buf;
}

int tcp_ports_filter(const char *list, const char *field, char *buf, size_t len,
		     unsigned int *ports, int max, int *n)
{
	const char *p = list;
	size_t used = 0;

	*n = 0;
	buf[0] = '\0';
	while (*p) {
		char *end;
		long v;

		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v < 1 || v > 65535 ||
		    (*end && *end != ',') || *n >= max)
			return -EINVAL;
		ports[(*n)++] = (unsigned int)v;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0,
					 "%s%s == %ld", *n > 1 ? " || " : "(",
					 field, v);
		p = *end ? end + 1 : end;
		if (*end && !*p)
			return -EINVAL;		/* a trailing comma */
	}
	if (!*n || used + 2 > len)
		return -EINVAL;
	strcat(buf, ")");
	return 0;
}

bool tcp_pid_in(pid_t pid, pid_t target, bool tree)
{
	int depth;

	if (!target)
		return true;
	if (pid <= 0)
		return false;
	for (depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == target)
			return true;
		if (!tree)
			return false;
		pid = task_ppid(pid);
	}
	return false;
}

#define MAX_FLOWS	65536

bool tcp_flows_add(struct tcp_flows *f, const struct tcp_ends *e, bool sport)
{
	struct tcp_flow *fl;
	unsigned int port = sport ? e->sport : 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		fl = &f->v[i];
		if (fl->e.family == e->family && fl->e.dport == e->dport &&
		    fl->e.sport == port && !memcmp(fl->e.saddr, e->saddr, 16) &&
		    !memcmp(fl->e.daddr, e->daddr, 16)) {
			fl->n++;
			return true;
		}
	}
	if (f->n >= MAX_FLOWS)
		return false;
	if (!(f->n & (f->n + 1)))	/* 0, 1, 3, 7...: full, grow */
		f->v = xrealloc(f->v, (f->n * 2 + 2) * sizeof(*fl));
	fl = &f->v[f->n++];
	fl->e = *e;
	fl->e.sk = 0;
	fl->e.sport = port;
	fl->n = 1;
	return true;
}

static int flow_asc(const void *a, const void *b)
{
	const struct tcp_flow *x = a, *y = b;

	return x->n < y->n ? -1 : x->n > y->n ? 1 : 0;
}

static int flow_desc(const void *a, const void *b)
{
	return flow_asc(b, a);
}

void tcp_flows_sort(struct tcp_flows *f, bool desc)
{
	if (f->n)
		qsort(f->v, f->n, sizeof(*f->v), desc ? flow_desc : flow_asc);
}

void tcp_flows_release(struct tcp_flows *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

/* ---- the tracker ---- */

#define MAX_CONNS	65536

struct owner {
	pid_t pid;		/* -1: looked for, not found */
	char comm[16];
};

struct tcp_track {
	struct tcp_track_opts o;
	struct session *s;
	int state_id, send_id, recv_id, retrans_id, destroy_id;
	struct tcp_fields st, rt;
	struct tk_field st_old, st_new, rt_state;
	struct tk_field send_sk, send_ret, recv_sk, recv_ret, destroy_sk;
	struct hmap *conns;		/* sk -> struct tcp_conn */
	struct hmap *listeners;		/* family << 16 | port -> struct owner */
};

bool tcp_track_has_bytes(void)
{
	return format_event_id("sock", "sock_send_length") >= 0 &&
	       format_event_id("sock", "sock_recv_length") >= 0;
}

static struct tp *add(struct tcp_track *t, const char *sys, const char *name,
		      const char *base, const char *more)
{
	char filter[512];

	snprintf(filter, sizeof(filter), more && *more ? "%s && (%s)" : "%s",
		 base, more);
	return session_add(t->s, sys, name, TP_RECORD, filter);
}

static struct owner *listener(struct tcp_track *t, const struct tcp_ends *e,
			      bool create);

/* The listeners there before tracing, and who holds them. */
static void known_listeners(struct tcp_track *t)
{
	struct sockowner *v = NULL;
	int n = sockowner_listeners(&v), i;

	for (i = 0; i < n; i++) {
		struct tcp_ends e = { .family = v[i].family, .sport = v[i].port };
		struct owner *l;

		if (!v[i].pid)
			continue;
		l = listener(t, &e, true);
		l->pid = v[i].pid;
		if (task_comm(l->pid, l->comm, sizeof(l->comm)) < 0)
			l->pid = 0;	/* gone: look again when used */
	}
	free(v);
}

struct tcp_track *tcp_track_new(struct session *s, const struct tcp_track_opts *o)
{
	struct tcp_track *t = xcalloc(1, sizeof(*t));
	struct tp *st, *rt, *snd, *rcv;
	int err;

	t->o = *o;
	t->s = s;
	t->state_id = t->send_id = t->recv_id = t->retrans_id = -1;
	t->destroy_id = -1;
	st = add(t, "sock", "inet_sock_set_state", "protocol == 6", o->state_filter);
	if (!st)
		goto fail;
	t->state_id = st->id;
	if (tcp_fields_find(st->event, "skaddr", &t->st) ||
	    format_field(st->event, "oldstate", &t->st_old) ||
	    format_field(st->event, "newstate", &t->st_new))
		goto bad;
	if (o->retrans) {
		rt = add(t, "tcp", "tcp_retransmit_skb", "sport != 0", o->retrans_filter);
		if (!rt)
			goto fail;
		t->retrans_id = rt->id;
		if (tcp_fields_find(rt->event, "skaddr", &t->rt) ||
		    format_field(rt->event, "state", &t->rt_state))
			goto bad;
	}
	if (o->bytes) {
		snd = add(t, "sock", "sock_send_length", "protocol == 6 && ret > 0", NULL);
		/* MSG_PEEK (2) reads nothing off the socket */
		rcv = snd ? add(t, "sock", "sock_recv_length",
				"protocol == 6 && ret > 0 && !(flags & 2)", NULL) : NULL;
		if (!rcv)
			goto fail;
		t->send_id = snd->id;
		t->recv_id = rcv->id;
		if (format_field(snd->event, "sk", &t->send_sk) ||
		    format_field(snd->event, "ret", &t->send_ret) ||
		    format_field(rcv->event, "sk", &t->recv_sk) ||
		    format_field(rcv->event, "ret", &t->recv_ret))
			goto bad;
	}
	if (o->destroy && format_event_id("tcp", "tcp_destroy_sock") >= 0) {
		struct tp *d = session_add(s, "tcp", "tcp_destroy_sock", TP_RECORD, NULL);

		if (!d)
			goto fail;
		t->destroy_id = d->id;
		if (format_field(d->event, "skaddr", &t->destroy_sk))
			goto bad;
	}
	t->conns = hmap_new(sizeof(struct tcp_conn));
	t->listeners = hmap_new(sizeof(struct owner));
	if (o->listeners)
		known_listeners(t);
	return t;
bad:
	errno = ENOENT;
fail:
	err = errno;
	free(t);
	errno = err;
	return NULL;
}

void tcp_track_free(struct tcp_track *t)
{
	if (!t)
		return;
	hmap_free(t->conns);
	hmap_free(t->listeners);
	free(t);
}

/* @c is owned by the thread group of @tid (running it now). */
static void own(struct tcp_track *t, pid_t *pid, char *comm, pid_t tid)
{
	pid_t tgid = task_cache_tgid(tid);

	*pid = tgid > 0 ? tgid : tid;
	snprintf(comm, 16, "%s", session_comm(t->s, tid));
}

static struct owner *listener(struct tcp_track *t, const struct tcp_ends *e,
			      bool create)
{
	return hmap_get(t->listeners, (uint64_t)e->family << 16 | e->sport, create);
}

/* The owner of the listener that @c came through: seen in listen(), else
 * looked for in /proc once. */
static void own_passive(struct tcp_track *t, struct tcp_conn *c)
{
	struct owner *l = listener(t, &c->e, true);

	if (!l->pid) {
		l->pid = sockowner_listener(c->e.family, c->e.sport);
		if (l->pid < 0 || task_comm(l->pid, l->comm, sizeof(l->comm)) < 0)
			l->pid = -1;
	}
	if (l->pid > 0) {
		c->pid = l->pid;
		memcpy(c->comm, l->comm, sizeof(c->comm));
	}
}

static struct tcp_conn *born(struct tcp_track *t, const struct tk_event *ev,
			     const struct tcp_ends *e)
{
	struct tcp_conn *c;

	if (hmap_count(t->conns) >= MAX_CONNS)
		hmap_clear(t->conns);
	c = hmap_get(t->conns, e->sk, true);
	memset(c, 0, sizeof(*c));
	c->e = *e;
	c->birth = ev->ts;
	return c;
}

static void on_state(struct tcp_track *t, const struct tk_event *ev)
{
	int old = (int)field_int(ev, &t->st_old);
	int new = (int)field_int(ev, &t->st_new);
	struct tcp_ends e;
	struct tcp_conn *c;
	struct owner *l;

	tcp_ends_read(ev, &t->st, &e);
	c = hmap_get(t->conns, e.sk, false);
	if (new == TCP_LISTEN) {
		l = listener(t, &e, true);
		own(t, &l->pid, l->comm, ev->pid);
		return;
	}
	if (old == TCP_LISTEN) {
		if (new == TCP_CLOSE) {		/* the listener closed */
			hmap_del(t->listeners, (uint64_t)e.family << 16 | e.sport);
			return;
		}
		if (new != TCP_SYN_RECV)
			return;
		c = born(t, ev, &e);		/* a child of the listener */
		l = listener(t, &e, false);
		if (l && l->pid > 0) {
			c->pid = l->pid;
			memcpy(c->comm, l->comm, sizeof(c->comm));
		}
		return;
	}
	if (old == TCP_CLOSE && new == TCP_SYN_SENT) {
		c = born(t, ev, &e);		/* connect(), in its task */
		c->active = true;
		own(t, &c->pid, c->comm, ev->pid);
		t->o.fn(t->o.arg, TCP_EV_CONNECT, c, new, ev);
		if (t->o.forget)
			hmap_del(t->conns, e.sk);
		return;
	}
	if (!c)
		return;
	c->e = e;			/* the local port is known from here */
	if (new == TCP_FIN_WAIT1 || new == TCP_LAST_ACK) {
		if (!c->pid)		/* close()/shutdown(), in its task */
			own(t, &c->pid, c->comm, ev->pid);
	} else if (old == TCP_SYN_RECV && new == TCP_ESTABLISHED) {
		if (!c->pid)
			own_passive(t, c);
		t->o.fn(t->o.arg, TCP_EV_ACCEPT, c, new, ev);
	} else if (new == TCP_CLOSE) {
		c->closed = ev->ts;
		if (t->destroy_id >= 0)		/* its data may be read later */
			return;
		t->o.fn(t->o.arg, TCP_EV_CLOSE, c, new, ev);
		hmap_del(t->conns, e.sk);
	}
}

static void on_length(struct tcp_track *t, const struct tk_event *ev, bool send)
{
	uint64_t sk = (uint64_t)field_int(ev, send ? &t->send_sk : &t->recv_sk);
	int64_t ret = field_int(ev, send ? &t->send_ret : &t->recv_ret);
	struct tcp_conn *c = hmap_get(t->conns, sk, false);

	if (!c || ret <= 0)		/* not a connection seen made */
		return;
	own(t, &c->pid, c->comm, ev->pid);	/* sendmsg/recvmsg run in it */
	if (send)
		c->tx += (uint64_t)ret;
	else
		c->rx += (uint64_t)ret;
}

static void on_retransmit(struct tcp_track *t, const struct tk_event *ev)
{
	struct tcp_conn tmp, *c;

	memset(&tmp, 0, sizeof(tmp));
	tcp_ends_read(ev, &t->rt, &tmp.e);
	c = hmap_get(t->conns, tmp.e.sk, false);
	if (c) {
		tmp.pid = c->pid;
		memcpy(tmp.comm, c->comm, sizeof(tmp.comm));
		tmp.birth = c->birth;
		tmp.tx = c->tx;
		tmp.rx = c->rx;
		tmp.active = c->active;
	}
	t->o.fn(t->o.arg, TCP_EV_RETRANS, &tmp, (int)field_int(ev, &t->rt_state), ev);
}

static void on_destroy(struct tcp_track *t, const struct tk_event *ev)
{
	uint64_t sk = (uint64_t)field_int(ev, &t->destroy_sk);
	struct tcp_conn *c = hmap_get(t->conns, sk, false);

	if (!c)
		return;
	if (!c->closed)
		c->closed = ev->ts;
	t->o.fn(t->o.arg, TCP_EV_CLOSE, c, TCP_CLOSE, ev);
	hmap_del(t->conns, sk);
}

bool tcp_track_event(struct tcp_track *t, const struct tk_event *ev)
{
	if (ev->id == t->state_id)
		on_state(t, ev);
	else if (ev->id == t->send_id)
		on_length(t, ev, true);
	else if (ev->id == t->recv_id)
		on_length(t, ev, false);
	else if (ev->id == t->retrans_id)
		on_retransmit(t, ev);
	else if (ev->id == t->destroy_id)
		on_destroy(t, ev);
	else
		return false;
	return true;
}
