#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""TCP clients for the portscan VM tests. Each prints one result line.

  grab HOST PORT          read the banner line, leave without a byte
  http HOST PORT          client speaks first: request, read the echo, close
  talk HOST PORT          server speaks first: banner, answer, echo, close
  bulk HOST PORT BYTES    send BYTES to an echo server, read them all back
  eof HOST PORT           send nothing, read until the server closes
  keepalive HOST PORT S   idle S seconds with 1s keepalives, then talk
  reuse HOST PORT SPORT   from source port SPORT: send a line, read to EOF
  refused HOST PORT       connect to a closed port: "refused"
  split HOST PORT SRC GOFILE [grab]
                          a connect scan's (or with grab a banner grab's)
                          flow cut in two: from address SRC connect
                          (read the banner), print "connected" ("grabbed
                          N"), then once GOFILE exists (5 minutes at
                          most) close without a byte sent: "closed"
"""
import os
import socket
import sys
import threading
import time

LINE = b"hello portscan\n"
TCP_TIME_WAIT, TCP_CLOSE = 6, 7


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def connect(host, port, sport=None, keepalive=False, src=None):
    s = socket.socket(family(host), socket.SOCK_STREAM)
    s.settimeout(20)
    if keepalive:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPINTVL, 1)
    if sport is not None:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if sport is not None or src:
        s.bind((src or "", sport or 0))
    s.connect((host, port))
    return s


def read_line(s):
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def read_all(s):
    n = 0
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return n
        n += len(chunk)


def read_n(s, want):
    n = 0
    while n < want:
        chunk = s.recv(min(65536, want - n))
        if not chunk:
            break
        n += len(chunk)
    return n


def finish(s):
    """Send our FIN and wait until the peer has acknowledged it: then every
    packet that could be classified has crossed the firewall."""
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        state = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]
        if state in (TCP_TIME_WAIT, TCP_CLOSE):
            break
        time.sleep(0.05)
    s.close()


def grab(s):
    return "grabbed %d" % len(read_line(s))


def http(s):
    req = b"GET / HTTP/1.1\r\nHost: host\r\n\r\n"
    s.sendall(req)
    return "echoed %d" % read_n(s, len(req))


def talk(s):
    banner = read_line(s)
    s.sendall(b"HELO client\n")
    return "banner %d echoed %d" % (len(banner), len(read_line(s)))


def bulk(s, nbytes):
    got = []
    reader = threading.Thread(target=lambda: got.append(read_all(s)))
    reader.start()
    block = b"x" * 65536
    sent = 0
    while sent < nbytes:
        sent += s.send(block[:nbytes - sent])
    s.shutdown(socket.SHUT_WR)
    reader.join()
    return "sent %d received %d" % (sent, got[0])


def keepalive(s, secs):
    # Idle: only keepalive probes and their ACKs cross the wire.
    s.settimeout(secs)
    try:
        s.recv(1)
        return "unexpected data while idle"
    except socket.timeout:
        pass
    s.settimeout(20)
    s.sendall(LINE)
    return "idle %gs echoed %d" % (secs, read_n(s, len(LINE)))


def reuse(s):
    s.sendall(LINE)
    return "sport %d received %d" % (s.getsockname()[1], read_all(s))


def split(host, port, src, gofile, kind):
    s = connect(host, port, src=src)
    print(grab(s) if kind == "grab" else "connected", flush=True)
    end = time.monotonic() + 300
    while not os.path.exists(gofile) and time.monotonic() < end:
        time.sleep(0.1)
    # A firewall may drop the FIN (that is the point): do not wait for it.
    s.close()
    print("closed")


def main(argv):
    cmd, host, port = argv[1], argv[2], int(argv[3])
    if cmd == "split":
        split(host, port, argv[4], argv[5], argv[6] if len(argv) > 6 else "")
        return
    if cmd == "refused":
        try:
            connect(host, port).close()
            print("connected")
        except ConnectionRefusedError:
            print("refused")
        return
    s = connect(host, port,
                sport=int(argv[4]) if cmd == "reuse" else None,
                keepalive=cmd == "keepalive")
    if cmd == "grab":
        print(grab(s))
    elif cmd == "http":
        print(http(s))
    elif cmd == "talk":
        print(talk(s))
    elif cmd == "bulk":
        print(bulk(s, int(argv[4])))
    elif cmd == "eof":
        print("received %d" % read_all(s))
    elif cmd == "keepalive":
        print(keepalive(s, float(argv[4])))
    elif cmd == "reuse":
        print(reuse(s))
    else:
        sys.exit(__doc__)
    finish(s)


if __name__ == "__main__":
    main(sys.argv)
