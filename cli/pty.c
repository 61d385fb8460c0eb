/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Run mode's terminal (SPEC 6.1; cli/pty.h).  The command's standard
 * streams that were the caller's terminal are a pseudo-terminal's slave
 * instead (sandbox/tty.c puts it there); harn-egressd relays between the
 * caller's terminal and the master on the proxy's event loop, with a
 * bounded buffer each way, so nothing the command does to its terminal
 * (stty -echo, a line discipline, any ioctl) touches the caller's, whose
 * modes are put back exactly as they were on every way out.
 *
 * While stdin is relayed the caller's terminal is raw, as under
 * script(1): ^C is a byte for the command's terminal, which signals the
 * command.  Job control as sudo does it: the modes are changed only in
 * the terminal's foreground (SIGTTOU blocked, so putting them back never
 * stops us), a SIGTSTP puts them back before stopping, and SIGCONT takes
 * the terminal again if we are in the foreground.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <event2/event.h>

#include "cli/pty.h"
#include "sandbox/sandbox.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER	_IO('T', 0x41)
#endif

/* After the command: this long without a byte relayed, the rest is lost. */
#define DRAIN_IDLE_MS	2000

struct pty {
	struct pty_plan		 plan;
	struct sandbox_tty	 tty;		/* master, slave, streams */
	int			 in, out;	/* plan.in's, plan.out's, or -1 */
	bool			 in_own, out_own; /* reopened: ours to close */
	struct termios		 caller;	/* plan.term's modes, as found */
	bool			 raw;		/* ours are on the caller's */
	bool			 in_eof;	/* stdin gives no more (for now) */
	bool			 out_dead;	/* the terminal takes no more */
	bool			 master_eof;	/* every slave closed */
	bool			 ended;		/* the command ended */
	struct pty_buf		 in_buf;	/* caller -> master */
	struct pty_buf		 out_buf;	/* master -> caller */
	struct event		*ev_in, *ev_mread, *ev_mwrite, *ev_out;
	struct event		*ev_sig[3], *drain;
	void			(*done)(void *);
	void			*arg;
	FILE			*std_err;	/* the real one, while ours is */
	bool			 handlers;	/* the fatal signals' are ours */
};

/*
 * For exit() and a fatal signal: the modes to put back, by the process
 * that changed them (a child forked before is not it).
 */
static struct {
	volatile sig_atomic_t	 armed;
	int			 fd;
	pid_t			 pid;
	struct termios		 modes;
} saved;

static const int fatal_signals[] = { SIGQUIT, SIGABRT, SIGSEGV, SIGBUS,
    SIGFPE, SIGILL, SIGSYS, SIGXCPU, SIGXFSZ };
static struct sigaction fatal_old[sizeof(fatal_signals) /
    sizeof(fatal_signals[0])];

/*
 * tcsetattr on our controlling terminal from its background would stop
 * us with SIGTTOU; blocked, the kernel lets it through.  Async-signal
 * safe.
 */
static int
set_modes(int fd, const struct termios *t)
{
	sigset_t ttou, old;
	int rv;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	(void)sigprocmask(SIG_BLOCK, &ttou, &old);
	while ((rv = tcsetattr(fd, TCSANOW, t)) == -1 && errno == EINTR)
		;
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return rv;
}

static void
restore_saved(void)
{
	if (saved.armed && saved.pid == getpid()) {
		(void)set_modes(saved.fd, &saved.modes);
		saved.armed = 0;
	}
}

static void
fatal(int sig)
{
	int e = errno;

	restore_saved();
	(void)signal(sig, SIG_DFL);
	(void)raise(sig);	/* delivered, by default, once this returns */
	errno = e;
}

/* In the terminal's foreground, or it is not our controlling terminal. */
static bool
foreground(int fd)
{
	pid_t pg = tcgetpgrp(fd);

	return pg == getpgrp() || (pg == -1 && errno == ENOTTY);
}

/* Out of the way of 0-2, where a closed stream would have put it. */
static int
above_2(int fd)
{
	int nfd;

	if (fd == -1 || fd > STDERR_FILENO)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	(void)close(fd);
	return nfd;
}

static int
open_slave(int master)
{
	char name[128];
	int fd;

	fd = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd != -1 || (errno != EINVAL && errno != ENOTTY))
		return fd;
	/* Before Linux 4.13: by name. */
	if (ptsname_r(master, name, sizeof(name)) != 0)
		return -1;
	return open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
}

static struct pty *
open_fail(struct pty *p, const char *what, char *err, size_t len)
{
	snprintf(err, len, "%s: %s", what, strerror(errno));
	pty_free(p);
	return NULL;
}

struct pty *
pty_open(char *err, size_t len)
{
	struct pty_probe probe = { .writable0 = false };
	struct winsize ws;
	struct pty *p;
	int i, fl;

	err[0] = '\0';
	for (i = 0; i < 3; i++)
		probe.tty[i] = isatty(i) == 1;
	fl = fcntl(STDIN_FILENO, F_GETFL);
	probe.writable0 = fl != -1 && (fl & O_ACCMODE) != O_RDONLY;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	p->tty.master = p->tty.slave = p->in = p->out = -1;
	pty_plan(&probe, &p->plan);
	if (!p->plan.any) {
		free(p);
		return NULL;
	}
	memcpy(p->tty.streams, p->plan.streams, sizeof(p->tty.streams));
	if (tcgetattr(p->plan.term, &p->caller) == -1)
		return open_fail(p, "the terminal's modes", err, len);
	if ((p->tty.master = above_2(posix_openpt(O_RDWR | O_NOCTTY |
	    O_CLOEXEC))) == -1 || grantpt(p->tty.master) == -1 ||
	    unlockpt(p->tty.master) == -1)
		return open_fail(p, "/dev/ptmx", err, len);
	if ((p->tty.slave = above_2(open_slave(p->tty.master))) == -1)
		return open_fail(p, "the pseudo-terminal's slave", err, len);
	/* What the command would have found on the caller's terminal. */
	if (tcsetattr(p->tty.slave, TCSANOW, &p->caller) == -1)
		return open_fail(p, "the pseudo-terminal's modes", err, len);
	if (ioctl(p->plan.term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(p->tty.master, TIOCSWINSZ, &ws);
	if ((fl = fcntl(p->tty.master, F_GETFL)) == -1 ||
	    fcntl(p->tty.master, F_SETFL, fl | O_NONBLOCK) == -1)
		return open_fail(p, "the pseudo-terminal", err, len);
	return p;
}

const struct sandbox_tty *
pty_sandbox(const struct pty *p)
{
	return p != NULL ? &p->tty : NULL;
}

/* ------------------------------------------------------------ relay */

static void
want(struct event *ev, bool on)
{
	bool pending;

	if (ev == NULL)
		return;
	pending = event_pending(ev, EV_READ | EV_WRITE, NULL) != 0;
	if (on && !pending)
		(void)event_add(ev, NULL);
	else if (!on && pending)
		(void)event_del(ev);
}

/* Each way reads while its buffer has room and writes while it holds. */
static void
update(struct pty *p)
{
	want(p->ev_in, p->raw && !p->in_eof && !p->ended &&
	    p->in_buf.len < PTY_BUF);
	want(p->ev_mwrite, p->in_buf.len > 0);
	want(p->ev_mread, !p->master_eof && p->out_buf.len < PTY_BUF);
	want(p->ev_out, p->out_buf.len > 0);
	/* All the command's output is out: done, from the loop. */
	if (p->done != NULL && p->master_eof && p->out_buf.len == 0)
		event_active(p->drain, EV_TIMEOUT, 0);
}

/* The drain waits while bytes move. */
static void
progress(struct pty *p)
{
	struct timeval tv = { DRAIN_IDLE_MS / 1000,
	    (DRAIN_IDLE_MS % 1000) * 1000 };

	if (p->done != NULL)
		(void)evtimer_add(p->drain, &tv);
}

/*
 * One read or write on the caller's terminal that never blocks.  On a
 * description of our own O_NONBLOCK is set for good; on the caller's
 * (ours could not be opened) only around the call: it is the caller's
 * shell's too.
 */
static ssize_t
io_once(int fd, bool own, char *rd, const char *wr, size_t n)
{
	int fl = own ? -1 : fcntl(fd, F_GETFL), e;
	bool set = fl != -1 && !(fl & O_NONBLOCK) &&
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0;
	ssize_t rv = rd != NULL ? read(fd, rd, n) : write(fd, wr, n);

	e = errno;
	if (set)
		(void)fcntl(fd, F_SETFL, fl);
	errno = e;
	return rv;
}

static void
in_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pty *p = arg;
	size_t room;
	char *at = pty_buf_space(&p->in_buf, &room);
	ssize_t n = io_once(fd, p->in_own, at, NULL, room);

	if (n > 0)
		pty_buf_put(&p->in_buf, (size_t)n);
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		p->in_eof = true;	/* hung up, or not ours to read now */
	update(p);
}

static void
mwrite_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pty *p = arg;
	size_t len;
	const char *at = pty_buf_data(&p->in_buf, &len);
	ssize_t n = write(fd, at, len);

	if (n > 0)
		pty_buf_take(&p->in_buf, (size_t)n);
	else if (n == -1 && errno != EINTR && errno != EAGAIN)
		p->in_buf.len = 0;	/* no slave left to read it */
	update(p);
}

static void
mread_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pty *p = arg;
	size_t room;
	char *at = pty_buf_space(&p->out_buf, &room);
	ssize_t n = read(fd, at, room);

	if (n > 0) {
		/* Nowhere to show it: dropped, so the command never blocks. */
		if (p->out != -1 && !p->out_dead)
			pty_buf_put(&p->out_buf, (size_t)n);
		progress(p);
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		p->master_eof = true;	/* EIO: every slave is closed */
	update(p);
}

static void
out_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pty *p = arg;
	size_t len;
	const char *at = pty_buf_data(&p->out_buf, &len);
	ssize_t n = io_once(fd, p->out_own, NULL, at, len);

	if (n > 0) {
		pty_buf_take(&p->out_buf, (size_t)n);
		progress(p);
	} else if (n == -1 && errno != EINTR && errno != EAGAIN) {
		p->out_dead = true;	/* hung up: the rest is dropped */
		p->out_buf.len = 0;
	}
	update(p);
}

static void
drain_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pty *p = arg;
	void (*done)(void *) = p->done;

	if (done == NULL)
		return;
	p->done = NULL;
	want(p->ev_mread, false);
	want(p->ev_out, false);
	done(p->arg);
}

/* ------------------------------------------------------------ terminal */

/* The caller's modes back, if ours are on. */
static void
leave_terminal(struct pty *p)
{
	if (!p->raw)
		return;
	saved.armed = 0;
	(void)set_modes(p->plan.term, &p->caller);
	p->raw = false;
}

/* Raw, when stdin is the terminal and we are in its foreground. */
static void
take_terminal(struct pty *p)
{
	struct termios raw;

	if (p->plan.in == -1 || p->ended)
		return;
	if (!foreground(p->plan.in)) {
		leave_terminal(p);	/* whoever is in front has it */
		return;
	}
	if (p->raw)
		return;
	pty_raw_modes(&p->caller, &raw);
	saved.fd = p->plan.term;
	saved.modes = p->caller;
	saved.pid = getpid();
	saved.armed = 1;
	if (set_modes(p->plan.term, &raw) == 0)
		p->raw = true;
	else
		saved.armed = 0;
}

static void
winch(struct pty *p)
{
	struct winsize ws;

	if (ioctl(p->plan.term, TIOCGWINSZ, &ws) == 0)
		(void)ioctl(p->tty.master, TIOCSWINSZ, &ws);
}

static void
signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct pty *p = arg;

	switch (sig) {
	case SIGTSTP:
		/* Stopped from outside: the terminal goes back first. */
		leave_terminal(p);
		(void)kill(getpid(), SIGSTOP);
		break;
	case SIGCONT:
		p->in_eof = false;
		take_terminal(p);
		winch(p);
		break;
	default:
		winch(p);
		break;
	}
	update(p);
}

/*
 * Our own stderr lines (refusals, the log's troubles) while the terminal
 * is raw, where "\n" alone would not return the cursor.  One write each,
 * as cli_error's: a line of ours is never cut by the relay's.
 */
static ssize_t
err_write(void *arg, const char *buf, size_t n)
{
	struct pty *p = arg;
	char out[8192];
	const char *from;
	size_t done = 0, used, o;
	ssize_t w;

	while (done < n) {
		if (p->raw) {
			o = pty_crlf(buf + done, n - done, &used, out,
			    sizeof(out));
			from = out;
		} else {
			o = used = n - done;
			from = buf + done;
		}
		while (o > 0) {
			if ((w = write(STDERR_FILENO, from, o)) == -1) {
				if (errno == EINTR)
					continue;
				return done > 0 ? (ssize_t)done : -1;
			}
			from += w;
			o -= (size_t)w;
		}
		done += used;
	}
	return (ssize_t)n;
}

static void
translate_stderr(struct pty *p)
{
	cookie_io_functions_t io = { .write = err_write };
	FILE *f;

	if (p->plan.in == -1 || isatty(STDERR_FILENO) != 1 ||
	    (f = fopencookie(p, "w", io)) == NULL)
		return;
	(void)setvbuf(f, NULL, _IONBF, 0);
	fflush(stderr);
	p->std_err = stderr;
	stderr = f;
}

/*
 * The caller's terminal read and written through descriptions of our
 * own, non-blocking: O_NONBLOCK on the caller's would be its shell's too.
 * One we may not open (su to another user keeps the first one's
 * terminal) is used as it is (io_once).  Opened once the children are
 * forked: none of them has it.
 */
static int
reopen(int fd, int mode, bool *own)
{
	char path[64];
	int nfd;

	*own = false;
	if (fd == -1)
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((nfd = open(path, mode | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) !=
	    -1 && isatty(nfd) == 1) {
		*own = true;
		return nfd;
	}
	if (nfd != -1)
		(void)close(nfd);
	return fd;
}

static void
handle_fatal(struct pty *p)
{
	struct sigaction sa = { .sa_handler = fatal };
	static bool registered;
	size_t i;

	if (!registered && atexit(restore_saved) == 0)
		registered = true;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		(void)sigaction(fatal_signals[i], &sa, &fatal_old[i]);
	p->handlers = true;
}

int
pty_start(struct pty *p, struct event_base *base, char *err, size_t len)
{
	static const int sigs[] = { SIGWINCH, SIGCONT, SIGTSTP };
	size_t i;

	/* The children have it; held here, the master would never end. */
	(void)close(p->tty.slave);
	p->tty.slave = -1;
	p->in = reopen(p->plan.in, O_RDONLY, &p->in_own);
	p->out = reopen(p->plan.out, O_WRONLY, &p->out_own);
	if ((p->in != -1 && (p->ev_in = event_new(base, p->in,
	    EV_READ | EV_PERSIST, in_cb, p)) == NULL) ||
	    (p->ev_mread = event_new(base, p->tty.master, EV_READ | EV_PERSIST,
	    mread_cb, p)) == NULL ||
	    (p->ev_mwrite = event_new(base, p->tty.master, EV_WRITE |
	    EV_PERSIST, mwrite_cb, p)) == NULL ||
	    (p->out != -1 && (p->ev_out = event_new(base, p->out, EV_WRITE |
	    EV_PERSIST, out_cb, p)) == NULL) ||
	    (p->drain = evtimer_new(base, drain_cb, p)) == NULL) {
		snprintf(err, len, "the terminal's relay: out of memory");
		return -1;
	}
	for (i = 0; i < 3; i++)
		if ((p->ev_sig[i] = evsignal_new(base, sigs[i], signal_cb,
		    p)) == NULL || evsignal_add(p->ev_sig[i], NULL) == -1) {
			snprintf(err, len, "the terminal's signals: %s",
			    strerror(errno));
			return -1;
		}
	handle_fatal(p);
	take_terminal(p);
	translate_stderr(p);
	update(p);
	return 0;
}

void
pty_finish(struct pty *p, void (*done)(void *), void *arg)
{
	p->ended = true;
	p->done = done;
	p->arg = arg;
	progress(p);
	update(p);
}

void
pty_free(struct pty *p)
{
	struct event *evs[8];
	FILE *f;
	size_t i;

	if (p == NULL)
		return;
	evs[0] = p->ev_in;
	evs[1] = p->ev_mread;
	evs[2] = p->ev_mwrite;
	evs[3] = p->ev_out;
	evs[4] = p->drain;
	memcpy(evs + 5, p->ev_sig, sizeof(p->ev_sig));
	leave_terminal(p);
	if (p->std_err != NULL) {
		f = stderr;
		stderr = p->std_err;
		(void)fclose(f);
	}
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++)
		if (evs[i] != NULL)
			event_free(evs[i]);
	for (i = 0; p->handlers && i < sizeof(fatal_signals) /
	    sizeof(fatal_signals[0]); i++)
		(void)sigaction(fatal_signals[i], &fatal_old[i], NULL);
	if (p->in_own)
		(void)close(p->in);
	if (p->out_own)
		(void)close(p->out);
	if (p->tty.master != -1)
		(void)close(p->tty.master);
	if (p->tty.slave != -1)
		(void)close(p->tty.slave);
	free(p);
}
