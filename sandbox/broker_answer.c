/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The broker's answers to its callers: an error, or the call let go on
 * as it was made (only when the kernel will judge nothing we checked
 * from memory); whether a caller still waits; and a refused endpoint
 * said (conf->refused, the decision log's not_through_proxy) before the
 * caller is answered.  Below every act: it calls none of them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>
#include <linux/capability.h>
#include <linux/netlink.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include <event2/event.h>
#include <seccomp.h>

#include "sandbox/internal.h"
#include "sandbox/broker_int.h"

/* ---------------------------------------------------------------- */
/* Answers. */

int
broker_respond(struct broker *b, uint64_t id, int err)
{
	union {
		struct seccomp_notif_resp	 r;
		char				 buf[256];
	} u;

	memset(&u, 0, sizeof(u));
	u.r.id = id;
	u.r.error = err == 0 ? 0 : -err;
	u.r.val = 0;
	if (ioctl(b->notify, SECCOMP_IOCTL_NOTIF_SEND, &u.r) == -1 &&
	    errno != ENOENT)	/* the caller is gone, or was interrupted */
		return -1;
	return 0;
}

/* A call answered with a value (a count of bytes), as if the kernel's. */
int
broker_respond_val(struct broker *b, uint64_t id, int64_t val)
{
	struct seccomp_notif_resp r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.val = val;
	if (ioctl(b->notify, SECCOMP_IOCTL_NOTIF_SEND, &r) == -1 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

/*
 * Let the call go on as it was made: its arguments are registers, which
 * the kernel does not read again from the caller's memory.  What is left
 * is a pid freed and handed to a process outside between the check and
 * the call, which needs the pid space to wrap around in that time.
 */
void
broker_proceed(struct broker *b, uint64_t id)
{
	struct seccomp_notif_resp r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)ioctl(b->notify, SECCOMP_IOCTL_NOTIF_SEND, &r);
}

bool
broker_alive(const struct broker *b, uint64_t id)
{
	return ioctl(b->notify, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* ---------------------------------------------------------------- */
/* Refusals said (the decision log's not_through_proxy). */

/* The caller's process (its thread group) and its program ("": unknown). */
static pid_t
caller_process(pid_t tid, char *exe, size_t len)
{
	pid_t tgid;

	tgid = diag_tgid(tid);
	if (tgid <= 0)
		tgid = tid;
	broker_exe_of(tgid, exe, len);
	return tgid;
}

/*
 * The caller's process and program, and the endpoint: to conf->refused.
 * port, where not 0, is the one to name (an inbound peer's: the port it
 * came to).
 */
void
broker_say_refused(struct broker *b, pid_t tid, enum broker_op op,
    const struct sockaddr_storage *ss, socklen_t len, const char *cwd,
    unsigned short port)
{
	struct broker_refusal r;

	if (b->refused == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.op = op;
	r.pid = caller_process(tid, r.exe, sizeof(r.exe));
	broker_endpoint(ss, len, cwd, r.addr, sizeof(r.addr), &r.port);
	if (port != 0)
		r.port = port;
	b->refused(b->arg, &r);
}
