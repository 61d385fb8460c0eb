/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The connect broker's seccomp filter (SPEC 6.2, 6.5), the command's
 * second: which calls stop for the broker is broker_calls.c's table;
 * the landlock confinement's refusals of the host's IPC and of owners
 * given through memory are here.
 */
#include <sys/ioctl.h>

#include <errno.h>
#include <fcntl.h>

#include "sandbox/seccomp_int.h"

/*
 * An owner given through memory (F_SETOWN_EX, FIOSETOWN, SIOCSPGRP)
 * could change after a check: those are refused in the landlock
 * confinement (F_SETOWN itself is the broker's, broker_calls.c).
 */
static int
refuse_owners(scmp_filter_ctx ctx)
{
	static const struct {
		int		 nr;
		unsigned long	 value;
	} args[] = {
		{ SCMP_SYS(fcntl), F_SETOWN_EX },
		{ SCMP_SYS(ioctl), FIOSETOWN },
		{ SCMP_SYS(ioctl), SIOCSPGRP },
	};
	struct scmp_arg_cmp cmp;
	size_t i;
	int rc;

	for (i = 0; i < NELEM(args); i++) {
		cmp = sc_masked(1, 0xffffffffUL, args[i].value);
		if ((rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), args[i].nr, 1,
		    &cmp)) < 0)
			return rc;
	}
	return 0;
}

/* Stop nr for the broker when the low 32 bits of arg are not 0. */
static int
notify_unless_zero(scmp_filter_ctx ctx, int nr, unsigned int arg)
{
	static const uint32_t zero[] = { 0 };

	return sc_act_walk(ctx, SCMP_ACT_NOTIFY, nr, arg, zero, NELEM(zero), 0,
	    0);
}

/* One row of brokered_calls[] stopped for the broker, as it says. */
static int
notify_call(scmp_filter_ctx ctx, const struct brokered *c)
{
	struct scmp_arg_cmp cmp[2];
	unsigned i;
	int rc, nr;

	if ((nr = seccomp_syscall_resolve_name(c->name)) < 0)
		return c->optional ? 0 : -EINVAL;
	switch (c->stop) {
	case STOP_ALWAYS:
		return sc_rule(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL);
	case STOP_UNLESS_ZERO:
		if ((rc = notify_unless_zero(ctx, nr, c->arg[0])) < 0 ||
		    c->user < 0)
			return rc;
		cmp[0] = sc_masked(0, ARG32, (uint32_t)c->user);
		return sc_rule(ctx, SCMP_ACT_NOTIFY, nr, 1, cmp);
	case STOP_MATCH:
		for (i = 0; i < c->nmatch && i < NELEM(cmp); i++)
			cmp[i] = sc_masked(c->arg[i], c->mask[i] != 0 ?
			    c->mask[i] : 0xffffffffUL, c->val[i]);
		return sc_rule(ctx, SCMP_ACT_NOTIFY, nr, i, cmp);
	case STOP_NONNULL:
		/* A pointer: every bit, so that no address passes unseen. */
		cmp[0] = SCMP_CMP(c->arg[0], SCMP_CMP_NE, 0);
		return sc_rule(ctx, SCMP_ACT_NOTIFY, nr, 1, cmp);
	}
	return -EINVAL;
}

/*
 * The landlock confinement shares the host's IPC namespace: a SysV queue,
 * semaphore or segment of a host process (of the command's own uid, or
 * one left open to all) would be a channel around the proxy, and its
 * memory readable.  POSIX queues alike.  The namespaces confinement has
 * its own.
 */
static const char *const host_ipc[] = {
	"msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop",
	"semtimedop", "semctl", "shmget", "shmat", "shmdt", "shmctl",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
	"mq_notify", "mq_getsetattr",
};

/*
 * Flags and attributes of a file set by ioctl on a descriptor opened to
 * read, which Landlock (for regular files) does not see: nodump, sync,
 * noatime, project ids, fs-verity, an encryption policy.  Refused in the
 * landlock confinement, where no read-only mount stands behind.  The
 * 32-bit encodings too.
 */
static const uint32_t attr_ioctls[] = {
	0x40086602,	/* FS_IOC_SETFLAGS */
	0x40046602,	/* FS_IOC32_SETFLAGS */
	0x401c5820,	/* FS_IOC_FSSETXATTR */
	0x40807685,	/* FS_IOC_ENABLE_VERITY */
	0x800c6613,	/* FS_IOC_SET_ENCRYPTION_POLICY */
	0xc0096617,	/* FS_IOC_SET_ENCRYPTION_POLICY (v2) */
	0x40087602,	/* FS_IOC_SETVERSION */
	0x40047602,	/* FS_IOC32_SETVERSION */
};

static int
broker_host(scmp_filter_ctx ctx)
{
	struct scmp_arg_cmp cmp;
	size_t i;
	int rc, nr;

	for (i = 0; i < NELEM(host_ipc); i++) {
		if ((nr = seccomp_syscall_resolve_name(host_ipc[i])) < 0)
			continue;
		if ((rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0, NULL)) < 0)
			return rc;
	}
	for (i = 0; i < NELEM(attr_ioctls); i++) {
		cmp = sc_masked(1, ARG32, attr_ioctls[i]);
		if ((rc = sc_rule(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl),
		    1, &cmp)) < 0)
			return rc;
	}
	return 0;
}

/*
 * The connect broker's filter, the command's second: the calls the
 * broker decides stop for it (user notification), everything else is
 * left to the main filter.  A foreign ABI is killed here too.  Which
 * calls stop, in which variant, is broker_calls.c's table: always
 * connect, bind and listen (SPEC 6.2, 6.5: nothing inbound) and the calls
 * on another process; in the landlock confinement (LL) the metadata,
 * signal and accept calls as well; where it connects fresh sockets
 * (OPTS), the socket options it must carry over; for a command that
 * keeps uid 0 (ROOT), its forks.  LL refuses the host's IPC here too.
 */
scmp_filter_ctx
sc_build_broker(int which, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	size_t i;
	int rc = 0;

	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		sc_fail(err, errlen, "seccomp_init", NULL, -ENOMEM);
		return NULL;
	}
	if ((rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1)) < 0)
		goto bad;
	for (i = 0; i < brokered_ncalls; i++)
		if ((which & brokered_calls[i].where) == brokered_calls[i].where &&
		    (rc = notify_call(ctx, &brokered_calls[i])) < 0)
			goto bad;
	if ((which & SECCOMP_BROKER_LL) && ((rc = refuse_owners(ctx)) < 0 ||
	    (rc = broker_host(ctx)) < 0))
		goto bad;
	return ctx;
bad:
	sc_fail(err, errlen, "broker filter", NULL, rc);
	seccomp_release(ctx);
	return NULL;
}
