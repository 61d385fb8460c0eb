# SPDX-License-Identifier: Apache-2.0
"""tests/transparent.sh's helper: origins on loopback, and clients that
ignore the proxy (SPEC 6.6).

  origin DIR NAME          a TCP origin on 127.0.0.1: its port in DIR/NAME.port,
                           one line a connection in DIR/NAME.seen; a client
                           that says nothing first is greeted (a banner, as
                           SSH does), a GET gets an HTTP answer, else echo
  client HOST PORT MODE    connect as a program that ignores the proxy
                           (MODE blocking | epoll | tls:CAFILE | strict |
                           strict:RELEASE), print one line: "ok PEER
                           BANNER" or "refused ERRNO"; PORT "proxy": the
                           proxy's own (from HTTP_PROXY).  strict says
                           first what a non-blocking connect did, step by
                           step (see strict()); strict:RELEASE creates the
                           file RELEASE once it has looked (the test's DNS
                           server holds the name's answer until then)
  early HOST PORT          a non-blocking connect that writes "ping" as
                           soon as it may (TCP_NODELAY while in progress):
                           "ok PEER ECHO" or "refused ERRNO"
  holdask                  the proxy's method for a client offering the
                           broker's X'8A': "holdask FF 00"
  urllib URL               python's urllib with no proxy: the body
  udp SERVER PORT NAME HOW a DNS question for NAME (A) in one datagram to
                           SERVER:PORT, asked as HOW: connect (glibc),
                           sendto (musl), read (Go: connect, write, read),
                           sendmsg (with the address), dup (sendto on a
                           dup), stdin (sendto on a UDP socket given as
                           standard input), nonblock (select first), blocking (a
                           blocking recvfrom, SO_RCVTIMEO 10 s), timeout
                           (one that nothing answers, 1 s): "answer FROM
                           RCODE ADDR..." (FROM where the answer came
                           from, - not said), or "failed ERRNO"
  udpmany SERVER PORT NAME N  N such questions (sendto), each on a
                           socket closed after: "answered K of N"
"""
import errno
import os
import select
import socket
import ssl
import sys
import time


def origin(d, name):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    tmp = os.path.join(d, name + ".port.tmp")
    with open(tmp, "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(tmp, os.path.join(d, name + ".port"))
    while True:
        c, peer = s.accept()
        with open(os.path.join(d, name + ".seen"), "a") as f:
            f.write("%s:%d\n" % peer)
        try:
            serve_one(c)
        except OSError:
            pass
        c.close()


def serve_one(c):
    r, _, _ = select.select([c], [], [], 0.3)
    if not r:
        c.sendall(b"SSH-2.0-origin\r\n")
        data = c.recv(100)
        c.sendall(b"echo:" + data)
        return
    data = c.recv(4096)
    if data.startswith(b"GET "):
        body = b"hello from the origin\n"
        c.sendall(b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s" %
                  (len(body), body))
        return
    c.sendall(b"echo:" + data)


def connect(host, port, mode):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    if mode != "epoll":
        s.settimeout(20)
        s.connect((host, port))
        return s
    s.setblocking(False)
    rc = s.connect_ex((host, port))
    if rc == errno.EINPROGRESS:
        ep = select.epoll()
        ep.register(s.fileno(), select.EPOLLOUT)
        if not ep.poll(20):
            raise OSError(errno.ETIMEDOUT, "no answer")
        rc = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    if rc != 0:
        raise OSError(rc, os.strerror(rc))
    s.setblocking(True)
    s.settimeout(20)
    return s


def ename(n):
    return "0" if n == 0 else errno.errorcode.get(n, str(n))


def evname(ev):
    names = [w for w, bit in (("OUT", select.EPOLLOUT),
                              ("ERR", select.EPOLLERR),
                              ("HUP", select.EPOLLHUP)) if ev & bit]
    rest = ev & ~(select.EPOLLOUT | select.EPOLLERR | select.EPOLLHUP)
    if rest:
        names.append("0x%x" % rest)
    return "|".join(names) or "0"


# Within this much of the connect call, a socket not yet decided may not
# be writable; later it may be (a decision that takes longer than about
# 200 ms: the socket is then writable with SO_ERROR 0, and a refusal shows
# at the first recv or send).
STRICT_MS = 150


def strict(host, port, release):
    """A non-blocking connect as a real program's event loop makes it,
    each step said on a line of its own:

      connect ERRNO      what connect() returned (EINPROGRESS, 0, ...)
      before WHAT        an epoll set (EPOLLOUT only) asked at once, timeout
                         0, right after: not-writable, writable EVENTS,
                         unchecked MS (asked STRICT_MS or more after the
                         connect was made: then the socket may be writable
                         before the decision), or connect-returned ERRNO
                         after MS (no EINPROGRESS)
      event EVENTS so_error ERRNO   the first event within 20 s (none:
                         none), then SO_ERROR
      late MS            when that event came STRICT_MS or more after the
                         connect was made

    and the socket, or None (the last line said why not)."""
    try:
        fam, _, _, _, sa = socket.getaddrinfo(host, port, 0,
                                              socket.SOCK_STREAM)[0]
    except OSError as e:
        print("refused lookup", e)
        return None
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setblocking(False)
    t0 = time.monotonic()
    rc = s.connect_ex(sa)
    # Put in the set after connect(), as a program does (and as it must in
    # a default container, where the broker puts a socket of its own in
    # the caller's place: see broker_sock.c).
    ep = select.epoll()
    ep.register(s.fileno(), select.EPOLLOUT)
    early = ep.poll(0)
    ms = int((time.monotonic() - t0) * 1000)
    print("connect", ename(rc))
    if rc != errno.EINPROGRESS:
        print("before connect-returned %s after %d ms" % (ename(rc), ms))
    elif ms >= STRICT_MS:
        print("before unchecked %d ms" % ms)
    elif early:
        print("before writable", evname(early[0][1]))
    else:
        print("before not-writable")
    if release:
        # The test's DNS server answers the name, and the proxy decides.
        open(release, "w").close()
    if rc not in (0, errno.EINPROGRESS):
        print("refused", ename(rc))
        return None
    ev = ep.poll(20)
    ms = int((time.monotonic() - t0) * 1000)
    ep.close()
    if not ev:
        print("event none")
        print("refused ETIMEDOUT")
        return None
    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
    print("event", evname(ev[0][1]), "so_error", ename(err))
    if ms >= STRICT_MS:
        print("late", ms)
    if err != 0:
        print("refused", ename(err))
        return None
    s.setblocking(True)
    s.settimeout(20)
    return s


def client(host, port, mode):
    if mode == "strict" or mode.startswith("strict:"):
        s = strict(host, port, mode[7:])
        if s is None:
            return
        mode = "strict"
    else:
        try:
            s = connect(host, port, mode)
        except OSError as e:
            print("refused", errno.errorcode.get(e.errno, e.errno))
            return
    peer = "%s:%d" % s.getpeername()[:2]
    if mode.startswith("tls:"):
        ctx = ssl.create_default_context(cafile=mode[4:])
        t = ctx.wrap_socket(s, server_hostname="localhost")
        t.sendall(b"GET / HTTP/1.0\r\n\r\n")
        first = t.recv(200).split(b"\r\n")[0].decode()
        print("ok", peer, "tls", t.version(), first.replace(" ", "_"))
        return
    try:
        banner = s.recv(100).strip().decode()
        s.sendall(b"ping")
        echo = s.recv(100).decode()
    except OSError as e:
        if mode != "strict":
            raise
        # A refusal after the socket was writable (a late decision).
        print("refused", ename(e.errno), "at recv")
        return
    print("ok", peer, banner, echo)


def early(host, port):
    """A program that writes before its connect is done: non-blocking,
    TCP_NODELAY set while in progress (which makes the kernel send the
    byte the broker holds: the socket is then writable at once), "ping"
    sent as soon as it is writable, then what comes back after the
    origin's greeting: "ok PEER ECHO" (the origin had the ping, and only
    it: a byte before it would show, escaped) or "refused ERRNO"."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(False)
    rc = s.connect_ex((host, port))
    if rc not in (0, errno.EINPROGRESS):
        print("refused", ename(rc))
        return
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    select.select([], [s], [], 20)
    try:
        s.send(b"ping")
        s.setblocking(True)
        s.settimeout(20)
        data = b""
        while b"echo:" not in data or not data.endswith(b"ping"):
            chunk = s.recv(100)
            if not chunk:
                break
            data += chunk
        peer = "%s:%d" % s.getpeername()[:2]
    except OSError as e:
        print("refused", ename(e.errno))
        return
    # The origin greets a client that says nothing first (serve_one):
    # whether the ping came before its greeting is timing, not ours.
    if data.startswith(b"SSH-2.0-origin\r\n"):
        data = data[len(b"SSH-2.0-origin\r\n"):]
    print("ok", peer, repr(data)[2:-1])


def holdask():
    """A client of the proxy offering the broker's method X'8A' (SOCKS5):
    what the proxy chose, alone and with no-auth ("holdask FF 00")."""
    p = os.environ["HTTP_PROXY"].rsplit(":", 1)
    proxy = (p[0].split("//")[1], int(p[1]))
    got = []
    for greeting in (b"\x05\x01\x8a", b"\x05\x02\x8a\x00"):
        s = socket.create_connection(proxy, timeout=20)
        s.sendall(greeting)
        got.append("%02X" % s.recv(2)[1])
        s.close()
    print("holdask", *got)


def urllib_get(url):
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        print(opener.open(url, timeout=20).read().decode(), end="")
    except OSError as e:
        print("refused", e)


def udp_send(s, q, server, port, how):
    """Ask as HOW does; where the answer came from (None: not said)."""
    import struct
    if how in ("connect", "read", "blocking", "timeout"):
        s.connect((server, port))
    if how == "timeout":
        return None             # nothing asked: the wait runs out
    if how in ("connect", "read", "blocking"):
        s.send(q)
    elif how == "sendmsg":
        s.sendmsg([q], [], 0, (server, port))
    elif how == "stdin":
        # A real UDP socket handed in as standard input (bash's
        # 0</dev/udp/...): sending where it likes must be refused.
        s = socket.socket(s.family, socket.SOCK_DGRAM, 0, os.dup(0))
        s.settimeout(10)
        s.sendto(q, (server, port))
    elif how == "dup":
        # The same stand-in at another number: still the broker's.
        s = socket.socket(s.family, socket.SOCK_DGRAM, 0, os.dup(s.fileno()))
        s.settimeout(10)
        s.sendto(q, (server, port))
    else:
        s.sendto(q, (server, port))
    if how in ("blocking", "timeout"):
        # A blocking socket, bounded by SO_RCVTIMEO (10 s, or 1 s).
        s.settimeout(None)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                     struct.pack("ll", 10, 0))
    if how == "nonblock":
        s.setblocking(False)
        select.select([s], [], [], 10)
    return s


def udp_ask(server, port, name, how):
    import random
    import struct
    fam = socket.AF_INET6 if ":" in server else socket.AF_INET
    qid = random.randrange(65536)
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    q += b"\0" + struct.pack(">HH", 1, 1)
    try:
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.settimeout(10)
        r = udp_send(s, q, server, port, how)
        if how == "timeout":
            s.settimeout(None)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                         struct.pack("ll", 1, 0))
            s.recvfrom(2048)
        if how == "read":
            select.select([s], [], [], 10)
            a, frm = os.read(s.fileno(), 2048), s.getpeername()
        elif how == "sendmsg":
            a, frm = r.recv(2048), None
        else:
            a, frm = r.recvfrom(2048)
    except OSError as e:
        print("failed", errno.errorcode.get(e.errno, e.errno))
        return
    rid, flags, _, ancount = struct.unpack(">HHHH", a[:8])
    addrs = []
    if rid == qid and ancount:
        # One question echoed, then answers whose last 4 bytes are A's.
        addrs.append(socket.inet_ntoa(a[-4:]))
    print("answer", "%s:%d" % frm[:2] if frm else "-", flags & 0xF, *addrs)


def udp_many(server, port, name, n):
    """n questions, each on a socket of its own, closed after: how many
    were answered (the stand-ins a run leaves go as they close)."""
    import io
    import contextlib
    got = 0
    for _ in range(n):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            udp_ask(server, port, name, "sendto")
        got += out.getvalue().startswith("answer ")
    print("answered %d of %d" % (got, n))


if __name__ == "__main__":
    if sys.argv[1] == "origin":
        origin(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "urllib":
        urllib_get(sys.argv[2])
    elif sys.argv[1] == "udp":
        udp_ask(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif sys.argv[1] == "early":
        early(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "holdask":
        holdask()
    elif sys.argv[1] == "udpmany":
        udp_many(sys.argv[2], int(sys.argv[3]), sys.argv[4],
                 int(sys.argv[5]))
    else:
        port = sys.argv[3]
        if port == "proxy":
            port = os.environ["HTTP_PROXY"].rsplit(":", 1)[1]
        client(sys.argv[2], int(port), sys.argv[4])
