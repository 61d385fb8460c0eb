/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_seccomp_bpf: the exported seccomp program (SPEC 6.2) in an
 * interpreter (seccomp_harness.c): every call number takes the action
 * harn-egressd(8)'s System calls gives its name, the broker's filters
 * stop what the page says they decide, and the other ABIs are killed.
 */
#include <sys/types.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox/internal.h"
#include "tests/sandbox/seccomp_harness.h"

/* ---------------------------------------------------------------- */
/* The allowlist, held to its page (harn-egressd(8), System calls). */

#define NAMES_MAX	512

struct names {
	char	*v[NAMES_MAX];
	size_t	 n;
};

/* Names newer than some libseccomp, with their numbers (from 424 on). */
static const struct {
	const char	*name;
	int		 nr;
} newer[] = {
	{ "statmount", 457 }, { "listmount", 458 }, { "mseal", 462 },
	{ "open_tree_attr", 467 },
};

static int
name_nr(const char *name)
{
	size_t i;
	int nr = seccomp_syscall_resolve_name(name);

	if (nr != __NR_SCMP_ERROR)
		return nr;
	for (i = 0; i < NELEM(newer); i++)
		if (strcmp(newer[i].name, name) == 0)
			return newer[i].nr;
	return __NR_SCMP_ERROR;
}

/* Every name ("a_b", "c" ...) on a line of the page, in order. */
static void
take_names(const char *line, struct names *out)
{
	const char *p = line;
	size_t n;

	while (*p != '\0') {
		p += strspn(p, " ,.:");
		n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (n == 0) {
			p += strcspn(p, " ,");
			continue;
		}
		if (out->n < NAMES_MAX)
			out->v[out->n++] = strndup(p, n);
		p += n;
	}
}

static bool
has(const struct names *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return true;
	return false;
}

static void
names_free(struct names *s)
{
	while (s->n > 0)
		free(s->v[--s->n]);
}

/*
 * The page's lists: allowed, checked (the .B lines of its list), refused,
 * brokered (the .B lines of theirs) and refused to uid 0.
 */
static int
read_page(struct names *allowed, struct names *checked,
    struct names *refused, struct names *brokered, struct names *root)
{
	char path[4096], line[1024];
	const char *top = getenv("top_srcdir");
	enum { NONE, ALLOWED, CHECKED, REFUSED, BROKERED, ROOT } in = NONE;
	bool section = false, tp = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/man/harn-egressd.8",
	    top != NULL ? top : "..");
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, ".SS ", 4) == 0) {
			section = strcmp(line, ".SS System calls") == 0;
			in = NONE;
			continue;
		}
		if (!section)
			continue;
		if (strcmp(line, ".B Allowed:") == 0)
			in = ALLOWED;
		else if (strcmp(line, ".B Allowed for some arguments only") == 0)
			in = CHECKED;
		else if (strcmp(line, ".B Refused with EPERM:") == 0)
			in = REFUSED;
		else if (strcmp(line, ".B Decided by the broker") == 0)
			in = BROKERED;
		else if (strcmp(line, ".B Refused in landlock") == 0)
			in = ROOT;
		else if (strcmp(line, ".PP") == 0 && in != CHECKED &&
		    in != BROKERED)
			in = NONE;
		else if (strcmp(line, ".TP") == 0)
			tp = true;
		else if (tp && strncmp(line, ".B ", 3) == 0) {
			tp = false;
			if (in == CHECKED || in == BROKERED)
				take_names(line + 3, in == CHECKED ? checked :
				    brokered);
		} else if (line[0] != '.' && (in == ALLOWED || in == REFUSED ||
		    in == ROOT)) {
			/* The landlock list's lead-in has words, not calls. */
			if (in != ROOT || line[0] != '(')
				take_names(line, in == ALLOWED ? allowed :
				    in == REFUSED ? refused : root);
		} else
			tp = false;
	}
	(void)fclose(f);
	return 0;
}

/*
 * Does the broker's filter which stop nr for some arguments a command
 * uses?  Its UDP variant is loaded over the allowlist's UDP variant.
 */
static bool
notified(int which, const void *bprog, size_t blen, int nr)
{
	static const uint64_t tries[][6] = {
		{ 0 }, { 1, 1, 1, 1, 1, 1 },
		{ 3, F_SETOWN, 1 }, { 3, SOL_SOCKET, SO_KEEPALIVE },
		{ 3, SOL_SOCKET, SO_ERROR },
		{ AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0 },
	};
	struct sock_filter *saved = prog;
	size_t i, saved_len = prog_len, ulen;
	const void *uprog;
	bool stops = false;

	if ((which & SECCOMP_BROKER_UDP) && sandbox_seccomp_generated(
	    SECCOMP_MAIN_UDP, &uprog, &ulen) == 0) {
		prog = (struct sock_filter *)(uintptr_t)uprog;
		prog_len = ulen / sizeof(struct sock_filter);
	}
	for (i = 0; i < NELEM(tries) && !stops; i++)
		stops = (both(bprog, blen, nr, tries[i]) &
		    SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF;
	prog = saved;
	prog_len = saved_len;
	return stops;
}

/* Every name on the page is a call: a typo would pass as "ENOSYS". */
static void
check_page_names(const struct names *allowed, const struct names *checked,
    const struct names *refused)
{
	size_t i;
	int nr;
	bool seen[NR_LAST + 1];

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < allowed->n + checked->n + refused->n; i++) {
		const char *n = i < allowed->n ? allowed->v[i] :
		    i < allowed->n + checked->n ? checked->v[i - allowed->n] :
		    refused->v[i - allowed->n - checked->n];

		nr = name_nr(n);
		if (nr < 0 || nr > NR_LAST) {
			print_error("  page names %s: no such call\n", n);
			bpf_failures++;
			continue;
		}
		if (seen[nr]) {
			print_error("  page names %s twice\n", n);
			bpf_failures++;
		}
		seen[nr] = true;
	}
}

/* Each number to 1100 takes the action the page gives its name. */
static void
check_numbers(const struct names *allowed, const struct names *checked,
    const struct names *refused)
{
	uint64_t a[6] = { 0 }, r[6];
	size_t i;
	uint32_t want;
	char *name, num[16];
	int nr, k;

	for (nr = 0; nr < 1100; nr++) {
		name = seccomp_syscall_resolve_num_arch(seccomp_arch_native(),
		    nr);
		for (i = 0; name == NULL && i < NELEM(newer); i++)
			if (newer[i].nr == nr)
				name = strdup(newer[i].name);
		snprintf(num, sizeof(num), "nr %d", nr);
		if (name != NULL && has(allowed, name))
			want = ACT_ALLOW;
		else if (name != NULL && has(refused, name))
			want = ACT_EPERM;
		else if (name != NULL && has(checked, name))
			want = action(AUDIT_ARCH_X86_64, nr, a) == ACT_ENOSYS &&
			    strcmp(name, "clone3") != 0 &&
			    strcmp(name, "openat2") != 0 ? 0 :
			    action(AUDIT_ARCH_X86_64, nr, a);
		else
			want = nr <= NR_LAST ? ACT_ENOSYS : ACT_EPERM;
		bpf_check(name != NULL ? name : num, nr, a, want);
		if (name != NULL && has(allowed, name)) {
			for (k = 0; k < 6; k++)
				r[k] = rng();
			bpf_check(name, nr, r, ACT_ALLOW);
		}
		free(name);
	}
}

/* The broker's variants stop what the page says, no more. */
static void
check_brokered(const struct names *brokered)
{
	const void *bprog;
	size_t i, blen;
	char *name;
	int nr, which;

	for (which = 1; which < SECCOMP_PROGRAMS; which++) {
		if (!sandbox_seccomp_valid(which))
			continue;
		assert_int_equal(sandbox_seccomp_generated(which, &bprog,
		    &blen), 0);
		for (nr = 0; nr <= NR_LAST; nr++) {
			if (!notified(which, bprog, blen /
			    sizeof(struct sock_filter),
			    nr))
				continue;
			name = seccomp_syscall_resolve_num_arch(
			    seccomp_arch_native(), nr);
			if (name == NULL || !has(brokered, name)) {
				print_error("  filter %d stops %s, which the "
				    "page does not say\n", which,
				    name != NULL ? name : "?");
				bpf_failures++;
			}
			free(name);
		}
	}
	/* Every brokered name is stopped by some variant. */
	for (i = 0; i < brokered->n; i++) {
		bool any = false;

		nr = name_nr(brokered->v[i]);
		for (which = 1; which < SECCOMP_PROGRAMS && !any; which++)
			if (sandbox_seccomp_valid(which) &&
			    sandbox_seccomp_generated(which, &bprog, &blen) ==
			    0)
				any = notified(which, bprog, blen /
				    sizeof(struct sock_filter), nr);
		if (!any) {
			print_error("  page says the broker decides %s; no "
			    "filter stops it\n", brokered->v[i]);
			bpf_failures++;
		}
	}
}

/* landlock refuses the IPC calls; namespaces (its own IPC) not. */
static void
check_root(const struct names *root)
{
	const void *bprog;
	uint64_t a[6] = { 0 };
	size_t i, blen;
	int nr;

	for (i = 0; i < root->n; i++) {
		nr = name_nr(root->v[i]);
		assert_int_equal(sandbox_seccomp_generated(SECCOMP_BROKER |
		    SECCOMP_BROKER_LL, &bprog, &blen), 0);
		if (both(bprog, blen / sizeof(struct sock_filter), nr, a) !=
		    ACT_EPERM) {
			print_error("  landlock: %s not refused\n", root->v[i]);
			bpf_failures++;
		}
		assert_int_equal(sandbox_seccomp_generated(SECCOMP_BROKER,
		    &bprog, &blen), 0);
		if (both(bprog, blen / sizeof(struct sock_filter), nr, a) !=
		    ACT_ALLOW) {
			print_error("  namespaces: %s refused\n", root->v[i]);
			bpf_failures++;
		}
	}
}

/*
 * Every number from 0 to far beyond the highest any header knows takes
 * the action the page gives its name: allowed (whatever the arguments),
 * checked (the other tests hold its arguments), refused with EPERM, or,
 * named nowhere, ENOSYS (EPERM past NR_LAST).  A call the kernel gains
 * is refused until it is named.  The broker's filters stop exactly the
 * calls the page says they decide, and the uid 0 variant refuses the
 * IPC calls the page names.
 */
static void
test_bpf_allowlist(void **state)
{
	struct names allowed = { .n = 0 }, checked = { .n = 0 },
	    refused = { .n = 0 }, brokered = { .n = 0 }, root = { .n = 0 };

	(void)state;
	bpf_failures = 0;
	assert_int_equal(read_page(&allowed, &checked, &refused, &brokered,
	    &root), 0);
	print_message("  page: %zu allowed, %zu checked, %zu refused, %zu "
	    "brokered\n", allowed.n, checked.n, refused.n, brokered.n);
	assert_true(allowed.n > 200 && checked.n > 10 && refused.n > 40 &&
	    brokered.n > 20 && root.n == 18);
	check_page_names(&allowed, &checked, &refused);
	check_numbers(&allowed, &checked, &refused);
	check_brokered(&brokered);
	check_root(&root);
	names_free(&allowed);
	names_free(&checked);
	names_free(&refused);
	names_free(&brokered);
	names_free(&root);
	assert_int_equal(bpf_failures, 0);
}

/* x32 numbers, foreign architectures: killed; numbers past all: EPERM. */
static void
test_bpf_abis(void **state)
{
	uint64_t a[6] = { 0 };
	int nr;

	(void)state;
	bpf_failures = 0;
	print_message("  filter: %zu instructions\n", prog_len);
	assert_true(prog_len <= BPF_MAXINSNS);
	for (nr = 0; nr < 1100; nr++)
		bpf_check("x32", nr | (int)X32_BIT, a, ACT_KILL);
	for (nr = 0; nr < 600; nr++) {
		if (action(AUDIT_ARCH_I386, nr, a) != ACT_KILL ||
		    action(AUDIT_ARCH_AARCH64, nr, a) != ACT_KILL ||
		    action(AUDIT_ARCH_X86_64 & ~__AUDIT_ARCH_64BIT, nr, a) !=
		    ACT_KILL)
			bpf_failures++;
	}
	bpf_check("nr -1", -1, a, ACT_EPERM);
	bpf_check("nr 0x3fffffff", 0x3fffffff, a, ACT_EPERM);
	assert_int_equal(bpf_failures, 0);
}

int
main(void)
{
	const struct CMUnitTest bpf_tests[] = {
		cmocka_unit_test(test_bpf_allowlist),
		cmocka_unit_test(test_bpf_abis),
	};

	return cmocka_run_group_tests_name("seccomp bpf", bpf_tests,
	    load_prog, free_prog) != 0;
}
