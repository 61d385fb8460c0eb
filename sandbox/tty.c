/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The command's terminal (SPEC 6.1).  harn-egressd made a pseudo-terminal
 * of its own and relays it (cli/pty.c); here the children put its slave
 * where the caller's terminal was, so that nothing the command does to
 * its terminal (modes, line discipline, ioctls) reaches the caller's.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sandbox/internal.h"

/*
 * Done first thing in setup, so that neither setup nor init nor the
 * command holds a descriptor of the caller's terminal on 0-2, nor the
 * master (which would let the command type into its own input, or hold
 * the relay open).  slave and master are above 2 (cli/pty.c sees to it):
 * closing them never closes a stream just placed.
 */
int
tty_child_stdio(const struct sandbox_tty *t)
{
	int i;

	if (t == NULL)
		return 0;
	for (i = 0; i < 3; i++)
		if (t->streams[i] && dup2(t->slave, i) == -1)
			return -1;
	(void)close(t->slave);
	(void)close(t->master);
	return 0;
}

/*
 * After setsid: job control on the pty (^C, ^Z reach the command's
 * foreground group) and /dev/tty, which opens the controlling terminal,
 * work as on any terminal.  The slave is no other session's: harn-egressd
 * opened it with O_NOCTTY.
 */
int
tty_take_ctty(const struct sandbox_tty *t)
{
	int i;

	if (t == NULL)
		return 0;
	for (i = 0; i < 3; i++)
		if (t->streams[i])
			return ioctl(i, TIOCSCTTY, 0);
	errno = EINVAL;
	return -1;
}
