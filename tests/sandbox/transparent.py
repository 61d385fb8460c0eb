# SPDX-License-Identifier: Apache-2.0
"""tests/transparent.sh's helper: origins on loopback, and clients that
ignore the proxy (SPEC 6.6).

  origin DIR NAME          a TCP origin on 127.0.0.1: its port in DIR/NAME.port,
                           one line a connection in DIR/NAME.seen; a client
                           that says nothing first is greeted (a banner, as
                           SSH does), a GET gets an HTTP answer, else echo
  client HOST PORT MODE    connect as a program that ignores the proxy
                           (MODE blocking | epoll | tls:CAFILE), print one
                           line: "ok PEER BANNER" or "refused ERRNO"; PORT
                           "proxy": the proxy's own (from HTTP_PROXY)
  urllib URL               python's urllib with no proxy: the body
  udp SERVER PORT NAME HOW a DNS question for NAME (A) in one datagram to
                           SERVER:PORT (HOW connect | sendto), as musl and
                           Go ask: "answer FROM RCODE ADDR..." (FROM where
                           the answer came from), or "failed ERRNO"
"""
import errno
import os
import select
import socket
import ssl
import sys


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


def client(host, port, mode):
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
    banner = s.recv(100).strip().decode()
    s.sendall(b"ping")
    echo = s.recv(100).decode()
    print("ok", peer, banner, echo)


def urllib_get(url):
    import urllib.request
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        print(opener.open(url, timeout=20).read().decode(), end="")
    except OSError as e:
        print("refused", e)


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
        if how == "connect":
            s.connect((server, port))
            s.send(q)
        else:
            s.sendto(q, (server, port))
        a, frm = s.recvfrom(2048)
    except OSError as e:
        print("failed", errno.errorcode.get(e.errno, e.errno))
        return
    rid, flags, _, ancount = struct.unpack(">HHHH", a[:8])
    addrs = []
    if rid == qid and ancount:
        # One question echoed, then answers whose last 4 bytes are A's.
        addrs.append(socket.inet_ntoa(a[-4:]))
    print("answer", "%s:%d" % frm[:2], flags & 0xF, *addrs)


if __name__ == "__main__":
    if sys.argv[1] == "origin":
        origin(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "urllib":
        urllib_get(sys.argv[2])
    elif sys.argv[1] == "udp":
        udp_ask(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    else:
        port = sys.argv[3]
        if port == "proxy":
            port = os.environ["HTTP_PROXY"].rsplit(":", 1)[1]
        client(sys.argv[2], int(port), sys.argv[4])
