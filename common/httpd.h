/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TAPKIT_HTTPD_H
#define TAPKIT_HTTPD_H

/*
 * A small HTTP/1.1 server on a command's loop, for metrics scrapes: one
 * request per connection (Connection: close), GET and HEAD only, each
 * answered as soon as its header is in.  No threads: a scrape runs in
 * the loop like any other event.
 */
#include <stddef.h>

struct loop;
struct httpd;

/* What the callback answers: a status, a body it allocated (freed by the
 * server) and its Content-Type. */
struct httpd_reply {
	int status;		/* 200, 404... */
	char *body;		/* malloc'd, or NULL for none */
	size_t len;
	const char *type;	/* static: "text/plain; version=0.0.4" */
};

/* @path of a GET, and its Accept header ("" when none). */
typedef void (*httpd_fn)(void *arg, const char *path, const char *accept,
			 struct httpd_reply *reply);

/*
 * httpd_start() - listen on @addr, "[HOST:]PORT" (HOST an IPv4 or IPv6
 * address, [::1] in brackets; no HOST: every address), answering with
 * @fn.  NULL with the reason in @err (@errlen bytes).
 */
struct httpd *httpd_start(struct loop *l, const char *addr, httpd_fn fn,
			  void *arg, char *err, size_t errlen);
/* The port it listens on (the one chosen, for PORT 0). */
int httpd_port(const struct httpd *h);
/* Stop listening and close every connection.  NULL-safe. */
void httpd_stop(struct httpd *h);

/* Whether @addr is "[HOST:]PORT" with a port 0-65535 (for the command's
 * option check). */
int httpd_addr_valid(const char *addr);

#endif
