/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Readiness sent to systemd (notify.h): one AF_UNIX datagram a state,
 * never blocking the loop and never stopping the proxy.  Diagnostics
 * never print NOTIFY_SOCKET's value (an environment value).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/notify.h"

static const char *const state_name[] = {
	[NOTIFY_READY] = "READY=1",
	[NOTIFY_RELOADING] = "RELOADING=1",
	[NOTIFY_STOPPING] = "STOPPING=1",
};

void
notify_open(struct notifier *n)
{
	const char *v = getenv("NOTIFY_SOCKET");

	n->fd = -1;
	if (v == NULL)
		return;
	if (notify_addr(v, &n->sa, &n->salen) == -1)
		cli_error("NOTIFY_SOCKET: %s; systemd is not told of readiness",
		    errno == ENAMETOOLONG ? "too long for a socket address" :
		    "neither a socket path nor @name");
	else if ((n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		cli_error("NOTIFY_SOCKET: socket: %s; systemd is not told of "
		    "readiness", strerror(errno));
	(void)unsetenv("NOTIFY_SOCKET");
}

static uint64_t
monotonic_usec(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void
notify_send(struct notifier *n, enum notify_state state, const char *status)
{
	char msg[NOTIFY_MSG_MAX];
	int len;

	if (n->fd == -1)
		return;
	len = notify_format(msg, sizeof(msg), state, state == NOTIFY_RELOADING ?
	    monotonic_usec() : 0, status);
	if (len == -1)
		return;		/* cannot happen: msg has room for any */
	/* DONTWAIT: systemd reads its socket at once; a full queue loses. */
	if (sendto(n->fd, msg, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL,
	    (const struct sockaddr *)&n->sa, n->salen) == -1)
		cli_error("NOTIFY_SOCKET: %s not sent: %s", state_name[state],
		    strerror(errno));
}

void
notify_close(struct notifier *n)
{
	if (n->fd != -1)
		(void)close(n->fd);
	n->fd = -1;
}
