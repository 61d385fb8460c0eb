/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The sd_notify protocol's pure parts (notify.h): where $NOTIFY_SOCKET
 * points and what a message says.  No I/O: tests/cli/test_notify.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/notify.h"

int
notify_addr(const char *value, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = value != NULL ? strlen(value) : 0;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* systemd's own forms; vsock: and the rest are not ours to reach. */
	if (n < 2 || (value[0] != '/' && value[0] != '@')) {
		errno = EINVAL;
		return -1;
	}
	/* A path keeps its NUL; an abstract name is exactly its bytes. */
	if (n + (value[0] == '/') > sizeof(sa->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa->sun_path, value, n);
	if (value[0] == '@')
		sa->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
	    (value[0] == '/'));
	return 0;
}

/* Append s (n bytes) at *at; -1 when it does not fit with a NUL. */
static int
put(char *buf, size_t cap, size_t *at, const char *s, size_t n)
{
	if (n >= cap - *at)
		return -1;
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
	return 0;
}

/* STATUS= as one short line: systemd splits a message at newlines. */
static int
put_status(char *buf, size_t cap, size_t *at, const char *status)
{
	size_t i, n = strlen(status);

	if (n > NOTIFY_STATUS_MAX)
		n = NOTIFY_STATUS_MAX;
	if (put(buf, cap, at, "\nSTATUS=", 8) == -1 ||
	    put(buf, cap, at, status, n) == -1)
		return -1;
	for (i = *at - n; i < *at; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = ' ';
	return 0;
}

int
notify_format(char *buf, size_t cap, enum notify_state state,
    uint64_t mono_usec, const char *status)
{
	char mono[48];
	size_t at = 0;
	int rv = -1;

	if (cap == 0)
		return -1;
	buf[0] = '\0';
	switch (state) {
	case NOTIFY_READY:
		rv = put(buf, cap, &at, "READY=1", 7);
		break;
	case NOTIFY_RELOADING:
		/* systemd (notify-reload) wants the reload's start time. */
		snprintf(mono, sizeof(mono), "RELOADING=1\nMONOTONIC_USEC=%"
		    PRIu64, mono_usec);
		rv = put(buf, cap, &at, mono, strlen(mono));
		break;
	case NOTIFY_STOPPING:
		rv = put(buf, cap, &at, "STOPPING=1", 10);
		break;
	}
	if (rv == 0 && status != NULL)
		rv = put_status(buf, cap, &at, status);
	if (rv == -1) {
		buf[0] = '\0';
		return -1;
	}
	return (int)at;
}
