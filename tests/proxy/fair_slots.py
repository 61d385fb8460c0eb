# SPDX-License-Identifier: Apache-2.0
"""The clients of tests/proxy/fair_slots.sh (issue 33 item 1), loopback
only, each bounded in time and count.

  legit     one CONNECT every --every s, --n of them: prints a line per
            request ("N STATUS MS") and "summary answered=K/N p50=.. p99=..
            max=.." (ms, connect to the reply's head)
  silent    holds --n connections that never send a byte; one the proxy
            closes is opened again (at most --rate a second) until
            --seconds; writes --ready once --n are open
  bulky     --n clients each send --bytes of a head that never ends and
            never read; writes --ready once all are sent (as far as the
            socket takes them) and holds them until --seconds
  tunnels   --n CONNECT tunnels through the proxy to --origin (a tunnels
            origin): each way --bytes every --every s; writes --ready with
            "ready N" once N tunnels are up, runs until --seconds
  origin    the tunnels' origin: each connection sends --bytes every
            --every s and reads (and drops) all it gets
  rss       prints VmHWM and VmRSS of --pid, in KiB
"""
import argparse
import os
import selectors
import socket
import sys
import time


def connect_head(port, target):
    return ("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
            (target, target)).encode()


def read_head(s, deadline):
    got = b""
    while b"\r\n\r\n" not in got:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        s.settimeout(left)
        b = s.recv(4096)
        if not b:
            return got or None
        got += b
    return got


def cmd_legit(a):
    times, lines, answered = [], [], 0
    nxt = time.monotonic()
    for i in range(a.n):
        now = time.monotonic()
        if nxt > now:
            time.sleep(nxt - now)
        nxt += a.every
        t0 = time.monotonic()
        status = "none"
        try:
            s = socket.create_connection(("127.0.0.1", a.proxy),
                                         timeout=a.timeout)
            s.sendall(connect_head(a.proxy, a.target))
            h = read_head(s, t0 + a.timeout)
            if h:
                status = h.split(b"\r\n")[0].decode("latin-1")
                status = status.split(" ")[1] if " " in status else status
            s.close()
        except OSError as e:
            status = "oserror:%s" % e.__class__.__name__
        ms = (time.monotonic() - t0) * 1000
        if status == "200":
            answered += 1
            times.append(ms)
        print("%d %s %.1f" % (i, status, ms))
    times.sort()

    def pct(p):
        if not times:
            return -1
        return times[min(len(times) - 1, int(len(times) * p / 100))]
    print("summary answered=%d/%d p50=%.1f p99=%.1f max=%.1f" %
          (answered, a.n, pct(50), pct(99), times[-1] if times else -1))
    sys.stdout.flush()
    return 0


def raise_nofile():
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def cmd_silent(a):
    raise_nofile()
    sel = selectors.DefaultSelector()
    end = time.monotonic() + a.seconds

    def opn():
        s = socket.socket()
        s.connect(("127.0.0.1", a.proxy))
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
    for _ in range(a.n):
        opn()
    with open(a.ready, "w") as f:
        f.write("ready %d\n" % a.n)
    closed, reopened, budget, tick = 0, 0, 0, time.monotonic()
    want = 0
    while time.monotonic() < end and not os.path.exists(a.stop):
        for key, _ in sel.select(0.05):
            s = key.fileobj
            try:
                if s.recv(4096):
                    continue
            except OSError:
                pass
            sel.unregister(s)
            s.close()
            closed += 1
            want += 1
        now = time.monotonic()
        budget = min(a.rate, budget + (now - tick) * a.rate)
        tick = now
        while want > 0 and budget >= 1:
            try:
                opn()
            except OSError:
                break
            want -= 1
            budget -= 1
            reopened += 1
    print("silent: closed by the proxy %d, opened again %d" %
          (closed, reopened))
    return 0


def cmd_bulky(a):
    raise_nofile()
    head = b"GET http://good.test/ HTTP/1.1\r\nX-Pad: "
    pad = head + b"a" * (a.bytes - len(head))
    held, sent = [], 0
    for _ in range(a.n):
        try:
            s = socket.create_connection(("127.0.0.1", a.proxy), timeout=5)
            s.setblocking(False)
            try:
                sent += s.send(pad)
            except BlockingIOError:
                pass
            held.append(s)
        except OSError:
            break
    with open(a.ready, "w") as f:
        f.write("ready %d sent %d\n" % (len(held), sent))
    end = time.monotonic() + a.seconds
    while time.monotonic() < end and not os.path.exists(a.stop):
        time.sleep(0.05)
    for s in held:
        s.close()
    return 0


class Pump:
    """One socket that sends --bytes every --every s and drops reads."""

    def __init__(self, sel, s, chunk):
        self.s, self.sel, self.chunk, self.out = s, sel, chunk, b""
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ, self)

    def tick(self):
        if not self.out:
            self.out = self.chunk
            self.flush()

    def flush(self):
        try:
            n = self.s.send(self.out)
            self.out = self.out[n:]
        except BlockingIOError:
            pass
        except OSError:
            self.out = b""
        ev = selectors.EVENT_READ | (selectors.EVENT_WRITE if self.out else 0)
        self.sel.modify(self.s, ev, self)

    def event(self, mask):
        if mask & selectors.EVENT_WRITE:
            self.flush()
        if mask & selectors.EVENT_READ:
            try:
                if not self.s.recv(65536):
                    self.close()
            except BlockingIOError:
                pass
            except OSError:
                self.close()

    def close(self):
        try:
            self.sel.unregister(self.s)
        except (KeyError, ValueError):
            pass
        self.s.close()
        self.dead = True


def pump_loop(sel, pumps, a, end, lsock=None):
    nxt = time.monotonic()
    while time.monotonic() < end:
        if os.path.exists(a.stop):
            break
        now = time.monotonic()
        if now >= nxt:
            for p in pumps:
                if not getattr(p, "dead", False):
                    p.tick()
            nxt = now + a.every
        for key, mask in sel.select(max(0.0, min(0.05, nxt - now))):
            if key.data is None:
                c, _ = lsock.accept()
                pumps.append(Pump(sel, c, b"o" * a.bytes))
            else:
                key.data.event(mask)


def cmd_origin(a):
    raise_nofile()
    sel = selectors.DefaultSelector()
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(1024)
    ls.setblocking(False)
    sel.register(ls, selectors.EVENT_READ, None)
    with open(a.port_file + ".tmp", "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(a.port_file + ".tmp", a.port_file)
    pump_loop(sel, [], a, time.monotonic() + a.seconds, ls)
    return 0


def cmd_tunnels(a):
    raise_nofile()
    sel = selectors.DefaultSelector()
    pumps = []
    for _ in range(a.n):
        try:
            s = socket.create_connection(("127.0.0.1", a.proxy), timeout=5)
            s.sendall(connect_head(a.proxy, a.target))
            h = read_head(s, time.monotonic() + 5)
        except OSError:
            break
        if not h or b" 200 " not in h.split(b"\r\n")[0] + b" ":
            break
        pumps.append(Pump(sel, s, b"c" * a.bytes))
    with open(a.ready, "w") as f:
        f.write("ready %d\n" % len(pumps))
    pump_loop(sel, pumps, a, time.monotonic() + a.seconds)
    return 0


def cmd_rss(a):
    got = {}
    with open("/proc/%d/status" % a.pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmHWM", "VmRSS"):
                got[k] = int(v.split()[0])
    print("%d %d" % (got.get("VmHWM", -1), got.get("VmRSS", -1)))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["legit", "silent", "bulky", "tunnels",
                                    "origin", "rss"])
    ap.add_argument("--proxy", type=int, default=0)
    ap.add_argument("--target", default="")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--every", type=float, default=0.2)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--rate", type=float, default=400.0)
    ap.add_argument("--bytes", type=int, default=60 * 1024)
    ap.add_argument("--ready", default="")
    ap.add_argument("--stop", default="/nonexistent")
    ap.add_argument("--port-file", default="")
    ap.add_argument("--pid", type=int, default=0)
    a = ap.parse_args()
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
