/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's terminal, the decisions and the buffers (cli/pty.h): no I/O,
 * so tests/cli/test_pty.c can hold them.
 */
#include <string.h>

#include "cli/pty.h"

void
pty_plan(const struct pty_probe *p, struct pty_plan *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	out->term = out->in = out->out = -1;
	for (i = 2; i >= 0; i--) {
		out->streams[i] = p->tty[i];
		if (p->tty[i]) {
			out->any = true;
			out->term = i;
		}
	}
	/* Typing reaches the command only through the pty. */
	if (p->tty[0])
		out->in = 0;
	/*
	 * Output and echo go to the terminal the caller sees them on:
	 * stdout's, else stderr's, else the one it types on (when it may be
	 * written).  Otherwise there is only the echo of what is typed: read
	 * and dropped, so the command never blocks on it.
	 */
	if (p->tty[1])
		out->out = 1;
	else if (p->tty[2])
		out->out = 2;
	else if (p->tty[0] && p->writable0)
		out->out = 0;
}

/* cfmakeraw()'s modes: a byte typed is a byte read, a byte written shows. */
void
pty_raw_modes(const struct termios *caller, struct termios *raw)
{
	*raw = *caller;
	raw->c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR |
	    IGNCR | ICRNL | IXON);
	raw->c_oflag &= ~(tcflag_t)OPOST;
	raw->c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
	raw->c_cflag &= ~(tcflag_t)(CSIZE | PARENB);
	raw->c_cflag |= CS8;
	raw->c_cc[VMIN] = 1;
	raw->c_cc[VTIME] = 0;
}

size_t
pty_crlf(const char *in, size_t n, size_t *used, char *out, size_t cap)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		if (in[i] == '\n') {
			if (cap - o < 2)
				break;
			out[o++] = '\r';
		} else if (cap - o < 1)
			break;
		out[o++] = in[i];
	}
	*used = i;
	return o;
}

char *
pty_buf_space(struct pty_buf *b, size_t *room)
{
	size_t tail;

	if (b->len == 0)
		b->head = 0;	/* one contiguous run, as large as it gets */
	tail = (b->head + b->len) % PTY_BUF;
	if (b->len == PTY_BUF)
		*room = 0;
	else if (tail >= b->head)
		*room = PTY_BUF - tail;
	else
		*room = b->head - tail;
	return b->data + tail;
}

void
pty_buf_put(struct pty_buf *b, size_t n)
{
	b->len += n;
}

const char *
pty_buf_data(const struct pty_buf *b, size_t *n)
{
	*n = b->len < PTY_BUF - b->head ? b->len : PTY_BUF - b->head;
	return b->data + b->head;
}

void
pty_buf_take(struct pty_buf *b, size_t n)
{
	b->head = (b->head + n) % PTY_BUF;
	b->len -= n;
}
