# SPDX-License-Identifier: Apache-2.0
"""scripts/bench.sh transparent's client: run inside a run (SPEC 6.6).

  origin PORTFILE           an origin that sends one byte at accept
  connect HOST PORT N       N connects through the proxy with CONNECT
                            (HTTP_PROXY) and N made directly (carried
                            through the proxy by the broker), blocking and
                            not (EINPROGRESS, then writable), each to the
                            origin's first byte: median and p90, in us
  lookup NAME N             N getaddrinfo(NAME): median and p90, in us
  tcpquery PORT NAME N      N DNS queries over TCP to 127.0.0.1:PORT
  udpquery PORT NAME N      N DNS queries over UDP to 127.0.0.1:PORT
  udpask HOST PORT NAME N   N DNS queries over UDP to HOST:PORT, each
                            answer read with its source (recvfrom), as
                            glibc and musl read them
"""
import errno
import os
import select
import socket
import struct
import sys
import time


def stats(name, xs):
    xs = sorted(xs)
    print("%-34s median %7.0f us  p90 %7.0f us  (%d)" % (
        name, xs[len(xs) // 2] * 1e6, xs[len(xs) * 9 // 10] * 1e6, len(xs)))
    return xs[len(xs) // 2]


def origin(portfile):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(128)
    with open(portfile + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    while True:
        c, _ = s.accept()
        c.sendall(b"x")
        c.close()


def via_connect(proxy, host, port):
    t = time.perf_counter()
    s = socket.create_connection(proxy)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (
        host.encode(), port, host.encode(), port))
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit("CONNECT refused: %r" % head[:40])
    s.recv(1)
    s.close()
    return time.perf_counter() - t


def direct(addr, port):
    t = time.perf_counter()
    s = socket.create_connection((addr, port))
    s.recv(1)
    s.close()
    return time.perf_counter() - t


def direct_nb(addr, port):
    # As an event loop connects: EINPROGRESS, writable, SO_ERROR.
    t = time.perf_counter()
    s = socket.socket()
    s.setblocking(False)
    rc = s.connect_ex((addr, port))
    if rc == errno.EINPROGRESS:
        select.select([], [s], [])
        rc = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if rc != 0:
        raise SystemExit("non-blocking connect: %s" % os.strerror(rc))
    select.select([s], [], [])
    s.recv(1)
    s.close()
    return time.perf_counter() - t


def connect(host, port, n):
    p = os.environ["HTTP_PROXY"].rsplit(":", 1)
    proxy = (p[0].split("//")[1], int(p[1]))
    # The address the run's DNS gave, looked up once: connects alone.
    addr = socket.getaddrinfo(host, port, socket.AF_INET)[0][4][0]
    for _ in range(20):
        via_connect(proxy, host, port)
        direct(addr, port)
        direct_nb(addr, port)
    a = stats("CONNECT through the proxy", [via_connect(proxy, host, port)
                                            for _ in range(n)])
    b = stats("transparent (connect to %s)" % addr,
              [direct(addr, port) for _ in range(n)])
    c = stats("transparent, non-blocking",
              [direct_nb(addr, port) for _ in range(n)])
    print("transparent / CONNECT: %.2f" % (b / a))
    print("transparent non-blocking / CONNECT: %.2f" % (c / a))


def lookup(name, n):
    def one():
        t = time.perf_counter()
        socket.getaddrinfo(name, 80, socket.AF_INET, socket.SOCK_STREAM)
        return time.perf_counter() - t
    for _ in range(20):
        one()
    stats("getaddrinfo(%s)" % name, [one() for _ in range(n)])


def tcpquery(port, name, n):
    q = struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)

    def one():
        t = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(struct.pack(">H", len(q)) + q)
        ln = struct.unpack(">H", s.recv(2))[0]
        while ln > 0:
            ln -= len(s.recv(ln))
        s.close()
        return time.perf_counter() - t
    for _ in range(20):
        one()
    stats("a DNS query over TCP to dnsd.py", [one() for _ in range(n)])


def udpquery(port, name, n, host="127.0.0.1", source=False):
    q = struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((host, port))

    def one():
        t = time.perf_counter()
        s.send(q)
        if source:
            s.recvfrom(2048)
        else:
            s.recv(2048)
        return time.perf_counter() - t
    for _ in range(20):
        one()
    stats("a DNS query over UDP to %s:%d" % (host, port),
          [one() for _ in range(n)])


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "origin":
        origin(a[2])
    elif a[1] == "connect":
        connect(a[2], int(a[3]), int(a[4]))
    elif a[1] == "lookup":
        lookup(a[2], int(a[3]))
    elif a[1] == "udpquery":
        udpquery(int(a[2]), a[3], int(a[4]))
    elif a[1] == "udpask":
        udpquery(int(a[3]), a[4], int(a[5]), a[2], True)
    else:
        tcpquery(int(a[2]), a[3], int(a[4]))
