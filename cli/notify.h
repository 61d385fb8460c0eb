/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Readiness for systemd (SPEC 8.2): the sd_notify protocol written here,
 * one datagram per state change to $NOTIFY_SOCKET, with no libsystemd.
 * notifymsg.c is pure (the address and the message, unit-tested);
 * notify.c sends.
 */
#ifndef CLI_NOTIFY_H
#define CLI_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

enum notify_state {
	NOTIFY_READY,		/* every listener accepts; a reload is done */
	NOTIFY_RELOADING,	/* a SIGHUP reload starts */
	NOTIFY_STOPPING,	/* the drain starts */
};

/* The longest STATUS= text sent; a longer one is cut there. */
#define NOTIFY_STATUS_MAX	120
/* Room for any message notify_format writes. */
#define NOTIFY_MSG_MAX		(64 + NOTIFY_STATUS_MAX)

/*
 * $NOTIFY_SOCKET's value as an address: "/path" (a socket file) or
 * "@name" (an abstract socket: the '@' is a NUL byte on the wire).  0, or
 * -1 with errno EINVAL (another form: relative, empty, "@" alone) or
 * ENAMETOOLONG.
 */
int	notify_addr(const char *value, struct sockaddr_un *sa, socklen_t *len);

/*
 * The datagram for state: "READY=1", "RELOADING=1\nMONOTONIC_USEC=N"
 * (mono_usec: CLOCK_MONOTONIC when the reload starts) or "STOPPING=1",
 * then "\nSTATUS=" status when status is not NULL: one line, control
 * characters as spaces, at most NOTIFY_STATUS_MAX bytes.  Its length, or
 * -1 when cap is too small (nothing usable is left in buf).
 */
int	notify_format(char *buf, size_t cap, enum notify_state state,
	    uint64_t mono_usec, const char *status);

/* The sender: NOTIFY_SOCKET read once, a socket kept for every message. */
struct notifier {
	int			 fd;	/* -1: nobody to tell */
	struct sockaddr_un	 sa;
	socklen_t		 salen;
};

/*
 * Read NOTIFY_SOCKET and remove it from our environment (nothing we
 * start may speak for us).  Unset: fd -1, silently.  A value that is no
 * address, or no socket: one stderr line, fd -1.  Never fails the caller.
 */
void	notify_open(struct notifier *);
/*
 * Tell systemd; never blocks, never fails the caller: a message that
 * cannot be sent is one stderr line.
 */
void	notify_send(struct notifier *, enum notify_state, const char *status);
void	notify_close(struct notifier *);

#endif
