# SPDX-License-Identifier: Apache-2.0
"""A slow decision-log reader and the load around it (tests/proxy/fair_log.sh,
scripts/bench.sh slowlog; issue 33 item 5).

  reader --rate BYTES_PER_S --out FILE [--pipe-size N]   read the proxy's
          `--log -` from stdin at that rate (0: as fast as it comes), copy
          it to FILE; the pipe made N bytes first (0: as it is).
  load --proxy PORT --origin PORT ...    a legitimate client (one CONNECT
          every --interval s) during and after a burst: --attackers
          clients sending refused requests back to back, --allowed
          clients sending allowed CONNECTs back to back, for --seconds;
          the legitimate client goes on --after seconds more.  Prints one
          line per group: count, answers by status, p50/p99/max in ms.
  check FILE                             the log: every line JSON (but
          the proxy's own stderr messages), the "unlogged" lines' counts
          add up; prints lines, allow, deny, unlogged.

Loopback only; every socket has a timeout.
"""
import json
import os
import socket
import sys
import threading
import time


def reader(rate, out, pipe_size):
    fd = sys.stdin.fileno()
    if pipe_size:
        import fcntl
        fcntl.fcntl(fd, 1031, pipe_size)    # F_SETPIPE_SZ
    start = time.monotonic()
    got = 0
    with open(out, "wb") as f:
        while True:
            if rate > 0:
                # Never ahead of rate bytes a second since the start.
                ahead = got / rate - (time.monotonic() - start)
                if ahead > 0:
                    time.sleep(ahead)
            d = os.read(fd, 4096 if rate > 0 else 65536)
            if not d:
                return
            got += len(d)
            f.write(d)
            f.flush()


def status_of(sock):
    buf = b""
    while b"\r\n" not in buf:
        d = sock.recv(4096)
        if not d:
            return 0
        buf += d
    try:
        return int(buf.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return -1


def one(port, req, timeout=10.0):
    """(status, ms) of one request on a new connection; status 0: closed,
    -2: no answer in time or refused at connect."""
    t0 = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout) as s:
            s.settimeout(timeout)
            s.sendall(req)
            st = status_of(s)
    except OSError:
        st = -2
    return st, (time.monotonic() - t0) * 1000.0


class Group:
    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self.ms = []
        self.codes = {}

    def add(self, st, ms):
        with self.lock:
            self.ms.append(ms)
            self.codes[st] = self.codes.get(st, 0) + 1

    def line(self):
        ms = sorted(self.ms)

        def pct(p):
            return ms[min(len(ms) - 1, int(len(ms) * p))] if ms else 0.0
        codes = " ".join("%s=%d" % kv for kv in sorted(self.codes.items()))
        return "%s n=%d %s p50=%.1f p99=%.1f max=%.1f" % (
            self.name, len(ms), codes or "-", pct(0.5), pct(0.99),
            ms[-1] if ms else 0.0)


def load(a):
    connect = ("CONNECT good.test:%d HTTP/1.1\r\nHost: good.test:%d\r\n\r\n"
               % (a.origin, a.origin)).encode()
    refused = ("GET http://denied.test:%d/ HTTP/1.1\r\nHost: denied.test:%d"
               "\r\n\r\n" % (a.origin, a.origin)).encode()
    end = time.monotonic() + a.seconds
    groups = {n: Group(n) for n in ("legit-during", "legit-after",
                                    "allowed", "refused")}

    def loop(req, g):
        while time.monotonic() < end:
            g.add(*one(a.proxy, req))

    threads = [threading.Thread(target=loop, args=(refused,
               groups["refused"])) for _ in range(a.attackers)]
    threads += [threading.Thread(target=loop, args=(connect,
                groups["allowed"])) for _ in range(a.allowed)]
    for t in threads:
        t.daemon = True
        t.start()
    stop = end + a.after
    nxt = time.monotonic()
    while True:
        now = time.monotonic()
        if now >= stop:
            break
        if now < nxt:
            time.sleep(nxt - now)
            continue
        nxt += a.interval
        g = groups["legit-during" if now < end else "legit-after"]
        g.add(*one(a.proxy, connect))
    for t in threads:
        t.join(15)
    for n in ("legit-during", "legit-after", "allowed", "refused"):
        print(groups[n].line())


def check(path):
    allow = deny = unlogged = lines = closes = 0
    with open(path, "rb") as f:
        for raw in f:
            if raw.startswith(b"harn-egressd: "):
                continue        # --log - is stderr: its messages too
            lines += 1
            r = json.loads(raw)
            if r.get("event") == "unlogged":
                if sum(r["reasons"].values()) != r["count"]:
                    print("counts do not add up: %r" % r)
                    return 1
                unlogged += r["count"]
            elif r.get("event") == "close":
                closes += 1     # an allowed connection's end (SPEC 5)
            elif r["decision"] == "allow":
                allow += 1
            else:
                deny += 1
    print("lines=%d allow=%d deny=%d unlogged=%d closes=%d"
          % (lines, allow, deny, unlogged, closes))
    return 0


def main():
    import argparse
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("reader")
    r.add_argument("--rate", type=int, default=0)
    r.add_argument("--out", required=True)
    r.add_argument("--pipe-size", type=int, default=0)
    ld = sub.add_parser("load")
    ld.add_argument("--proxy", type=int, required=True)
    ld.add_argument("--origin", type=int, required=True)
    ld.add_argument("--seconds", type=float, default=5)
    ld.add_argument("--after", type=float, default=3)
    ld.add_argument("--interval", type=float, default=0.2)
    ld.add_argument("--attackers", type=int, default=0)
    ld.add_argument("--allowed", type=int, default=0)
    c = sub.add_parser("check")
    c.add_argument("path")
    a = p.parse_args()
    if a.cmd == "reader":
        reader(a.rate, a.out, a.pipe_size)
        return 0
    if a.cmd == "load":
        load(a)
        return 0
    return check(a.path)


if __name__ == "__main__":
    sys.exit(main())
