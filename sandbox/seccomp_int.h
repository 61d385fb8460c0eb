/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the seccomp files share: seccomp.c builds the main filter and
 * loads the programs, seccomp_broker.c builds the broker's filter; the
 * calls by name are seccomp_names.c's, those allowed for some arguments
 * only seccomp_args.c's, and how a rule is written seccomp_rule.c's.
 * Nothing else includes this.
 */
#ifndef SANDBOX_SECCOMP_INT_H
#define SANDBOX_SECCOMP_INT_H

#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox/internal.h"

#define ARG32		0xffffffffULL	/* the kernel reads an int */
#define NR_NONE		(-1)

/*
 * A call by name; nr is given for a call newer than some libseccomp (from
 * 424 on, numbers are the same on every architecture).  A name libseccomp
 * knows for no architecture, without nr, is a typo: the filter is not
 * built.  One known on other architectures only is left out here.
 */
struct named {
	const char	*name;
	int		 nr;
};

/* Allowed whatever their arguments, and refused (seccomp_names.c). */
extern const struct named sc_allowed[];
extern const size_t sc_nallowed;
extern const struct named sc_refused[];
extern const size_t sc_nrefused;

/* Calls allowed for some arguments only (seccomp_args.c). */
struct special {
	const char	*name;
	int		(*add)(scmp_filter_ctx, int);
};
extern const struct special sc_special[];
extern const size_t sc_nspecial;
/* socket() as in SECCOMP_MAIN_UDP: sc_special's, and UDP. */
extern const struct special sc_socket_udp;

/* Rules as written here (seccomp_rule.c); err says what failed: -1. */
int	 sc_fail(char *err, size_t errlen, const char *what,
	    const char *name, int rc);
struct scmp_arg_cmp sc_masked(unsigned int arg, uint64_t mask,
	    uint64_t datum);
int	 sc_rule(scmp_filter_ctx, uint32_t action, int nr, unsigned int n,
	    const struct scmp_arg_cmp *);
int	 sc_allow_if(scmp_filter_ctx, int nr, unsigned int arg,
	    uint64_t mask, uint64_t datum);
int	 sc_act_walk(scmp_filter_ctx, uint32_t action, int nr,
	    unsigned int arg, const uint32_t *set, size_t n, int depth,
	    uint32_t prefix);
int	 sc_allow_unless(scmp_filter_ctx, int nr, unsigned int arg,
	    const uint32_t *set, size_t n);

/* The connect broker's filter, variant which (seccomp_broker.c). */
scmp_filter_ctx sc_build_broker(int which, char *err, size_t errlen);

#endif /* SANDBOX_SECCOMP_INT_H */
