#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""dnsd: a tiny authoritative DNS responder for integration tests.

    python3 tests/dnsd.py --zone FILE --port-file PORTFILE [--log QUERYLOG]

Listens on UDP and TCP, same port, on 127.0.0.1 (--bind to change) with a
port the kernel picks, then writes that port to PORTFILE (atomically: the
file appears complete or not at all).  Standard library only.

Zone file, one record a line, names case-insensitive, '#' starts a comment:

    www.example.test    A         192.0.2.10
    www.example.test    AAAA      2001:db8::10
    gone.example.test   NXDOMAIN
    broken.example.test SERVFAIL
    slow.example.test   DROP              (never answered)
    bare.example.test   NODATA            (exists, no records)
    nope.example.test   REFUSED
    late.example.test   DELAY     400     (answered after 400 ms, over UDP)
    held.example.test   HOLD      /path   (answered, over UDP, once /path
                                           exists, or after 2 s)
    *.many.test         A         127.0.0.1   (every name below many.test)

A name with only A records answers AAAA questions with NOERROR and no
records (NODATA), and the other way round.  Unknown names get NXDOMAIN.
The file is re-read whenever it changes, so a test can rebind a name mid
test; replace it atomically (write a temporary file, then rename it).

Every question is appended to QUERYLOG as "name TYPE" (lower case name, no
trailing dot; TYPE is A, AAAA, or the type's name or number), flushed at
once, so a test can check exactly what was asked, or that nothing was.

SIGTERM or SIGINT: exit 0.
"""

import argparse
import errno
import ipaddress
import os
import selectors
import signal
import socket
import struct
import sys
import time

RCODES = {"NOERROR": 0, "SERVFAIL": 2, "NXDOMAIN": 3, "REFUSED": 5}
TYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX",
         16: "TXT", 28: "AAAA", 33: "SRV", 64: "SVCB", 65: "HTTPS",
         255: "ANY"}
T_A, T_AAAA = 1, 28
UDP_MAX = 512          # we never speak EDNS; larger answers are truncated
HOLD_MAX_S = 2         # a HOLD's answer goes after this long in any case
                       # (before a resolver's retry: c-ares, harn-egressd's,
                       # asks again after 2.5 s)


class ZoneError(Exception):
    pass


def norm(name):
    return name.strip().rstrip(".").lower()


def parse_zone(text):
    """Return {name: {"rcode": int|None, "drop": bool, 1: [...], 28: [...]}}."""
    zone = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) < 2:
            raise ZoneError("line %d: expected NAME TYPE [VALUE]" % lineno)
        name, kind = norm(fields[0]), fields[1].upper()
        e = zone.setdefault(name, {"rcode": None, "drop": False,
                                   "delay": 0, "hold": None,
                                   T_A: [], T_AAAA: []})
        if kind in ("A", "AAAA"):
            if len(fields) != 3:
                raise ZoneError("line %d: %s needs one address"
                                % (lineno, kind))
            try:
                if kind == "A":
                    e[T_A].append(ipaddress.IPv4Address(fields[2]).packed)
                else:
                    e[T_AAAA].append(ipaddress.IPv6Address(fields[2]).packed)
            except ValueError:
                raise ZoneError("line %d: bad %s address %r"
                                % (lineno, kind, fields[2]))
        elif kind in ("NXDOMAIN", "SERVFAIL", "REFUSED"):
            e["rcode"] = RCODES[kind]
        elif kind == "DROP":
            e["drop"] = True
        elif kind == "DELAY":
            if len(fields) != 3 or not fields[2].isdigit():
                raise ZoneError("line %d: DELAY needs milliseconds" % lineno)
            e["delay"] = int(fields[2])
        elif kind == "HOLD":
            if len(fields) != 3:
                raise ZoneError("line %d: HOLD needs a path" % lineno)
            e["hold"] = fields[2]
        elif kind == "NODATA":
            pass
        else:
            raise ZoneError("line %d: unknown type %r" % (lineno, fields[1]))
        if kind not in ("A", "AAAA", "DELAY", "HOLD") and len(fields) > 2:
            raise ZoneError("line %d: trailing fields" % lineno)
    return zone


class Zone:
    """The zone file, re-read when its identity, size or mtime changes."""

    def __init__(self, path):
        self.path = path
        self.key = None         # the version loaded, or found bad
        self.records = {}
        self.refresh(strict=True)

    def refresh(self, strict=False):
        key = None
        try:
            st = os.stat(self.path)
            key = (st.st_ino, st.st_size, st.st_mtime_ns)
            if key == self.key:
                return
            with open(self.path, encoding="utf-8") as f:
                records = parse_zone(f.read())
        except (OSError, ZoneError, UnicodeDecodeError) as exc:
            if strict:
                raise
            # Keep answering from the last good zone; complain once.
            if key != self.key:
                print("dnsd: zone %s: %s" % (self.path, exc),
                      file=sys.stderr, flush=True)
            self.key = key
            return
        self.key, self.records = key, records


def parse_query(msg):
    """Return (qid, flags, name, qtype, question bytes) or None."""
    if len(msg) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    if flags & 0x8000 or qd != 1:
        return None
    off, labels = 12, []
    while True:
        if off >= len(msg):
            return None
        n = msg[off]
        off += 1
        if n == 0:
            break
        if n > 63 or off + n > len(msg):
            return None
        labels.append(msg[off:off + n].decode("ascii", "replace"))
        off += n
    if off + 4 > len(msg):
        return None
    qtype = struct.unpack("!H", msg[off:off + 2])[0]
    return qid, flags, norm(".".join(labels)), qtype, msg[12:off + 4]


class Server:
    def __init__(self, zone, log):
        self.zone = zone
        self.log = log

    def record(self, name, qtype):
        if self.log is None:
            return
        self.log.write("%s %s\n" % (name or ".", TYPES.get(qtype, str(qtype))))
        self.log.flush()

    def lookup(self, name):
        """The entry of name: its own, or the nearest wildcard's."""
        e = self.zone.records.get(name)
        labels = name.split(".")
        for i in range(1, len(labels)):
            if e is not None:
                break
            e = self.zone.records.get("*." + ".".join(labels[i:]))
        return e

    def delay(self, msg):
        """Seconds to hold the answer to msg back (DELAY), 0 for none."""
        q = parse_query(msg)
        e = self.lookup(q[2]) if q is not None else None
        return e["delay"] / 1000.0 if e is not None else 0

    def hold(self, msg):
        """The path msg's answer waits for (HOLD), or None."""
        q = parse_query(msg)
        e = self.lookup(q[2]) if q is not None else None
        return e["hold"] if e is not None else None

    def answer(self, msg, udp):
        """The reply to one query, or None to stay silent."""
        q = parse_query(msg)
        if q is None:
            return None
        qid, flags, name, qtype, question = q
        self.record(name, qtype)
        self.zone.refresh()
        e = self.lookup(name)
        rcode, rrs = RCODES["NXDOMAIN"], []
        if e is not None:
            if e["drop"]:
                return None
            if e["rcode"] is not None:
                rcode = e["rcode"]
            else:
                rcode = RCODES["NOERROR"]
                rrs = e.get(qtype, []) if qtype in (T_A, T_AAAA) else []
        # QR, opcode 0, AA, RD echoed, RA.
        rflags = 0x8400 | (flags & 0x0100) | 0x0080 | rcode
        body = b"".join(struct.pack("!HHHIH", 0xC00C, qtype, 1, 60, len(rd))
                        + rd for rd in rrs)
        reply = (struct.pack("!HHHHHH", qid, rflags, 1, len(rrs), 0, 0)
                 + question + body)
        if udp and len(reply) > UDP_MAX:
            # TC: the client asks again over TCP.
            reply = (struct.pack("!HHHHHH", qid, rflags | 0x0200, 1, 0, 0, 0)
                     + question)
        return reply


def bind_pair(addr):
    """UDP and TCP sockets on one kernel-chosen port."""
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    for _ in range(100):
        udp = socket.socket(family, socket.SOCK_DGRAM)
        udp.bind((addr, 0))
        port = udp.getsockname()[1]
        tcp = socket.socket(family, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            tcp.bind((addr, port))
        except OSError as exc:
            udp.close()
            tcp.close()
            if exc.errno == errno.EADDRINUSE:
                continue
            raise
        tcp.listen(64)
        return udp, tcp, port
    raise OSError("no port free for both UDP and TCP")


def write_port(path, port):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w", encoding="ascii") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def serve(server, udp, tcp):
    sel = selectors.DefaultSelector()
    udp.setblocking(False)
    tcp.setblocking(False)
    sel.register(udp, selectors.EVENT_READ, "udp")
    sel.register(tcp, selectors.EVENT_READ, "listen")
    buffers = {}
    later = []      # (when, reply, peer): DELAYed UDP answers
    held = []       # (path, until, reply, peer): HELD UDP answers

    def close(conn):
        sel.unregister(conn)
        buffers.pop(conn, None)
        conn.close()

    while True:
        now = time.monotonic()
        for item in [x for x in later if x[0] <= now]:
            later.remove(item)
            try:
                udp.sendto(item[1], item[2])
            except OSError:
                pass
        # A held answer goes once its path exists (looked for every 5 ms
        # while one waits: no file notification in the standard library),
        # or HOLD_MAX_S after it was asked, so that nothing waits for good.
        for item in [x for x in held
                     if x[1] <= now or os.path.exists(x[0])]:
            held.remove(item)
            try:
                udp.sendto(item[2], item[3])
            except OSError:
                pass
        wait = min(x[0] for x in later) - now if later else None
        if held:
            wait = min(wait, 0.005) if wait is not None else 0.005
        for key, _ in sel.select(max(wait, 0) if wait is not None else None):
            sock, what = key.fileobj, key.data
            if what == "udp":
                try:
                    msg, peer = sock.recvfrom(65535)
                except (BlockingIOError, InterruptedError):
                    continue
                reply = server.answer(msg, udp=True)
                hold = server.delay(msg)
                path = server.hold(msg)
                if reply is not None and path is not None and \
                        not os.path.exists(path):
                    held.append((path, time.monotonic() + HOLD_MAX_S, reply,
                                 peer))
                elif reply is not None and hold > 0:
                    later.append((time.monotonic() + hold, reply, peer))
                elif reply is not None:
                    try:
                        sock.sendto(reply, peer)
                    except OSError:
                        pass
            elif what == "listen":
                try:
                    conn, _ = sock.accept()
                except (BlockingIOError, InterruptedError):
                    continue
                # Readable per the selector; replies are small, so a
                # short blocking send is simpler than write buffering.
                conn.settimeout(2)
                buffers[conn] = b""
                sel.register(conn, selectors.EVENT_READ, "tcp")
            else:
                try:
                    data = sock.recv(65535)
                except OSError:
                    data = b""
                if not data:
                    close(sock)
                    continue
                buf = buffers[sock] + data
                while len(buf) >= 2:
                    n = struct.unpack("!H", buf[:2])[0]
                    if len(buf) < 2 + n:
                        break
                    msg, buf = buf[2:2 + n], buf[2 + n:]
                    reply = server.answer(msg, udp=False)
                    if reply is None:
                        continue
                    try:
                        sock.sendall(struct.pack("!H", len(reply)) + reply)
                    except OSError:
                        break
                buffers[sock] = buf


def on_signal(signum, frame):
    raise SystemExit(0)


def main():
    ap = argparse.ArgumentParser(description="test DNS responder")
    ap.add_argument("--zone", required=True, help="zone file")
    ap.add_argument("--port-file", required=True,
                    help="where to write the port once listening")
    ap.add_argument("--log", help="append each question here")
    ap.add_argument("--bind", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1)")
    args = ap.parse_args()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        zone = Zone(args.zone)
    except (OSError, ZoneError, UnicodeDecodeError) as exc:
        print("dnsd: zone %s: %s" % (args.zone, exc), file=sys.stderr)
        return 2
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    udp, tcp, port = bind_pair(args.bind)
    write_port(args.port_file, port)
    try:
        serve(Server(zone, log), udp, tcp)
    finally:
        udp.close()
        tcp.close()
        if log is not None:
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
