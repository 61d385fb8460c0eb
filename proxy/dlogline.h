/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decision log's lines (SPEC 5), as text: built by hand, every value a
 * fixed word, a number, a normalized host or an address, and a program's
 * path escaped.  No I/O here (dlog.c writes them).  Internal to proxy/.
 */
#ifndef PROXY_DLOGLINE_H
#define PROXY_DLOGLINE_H

#include <stddef.h>
#include <stdint.h>

#include "proxy/dlog.h"

#define DLOG_LINE_MAX	2048	/* an exe of 255 bytes, each escaped in 6 */

extern const char *const dlog_protocol_names[];

/* Defence in depth: a host that is not normalized text is "". */
const char	*dlog_safe_host(const char *);
/* The line of one decision; its length, or 0 when it does not fit. */
size_t		 dlog_format_line(const char *run_id, char *line, size_t len,
		    const struct dlog_entry *);
/* A not_through_proxy line (dlog_direct); its length, or 0. */
size_t		 dlog_format_direct(const char *run_id, char *line,
		    size_t len, const char *addr, uint16_t port, pid_t pid,
		    const char *exe, uint64_t count, bool inbound);
/* An allowed connection's close line (dlog_close); its length, or 0. */
size_t		 dlog_format_close(const char *run_id, char *line, size_t len,
		    const struct dlog_close *);
/*
 * The one line for count refusals answered without their own line (the
 * log could not take them within log_wait): by_reason[r] of each reason.
 */
size_t		 dlog_format_unlogged(const char *run_id, char *line,
		    size_t len, uint64_t count, const uint64_t *by_reason);

#endif
