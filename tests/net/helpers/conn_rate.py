#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Short-connection load of tests/bench/cost: HTTP-like GETs, one
connection each, as a web client makes them.

  serve PORT            serve PORT (v4 and v6), one connection at a time:
                        read a request up to its blank line, answer with a
                        small HTTP response, close
  get HOST PORT N       N times in a row: connect, send a GET, read the
                        answer to its end, close; prints
                        "conns/s p50_ms p99_ms failed" (failed: requests
                        not answered within 5 s)
"""
import socket
import sys
import time

LIMIT = 5.0
BODY = b"x" * 100
RESPONSE = (b"HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BODY)
            + BODY)


def serve(port):
    s = socket.create_server(("::", port), family=socket.AF_INET6,
                             backlog=128, dualstack_ipv6=True)
    while True:
        c, _ = s.accept()
        with c:
            c.settimeout(LIMIT)
            try:
                req = b""
                while b"\r\n\r\n" not in req:
                    d = c.recv(1024)
                    if not d:
                        break
                    req += d
                c.sendall(RESPONSE)
            except OSError:
                pass


def get(host, port):
    start = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=LIMIT) as s:
            s.sendall(b"GET / HTTP/1.0\r\nHost: bench\r\n\r\n")
            got = b""
            while True:
                d = s.recv(4096)
                if not d:
                    break
                got += d
        ok = got == RESPONSE
    except OSError:
        ok = False
    return ok, time.monotonic() - start


def run(host, port, n):
    lat = []
    failed = 0
    start = time.monotonic()
    for _ in range(n):
        ok, t = get(host, port)
        lat.append(t)
        failed += not ok
    total = time.monotonic() - start
    lat.sort()
    print("%.1f %.3f %.3f %d" % (n / total, 1000 * lat[n // 2],
                                 1000 * lat[min(n - 1, n * 99 // 100)],
                                 failed))


def main(argv):
    if len(argv) == 3 and argv[1] == "serve":
        serve(int(argv[2]))
    elif len(argv) == 5 and argv[1] == "get":
        run(argv[2], int(argv[3]), int(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
