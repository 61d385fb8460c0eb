/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/1.1 proxying: http.c reads a request, has it decided and refuses
 * it; forward.c (forward.h) relays it.  Internal to proxy/.
 */
#ifndef PROXY_HTTP_H
#define PROXY_HTTP_H

#include "proxy/forward.h"
#include "proxy/kept.h"

/*
 * A whole HTTP refusal response, as snprintf returns its length; to a
 * HEAD (head), without the body.
 */
int	 http_refusal(char *, size_t, int status, enum egress_reason,
	    const char *body, bool head);
/* Do these bytes of a request begin with HEAD (leading CRLFs skipped)? */
bool	 http_begins_head(const char *, size_t);

/* http.c */
void	http_refuse(struct conn *, enum egress_reason);
void	http_refuse_status(struct conn *, int status, enum egress_reason);
/* The request and its exchange are over (the kept origin stays). */
void	http_req_free(struct conn *);

#endif
