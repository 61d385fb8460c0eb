#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bodies: HTTP bodies through the proxy's forwarding, byte for byte.

    python3 tests/proxy/bodies.py --proxy PORT --host NAME --log FILE [--pid PID]
                            [--only CASE]

Starts its own origin on 127.0.0.1 (an ephemeral port; NAME must resolve
to 127.0.0.1 and be allowed by the proxy's policy), then runs each case
through the proxy and prints one line per check: "ok NAME" or
"not ok NAME: DETAIL".  Exit 0 when every check passed.

The origin reads every request body exactly as its framing says, with a
strict parser (a chunk line is size[;ext] and CRLF, nothing else), and
records what it read: the path, the body's length and SHA-256, and a
request line in absolute-form would show the proxy passed on bytes it
should have decided first.  Responses are built from the path:

    /cl/N           Content-Length N (a byte pattern), written in pieces
    /cl/N/extra     the same, then bytes past its end in the same write
    /chunked/N/K    N bytes in chunks of K, extensions on some, a trailer
    /close/N        N bytes, no length: until the origin closes
    /echo           the request body back, Content-Length
    /echochunked/K  the request body back in chunks of K

Each response carries X-Req-Len and X-Req-Sha of the request body the
origin read.  After every response the proxy's decision log (--log) must
already hold a line for each request answered so far (SPEC 5).

With --pid (the proxy's), long bodies must not pass through the proxy's
user space: its /proc/PID/io read and write counts (rchar, wchar: bytes
through read(2), write(2) and their kin, which splice(2) is not) grow by
far less than the bodies.  Printed "skip NAME: why" when they cannot be
read.
"""

import argparse
import hashlib
import random
import re
import socket
import sys
import threading
import time

TIMEOUT = 20.0
CHUNK_LINE = re.compile(rb"[0-9A-Fa-f]+(;[!#$%&'*+.^_`|~0-9A-Za-z-]+"
                        rb"(=[!#$%&'*+.^_`|~0-9A-Za-z-]+)?)*")


def pattern(seed, n):
    return random.Random(seed).randbytes(n)


def sha(b):
    return hashlib.sha256(b).hexdigest()


class Reader:
    """Exact reads from a socket: lines (CRLF only), counts, the rest."""

    def __init__(self, sock):
        self.s = sock
        self.buf = bytearray()
        self.eof = False

    def fill(self):
        d = self.s.recv(262144)
        if not d:
            self.eof = True
            raise EOFError("EOF")
        self.buf += d

    def line(self, cap=8192):
        while True:
            i = self.buf.find(b"\r\n")
            if i >= 0:
                ln = bytes(self.buf[:i])
                del self.buf[:i + 2]
                if b"\r" in ln or b"\n" in ln:
                    raise ValueError("bare CR or LF in %r" % ln[:60])
                return ln
            if len(self.buf) > cap:
                raise ValueError("line too long")
            self.fill()

    def take(self, n):
        while len(self.buf) < n:
            self.fill()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def rest(self):
        try:
            while True:
                self.fill()
        except EOFError:
            pass
        out = bytes(self.buf)
        self.buf = bytearray()
        return out


def read_head(r):
    start = r.line()
    while start == b"":
        start = r.line()
    hdrs = {}
    while True:
        ln = r.line()
        if ln == b"":
            return start, hdrs
        k, sep, v = ln.partition(b":")
        if not sep:
            raise ValueError("header %r" % ln[:60])
        hdrs[k.strip().lower().decode("latin-1")] = v.strip().decode(
            "latin-1")


def read_chunked(r):
    body = bytearray()
    while True:
        ln = r.line()
        if not CHUNK_LINE.fullmatch(ln):
            raise ValueError("chunk line %r" % ln[:60])
        n = int(ln.split(b";")[0], 16)
        if n == 0:
            while r.line() != b"":
                pass
            return bytes(body)
        body += r.take(n)
        if r.take(2) != b"\r\n":
            raise ValueError("no CRLF after a chunk")


def read_body(r, hdrs, until_close=False):
    if "chunked" in hdrs.get("transfer-encoding", "").lower():
        return read_chunked(r)
    if "content-length" in hdrs:
        return r.take(int(hdrs["content-length"]))
    return r.rest() if until_close else b""


def chunked(data, k, ext=True):
    out = bytearray()
    for i, off in enumerate(range(0, len(data), k)):
        part = data[off:off + k]
        out += b"%x%s\r\n" % (len(part), b";i=%d" % i if ext and i % 3 == 0
                              else b"")
        out += part + b"\r\n"
    return bytes(out) + b"0\r\nX-Trailer: yes\r\n\r\n"


def send_in_pieces(s, data, seed):
    """Write data in pieces of varied size: TCP cuts it anywhere."""
    rnd = random.Random(seed)
    off = 0
    while off < len(data):
        n = rnd.choice((1, 7, 100, 4096, 16384, 65536, 100000, 262144))
        s.sendall(data[off:off + n])
        off += n


# ---------------------------------------------------------------- origin

class Origin:
    def __init__(self):
        self.lock = threading.Lock()
        self.seen = []          # (path, body length, body sha)
        self.progress = 0       # body bytes read, for cases that wait
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(64)
        self.port = self.ls.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            c, _ = self.ls.accept()
            c.settimeout(TIMEOUT)
            threading.Thread(target=self.serve, args=(c,),
                             daemon=True).start()

    def body(self, r, hdrs):
        if "chunked" in hdrs.get("transfer-encoding", "").lower():
            return read_chunked(r)
        n = int(hdrs.get("content-length", "0"))
        out = bytearray()
        while len(out) < n:
            part = r.take(min(n - len(out), 65536))
            out += part
            with self.lock:
                self.progress += len(part)
        return bytes(out)

    def serve(self, c):
        r = Reader(c)
        try:
            while True:
                start, hdrs = read_head(r)
                method, path, _ = start.split(b" ")
                path = path.decode("latin-1")
                body = self.body(r, hdrs)
                with self.lock:
                    self.seen.append((path, len(body), sha(body)))
                if not self.respond(c, path, body):
                    return
        except (EOFError, OSError, ValueError):
            pass
        finally:
            c.close()

    def respond(self, c, path, body):
        """Answer; False when the connection ends with it."""
        info = b"X-Req-Len: %d\r\nX-Req-Sha: %s\r\n" % (
            len(body), sha(body).encode())
        p = path.split("/")
        if p[1] == "cl":
            n = int(p[2])
            out = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n" % (
                n, info) + pattern(n, n)
            if len(p) > 3 and p[3] == "extra":
                out += b"EXTRA!" * 3000
            send_in_pieces(c, out, n)
            return True
        if p[1] == "chunked":
            n, k = int(p[2]), int(p[3])
            out = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n%s"
                   b"\r\n" % info) + chunked(pattern(n, n), k)
            send_in_pieces(c, out, n + k)
            return True
        if p[1] == "close":
            n = int(p[2])
            c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\n%s\r\n" %
                      info + pattern(n, n))
            c.shutdown(socket.SHUT_WR)
            return False
        if p[1] == "echo":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n" %
                      (len(body), info) + body)
            return True
        if p[1] == "echochunked":
            c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n%s"
                      b"\r\n" % info + chunked(body, int(p[2])))
            return True
        c.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        return True


# ---------------------------------------------------------------- checks

class Run:
    def __init__(self, a):
        self.a = a
        self.origin = Origin()
        self.target = "%s:%d" % (a.host, self.origin.port)
        self.failed = 0
        self.answered = 0

    def skip(self, name, why):
        print("skip %s: %s" % (name, why))
        sys.stdout.flush()

    def ok(self, name, good, detail=""):
        if good:
            print("ok %s" % name)
        else:
            self.failed += 1
            print("not ok %s: %s" % (name, detail))
        sys.stdout.flush()

    def connect(self):
        s = socket.create_connection(("127.0.0.1", self.a.proxy),
                                     timeout=TIMEOUT)
        return s, Reader(s)

    def req(self, method, path, body=None, chunk=0, close=False):
        h = "%s http://%s%s HTTP/1.1\r\nHost: %s\r\n" % (
            method, self.target, path, self.target)
        if close:
            h += "Connection: close\r\n"
        if body is None:
            return (h + "\r\n").encode()
        if chunk:
            return (h + "Transfer-Encoding: chunked\r\n\r\n").encode() + \
                chunked(body, chunk)
        return (h + "Content-Length: %d\r\n\r\n" % len(body)).encode() + body

    def logged(self):
        """Lines in the log that decided this origin's requests."""
        want = '"port":%d,' % self.origin.port
        with open(self.a.log, encoding="utf-8") as f:
            return sum(1 for ln in f if want in ln)

    def response(self, r, until_close=False):
        """A response, and its decision line checked to be in the log."""
        start, hdrs = read_head(r)
        body = read_body(r, hdrs, until_close)
        self.answered += 1
        return start, hdrs, body, self.logged() >= self.answered

    def seen_since(self, n):
        with self.origin.lock:
            return list(self.origin.seen[n:])

    def nseen(self):
        with self.origin.lock:
            return len(self.origin.seen)

    def check_resp(self, name, got, want_body, req_body=None):
        start, hdrs, body, logged = got
        why = []
        if not start.startswith(b"HTTP/1.1 200"):
            why.append("status %r" % start)
        if body != want_body:
            why.append("body %d bytes, want %d (%s)" % (
                len(body), len(want_body),
                "same length, other bytes" if len(body) == len(want_body)
                else "length differs"))
        if req_body is not None and (
                hdrs.get("x-req-len") != str(len(req_body)) or
                hdrs.get("x-req-sha") != sha(req_body)):
            why.append("origin read %s bytes, want %d" % (
                hdrs.get("x-req-len"), len(req_body)))
        if not logged:
            why.append("no decision line in the log when it came")
        self.ok(name, not why, "; ".join(why))

    def check_paths(self, name, since, want):
        got = [p for p, _, _ in self.seen_since(since)]
        self.ok(name, got == want, "the origin read %r, want %r" % (
            got, want))

    # ---------------------------------------------------------- cases

    SIZES = (1, 16383, 16384, 16385, 65535, 65536, 65537, 262143, 262144,
             262145, 1 << 20, (8 << 20) + 3)

    def case_cl_response(self):
        """Content-Length responses at and around every buffer's size,
        each followed on the same connection by a small one."""
        for n in self.SIZES:
            s, r = self.connect()
            s.sendall(self.req("GET", "/cl/%d" % n) +
                      self.req("GET", "/cl/5"))
            self.check_resp("response Content-Length %d" % n,
                            self.response(r), pattern(n, n))
            self.check_resp("... and the next response on the connection",
                            self.response(r), pattern(5, 5))
            s.close()

    def case_cl_request(self):
        """Content-Length request bodies, sent in varied pieces."""
        for n in self.SIZES:
            s, r = self.connect()
            body = pattern(n + 1, n)
            send_in_pieces(s, self.req("POST", "/echo", body), n)
            self.check_resp("request Content-Length %d" % n,
                            self.response(r), body, body)
            s.close()

    def case_pipelined(self):
        """A request pipelined right behind a long Content-Length body:
        decided and logged on its own, never part of the body."""
        for n in (16384, 300000, 4 << 20):
            since = self.nseen()
            body = pattern(n + 2, n)
            s, r = self.connect()
            s.sendall(self.req("POST", "/echo", body) +
                      self.req("GET", "/cl/9"))
            self.check_resp("pipelined behind a %d-byte body: the body" % n,
                            self.response(r), body, body)
            self.check_resp("... the next request answered on its own",
                            self.response(r), pattern(9, 9))
            self.check_paths("... the origin read both, in origin-form",
                             since, ["/echo", "/cl/9"])
            s.close()
        # The next request arrives while the body is under way.
        n = 2 << 20
        since = self.nseen()
        body = pattern(n + 3, n)
        s, r = self.connect()
        whole = self.req("POST", "/echo", body)
        first = len(whole) - n + (1 << 20)
        with self.origin.lock:
            self.origin.progress = 0
        s.sendall(whole[:first])
        until = time.monotonic() + TIMEOUT
        while time.monotonic() < until:
            with self.origin.lock:
                if self.origin.progress >= 512 * 1024:
                    break
            time.sleep(0.01)
        s.sendall(whole[first:] + self.req("GET", "/cl/11"))
        self.check_resp("a request sent while the body before it streams",
                        self.response(r), body, body)
        self.check_resp("... answered on its own", self.response(r),
                        pattern(11, 11))
        self.check_paths("... the origin read both, in origin-form", since,
                         ["/echo", "/cl/11"])
        s.close()

    def case_extra(self):
        """Bytes an origin sends past its Content-Length never reach the
        client, on a kept connection or at its close."""
        for n in (20000, 1 << 20):
            s, r = self.connect()
            s.sendall(self.req("GET", "/cl/%d/extra" % n))
            self.check_resp("a %d-byte response with bytes past its end" % n,
                            self.response(r), pattern(n, n))
            s.sendall(self.req("GET", "/cl/7"))
            self.check_resp("... the next response is its own",
                            self.response(r), pattern(7, 7))
            s.close()
            s, r = self.connect()
            s.sendall(self.req("GET", "/cl/%d/extra" % n, close=True))
            got = self.response(r)
            self.check_resp("the same, the client's last request",
                            got, pattern(n, n))
            tail = r.rest()
            self.ok("... and nothing after it before the close", tail == b"",
                    "%d bytes: %r" % (len(tail), tail[:40]))
            s.close()

    def case_chunked(self):
        """Chunked both ways: many small chunks, and chunks long enough to
        be spliced, at the buffers' sizes."""
        for n, k in ((200000, 7), (100000, 100), (1 << 20, 16384),
                     (1 << 20, 16385), (1 << 20, 65536),
                     ((2 << 20) + 5, 262144), (3 << 20, 1 << 20)):
            s, r = self.connect()
            s.sendall(self.req("GET", "/chunked/%d/%d" % (n, k)))
            self.check_resp("chunked response, %d bytes in chunks of %d" %
                            (n, k), self.response(r), pattern(n, n))
            body = pattern(n + k, n)
            send_in_pieces(s, self.req("POST", "/echochunked/%d" % k, body,
                                       chunk=k), k)
            self.check_resp("chunked request and its echo, chunks of %d" % k,
                            self.response(r), body, body)
            s.close()

    def case_until_close(self):
        """A response without a length: everything until the close."""
        for n in (10, 100000, 5 << 20):
            s, r = self.connect()
            s.sendall(self.req("GET", "/close/%d" % n))
            self.check_resp("a %d-byte response until the origin closes" % n,
                            self.response(r, until_close=True),
                            pattern(n, n))
            s.close()

    def case_half_close(self):
        """A client that half-closes after its request still gets all of
        the response; one that half-closes inside its body is cut off."""
        for n in (100000, 3 << 20):
            s, r = self.connect()
            body = pattern(n + 4, n)
            s.sendall(self.req("POST", "/echo", body))
            s.shutdown(socket.SHUT_WR)
            self.check_resp("half-closed after a %d-byte body" % n,
                            self.response(r), body, body)
            tail = r.rest()
            self.ok("... then closed, nothing more", tail == b"",
                    "%d bytes" % len(tail))
            s.close()
        s, r = self.connect()
        s.sendall(self.req("GET", "/cl/%d" % (4 << 20)))
        s.shutdown(socket.SHUT_WR)
        self.check_resp("half-closed after a GET: 4 MiB response whole",
                        self.response(r), pattern(4 << 20, 4 << 20))
        s.close()
        since = self.nseen()
        s, r = self.connect()
        body = pattern(5, 1 << 20)
        whole = self.req("POST", "/echo", body)
        s.sendall(whole[:len(whole) - 300000])
        s.shutdown(socket.SHUT_WR)
        s.settimeout(TIMEOUT)
        try:
            tail = r.rest()
        except OSError as e:
            tail = repr(e).encode()
        self.answered += 1      # its line: the decision, not an answer
        self.ok("half-closed inside its body: closed, nothing answered",
                tail == b"", "%r" % tail[:60])
        self.ok("... and the origin never read a whole request",
                self.seen_since(since) == [], "%r" % self.seen_since(since))
        s.close()

    def io_bytes(self):
        with open("/proc/%d/io" % self.a.pid) as f:
            v = dict(ln.split(":") for ln in f.read().splitlines())
        return int(v["rchar"]) + int(v["wchar"])

    def case_zero_copy(self):
        """Long bodies, both ways, Content-Length and chunked, go by
        splice: not through the proxy's reads and writes."""
        name = "zero copy: of those 128 MiB of bodies, under 2 MiB " \
            "through the proxy's reads and writes"
        if not self.a.pid:
            self.skip(name, "no --pid")
            return
        try:
            before = self.io_bytes()
        except (OSError, KeyError, ValueError) as e:
            self.skip(name, "/proc/PID/io: %s" % e)
            return
        n = 32 << 20
        s, r = self.connect()
        s.sendall(self.req("GET", "/cl/%d" % n))
        self.check_resp("zero copy: a 32 MiB response", self.response(r),
                        pattern(n, n))
        body = pattern(n + 6, n)
        s.sendall(self.req("POST", "/echo", body))
        self.check_resp("zero copy: a 32 MiB request and its echo",
                        self.response(r), body, body)
        s.sendall(self.req("GET", "/chunked/%d/%d" % (n, 1 << 20)))
        self.check_resp("zero copy: a 32 MiB response in 1 MiB chunks",
                        self.response(r), pattern(n, n))
        s.close()
        moved = self.io_bytes() - before
        self.ok(name, moved < (2 << 20), "%d bytes" % moved)


CASES = ("cl_response", "cl_request", "pipelined", "extra", "chunked",
         "until_close", "half_close", "zero_copy")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--proxy", type=int, required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--pid", type=int, default=0)
    ap.add_argument("--only", action="append", choices=CASES)
    a = ap.parse_args()
    run = Run(a)
    for name in a.only or CASES:
        try:
            getattr(run, "case_" + name)()
        except (OSError, EOFError, ValueError) as e:
            run.ok("case %s ran to its end" % name, False, repr(e))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
