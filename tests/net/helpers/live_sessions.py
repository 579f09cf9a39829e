#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""SSH-like echo sessions: long-lived TCP connections, each sending a
line every INTERVAL seconds and checking that the echo comes back within
TIMEOUT seconds, for SECS seconds.

usage: live_sessions.py SECS READYFILE ADDR:PORT[,idle[=COUNT]]...
       (ADDR may be [v6])

An idle session sends only TCP keepalives (1 s apart, COUNT unanswered
end it, 3 by default) until one exchange at the end: a connection whose
every segment between is a bare ACK.

Opens every session and does one exchange on each, then writes READYFILE,
so that the caller can add its rules to connections that already exist;
the SECS start once the caller creates READYFILE.go, and end early
once it creates READYFILE.stop. Prints one line per session, "ADDR:PORT
ok N exchanges, max rtt X s" or "ADDR:PORT FAIL ...", and exits 1 if
any session failed.
"""
import os
import selectors
import socket
import sys
import time

INTERVAL = 1.0
TIMEOUT = 15.0		# generous: a loaded TCG guest stalls for seconds
SETUP_TIMEOUT = 60.0


class Session:
    def __init__(self, spec):
        addr, _, mode = spec.partition(",")
        host, port = addr.rsplit(":", 1)
        self.name = spec
        self.idle = mode.startswith("idle")
        count = int(mode.partition("=")[2] or 3)
        self.sock = socket.create_connection((host.strip("[]"), int(port)),
                                             timeout=SETUP_TIMEOUT)
        if self.idle:
            for opt, val in ((socket.TCP_KEEPIDLE, 1),
                             (socket.TCP_KEEPINTVL, 1),
                             (socket.TCP_KEEPCNT, count)):
                self.sock.setsockopt(socket.IPPROTO_TCP, opt, val)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        self.n = 0
        self.buf = b""
        self.sent_at = None
        self.next_at = 0.0
        self.max_rtt = 0.0
        self.error = None

    def send(self, now):
        self.line = b"exchange %d of %s\n" % (self.n, self.name.encode())
        self.sock.sendall(self.line)
        self.sent_at = now

    def receive(self, now):
        data = self.sock.recv(4096)
        if not data:
            self.error = "closed by peer after %d exchanges" % self.n
            return
        self.buf += data
        if len(self.buf) < len(self.line):
            return
        if self.buf != self.line:
            self.error = "bad echo %r" % self.buf
            return
        self.buf = b""
        self.max_rtt = max(self.max_rtt, now - self.sent_at)
        self.sent_at = None
        self.n += 1
        self.next_at = now + INTERVAL


def exchange_once(s):
    s.send(time.monotonic())
    while s.sent_at is not None and not s.error:
        s.receive(time.monotonic())


def main():
    secs, ready = float(sys.argv[1]), sys.argv[2]
    sessions = [Session(spec) for spec in sys.argv[3:]]
    for s in sessions:
        exchange_once(s)
        s.sock.setblocking(False)
    with open(ready, "w") as f:
        f.write("ready\n")

    sel = selectors.DefaultSelector()
    for s in sessions:
        sel.register(s.sock, selectors.EVENT_READ, s)
    end, started = float("inf"), False
    while True:
        now = time.monotonic()
        if not started and os.path.exists(ready + ".go"):
            end, started = now + secs, True
            for s in sessions:
                if s.idle:
                    s.next_at = end - 2 * INTERVAL
        if started and end > now + 2 * INTERVAL and \
                os.path.exists(ready + ".stop"):
            end = now + 2 * INTERVAL
            for s in sessions:
                if s.idle:
                    s.next_at = now
        live = [s for s in sessions if not s.error]
        if not live or (now >= end and all(s.sent_at is None for s in live)):
            break
        for s in live:
            if s.sent_at is None and now >= s.next_at and now < end and \
                    (started or not s.idle):
                try:
                    s.send(now)
                except OSError as e:
                    s.error = "send after %d exchanges: %s" % (s.n, e)
            elif s.sent_at is not None and now - s.sent_at > TIMEOUT:
                s.error = "no echo within %.0f s after %d exchanges" % (
                    TIMEOUT, s.n)
        for key, _ in sel.select(timeout=0.2):
            s = key.data
            if s.error:
                continue
            try:
                s.receive(time.monotonic())
            except OSError as e:
                s.error = "recv after %d exchanges: %s" % (s.n, e)
        for s in sessions:
            if s.error and s.sock.fileno() >= 0:
                sel.unregister(s.sock)
                s.sock.close()

    bad = 0
    for s in sessions:
        if s.error:
            bad += 1
            print("%s FAIL %s" % (s.name, s.error))
        else:
            print("%s ok %d exchanges, max rtt %.2f s" % (s.name, s.n,
                                                         s.max_rtt))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
