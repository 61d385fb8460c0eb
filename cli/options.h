/* SPDX-License-Identifier: Apache-2.0 */
/* Options of service and run mode (SPEC 2). */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stdbool.h>

#include "conf/conf.h"

#define OPT_MAX_ROOTS	64
#define OPT_MAX_ENV	64
#define OPT_MAX_SUBJECTS	1024

struct options {
	const char		*policy;
	struct conf_sockaddr	 listen[CONF_MAX_LISTEN];
	size_t			 nlisten;
	const char		*port_file;
	const char		*metrics;	/* ADDR:PORT or unix:PATH */
	const char		*log;		/* NULL: stderr */
	const char		*attest;
	const char		*attest_format;	/* NULL: not given (json) */
	const char		*subjects[OPT_MAX_SUBJECTS];
	size_t			 nsubjects;
	unsigned long long	 subject_max;	/* --attest-subject-max */
	bool			 subject_max_given;
	const char		*sign_key;
	const char		*profile;
	const char		*confinement;	/* auto, namespaces, landlock */
	const char		*workspace;
	const char		*cache_dir;
	const char		*ro_roots[OPT_MAX_ROOTS];
	size_t			 nro_roots;
	const char		*rw_roots[OPT_MAX_ROOTS];
	size_t			 nrw_roots;
	const char		*deny_roots[OPT_MAX_ROOTS];
	size_t			 ndeny_roots;
	const char		*env[OPT_MAX_ENV];
	size_t			 nenv;
	const char		*socket_roots[OPT_MAX_ROOTS];
	size_t			 nsocket_roots;
	unsigned		 max_procs;
	unsigned long long	 tmpfs_size;
	bool			 tmpfs_size_given;
	unsigned long long	 max_memory;	/* 0: none */
	bool			 no_sandbox;
	bool			 quiet;		/* no refusal lines, no summary */
	char			**cmd;		/* after --; NULL in service mode */
};

/* Parse argv; prints the error and returns -1 on a usage error. */
int	options_parse(int argc, char **argv, struct options *);

#endif
