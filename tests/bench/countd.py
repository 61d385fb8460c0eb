#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A counting HTTP/1.1 origin for tests/bench/loadgen.sh, on loopback.

It counts connections, requests and the bytes it receives and sends, so a
test can hold bench/loadgen's own counts against the other end's.  Paths
choose the framing of a body of N bytes:
  /cl/N       Content-Length
  /chunked/N  chunked, in chunks of at most 1000 bytes, with a chunk
              extension and a trailer
  /eof/N      no length: the body ends when the connection does
  /trunc/N    Content-Length N, but only N/2 bytes, then the close
  /stall/N    Content-Length N, but only N/2 bytes, then nothing more
  /noclose/N  Content-Length N, and the connection kept open even when
              the request asked to close it
  /status/S   status S, an empty body
A request with "Connection: close" is answered, then the connection closed
(but see /noclose).  A connection left open waits for the client's close.
On SIGTERM it stops accepting, lets the open connections end (10 s at
most), writes "conns=C requests=R rx=B tx=B" to --stats, and exits.
"""
import argparse
import os
import signal
import socket
import sys
import threading

lock = threading.Lock()
counts = {"conns": 0, "requests": 0, "rx": 0, "tx": 0}


def add(key, n):
    with lock:
        counts[key] += n


def send(conn, data):
    conn.sendall(data)
    add("tx", len(data))


def response(path):
    """(bytes to send, what then: "close", "wait" for the client's close,
    or None: the next request) for a request target's path."""
    parts = path.split("/")
    kind = parts[1] if len(parts) == 3 else ""
    try:
        n = int(parts[2]) if len(parts) == 3 else -1
    except ValueError:
        n = -1
    if kind == "status" and 100 <= n <= 599 and n // 100 != 1:
        return b"HTTP/1.1 %d Test\r\nContent-Length: 0\r\n\r\n" % n, None
    if n < 0 or kind not in ("cl", "chunked", "eof", "trunc", "stall",
                                 "noclose"):
        return b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", None
    body = b"x" * n
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % n
    if kind == "cl":
        return head + body, None
    if kind == "noclose":
        return head + body, "wait"
    if kind == "eof":
        return b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body, \
            "close"
    if kind in ("trunc", "stall"):
        return head + body[: n // 2], "close" if kind == "trunc" else "wait"
    out = [b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"]
    for i in range(0, n, 1000):
        chunk = body[i:i + 1000]
        ext = b";ext=1" if i == 0 else b""
        out.append(b"%x%s\r\n%s\r\n" % (len(chunk), ext, chunk))
    out.append(b"0\r\nX-Trailer: 1\r\n\r\n")
    return b"".join(out), None


def serve(conn):
    buf = b""
    try:
        while True:
            while b"\r\n\r\n" not in buf:
                data = conn.recv(65536)
                if not data:
                    return
                add("rx", len(data))
                buf += data
            head, buf = buf.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            target = lines[0].split(" ")[1] if " " in lines[0] else "/"
            if target.startswith("http://"):    # absolute-form
                target = "/" + target.split("/", 3)[3]
            close = any(l.lower().startswith("connection:") and
                        "close" in l.lower() for l in lines[1:])
            add("requests", 1)
            data, then = response(target)
            send(conn, data)
            if then == "wait":
                while True:
                    data = conn.recv(65536)
                    if not data:
                        return
                    add("rx", len(data))
            if close or then == "close":
                return
    except OSError:
        return
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--stats", required=True)
    a = ap.parse_args()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(1024)
    threads = []
    stop = threading.Event()

    def on_term(signum, frame):
        stop.set()
        ls.shutdown(socket.SHUT_RDWR)

    signal.signal(signal.SIGTERM, on_term)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % ls.getsockname()[1])
    os.rename(tmp, a.port_file)
    while not stop.is_set():
        try:
            conn, _ = ls.accept()
        except OSError:
            break
        add("conns", 1)
        t = threading.Thread(target=serve, args=(conn,), daemon=True)
        t.start()
        threads.append(t)
        threads = [t for t in threads if t.is_alive()]
    for t in threads:
        t.join(10)
    with lock:
        line = "conns=%(conns)d requests=%(requests)d rx=%(rx)d tx=%(tx)d\n" \
            % counts
    tmp = a.stats + ".tmp"
    with open(tmp, "w") as f:
        f.write(line)
    os.rename(tmp, a.stats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
