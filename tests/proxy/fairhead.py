#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fair_head.sh's clients (issue 33 item 2), loopback only:

  trickle  a CONNECT head of --size bytes sent 1-2 bytes per TCP segment
           (TCP_NODELAY, one send per segment), the proxy's CPU time
           (/proc/PID/stat utime+stime) read before and after it;
  trickles --repeat trickled heads: the proxy's CPU per head;
  whole    the same head in one send, for comparison;
  order    a GET (--pipeline) then a CONNECT on one connection: each
           answer in turn and whole, then the tunnel carries a request;
  legit    a CONNECT every --every seconds until --stop exists (or
           --seconds pass), each timed from connect to its 200's head.
"""
import argparse
import os
import socket
import sys
import time


def cpu_ms(pid):
    """utime + stime of pid, in ms (clock-tick resolution)."""
    with open("/proc/%d/stat" % pid) as f:
        st = f.read()
    fields = st[st.rindex(")") + 2:].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks * 1000.0 / os.sysconf("SC_CLK_TCK")


def head(size, target):
    """A CONNECT head of exactly size bytes: padding header lines."""
    h = b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n" % (target, target)
    n = 0
    pad = max(64, size // 100)   # at most ~100 lines: HTTPMSG_MAX_HEADERS
    while size - 2 - len(h) >= 2 * pad + 32:
        h += b"X-Pad-%d: %s\r\n" % (n, b"a" * pad)
        n += 1
    h += b"X-End: " + b"a" * (size - 2 - len(h) - 9) + b"\r\n\r\n"
    if len(h) != size:
        raise SystemExit("head of %d bytes: got %d" % (size, len(h)))
    return h


def read_head(s, deadline):
    got = b""
    while b"\r\n\r\n" not in got:
        s.settimeout(max(0.01, deadline - time.monotonic()))
        d = s.recv(4096)
        if not d:
            break
        got += d
    line = got.split(b"\r\n", 1)[0].decode("latin-1")
    return line.split(" ")[1] if " " in line else "none"


def send_head(a, data, pieces):
    s = socket.create_connection(("127.0.0.1", a.proxy), timeout=a.timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    before = cpu_ms(a.pid)
    t0 = time.monotonic()
    i = 0
    k = 0
    while i < len(data):
        n = 1 + k % 2 if pieces else len(data) - i
        s.sendall(data[i:i + n])
        i += n
        k += 1
        # A segment each: the proxy reads it before the next is sent.
        if pieces and a.gap > 0:
            end = time.perf_counter() + a.gap
            while time.perf_counter() < end:
                pass
    status = read_head(s, t0 + a.timeout)
    el = time.monotonic() - t0
    after = cpu_ms(a.pid)
    s.close()
    print("status %s" % status)
    print("segments %d" % k)
    print("elapsed_ms %.0f" % (el * 1000))
    print("cpu_ms %.0f" % (after - before))
    return 0 if status == "200" else 1


def cmd_trickle(a):
    return send_head(a, head(a.size, a.target.encode()), True)


def cmd_trickles(a):
    """--repeat trickled heads in turn: CPU per head (bench.sh trickle)."""
    data = head(a.size, a.target.encode())
    before = cpu_ms(a.pid)
    t0 = time.monotonic()
    bad = 0
    out = sys.stdout
    for _ in range(a.repeat):
        sys.stdout = open(os.devnull, "w")
        try:
            bad += send_head(a, data, True)
        finally:
            sys.stdout.close()
            sys.stdout = out
    cpu = (cpu_ms(a.pid) - before) / a.repeat
    print("head %6d bytes: %8.2f ms CPU each (%d heads in %.1f s%s)" %
          (a.size, cpu, a.repeat, time.monotonic() - t0,
           ", %d not answered 200" % bad if bad else ""))
    return 0


def cmd_whole(a):
    return send_head(a, head(a.size, a.target.encode()), False)


def one_connect(a):
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", a.proxy),
                                     timeout=a.timeout)
        s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
                  (a.target.encode(), a.target.encode()))
        st = read_head(s, t0 + a.timeout)
        s.close()
    except OSError as e:
        st = "error:%s" % type(e).__name__
    return st, (time.monotonic() - t0) * 1000


class Heads:
    """Heads (and Content-Length bodies) read in turn, with a deadline."""

    def __init__(self, s, deadline):
        self.s, self.deadline, self.buf = s, deadline, b""

    def need(self, cond):
        while not cond():
            self.s.settimeout(max(0.01, self.deadline - time.monotonic()))
            d = self.s.recv(65536)
            if not d:
                raise EOFError
            self.buf += d

    def head(self):
        self.need(lambda: b"\r\n\r\n" in self.buf)
        h, self.buf = self.buf.split(b"\r\n\r\n", 1)
        n = 0
        for ln in h.split(b"\r\n")[1:]:
            k, _, v = ln.partition(b":")
            if k.strip().lower() == b"content-length":
                n = int(v)
        self.need(lambda: len(self.buf) >= n)
        self.buf = self.buf[n:]
        return h.split(b"\r\n", 1)[0].decode("latin-1")


def cmd_order(a):
    """A GET (--pipeline) and a CONNECT on one connection: each answer in
    turn, whole, then a request through the tunnel is answered."""
    tgt = a.target.encode()
    req = b""
    if a.pipeline:
        req = b"GET http://%s/order HTTP/1.1\r\nHost: %s\r\n\r\n" % (tgt, tgt)
    req += b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (tgt, tgt)
    s = socket.create_connection(("127.0.0.1", a.proxy), timeout=a.timeout)
    s.sendall(req)
    r = Heads(s, time.monotonic() + a.timeout)
    got = []
    try:
        for _ in range(2 if a.pipeline else 1):
            got.append(r.head())
        s.sendall(b"GET /through HTTP/1.1\r\nHost: %s\r\n\r\n" % tgt)
        got.append(r.head())
    except (OSError, EOFError) as e:
        got.append("stopped:%s" % type(e).__name__)
    print("answers %s" % " | ".join(got))
    est = "HTTP/1.1 200 Connection established"
    kinds = ["ok" if g == est else "200" if g.split(" ")[1:2] == ["200"]
             else g for g in got]
    want = (["200"] if a.pipeline else []) + ["ok", "200"]
    print("order %s" % ("ok" if kinds == want else "bad"))
    return 0


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * len(v)))] if v else -1


def cmd_legit(a):
    lat = []
    bad = []
    t0 = time.monotonic()
    if a.ready:
        open(a.ready, "w").write("ready\n")
    nxt = t0
    while time.monotonic() - t0 < a.seconds:
        if a.stop and os.path.exists(a.stop) and len(lat) + len(bad) >= 3:
            break
        st, ms = one_connect(a)
        if st == "200":
            lat.append(ms)
        else:
            bad.append("%s after %.0f ms" % (st, ms))
        nxt += a.every
        time.sleep(max(0, nxt - time.monotonic()))
    print("connects %d" % (len(lat) + len(bad)))
    print("failed %d %s" % (len(bad), "; ".join(bad[:5])))
    print("p50_ms %.1f" % pct(lat, 0.5))
    print("p99_ms %.1f" % pct(lat, 0.99))
    print("max_ms %.1f" % (max(lat) if lat else -1))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("trickle", "trickles", "whole", "legit", "order"):
        p = sub.add_parser(name)
        p.add_argument("--proxy", type=int, required=True)
        p.add_argument("--target", required=True)
        p.add_argument("--timeout", type=float, default=30)
        if name == "order":
            p.add_argument("--pipeline", action="store_true")
        elif name == "legit":
            p.add_argument("--every", type=float, default=0.2)
            p.add_argument("--seconds", type=float, default=60)
            p.add_argument("--stop")
            p.add_argument("--ready")
        else:
            p.add_argument("--pid", type=int, required=True)
            p.add_argument("--size", type=int, default=65536)
            p.add_argument("--gap", type=float, default=0.00002)
            p.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    return globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
