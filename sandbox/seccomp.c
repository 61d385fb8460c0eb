/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seccomp (SPEC 6.2), built with libseccomp for the native architecture.
 *
 * An allowlist, as moby's default profile and systemd's
 * SystemCallFilter= are: the calls named in sc_allowed[] pass, the calls
 * in sc_special[] pass for the arguments their rules allow, the calls in
 * sc_refused[] fail with EPERM, and every other number up to NR_LAST fails
 * with ENOSYS, as on a kernel without it (a libc then falls back; a call
 * added to the kernel later is refused until it is reviewed and named
 * here).  Numbers above NR_LAST, and a checked call's arguments no rule
 * allows, take the default action, EPERM.  harn-egressd(8) lists the same
 * calls (SYSTEM CALLS), and tests/sandbox/test_seccomp_bpf.c holds the two to
 * each other over every number.
 *
 * The base is what moby's default profile allows a container without
 * added capabilities (compilers, package managers and test runners run
 * under it every day), less what SPEC 6.2 refuses and what a sandboxed
 * command has no use for (NUMA memory policy, fanotify marks, the *xattrat
 * calls, which are newer than every libc).
 *
 * A foreign ABI takes the bad-architecture action, KILL_PROCESS: i386 via
 * int 0x80 carries its own audit arch; x32 shares AUDIT_ARCH_X86_64 but
 * sets __X32_SYSCALL_BIT, and libseccomp (2.5), when the filter does not
 * name x32, sends every number >= 0x40000000 but -1 to the same action.
 *
 * Calls refused only for some arguments get ALLOW rules for the arguments
 * that may pass; the rest falls to the default action.  No syscall ever
 * has rules with two different actions, so nothing depends on the order
 * in which libseccomp would weigh them: it relies only on the documented
 * union of rules.  "Allowed unless the argument is one of ..." is written
 * as the complement of that set (sc_allow_unless()).
 *
 * The kernel reads socket's domain, type and protocol, ioctl's cmd,
 * clone's flags (lower_32_bits()), the send flags and setsockopt's level
 * and optname as 32-bit values: every comparison is MASKED_EQ with a mask
 * inside the low 32 bits, so garbage above bit 31 can neither pass a
 * refused value nor refuse an allowed one.
 *
 * The connect broker's filter (sc_build_broker) is the second filter the
 * command carries: it stops the calls the broker decides (user
 * notification) and lets the rest go to this one.  The kernel takes the
 * stricter answer of the two, so a call this filter refuses never
 * reaches the broker.
 *
 * The calls by name are in seccomp_names.c, those checked by argument and
 * their rules in seccomp_args.c, how a rule is written in seccomp_rule.c
 * and the broker's filter in seccomp_broker.c; here, the plan of every
 * number and the programs built, generated and loaded.
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/seccomp_int.h"

/* Below this, numbers no table names fail with ENOSYS; above, EPERM. */
#define NR_LAST		511

/* Filter attributes, all required. */
static const struct attr {
	enum scmp_filter_attr	 attr;
	uint32_t		 value;
	const char		*what;
} attrs[] = {
	{ SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS,
	    "kill a foreign architecture" },
	/* The caller sets it too; without it an unprivileged load fails. */
	{ SCMP_FLTATR_CTL_NNP, 1, "no_new_privs" },
	/* A thread the caller did not expect is filtered as well. */
	{ SCMP_FLTATR_CTL_TSYNC, 1, "thread synchronisation" },
	/* Some 500 numbers with rules: search them as a tree, not a list. */
	{ SCMP_FLTATR_CTL_OPTIMIZE, 2, "binary tree" },
	/* So that a failed load reports the kernel's errno. */
	{ SCMP_FLTATR_API_SYSRAWRC, 1, "raw return codes" },
};

/* What the filter does with each number up to NR_LAST. */
enum nr_kind {
	NR_ENOSYS = 0,		/* named nowhere */
	NR_ALLOW,
	NR_CHECK,
	NR_REFUSE
};

struct nr_plan {
	enum nr_kind		 kind[NR_LAST + 1];
	const struct special	*check[NR_LAST + 1];
};

/*
 * The number name has here: -1 when the call does not exist on this
 * architecture, -2 when libseccomp knows it nowhere and the table gives
 * no number (a typo, which must not leave a call allowed).
 */
static int
named_nr(uint32_t arch, const char *name, int given)
{
	int nr = seccomp_syscall_resolve_name_arch(arch, name);

	if (nr == __NR_SCMP_ERROR)
		return given != NR_NONE ? given : -2;
	return nr < 0 ? -1 : nr;
}

/* Put one named call in the plan; a number named twice is an error. */
static int
plan_one(struct nr_plan *p, uint32_t arch, const char *name, int given,
    enum nr_kind kind, const struct special *s, char *err, size_t errlen)
{
	int nr = named_nr(arch, name, given);

	if (nr == -1)
		return 0;
	if (nr == -2)
		return sc_fail(err, errlen, "unknown call", name, -EINVAL);
	if (nr > NR_LAST)
		return sc_fail(err, errlen, "call above NR_LAST", name,
		    -EINVAL);
	if (p->kind[nr] != NR_ENOSYS)
		return sc_fail(err, errlen, "call named twice", name, -EINVAL);
	p->kind[nr] = kind;
	p->check[nr] = s;
	return 0;
}

static int
plan_numbers(struct nr_plan *p, uint32_t arch, char *err, size_t errlen)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < sc_nallowed; i++)
		if (plan_one(p, arch, sc_allowed[i].name, sc_allowed[i].nr,
		    NR_ALLOW, NULL, err, errlen) == -1)
			return -1;
	for (i = 0; i < sc_nspecial; i++)
		if (plan_one(p, arch, sc_special[i].name, NR_NONE, NR_CHECK,
		    &sc_special[i], err, errlen) == -1)
			return -1;
	for (i = 0; i < sc_nrefused; i++)
		if (plan_one(p, arch, sc_refused[i].name, sc_refused[i].nr,
		    NR_REFUSE, NULL, err, errlen) == -1)
			return -1;
	return 0;
}

/* The rules for one syscall number. */
static int
add_nr(scmp_filter_ctx ctx, const struct nr_plan *p, int nr, char *err,
    size_t errlen)
{
	char num[16];
	int rc = 0;

	switch (p->kind[nr]) {
	case NR_ENOSYS:
		rc = sc_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0, NULL);
		break;
	case NR_ALLOW:
		rc = sc_rule(ctx, SCMP_ACT_ALLOW, nr, 0, NULL);
		break;
	case NR_CHECK:
		rc = p->check[nr]->add(ctx, nr);
		break;
	case NR_REFUSE:
		break;		/* the default action, EPERM */
	}
	if (rc < 0) {
		snprintf(num, sizeof(num), "%d", nr);
		return sc_fail(err, errlen, "rule for", p->check[nr] != NULL ?
		    p->check[nr]->name : num, rc);
	}
	return 0;
}

static int
set_attrs(scmp_filter_ctx ctx, char *err, size_t errlen)
{
	size_t i;
	int rc;

	for (i = 0; i < NELEM(attrs); i++)
		if ((rc = seccomp_attr_set(ctx, attrs[i].attr,
		    attrs[i].value)) < 0)
			return sc_fail(err, errlen, "attribute", attrs[i].what,
			    rc);
	return 0;
}

/* The whole filter, or NULL with err set. */
static scmp_filter_ctx
build(int which, char *err, size_t errlen)
{
	static struct nr_plan plan;
	scmp_filter_ctx ctx;
	uint32_t arch;
	int nr;

	arch = seccomp_arch_native();
	if (plan_numbers(&plan, arch, err, errlen) == -1)
		return NULL;
	if (which == SECCOMP_MAIN_UDP && (nr = named_nr(arch, "socket",
	    NR_NONE)) >= 0)
		plan.check[nr] = &sc_socket_udp;
	/* Native architecture only: seccomp_init adds nothing else. */
	if ((ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM))) == NULL) {
		sc_fail(err, errlen, "seccomp_init", NULL, -ENOMEM);
		return NULL;
	}
	if (set_attrs(ctx, err, errlen) == -1)
		goto bad;
	for (nr = 0; nr <= NR_LAST; nr++)
		if (add_nr(ctx, &plan, nr, err, errlen) == -1)
			goto bad;
	return ctx;
 bad:
	seccomp_release(ctx);
	return NULL;
}

/*
 * The main filter, built now and loaded (tests/sandbox/test_seccomp.c,
 * test_seccomp_args.c).
 */
int
sandbox_seccomp_load(char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if ((ctx = build(SECCOMP_MAIN, err, errlen)) == NULL)
		return -1;
	/* One seccomp(2) call: the whole filter or none of it. */
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0)
		return sc_fail(err, errlen, "seccomp_load", NULL, rc);
	return 0;
}

/* The programs there are: the main one, and the broker's variants. */
bool
sandbox_seccomp_valid(int which)
{
	if (which == SECCOMP_MAIN || which == SECCOMP_MAIN_UDP ||
	    which == SECCOMP_BROKER)
		return true;
	if (which < 0 || which >= SECCOMP_PROGRAMS ||
	    !(which & SECCOMP_BROKER) || !(which & SECCOMP_BROKER_LL))
		return false;
	return true;
}

static scmp_filter_ctx
build_which(int which, char *err, size_t errlen)
{
	if (!sandbox_seccomp_valid(which)) {
		sc_fail(err, errlen, "no such filter", NULL, -EINVAL);
		return NULL;
	}
	if (which == SECCOMP_MAIN || which == SECCOMP_MAIN_UDP)
		return build(which, err, errlen);
	return sc_build_broker(which, err, errlen);
}

#ifndef SECCOMP_GEN_ONLY	/* the generator itself has no program yet */
/* The programs generated at build time (sandbox/seccomp-prog.c). */
extern const unsigned char *const sandbox_seccomp_progs[SECCOMP_PROGRAMS];
extern const size_t sandbox_seccomp_progs_len[SECCOMP_PROGRAMS];

int
sandbox_seccomp_program(const void **prog, size_t *len)
{
	*prog = sandbox_seccomp_progs[SECCOMP_MAIN];
	*len = sandbox_seccomp_progs_len[SECCOMP_MAIN];
	return 0;
}

int
sandbox_seccomp_generated(int which, const void **prog, size_t *len)
{
	if (!sandbox_seccomp_valid(which) || which == SECCOMP_MAIN)
		return -1;	/* the main one: sandbox_seccomp_program */
	*prog = sandbox_seccomp_progs[which];
	*len = sandbox_seccomp_progs_len[which];
	return 0;
}

int
sandbox_seccomp_load_broker(int which, char *err, size_t errlen)
{
	struct sock_fprog fp;
	const void *prog;
	size_t len;
	int fd;

	if (sandbox_seccomp_generated(which, &prog, &len) == -1)
		return sc_fail(err, errlen, "user notification", NULL, -EINVAL);
	fp.len = (unsigned short)(len / sizeof(struct sock_filter));
	fp.filter = (struct sock_filter *)(uintptr_t)prog;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	if (fd == -1)
		return sc_fail(err, errlen, "user notification", NULL, -errno);
	return fd;
}
#endif

/* The same program, built now with libseccomp. */
int
sandbox_seccomp_build_program(int which, void **prog, size_t *len,
    char *err, size_t errlen)
{
	struct stat st;
	void *buf = NULL;
	int fd;

	*prog = NULL;
	*len = 0;
	if ((fd = memfd_create("harn-seccomp", MFD_CLOEXEC)) == -1)
		return sc_fail(err, errlen, "memfd_create", NULL, -errno);
	if (sandbox_seccomp_export_bpf(which, fd, err, errlen) == -1)
		goto fail;
	if (fstat(fd, &st) == -1 || st.st_size <= 0 ||
	    st.st_size % sizeof(struct sock_filter) != 0 ||
	    (buf = malloc(st.st_size)) == NULL ||
	    pread(fd, buf, st.st_size, 0) != st.st_size) {
		sc_fail(err, errlen, "export", NULL, -EIO);
		goto fail;
	}
	close(fd);
	*prog = buf;
	*len = st.st_size;
	return 0;
fail:
	free(buf);
	close(fd);
	return -1;
}

int
sandbox_seccomp_load_program(const void *prog, size_t len, char *err,
    size_t errlen)
{
	struct sock_fprog fp = {
		.len = (unsigned short)(len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)(uintptr_t)prog,
	};

	if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS)
		return sc_fail(err, errlen, "load", NULL, -EINVAL);
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) == -1)
		return sc_fail(err, errlen, "seccomp", NULL, -errno);
	return 0;
}

int
sandbox_seccomp_export_bpf(int which, int fd, char *err, size_t errlen)
{
	scmp_filter_ctx ctx;
	int rc;

	if ((ctx = build_which(which, err, errlen)) == NULL)
		return -1;
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0)
		return sc_fail(err, errlen, "seccomp_export_bpf", NULL, rc);
	return 0;
}
