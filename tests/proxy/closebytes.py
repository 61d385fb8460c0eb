#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Peers that count their bytes, for tests/proxy/close.sh (SPEC 5's close
lines): what a close line says must equal what these sent and received.

  origin --port-file F --log L   HTTP/1.1 origin, keep-alive; GET or POST
        /n/N (a body of N bytes, Content-Length) or /c/N (chunked); reads
        request bodies of either framing; at each connection's end appends
        "rx R tx T" (bytes received, sent) to L.
  client --proxy P --url URL... [--up N] [--chunked]
        one connection to the proxy, the requests one after another
        (absolute-form, keep-alive; --up: a POST body of N bytes, each
        request), every response read whole; prints "response I BYTES
        STATUS" per response and "sent S received R".
  echo --port-file F   a TCP origin that sends back what it gets.
  hold --proxy P --port N --bytes B --ready R
        a CONNECT tunnel to the echo origin on port N: B bytes there and
        back (so they have moved), then R written, then held until the
        proxy ends it; prints "held B".
Loopback only.
"""
import argparse
import os
import socket
import sys
import threading


def write_port(path, port):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % port)
    os.rename(tmp, path)


class Counted:
    """A socket whose bytes each way are counted, read through a buffer."""

    def __init__(self, s):
        self.s, self.buf, self.rx, self.tx = s, b"", 0, 0

    def fill(self):
        d = self.s.recv(262144)
        if not d:
            raise EOFError("EOF")
        self.rx += len(d)
        self.buf += d

    def line(self):
        while b"\r\n" not in self.buf:
            self.fill()
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def take(self, n):
        while len(self.buf) < n:
            self.fill()
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def send(self, d):
        self.s.sendall(d)
        self.tx += len(d)

    def head(self):
        first, hdrs = self.line(), {}
        while True:
            ln = self.line()
            if not ln:
                return first, hdrs
            k, _, v = ln.partition(b":")
            hdrs[k.strip().lower()] = v.strip()

    def body(self, hdrs):
        if hdrs.get(b"transfer-encoding", b"").lower() == b"chunked":
            n = 0
            while True:
                size = int(self.line().split(b";")[0], 16)
                if size == 0:
                    while self.line():
                        pass
                    return n
                self.take(size)
                self.take(2)
                n += size
        n = int(hdrs.get(b"content-length", b"0"))
        self.take(n)
        return n


def chunked(data, step=7000):
    out = b""
    for i in range(0, len(data), step):
        part = data[i:i + step]
        out += b"%x\r\n%s\r\n" % (len(part), part)
    return out + b"0\r\n\r\n"


def serve(c, log):
    p = Counted(c)
    try:
        while True:
            first, hdrs = p.head()
            p.body(hdrs)
            path = first.split(b" ")[1].decode()
            kind, n = path.split("/")[1], int(path.split("/")[2])
            data = os.urandom(n)
            if kind == "c":
                p.send(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
                       b"\r\n\r\n" + chunked(data))
            else:
                p.send(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                       % (n, data))
    except (OSError, EOFError, ValueError, IndexError):
        pass
    finally:
        c.close()
        with open(log, "a") as f:
            f.write("rx %d tx %d\n" % (p.rx, p.tx))


def cmd_origin(a):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    write_port(a.port_file, s.getsockname()[1])
    while True:
        c, _ = s.accept()
        c.settimeout(30)
        threading.Thread(target=serve, args=(c, a.log), daemon=True).start()


def cmd_client(a):
    s = socket.create_connection(("127.0.0.1", a.proxy), timeout=20)
    p = Counted(s)
    for i, url in enumerate(a.url):
        host = url.split("/")[2]
        path = "/" + url.split("/", 3)[3]
        body = os.urandom(a.up) if a.up else b""
        head = "%s %s HTTP/1.1\r\nHost: %s\r\n" % (
            "POST" if a.up else "GET", url, host)
        if a.up and a.chunked:
            head += "Transfer-Encoding: chunked\r\n"
            body = chunked(body)
        elif a.up:
            head += "Content-Length: %d\r\n" % len(body)
        before = p.rx - len(p.buf)
        p.send(head.encode() + b"\r\n" + body)
        try:
            first, hdrs = p.head()
            p.body(hdrs)
        except (OSError, EOFError) as e:
            print("FAIL response %d: %s" % (i, e))
            return 1
        status = first.split(b" ")[1].decode()
        print("response %d %d %s" % (i, p.rx - len(p.buf) - before, status))
        if hdrs.get(b"connection", b"").lower() == b"close":
            break
    s.close()
    print("sent %d received %d" % (p.tx, p.rx))
    return 0


def echo_one(c):
    try:
        while True:
            d = c.recv(65536)
            if not d:
                break
            c.sendall(d)
    except OSError:
        pass
    c.close()


def cmd_echo(a):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    write_port(a.port_file, s.getsockname()[1])
    while True:
        c, _ = s.accept()
        threading.Thread(target=echo_one, args=(c,), daemon=True).start()


def cmd_hold(a):
    s = socket.create_connection(("127.0.0.1", a.proxy), timeout=60)
    p = Counted(s)
    p.send(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n" % a.port)
    first, _ = p.head()
    if b" 200 " not in first + b" ":
        print("FAIL %r" % first)
        return 1
    p.send(os.urandom(a.bytes))
    p.take(a.bytes)
    with open(a.ready, "w") as f:
        f.write("ready\n")
    try:
        while s.recv(4096):
            pass
    except OSError:
        pass
    print("held %d" % a.bytes)
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    o = sub.add_parser("origin")
    o.add_argument("--port-file", required=True)
    o.add_argument("--log", required=True)
    c = sub.add_parser("client")
    c.add_argument("--proxy", type=int, required=True)
    c.add_argument("--url", action="append", required=True)
    c.add_argument("--up", type=int, default=0)
    c.add_argument("--chunked", action="store_true")
    e = sub.add_parser("echo")
    e.add_argument("--port-file", required=True)
    h = sub.add_parser("hold")
    h.add_argument("--proxy", type=int, required=True)
    h.add_argument("--port", type=int, required=True)
    h.add_argument("--bytes", type=int, required=True)
    h.add_argument("--ready", required=True)
    a = ap.parse_args()
    return {"origin": cmd_origin, "client": cmd_client, "echo": cmd_echo,
            "hold": cmd_hold}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
