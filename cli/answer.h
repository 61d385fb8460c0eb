/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The run's answerer (SPEC 6.6): port 53 inside the namespace, and in
 * landlock the other ends of the command's UDP stand-ins, handed from
 * the sandbox to the proxy, which answers them.
 */
#ifndef CLI_ANSWER_H
#define CLI_ANSWER_H

struct proxy;
struct sandbox_child;

/* Port 53 inside, if the sandbox made it; -1 said on stderr. */
int	 answer_inside(struct sandbox_child *, struct proxy *);
/* Every stand-in from now on (and those come already) to the proxy. */
void	 answer_standins(struct sandbox_child *, struct proxy *);
/* The proxy's decisions on connects held for the broker, to it. */
void	 answer_held(struct sandbox_child *, struct proxy *);

#endif
