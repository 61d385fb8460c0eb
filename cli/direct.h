/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's refusals of what went around the proxy (SPEC 5's
 * not_through_proxy): folded and written to the decision log, and said
 * once an endpoint on stderr with what to do.
 */
#ifndef CLI_DIRECT_H
#define CLI_DIRECT_H

struct event_base;
struct dlog;
struct sandbox_direct;
struct directs;
struct terminal;

/*
 * proxy: the proxy's address as the command reaches it ("127.0.0.1:P");
 * term (may be NULL) counts each refusal, and --quiet there silences
 * the stderr lines.
 */
struct directs	*directs_new(struct event_base *, struct dlog *,
		    const char *proxy, struct terminal *term);
void		 directs_add(struct directs *, const struct sandbox_direct *);
/* The folded lines still open, written now; then freed. */
void		 directs_free(struct directs *);

#endif
