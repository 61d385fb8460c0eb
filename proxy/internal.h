/*
 * The proxy's inside, shared by the files of proxy/ only.
 *
 * A connection (struct conn) is accepted, sniffed (first byte 0x05: SOCKS5,
 * otherwise HTTP), and its request decided by an outbound attempt
 * (struct outbound: policy, DNS, connect).  CONNECT and SOCKS5 then hand
 * both sockets to a tunnel; HTTP forwarding relays one request at a time.
 */
#ifndef PROXY_INTERNAL_H
#define PROXY_INTERNAL_H

#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "conf/conf.h"
#include "dns/dns.h"
#include "proxy/proxy.h"
#include "proxy/tunnel.h"

/* Bounds of the buffers a connection may fill before it is paused. */
#define RELAY_HIGH_WATER	(64 * 1024)

/*
 * A policy generation: a conf and the resolver built from it.  Requests
 * hold a reference from their decision to their end, so a reload never
 * pulls a policy from under a request.
 */
struct gen {
	struct conf		*conf;
	struct dns_resolver	*dns;
	unsigned		 refs;
};

struct gen	*gen_hold(struct gen *);
void		 gen_release(struct gen *);

struct listener {
	TAILQ_ENTRY(listener)	 entry;
	struct evconnlistener	*evl;
	struct event		*retry;		/* re-enable after EMFILE */
	struct proxy		*px;
};

struct conn;

struct proxy {
	struct event_base	*base;
	struct dlog		*log;
	struct gen		*gen;
	TAILQ_HEAD(, listener)	 listeners;
	TAILQ_HEAD(, conn)	 conns;
	unsigned		 nconns;
	unsigned		 nactive;	/* not closing: max_connections's */
	int			 spare_fd;	/* given up to refuse at EMFILE */
	struct timeval		 fds_said;	/* "out of descriptors", last */
	struct egress_listener	 loop[CONF_MAX_LISTEN * 4 + 64];
	size_t			 nloop;
	bool			 draining;
	struct event		*drain_timer;
	void			(*drain_done)(void *);
	void			*drain_arg;
};

/* Outbound: decide, resolve, connect (SPEC 3.3 steps 1-7). */
struct outbound_result {
	int			 fd;		/* connected, or -1 */
	enum egress_reason	 reason;	/* allow_rule, default_allow, or why not */
	struct egress_addr	 addr;		/* connected to, or judged */
	bool			 has_addr;	/* a deny decided on addr */
};

typedef void (*outbound_cb)(const struct outbound_result *, void *arg);
struct outbound;

/*
 * Start deciding and connecting to target; cb is called exactly once, never
 * from inside outbound_start, unless outbound_cancel comes first.
 */
struct outbound	*outbound_start(struct proxy *, struct gen *,
		    const struct egress_target *, outbound_cb, void *arg);
void		 outbound_cancel(struct outbound *);

/* Connections. */
enum conn_state {
	CONN_SNIFF,		/* waiting for the first byte */
	CONN_HTTP_HEAD,		/* reading a request head */
	CONN_HTTP_FORWARD,	/* relaying a request and its response */
	CONN_SOCKS,		/* SOCKS5 negotiation */
	CONN_CONNECTING,	/* outbound under way */
	CONN_TUNNEL,		/* bytes relayed by a tunnel */
	CONN_CLOSING		/* flushing a last reply */
};

struct http_req;
struct http_fwd;

struct conn {
	TAILQ_ENTRY(conn)	 entry;
	struct proxy		*px;
	struct gen		*gen;
	int			 fd;		/* the client socket */
	struct bufferevent	*bev;		/* client, until a tunnel takes it */
	struct evbuffer		*early;		/* client bytes kept for a tunnel */
	bool			 over_limit;	/* accepted past max_connections */
	bool			 active;	/* counted in nactive */
	struct event		*recheck;	/* over the limit: look again */
	int			 rechecks;	/* times looked again */
	struct event		*head_timer;	/* header_timeout */
	enum conn_state		 state;
	enum proxy_protocol	 proto;
	struct outbound		*ob;
	struct tunnel		*tunnel;
	struct egress_target	 target;
	bool			 logged;	/* this request's line is written */
	const char		*detail;	/* a refusal's why, for people */
	struct http_req		*req;		/* HTTP: the request under way */
	struct http_fwd		*fwd;		/* HTTP: the origin connection */
};

void	 conn_accept(struct proxy *, evutil_socket_t, struct sockaddr *, int);
/* Close now; the conn is freed. */
void	 conn_close(struct conn *);
/* Write what is buffered for the client, then close. */
void	 conn_close_after_flush(struct conn *);
/* Log this request's decision (once per request). */
void	 conn_log(struct conn *, bool allow, enum egress_reason,
	    const struct egress_addr *);
/*
 * Send reply (the protocol's success) to the client, then hand both sockets
 * to a tunnel; bytes the client sent after its request go first.
 */
void	 conn_start_tunnel(struct conn *, int origin_fd, const void *reply,
	    size_t len);
/* The client's read and write callbacks (the event callback is conn's). */
void	 conn_set_callbacks(struct conn *, bufferevent_data_cb,
	    bufferevent_data_cb);
/* While a tunnel's target connects: keep reading, call nothing. */
void	 conn_hold(struct conn *);
bool	 conn_over_limit(const struct proxy *);
/* Descriptors ran out: said on stderr, rate-limited. */
void	 proxy_say_out_of_fds(struct proxy *);
/* The drain began: a kept-alive client between requests is let go. */
void	 conn_drain_start(struct conn *);
/*
 * The drain ended: a request still connecting, or a head still arriving,
 * gets its refusal (shutting_down) and its log line (the conn may be freed
 * then); conn_drain_close writes what is queued once, as far as the socket
 * takes it, and frees the conn.
 */
void	 conn_drain_refuse(struct conn *);
void	 conn_drain_close(struct conn *);
/* conn.c tells proxy.c when a connection is gone (for drain). */
void	 proxy_conn_gone(struct proxy *);

/* Protocols. */
void	 http_start(struct conn *);
void	 http_free(struct conn *);
/* The client's EOF while forwarding: true if the exchange goes on. */
bool	 http_client_eof(struct conn *);
/*
 * Refuse with the status for reason (or the given one), a one-line body,
 * X-Harn-Egress-Reason and Connection: close; log it; close after flush.
 */
void	 http_refuse(struct conn *, enum egress_reason);
/* A whole refusal response, as snprintf returns its length. */
int	 http_refusal(char *, size_t, int status, enum egress_reason,
	    const char *body);
void	 http_refuse_status(struct conn *, int status, enum egress_reason);
void	 socks_start(struct conn *);
void	 socks_refuse(struct conn *, enum egress_reason);

#endif
