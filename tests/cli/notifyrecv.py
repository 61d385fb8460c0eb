#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""notifyrecv: a test's own systemd notification socket (tests/cli/notify.sh).

    python3 notifyrecv.py --socket PATH|@NAME --log FILE --bound FILE
                          [--stdout FILE]

Binds an AF_UNIX datagram socket (@NAME: abstract), writes --bound once it
is bound, then appends one line to --log per datagram: its assignments
joined by " | ".  After a datagram that says READY=1, one more line:
"PROBE connect ok (N listeners)" when every listener service mode has
announced in --stdout (its "listening on ADDR:PORT" lines) accepts a
connection at that moment, else "PROBE connect failed: WHY".  After one
with MONOTONIC_USEC=N: "MONO ok" when N is CLOCK_MONOTONIC, in
microseconds, of the last 30 s (not in our future), else "MONO bad ...".
SIGTERM exits 0.
"""
import argparse
import signal
import socket
import sys
import time


def probe(stdout):
    addrs = []
    try:
        with open(stdout) as f:
            for line in f:
                if line.startswith("harn-egressd: listening on "):
                    host, _, port = line.split()[-1].rpartition(":")
                    addrs.append((host.strip("[]"), int(port)))
    except (OSError, ValueError) as e:
        return "PROBE connect failed: no listener announced (%s)" % e
    if not addrs:
        return "PROBE connect failed: no listener announced"
    for host, port in addrs:
        try:
            with socket.create_connection((host, port), timeout=2):
                pass
        except OSError as e:
            return "PROBE connect failed: %s:%d: %s" % (host, port, e)
    return "PROBE connect ok (%d listeners)" % len(addrs)


def mono(fields):
    for f in fields:
        if f.startswith("MONOTONIC_USEC="):
            now = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
            try:
                v = int(f.split("=", 1)[1])
            except ValueError:
                return "MONO bad: not a number"
            if 0 <= now - v <= 30 * 1000000:
                return "MONO ok"
            return "MONO bad: %d us from now" % (now - v)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--bound", required=True)
    ap.add_argument("--stdout")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    addr = "\0" + a.socket[1:] if a.socket.startswith("@") else a.socket
    s.bind(addr)
    with open(a.bound, "w") as f:
        f.write("bound\n")
    with open(a.log, "a") as log:
        while True:
            data = s.recv(65536)
            fields = data.decode("utf-8", "replace").split("\n")
            lines = [" | ".join(fields)]
            if "READY=1" in fields and a.stdout:
                lines.append(probe(a.stdout))
            m = mono(fields)
            if m:
                lines.append(m)
            log.write("".join(line + "\n" for line in lines))
            log.flush()


if __name__ == "__main__":
    main()
