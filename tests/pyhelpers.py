#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""pyhelpers: servers and clients for the proxy integration tests (tests/proxy/*.sh).

    python3 tests/pyhelpers.py SUBCOMMAND [options]

Servers (run in the background; each writes its port to --port-file
atomically once listening; SIGTERM exits 0):

    origin    HTTP/1.1 origin (keep-alive).  GET / answers "hello from
              origin\\n"; every request is appended to --log as one JSON
              object {"method", "path", "headers": [[name, value]...],
              "body_len", "peer": the client's port}.  /closeafter is
              answered, then the connection closed (/closelater: 150 ms
              after); /extra sends a second, unasked response in the
              same write as its own; after /dropnext the
              next request on that connection is read ("dropped": true)
              and the connection closed unanswered.
    tlsorigin the same over TLS (--cert, --key).
    parseorigin
              an origin with an HTTP/1.1 parser of its own, one
              connection at a time: --mode strict (RFC 9112: lines end at
              CRLF; a bare CR or LF, or a chunk line that is not
              size[;ext], ends the connection with a 400) or lenient (as
              node's insecureHTTPParser: a line ends at a bare CR or LF
              too, a chunk size is its leading hex digits).  Each request
              head it reads is one JSON line in --log: method and path.
    canary    TCP listener that appends one line to --log per connection
              ("connect PEER") and closes it.
    xferd     byte-exact transfer peer: the client sends an 8-byte
              big-endian count N, then its payload, then half-closes; the
              server sends 8-byte N and N random bytes while it reads, then,
              once both are done, sha256(received) and sha256(sent), and
              closes.

Clients (bounded by --timeout; exit 0 when the exchange went as asked):

    raw       send REQ strings (Python escapes: \\r \\n \\x00) on one
              connection, one response read for each, print a summary.
    socks5    SOCKS5 exchange; prints "method .." and "reply .." in hex.
    xfer      a multi-megabyte two-way transfer with xferd through
              CONNECT or SOCKS5; compares both digests.
    hold      open N CONNECT tunnels and keep them open.
    urllib    GET URL through the proxy with urllib's ProxyHandler.
    logburst  many requests, each to a host of its own, then the proxy
              SIGKILLed (--kill) or its log file deleted (--delete-after):
              every answered request must have its log line, unless its
              answer was a log_unavailable refusal.
    logcheck  validate a decision log (SPEC 5) and compare its records.
    originhdr print the headers the origin saw for a path.
    freeport  print a TCP port on 127.0.0.1 that nobody listens on.
"""

import argparse
import codecs
import errno
import hashlib
import json
import os
import re
import signal
import socket
import struct
import sys
import threading
import time


def write_port(path, port):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="ascii") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def on_signal(signum, frame):
    os._exit(0)


def append_line(path, line):
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def unescape(s):
    return codecs.escape_decode(s.encode("utf-8"))[0]


# ---------------------------------------------------------------- servers

ORIGIN_BODY = b"hello from origin\n"
TLS_BODY = b"hello over tls\n"


def make_handler(logpath, body):
    import http.server
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "testorigin"
        sys_version = ""

        def log_message(self, fmt, *args):
            pass

        def handle_any(self):
            data = b""
            if "chunked" in (self.headers.get("Transfer-Encoding") or ""):
                while True:
                    ln = self.rfile.readline(1000)
                    try:
                        n = int(ln.split(b";")[0].strip() or b"0", 16)
                    except ValueError:
                        # Whatever follows is read as the next request, so
                        # a proxy that passed it on is caught smuggling.
                        break
                    if n == 0:
                        while self.rfile.readline(1000) not in (b"\r\n",
                                                                b"\n", b""):
                            pass
                        break
                    data += self.rfile.read(n)
                    self.rfile.readline(10)
            else:
                n = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(n) if n else b""
            rec = {"method": self.command, "path": self.path,
                   "headers": [[k, v] for k, v in self.headers.items()],
                   "body_len": len(data), "peer": self.client_address[1]}
            if getattr(self, "drop_next", False):
                # Read, then closed unanswered: a kept connection that
                # the origin gave up just as the request came.
                rec["dropped"] = True
                with lock:
                    append_line(logpath, json.dumps(rec))
                self.close_connection = True
                return
            with lock:
                append_line(logpath, json.dumps(rec))
            if self.path.startswith("/dropnext"):
                self.drop_next = True
            if self.path.startswith("/closeafter"):
                # Answered as kept alive, then closed: an idle timeout.
                self.close_connection = True
            if self.path.startswith("/closelater"):
                # The same, 150 ms after the response.
                self.close_later = True
            out = body
            if self.path.startswith("/size/"):
                out = b"x" * int(self.path[6:])
            if self.path == "/noclen":
                # Close-delimited body, no Content-Length.
                self.close_connection = True
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(b"close-delimited body\n")
                return
            if self.path == "/chunkedresp":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for part in (b"chunked ", b"response", b" body\n"):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.write(b"0\r\n\r\n")
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            if self.path.startswith("/extra"):
                # A second response nobody asked for, on a connection kept
                # open, sent with the first (one write: on the wire before
                # the client can ask again): it must never answer the
                # client's next request.
                out += (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n"
                        b"\r\nsmuggled!\n")
            if self.command != "HEAD":
                self.wfile.write(out)
            if getattr(self, "close_later", False):
                self.wfile.flush()
                time.sleep(0.15)
                self.close_connection = True

        do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = handle_any

    return Handler


def Server(addr, handler):
    import http.server

    class S(http.server.ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True
        # socketserver's default backlog of 5 drops SYNs when the proxy
        # connects 100 clients at once; a retransmitted SYN (1 s, then
        # 3 s) can outlast connect_timeout.  Origins have real backlogs.
        request_queue_size = 128
        address_family = socket.AF_INET6 if ":" in addr[0] else \
            socket.AF_INET

    return S(addr, handler)


def cmd_origin(a):
    srv = Server((a.bind, a.port), make_handler(a.log, ORIGIN_BODY))
    write_port(a.port_file, srv.server_address[1])
    srv.serve_forever()


def cmd_tlsorigin(a):
    import ssl
    srv = Server((a.bind, a.port), make_handler(a.log, TLS_BODY))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                 do_handshake_on_connect=False)

    # Handshake in the handler thread, not in accept().
    orig = srv.finish_request

    def finish_request(request, client_address):
        request.settimeout(10)
        try:
            request.do_handshake()
        except OSError:
            return
        orig(request, client_address)

    srv.finish_request = finish_request
    write_port(a.port_file, srv.server_address[1])
    srv.serve_forever()


def listen(bind, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((bind, port))
    s.listen(128)
    return s


def cmd_canary(a):
    s = listen(a.bind, a.port)
    write_port(a.port_file, s.getsockname()[1])
    # The log exists (empty) once listening.
    open(a.log, "a").close()
    while True:
        c, peer = s.accept()
        append_line(a.log, "connect %s:%d" % peer)
        c.close()


def cmd_rawresp(a):
    """An origin that answers every request with the same raw bytes."""
    s = listen(a.bind, a.port)
    write_port(a.port_file, s.getsockname()[1])
    resp = unescape(a.response)
    while True:
        c, _ = s.accept()
        c.settimeout(2.0)
        data = b""
        try:
            while b"\r\n\r\n" not in data and b"\n\n" not in data:
                b = c.recv(4096)
                if not b:
                    break
                data += b
            c.sendall(resp)
        except OSError:
            pass
        if a.log:
            append_line(a.log, json.dumps({"got": data.decode("latin-1")}))
        c.close()


class ParseError(Exception):
    pass


class LineReader:
    """Lines and bytes from a socket, lines ended as --mode says."""

    def __init__(self, sock, lenient):
        self.sock = sock
        self.lenient = lenient
        self.buf = b""

    def fill(self):
        d = self.sock.recv(65536)
        if not d:
            raise EOFError()
        self.buf += d

    def line(self):
        while True:
            if self.lenient:
                m = re.search(rb"\r\n|\r|\n", self.buf)
                # A CR at the end may be the start of a CRLF.
                if m and not (m.group() == b"\r" and
                              m.end() == len(self.buf)):
                    ln, self.buf = self.buf[:m.start()], self.buf[m.end():]
                    return ln
            else:
                i = self.buf.find(b"\r\n")
                head = self.buf[:i] if i >= 0 else self.buf[:-1]
                if b"\r" in head or b"\n" in head or \
                        (i < 0 and self.buf.endswith(b"\n")):
                    raise ParseError("bare CR or LF")
                if i >= 0:
                    ln, self.buf = self.buf[:i], self.buf[i + 2:]
                    return ln
            if len(self.buf) > 65536:
                raise ParseError("line too long")
            self.fill()

    def take(self, n):
        while len(self.buf) < n:
            self.fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


CHUNK_LINE_RE = re.compile(
    rb"[0-9A-Fa-f]+([ \t]*;[ \t]*[-!#$%&'*+.^_`|~0-9A-Za-z]+"
    rb"([ \t]*=[ \t]*([-!#$%&'*+.^_`|~0-9A-Za-z]+|"
    rb"\"([^\"\\\x00-\x08\x0a-\x1f\x7f]|\\[^\x00-\x08\x0a-\x1f\x7f])*\"))?)*")


def parse_chunked(r, lenient):
    while True:
        ln = r.line()
        if lenient:
            m = re.match(rb"[0-9A-Fa-f]+", ln)
        else:
            m = CHUNK_LINE_RE.fullmatch(ln)
        if not m:
            raise ParseError("chunk line %r" % ln[:60])
        n = int(re.match(rb"[0-9A-Fa-f]+", ln).group(), 16)
        if n == 0:
            while r.line() != b"":
                pass
            return
        r.take(n)
        if r.line() != b"":
            raise ParseError("no CRLF after a chunk")


def parseorigin_conn(c, lenient, log):
    r = LineReader(c, lenient)
    try:
        while True:
            ln = r.line()
            while ln == b"":
                ln = r.line()
            parts = ln.split(b" ")
            if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
                raise ParseError("request line %r" % ln[:60])
            hdrs = {}
            while True:
                h = r.line()
                if h == b"":
                    break
                k, _, v = h.partition(b":")
                hdrs[k.strip().lower()] = v.strip()
            append_line(log, json.dumps(
                {"method": parts[0].decode("latin-1"),
                 "path": parts[1].decode("latin-1")}))
            if b"chunked" in hdrs.get(b"transfer-encoding", b"").lower():
                parse_chunked(r, lenient)
            elif hdrs.get(b"content-length"):
                r.take(int(hdrs[b"content-length"]))
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
            if hdrs.get(b"connection", b"").lower() == b"close":
                return
    except ParseError:
        try:
            c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n"
                      b"Connection: close\r\n\r\n")
        except OSError:
            pass
    except (EOFError, OSError, ValueError):
        pass


def cmd_parseorigin(a):
    s = listen(a.bind, a.port)
    write_port(a.port_file, s.getsockname()[1])
    open(a.log, "a").close()
    while True:
        c, _ = s.accept()
        c.settimeout(3.0)
        parseorigin_conn(c, a.mode == "lenient", a.log)
        c.close()


def cmd_tarpit(a):
    """A listener whose accept queue is full: connects to it time out."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((a.bind, a.port))
    s.listen(0)
    port = s.getsockname()[1]
    fill = []
    for _ in range(4):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect((a.bind, port))
        except BlockingIOError:
            pass
        fill.append(c)
    time.sleep(0.3)
    write_port(a.port_file, port)
    while True:
        time.sleep(3600)


def recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        d = sock.recv(n - len(buf))
        if not d:
            raise EOFError("EOF after %d of %d bytes" % (len(buf), n))
        buf += d
    return buf


def xferd_conn(c):
    try:
        c.settimeout(30)
        n = struct.unpack("!Q", recv_exact(c, 8))[0]
        tx = hashlib.sha256()

        def sender():
            c.sendall(struct.pack("!Q", n))
            left = n
            while left:
                chunk = os.urandom(min(left, 65536))
                tx.update(chunk)
                c.sendall(chunk)
                left -= len(chunk)

        t = threading.Thread(target=sender, daemon=True)
        t.start()
        rx = hashlib.sha256()
        while True:
            d = c.recv(65536)
            if not d:
                break
            rx.update(d)
        t.join()
        c.sendall(rx.digest() + tx.digest())
    except (OSError, EOFError, struct.error):
        pass
    finally:
        c.close()


def cmd_xferd(a):
    s = listen(a.bind, a.port)
    write_port(a.port_file, s.getsockname()[1])
    while True:
        c, _ = s.accept()
        threading.Thread(target=xferd_conn, args=(c,), daemon=True).start()


# ---------------------------------------------------------------- clients

def connect_proxy(a):
    s = socket.create_connection(("127.0.0.1", a.proxy), timeout=a.timeout)
    s.settimeout(a.timeout)
    return s


class Reader:
    """Buffered reads from a socket, with a deadline."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.eof = False

    def fill(self):
        if self.eof:
            return False
        try:
            d = self.sock.recv(65536)
        except ConnectionResetError:
            d = b""
            self.reset = True
        if not d:
            self.eof = True
            return False
        self.buf += d
        return True

    def until(self, sep):
        while sep not in self.buf:
            if not self.fill():
                return None
        i = self.buf.index(sep) + len(sep)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def take(self, n):
        while len(self.buf) < n:
            if not self.fill():
                break
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        while self.fill():
            pass
        out, self.buf = self.buf, b""
        return out


def read_response(r, is_connect, is_head=False):
    """Return (status line, [(name, value)], body, error)."""
    head = r.until(b"\r\n\r\n")
    if head is None:
        return None, [], r.rest(), "no complete response head"
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0]
    hdrs = []
    for ln in lines[1:]:
        if not ln:
            continue
        k, _, v = ln.partition(":")
        hdrs.append((k.strip(), v.strip()))
    hd = {k.lower(): v for k, v in hdrs}
    code = status.split(" ")[1] if len(status.split(" ")) > 1 else ""
    if is_connect and code.startswith("2"):
        return status, hdrs, b"", None
    if is_head or code in ("204", "304"):
        return status, hdrs, b"", None
    if "content-length" in hd:
        n = int(hd["content-length"])
        body = r.take(n)
        return status, hdrs, body, None if len(body) == n else "short body"
    if "chunked" in hd.get("transfer-encoding", "").lower():
        body = b""
        while True:
            ln = r.until(b"\r\n")
            if ln is None:
                return status, hdrs, body, "bad chunk"
            n = int(ln.split(b";")[0].strip(), 16)
            if n == 0:
                r.until(b"\r\n")
                break
            body += r.take(n)
            r.take(2)
        return status, hdrs, body, None
    return status, hdrs, r.rest(), None


def cmd_raw(a):
    """Send each REQ in turn, reading one response for each."""
    t0 = time.monotonic()
    try:
        s = connect_proxy(a)
    except OSError as e:
        print("error connect: %s" % e)
        return 1
    r = Reader(s)
    rc = 0
    if a.pipeline:
        try:
            s.sendall(b"".join(unescape(q) for q in a.req))
        except OSError as e:
            print("error send: %s" % e)
    for i, req in enumerate(a.req):
        data = unescape(req)
        if i > 0 and a.hup:
            os.kill(a.hup, signal.SIGHUP)
            time.sleep(0.5)
        if i > 0 and a.gap:
            time.sleep(a.gap)
        try:
            if not a.pipeline:
                s.sendall(data)
            if a.shut and i == 0:
                s.shutdown(socket.SHUT_WR)
            status, hdrs, body, err = read_response(
                r, data.startswith(b"CONNECT"), data.startswith(b"HEAD"))
        except socket.timeout:
            status, hdrs, body, err = None, [], b"", "timeout"
        except OSError as e:
            status, hdrs, body, err = None, [], b"", "os error: %s" % e
        print("--- response %d" % (i + 1))
        print("elapsed %.3f" % (time.monotonic() - t0))
        if status is None:
            print("status none")
            print("error %s" % err)
            rc = 1
            break
        print("statusline %s" % status)
        print("status %s" % (status.split(" ")[1] if " " in status else "?"))
        for k, v in hdrs:
            print("header %s: %s" % (k.lower(), v))
        print("body %s" % body.decode("latin-1").replace("\n", "\\n"))
        if err:
            print("error %s" % err)
        hd = {k.lower(): v.lower() for k, v in hdrs}
        closing = "close" in hd.get("connection", "")
        last = i == len(a.req) - 1
        if closing or (last and a.close_wait > 0):
            s.settimeout(max(a.close_wait, 2.0) if closing else a.close_wait)
            try:
                more = r.rest()
                print("closed yes")
                if more:
                    print("trailing %r" % more[:200])
            except socket.timeout:
                print("closed no")
            except OSError:
                print("closed yes")
            s.settimeout(a.timeout)
        if closing and not last:
            print("--- stopped: connection closed by the proxy")
            rc = 1
            break
    s.close()
    return rc


def hexs(b):
    return " ".join("%02x" % x for x in b)


def socks5_request(cmd, atyp, host, port, rawreq=None):
    if rawreq is not None:
        return bytes.fromhex(rawreq)
    if atyp == 1:
        addr = socket.inet_pton(socket.AF_INET, host)
    elif atyp == 4:
        addr = socket.inet_pton(socket.AF_INET6, host)
    elif atyp == 3:
        h = unescape(host)
        addr = bytes([len(h)]) + h
    else:
        addr = b"\x7f\x00\x00\x01"
    return bytes([5, cmd, 0, atyp]) + addr + struct.pack("!H", port)


def read_socks_reply(s):
    head = recv_exact(s, 4)
    atyp = head[3]
    if atyp == 1:
        rest = recv_exact(s, 6)
    elif atyp == 4:
        rest = recv_exact(s, 18)
    elif atyp == 3:
        n = recv_exact(s, 1)
        rest = n + recv_exact(s, n[0] + 2)
    else:
        rest = b""
    return head + rest


def socks5_connect(a, host, port, atyp=3):
    """Greeting + CONNECT; returns the socket or raises."""
    s = connect_proxy(a)
    s.sendall(b"\x05\x01\x00")
    m = recv_exact(s, 2)
    if m != b"\x05\x00":
        raise OSError("socks5 method reply %s" % hexs(m))
    s.sendall(socks5_request(1, atyp, host, port))
    rep = read_socks_reply(s)
    if rep[1] != 0:
        raise OSError("socks5 reply %s" % hexs(rep))
    return s


def cmd_socks5(a):
    try:
        s = connect_proxy(a)
    except OSError as e:
        print("error connect: %s" % e)
        return 1
    try:
        methods = bytes.fromhex(a.methods)
        greeting = bytes([5, len(methods)]) + methods
        req = socks5_request(a.socks_cmd, a.atyp, a.host, a.dport, a.rawreq)
        get = b""
        if a.http is not None:
            host = a.hosthdr or a.host
            get = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\n"
                   "Connection: close\r\n\r\n"
                   % (a.http, host, a.dport)).encode()
        # --pipeline: everything in one write, as a client that does not
        # wait for the method reply would send it.
        s.sendall(greeting + req + get if a.pipeline else greeting)
        try:
            m = recv_exact(s, 2)
        except EOFError:
            print("method closed")
            return 1
        print("method %s" % hexs(m))
        if m != b"\x05\x00":
            try:
                more = s.recv(100)
                print("closed yes" if not more else "trailing %s" % hexs(more))
            except socket.timeout:
                print("closed no")
            except OSError:
                print("closed yes")
            return 0
        if not a.pipeline:
            s.sendall(req)
        try:
            rep = read_socks_reply(s)
        except EOFError as e:
            print("reply closed (%s)" % e)
            return 1
        print("reply %s" % hexs(rep))
        if rep[1] != 0:
            try:
                more = s.recv(100)
                print("closed yes" if not more else "trailing %s" % hexs(more))
            except socket.timeout:
                print("closed no")
            except OSError:
                print("closed yes")
            return 0
        if a.http is not None:
            if not a.pipeline:
                s.sendall(get)
            status, hdrs, body, err = read_response(Reader(s), False)
            print("statusline %s" % status)
            print("body %s" % body.decode("latin-1").replace("\n", "\\n"))
        return 0
    except socket.timeout:
        print("error timeout")
        return 1
    except OSError as e:
        print("error %s" % e)
        return 1
    finally:
        s.close()


def open_tunnel(a, early=b""):
    """A tunnel to a.host:a.port through CONNECT or SOCKS5."""
    if a.via == "socks5":
        s = socks5_connect(a, a.host, a.port,
                           1 if re.match(r"^[0-9.]+$", a.host) else 3)
        if early:
            s.sendall(early)
        return s, b""
    s = connect_proxy(a)
    target = "%s:%d" % (a.host, a.port)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
               % (target, target)).encode() + early)
    r = Reader(s)
    head = r.until(b"\r\n\r\n")
    if head is None or not re.match(rb"HTTP/1\.[01] 200", head):
        raise OSError("CONNECT refused: %r" % (head or r.buf)[:200])
    return s, r.buf


def cmd_xfer(a):
    up = os.urandom(a.up)
    header = struct.pack("!Q", a.down)
    t0 = time.monotonic()
    try:
        early = header + up[:4096] if a.early else b""
        s, extra = open_tunnel(a, early)
    except (OSError, EOFError) as e:
        print("FAIL tunnel: %s" % e)
        return 1
    s.settimeout(a.timeout)
    if a.ready:
        append_line(a.ready, "ready")
    sent = 4096 if a.early else 0
    errors = []

    def sender():
        try:
            if not a.early:
                s.sendall(header)
            half = len(up) // 2
            s.sendall(up[sent:max(half, sent)])
            if a.pause:
                time.sleep(a.pause)
            s.sendall(up[max(half, sent):])
            s.shutdown(socket.SHUT_WR)
        except OSError as e:
            errors.append("send: %s" % e)

    t = threading.Thread(target=sender, daemon=True)
    t.start()
    got = bytearray(extra)
    try:
        while True:
            d = s.recv(262144)
            if not d:
                break
            got += d
    except OSError as e:
        errors.append("recv: %s" % e)
    t.join(a.timeout)
    s.close()
    el = time.monotonic() - t0
    if errors:
        print("FAIL %s (got %d bytes, %.2fs)" % ("; ".join(errors),
                                                len(got), el))
        return 1
    if len(got) < 8 + 64:
        print("FAIL short reply: %d bytes (%.2fs)" % (len(got), el))
        return 1
    n = struct.unpack("!Q", bytes(got[:8]))[0]
    body = bytes(got[8:-64])
    rx, tx = bytes(got[-64:-32]), bytes(got[-32:])
    problems = []
    if n != a.down or len(body) != n:
        problems.append("down length %d, announced %d, want %d"
                        % (len(body), n, a.down))
    if hashlib.sha256(body).digest() != tx:
        problems.append("down sha256 differs")
    if hashlib.sha256(up).digest() != rx:
        problems.append("up sha256 differs (server saw other bytes)")
    if problems:
        print("FAIL %s (%.2fs)" % ("; ".join(problems), el))
        return 1
    print("ok up=%d down=%d sha256 match (%.2fs)" % (a.up, a.down, el))
    return 0


def cmd_trickle(a):
    """Send HEAD at once, then one byte of 'x' every --interval seconds,
    until a response arrives or --seconds pass; print when it came."""
    s = connect_proxy(a)
    s.setblocking(False)
    t0 = time.monotonic()
    s.sendall(unescape(a.head))
    got = b""
    nxt = t0
    while time.monotonic() - t0 < a.seconds:
        now = time.monotonic()
        if now >= nxt:
            try:
                s.send(b"x")
            except OSError:
                pass
            nxt = now + a.interval
        try:
            d = s.recv(4096)
            if not d:
                break
            got += d
            if b"\r\n\r\n" in got:
                break
        except BlockingIOError:
            time.sleep(0.01)
        except OSError:
            break
    el = time.monotonic() - t0
    line = got.split(b"\r\n", 1)[0].decode("latin-1")
    print("elapsed %.3f" % el)
    print("statusline %s" % line)
    print("status %s" % (line.split(" ")[1] if " " in line else "none"))
    return 0


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1])
    return -1


def cmd_slowread(a):
    """Ask for --size bytes (HTTP GET of /size/N, or a CONNECT tunnel to
    xferd), read nothing for --sleep seconds, report the proxy's RSS
    growth, then read it all and check the length."""
    before = rss_kb(a.pid)
    if a.via == "http":
        s = connect_proxy(a)
        s.sendall(("GET http://%s:%d/size/%d HTTP/1.1\r\nHost: %s:%d\r\n"
                   "Connection: close\r\n\r\n" % (a.host, a.port, a.size,
                                                    a.host, a.port)).encode())
        extra = b""
    else:
        s, extra = open_tunnel(a, struct.pack("!Q", a.size))
        s.shutdown(socket.SHUT_WR)
    time.sleep(a.sleep)
    during = rss_kb(a.pid)
    s.settimeout(a.timeout)
    n = len(extra)
    try:
        while True:
            d = s.recv(1 << 20)
            if not d:
                break
            n += len(d)
    except OSError as e:
        print("error %s after %d bytes" % (e, n))
    growth = during - before
    print("rss before %d kB, while stalled %d kB, growth %d kB; got %d bytes"
          % (before, during, growth, n))
    if n < a.size:
        print("FAIL short: %d < %d" % (n, a.size))
        return 1
    if growth > a.max_growth_kb:
        print("FAIL buffered %d kB > %d kB" % (growth, a.max_growth_kb))
        return 1
    return 0


def cmd_burst(a):
    """--n concurrent GETs through the proxy; print how many got 200."""
    results = []
    lock = threading.Lock()

    def one(i):
        code = "err"
        try:
            s = connect_proxy(a)
            s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close"
                       "\r\n\r\n" % (a.url, a.url.split("/")[2])).encode())
            status, hdrs, body, err = read_response(Reader(s), False)
            code = status.split(" ")[1] if status else "none"
            if code == "200" and body != ORIGIN_BODY:
                code = "badbody"
            s.close()
        except OSError as e:
            code = "oserror"
        with lock:
            results.append(code)

    ts = [threading.Thread(target=one, args=(i,)) for i in range(a.n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(a.timeout + 5)
    ok = results.count("200")
    print("%d of %d ok; others: %s" % (ok, a.n, sorted(
        set(r for r in results if r != "200"))))
    return 0 if ok == a.n else 1


def cmd_churn(a):
    """--n threads, each a new connection a request for --seconds; counts.

    The request is kept alive and the client closes after the response, so
    the proxy learns of each close only by reading its EOF (the race).
    """
    counts = {}
    lock = threading.Lock()
    stop = time.monotonic() + a.seconds

    def one():
        while time.monotonic() < stop:
            code = "err"
            try:
                s = connect_proxy(a)
                s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
                           (a.url, a.url.split("/")[2])).encode())
                status, hdrs, body, err = read_response(Reader(s), False)
                code = status.split(" ")[1] if status else "none"
                s.close()
            except OSError:
                code = "oserror"
            with lock:
                counts[code] = counts.get(code, 0) + 1

    ts = [threading.Thread(target=one) for _ in range(a.n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(a.seconds + a.timeout + 5)
    print(" ".join("%s=%d" % kv for kv in sorted(counts.items())))
    return 0


def cmd_swap(a):
    """Hold --n kept-alive clients; while the proxy is stopped (SIGSTOP
    --pid), close --swap of them and open as many new ones, each sending
    a request; then let it go on.  Prints the new clients' statuses."""
    host = a.url.split("/")[2]
    req = ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (a.url, host)).encode()
    held = []
    for _ in range(a.n):
        s = connect_proxy(a)
        s.sendall(req)
        status, _, _, err = read_response(Reader(s), False)
        if status is None or " 200 " not in status + " ":
            print("setup: %s %s" % (status, err))
            return 1
        held.append(s)
    os.kill(a.pid, signal.SIGSTOP)
    try:
        fresh = []
        for s in held[:a.swap]:
            s.close()
            n = socket.create_connection(("127.0.0.1", a.proxy))
            n.settimeout(a.timeout)
            n.sendall(req)
            fresh.append(n)
    finally:
        os.kill(a.pid, signal.SIGCONT)
    counts = {}
    for n in fresh:
        status, _, _, err = read_response(Reader(n), False)
        code = status.split(" ")[1] if status else "none"
        counts[code] = counts.get(code, 0) + 1
    print(" ".join("%s=%d" % kv for kv in sorted(counts.items())))
    return 0


def cmd_drain(a):
    """SIGTERM --pid with clients in every state; prints one line each:
    idle: what a kept-alive client between requests saw (eof in N ms)
    fresh: the status and reason a request sent after SIGTERM on a
      connection accepted before got
    loop: how many responses a client looping requests got after SIGTERM,
      and whether the last said Connection: close
    http, socks: what a request still connecting saw (status or reply)
      and when, in ms after SIGTERM."""
    host = a.url.split("/")[2]
    req = ("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (a.url, host)).encode()
    idle = connect_proxy(a)
    idle.sendall(req)
    r = Reader(idle)
    status, _, _, err = read_response(r, False)
    if status is None or " 200 " not in status + " ":
        print("setup idle: %s %s" % (status, err))
        return 1
    fresh = connect_proxy(a)
    pend = connect_proxy(a)
    pend.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" %
                  (a.pending, a.pending)).encode())
    ph, pp = a.pending.rsplit(":", 1)
    sp = connect_proxy(a)
    sp.sendall(b"\x05\x01\x00")
    if recv_exact(sp, 2) != b"\x05\x00":
        print("setup socks: no method")
        return 1
    sp.sendall(socks5_request(1, 1, ph, int(pp)))
    term = [None]
    after = [0, "", "?"]

    def looper():
        try:
            s = connect_proxy(a)
            rd = Reader(s)
            while True:
                s.sendall(req)
                st, hdrs, _, err = read_response(rd, False)
                if st is None:
                    after[2] = "eof" if rd.eof and not rd.buf else err
                    return
                if term[0] is not None:
                    after[0] += 1
                    after[1] = dict((k.lower(), v) for k, v in
                                    hdrs).get("connection", "")
        except socket.timeout:
            after[2] = "timeout"
        except OSError as e:
            after[2] = "eof" if e.errno in (errno.EPIPE, errno.ECONNRESET) \
                else str(e)

    lt = threading.Thread(target=looper)
    lt.start()
    time.sleep(0.5)
    t0 = time.monotonic()
    term[0] = t0
    os.kill(a.pid, signal.SIGTERM)

    def ms():
        return int((time.monotonic() - t0) * 1000)

    idle.settimeout(a.timeout)
    try:
        d = idle.recv(100)
        print("idle: %s in %d ms" % ("eof" if not d else "bytes", ms()))
    except OSError as e:
        print("idle: %s in %d ms" % (e.__class__.__name__, ms()))
    time.sleep(0.2)
    try:
        fresh.sendall(req)
        st, hdrs, _, err = read_response(Reader(fresh), False)
        why = dict((k.lower(), v) for k, v in hdrs).get("x-harn-egress-reason")
        print("fresh: %s %s" % (st.split(" ")[1] if st else err, why))
    except OSError as e:
        print("fresh: %s" % e.__class__.__name__)
    lt.join(a.timeout)
    print("loop: %d after, last connection %s, then %s" %
          (after[0], after[1] or "-", after[2]))
    st, hdrs, _, err = read_response(Reader(pend), True)
    why = dict((k.lower(), v) for k, v in hdrs).get("x-harn-egress-reason")
    print("http: %s %s at %d ms" % (st.split(" ")[1] if st else err, why,
                                     ms()))
    try:
        rep = read_socks_reply(sp)
        print("socks: %s at %d ms" % (hexs(rep[:2]), ms()))
    except (OSError, EOFError) as e:
        print("socks: %s at %d ms" % (e, ms()))
    return 0


def cmd_abort(a):
    """Send REQ and close the connection after --after seconds."""
    s = connect_proxy(a)
    s.sendall(unescape(a.req))
    time.sleep(a.after)
    if a.rst:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     struct.pack("ii", 1, 0))
    s.close()
    return 0


def cmd_hold(a):
    socks = []
    for i in range(a.n):
        s = connect_proxy(a)
        s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
                   % (a.target, a.target)).encode())
        head = Reader(s).until(b"\r\n\r\n")
        if head is None or not re.match(rb"HTTP/1\.[01] 200", head):
            append_line(a.ready, "fail %r" % head)
            return 1
        socks.append(s)
    append_line(a.ready, "ready %d" % len(socks))
    time.sleep(a.seconds)
    return 0


def cmd_urllib(a):
    import urllib.error
    import urllib.request
    for k in ("no_proxy", "NO_PROXY"):
        os.environ.pop(k, None)
    ph = urllib.request.ProxyHandler(
        {"http": "http://127.0.0.1:%d" % a.proxy,
         "https": "http://127.0.0.1:%d" % a.proxy})
    opener = urllib.request.build_opener(ph)
    try:
        with opener.open(a.url, timeout=a.timeout) as resp:
            sys.stdout.buffer.write(resp.read())
        return 0
    except urllib.error.HTTPError as e:
        print("HTTPError %d %s" % (e.code, e.headers.get(
            "X-Harn-Egress-Reason")))
        return 1
    except OSError as e:
        print("error %s" % e)
        return 1


TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
PROTOCOLS = {"http", "http_connect", "socks5"}
REASONS = {"allow_rule", "default_allow", "deny_rule", "no_allow_rule",
           "private_address", "metadata_address", "dns_failure",
           "invalid_target", "invalid_request", "unsupported_command",
           "proxy_loop", "connect_failed", "connect_timeout",
           "limit_exceeded", "log_unavailable", "shutting_down"}


ADDR_REASONS = {"private_address", "metadata_address", "proxy_loop",
                "connect_failed", "connect_timeout"}
MAYBE_ADDR_REASONS = {"deny_rule", "no_allow_rule"}


CLOSE_KEYS = {"ts", "event", "conn", "protocol", "host", "port",
              "bytes_out", "bytes_in", "ms"}


def is_count(v, least=0):
    return isinstance(v, int) and not isinstance(v, bool) and v >= least


def check_close(o):
    """Problems with one close line (SPEC 5: an allowed connection's end)."""
    p = []
    keys = set(o) - {"run", "pid"}
    if keys != CLOSE_KEYS:
        p.append("close keys %s, want %s" % (sorted(keys), sorted(CLOSE_KEYS)))
    if o.get("event") != "close":
        p.append("bad event %r" % o.get("event"))
    if not isinstance(o.get("ts"), str) or not TS_RE.match(o.get("ts", "")):
        p.append("bad ts %r" % o.get("ts"))
    if o.get("protocol") not in ("http", "http_connect", "socks5",
                                 "transparent"):
        p.append("bad close protocol %r" % o.get("protocol"))
    if not isinstance(o.get("host"), str):
        p.append("bad host %r" % o.get("host"))
    if not is_count(o.get("port"), 1) or o.get("port") > 65535:
        p.append("bad port %r" % o.get("port"))
    if not is_count(o.get("conn"), 1):
        p.append("bad conn %r" % o.get("conn"))
    for k in ("bytes_out", "bytes_in", "ms"):
        if not is_count(o.get(k)):
            p.append("bad %s %r" % (k, o.get(k)))
    return p


def check_record(line):
    """Problems with one decision-log line (SPEC 5); [] when fine."""
    dups = []

    def pairs(kv):
        seen = set()
        for k, _ in kv:
            if k in seen:
                dups.append(k)
            seen.add(k)
        return dict(kv)

    try:
        o = json.loads(line, object_pairs_hook=pairs)
    except ValueError as e:
        return None, ["not JSON (%s)" % e]
    p = ["duplicate key %r" % k for k in dups]
    if not isinstance(o, dict):
        return None, ["not an object"]
    if "event" in o:
        return o, p + check_close(o)
    keys = set(o)
    want = {"ts", "protocol", "host", "port", "decision", "reason"}
    # conn: every allowed connection's number, on allow lines only.
    if o.get("decision") == "allow":
        want.add("conn")
        if not is_count(o.get("conn"), 1):
            p.append("bad conn %r" % o.get("conn"))
    # addr: the address connected (allow), or judged (a deny decided on
    # an address); never for a deny decided before any address.
    if o.get("decision") == "allow" or o.get("reason") in ADDR_REASONS:
        want.add("addr")
    elif "addr" in keys and o.get("reason") in MAYBE_ADDR_REASONS:
        want.add("addr")
    if keys != want:
        p.append("keys %s, want %s" % (sorted(keys), sorted(want)))
    if not isinstance(o.get("ts"), str) or not TS_RE.match(o.get("ts", "")):
        p.append("bad ts %r" % o.get("ts"))
    if o.get("protocol") not in PROTOCOLS:
        p.append("bad protocol %r" % o.get("protocol"))
    if not isinstance(o.get("host"), str):
        p.append("bad host %r" % o.get("host"))
    port = o.get("port")
    if not isinstance(port, int) or isinstance(port, bool) or \
            not 0 <= port <= 65535:
        p.append("bad port %r" % port)
    if o.get("decision") not in ("allow", "deny"):
        p.append("bad decision %r" % o.get("decision"))
    if o.get("reason") not in REASONS:
        p.append("bad reason %r" % o.get("reason"))
    if "addr" in want:
        try:
            socket.inet_pton(socket.AF_INET6 if ":" in str(o.get("addr"))
                             else socket.AF_INET, o.get("addr"))
        except (OSError, TypeError):
            p.append("bad addr %r" % o.get("addr"))
    return o, p


def burst_one(a, i):
    """Request i of logburst: (host, answered, log_unavailable)."""
    kind = i % 5
    deny = "d%d.deny.test" % i
    allow = "a%d.%s" % (i, a.allow_domain)
    s = connect_proxy(a)
    r = Reader(s)
    try:
        if kind in (1, 4):
            host, port = (deny, 80) if kind == 1 else (allow, a.port)
            s.sendall(b"\x05\x01\x00" + socks5_request(1, 3, host, port))
            got = r.take(12)
            if len(got) < 4:
                return host, False, False
            return host, True, got[3] == 1
        if kind == 2:
            host = allow
            s.sendall(("CONNECT %s:%d HTTP/1.1\r\n\r\n" % (host, a.port))
                      .encode())
        else:
            host = deny if kind == 0 else allow
            port = ":%d" % a.port if kind == 3 else ""
            s.sendall(("GET http://%s%s/b HTTP/1.1\r\nHost: %s%s\r\n"
                       "Connection: close\r\n\r\n"
                       % (host, port, host, port)).encode())
        head = r.until(b"\r\n\r\n")
        if head is None:
            return host, False, False
        return host, True, head.startswith(b"HTTP/1.1 503") and \
            b"log_unavailable" in head
    finally:
        s.close()


def proc_gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def cmd_logburst(a):
    held = open(a.log, "rb") if a.delete_after else None
    lock = threading.Lock()
    answers = []
    state = {"next": 0, "stop": False, "errors": 0, "deleted": -1}

    def worker():
        while True:
            with lock:
                # With --kill, more than n are under way when the n-th
                # answer comes: the proxy dies in the midst of the burst.
                if state["stop"] or state["next"] >= a.n + (
                        a.n // 10 + a.c if a.kill else 0):
                    return
                i = state["next"]
                state["next"] += 1
            try:
                res = burst_one(a, i)
            except OSError:
                with lock:
                    state["errors"] += 1
                continue
            with lock:
                if not res[1]:
                    continue
                answers.append(res)
                if len(answers) == a.delete_after:
                    os.unlink(a.log)
                    state["deleted"] = len(answers)
                if a.kill and len(answers) == a.n:
                    # The answer is in; the proxy dies at once.
                    os.kill(a.kill, signal.SIGKILL)
                    state["stop"] = True

    ts = [threading.Thread(target=worker) for _ in range(a.c)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    elapsed = time.monotonic() - t0
    for pid in (a.kill, a.reader):
        n = 0
        while pid and not proc_gone(pid) and n < 100:
            time.sleep(0.1)
            n += 1
    if held is not None:
        data = held.read()
    else:
        with open(a.log, "rb") as f:
            data = f.read()
    hosts = set()
    torn = 0
    for ln in data.split(b"\n"):
        if not ln.startswith(b"{"):
            continue
        try:
            hosts.add(json.loads(ln)["host"])
        except (ValueError, KeyError):
            torn += 1
    unavailable = sum(1 for _, _, u in answers if u)
    missing = [h for h, _, u in answers if not u and h not in hosts]
    print("answered %d in %.2f s (%d log_unavailable, %d errors), "
          "lines %d, answered without a line %d%s"
          % (len(answers), elapsed, unavailable, state["errors"],
             len(hosts), len(missing),
             ": " + " ".join(missing[:5]) if missing else ""))
    if torn:
        print("torn lines: %d" % torn)
    bad = missing or torn
    if a.kill and len(answers) < a.n:
        print("the burst did not reach %d answers" % a.n)
        bad = True
    if a.delete_after and not unavailable:
        print("no request was refused log_unavailable after the delete")
        bad = True
    return 1 if bad else 0


def cmd_logcheck(a):
    try:
        with open(a.file, "rb") as f:
            raw = f.read()
    except OSError as e:
        print("cannot read log: %s" % e)
        return 1
    bad = 0
    if raw and not raw.endswith(b"\n"):
        print("log does not end with a newline")
        bad += 1
    blines = raw.split(b"\n")
    if blines and blines[-1] == b"":
        blines.pop()
    lines = []
    for i, bl in enumerate(blines, 1):
        try:
            lines.append(bl.decode("utf-8"))
        except UnicodeDecodeError:
            bad += 1
            print("line %d: not UTF-8: %r" % (i, bl[:300]))
            lines.append(bl.decode("utf-8", "replace"))
    # Decisions are compared with --expect and --count; close lines are
    # checked against the allow lines before them, each conn closed once.
    recs, dlines, opened, closes = [], [], {}, 0
    for i, ln in enumerate(lines, 1):
        o, p = check_record(ln)
        if o is not None and "event" in o:
            closes += 1
            first = opened.pop(o.get("conn"), None)
            if first is None:
                p.append("close of conn %r, not open" % o.get("conn"))
            elif (first["protocol"], first["host"], first["port"]) != (
                    o.get("protocol"), o.get("host"), o.get("port")):
                p.append("close of conn %r names another target"
                         % o.get("conn"))
        elif o is not None and o.get("decision") == "allow":
            opened.setdefault(o.get("conn"), o)
        if p:
            bad += 1
            print("line %d: %s: %s" % (i, "; ".join(p), ln[:300]))
        if o is None or "event" not in o:
            recs.append(o)
            dlines.append(ln)
    lines = dlines
    if a.expect:
        if len(recs) != len(a.expect):
            bad += 1
            print("%d records, want %d" % (len(recs), len(a.expect)))
        for i, spec in enumerate(a.expect):
            want = spec.split("|")
            if i >= len(recs):
                print("record %d missing, want %s" % (i + 1, spec))
                continue
            o = recs[i] or {}
            fields = ["protocol", "host", "port", "decision", "reason",
                      "addr"]
            got = [o.get("protocol"), o.get("host"), o.get("port"),
                   o.get("decision"), o.get("reason"), o.get("addr")]
            for f, w, g in zip(fields, want, got):
                alts = w.split(",")
                gs = "" if g is None else str(g)
                if w != "*" and gs not in alts:
                    bad += 1
                    print("record %d: %s %r, want %s  (%s)"
                          % (i + 1, f, g, w, lines[i][:300]))
    if a.count is not None and len(recs) != a.count:
        bad += 1
        print("%d records, want %d" % (len(recs), a.count))
    print("%d records, %d close lines, %d unclosed, %d problems"
          % (len(recs), closes, len(opened), bad))
    return 1 if bad else 0


def cmd_originhdr(a):
    """Headers of the last request the origin saw for PATH."""
    last = None
    try:
        with open(a.log, encoding="utf-8") as f:
            for ln in f:
                o = json.loads(ln)
                if o["path"] == a.path:
                    last = o
    except OSError:
        pass
    if last is None:
        print("no request for %s" % a.path)
        return 1
    for k, v in last["headers"]:
        print("%s: %s" % (k.lower(), v))
    return 0


def cmd_freeport(a):
    s = socket.socket()
    s.bind((a.bind, 0))
    print(s.getsockname()[1])
    s.close()
    return 0


def main():
    signal.signal(signal.SIGTERM, on_signal)
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)

    def server(name, fn):
        p = sub.add_parser(name)
        p.add_argument("--bind", default="127.0.0.1")
        p.add_argument("--port", type=int, default=0)
        p.add_argument("--port-file", required=True)
        p.add_argument("--log")
        p.set_defaults(fn=fn)
        return p

    server("origin", cmd_origin)
    p = server("rawresp", cmd_rawresp)
    p.add_argument("--response", required=True)
    p = server("tlsorigin", cmd_tlsorigin)
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    server("canary", cmd_canary)
    p = server("parseorigin", cmd_parseorigin)
    p.add_argument("--mode", choices=["strict", "lenient"], required=True)
    server("xferd", cmd_xferd)
    server("tarpit", cmd_tarpit)

    def client(name, fn):
        p = sub.add_parser(name)
        p.add_argument("--proxy", type=int, required=True)
        p.add_argument("--timeout", type=float, default=5.0)
        p.set_defaults(fn=fn)
        return p

    p = client("raw", cmd_raw)
    p.add_argument("--close-wait", type=float, default=0.0)
    p.add_argument("--gap", type=float, default=0.0)
    p.add_argument("--hup", type=int, default=0,
                   help="SIGHUP this pid before each request after the first")
    p.add_argument("--pipeline", action="store_true",
                   help="send every REQ at once, then read the responses")
    p.add_argument("--shut", action="store_true",
                   help="half-close after sending")
    p.add_argument("req", nargs="+")
    p = client("socks5", cmd_socks5)
    p.add_argument("--methods", default="00")
    p.add_argument("--cmd", type=int, default=1, dest="socks_cmd")
    p.add_argument("--atyp", type=int, default=3)
    p.add_argument("--host", default="")
    p.add_argument("--dport", type=int, default=80)
    p.add_argument("--rawreq")
    p.add_argument("--http")
    p.add_argument("--hosthdr")
    p.add_argument("--pipeline", action="store_true",
                   help="greeting, request and GET in one write")
    p.set_defaults(fn=cmd_socks5)
    p = client("xfer", cmd_xfer)
    p.add_argument("--via", choices=["connect", "socks5"], default="connect")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--up", type=int, default=1 << 20)
    p.add_argument("--down", type=int, default=1 << 20)
    p.add_argument("--early", action="store_true")
    p.add_argument("--pause", type=float, default=0.0)
    p.add_argument("--ready")
    p = client("trickle", cmd_trickle)
    p.add_argument("--head", required=True)
    p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--seconds", type=float, default=4.0)
    p = client("slowread", cmd_slowread)
    p.add_argument("--via", choices=["http", "connect"], default="http")
    p.add_argument("--host", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--sleep", type=float, default=2.0)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--max-growth-kb", type=int, default=16384)
    p = client("burst", cmd_burst)
    p.add_argument("--n", type=int, default=50)
    p.add_argument("url")
    p = client("churn", cmd_churn)
    p.add_argument("--n", type=int, default=50)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("url")
    p = client("swap", cmd_swap)
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--swap", type=int, default=50)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("url")
    p = client("drain", cmd_drain)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--pending", required=True, help="HOST:PORT that hangs")
    p.add_argument("url")
    p = client("abort", cmd_abort)
    p.add_argument("--after", type=float, default=0.1)
    p.add_argument("--rst", action="store_true")
    p.add_argument("req")
    p = client("hold", cmd_hold)
    p.add_argument("--n", type=int, default=1)
    p.add_argument("--target", required=True)
    p.add_argument("--ready", required=True)
    p.add_argument("--seconds", type=float, default=10.0)
    p = client("urllib", cmd_urllib)
    p.add_argument("url")
    p = client("logburst", cmd_logburst)
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--c", type=int, default=16)
    p.add_argument("--port", type=int, required=True,
                   help="the origin's port, for the allowed requests")
    p.add_argument("--allow-domain", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--kill", type=int, default=0,
                   help="SIGKILL this pid as the n-th answer arrives")
    p.add_argument("--reader", type=int, default=0,
                   help="wait for this pid (the log's reader) to end")
    p.add_argument("--delete-after", type=int, default=0)
    p = sub.add_parser("logcheck")
    p.add_argument("file")
    p.add_argument("--expect", action="append", default=[],
                   help="protocol|host|port|decision|reason|addr, '*' any,"
                   " ',' alternatives, empty addr: absent")
    p.add_argument("--count", type=int)
    p.set_defaults(fn=cmd_logcheck)
    p = sub.add_parser("originhdr")
    p.add_argument("log")
    p.add_argument("path")
    p.set_defaults(fn=cmd_originhdr)
    p = sub.add_parser("freeport")
    p.add_argument("--bind", default="127.0.0.1")
    p.set_defaults(fn=cmd_freeport)
    a = ap.parse_args()
    return a.fn(a) or 0


if __name__ == "__main__":
    sys.exit(main())
