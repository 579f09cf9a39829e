#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Segments and datagrams from any source address (spoofed or not), and
the answers they get, for the reply-core tests: raw sockets, no scapy
(it starts and sends too slowly for a flood of handshakes). Answers are
read on eth0 (AF_PACKET), so a source need not be an address of ours,
only routed back to us.

  syn SRC DST DPORT SPORT [FLAGS]
        send a SYN (FLAGS as tcpdump's, default S; SF: SYN|FIN), print
        the answer "FLAGS NXT ACK" (NXT our next sequence, ACK the
        answer's sequence + 1) or "none"
  tsval SRC DST DPORT SPORT
        send a SYN that offers timestamps, print the answer's TSval or
        "None"
  probe SRC DST DPORT SPORT NXT ACK
        send a keepalive of the flow (sequence NXT - 1, acking ACK), print
        "answered" or "silent"
  greet SRC DST DPORT SPORT COUNT
        handshake, then its ACK COUNT times, each awaited 2 s: "answered N
        of COUNT" (a greeting service answers the first only)
  idents SRC DST DPORT SPORT GOFILE
        handshake, a keepalive, then (once GOFILE exists, 5 minutes at
        most) another: the IPv4 ID or IPv6 flow label of each answer,
        "ID ID" ("none" for a missing one)
  expire SRC DST DPORT SPORT SECS
        handshake, then a keepalive every 0.25 s until one goes
        unanswered: "expired after N.Ns" or "valid for SECS s"
  hold SRC DST DPORT SPORT COUNT EVERY
        handshake, then COUNT keepalives, EVERY s apart: "answered N of
        COUNT"
  flood DST DPORT SECS PPS SRC...
        a handshake from each SRC, then keepalives from them in turn, PPS
        a second for SECS: "flooding" once they start, then "cookies N of
        M, sent N, answered N"
  halfopen SRC DST DPORT SPORT GOFILE
        a half-open scan's flow cut in two: a SYN, its answer printed as
        syn prints it, then (once GOFILE exists, 5 minutes at most) the
        RST that ends the flow, "reset". Its segments carry the packet
        mark 1 (SO_MARK), so that a rule can drop the kernel's own RST to
        the SYN/ACK: -m mark ! --mark 1
  frames MAC DST TCPPORTS UDPPORTS COUNT SRC...
        from each SRC (a source port each) to DST, COUNT rounds 0.3 s
        apart of a SYN to each of TCPPORTS and a datagram to each of
        UDPPORTS (comma lists, may be empty), in Ethernet frames to MAC
        out of eth0: any source, any destination in a unicast frame.
        Prints "sent N"
  send tcp|udp SRC DST DPORT SPORT COUNT GAP [bad] [FLAGS]
        COUNT segments (flags FLAGS, default S) or datagrams, GAP s apart,
        with a wrong checksum if "bad"
"""
import os
import random
import select
import socket
import struct
import sys
import time

from pktlib import csum

ETH_P_ALL = 3
SO_MARK = getattr(socket, "SO_MARK", 36)
PACKET_OUTGOING = 4
FLAGS = "FSRPAU"


def v6(addr):
    return ":" in addr


def flags_bits(s):
    return sum(1 << FLAGS.index(c) for c in s if c != ".") | \
        (0x10 if "." in s else 0)


def flags_str(b):
    s = "".join(c for i, c in enumerate(FLAGS) if b & (1 << i) and c != "A")
    return s + "." if b & 0x10 else s


def pseudo(src, dst, proto, length):
    if v6(src):
        return (socket.inet_pton(socket.AF_INET6, src) +
                socket.inet_pton(socket.AF_INET6, dst) +
                struct.pack("!IxxxB", length, proto))
    return (socket.inet_aton(src) + socket.inet_aton(dst) +
            struct.pack("!xBH", proto, length))


def ip_packet(src, dst, proto, l4):
    if v6(src):
        return struct.pack("!IHBB", 6 << 28, len(l4), proto, 64) + \
            socket.inet_pton(socket.AF_INET6, src) + \
            socket.inet_pton(socket.AF_INET6, dst) + l4
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4),
                      random.getrandbits(16), 0x4000, 64, proto, 0,
                      socket.inet_aton(src), socket.inet_aton(dst))
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + l4


def tcp(src, dst, sport, dport, seq, ack, flags, data=b"", bad=False,
        opts=b""):
    th = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xffffffff,
                     ack & 0xffffffff, (5 + len(opts) // 4) << 4, flags,
                     65535, 0, 0) + opts + data
    c = csum(pseudo(src, dst, 6, len(th)) + th) ^ (0x5555 if bad else 0)
    return ip_packet(src, dst, 6, th[:16] + struct.pack("!H", c) + th[18:])


def udp(src, dst, sport, dport, data=b"probe", bad=False):
    uh = struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
    c = csum(pseudo(src, dst, 17, len(uh)) + uh) or 0xffff
    c ^= 0x5555 if bad else 0
    return ip_packet(src, dst, 17, uh[:6] + struct.pack("!H", c) + uh[8:])


class Wire:
    """Raw senders, and a capture of eth0 opened before anything is sent."""

    def __init__(self):
        self.tx4 = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                 socket.IPPROTO_RAW)
        self.tx6 = socket.socket(socket.AF_INET6, socket.SOCK_RAW,
                                 socket.IPPROTO_RAW)
        self.rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                socket.htons(ETH_P_ALL))
        self.rx.bind(("eth0", 0))
        self.rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)

    def send(self, pkt, dst):
        if v6(dst):
            self.tx6.sendto(pkt, (dst, 0))
        else:
            self.tx4.sendto(pkt, (dst, 0))

    def recv(self, timeout):
        """The next incoming TCP segment as (src, dst, sport, dport, flags,
        seq, ack, tsval, ident), ident the IPv4 ID or the IPv6 flow label;
        or None at the timeout."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.rx], [], [], left)[0]:
                return None
            frame, addr = self.rx.recvfrom(65535)
            if addr[2] == PACKET_OUTGOING:
                continue
            seg = parse(frame[14:], struct.unpack("!H", frame[12:14])[0])
            if seg:
                return seg


def parse(p, ethertype):
    if ethertype == 0x0800 and len(p) >= 40 and p[9] == 6:
        src, dst = socket.inet_ntoa(p[12:16]), socket.inet_ntoa(p[16:20])
        th = p[(p[0] & 15) * 4:]
    elif ethertype == 0x86dd and len(p) >= 60 and p[6] == 6:
        src = socket.inet_ntop(socket.AF_INET6, p[8:24])
        dst = socket.inet_ntop(socket.AF_INET6, p[24:40])
        th = p[40:]
    else:
        return None
    sport, dport, seq, ack, doff, flags = struct.unpack("!HHIIBB", th[:14])
    if ethertype == 0x0800:
        ident = struct.unpack("!H", p[4:6])[0]
    else:
        ident = struct.unpack("!I", p[0:4])[0] & 0xfffff
    return (src, dst, sport, dport, flags, seq, ack,
            tsval(th[20:(doff >> 4) * 4]), ident)


def tsval(opts):
    """The TSval of a segment's options, or None."""
    i = 0
    while i < len(opts) and opts[i] != 0:
        if opts[i] == 1:
            i += 1
            continue
        if i + 1 >= len(opts) or opts[i + 1] < 2:
            return None
        if opts[i] == 8 and opts[i + 1] == 10 and i + 6 <= len(opts):
            return struct.unpack("!I", opts[i + 2:i + 6])[0]
        i += opts[i + 1]
    return None


def norm(addr):
    if v6(addr):
        return socket.inet_ntop(socket.AF_INET6,
                                socket.inet_pton(socket.AF_INET6, addr))
    return addr


def answer(w, src, dst, dport, sport, timeout):
    """The first segment from dst:dport to src:sport within timeout."""
    end = time.monotonic() + timeout
    while True:
        seg = w.recv(max(0, end - time.monotonic()))
        if seg is None:
            return None
        if seg[:4] == (dst, src, dport, sport):
            return seg


def syn(w, src, dst, dport, sport, flags="S", timeout=5):
    isn = random.getrandbits(32)
    w.send(tcp(src, dst, sport, dport, isn, 0, flags_bits(flags)), dst)
    seg = answer(w, src, dst, dport, sport, timeout)
    if seg is None:
        return None
    return flags_str(seg[4]), (isn + 1) & 0xffffffff, (seg[5] + 1) & 0xffffffff


def syn_tsval(w, src, dst, dport, sport, timeout=5):
    """The TSval of the answer to a SYN that offers timestamps."""
    opts = struct.pack("!BBBBII", 1, 1, 8, 10, 1, 0)
    w.send(tcp(src, dst, sport, dport, random.getrandbits(32), 0, 0x02,
               opts=opts), dst)
    seg = answer(w, src, dst, dport, sport, timeout)
    return seg[7] if seg else None


def probe(w, src, dst, dport, sport, nxt, ack, timeout=2):
    w.send(tcp(src, dst, sport, dport, nxt - 1, ack, 0x10), dst)
    return answer(w, src, dst, dport, sport, timeout) is not None


def frames(mac, dst, tports, uports, count, srcs):
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind(("eth0", 0))
    eth = bytes.fromhex(mac.replace(":", "")) + tx.getsockname()[4] + \
        struct.pack("!H", 0x86dd if v6(dst) else 0x0800)
    sent = 0
    for n in range(count):
        if n:
            time.sleep(0.3)
        for i, src in enumerate(srcs):
            for p in tports:
                tx.send(eth + tcp(src, dst, 20000 + i, p,
                                  random.getrandbits(32), 0, flags_bits("S")))
            for p in uports:
                tx.send(eth + udp(src, dst, 20000 + i, p))
            sent += len(tports) + len(uports)
    return "sent %d" % sent


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    w = Wire()
    if cmd in ("syn", "tsval", "probe", "greet", "idents", "expire", "hold",
               "halfopen"):
        src, dst, dport, sport = norm(args[0]), norm(args[1]), \
            int(args[2]), int(args[3])
    if cmd == "syn":
        r = syn(w, src, dst, dport, sport, args[4] if len(args) > 4 else "S")
        print(" ".join(map(str, r)) if r else "none")
    elif cmd == "tsval":
        print(syn_tsval(w, src, dst, dport, sport))
    elif cmd == "probe":
        ok = probe(w, src, dst, dport, sport, int(args[4]), int(args[5]))
        print("answered" if ok else "silent")
    elif cmd == "greet":
        r = syn(w, src, dst, dport, sport)
        if not r or r[0] != "S.":
            print("no SYN/ACK")
            return
        count, ok = int(args[4]), 0
        for _ in range(count):
            w.send(tcp(src, dst, sport, dport, r[1], r[2], 0x10), dst)
            ok += answer(w, src, dst, dport, sport, 2) is not None
        print("answered %d of %d" % (ok, count))
    elif cmd == "idents":
        r = syn(w, src, dst, dport, sport)
        if not r or r[0] != "S.":
            print("no SYN/ACK")
            return
        ids = []
        for i in range(2):
            end = time.monotonic() + 300
            while i and not os.path.exists(args[4]) and \
                    time.monotonic() < end:
                time.sleep(0.1)
            w.send(tcp(src, dst, sport, dport, r[1] - 1, r[2], 0x10), dst)
            seg = answer(w, src, dst, dport, sport, 2)
            ids.append(str(seg[8]) if seg else "none")
            print(ids[-1], end=" " if not i else "\n", flush=True)
    elif cmd == "expire":
        r = syn(w, src, dst, dport, sport)
        if not r or r[0] != "S.":
            print("no SYN/ACK")
            return
        start, secs = time.monotonic(), float(args[4])
        while time.monotonic() - start < secs:
            sent = time.monotonic() - start
            if not probe(w, src, dst, dport, sport, r[1], r[2], 1):
                print("expired after %.1fs" % sent)
                return
            time.sleep(0.25)
        print("valid for %s s" % args[4])
    elif cmd == "hold":
        r = syn(w, src, dst, dport, sport)
        if not r or r[0] != "S.":
            print("no SYN/ACK")
            return
        count, every, ok = int(args[4]), float(args[5]), 0
        for _ in range(count):
            t = time.monotonic()
            ok += probe(w, src, dst, dport, sport, r[1], r[2], every)
            time.sleep(max(0, every - (time.monotonic() - t)))
        print("answered %d of %d" % (ok, count))
    elif cmd == "halfopen":
        for tx in (w.tx4, w.tx6):
            tx.setsockopt(socket.SOL_SOCKET, SO_MARK, 1)
        r = syn(w, src, dst, dport, sport)
        print(" ".join(map(str, r)) if r else "none", flush=True)
        if not r or r[0] != "S.":
            return
        end = time.monotonic() + 300
        while not os.path.exists(args[4]) and time.monotonic() < end:
            time.sleep(0.1)
        w.send(tcp(src, dst, sport, dport, r[1], 0, flags_bits("R")), dst)
        print("reset")
    elif cmd == "flood":
        dst, dport, secs, pps = norm(args[0]), int(args[1]), \
            float(args[2]), float(args[3])
        srcs = [norm(a) for a in args[4:]]
        isn = {s: random.getrandbits(32) for s in srcs}
        flows = {}
        # A busy guest loses some: up to 5 rounds for the missing ones.
        for _ in range(5):
            for s in srcs:
                if s not in flows:
                    w.send(tcp(s, dst, 40000, dport, isn[s], 0, 0x02), dst)
                    time.sleep(0.001)
            end = time.monotonic() + 3
            while len(flows) < len(srcs) and time.monotonic() < end:
                seg = w.recv(end - time.monotonic())
                if seg and seg[0] == dst and seg[1] in isn and \
                        seg[4] == 0x12:
                    flows[seg[1]] = ((isn[seg[1]] + 1) & 0xffffffff,
                                     (seg[5] + 1) & 0xffffffff)
            if len(flows) == len(srcs):
                break
        pkts = [(tcp(s, dst, 40000, dport, nxt - 1, ack, 0x10))
                for s, (nxt, ack) in flows.items()]
        sent = answered = 0
        print("flooding", flush=True)
        start = time.monotonic()
        while pkts and time.monotonic() - start < secs:
            w.send(pkts[sent % len(pkts)], dst)
            sent += 1
            # Keep the pace, and drain the capture on the way.
            while time.monotonic() - start < sent / pps:
                seg = w.recv(0.0005)
                answered += bool(seg and seg[0] == dst)
        print("cookies %d of %d, sent %d, answered %d" %
              (len(flows), len(srcs), sent, answered))
    elif cmd == "frames":
        ports = [[int(p) for p in a.split(",") if p] for a in args[2:4]]
        print(frames(args[0], norm(args[1]), ports[0], ports[1],
                     int(args[4]), [norm(a) for a in args[5:]]))
    elif cmd == "send":
        proto, src, dst, dport, sport, count, gap = args[0], norm(args[1]), \
            norm(args[2]), int(args[3]), int(args[4]), int(args[5]), \
            float(args[6])
        bad = "bad" in args[7:]
        fl = [a for a in args[7:] if a != "bad"]
        for i in range(count):
            if i:
                time.sleep(gap)
            if proto == "udp":
                pkt = udp(src, dst, sport, dport, bad=bad)
            else:
                pkt = tcp(src, dst, sport, dport, random.getrandbits(32), 0,
                          flags_bits(fl[0] if fl else "S"), bad=bad)
            w.send(pkt, dst)
    else:
        sys.exit("rawtcp.py: unknown command " + cmd)


if __name__ == "__main__":
    main()
