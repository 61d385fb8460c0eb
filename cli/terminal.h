/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's terminal (SPEC 6.1): the first refusal of each target said
 * on stderr with what would admit it, and a summary at exit; --quiet
 * silences both.
 */
#ifndef CLI_TERMINAL_H
#define CLI_TERMINAL_H

#include <stdbool.h>

struct proxy;
struct dlog_entry;
struct terminal;

/* log_path: where the decision log is (NULL or "-": none kept). */
struct terminal	*terminal_new(const struct proxy *, const char *log_path,
		    bool quiet);
void		 terminal_free(struct terminal *);
/* The decision log's observer (dlog_observe): each decision recorded. */
void		 terminal_decision(void *, const struct dlog_entry *);
/* count refusals around the proxy toward endpoint (said by direct.c). */
void		 terminal_direct(struct terminal *, const char *endpoint,
		    unsigned count);
bool		 terminal_quiet(const struct terminal *);
/* One line at exit when anything was refused. */
void		 terminal_summary(const struct terminal *);

#endif
