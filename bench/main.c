/* SPDX-License-Identifier: Apache-2.0 */
/*
 * loadgen: load through an egress proxy, or straight to an origin, on
 * loopback only (a proxy, target or source outside 127.0.0.0/8 is refused
 * before any socket exists).  See bench/README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/resource.h>

#include "bench/loadgen.h"

static void
usage(void)
{
	fprintf(stderr,
"usage: loadgen --mode direct|connect|forward|socks5 [--proxy ADDR:PORT]\n"
"               [--target ADDR:PORT] [--target-ports N] [--path PATH]\n"
"               [-c CONNS] [-d SECONDS | -n REQUESTS] [-k KEEPALIVE]\n"
"               [--bulk BYTES] [--idle N [--hold SECONDS]] [--pid PID]\n"
"               [--src-ips N] [--timeout SECONDS] [-q]\n"
"Addresses are IPv4 in 127.0.0.0/8.  Prints the figures and one RESULT\n"
"line; exits 0 when the run completed (its errors are in the figures),\n"
"1 when it could not run, 2 on a usage error.\n");
	exit(2);
}

static void
bad(const char *what, const char *arg)
{
	fprintf(stderr, "loadgen: %s: %s\n", what, arg);
	exit(2);
}

/* ADDR:PORT on loopback. */
static void
parse_addr(const char *arg, struct sockaddr_in *sa)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(arg, ':');
	char *end;
	long port;

	if (colon == NULL || (size_t)(colon - arg) >= sizeof(host))
		bad("not ADDR:PORT", arg);
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = '\0';
	port = strtol(colon + 1, &end, 10);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	if (*end != '\0' || port < 1 || port > 65535 ||
	    inet_pton(AF_INET, host, &sa->sin_addr) != 1)
		bad("not an IPv4 ADDR:PORT", arg);
	if ((ntohl(sa->sin_addr.s_addr) >> 24) != 127)
		bad("not a loopback address (127.0.0.0/8 only)", arg);
	sa->sin_port = htons((uint16_t)port);
}

static double
parse_num(const char *arg, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || v < lo || v > hi)
		bad("out of range", arg);
	return v;
}

static enum lg_mode
parse_mode(const char *arg)
{
	if (strcmp(arg, "direct") == 0)
		return MODE_DIRECT;
	if (strcmp(arg, "connect") == 0)
		return MODE_CONNECT;
	if (strcmp(arg, "forward") == 0)
		return MODE_FORWARD;
	if (strcmp(arg, "socks5") == 0)
		return MODE_SOCKS5;
	bad("unknown mode", arg);
	return MODE_DIRECT;	/* not reached: bad() exits */
}

/* Options given, for the checks that look at several at once. */
struct given {
	int	 proxy, d, k;
};

/* One option of the command line into o. */
static void
take_opt(int ch, struct lg_opts *o, struct given *g)
{
	switch (ch) {
	case 'm':
		o->mode = parse_mode(optarg);
		break;
	case 'P':
		parse_addr(optarg, &o->proxy);
		g->proxy = 1;
		break;
	case 't':
		parse_addr(optarg, &o->target);
		break;
	case 'T':
		o->target_ports = (int)parse_num(optarg, 1, LG_MAX_PORTS);
		break;
	case 'S':
		o->src_ips = (int)parse_num(optarg, 1, 254);
		break;
	case 'p':
		if (optarg[0] != '/' || strlen(optarg) > 512 ||
		    strpbrk(optarg, " \r\n") != NULL)
			bad("not a path", optarg);
		o->path = optarg;
		break;
	case 'c':
		o->conc = (int)parse_num(optarg, 1, 100000);
		break;
	case 'd':
		o->duration = parse_num(optarg, 0.01, 86400);
		g->d = 1;
		break;
	case 'n':
		o->count = (uint64_t)parse_num(optarg, 1, 1e15);
		break;
	case 'k':
		o->keepalive = (int)parse_num(optarg, 1, INT_MAX);
		g->k = 1;
		break;
	case 'B':
		o->expect_body = (uint64_t)parse_num(optarg, 1, 1e15);
		break;
	case 'I':
		o->idle = (int)parse_num(optarg, 1, 100000);
		break;
	case 'H':
		o->hold = parse_num(optarg, 0, 86400);
		break;
	case 'i':
		o->pid = (pid_t)parse_num(optarg, 1, INT_MAX);
		break;
	case 'o':
		o->timeout = parse_num(optarg, 0.01, 86400);
		break;
	case 'q':
		o->quiet = 1;
		break;
	default:
		usage();
	}
}

/* The options as a whole: what goes together, and the defaults. */
static void
finish_opts(struct lg_opts *o, const struct given *g)
{
	if (o->mode != MODE_DIRECT && !g->proxy)
		bad("this mode needs", "--proxy ADDR:PORT");
	if (g->d && o->count)
		bad("one of them", "-d or -n");
	if ((uint32_t)ntohs(o->target.sin_port) + (uint32_t)o->target_ports >
	    65536)
		bad("past port 65535", "--target-ports");
	if (o->expect_body) {	/* a bulk body: /big, one per connection */
		if (o->path == NULL)
			o->path = "/big";
		if (!g->k)
			o->keepalive = 1;
		if (!g->d && o->count == 0)
			o->count = 1;
	}
	if (o->path == NULL)
		o->path = "/small";
}

static void
parse_opts(int argc, char **argv, struct lg_opts *o)
{
	static const struct option longs[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "proxy", required_argument, NULL, 'P' },
		{ "target", required_argument, NULL, 't' },
		{ "target-ports", required_argument, NULL, 'T' },
		{ "src-ips", required_argument, NULL, 'S' },
		{ "path", required_argument, NULL, 'p' },
		{ "conc", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "count", required_argument, NULL, 'n' },
		{ "keepalive", required_argument, NULL, 'k' },
		{ "bulk", required_argument, NULL, 'B' },
		{ "idle", required_argument, NULL, 'I' },
		{ "hold", required_argument, NULL, 'H' },
		{ "pid", required_argument, NULL, 'i' },
		{ "timeout", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct given g = { 0, 0, 0 };
	int ch;

	while ((ch = getopt_long(argc, argv, "c:d:n:k:qh", longs, NULL)) != -1)
		take_opt(ch, o, &g);
	if (optind != argc)
		usage();
	finish_opts(o, &g);
}

/* Enough descriptors for the connections (the hard limit at most). */
static void
raise_nofile(int need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 ||
	    rl.rlim_cur >= (rlim_t)need + 32)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)need + 32)
		fprintf(stderr, "loadgen: %d connections, but at most %llu "
		    "descriptors\n", need, (unsigned long long)rl.rlim_max);
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

static double
cpu_self_s(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) == -1)
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int
main(int argc, char **argv)
{
	static struct lg lg;
	struct lg_idle idle;
	struct lg_usage u;
	uint64_t pt0 = 0, pt1 = 0;
	double c0;
	int rc, have_pt;

	lg.ep = -1;
	lg.o.mode = MODE_DIRECT;
	parse_addr("127.0.0.1:18080", &lg.o.target);
	lg.o.target_ports = 1;
	lg.o.src_ips = 1;
	lg.o.conc = 50;
	lg.o.duration = 4;
	lg.o.keepalive = 1;
	lg.o.hold = 3;
	lg.o.timeout = 10;
	parse_opts(argc, argv, &lg.o);
	if (lg.o.count)
		lg.o.duration = 0;
	if (lg.o.idle)
		lg.o.conc = lg.o.idle;
	raise_nofile(lg.o.idle ? lg.o.idle : lg.o.conc);
	if (lg_init(&lg, lg.o.idle ? lg.o.idle : lg.o.conc) == -1) {
		perror("loadgen: setting up");
		lg_free(&lg);
		return 1;
	}
	have_pt = lg.o.pid != 0 && proc_cpu_ticks(lg.o.pid, &pt0) == 0;
	c0 = cpu_self_s();
	rc = lg.o.idle ? run_idle(&lg, &idle) : run_loop(&lg);
	if (rc == -1) {
		perror("loadgen: the event loop");
		lg_free(&lg);
		return 1;
	}
	u.elapsed = (double)(lg.now - lg.t0) / 1e6;
	u.cpu_lg = u.elapsed > 0 ? (cpu_self_s() - c0) / u.elapsed * 100 : 0;
	u.cpu_proxy = -1;
	if (have_pt && proc_cpu_ticks(lg.o.pid, &pt1) == 0 && u.elapsed > 0)
		u.cpu_proxy = (double)(pt1 - pt0) /
		    (double)sysconf(_SC_CLK_TCK) / u.elapsed * 100;
	report(&lg, &u, lg.o.idle ? &idle : NULL);
	lg_free(&lg);
	return 0;
}
