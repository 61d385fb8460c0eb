#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ptyrun: run a command on a terminal of ours, as a user's shell would,
and say what became of that terminal (tests/cli/pty.sh).

    ptyrun.py [--timeout S] [--out FILE] [--stdout-pipe FILE]
              [--pid-file FILE] [--step STEP]... -- CMD ARGS...

The harness makes a pseudo-terminal (24 rows, 80 columns), runs CMD as
the leader of a new session whose controlling terminal (and stdin,
stdout, stderr) is its slave, reads everything CMD writes there (into
--out), and keeps the slave open to read its modes after CMD has exited.  Steps run in order while CMD
runs; each waits, within --timeout for the whole run, for what it needs:

    wait:REGEX      CMD's output so far matches REGEX
    send:TEXT       TEXT typed (Python escapes: \\r, \\x03)
    probe:NAME      prints "probe NAME " and the terminal's state
    kill:SIG        signal SIG (TERM, TSTP, CONT, ...) to the target: CMD,
                    or the pid --pid-file names once it is there
    state:X         the target's /proc state is X (T stopped) or not-T
    winsize:RxC     the terminal's size set to R rows, C columns (the
                    kernel signals SIGWINCH)
    fds:FILE        every descendant of the target, its character-device
                    descriptors to FILE: "PID COMM FD MAJ:MIN", or
                    "PID COMM unreadable"

--stdout-pipe: CMD's stdout is a pipe instead (read into FILE); prints
"pipe_ino=N".  At the end: "tty_rdev=MAJ:MIN" (the slave, the caller's
terminal), "rc=N" (128+N for signal N), "final " and the state; the state
is "echo=on|off icanon=on|off same=yes|no ldisc=N", same being whether
every mode is what it was before CMD ran (echo=? icanon=?: the modes
cannot be read, under a line discipline without them).  Then
"nonblock=yes|no": O_NONBLOCK on the terminal's description CMD had.  Exit 0, or 2 (a step or CMD
ran out of time: CMD is killed).
"""
import codecs
import fcntl
import os
import re
import select
import signal
import stat
import struct
import sys
import termios
import time

TIOCGETD = 0x5424


def ldisc(fd):
    return struct.unpack("i", fcntl.ioctl(fd, TIOCGETD,
                                          struct.pack("i", 0)))[0]


def state(fd, orig):
    try:
        a = termios.tcgetattr(fd)
    except termios.error:
        # A line discipline without the termios ioctls (N_NULL).
        return "echo=? icanon=? same=no ldisc=%d" % ldisc(fd)
    onoff = lambda b: "on" if a[3] & b else "off"
    return "echo=%s icanon=%s same=%s ldisc=%d" % (
        onoff(termios.ECHO), onoff(termios.ICANON),
        "yes" if a == orig else "no", ldisc(fd))


def rdev(st):
    return "%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))


def proc_state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def descendants(top):
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [top]
    while todo:
        p = todo.pop()
        for k in kids.get(p, []):
            out.append(k)
            todo.append(k)
    return out


def dump_fds(top, path):
    lines = []
    for p in descendants(top):
        try:
            with open("/proc/%d/comm" % p) as f:
                comm = f.read().strip()
            fds = os.listdir("/proc/%d/fd" % p)
        except PermissionError:
            lines.append("%d %s unreadable" % (p, comm))
            continue
        except OSError:
            continue
        for fd in fds:
            try:
                st = os.stat("/proc/%d/fd/%s" % (p, fd))
            except OSError:
                continue
            if stat.S_ISCHR(st.st_mode):
                lines.append("%d %s %s %s" % (p, comm, fd, rdev(st)))
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))


def main():
    args = sys.argv[1:]
    timeout, out_path, pipe_path, pid_file, steps = 20.0, None, None, None, []
    while args and args[0] != "--":
        opt, val = args[0], args[1]
        args = args[2:]
        if opt == "--timeout":
            timeout = float(val)
        elif opt == "--out":
            out_path = val
        elif opt == "--stdout-pipe":
            pipe_path = val
        elif opt == "--pid-file":
            pid_file = val
        elif opt == "--step":
            steps.append(val)
        else:
            sys.exit("ptyrun: unknown option " + opt)
    cmd = args[1:]
    if not cmd:
        sys.exit("ptyrun: no command")

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    orig = termios.tcgetattr(slave)
    print("tty_rdev=" + rdev(os.fstat(slave)))
    pr = pw = -1
    if pipe_path:
        pr, pw = os.pipe()
        print("pipe_ino=%d" % os.fstat(pw).st_ino)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.dup2(slave, 0)
        os.dup2(pw if pw != -1 else slave, 1)
        os.dup2(slave, 2)
        os.closerange(3, 1024)
        os.execvp(cmd[0], cmd)
    if pw != -1:
        os.close(pw)
    os.set_blocking(master, False)
    output, piped = b"", b""
    deadline = time.monotonic() + timeout
    rc = None
    target = pid

    def pump(wait):
        nonlocal output, piped, pr
        fds = [master] + ([pr] if pr != -1 else [])
        r, _, _ = select.select(fds, [], [], wait)
        for fd in r:
            try:
                data = os.read(fd, 65536)
            except (BlockingIOError, OSError):
                continue
            if fd == master:
                output += data
            elif data:
                piped += data
            else:
                os.close(pr)
                pr = -1

    def reap():
        nonlocal rc
        if rc is None:
            p, st = os.waitpid(pid, os.WNOHANG)
            if p == pid:
                rc = (os.WEXITSTATUS(st) if os.WIFEXITED(st)
                      else 128 + os.WTERMSIG(st))

    def timed_out(why):
        print("timeout " + why)
        os.kill(pid, signal.SIGKILL)
        if out_path:
            with open(out_path, "wb") as f:
                f.write(output)
        sys.exit(2)

    for step in steps:
        kind, _, arg = step.partition(":")
        while True:
            if time.monotonic() > deadline:
                timed_out("at step " + step)
            if kind == "wait" and re.search(arg.encode(), output):
                break
            if pid_file and target == pid:
                try:
                    target = int(open(pid_file).read().strip())
                except (OSError, ValueError):
                    pass
            if kind in ("kill", "state", "fds") and target == pid and \
                    pid_file:
                pass    # the pid file is not written yet
            elif kind == "state":
                s = proc_state(target)
                if s == arg or (arg == "not-T" and s not in ("T", "t")):
                    break
            elif kind == "kill":
                os.kill(target, getattr(signal, "SIG" + arg))
                break
            elif kind == "fds":
                dump_fds(target, arg)
                break
            if kind == "winsize":
                r, c = arg.split("x")
                fcntl.ioctl(master, termios.TIOCSWINSZ,
                            struct.pack("HHHH", int(r), int(c), 0, 0))
                break
            if kind == "send":
                os.write(master, codecs.decode(arg, "unicode_escape")
                         .encode("latin-1"))
                break
            if kind == "probe":
                print("probe %s %s" % (arg, state(slave, orig)))
                break
            pump(0.05)
            reap()
    while rc is None:
        if time.monotonic() > deadline:
            timed_out(": the command did not end")
        pump(0.05)
        reap()
    # Ended: what it wrote is in the terminal (or the pipe) already.
    while True:
        before = len(output) + len(piped)
        pump(0)
        if len(output) + len(piped) == before:
            break
    if pr != -1:
        while True:
            data = os.read(pr, 65536)
            if not data:
                break
            piped += data
    if out_path:
        with open(out_path, "wb") as f:
            f.write(output)
    if pipe_path:
        with open(pipe_path, "wb") as f:
            f.write(piped)
    print("rc=%d" % rc)
    print("final " + state(slave, orig))
    # The description CMD was given (and shares with us): left blocking?
    print("nonblock=%s" % ("yes" if fcntl.fcntl(slave, fcntl.F_GETFL) &
                           os.O_NONBLOCK else "no"))


main()
