# SPDX-License-Identifier: Apache-2.0
"""Roles for tests/sandbox/inbound.sh: a command's own loopback server, and the
processes outside the run that try to reach it (SPEC 6.5, landlock).

  inside DIR MODE [FAMILY]   the command: a server on loopback (port 0),
                             its port in DIR/port; accepts in MODE
                             (blocking, select, epoll) and writes
                             every first message it reads to DIR/got;
                             once DIR/go exists, its own clients (this
                             process and a child process) talk to it;
                             ends when they have, or after 20 s.
  outside PORT SECRET [FAMILY]  another process: connects, sends SECRET,
                             prints what happened (reset, refused, closed,
                             answered).
  reuse DIR                  the command: SO_REUSEPORT on a socket, then
                             (refused or not) a server on 127.0.0.1:0; its
                             port in DIR/port; what it reads goes to
                             DIR/got until DIR/go exists.
  service PORT DIR N SECRET  a host service started later on PORT with
                             SO_REUSEPORT, and N clients of its own, each
                             sending SECRET; prints how many it served.

Only loopback is ever used.
"""
import os
import selectors
import socket
import subprocess
import sys
import threading
import time

ADDR = {"4": (socket.AF_INET, "127.0.0.1"), "6": (socket.AF_INET6, "::1")}


def wait_path(path, secs):
    end = time.monotonic() + secs
    while not os.path.exists(path):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def record(d, data):
    with open(os.path.join(d, "got"), "a") as f:
        f.write(data.decode("ascii", "replace") + "\n")


def serve_one(d, conn):
    conn.settimeout(5)
    try:
        data = conn.recv(100)
        record(d, data)
        conn.sendall(b"echo:" + data)
    except OSError as e:
        record(d, ("error %r" % e).encode())
    conn.close()


def accept_loop(d, srv, mode, stop):
    if mode == "blocking":
        while not stop.is_set():
            conn, _ = srv.accept()
            serve_one(d, conn)
        return
    srv.setblocking(False)
    sel = selectors.EpollSelector() if mode == "epoll" else \
        selectors.SelectSelector()
    sel.register(srv, selectors.EVENT_READ)
    while not stop.is_set():
        for _ in sel.select(0.2):
            try:
                conn, _ = srv.accept()
            except BlockingIOError:
                # Only others' connections were there: reset by the
                # broker, as after a spurious wakeup.
                with open(os.path.join(d, "spurious"), "a") as f:
                    f.write("x\n")
                continue
            conn.setblocking(True)
            serve_one(d, conn)


def own_client(fam, port, tag):
    c = socket.socket(ADDR[fam][0])
    c.settimeout(5)
    c.connect((ADDR[fam][1], port))
    c.sendall(tag.encode())
    ans = c.recv(100)
    c.close()
    return ans


def inside(d, mode, fam="4"):
    srv = socket.socket(ADDR[fam][0])
    srv.bind((ADDR[fam][1], 0))
    srv.listen(64)
    port = srv.getsockname()[1]
    stop = threading.Event()
    t = threading.Thread(target=accept_loop, args=(d, srv, mode, stop),
                         daemon=True)
    t.start()
    with open(os.path.join(d, "port.tmp"), "w") as f:
        f.write(str(port))
    os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
    if not wait_path(os.path.join(d, "go"), 20):
        print("inside: no go")
        return 2
    answers = [own_client(fam, port, "OWN-1")]
    # Another process of the run, a client of its own.
    child = subprocess.run([sys.executable, "-S", __file__, "client",
                            str(port), "OWN-2", fam],
                           capture_output=True, timeout=10)
    answers.append(child.stdout.strip())
    answers.append(own_client(fam, port, "OWN-3"))
    stop.set()
    print("inside: answers", [a.decode() if isinstance(a, bytes) else a
                              for a in answers])
    sys.stdout.flush()
    return 0


def client(port, tag, fam="4"):
    print(own_client(fam, int(port), tag).decode())
    return 0


def outside(port, secret, fam="4"):
    c = socket.socket(ADDR[fam][0])
    c.settimeout(8)
    try:
        c.connect((ADDR[fam][1], int(port)))
    except ConnectionRefusedError:
        print("outside: refused")
        return 0
    except ConnectionResetError:
        # Reset before connect() had returned to us.
        print("outside: reset")
        return 0
    try:
        c.sendall(secret.encode())
        ans = c.recv(100)
    except ConnectionResetError:
        print("outside: reset")
        return 0
    except socket.timeout:
        print("outside: no answer")
        return 0
    print("outside: answered %r" % ans if ans else "outside: closed")
    return 0


def reuse(d):
    srv = socket.socket()
    try:
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        print("reuse: SO_REUSEPORT set")
    except OSError as e:
        print("reuse: SO_REUSEPORT refused errno %d" % e.errno)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    srv.settimeout(0.2)
    with open(os.path.join(d, "port.tmp"), "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(os.path.join(d, "port.tmp"), os.path.join(d, "port"))
    sys.stdout.flush()
    end = time.monotonic() + 20
    while not os.path.exists(os.path.join(d, "go")) and \
            time.monotonic() < end:
        try:
            conn, _ = srv.accept()
        except (socket.timeout, BlockingIOError):
            continue
        serve_one(d, conn)
    return 0


def service(port, d, n, secret):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        srv.bind(("127.0.0.1", int(port)))
    except OSError as e:
        print("service: bind errno %d" % e.errno)
        return 0
    srv.listen(64)
    served = [0]

    def loop():
        while True:
            conn, _ = srv.accept()
            served[0] += 1
            serve_one(d + "/service", conn)

    os.makedirs(d + "/service", exist_ok=True)
    threading.Thread(target=loop, daemon=True).start()
    for i in range(int(n)):
        c = socket.socket()
        c.settimeout(5)
        try:
            c.connect(("127.0.0.1", int(port)))
            c.sendall(("%s-%d" % (secret, i)).encode())
            c.recv(100)
        except OSError:
            pass
        c.close()
    print("service: served %d of %s" % (served[0], n))
    return 0


if __name__ == "__main__":
    role, args = sys.argv[1], sys.argv[2:]
    sys.exit({"inside": inside, "outside": outside, "client": client,
              "reuse": reuse, "service": service}[role](*args))
