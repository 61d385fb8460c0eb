/* SPDX-License-Identifier: Apache-2.0 */
/* The command line: subcommands and what they share. */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdio.h>

#include "conf/conf.h"

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

/* Print "harn-egressd: MESSAGE" on stderr. */
void	 cli_error(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

/*
 * The policy from --policy FILE (path non-NULL), else from HARN_EGRESS_*,
 * else the default empty policy.  Prints the error and returns NULL on a
 * bad policy or when both a file and a variable are given.
 */
struct conf *cli_load_policy(const char *path);

/* One stderr line when the policy is in report mode (it enforces less). */
void	 cli_say_report_mode(const struct conf *);

/*
 * A regular file whole (not NUL-terminated), at most max bytes, or NULL
 * with errno set (EFBIG: larger).
 */
char	*cli_read_file(const char *path, size_t max, size_t *len);

/* The name at most two edits from word (the nearest), or NULL. */
const char *cli_nearest(const char *word, const char *const *names,
	    size_t n);

/* --help: every command and option, one line each. */
void	 cli_help(FILE *);

/* 127.0.0.1, port 0: the default listener. */
extern const struct conf_sockaddr cli_loopback;

int	 cmd_check(int argc, char **argv);
int	 cmd_explain(int argc, char **argv);
int	 cmd_doctor(int argc, char **argv);
int	 cmd_keygen(int argc, char **argv);
int	 cmd_verify(int argc, char **argv);
int	 cmd_audit(int argc, char **argv);

#endif
