/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What one connect() costs: to a unix socket in the working directory
 * and to a TCP listener on 127.0.0.1, both its own.  Run as it is, then
 * confined (harn-egressd -- bench_broker), where every connect() goes
 * through the connect broker: the difference is the broker's.
 * scripts/bench.sh sandbox prints the two side by side.
 * A program that prints figures, not a timed test.
 *
 *     bench_broker [N]
 *     bench_broker tunnels ORIGIN_PORT THREADS SECONDS
 *
 * The second: new tunnels per second through the proxy ($HTTP_PROXY),
 * each a connect(), CONNECT to 127.0.0.1:ORIGIN_PORT, one GET, close; from
 * THREADS blocking threads (no event loop: the same client in every
 * confinement, with or without pidfd_getfd).
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *
acceptor(void *arg)
{
	int l = *(int *)arg, c;

	while ((c = accept(l, NULL, NULL)) != -1)
		close(c);
	return NULL;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* N connects to sa; prints the median, the 99th percentile, the mean. */
static int
measure(const char *what, int family, const struct sockaddr *sa,
    socklen_t len, int n)
{
	double *t, sum = 0, t0;
	int i, fd;

	if ((t = calloc((size_t)n, sizeof(*t))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if ((fd = socket(family, SOCK_STREAM, 0)) == -1) {
			perror("socket");
			free(t);
			return -1;
		}
		t0 = now_us();
		if (connect(fd, sa, len) == -1) {
			fprintf(stderr, "%s: connect: %s\n", what,
			    strerror(errno));
			close(fd);
			free(t);
			return -1;
		}
		t[i] = now_us() - t0;
		sum += t[i];
		close(fd);
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%-14s %8.1f %8.1f %8.1f\n", what, t[n / 2], t[n * 99 / 100],
	    sum / n);
	free(t);
	return 0;
}

/* The proxy's port ($HTTP_PROXY, under harn-egressd): the usual connect. */
static int
measure_proxy(int n)
{
	const char *proxy = getenv("HTTP_PROXY"), *colon;
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

	if (proxy == NULL || (colon = strrchr(proxy, ':')) == NULL)
		return 0;
	sin.sin_port = htons((unsigned short)atoi(colon + 1));
	return measure("tcp the proxy", AF_INET, (struct sockaddr *)&sin,
	    sizeof(sin), n);
}

static struct sockaddr_in tun_proxy;
static int tun_origin;
static volatile int tun_stop;

static int
read_until(int fd, const char *end, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n < len - 1) {
		if ((r = read(fd, buf + n, len - 1 - n)) <= 0)
			return end == NULL && r == 0 ? 0 : -1;
		n += (size_t)r;
		buf[n] = '\0';
		if (end != NULL && strstr(buf, end) != NULL)
			return 0;
		if (end == NULL && n > len / 2)
			n = 0;
	}
	return -1;
}

static void *
tunneler(void *arg)
{
	char req[256], buf[4096];
	long *count = arg;
	int fd, n;

	while (!tun_stop) {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
			break;
		n = snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\n"
		    "Host: 127.0.0.1:%d\r\n\r\n", tun_origin, tun_origin);
		if (connect(fd, (struct sockaddr *)&tun_proxy,
		    sizeof(tun_proxy)) == -1 || write(fd, req, (size_t)n) != n ||
		    read_until(fd, "\r\n\r\n", buf, sizeof(buf)) == -1 ||
		    strncmp(buf, "HTTP/1.1 200", 12) != 0) {
			close(fd);
			continue;
		}
		n = snprintf(req, sizeof(req), "GET /small HTTP/1.1\r\nHost: "
		    "127.0.0.1\r\nConnection: close\r\n\r\n");
		if (write(fd, req, (size_t)n) == n &&
		    read_until(fd, NULL, buf, sizeof(buf)) == 0)
			(*count)++;
		close(fd);
	}
	return NULL;
}

static int
tunnels(int argc, char **argv)
{
	const char *proxy = getenv("HTTP_PROXY"), *colon;
	pthread_t t[64];
	long counts[64] = { 0 }, total = 0;
	int nt, secs, i;
	double t0;

	if (argc < 5 || proxy == NULL || (colon = strrchr(proxy, ':')) ==
	    NULL) {
		fprintf(stderr, "usage: bench_broker tunnels ORIGIN_PORT "
		    "THREADS SECONDS (under harn-egressd: HTTP_PROXY)\n");
		return 2;
	}
	tun_origin = atoi(argv[2]);
	nt = atoi(argv[3]);
	secs = atoi(argv[4]);
	if (nt < 1 || nt > 64 || secs < 1)
		return 2;
	tun_proxy.sin_family = AF_INET;
	tun_proxy.sin_port = htons((unsigned short)atoi(colon + 1));
	tun_proxy.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	t0 = now_us();
	for (i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, tunneler, &counts[i]) != 0)
			return 1;
	sleep((unsigned)secs);
	tun_stop = 1;
	for (i = 0; i < nt; i++) {
		pthread_join(t[i], NULL);
		total += counts[i];
	}
	printf("%.0f tunnels/s (%ld in %.1f s, %d threads)\n",
	    total / ((now_us() - t0) / 1e6), total, (now_us() - t0) / 1e6, nt);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_un abs = { .sun_family = AF_UNIX };
	char cwd[4096];
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t slen = sizeof(sin);
	int n = argc > 1 ? atoi(argv[1]) : 2000, lu, lt;
	pthread_t tu, tt;

	if (argc > 1 && strcmp(argv[1], "tunnels") == 0)
		return tunnels(argc, argv);
	if (n < 100)
		n = 100;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "bench-broker.%ld.sock",
	    (long)getpid());
	(void)unlink(sun.sun_path);
	if ((lu = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(lu, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(lu, 4096) == -1 ||
	    (lt = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(lt, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(lt, 4096) == -1 ||
	    getsockname(lt, (struct sockaddr *)&sin, &slen) == -1) {
		perror("bench_broker: listeners");
		return 1;
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL ||
	    snprintf(abs.sun_path, sizeof(abs.sun_path), "%s/%s", cwd,
	    sun.sun_path) >= (int)sizeof(abs.sun_path)) {
		fprintf(stderr, "bench_broker: working directory too long\n");
		return 1;
	}
	if (pthread_create(&tu, NULL, acceptor, &lu) != 0 ||
	    pthread_create(&tt, NULL, acceptor, &lt) != 0)
		return 1;
	printf("%-14s %8s %8s %8s   (us per connect(), %d each)\n", "", "p50",
	    "p99", "mean", n);
	if (measure("unix relative", AF_UNIX, (struct sockaddr *)&sun,
	    sizeof(sun), n) == -1 ||
	    measure("unix absolute", AF_UNIX, (struct sockaddr *)&abs,
	    sizeof(abs), n) == -1 ||
	    measure("tcp loopback", AF_INET, (struct sockaddr *)&sin,
	    sizeof(sin), n) == -1 ||
	    measure_proxy(n) == -1) {
		(void)unlink(sun.sun_path);
		return 1;
	}
	(void)unlink(sun.sun_path);
	return 0;
}
