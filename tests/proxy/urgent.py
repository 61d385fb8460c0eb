#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""urgent: TCP urgent data (MSG_OOB) through the proxy, each way.

    python3 tests/proxy/urgent.py --proxy PORT --host NAME --pid PID

splice(2) never passes TCP urgent data: at the urgent mark it says EAGAIN
while the socket stays readable.  A proxy that splices must step over the
urgent byte as read(2) does, or its loop spins and nothing after the mark
ever moves.  Each case sends 40,000 bytes (past the size where tunnels and
forwarded bodies move to splice), one urgent byte, then 40,000 more, from
one end; the other end must get exactly the 80,000 in-band bytes, in
order, and the proxy must spend under a second of CPU on the case.

Cases: CONNECT and SOCKS5 tunnels, client to origin and back; HTTP
forwarding, a request body (Content-Length) and a response body.  NAME
must resolve to 127.0.0.1 and be allowed by the proxy's policy; the origin
is this script's, on an ephemeral loopback port.  Prints "ok NAME" or
"not ok NAME: DETAIL" per check; exit 0 when all passed.
"""

import argparse
import os
import random
import socket
import struct
import sys
import threading

TIMEOUT = 10.0
HALF = 40000
CPU_LIMIT = 1.0		# seconds of the proxy's CPU per case


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def send_with_urgent(sock, data):
    """data's first half, one urgent byte, the second half."""
    sock.sendall(data[:HALF])
    sock.send(b"!", socket.MSG_OOB)
    sock.sendall(data[HALF:])


def recv_n(sock, n):
    """Up to n bytes: fewer only at EOF or on the timeout."""
    got = bytearray()
    try:
        while len(got) < n:
            d = sock.recv(min(65536, n - len(got)))
            if not d:
                break
            got += d
    except socket.timeout:
        pass
    return bytes(got)


def recv_head(sock):
    """Bytes up to and including the blank line after a head."""
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        d = sock.recv(1)
        if not d:
            raise OSError("EOF inside a head: %r" % head[-200:])
        head += d
    return head


class Origin:
    """One connection at a time on 127.0.0.1; what it read, kept."""

    def __init__(self):
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(4)
        self.lsock.settimeout(TIMEOUT)
        self.port = self.lsock.getsockname()[1]
        self.got = None
        self.error = None

    def serve(self, role, data):
        self.got, self.error = None, None
        t = threading.Thread(target=self._one, args=(role, data))
        t.daemon = True
        t.start()
        return t

    def _one(self, role, data):
        try:
            c, _ = self.lsock.accept()
            c.settimeout(TIMEOUT)
            with c:
                if role == "sink":
                    self.got = recv_n(c, len(data))
                elif role == "source":
                    send_with_urgent(c, data)
                elif role == "http-sink":
                    recv_head(c)
                    self.got = recv_n(c, len(data))
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
                              b"Connection: close\r\n\r\n")
                elif role == "http-source":
                    recv_head(c)
                    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                              b"Connection: close\r\n\r\n" % len(data))
                    send_with_urgent(c, data)
        except OSError as e:
            self.error = repr(e)


def tunnel(a, kind, port):
    s = socket.create_connection(("127.0.0.1", a.proxy), timeout=TIMEOUT)
    if kind == "connect":
        target = ("%s:%d" % (a.host, port)).encode()
        s.sendall(b"CONNECT " + target + b" HTTP/1.1\r\nHost: " + target +
                  b"\r\n\r\n")
        head = recv_head(s)
        if not head.startswith(b"HTTP/1.1 200"):
            raise OSError("CONNECT answered %r" % head[:60])
        return s
    s.sendall(b"\x05\x01\x00")
    if recv_n(s, 2) != b"\x05\x00":
        raise OSError("SOCKS5 method refused")
    name = a.host.encode()
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name +
              struct.pack("!H", port))
    reply = recv_n(s, 10)
    if reply[:2] != b"\x05\x00":
        raise OSError("SOCKS5 reply %r" % reply)
    return s


def run_case(a, origin, name, data):
    kind, way = name.split("-")
    if kind == "forward":
        role = "http-sink" if way == "up" else "http-source"
    else:
        role = "sink" if way == "up" else "source"
    t = origin.serve(role, data)
    got = None
    if kind == "forward":
        s = socket.create_connection(("127.0.0.1", a.proxy), timeout=TIMEOUT)
        url = ("http://%s:%d/" % (a.host, origin.port)).encode()
        host = ("%s:%d" % (a.host, origin.port)).encode()
        if way == "up":
            s.sendall(b"POST " + url + b" HTTP/1.1\r\nHost: " + host +
                      b"\r\nContent-Length: %d\r\n\r\n" % len(data))
            send_with_urgent(s, data)
            head = recv_head(s)
            if not head.startswith(b"HTTP/1.1 200"):
                raise OSError("POST answered %r" % head[:60])
        else:
            s.sendall(b"GET " + url + b" HTTP/1.1\r\nHost: " + host +
                      b"\r\n\r\n")
            recv_head(s)
            got = recv_n(s, len(data))
    else:
        s = tunnel(a, kind, origin.port)
        if way == "up":
            send_with_urgent(s, data)
        else:
            got = recv_n(s, len(data))
    t.join(TIMEOUT)
    s.close()
    if origin.error is not None:
        raise OSError("origin: " + origin.error)
    return origin.got if got is None else got


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--proxy", type=int, required=True)
    p.add_argument("--host", required=True)
    p.add_argument("--pid", type=int, required=True)
    a = p.parse_args()
    origin = Origin()
    failed = 0
    for i, name in enumerate(("connect-up", "connect-down", "socks5-up",
                              "socks5-down", "forward-up", "forward-down")):
        data = random.Random(i).randbytes(2 * HALF)
        what = ("%s: an urgent byte mid-stream; the other end gets every "
                "in-band byte, in order, and the proxy does not spin" % name)
        before = cpu_seconds(a.pid)
        try:
            got = run_case(a, origin, name, data)
        except OSError as e:
            print("not ok %s: %s" % (what, e))
            failed += 1
            continue
        spent = cpu_seconds(a.pid) - before
        if got == data and spent < CPU_LIMIT:
            print("ok %s (%.2f s CPU)" % (what, spent))
        else:
            print("not ok %s: got %d of %d bytes%s, %.2f s of proxy CPU" %
                  (what, len(got or b""), len(data),
                   "" if got == data[:len(got or b"")] else " (differing)",
                   spent))
            failed += 1
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
