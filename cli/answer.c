/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run's answerer (SPEC 6.6), glued: what the sandbox made for name
 * lookups (port 53 inside the namespace, the landlock confinement's UDP
 * stand-ins) is handed to the proxy, which answers it.
 */
#include <stdbool.h>
#include <unistd.h>

#include "cli/answer.h"
#include "cli/cli.h"
#include "proxy/proxy.h"
#include "sandbox/sandbox.h"

int
answer_inside(struct sandbox_child *child, struct proxy *px)
{
	char err[256];
	int fds[2], i, rv = 0;

	sandbox_take_dns(child, fds);
	for (i = 0; i < 2; i++) {
		if (fds[i] == -1 || rv == -1) {
			if (fds[i] != -1)
				(void)close(fds[i]);
			continue;
		}
		if (proxy_dns_udp(px, fds[i], err, sizeof(err)) == -1) {
			cli_error("%s", err);
			(void)close(fds[i]);
			rv = -1;
		}
	}
	return rv;
}

/*
 * One stand-in: answered, or closed (its resolver gets an error and asks
 * again); said once.
 */
static void
standin(void *arg, int fd)
{
	static bool said;
	char err[256];

	if (proxy_dns_pair(arg, fd, err, sizeof(err)) == 0)
		return;
	(void)close(fd);
	if (!said)
		cli_error("%s", err);
	said = true;
}

void
answer_standins(struct sandbox_child *child, struct proxy *px)
{
	sandbox_standin_sink(child, standin, px);
}

static void
decided(void *arg, int fd, int err)
{
	sandbox_decided(arg, fd, err);
}

void
answer_held(struct sandbox_child *child, struct proxy *px)
{
	proxy_set_decided(px, decided, child);
}
