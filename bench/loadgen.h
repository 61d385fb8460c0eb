/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loadgen: a closed-loop load generator for HTTP CONNECT, HTTP forwarding
 * and SOCKS5 proxies, and for an origin directly (the baseline).  Loopback
 * only.  This header is the folder's interface: the parts below talk
 * through it, and tests/bench/test_loadgen.c tests the pure ones (resp,
 * hist).
 */
#ifndef BENCH_LOADGEN_H
#define BENCH_LOADGEN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <netinet/in.h>

/* ---------------------------------------------------------------- */
/* resp.c: an HTTP/1.x response, head and body framing, fed in pieces. */

/* A longer head (or chunk line) is an error. */
#define RESP_HEAD_MAX	4096

enum resp_state {
	RESP_HEAD,		/* reading the status line and headers */
	RESP_BODY_LENGTH,	/* Content-Length bytes to go */
	RESP_CHUNK_LINE,	/* a chunk-size line */
	RESP_CHUNK_DATA,
	RESP_CHUNK_CRLF,	/* the CRLF after a chunk's data */
	RESP_TRAILER,		/* trailer lines after the last chunk */
	RESP_UNTIL_CLOSE,	/* the body ends when the connection does */
	RESP_DONE,
	RESP_ERROR
};

struct resp {
	enum resp_state	 state;
	int		 status;	/* the final (non-1xx) status */
	int		 close;		/* the server closes after it */
	int		 tunnel;	/* answers CONNECT: 2xx, no body */
	uint64_t	 left;		/* body or chunk bytes to go */
	uint64_t	 body;		/* payload bytes seen */
	uint32_t	 len;		/* bytes in line[] */
	char		 line[RESP_HEAD_MAX];	/* the head, a chunk line */
};

/* Ready for a response; tunnel: it answers CONNECT. */
void	 resp_init(struct resp *, int tunnel);
/* Takes bytes; returns how many it used (all unless it is DONE or ERROR
 * before the end: the rest does not belong to this response). */
size_t	 resp_feed(struct resp *, const char *, size_t);
/* The connection ended: 1 if that completes the response, else 0. */
int	 resp_eof(struct resp *);

/* ---------------------------------------------------------------- */
/* hist.c: latencies in microseconds, about 3% resolution. */

#define HIST_SUB_BITS	5
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define HIST_BUCKETS	((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t	 n, max;
	uint64_t	 count[HIST_BUCKETS];
};

void	 hist_add(struct hist *, uint64_t us);
/* The value at quantile q (0..1): the middle of its bucket, in us. */
double	 hist_quantile(const struct hist *, double q);

/* ---------------------------------------------------------------- */
/* proc.c: what /proc says about a process and its descendants. */

struct proc_mem {
	uint64_t	 rss_kib, pss_kib;
	int		 nprocs;
};

/* -1: no such process.  CPU: utime + stime, in clock ticks. */
int	 proc_mem(pid_t, struct proc_mem *);
int	 proc_cpu_ticks(pid_t, uint64_t *);

/* ---------------------------------------------------------------- */
/* The run: options, counters, connections. */

enum lg_mode { MODE_DIRECT, MODE_CONNECT, MODE_FORWARD, MODE_SOCKS5 };

#define LG_MAX_PORTS	64

struct lg_opts {
	enum lg_mode	 mode;
	struct sockaddr_in proxy, target;
	int		 target_ports;	/* its port .. +N-1, in turn */
	int		 src_ips;	/* clients bind 127.0.0.1 .. .N */
	const char	*path;
	int		 conc;		/* connections in the loop */
	double		 duration;	/* seconds, when count is 0 */
	uint64_t	 count;		/* requests in all (-n) */
	int		 keepalive;	/* requests per connection */
	uint64_t	 expect_body;	/* --bulk: the body length */
	int		 idle;		/* --idle N: the memory run */
	double		 hold;		/* seconds they are held */
	pid_t		 pid;		/* the proxy: CPU, memory */
	double		 timeout;	/* seconds without progress */
	int		 quiet;
};

enum lg_err {
	ERR_NONE,
	ERR_CONNECT,	/* the TCP connection failed */
	ERR_PROXY,	/* CONNECT or SOCKS5 refused, or cut short */
	ERR_STATUS,	/* an HTTP status >= 400 (counted, not fatal) */
	ERR_EOF,	/* closed before the response was complete */
	ERR_TIMEOUT,	/* no progress for the timeout */
	ERR_PARSE,	/* not HTTP, or bytes nobody asked for */
	ERR_NOCLOSE,	/* asked to close, the server kept it open */
	ERR_BODY,	/* a bulk body of the wrong length */
	ERR_N
};

extern const char *const lg_err_names[ERR_N];

struct lg_counts {
	uint64_t	 attempts;	/* requests begun (each ends below) */
	uint64_t	 requests;	/* requests written whole */
	uint64_t	 responses;	/* responses read whole */
	uint64_t	 ok;		/* of those, status < 400 */
	uint64_t	 failed;	/* attempts that ended in an error */
	uint64_t	 connects;	/* TCP connections begun */
	uint64_t	 tunnels;	/* handshakes done (or connected) */
	uint64_t	 reconnects;	/* closed by the server unasked */
	uint64_t	 tx, rx;	/* bytes on the client's sockets */
	uint64_t	 hs_tx, hs_rx;	/* of those, in the handshake */
	uint64_t	 body;		/* response body bytes */
	uint64_t	 err[ERR_N];
};

enum conn_phase {
	PH_FREE,
	PH_CONNECTING,
	PH_CONNECT_REPLY,	/* awaiting the proxy's answer to CONNECT */
	PH_SOCKS_METHOD,	/* awaiting the SOCKS5 method choice */
	PH_SOCKS_REPLY,		/* awaiting the SOCKS5 reply */
	PH_READY,		/* between requests (idle mode holds here) */
	PH_RESPONSE,
	PH_CLOSING		/* awaiting the server's FIN */
};

struct lg;

struct conn {
	int		 fd;
	uint32_t	 gen;		/* tells stale events apart */
	enum conn_phase	 phase;
	int		 port;		/* target port index */
	int		 sent;		/* requests begun on it */
	int		 last;		/* this one asked for the close */
	int		 asked;		/* an attempt is under way */
	const char	*out;		/* bytes not yet written */
	size_t		 outlen;
	int		 out_hs;	/* they are the handshake's */
	uint64_t	 t_open, t_req, t_active;	/* us */
	size_t		 hs_have;	/* SOCKS5 reply bytes so far */
	struct resp	 resp;
};

/* What a run does at each milestone of a connection (loop.c, idle.c). */
struct lg_driver {
	void	(*ready)(struct lg *, struct conn *);	/* may send */
	void	(*response)(struct lg *, struct conn *);
};

struct lg {
	struct lg_opts		 o;
	const struct lg_driver	*drv;
	int			 ep;
	struct conn		*conns;
	int			 nconns;
	uint64_t		 now;		/* us, monotonic */
	uint64_t		 t0, t_end;
	int			 next_port, next_src;
	uint64_t		 budget;	/* -n: requests not yet begun */
	int			 retry;		/* again after an early close */
	struct lg_counts	 k;
	struct hist		 lat, setup;
	/* request bytes, per target port: [port][last] */
	char			*req[LG_MAX_PORTS][2];
	size_t			 reqlen[LG_MAX_PORTS][2];
	char			*hs[LG_MAX_PORTS];	/* CONNECT, SOCKS5 */
	size_t			 hslen[LG_MAX_PORTS];
};

/* conn.c: connections and the event loop. */
uint64_t mono_us(void);
int	 lg_init(struct lg *, int nconns);
void	 lg_free(struct lg *);
/* Connect (then the handshake); -1: failed, and counted. */
int	 conn_open(struct lg *, struct conn *);
/* An attempt begins: it ends in a response or counts as failed. */
void	 conn_begin(struct lg *, struct conn *);
/* Begin a request (last: ask the server to close after it). */
void	 conn_request(struct lg *, struct conn *, int last);
/* End a connection; err: what went wrong (ERR_NONE: we are done). */
void	 conn_end(struct lg *, struct conn *, enum lg_err);
/* Wait for events up to timeout_us and handle them. */
int	 lg_poll(struct lg *, uint64_t timeout_us);

/* msgs.c: the bytes loadgen sends, built once. */
int	 msgs_build(struct lg *);
/* A SOCKS5 reply's length once its first 5 bytes are in, else 0. */
size_t	 msgs_socks_reply_len(const unsigned char *, size_t);

/* loop.c: the closed loop; idle.c: idle connections held, then probed. */
int	 run_loop(struct lg *);
struct lg_idle {
	int		 n, established, alive, probe_ok;
	double		 setup_s;
	struct proc_mem	 before, after;
};
int	 run_idle(struct lg *, struct lg_idle *);

/* report.c: the figures, for people and as one RESULT line. */
struct lg_usage {
	double		 elapsed;		/* seconds */
	double		 cpu_lg, cpu_proxy;	/* % of a core; -1: none */
};
/* idle: the idle run's figures, or NULL. */
void	 report(const struct lg *, const struct lg_usage *,
	    const struct lg_idle *idle);

#endif
