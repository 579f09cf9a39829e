#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""SYN flood, legitimate service and client of tests/net/flood.sh.

  synflood IFNAME DMAC SRC DST PORTS SECS
                        raw SYN frames on IFNAME to DST, round robin over
                        PORTS (comma-separated), from SRC or, if SRC is
                        "random", from random sources in 198.18.0.0/15,
                        for SECS seconds; prints "sent=N pps=N"
  udpfill IFNAME DMAC DST PORT COUNT
                        COUNT raw UDP frames on IFNAME to DST:PORT, back
                        to back, each from another random source in
                        198.18.0.0/15: COUNT conntrack entries at DST
  serve PORT            echo server on PORT (v4 and v6), one thread per
                        connection: no process start per request
  client HOST PORT      forever: connect, send a line, read it back, all
                        within 5 s; prints "START_TIME OK SECONDS" per
                        request (OK 1 or 0), one request every 0.3 s
"""
import random
import socket
import struct
import sys
import threading
import time

from pktlib import csum

LIMIT = 5.0


def echo(c):
    with c:
        c.settimeout(10)
        try:
            while True:
                d = c.recv(4096)
                if not d:
                    return
                c.sendall(d)
        except OSError:
            return


def serve(port):
    s = socket.create_server(("::", port), family=socket.AF_INET6,
                             backlog=128, dualstack_ipv6=True)
    while True:
        c, _ = s.accept()
        threading.Thread(target=echo, args=(c,), daemon=True).start()


def request(host, port):
    start = time.monotonic()
    try:
        with socket.create_connection((host, port), timeout=LIMIT) as s:
            s.settimeout(max(0.01, LIMIT - (time.monotonic() - start)))
            s.sendall(b"legit\n")
            got = b""
            while not got.endswith(b"\n"):
                d = s.recv(100)
                if not d:
                    break
                got += d
        return got == b"legit\n" and time.monotonic() - start <= LIMIT
    except OSError:
        return False


def client(host, port):
    while True:
        t = time.time()
        ok = request(host, port)
        print("%.3f %d %.3f" % (t, ok, time.time() - t), flush=True)
        time.sleep(0.3)


def syn(src, dst, sport, dport):
    tcp = struct.pack("!HHIIBBHHH", sport, dport, random.getrandbits(32), 0,
                      5 << 4, 0x02, 64240, 0, 0)
    c = csum(src + dst + struct.pack("!BBH", 0, 6, len(tcp)) + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, random.getrandbits(16),
                     0, 64, 6, 0, src, dst)
    return ip[:10] + struct.pack("!H", csum(ip)) + ip[12:] + tcp


def udp(src, dst, sport, dport):
    u = struct.pack("!HHHH", sport, dport, 8, 0)
    c = csum(src + dst + struct.pack("!BBH", 0, 17, len(u)) + u) or 0xffff
    u = u[:6] + struct.pack("!H", c)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, random.getrandbits(16),
                     0, 64, 17, 0, src, dst)
    return ip[:10] + struct.pack("!H", csum(ip)) + ip[12:] + u


def random_source(i):
    return struct.pack("!I", 0xC6120000 | i)


def frame_socket(ifname, dmac):
    """A packet socket on IFNAME and the Ethernet header to DMAC."""
    smac = open("/sys/class/net/%s/address" % ifname).read().strip()
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((ifname, 0))
    return sock, bytes.fromhex((dmac + smac).replace(":", "")) + b"\x08\x00"


def udpfill(ifname, dmac, dst, port, count):
    sock, head = frame_socket(ifname, dmac)
    d = socket.inet_aton(dst)
    for i in random.sample(range(1 << 17), count):
        sock.send(head + udp(random_source(i), d, 1024 + (i & 0x7fff), port))


def synflood(ifname, dmac, src, dst, ports, secs):
    sock, head = frame_socket(ifname, dmac)
    ports = [int(p) for p in ports.split(",")]
    d = socket.inet_aton(dst)
    frames = []
    for i in range(8192):
        s = (socket.inet_aton(src) if src != "random" else
             random_source(random.getrandbits(17)))
        frames.append(head + syn(s, d, 1024 + random.getrandbits(15) +
                                 random.getrandbits(14),
                                 ports[i % len(ports)]))
    n = 0
    start = time.monotonic()
    end = start + secs
    while time.monotonic() < end:
        for f in frames[n % 8192:n % 8192 + 256]:
            sock.send(f)
        n += 256
    print("sent=%d pps=%d" % (n, n / (time.monotonic() - start)))


def main(argv):
    if argv[1] == "synflood":
        synflood(argv[2], argv[3], argv[4], argv[5], argv[6], float(argv[7]))
    elif argv[1] == "udpfill":
        udpfill(argv[2], argv[3], argv[4], int(argv[5]), int(argv[6]))
    elif argv[1] == "serve":
        serve(int(argv[2]))
    elif argv[1] == "client":
        client(argv[2], int(argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
