/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How long after a client has its answer the decision's line is in the
 * log file (SPEC 5: it is there before the answer is sent).  Requests to
 * a proxy whose policy refuses them (403, no DNS), each to a host of its
 * own; after each answer the log is read until that host's line is in.
 * Idle: one request at a time; under load: the same while LOAD threads
 * send requests as fast as they are answered.  Prints the median and the
 * largest of those delays, and the requests per second served meanwhile.
 * A program that prints figures, not a timed test.
 *
 *   bench_loglat PORT LOGFILE [N]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LOAD_THREADS	8
#define GIVE_UP_NS	(5ULL * 1000000000ULL)	/* a line never seen */
#define POLL_NS		50000		/* between looks at the log */

static uint16_t		port;
static atomic_bool	loading;
static atomic_ulong	load_done;

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One request for host; 0 once the response head is in, else -1. */
static int
request(const char *host)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	char buf[2048];
	size_t have = 0;
	ssize_t n;
	int fd, one = 1, rv = -1;

	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		goto out;
	n = snprintf(buf, sizeof(buf), "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n"
	    "Connection: close\r\n\r\n", host, host);
	if (write(fd, buf, (size_t)n) != n)
		goto out;
	while (have < sizeof(buf) - 1) {
		if ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) <= 0)
			goto out;
		have += (size_t)n;
		buf[have] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL) {
			rv = 0;
			break;
		}
	}
out:
	close(fd);
	return rv;
}

static void *
load(void *arg)
{
	unsigned long t = (unsigned long)(uintptr_t)arg, i = 0;
	char host[64];

	while (atomic_load(&loading)) {
		snprintf(host, sizeof(host), "l%lu-%lu.load.test", t, i++);
		if (request(host) == 0)
			atomic_fetch_add(&load_done, 1);
	}
	return NULL;
}

/*
 * The log as read so far, from its end at the start: each look reads
 * what was appended and searches it for the marker's line.
 */
struct tail {
	int	 fd;
	char	*buf;
	size_t	 len, cap;
};

static bool
tail_has(struct tail *t, const char *needle)
{
	ssize_t n;

	for (;;) {
		if (t->cap - t->len < 65536) {
			t->cap = t->cap * 2 + 65536;
			if ((t->buf = realloc(t->buf, t->cap + 1)) == NULL) {
				perror("bench_loglat: realloc");
				exit(1);
			}
		}
		if ((n = read(t->fd, t->buf + t->len, t->cap - t->len)) <= 0)
			break;
		t->len += (size_t)n;
	}
	t->buf[t->len] = '\0';
	return strstr(t->buf, needle) != NULL;
}

static void
tail_forget(struct tail *t)
{
	t->len = 0;
}

static int
by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* n requests, one at a time: the delay from each answer to its line. */
static int
measure(const char *label, struct tail *t, int n, const char *tag)
{
	struct timespec pause = { 0, POLL_NS };
	uint64_t *lat, t0, t1, start;
	unsigned long done0 = atomic_load(&load_done);
	char host[64], needle[96];
	int i, lost = 0;

	if ((lat = calloc((size_t)n, sizeof(*lat))) == NULL)
		return -1;
	start = now_ns();
	for (i = 0; i < n; i++) {
		snprintf(host, sizeof(host), "m%d.%s.loglat.test", i, tag);
		snprintf(needle, sizeof(needle), "\"host\":\"%s\"", host);
		if (request(host) == -1) {
			fprintf(stderr, "bench_loglat: request %d failed\n", i);
			free(lat);
			return -1;
		}
		t0 = now_ns();
		while (!tail_has(t, needle) && now_ns() - t0 < GIVE_UP_NS)
			nanosleep(&pause, NULL);
		t1 = now_ns();
		if (t1 - t0 >= GIVE_UP_NS)
			lost++;
		lat[i] = t1 - t0;
		tail_forget(t);
	}
	qsort(lat, (size_t)n, sizeof(*lat), by_value);
	printf("%-28s n=%d  median %.3f ms  max %.3f ms%s", label, n,
	    lat[n / 2] / 1e6, lat[n - 1] / 1e6, lost ? "  (lines never seen)" :
	    "");
	if (atomic_load(&loading))
		printf("  load %.0f requests/s",
		    (atomic_load(&load_done) - done0) * 1e9 /
		    (double)(now_ns() - start));
	printf("\n");
	free(lat);
	return lost ? -1 : 0;
}

int
main(int argc, char **argv)
{
	pthread_t th[LOAD_THREADS];
	struct tail t = { -1, NULL, 0, 0 };
	int i, n, rv = 0;

	if (argc < 3 || argc > 4 || atoi(argv[1]) <= 0 ||
	    atoi(argv[1]) > 65535) {
		fprintf(stderr, "usage: bench_loglat PORT LOGFILE [N]\n");
		return 2;
	}
	port = (uint16_t)atoi(argv[1]);
	n = argc == 4 ? atoi(argv[3]) : 300;
	if (n <= 0)
		n = 300;
	if ((t.fd = open(argv[2], O_RDONLY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "bench_loglat: %s: %s\n", argv[2],
		    strerror(errno));
		return 1;
	}
	(void)lseek(t.fd, 0, SEEK_END);
	if (measure("idle (one at a time)", &t, n, "idle") == -1)
		rv = 1;
	atomic_store(&loading, true);
	for (i = 0; i < LOAD_THREADS; i++)
		if (pthread_create(&th[i], NULL, load,
		    (void *)(uintptr_t)i) != 0) {
			fprintf(stderr, "bench_loglat: pthread_create\n");
			return 1;
		}
	if (measure("under load (8 clients)", &t, n, "load") == -1)
		rv = 1;
	atomic_store(&loading, false);
	for (i = 0; i < LOAD_THREADS; i++)
		pthread_join(th[i], NULL);
	free(t.buf);
	close(t.fd);
	return rv;
}
