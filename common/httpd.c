// SPDX-License-Identifier: GPL-2.0
/*
 * The metrics endpoint's HTTP: enough of RFC 9112 for Prometheus, curl
 * and a browser.  A connection sends one request; its header (at most
 * 8 KiB) is read as it comes, without blocking the loop, then the reply
 * is sent (blocking for at most 2 s, MSG_NOSIGNAL: a client gone away is
 * not the loop's SIGPIPE) and the connection closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "common/httpd.h"
#include "common/log.h"
#include "common/loop.h"

#define HDR_MAX		8192
#define CONN_MAX	64

struct conn {
	struct httpd *h;
	int fd;
	size_t len;
	char buf[HDR_MAX + 1];
};

struct httpd {
	struct loop *loop;
	int fd;
	int port;
	httpd_fn fn;
	void *arg;
	struct conn *conns[CONN_MAX];
};

/* "[HOST:]PORT" into @host (may be "") and @port. */
static int split_addr(const char *addr, char *host, size_t hlen,
		      char *port, size_t plen)
{
	const char *colon = strrchr(addr, ':'), *p;
	size_t n;
	long v;
	char *end;

	host[0] = '\0';
	p = colon ? colon + 1 : addr;
	if (colon) {
		n = (size_t)(colon - addr);
		if (n && addr[0] == '[' && addr[n - 1] == ']') {
			addr++;
			n -= 2;
		}
		if (n >= hlen)
			return -EINVAL;
		memcpy(host, addr, n);
		host[n] = '\0';
	}
	errno = 0;
	v = strtol(p, &end, 10);
	if (!*p || *end || errno || v < 0 || v > 65535 ||
	    strlen(p) >= plen)
		return -EINVAL;
	snprintf(port, plen, "%ld", v);
	return 0;
}

int httpd_addr_valid(const char *addr)
{
	char host[256], port[8];

	return split_addr(addr, host, sizeof(host), port, sizeof(port)) == 0;
}

static void conn_close(struct conn *c)
{
	struct httpd *h = c->h;
	int i;

	loop_forget(h->loop, c);
	close(c->fd);
	for (i = 0; i < CONN_MAX; i++)
		if (h->conns[i] == c)
			h->conns[i] = NULL;
	free(c);
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		p += k;
		n -= (size_t)k;
	}
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Internal Server Error";
	}
}

static void reply(struct conn *c, bool head, struct httpd_reply *r)
{
	struct timeval tv = { .tv_sec = 2 };
	char hdr[512];
	int n, fl = fcntl(c->fd, F_GETFL);

	/* the header and body go out blocking, with a bound */
	setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (fl >= 0)
		fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
	n = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %d %s\r\n"
		     "Content-Type: %s\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n", r->status, reason(r->status),
		     r->type ? r->type : "text/plain; charset=utf-8",
		     r->body ? r->len : 0);
	send_all(c->fd, hdr, (size_t)n);
	if (r->body && !head)
		send_all(c->fd, r->body, r->len);
	free(r->body);
}

/* The value of header @name in the request @req, into @out. */
static void header(const char *req, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);
	const char *p = strstr(req, "\r\n"), *e;

	out[0] = '\0';
	while (p && p[2] && !(p[2] == '\r' && p[3] == '\n')) {
		p += 2;
		e = strstr(p, "\r\n");
		if (!e)
			return;
		if (!strncasecmp(p, name, n) && p[n] == ':') {
			p += n + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			snprintf(out, len, "%.*s", (int)(e - p), p);
			return;
		}
		p = e;
	}
}

static void handle(struct conn *c)
{
	struct httpd_reply r = { .status = 400 };
	char method[8], path[1024], accept[512];
	bool head = false;

	if (sscanf(c->buf, "%7s %1023s HTTP/1.%*c", method, path) == 2) {
		head = !strcmp(method, "HEAD");
		if (strcmp(method, "GET") && !head) {
			r.status = 405;
		} else {
			char *q = strchr(path, '?');

			if (q)
				*q = '\0';
			header(c->buf, "Accept", accept, sizeof(accept));
			c->h->fn(c->h->arg, path, accept, &r);
		}
	}
	if (r.status != 200 && !r.body) {
		r.body = xstrdup(reason(r.status));
		r.len = strlen(r.body);
	}
	reply(c, head, &r);
}

static int on_conn(struct loop *l, int fd, void *arg)
{
	struct conn *c = arg;
	ssize_t k = recv(fd, c->buf + c->len, HDR_MAX - c->len, 0);

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (k <= 0) {
		conn_close(c);
		return 0;
	}
	c->len += (size_t)k;
	c->buf[c->len] = '\0';
	if (strstr(c->buf, "\r\n\r\n") || strstr(c->buf, "\n\n")) {
		handle(c);
		conn_close(c);
	} else if (c->len == HDR_MAX) {
		struct httpd_reply r = { .status = 431 };

		reply(c, false, &r);
		conn_close(c);
	}
	return 0;
}

static int on_accept(struct loop *l, int fd, void *arg)
{
	struct httpd *h = arg;
	struct conn *c;
	int cfd, i;

	while ((cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK |
			      SOCK_CLOEXEC)) >= 0) {
		for (i = 0; i < CONN_MAX && h->conns[i]; i++)
			;
		if (i == CONN_MAX) {	/* too many at once: the oldest go */
			conn_close(h->conns[0]);
			i = 0;
		}
		c = xcalloc(1, sizeof(*c));
		c->h = h;
		c->fd = cfd;
		h->conns[i] = c;
		if (loop_add(l, cfd, on_conn, c) < 0)
			conn_close(c);
	}
	return 0;
}

struct httpd *httpd_start(struct loop *l, const char *addr, httpd_fn fn,
			  void *arg, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICHOST |
					      AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[256], port[8];
	struct httpd *h;
	int fd = -1, one = 1, rc;

	if (split_addr(addr, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "'%s' is not [HOST:]PORT", addr);
		return NULL;
	}
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
	if (rc) {
		snprintf(err, errlen, "'%s': %s", addr, gai_strerror(rc));
		return NULL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", addr,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return NULL;
	}
	freeaddrinfo(ai);
	h = xcalloc(1, sizeof(*h));
	h->loop = l;
	h->fd = fd;
	h->fn = fn;
	h->arg = arg;
	h->port = ntohs(ss.ss_family == AF_INET6 ?
			((struct sockaddr_in6 *)&ss)->sin6_port :
			((struct sockaddr_in *)&ss)->sin_port);
	if (loop_add(l, fd, on_accept, h) < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", addr,
			 strerror(errno));
		close(fd);
		free(h);
		return NULL;
	}
	return h;
}

int httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_stop(struct httpd *h)
{
	int i;

	if (!h)
		return;
	for (i = 0; i < CONN_MAX; i++)
		if (h->conns[i])
			conn_close(h->conns[i]);
	loop_forget(h->loop, h);
	close(h->fd);
	free(h);
}
