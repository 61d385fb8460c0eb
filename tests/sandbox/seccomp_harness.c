/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seccomp_harness: what the seccomp filter's test programs share
 * (seccomp_harness.h says which uses what).
 *
 * Each probe runs twice, in a forked child: once as control, without the
 * filter, and once after no_new_privs and sandbox_seccomp_load().  A
 * refused probe must fail with EPERM (or ENOSYS, or die of SIGSYS) under
 * the filter, and its control must not: a probe whose control already
 * looks refused could not notice an escape, so the row fails rather than
 * passes.  The only exceptions are probes the kernel itself refuses to an
 * unprivileged user before looking at anything else (F_PRIV); run as such
 * a user they are skipped, loudly, and the BPF tests cover them.
 *
 * The BPF tests run the exported filter program in an interpreter over
 * whole ranges of arguments, upper 32 bits included, against the rules
 * of SPEC 6.2 written out again in their files.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"
#include "tests/sandbox/seccomp_harness.h"

/* ---------------------------------------------------------------- */
/* Probes in a child. */

enum stage { S_LOST, S_SETUP, S_LOAD, S_DONE };

struct report {
	int	 stage;
	int	 err;
	long	 ret;
	char	 msg[200];
};

struct outcome {
	struct report	 r;
	int		 sig;	/* killed by */
	int		 code;	/* or exit code */
};

static void
reset_crash_signals(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	    SIGABRT, SIGSYS };
	size_t i;

	for (i = 0; i < NELEM(sigs); i++)
		(void)signal(sigs[i], SIG_DFL);
}

static void
child(const struct probe *p, bool filtered, int fd)
{
	struct rlimit none = { 0, 0 };
	struct report r;

	memset(&r, 0, sizeof(r));
	(void)setrlimit(RLIMIT_CORE, &none);
	/*
	 * cmocka's handlers for crashes are inherited: a probe that dies of
	 * a signal must die of it here, not go on running the rest of the
	 * suite inside this child.
	 */
	reset_crash_signals();
	alarm(20);
	if (p->setup != NULL && p->setup() == -1) {
		r.stage = S_SETUP;
		r.err = errno;
		goto out;
	}
	if (filtered) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
			r.stage = S_LOAD;
			snprintf(r.msg, sizeof(r.msg), "no_new_privs: %s",
			    strerror(errno));
			goto out;
		}
		if (sandbox_seccomp_load(r.msg, sizeof(r.msg)) == -1) {
			r.stage = S_LOAD;
			goto out;
		}
	}
	errno = 0;
	r.ret = p->fn(p);
	r.err = r.ret < 0 ? errno : 0;
	r.stage = S_DONE;
 out:
	if (write(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(99);
	/* _exit: no atexit handlers (LeakSanitizer would ptrace). */
	_exit(0);
}

static void
run(const struct probe *p, bool filtered, struct outcome *o)
{
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	memset(o, 0, sizeof(*o));
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		close(fds[0]);
		child(p, filtered, fds[1]);
	}
	close(fds[1]);
	n = read(fds[0], &o->r, sizeof(o->r));
	if (n != (ssize_t)sizeof(o->r))
		o->r.stage = S_LOST;
	close(fds[0]);
	for (;;) {
		if (waitpid(pid, &status, 0) == -1) {
			assert_int_equal(errno, EINTR);
			continue;
		}
		if (!WIFSTOPPED(status))
			break;
		/* A child that asked to be traced: end it. */
		kill(pid, SIGKILL);
	}
	if (WIFSIGNALED(status))
		o->sig = WTERMSIG(status);
	else
		o->code = WEXITSTATUS(status);
}

static const char *
errname(int e)
{
	const char *s = strerrorname_np(e);

	return s != NULL ? s : "?";
}

static void
describe(const struct outcome *o, char *buf, size_t len)
{
	if (o->sig != 0 && o->r.stage != S_DONE)
		snprintf(buf, len, "killed by %s", sigabbrev_np(o->sig));
	else if (o->r.stage == S_SETUP)
		snprintf(buf, len, "setup failed: %s", errname(o->r.err));
	else if (o->r.stage == S_LOAD)
		snprintf(buf, len, "load failed: %s", o->r.msg);
	else if (o->r.stage != S_DONE)
		snprintf(buf, len, "no report (exit %d)", o->code);
	else if (o->r.ret >= 0)
		snprintf(buf, len, "ok (%ld)", o->r.ret);
	else
		snprintf(buf, len, "%s", errname(o->r.err));
}

static bool
done(const struct outcome *o)
{
	return o->r.stage == S_DONE && o->sig == 0;
}

static bool
failed_with(const struct outcome *o, int e)
{
	return done(o) && o->r.ret < 0 && o->r.err == e;
}

static bool
killed_sigsys(const struct outcome *o)
{
	return o->sig == SIGSYS && o->r.stage == S_LOST;
}

/* Did the filtered run give what the row wants? */
static bool
filtered_ok(const struct probe *p, const struct outcome *f)
{
	switch (p->want) {
	case W_ALLOW:
		return done(f) && f->r.ret >= 0;
	case W_EPERM:
		return failed_with(f, EPERM);
	case W_ENOSYS:
		return failed_with(f, ENOSYS);
	case W_KILL:
		return killed_sigsys(f);
	case W_KILL_OR_EPERM:
		return killed_sigsys(f) || failed_with(f, EPERM);
	}
	return false;
}

/* Could the control tell an escape from a refusal? */
static bool
control_ok(const struct probe *p, const struct outcome *c)
{
	if (!done(c))
		return false;
	switch (p->want) {
	case W_ALLOW:
		return c->r.ret >= 0;
	case W_EPERM:
	case W_KILL_OR_EPERM:
		return c->r.ret >= 0 || c->r.err != EPERM;
	case W_ENOSYS:
		return c->r.ret >= 0 || c->r.err != ENOSYS;
	case W_KILL:
		return c->r.ret >= 0 || c->r.err != EPERM;
	}
	return false;
}

/* Why the row cannot be judged here, or NULL. */
static const char *
skip_reason(const struct probe *p, const struct outcome *c)
{
	if ((p->flags & F_PRIV) && geteuid() != 0 && failed_with(c, EPERM))
		return "the kernel refuses it to this user before the filter "
		    "could matter (covered by the BPF tests)";
	if ((p->flags & F_IA32) && (!done(c) || c->r.ret != 0))
		return "no IA32 emulation here (int 0x80 did not return the "
		    "pid)";
	return NULL;
}

int
run_table(const char *table, const struct probe *rows, size_t n)
{
	struct outcome c, f;
	char cs[256], fs[256];
	const char *why;
	int failures = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		run(&rows[i], false, &c);
		describe(&c, cs, sizeof(cs));
		if ((why = skip_reason(&rows[i], &c)) != NULL) {
			print_message("  [skip] %s %s: control %s: %s\n",
			    table, rows[i].name, cs, why);
			continue;
		}
		run(&rows[i], true, &f);
		describe(&f, fs, sizeof(fs));
		if (!control_ok(&rows[i], &c)) {
			print_error("  [FAIL] %s %s: control %s cannot tell "
			    "an escape (filtered %s)\n", table, rows[i].name,
			    cs, fs);
			failures++;
		} else if (!filtered_ok(&rows[i], &f)) {
			print_error("  [FAIL] %s %s: filtered %s (control "
			    "%s)\n", table, rows[i].name, fs, cs);
			failures++;
		} else
			print_message("  [ok]   %s %s: control %s, filtered "
			    "%s\n", table, rows[i].name, cs, fs);
	}
	return failures;
}

/* ---------------------------------------------------------------- */
/* Setups, before the filter. */

static int
write_file(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* A user namespace (we are root in it), plus the namespaces in more. */
static int
enter_userns(int more)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | more) == -1)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) == -1 ||
	    write_file("/proc/self/setgroups", "deny") == -1)
		return -1;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
	return write_file("/proc/self/gid_map", map);
}

int
setup_userns(void)
{
	return enter_userns(0);
}

int
setup_userns_net(void)
{
	return enter_userns(CLONE_NEWNET);
}

int
setup_userns_mnt(void)
{
	return enter_userns(CLONE_NEWNS);
}

/* ---------------------------------------------------------------- */
/* Probe functions: >= 0 on success, -1 with errno. */

long
p_raw(const struct probe *p)
{
	return syscall(p->a[0], p->a[1], p->a[2], p->a[3], p->a[4], p->a[5]);
}

/* ---------------------------------------------------------------- */
/* The exported program, in an interpreter. */

struct sock_filter	*prog;
size_t			 prog_len;

int
load_prog(void **state)
{
	char err[256];
	struct stat st;
	FILE *f;

	if ((f = tmpfile()) == NULL)
		return -1;
	if (sandbox_seccomp_export_bpf(SECCOMP_MAIN, fileno(f), err,
	    sizeof(err)) == -1) {
		print_error("%s\n", err);
		fclose(f);
		return -1;
	}
	if (fstat(fileno(f), &st) == -1 || st.st_size % 8 != 0 ||
	    st.st_size == 0) {
		fclose(f);
		return -1;
	}
	prog_len = (size_t)st.st_size / sizeof(*prog);
	if ((prog = malloc((size_t)st.st_size)) == NULL ||
	    fseek(f, 0, SEEK_SET) != 0 ||
	    fread(prog, sizeof(*prog), prog_len, f) != prog_len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

int
free_prog(void **state)
{
	free(prog);
	prog = NULL;
	return 0;
}

/* Classic BPF as seccomp runs it; UINT32_MAX-1 on a bad program. */
#define BAD_PROG	0xfffffffeU

static uint32_t
alu(uint16_t op, uint32_t a, uint32_t s, bool *bad)
{
	switch (op) {
	case BPF_ADD:	return a + s;
	case BPF_SUB:	return a - s;
	case BPF_MUL:	return a * s;
	case BPF_DIV:	return s != 0 ? a / s : (*bad = true, 0);
	case BPF_MOD:	return s != 0 ? a % s : (*bad = true, 0);
	case BPF_OR:	return a | s;
	case BPF_AND:	return a & s;
	case BPF_XOR:	return a ^ s;
	case BPF_LSH:	return s < 32 ? a << s : 0;
	case BPF_RSH:	return s < 32 ? a >> s : 0;
	case BPF_NEG:	return -a;
	}
	*bad = true;
	return 0;
}

static bool
jump_taken(uint16_t op, uint32_t a, uint32_t s, bool *bad)
{
	switch (op) {
	case BPF_JEQ:	return a == s;
	case BPF_JGT:	return a > s;
	case BPF_JGE:	return a >= s;
	case BPF_JSET:	return (a & s) != 0;
	}
	*bad = true;
	return false;
}

static uint32_t
bpf_run(const struct seccomp_data *d)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS];
	const struct sock_filter *i;
	bool bad = false;
	size_t pc;

	memset(M, 0, sizeof(M));
	for (pc = 0; pc < prog_len && !bad; pc++) {
		i = &prog[pc];
		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS) &&
			    i->k % 4 == 0 && i->k + 4 <= sizeof(*d))
				memcpy(&A, (const char *)d + i->k, 4);
			else if (i->code == (BPF_LD | BPF_IMM))
				A = i->k;
			else if (i->code == (BPF_LD | BPF_MEM) &&
			    i->k < BPF_MEMWORDS)
				A = M[i->k];
			else
				return BAD_PROG;
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_IMM))
				X = i->k;
			else if (i->code == (BPF_LDX | BPF_MEM) &&
			    i->k < BPF_MEMWORDS)
				X = M[i->k];
			else
				return BAD_PROG;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return BAD_PROG;
			M[i->k] = BPF_CLASS(i->code) == BPF_ST ? A : X;
			break;
		case BPF_ALU:
			A = alu(BPF_OP(i->code), A,
			    BPF_SRC(i->code) == BPF_X ? X : i->k, &bad);
			break;
		case BPF_JMP:
			if (BPF_OP(i->code) == BPF_JA)
				pc += i->k;
			else if (jump_taken(BPF_OP(i->code), A,
			    BPF_SRC(i->code) == BPF_X ? X : i->k, &bad))
				pc += i->jt;
			else
				pc += i->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? A : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		}
	}
	return BAD_PROG;
}

uint32_t
action(uint32_t arch, int nr, const uint64_t a[6])
{
	struct seccomp_data d;

	memset(&d, 0, sizeof(d));
	d.arch = arch;
	d.nr = nr;
	memcpy(d.args, a, sizeof(d.args));
	return bpf_run(&d);
}

int	bpf_failures;

void
bpf_check(const char *what, int nr, const uint64_t a[6], uint32_t want)
{
	uint32_t got = action(AUDIT_ARCH_X86_64, nr, a);

	if (got == want)
		return;
	if (bpf_failures++ < 20)
		print_error("  %s: nr %d args %#llx %#llx %#llx %#llx: "
		    "action %#x, want %#x\n", what, nr,
		    (unsigned long long)a[0], (unsigned long long)a[1],
		    (unsigned long long)a[2], (unsigned long long)a[3], got,
		    want);
}

static uint64_t	rng_state = 0x9e3779b97f4a7c15ULL;

uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* What the kernel does with nr under both filters (the stricter wins). */
uint32_t
both(const struct sock_filter *bprog, size_t blen, int nr,
    const uint64_t a[6])
{
	uint32_t main_act = action(AUDIT_ARCH_X86_64, nr, a), b;
	struct sock_filter *saved = prog;
	size_t saved_len = prog_len;

	prog = (struct sock_filter *)(uintptr_t)bprog;
	prog_len = blen;
	b = action(AUDIT_ARCH_X86_64, nr, a);
	prog = saved;
	prog_len = saved_len;
	/* Precedence: ERRNO before USER_NOTIF before ALLOW. */
	if ((main_act & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO)
		return main_act;
	if ((b & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO ||
	    (b & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
		return b;
	return main_act;
}
