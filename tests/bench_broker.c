/*
 * What one connect() costs: to a unix socket in the working directory
 * and to a TCP listener on 127.0.0.1, both its own.  Run as it is, then
 * confined (harn-egressd -- bench_broker), where every connect() goes
 * through the connect broker: the difference is the broker's.
 * scripts/bench.sh sandbox prints the two side by side.
 * A program that prints figures, not a timed test.
 *
 *     bench_broker [N]
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
	    sizeof(sin), n) == -1) {
		(void)unlink(sun.sun_path);
		return 1;
	}
	(void)unlink(sun.sun_path);
	return 0;
}
