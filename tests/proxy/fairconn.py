#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""fairconn: the clients and the silent resolver of tests/proxy/fair_connect.sh
and scripts/bench.sh deadnames (issue 33 items 3 and 4).  Loopback only.

    silent  a DNS "server" that reads every query and never answers: one
            line "NAME QTYPE" a datagram in --log; its port in --port-file.
    leave   N requests (CONNECT or SOCKS5) for names only the silent
            server is asked about; once the server has seen each name,
            every client leaves (half close with FIN, half with a reset).
    flood   N connections, each a CONNECT to a name of its own, opened
            one after the other (at most --rate a second) and held;
            refusals read and counted.
    legit   a legitimate client: one CONNECT to --target every --interval
            seconds until --stop-file exists (or --n are done); prints how
            many were answered 200 and the latencies (p50, p99, max).
"""

import argparse
import os
import resource
import selectors
import socket
import struct
import sys
import time


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def qname(msg):
    """The question's name and type of a DNS query, or None."""
    i, labels = 12, []
    try:
        while msg[i]:
            n = msg[i]
            labels.append(msg[i + 1:i + 1 + n].decode("ascii", "replace"))
            i += 1 + n
        return ".".join(labels).lower(), struct.unpack("!H", msg[i + 1:i + 3])[0]
    except (IndexError, struct.error):
        return None


def cmd_silent(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    write_atomic(a.port_file, "%d\n" % s.getsockname()[1])
    with open(a.log, "a") as log:
        while True:
            q = qname(s.recv(4096))
            if q:
                log.write("%s %d\n" % q)
                log.flush()


def request(kind, name, port):
    if kind == "socks":
        b = name.encode()
        return (b"\x05\x01\x00" + b"\x05\x01\x00\x03" + bytes([len(b)]) + b +
                struct.pack("!H", port))
    return ("CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
            (name, port, name, port)).encode()


def seen_names(path):
    try:
        with open(path) as f:
            return {ln.split()[0] for ln in f if ln.strip()}
    except OSError:
        return set()


def cmd_leave(a):
    conns = []
    for i in range(a.n):
        kind = a.kind if a.kind != "mix" else ("socks" if i % 2 else "connect")
        s = socket.create_connection(("127.0.0.1", a.proxy), timeout=a.timeout)
        s.sendall(request(kind, a.names % i, a.dport))
        if kind == "socks":
            # Read the method choice: a close then sends a FIN, not a reset.
            got = b""
            while len(got) < 2:
                d = s.recv(2 - len(got))
                if not d:
                    break
                got += d
            if got != b"\x05\x00":
                print("socks method %r" % got)
        conns.append(s)
    want = {a.names % i for i in range(a.n)}
    end = time.monotonic() + a.timeout
    while not want <= seen_names(a.dnslog) and time.monotonic() < end:
        time.sleep(0.02)
    seen = len(want & seen_names(a.dnslog))
    print("sent %d" % a.n)
    print("seen %d" % seen)
    for i, s in enumerate(conns):
        if i % 4 == 3:
            # A reset rather than a FIN: gone as surely.
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                         struct.pack("ii", 1, 0))
        s.close()
    print("left %d" % len(conns))
    return 0 if seen == a.n else 1


def cmd_flood(a):
    raise_nofile()
    sel = selectors.DefaultSelector()
    opened = refused = failed = 0
    start = time.monotonic()
    for i in range(a.n):
        try:
            s = socket.create_connection(("127.0.0.1", a.proxy), timeout=5)
            s.sendall(request("connect", a.names % i, a.dport))
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            opened += 1
        except OSError:
            failed += 1
        # Refusals as they come, so the proxy's replies never pile up;
        # at --rate, the wait for the next connection's turn is spent so.
        wait = 0.0
        if a.rate:
            wait = max(0.0, start + (i + 1) / a.rate - time.monotonic())
        for key, _ in sel.select(wait):
            refused += drain(sel, key.fileobj)
    write_atomic(a.ready, "opened %d in %.1f s\n" %
                 (opened, time.monotonic() - start))
    end = time.monotonic() + a.hold
    while time.monotonic() < end and not os.path.exists(a.stop_file):
        for key, _ in sel.select(0.1):
            refused += drain(sel, key.fileobj)
    print("opened %d" % opened)
    print("failed %d" % failed)
    print("answered %d" % refused)
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    return 0


def drain(sel, s):
    """A reply (a refusal) or the proxy's close: 1 when it is over."""
    try:
        d = s.recv(4096)
    except BlockingIOError:
        return 0
    except OSError:
        d = b""
    if d and not d.startswith(b"HTTP/1.1 "):
        return 0
    sel.unregister(s)
    s.close()
    return 1


def one_connect(a):
    host, port = a.target.rsplit(":", 1)
    t0 = time.monotonic()
    try:
        s = socket.create_connection(("127.0.0.1", a.proxy), timeout=a.timeout)
    except OSError as e:
        return "connect-" + (e.__class__.__name__), time.monotonic() - t0
    try:
        s.sendall(("CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n" %
                   (host, port, host, port)).encode())
        got = b""
        while b"\r\n" not in got:
            d = s.recv(256)
            if not d:
                break
            got += d
        status = got.split(b" ")[1].decode() if got.count(b" ") else "eof"
    except socket.timeout:
        status = "timeout"
    except OSError as e:
        status = e.__class__.__name__
    finally:
        s.close()
    return status, time.monotonic() - t0


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else 0.0


def cmd_legit(a):
    lat, statuses, n = [], {}, 0
    while (a.n == 0 or n < a.n) and not (a.stop_file and
                                         os.path.exists(a.stop_file)):
        t = time.monotonic()
        st, dt = one_connect(a)
        n += 1
        statuses[st] = statuses.get(st, 0) + 1
        if st == "200":
            lat.append(dt)
        if a.slow and dt >= a.slow:
            print("# slow %s %.0f ms at %.3f" % (st, dt * 1000, time.time()))
        if a.ready and n == 1:
            write_atomic(a.ready, "first %s\n" % st)
        time.sleep(max(0.0, a.interval - (time.monotonic() - t)))
    worst = max(lat) if lat else 0.0
    print("tries %d" % n)
    print("answered %d" % statuses.get("200", 0))
    print("statuses %s" % " ".join("%s=%d" % kv for kv in sorted(statuses.items())))
    print("p50_ms %.1f" % (pct(lat, 0.50) * 1000))
    print("p99_ms %.1f" % (pct(lat, 0.99) * 1000))
    print("max_ms %.1f" % (worst * 1000))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("silent")
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.set_defaults(fn=cmd_silent)
    p = sub.add_parser("leave")
    p.add_argument("--proxy", type=int, required=True)
    p.add_argument("--names", required=True, help="a %%d format")
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--kind", choices=("connect", "socks", "mix"), default="mix")
    p.add_argument("--dport", type=int, default=443)
    p.add_argument("--dnslog", required=True)
    p.add_argument("--timeout", type=float, default=5.0)
    p.set_defaults(fn=cmd_leave)
    p = sub.add_parser("flood")
    p.add_argument("--proxy", type=int, required=True)
    p.add_argument("--names", required=True)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--dport", type=int, default=443)
    p.add_argument("--ready", required=True)
    p.add_argument("--stop-file", required=True)
    p.add_argument("--hold", type=float, default=20.0)
    p.add_argument("--rate", type=float, default=0.0,
                   help="connections a second at most (0: no limit)")
    p.set_defaults(fn=cmd_flood)
    p = sub.add_parser("legit")
    p.add_argument("--proxy", type=int, required=True)
    p.add_argument("--target", required=True)
    p.add_argument("--n", type=int, default=0)
    p.add_argument("--interval", type=float, default=0.05)
    p.add_argument("--timeout", type=float, default=5.0)
    p.add_argument("--stop-file", default="")
    p.add_argument("--ready", default="")
    p.add_argument("--slow", type=float, default=0.0,
                   help="print each try that took this many seconds")
    p.set_defaults(fn=cmd_legit)
    a = ap.parse_args()
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
