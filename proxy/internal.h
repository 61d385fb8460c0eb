/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proxy's inside, shared by the files of proxy/ only.
 *
 * A connection (struct conn) is accepted, sniffed (conn_proto_of: first
 * byte 0x05 SOCKS5, otherwise HTTP) and then served by its protocol
 * (struct conn_proto: http_proto, socks_proto; the core calls a protocol
 * only through this table, and its state of the connection is its own,
 * c->pstate), which reads a request and has it decided by an outbound
 * attempt (struct outbound: policy, DNS, connect).
 * CONNECT and SOCKS5 then hand both sockets to a tunnel; HTTP forwarding
 * relays one request at a time, keeping its origin connection for the
 * next request when that request's own decision pins the same address.
 *
 * The life of a CONNECT:
 *
 *   accept   conn_accept: a conn in CONN_SNIFF, its header_timeout running,
 *            reading into a bufferevent.
 *   sniff    the first byte is not 0x05: c->p = &http_proto, its state
 *            made (p->init), CONN_REQUEST
 *            (the timer goes on: header_timeout counts from accept).
 *   head     http.c reads until the empty line (431 past
 *            max_header_bytes, 408 at the timer), parses and checks it,
 *            and enters CONN_CONNECTING: the timer stops, the client stays
 *            registered for reading with no callback (early bytes wait in
 *            its input), and outbound_start decides the target: host rules,
 *            one DNS resolution, every address judged, then a non-blocking
 *            connect to the checked addresses in order (connect_timeout).
 *   verdict  the outbound's callback, once: a refusal is logged and sent
 *            (CONN_CLOSING: flushed, then closed, bounded by the timer); an
 *            allow is logged with the address connected, "200 Connection
 *            established" is sent, and conn_start_tunnel gives both sockets
 *            and the early bytes to a tunnel (CONN_TUNNEL; the bufferevent
 *            and timer are freed).
 *   tunnel   splices both ways, passes half-closes on, and ends at both
 *            EOFs, an error or idle_timeout: conn_close.
 *
 * SOCKS5 is the same with a greeting before the request; HTTP forwarding
 * replaces the tunnel with CONN_RELAY and, between requests, CONN_IDLE.
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
#include "proxy/mstime.h"
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

/* state.c */
struct gen	*gen_hold(struct gen *);
void		 gen_release(struct gen *);

struct listener {
	TAILQ_ENTRY(listener)	 entry;
	struct evconnlistener	*evl;
	struct event		*retry;		/* re-enable after EMFILE */
	struct proxy		*px;
};

struct conn;
struct metricsd;

/*
 * What metrics count besides the log's counts (metrics.c, SPEC 8.1).
 * Latencies in seconds, in cumulative buckets as OpenMetrics has them.
 */
#define METRICS_BUCKETS	14
struct metrics_hist {
	uint64_t	 bucket[METRICS_BUCKETS];	/* le metrics_le[i] */
	uint64_t	 count;
	double		 sum;
};
extern const double metrics_le[METRICS_BUCKETS];
struct proxy_metrics {
	uint64_t		 bytes_out;	/* client to origin, ended */
	uint64_t		 bytes_in;	/* origin to client, ended */
	struct metrics_hist	 dns;		/* a lookup, asked to answered */
	struct metrics_hist	 connect;	/* first attempt to connected */
	uint64_t		 reloads_ok, reloads_failed;
	uint64_t		 generation;	/* 1, then one more a reload */
	struct metricsd		*server;
};
void	 metrics_observe(struct metrics_hist *, double seconds);
/* Seconds since a CLOCK_MONOTONIC start taken with metrics_now. */
double	 metrics_now(void);

/* One scrape's figures, gathered at once (metrics.c). */
struct metrics_view {
	const struct dlog_counts	*counts;
	struct dlog_totals		 totals;
	unsigned			 conns_open;
	const struct proxy_metrics	*m;
	long				 fds;	/* -1: not known */
	uint64_t			 rss;	/* bytes; 0: not known */
};
void	 metrics_view_of(struct proxy *, struct metrics_view *);
void	 proxy_metrics_close(struct proxy *);	/* metricsd.c */
/*
 * A scrape's request head (metrics.c, pure): 200 (GET or HEAD of
 * /metrics; *om: it accepts OpenMetrics), 404, 405 or 400.
 */
int	 metrics_http_judge(const char *head, size_t len, bool *head_only,
	    bool *om);
/*
 * The exposition: OpenMetrics 1.0 (openmetrics), else Prometheus's text
 * format 0.0.4, which differ in a counter's TYPE name and the "# EOF".
 * -1 when out of memory.
 */
int	 metrics_format(struct evbuffer *, const struct metrics_view *,
	    bool openmetrics);

#define PROXY_DNS_PAIRS	256	/* run mode: UDP stand-ins answered at once */

struct proxy {
	struct event_base	*base;
	struct dlog		*log;
	struct gen		*gen;
	TAILQ_HEAD(, listener)	 listeners;
	TAILQ_HEAD(, conn)	 conns;
	/* Without a complete head, oldest first: shed first (shed.h). */
	TAILQ_HEAD(, conn)	 headless;
	unsigned		 nconns;
	unsigned		 nactive;	/* not closing: max_connections's */
	uint64_t		 conn_ids;	/* the last allowed one's (SPEC 5) */
	long			 fd_limit;	/* RLIMIT_NOFILE soft, at start */
	unsigned long		 fd_need;	/* what max_connections needs */
	long			 fd_base;	/* in use with no connection open */
	unsigned		 peak;		/* nconns's, since memory went back */
	struct event		*trim_timer;	/* malloc_trim, once low again */
	int			 spare_fd;	/* given up to refuse at EMFILE */
	struct timeval		 fds_said;	/* "out of descriptors", last */
	struct egress_listener	 loop[CONF_MAX_LISTEN * 4 + 64];
	size_t			 nloop;
	bool			 draining;
	struct event		*drain_timer;
	void			(*drain_done)(void *);
	void			*drain_arg;
	/* conn.c tells proxy.c when a connection is gone (for drain). */
	void			(*conn_gone)(struct proxy *);
	proxy_owner_fn		 owner;		/* run mode: who connected */
	proxy_decided_fn	 decided;	/* run mode: the broker told */
	void			*decided_arg;
	struct dns_fake		*fake;		/* run mode: names given (6.6) */
	struct dns_said {		/* names refused lately: one line */
		pid_t		 pid;
		uint64_t	 ms;
		char		 name[EGRESS_HOST_MAX + 1];
	}			 dns_said[8];
	size_t			 dns_said_next;
	struct event		*dns_udp[2];	/* run mode: port 53 inside */
	struct event		*dns_pairs[PROXY_DNS_PAIRS]; /* UDP stand-ins */
	size_t			 dns_pairs_next;	/*   the next to go */
	void			*owner_arg;
	struct proxy_metrics	 metrics;
};

/* Outbound: decide, resolve, connect (SPEC 3.3 steps 1-7). */
struct outbound_result {
	int			 fd;		/* connected, or -1 */
	enum egress_reason	 reason;	/* allow_rule, default_allow, or why not */
	enum egress_reason	 would;		/* report_only: what enforcing says */
	struct egress_addr	 addr;		/* connected to, or judged */
	bool			 has_addr;	/* a deny decided on addr */
	bool			 reuse;		/* allowed: the caller's connection */
};

typedef void (*outbound_cb)(const struct outbound_result *, void *arg);

/*
 * A parent proxy (upstream.c, SPEC 8.3): CONNECT host:port asked on fd,
 * a connection to the parent; cb once with EGRESS_R_NONE (fd is then a
 * tunnel to it) or the failure (connect_failed, connect_timeout).  NULL
 * when it cannot even be asked.  upstream_ask_free cancels.
 */
typedef void (*upstream_done_cb)(enum egress_reason, void *arg);
struct upstream_ask;
struct upstream_ask *upstream_ask(struct event_base *, int fd,
	    const char *host, uint16_t port, bool v6, uint32_t timeout_ms,
	    upstream_done_cb, void *arg);
void	 upstream_ask_free(struct upstream_ask *);
/* The parent's answer: 1 a 2xx head of *head_len bytes, 0 more, -1 no. */
int	 upstream_reply_parse(const char *, size_t, size_t *head_len);
/* The CONNECT request for host:port (v6: an IPv6 literal); its length. */
int	 upstream_request(char *, size_t, const char *host, uint16_t port,
	    bool v6);
struct outbound;

/*
 * Start deciding and connecting to target; cb is called exactly once, never
 * from inside outbound_start, unless outbound_cancel comes first.  reuse,
 * when not NULL, is the address of a connection to this target the caller
 * holds: if this decision allows that very address, nothing is connected
 * and the result says reuse (fd -1, addr that address).
 */
struct outbound	*outbound_start(struct proxy *, struct gen *,
		    const struct egress_target *, const struct egress_addr *reuse,
		    outbound_cb, void *arg);
/*
 * Connect to one address that this request's decision has already
 * allowed (for reason): a kept connection to it failed before it was used.
 */
struct outbound	*outbound_connect(struct proxy *, struct gen *,
		    const struct egress_target *, const struct egress_addr *,
		    enum egress_reason, outbound_cb, void *arg);
void		 outbound_cancel(struct outbound *);
/* The address an outbound is connecting to now, if any (for the line of
 * a request abandoned mid-connect). */
bool		 outbound_trying(const struct outbound *, struct egress_addr *);
/*
 * The client's EOF or error while its request connects (conn.c's event
 * callback, CONN_CONNECTING): has the client gone?  EGRESS_R_NONE: no
 * (a half-close that is part of the protocol); else the reason its
 * abandoned request is logged with, and in *addr (*has) the address being
 * tried.  conn.c then logs and closes, which cancels the outbound attempt
 * and the lookup (gone.c: the decision alone).
 */
enum egress_reason conn_left_reason(const struct conn *, short what,
		    struct egress_addr *addr, bool *has);

/*
 * A connection's state.  conn_enter sets it together with the client's
 * callbacks, watermarks and timer, so the state is what the connection
 * does.
 */
enum conn_state {
	CONN_SNIFF,		/* waiting for the first byte */
	CONN_REQUEST,		/* reading a request (HTTP head, SOCKS5) */
	CONN_IDLE,		/* kept alive: not a byte of the next request */
	CONN_CONNECTING,	/* its outbound under way */
	CONN_RELAY,		/* HTTP: a request and its response relayed */
	CONN_TUNNEL,		/* both sockets belong to a tunnel */
	CONN_CLOSING		/* flushing a last reply, then closed */
};

struct conn;

/* What follows a relayed exchange (conn_proto.relay_over). */
enum relay_next {
	RELAY_NEXT,		/* another request on this connection */
	RELAY_CLOSE,		/* flush what is queued, then close */
	RELAY_BAD_BODY		/* the request body's framing is malformed */
};

/*
 * A protocol served on the one port (relayd's rl_proto is the model).
 * conn.c drives the states; the protocol reads requests and relays.
 */
struct conn_proto {
	enum proxy_protocol	 proto;		/* logged as, at first */
	/* Does a client's first byte name this protocol?  NULL: any byte. */
	bool			(*claims)(unsigned char first);
	/*
	 * A refusal for a client whose request is not read (no descriptor
	 * to serve it), into buf; first[0, got) is what it sent, as far as
	 * peeked.  Its length, as snprintf returns it.
	 */
	int			(*refuse_unread)(char *buf, size_t len,
				    enum egress_reason, const char *body,
				    const char *first, size_t got);
	/* Sniffed: make its state of this connection (c->pstate).  -1. */
	int			(*init)(struct conn *);
	/* CONN_REQUEST and CONN_IDLE: bytes arrived. */
	bufferevent_data_cb	 request_read;
	/* CONN_RELAY: the client sent more, or took what was queued. */
	bufferevent_data_cb	 relay_read, relay_write;
	/* CONN_RELAY: the exchange is over; next says what follows. */
	void			(*relay_over)(struct conn *, enum relay_next);
	/* header_timeout ran out in CONN_REQUEST. */
	void			(*timeout)(struct conn *);
	/* Refused from outside (the drain ended): reply, log, close. */
	void			(*refuse)(struct conn *, enum egress_reason);
	/* The client's EOF in CONN_RELAY: true when the exchange goes on. */
	bool			(*client_eof)(struct conn *);
	/* Its state of this connection, at close. */
	void			(*free)(struct conn *);
};

extern const struct conn_proto	http_proto, socks_proto, dns_proto;

/* The protocol a client's first bytes name (HTTP when none are in). */
const struct conn_proto	*conn_proto_of(const void *first, size_t got);

/*
 * An allowed connection's close line (SPEC 5, connlog.c): the id its
 * decision lines carry, what it was first allowed to, since when, and
 * the bytes relayed each way (a tunnel's, or forwarding's exchanges').
 */
struct conn_usage {
	uint64_t		 id;		/* 0: none yet */
	bool			 pending;	/* its first line not yet written */
	enum proxy_protocol	 proto;
	uint16_t		 port;
	char			*host;		/* its own, while id != 0 */
	uint64_t		 start_ms;
	uint64_t		 out, in;	/* client to origin, and back */
};

struct conn {
	TAILQ_ENTRY(conn)	 entry;
	TAILQ_ENTRY(conn)	 hl_entry;	/* in px->headless */
	bool			 headless;	/* in px->headless */
	struct proxy		*px;
	struct gen		*gen;
	const struct conn_proto	*p;		/* NULL until sniffed */
	int			 fd;		/* the client socket */
	struct bufferevent	*bev;		/* client, until a tunnel takes it */
	struct evbuffer		*early;		/* client bytes kept for a tunnel */
	bool			 over_limit;	/* accepted past max_connections */
	bool			 fds_gone;	/*   or took the last descriptor */
	bool			 active;	/* counted in nactive */
	struct event		*recheck;	/* over the limit: look again */
	int			 rechecks;	/* times looked again */
	struct event		*head_timer;	/* header_timeout */
	enum conn_state		 state;
	unsigned		 step;		/* the protocol's, in CONN_REQUEST */
	enum proxy_protocol	 proto;
	struct outbound		*ob;
	struct tunnel		*tunnel;
	struct egress_target	 target;
	pid_t			 pid;		/* run mode: who connected; 0 */
	char			*exe;		/*   and its program, or NULL */
	enum proxy_via		 via;		/*   for a program (SPEC 6.6) */
	bool			 hold;		/*   its decision told aside */
	int			 held_fd;	/*   the origin, meanwhile */
	bool			 logged;	/* this request's line is written */
	/*
	 * connlog.c: the answer waits for the line (log_wait); what it will
	 * be is kept here (logres.fd: an allowed connection, or -1).
	 */
	struct dlog_wait	*logwait;
	void			(*logresume)(struct conn *, int rc);
	struct outbound_result	 logres;
	int			 logstatus;	/* HTTP: a refusal's status */
	struct conn_usage	 usage;
	const char		*detail;	/* a refusal's why, for people */
	/*
	 * The protocol's own state (p->init makes it), emptied by p->free
	 * and freed with the conn.
	 */
	void			*pstate;
};

void	 conn_accept(struct proxy *, evutil_socket_t, struct sockaddr *, int);
/*
 * Enter a state: its callbacks, watermarks and timer.  -1 when libevent
 * refused (out of memory): the caller closes the connection.
 */
int	 conn_enter(struct conn *, enum conn_state);
/* Close now; the conn is freed. */
void	 conn_close(struct conn *);
/* Write what is buffered for the client, then close. */
void	 conn_close_after_flush(struct conn *);
/*
 * Queue bytes for the client and send what the socket takes now; on
 * failure the connection is closed (-1).
 */
int	 conn_write(struct conn *, const void *, size_t);
/* Send what is queued on a bufferevent now; wait for writability for the rest. */
int	 bev_write_now(struct bufferevent *);
/*
 * Log this request's decision (once per request), before anything it
 * answers or lets through is sent.  -1: the log could not take the line,
 * and log_unavailable was recorded instead: the caller sends that
 * refusal (503, SOCKS5 01) and nothing the decision would have let
 * through.
 */
int	 conn_log(struct conn *, bool allow, enum egress_reason,
	    const struct egress_addr *);
/*
 * connlog.c, the close line: the id an allowed decision's line carries
 * (made at the first, with what it allows), whether that line was
 * written (rc: conn_log's; a line not written leaves no connection to
 * close), and the close line itself, once, when the connection ends.
 */
uint64_t conn_usage_id(struct conn *);
void	 conn_usage_logged(struct conn *, int rc);
void	 conn_usage_end(struct conn *);
/* The same for an allowed outbound result (report mode's would with it). */
int	 conn_log_allowed(struct conn *, const struct outbound_result *);
/*
 * connlog.c: the same, for a caller that can wait for the log (SPEC 5
 * log_wait).  1: the line waits; reading is paused and resume(c, rc) is
 * called later (rc as conn_log's), unless the conn closes first: the
 * protocol's free calls conn_log_cancel, which also closes logres.fd.
 * The caller keeps in c->logres (and logstatus) what resume needs.
 */
int	 conn_log_wait(struct conn *, bool allow, enum egress_reason,
	    enum egress_reason would, const struct egress_addr *,
	    void (*resume)(struct conn *, int));
/*
 * An allowed outbound result: kept in c->logres while its line waits (as
 * conn_log_wait); resume(c, rc) once the line is taken or not.
 */
void	 conn_allowed(struct conn *, const struct outbound_result *,
	    void (*resume)(struct conn *, int));
void	 conn_log_cancel(struct conn *);
/*
 * Send reply (the protocol's success) to the client, then hand both sockets
 * to a tunnel; bytes the client sent after its request go first.
 */
void	 conn_start_tunnel(struct conn *, int origin_fd, const void *reply,
	    size_t len);
/* A new request on a kept-alive connection. */
void	 conn_next_request(struct conn *);
/* dnsconn.c: a target of the run's own range asks for its name. */
void	 proxy_fake_target(struct conn *);
/* Run mode's names (dnsconn.c): the table, made at the first use. */
struct dns_fake *proxy_fake(struct proxy *);
/* A refusal of name by pid said within the last second (one line). */
bool	 proxy_dns_said_lately(struct proxy *, pid_t, const char *name);
void	 proxy_dns_udp_close(struct proxy *);	/* dnsudp.c */

/* Before a request is decided: the policy in force now (a reload). */
void	 conn_policy_now(struct conn *);
/* The count changed: memory goes back after a peak (state.c). */
void	 proxy_mem_note(struct proxy *);
/* Descriptors ran out: said on stderr, rate-limited. */
void	 proxy_say_out_of_fds(struct proxy *);
/* The drain began: a kept-alive client between requests is let go. */
void	 conn_drain_start(struct conn *);
/*
 * The drain ended: a request still connecting, or still arriving, gets its
 * refusal (shutting_down) and its log line (the conn may be freed then);
 * conn_drain_close writes what is queued once, as far as the socket takes
 * it, and frees the conn.
 */
void	 conn_drain_refuse(struct conn *);
void	 conn_drain_close(struct conn *);

#endif
