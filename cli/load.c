/* SPDX-License-Identifier: Apache-2.0 */
/* Loading the policy: a file, the environment, or the defaults. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"

#define POLICY_MAX_BYTES	(64u * 1024 * 1024)

const struct conf_sockaddr cli_loopback = {
	.addr = { { 0,0,0,0, 0,0,0,0, 0,0,0xff,0xff, 127,0,0,1 } }
};

void
cli_error(const char *fmt, ...)
{
	char line[2048];
	va_list ap;
	int n;

	/*
	 * One write: the command shares this stderr, and a line of ours
	 * split by one of its writes would read as neither.
	 */
	n = snprintf(line, sizeof(line), "harn-egressd: ");
	va_start(ap, fmt);
	(void)vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	line[n++] = '\n';
	(void)fwrite(line, 1, (size_t)n, stderr);
}

static const char *
env_get(const char *name)
{
	return getenv(name);
}

char *
cli_read_file(const char *path, size_t max, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t off = 0;
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if ((size_t)st.st_size > max) {
		errno = EFBIG;
		goto fail;
	}
	if ((buf = malloc(st.st_size + 1)) == NULL)
		goto fail;
	while (off < (size_t)st.st_size) {
		n = read(fd, buf + off, st.st_size - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		off += n;
	}
	close(fd);
	*len = off;
	return buf;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return NULL;
}

struct conf *
cli_load_policy(const char *path)
{
	char err[CONF_ERR_MAX];
	struct conf *c;
	char *buf;
	size_t len;
	int i;

	if (path == NULL) {
		switch (conf_from_env(env_get, &c, err, sizeof(err))) {
		case -1:
			cli_error("%s", err);
			return NULL;
		case 1:
			return c;
		}
		if ((c = conf_new("default")) == NULL)
			cli_error("out of memory");
		return c;
	}
	for (i = 0; conf_env_vars[i] != NULL; i++) {
		if (getenv(conf_env_vars[i]) != NULL) {
			cli_error("%s: policy already configured from %s",
			    conf_env_vars[i], path);
			return NULL;
		}
	}
	if ((buf = cli_read_file(path, POLICY_MAX_BYTES, &len)) == NULL) {
		cli_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	c = conf_parse(path, buf, len, err, sizeof(err));
	free(buf);
	if (c == NULL)
		cli_error("%s", err);
	return c;
}

void
cli_say_report_mode(const struct conf *c)
{
	if (c != NULL && egress_policy_report(c->policy))
		cli_error("policy in report mode: NOT ENFORCING its allow and "
		    "deny rules; what they refuse is let through and logged "
		    "report_only (special-purpose addresses, limits and the "
		    "sandbox are still enforced); use mode enforce once "
		    "audit --suggest has given the rules");
}
