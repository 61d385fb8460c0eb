/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Who opened each connection to the proxy (SPEC 5's pid and exe), in
 * harn-egressd: the broker says, before each connect to the proxy's port
 * is made, which socket (by inode) and which process; the proxy, having
 * accepted a connection, asks for the owner of the socket at its other
 * end (sock_diag, diag_tcp_peer).  An answer is taken once.  The table
 * is bounded: the oldest entries (connects that never reached accept)
 * make way for new ones, so an owner is forgotten, never guessed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/internal.h"

void
owner_table_init(struct owner_table *t)
{
	memset(t, 0, sizeof(*t));
}

void
owner_add(struct owner_table *t, unsigned long ino, pid_t pid,
    const char *exe, enum sandbox_via via)
{
	struct owner_entry *e;
	size_t i;

	if (ino == 0)
		return;
	/* An inode is reused only once its socket is gone: the new word wins. */
	for (i = 0; i < t->n; i++)
		if (t->e[(t->head + i) % OWNER_MAX].ino == ino) {
			e = &t->e[(t->head + i) % OWNER_MAX];
			goto fill;
		}
	if (t->n == OWNER_MAX) {
		t->head = (t->head + 1) % OWNER_MAX;	/* the oldest goes */
		t->n--;
	}
	e = &t->e[(t->head + t->n) % OWNER_MAX];
	t->n++;
fill:
	e->ino = ino;
	e->pid = pid;
	e->via = via;
	snprintf(e->exe, sizeof(e->exe), "%s", exe);
}

bool
owner_take(struct owner_table *t, unsigned long ino, pid_t *pid, char *exe,
    size_t len, enum sandbox_via *via)
{
	size_t i, k;

	if (ino == 0)
		return false;
	for (i = 0; i < t->n; i++) {
		k = (t->head + i) % OWNER_MAX;
		if (t->e[k].ino != ino)
			continue;
		*pid = t->e[k].pid;
		*via = t->e[k].via;
		snprintf(exe, len, "%s", t->e[k].exe);
		/* Closed up: the entries after it move down one. */
		for (; i + 1 < t->n; i++)
			t->e[(t->head + i) % OWNER_MAX] =
			    t->e[(t->head + i + 1) % OWNER_MAX];
		t->n--;
		return true;
	}
	return false;
}
