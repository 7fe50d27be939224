/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_TCPSOCK_H
#define TAPKIT_TCPSOCK_H

/*
 * TCP connections from the sock and tcp tracepoints, shared by tcpconnect,
 * tcpaccept, tcplife, tcpretrans and tracetop's net view.
 *
 * The address fields (sport, dport, family, saddr, daddr, saddr_v6,
 * daddr_v6) are the same in sock:inet_sock_set_state, tcp:tcp_retransmit_skb
 * and the other tcp events: tcp_ends_find() resolves them once, and
 * tcp_ends_read() decodes one record's.
 *
 * The tracker (struct tcp_track) follows sockets by their kernel address
 * through inet_sock_set_state and, when asked, sock_send_length and
 * sock_recv_length, and tells its caller of each connect, passive open,
 * close and retransmit.  Who owns a socket: a state change is often made
 * in softirq, in whatever task it interrupted, so its common_pid names no
 * owner.  The owner is the task that called connect() (CLOSE -> SYN_SENT
 * runs in it), for a passive open the task that called listen() on the
 * port (or, for a listener older than the trace, the process holding it,
 * found in /proc as ss -p does), and, once data moves, the last task that
 * sent or received on the socket (those calls run in it), or the one
 * whose close() made LAST_ACK.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/event.h"

struct session;
struct tep_event;

/* include/net/tcp_states.h */
enum {
	TCP_ESTABLISHED = 1, TCP_SYN_SENT, TCP_SYN_RECV, TCP_FIN_WAIT1,
	TCP_FIN_WAIT2, TCP_TIME_WAIT, TCP_CLOSE, TCP_CLOSE_WAIT, TCP_LAST_ACK,
	TCP_LISTEN, TCP_CLOSING, TCP_NEW_SYN_RECV,
};

/* "ESTABLISHED", ... ("?" when unknown). */
const char *tcp_state_name(int state);

struct tcp_fields {
	struct tk_field sk, sport, dport, family, saddr, daddr, saddr6, daddr6;
};

/* The two ends of a connection as one record gives them. */
struct tcp_ends {
	uint64_t sk;			/* the socket's kernel address */
	int family;			/* AF_INET or AF_INET6 */
	unsigned int sport, dport;	/* local, remote */
	unsigned char saddr[16], daddr[16];
};

/* Resolve @ev's address fields (its socket field named @skname); 0 or
 * -ENOENT when one is missing. */
int tcp_fields_find(const struct tep_event *ev, const char *skname,
		    struct tcp_fields *f);
void tcp_ends_read(const struct tk_event *ev, const struct tcp_fields *f,
		   struct tcp_ends *e);
/* The address of one end as text ("127.0.0.1", "::1") into @buf. */
const char *tcp_addr_str(const struct tcp_ends *e, bool local, char *buf,
			 size_t n);
/* "127.0.0.1:80" or "[::1]:80" into @buf. */
const char *tcp_endpoint_str(const struct tcp_ends *e, bool local, char *buf,
			     size_t n);
/* 4 or 6 */
int tcp_ipver(const struct tcp_ends *e);

/*
 * tcp_ports_filter() - "PORT[,PORT...]" as a kernel filter on @field
 * ("(dport == 80 || dport == 443)") into @buf, and the ports into @ports
 * (@max at most, the count in *@n).  0, or -EINVAL for a bad list.
 */
int tcp_ports_filter(const char *list, const char *field, char *buf, size_t len,
		     unsigned int *ports, int max, int *n);
/* Whether owner @pid is @target (or, with @tree, one of its descendants);
 * true when @target is 0. */
bool tcp_pid_in(pid_t pid, pid_t target, bool tree);

/* Counts per flow (tcpconnect -c, tcpretrans -c): a growing array. */
struct tcp_flow {
	struct tcp_ends e;	/* sk unused; sport 0 when not counted by */
	uint64_t n;
};
struct tcp_flows {
	struct tcp_flow *v;
	size_t n;
};
/* Count one for @e's addresses and ports (the local port only with
 * @sport); at most 65536 flows, more are not counted (false). */
bool tcp_flows_add(struct tcp_flows *f, const struct tcp_ends *e, bool sport);
/* Sort by count, most first with @desc. */
void tcp_flows_sort(struct tcp_flows *f, bool desc);
void tcp_flows_release(struct tcp_flows *f);

/* What the tracker knows of one socket. */
struct tcp_conn {
	struct tcp_ends e;
	uint64_t birth;		/* ns of SYN_SENT or SYN_RECV, 0: unseen */
	uint64_t closed;	/* ns of -> CLOSE, 0: not yet */
	pid_t pid;		/* owner (process), 0: unknown */
	char comm[16];
	uint64_t tx, rx;	/* bytes sent and received (sendmsg/recvmsg) */
	bool active;		/* made by connect() */
};

enum tcp_what {
	TCP_EV_CONNECT,		/* CLOSE -> SYN_SENT: connect() */
	TCP_EV_ACCEPT,		/* SYN_RECV -> ESTABLISHED: a passive open */
	/* the end of a socket seen born: with .destroy, when the socket is
	 * freed (tcp:tcp_destroy_sock: after the owner's close(), so all it
	 * read is counted; c->closed is when it went to CLOSE), else at
	 * -> CLOSE */
	TCP_EV_CLOSE,
	TCP_EV_RETRANS,		/* tcp_retransmit_skb (c: what is known) */
};

/* Which events the tracker adds, and what it calls back. */
struct tcp_track_opts {
	bool bytes;		/* sock_send_length/sock_recv_length */
	bool retrans;		/* tcp_retransmit_skb */
	bool destroy;		/* tcp_destroy_sock where the kernel has it */
	/* learn the holders of the listeners already there (one scan of
	 * /proc now: the accepting process of their connections) */
	bool listeners;
	/* the callbacks need nothing of a socket after its connect(): keep
	 * no state for it (tcpconnect) */
	bool forget;
	/* more kernel filter on inet_sock_set_state ("" or NULL: none); it
	 * must keep the changes the wanted callbacks need */
	const char *state_filter;
	const char *retrans_filter;
	void (*fn)(void *arg, enum tcp_what what, const struct tcp_conn *c,
		   int state, const struct tk_event *ev);
	void *arg;
};

struct tcp_track;

/*
 * tcp_track_new() - add the events to @s (opened, not started); NULL with
 * errno and session_error(s) saying why.  Free with tcp_track_free().
 */
struct tcp_track *tcp_track_new(struct session *s, const struct tcp_track_opts *o);
void tcp_track_free(struct tcp_track *t);
/* Whether the kernel has the length tracepoints (6.4 and later). */
bool tcp_track_has_bytes(void);
/* Hand it every record of the session; false when not one of its own. */
bool tcp_track_event(struct tcp_track *t, const struct tk_event *ev);

#endif
