/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's terminal (SPEC 6.1): when one of harn-egressd's standard
 * streams is a terminal, the command runs on a pseudo-terminal of its own
 * that harn-egressd relays on its event loop, as script(1) and sudo's
 * use_pty do, so nothing the command does to its terminal (modes, line
 * discipline, ioctls) reaches the caller's.
 *
 * pty.c does the I/O; ptyplan.c holds the decisions and the buffers,
 * pure, for tests/cli/test_pty.c.
 */
#ifndef CLI_PTY_H
#define CLI_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

struct event_base;
struct sandbox_tty;

/* ------------------------------------------------------------ pure */

/* What the caller's standard streams are. */
struct pty_probe {
	bool	 tty[3];	/* isatty(0), (1), (2) */
	bool	 writable0;	/* fd 0 is open for writing too */
};

struct pty_plan {
	bool	 any;		/* a pseudo-terminal is made */
	bool	 streams[3];	/* the command gets its slave there */
	int	 term;		/* whose modes and size the slave starts with */
	int	 in;		/* read and relayed, in raw mode: 0, or -1 */
	int	 out;		/* the command's output goes there, or -1 */
};

void	 pty_plan(const struct pty_probe *, struct pty_plan *);

/*
 * The caller's terminal while it is relayed: every byte passes as it
 * is (^C, ^Z, ^\ reach the command's terminal, which acts on them) and
 * no echo or output processing of its own: the command's terminal does
 * both.
 */
void	 pty_raw_modes(const struct termios *caller, struct termios *raw);

/*
 * Our own stderr lines while the terminal is raw: "\n" as "\r\n".  Up to
 * cap bytes of out for in[0..n); returns the bytes written, *used the
 * bytes of in taken (a "\n" is taken only with room for both).
 */
size_t	 pty_crlf(const char *in, size_t n, size_t *used, char *out,
	    size_t cap);

/* A bounded buffer, one each way. */
#define PTY_BUF		16384

struct pty_buf {
	char	 data[PTY_BUF];
	size_t	 head, len;
};

/* Where to read into (*room contiguous bytes); then pty_buf_put(n). */
char	*pty_buf_space(struct pty_buf *, size_t *room);
void	 pty_buf_put(struct pty_buf *, size_t n);
/* What to write out (*n contiguous bytes); then pty_buf_take(n). */
const char *pty_buf_data(const struct pty_buf *, size_t *n);
void	 pty_buf_take(struct pty_buf *, size_t n);

/* ------------------------------------------------------------ I/O */

struct pty;

/*
 * Before the command is spawned: a pseudo-terminal when one of fds 0-2
 * is a terminal, with the caller's modes and window size.  NULL with
 * err[0] == '\0' when none is (nothing to relay), NULL with err on
 * failure.
 */
struct pty *pty_open(char *err, size_t len);
/* What the sandbox gives the command (sandbox_request's tty). */
const struct sandbox_tty *pty_sandbox(const struct pty *);
/*
 * The command runs: our slave closed (its end of file is then the
 * command's), the caller's terminal raw (when stdin is it and we are in
 * its foreground), the relay on base.  -1 with err.
 */
int	 pty_start(struct pty *, struct event_base *, char *err, size_t len);
/*
 * The command ended: no more input is read (the caller's type-ahead is
 * the caller's shell's); its output left in the pseudo-terminal is
 * relayed, then done(arg) once.
 */
void	 pty_finish(struct pty *, void (*done)(void *), void *arg);
/* The caller's terminal exactly as it was; everything closed.  NULL: none. */
void	 pty_free(struct pty *);

#endif
