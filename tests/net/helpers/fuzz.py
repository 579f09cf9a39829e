#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Seeded packet fuzzer for tests/net/fuzz.sh.

  send FAMILY SEED COUNT IFNAME MACS MANIFEST
      Build COUNT probes of family 4 or 6 from SEED, send them as raw
      frames on IFNAME (an AF_PACKET socket, no stack in the way) and write
      what was sent per class and flow to MANIFEST (json). MACS is
      "unicast-dst-mac". Prints "sent=N pps=N seed=S".
  check FAMILY PCAP MANIFEST
      Check the answers captured on the scanner side against the probes.
      Prints "ok WHAT" or "bad WHAT" lines, then "answers=N".

Every class has its own source address (SRC_BASE + class number), so an
answer is attributed to a class by its destination, and to a flow by
(protocol, probe source, probe destination, ports), taken from the TCP
answer or from the packet an ICMP error quotes.
"""
import json
import random
import socket
import struct
import sys
import time

from pktlib import csum, target_modes

CLASSES = ["tcp", "udp", "proto", "trunc", "frags",
           "rst", "icmp", "badsum", "laterfrag", "bcast"]
# Classes whose probes must never be answered.
SILENT = {"rst", "icmp", "badsum", "laterfrag", "bcast"}
ADDR = {
    4: dict(src="10.0.1.%d", host="10.0.3.2", fwd="10.0.3.3",
            bcast=[("10.0.1.255", "ff:ff:ff:ff:ff:ff"),
                   ("255.255.255.255", "ff:ff:ff:ff:ff:ff"),
                   ("224.0.0.1", "01:00:5e:00:00:01"),
                   ("10.0.1.1", "ff:ff:ff:ff:ff:ff")]),
    6: dict(src="fd00:1::%x", host="fd00:3::2", fwd="fd00:3::3",
            bcast=[("ff02::1", "33:33:00:00:00:01"),
                   ("ff02::2", "33:33:00:00:00:02"),
                   ("ff02::1:ff00:1", "33:33:ff:00:00:01"),
                   ("fd00:1::1", "33:33:00:00:00:01")]),
}
SRC_BASE = 16
# Destination ports: the rule ranges of fuzz.sh, 1000 for each target mode
# (plain CHAOS: the catch-all's).
DPORTS = (10000, 10000 + 1000 * len(target_modes()))
GARBAGE = 0xEE
MTU = 1500


def src_addr(fam, cls):
    return ADDR[fam]["src"] % (SRC_BASE + CLASSES.index(cls))


def aton(fam, a):
    return socket.inet_pton(socket.AF_INET if fam == 4 else socket.AF_INET6, a)


def ntoa(fam, b):
    return socket.inet_ntop(socket.AF_INET if fam == 4 else socket.AF_INET6, b)


def pseudo(fam, src, dst, proto, length):
    if fam == 4:
        return src + dst + struct.pack("!BBH", 0, proto, length)
    return src + dst + struct.pack("!I3xB", length, proto)


def l4_csum(fam, src, dst, proto, seg, off):
    """seg with a correct checksum at offset off."""
    seg = seg[:off] + b"\0\0" + seg[off + 2:]
    c = csum(pseudo(fam, src, dst, proto, len(seg)) + seg)
    if proto == 17 and c == 0:
        c = 0xFFFF
    return seg[:off] + struct.pack("!H", c) + seg[off + 2:]


def ip4(src, dst, proto, payload, ident, ttl=64, frag=0, opts=b"",
        tot_len=None):
    ihl = 5 + len(opts) // 4
    if tot_len is None:
        tot_len = ihl * 4 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, tot_len & 0xFFFF,
                    ident, frag, ttl, proto, 0, src, dst) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ip6(src, dst, nh, payload, plen=None, hlim=64):
    if plen is None:
        plen = len(payload)
    return struct.pack("!IHBB16s16s", 6 << 28, plen & 0xFFFF, nh, hlim,
                       src, dst) + payload


class Fuzzer:
    def __init__(self, fam, seed):
        self.fam = fam
        self.r = random.Random(seed)
        self.sport = {c: 0 for c in CLASSES}
        self.ident = 0

    def next_sport(self, cls):
        self.sport[cls] += 1
        return 1024 + self.sport[cls] % 64000

    def next_ident(self):
        self.ident = (self.ident + 1) & 0xFFFF
        return self.ident

    def dst(self):
        return ADDR[self.fam][self.r.choice(["host", "fwd"])]

    def tcp_opts(self):
        r = self.r
        out = b""
        for _ in range(r.randrange(0, 8)):
            k = r.random()
            if k < 0.2:
                out += b"\x01"
            elif k < 0.3:
                out += b"\x00"
            elif k < 0.45:
                out += struct.pack("!BBH", 2, 4, r.getrandbits(16))
            elif k < 0.55:
                out += struct.pack("!BBB", 3, 3, r.getrandbits(8))
            elif k < 0.65:
                out += b"\x04\x02"
            elif k < 0.75:
                out += struct.pack("!BBII", 8, 10, r.getrandbits(32),
                                   r.getrandbits(32))
            else:
                # Any kind, any (often wrong) length, random bytes.
                n = r.randrange(0, 12)
                out += bytes([r.getrandbits(8), r.choice([0, 1, 2, n, 40,
                                                          255])])
                out += bytes(r.getrandbits(8) for _ in range(n))
        if r.random() < 0.7:
            out += b"\x01" * (-len(out) % 4)
        return out[:40]

    def tcp(self, src, dst, sport, dport, flags, room, badsum=False,
            doff=None):
        r = self.r
        opts = self.tcp_opts()
        room -= 20 + len(opts)
        plen = r.choice([0, 0, r.randrange(0, 64), r.randrange(0, 1501)])
        payload = bytes([r.getrandbits(8)]) * min(plen, max(room, 0))
        if doff is None:
            doff = (20 + len(opts)) // 4
            if r.random() < 0.2 or len(opts) % 4:
                doff = r.randrange(0, 16)
        seg = struct.pack("!HHIIBBHHH", sport, dport, r.getrandbits(32),
                          r.getrandbits(32), doff << 4 | r.getrandbits(4),
                          flags, r.getrandbits(16), 0,
                          r.getrandbits(16)) + opts + payload
        seg = l4_csum(self.fam, src, dst, 6, seg, 16)
        if badsum:
            seg = seg[:16] + struct.pack("!H", struct.unpack_from(
                "!H", seg, 16)[0] ^ (1 + r.getrandbits(15))) + seg[18:]
        return seg

    def tcp_flags(self, rst=False):
        r = self.r
        f = r.choice([0x02, 0x02, 0x10, 0x12, 0x11, 0x18,
                      r.getrandbits(8), r.getrandbits(8)])
        return f | 0x04 if rst else f & ~0x04

    def udp(self, src, dst, sport, dport, room, badsum=False):
        r = self.r
        n = min(r.choice([0, r.randrange(0, 64), r.randrange(0, 1473)]),
                max(room - 8, 0))
        length = 8 + n
        if r.random() < 0.1:
            length = r.getrandbits(16)
        seg = struct.pack("!HHHH", sport, dport, length, 0) + bytes(
            r.getrandbits(8) for _ in range(min(n, 32))) + b"u" * (n - min(n, 32))
        if r.random() < 0.1 and self.fam == 4 and not badsum:
            return seg   # no checksum, valid over IPv4
        seg = l4_csum(self.fam, src, dst, 17, seg, 6)
        if badsum:
            c = struct.unpack_from("!H", seg, 6)[0] ^ (1 + r.getrandbits(15))
            seg = seg[:6] + struct.pack("!H", c or 1) + seg[8:]
        return seg

    def ip4_opts(self):
        r = self.r
        if r.random() < 0.8:
            return b""
        out = b""
        for _ in range(r.randrange(1, 4)):
            k = r.random()
            if k < 0.3:
                out += b"\x01"
            elif k < 0.5:
                out += bytes([7, 11, 4]) + b"\0" * 8
            elif k < 0.6:
                out += bytes([148, 4, 0, 0])
            elif k < 0.7:
                out += bytes([68, 12, 5, 0]) + b"\0" * 8
            else:
                n = r.randrange(0, 8)
                out += bytes([r.getrandbits(8), r.randrange(0, 12)]) + \
                    bytes(r.getrandbits(8) for _ in range(n))
        out = out[:40]
        return out + b"\0" * (-len(out) % 4)

    def ext6(self, final_nh, frag=False):
        """A chain of extension headers ending in final_nh: (first nh, bytes)."""
        r = self.r
        kinds = []
        if r.random() < 0.3:
            kinds.append(0)
        for _ in range(r.randrange(0, 3)):
            kinds.append(r.choice([60, 43, 60]))
        if frag or r.random() < 0.2:
            kinds.insert(r.randrange(len(kinds) + 1) if kinds[:1] != [0]
                         else r.randrange(1, len(kinds) + 1), 44)
        out = b""
        nhs = kinds[1:] + [final_nh]
        for k, nh in zip(kinds, nhs):
            if k == 44:
                out += struct.pack("!BBHI", nh, 0, 0, r.getrandbits(32))
            elif k == 43:
                n = r.randrange(0, 3)
                out += struct.pack("!BBBB", nh, n, r.choice([0, 2, 3, 4, 253]),
                                   0) + bytes(4 + 8 * n)
            else:
                n = r.randrange(0, 3)
                body = b""
                while len(body) < 6 + 8 * n:
                    left = 6 + 8 * n - len(body)
                    if left == 1 or r.random() < 0.2:
                        body += b"\0"
                    else:
                        ln = r.randrange(0, left - 1)
                        t = r.choice([1, 1, 0x1e, 0x05 if k == 0 else 0x1e])
                        body += bytes([t, ln]) + bytes(
                            r.getrandbits(8) for _ in range(ln))
                out += struct.pack("!BB", nh, n) + body
        return (kinds[0] if kinds else final_nh), out

    def packet(self, src, dst, proto, l4, ttl=64, ext=True):
        """IP packet around l4 with random IPv4 options or IPv6 ext headers."""
        s, d = aton(self.fam, src), aton(self.fam, dst)
        if self.fam == 4:
            return ip4(s, d, proto, l4, self.next_ident(), ttl=ttl,
                       opts=self.ip4_opts() if ext else b"")
        nh, exts = self.ext6(proto) if ext else (proto, b"")
        return ip6(s, d, nh, exts + l4, hlim=ttl)

    def room(self):
        # Room for L4 under the MTU after the largest IP header we add.
        return MTU - (60 if self.fam == 4 else 40 + 96)

    def gen(self, cls):
        """One probe of class cls: (list of IP packets, dst mac or None)."""
        r, fam = self.r, self.fam
        src = src_addr(fam, cls)
        s = aton(fam, src)
        sport = self.next_sport(cls)
        dport = r.randrange(*DPORTS)
        # Half of them to few ports: CHAOS answers only retries.
        if r.random() < 0.5:
            dport = dport // 1000 * 1000 + r.randrange(4)
        if cls in ("tcp", "rst", "badsum") or (cls == "bcast" and r.random() < 0.7):
            dst = self.dst()
            mac = None
            if cls == "bcast":
                dst, mac = r.choice(ADDR[fam]["bcast"])
            d = aton(fam, dst)
            if cls == "badsum" and r.random() < 0.3:
                l4 = self.udp(s, d, sport, dport, self.room(), badsum=True)
                return [self.packet(src, dst, 17, l4)], None
            l4 = self.tcp(s, d, sport, dport,
                          self.tcp_flags(rst=cls == "rst"), self.room(),
                          badsum=cls == "badsum")
            return [self.packet(src, dst, 6, l4)], mac
        if cls in ("udp", "bcast"):
            dst, mac = self.dst(), None
            if cls == "bcast":
                dst, mac = r.choice(ADDR[fam]["bcast"])
            d = aton(fam, dst)
            return [self.packet(src, dst, 17,
                                self.udp(s, d, sport, dport, self.room()))], mac
        if cls == "proto":
            proto = r.choice([0, 2, 4, 41, 47, 50, 51, 103, 132, 136, 253,
                              r.randrange(256)])
            if fam == 6 and proto in (0, 43, 44, 60):
                proto = 253
            if fam == 4 and proto in (1, 6, 17):
                proto = 253
            if fam == 6 and proto in (6, 17, 58):
                proto = 253
            body = struct.pack("!HH", sport, dport) + bytes(
                r.getrandbits(8) for _ in range(r.randrange(0, 64)))
            return [self.packet(src, self.dst(), proto, body)], None
        if cls == "icmp":
            dst = self.dst()
            d = aton(fam, dst)
            inner = self.packet(dst, src, 6, struct.pack(
                "!HHI", dport, sport, r.getrandbits(32)), ext=False)
            if fam == 4:
                t = r.choice([0, 3, 3, 4, 5, 8, 8, 11, 12, 13, 15, 17,
                              r.randrange(256)])
                code = r.randrange(16)
                msg = struct.pack("!BBHI", t, code, 0, sport) + inner
                msg = msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]
                return [self.packet(src, dst, 1, msg)], None
            t = r.choice([1, 2, 3, 4, 128, 128, 129, 130, r.randrange(256)])
            if t in (133, 134, 135, 136, 137):
                t = 1
            msg = struct.pack("!BBHI", t, r.randrange(8), 0, sport) + inner
            msg = l4_csum(6, s, d, 58, msg, 2)
            return [self.packet(src, dst, 58, msg)], None
        if cls == "trunc":
            # A valid probe cut at some length, or with a lying length field.
            proto = r.choice([6, 6, 17])
            dst = self.dst()
            d = aton(fam, dst)
            l4 = (self.tcp(s, d, sport, dport, self.tcp_flags(), 200)
                  if proto == 6 else self.udp(s, d, sport, dport, 200))
            full = self.packet(src, dst, proto, l4)
            k = r.random()
            if k < 0.6:
                return [full[:r.randrange(1, len(full))]], None
            if fam == 4:
                tot = r.choice([r.randrange(0, 20), len(full) + r.randrange(1, 100),
                                r.randrange(20, len(full))])
                return [full[:2] + struct.pack("!H", tot) + full[4:10] + b"\0\0" +
                        full[12:]], None
            return [full[:4] + struct.pack("!H", r.choice(
                [0, len(full) - 40 + r.randrange(1, 100),
                 r.randrange(0, len(full) - 40)])) + full[6:]], None
        if cls in ("frags", "laterfrag"):
            return self.fragments(cls, src, sport, dport), None
        raise ValueError(cls)

    def fragments(self, cls, src, sport, dport):
        """A fragmented TCP datagram: in order, shuffled, overlapping or
        missing pieces. Data bytes are GARBAGE, so an answer to a later
        fragment read as TCP goes to port 0xEEEE, a flow never probed."""
        r, fam = self.r, self.fam
        dst = self.dst() if cls == "frags" else ADDR[fam]["host"]
        s, d = aton(fam, src), aton(fam, dst)
        flags = self.tcp_flags(rst=cls == "laterfrag")
        seg = struct.pack("!HHIIBBHHH", sport, dport, r.getrandbits(32),
                          r.getrandbits(32), 5 << 4, flags, 1024, 0, 0)
        seg += bytes([GARBAGE]) * (8 * r.randrange(1, 40))
        seg = l4_csum(fam, s, d, 6, seg, 16)
        size = 8 * r.randrange(1, 6)
        pieces = [(o, seg[o:o + size]) for o in range(0, len(seg), size)]
        k = r.random()
        if k < 0.2:
            r.shuffle(pieces)
        elif k < 0.4:
            # An overlapping piece, carrying different bytes.
            o = 8 * r.randrange(0, len(seg) // 8)
            pieces.insert(r.randrange(len(pieces) + 1),
                          (o, bytes([GARBAGE]) * (8 * r.randrange(1, 4))))
        elif k < 0.5 and len(pieces) > 1:
            del pieces[r.randrange(len(pieces))]
        if cls == "laterfrag" and r.random() < 0.5:
            pieces = [p for p in pieces if p[0]] or pieces[-1:]
        ident = r.getrandbits(32)
        last = max(o for o, _ in pieces)
        out = []
        for o, data in pieces:
            more = o != last or o + len(data) < len(seg)
            if fam == 4:
                out.append(ip4(s, d, 6, data, ident & 0xFFFF,
                               frag=(o // 8) | (0x2000 if more else 0)))
            else:
                fh = struct.pack("!BBHI", 6, 0, o | int(more), ident)
                out.append(ip6(s, d, 44, fh + data))
        return out


def send(fam, seed, count, ifname, dmac, manifest):
    fz = Fuzzer(fam, seed)
    smac = open("/sys/class/net/%s/address" % ifname).read().strip()
    ethertype = struct.pack("!H", 0x0800 if fam == 4 else 0x86DD)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((ifname, 0))
    mac = lambda m: bytes.fromhex(m.replace(":", ""))
    head = {None: mac(dmac) + mac(smac) + ethertype}
    probes = {c: {} for c in CLASSES}
    per = max(count // len(CLASSES), 1)
    sent = 0
    busy = 0.0
    for cls in CLASSES:
        left = per
        while left > 0:
            n = min(left, 2000)
            left -= n
            frames = []
            for _ in range(n):
                pkts, m = fz.gen(cls)
                if m not in head:
                    head[m] = mac(m) + mac(smac) + ethertype
                for key in probe_keys(fam, pkts):
                    probes[cls][key] = probes[cls].get(key, 0) + 1
                frames += [head[m] + p for p in pkts]
            t0 = time.monotonic()
            for f in frames:
                try:
                    sock.send(f)
                except OSError as e:
                    sys.exit("send of a %d-byte %s frame: %s" % (len(f), cls, e))
            busy += time.monotonic() - t0
            sent += len(frames)
    with open(manifest, "w") as f:
        json.dump({"seed": seed, "probes": probes}, f)
    print("sent=%d probes=%d pps=%d seed=%d" % (sent, per * len(CLASSES),
                                                 sent / busy if busy else 0, seed))


def probe_keys(fam, pkts):
    """The flows a probe may be answered on: that of each piece at offset
    0. The datagram is reassembled under whichever first fragment the
    stack kept (an overlapping one may be lost or overtaken on the way),
    a netns without defrag shows the rule the first fragment itself, and
    a piece that is a datagram by itself (an IPv6 atomic fragment, RFC
    6946) is taken as it is."""
    first = [p for p in pkts if not frag_offset(fam, p)] or pkts[:1]
    return {flow_key(fam, p) for p in first}


def frag_offset(fam, p):
    if fam == 4:
        return len(p) >= 8 and struct.unpack_from("!H", p, 6)[0] & 0x1FFF
    return len(p) >= 48 and p[6] == 44 and struct.unpack_from("!H", p, 42)[0] >> 3


def flow_key(fam, p):
    """'proto|src|dst|sport|dport' of an IP packet (or what is left of it)."""
    if fam == 4:
        if len(p) < 20:
            return "short"
        ihl = (p[0] & 15) * 4
        proto, src, dst = p[9], ntoa(4, p[12:16]), ntoa(4, p[16:20])
        off = ihl
        if struct.unpack_from("!H", p, 6)[0] & 0x1FFF:
            return "%d|%s|%s|later" % (proto, src, dst)
    else:
        if len(p) < 40:
            return "short"
        src, dst = ntoa(6, p[8:24]), ntoa(6, p[24:40])
        proto, off = p[6], 40
        while proto in (0, 43, 60, 44) and off + 8 <= len(p):
            if proto == 44:
                if struct.unpack_from("!H", p, off + 2)[0] >> 3:
                    return "%d|%s|%s|later" % (p[off], src, dst)
                proto, off = p[off], off + 8
            else:
                proto, off = p[off], off + 8 * (p[off + 1] + 1)
    if off + 4 > len(p):
        return "%d|%s|%s|" % (proto, src, dst)
    sp, dp = struct.unpack_from("!HH", p, off)
    return "%d|%s|%s|%d|%d" % (proto, src, dst, sp, dp)


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack_from("<I", data)[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    link = struct.unpack_from(endian + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(endian + "IIII", data, off)
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if link == 1 and len(frame) >= 14:
            et = struct.unpack_from("!H", frame, 12)[0]
            yield et, frame[14:]
        elif link == 113 and len(frame) >= 16:  # Linux cooked capture
            yield struct.unpack_from("!H", frame, 14)[0], frame[16:]


def well_formed(fam, p):
    """None if p is a well-formed TCP segment or ICMP error, else why not."""
    if fam == 4:
        ihl = (p[0] & 15) * 4
        # ICMP errors echo the probe's IP options (RFC 1122 3.2.2.5).
        if len(p) < ihl or p[0] >> 4 != 4 or ihl < 20 or \
                ihl > 20 and p[9] != 1:
            return "bad IPv4 header"
        tot = struct.unpack_from("!H", p, 2)[0]
        if tot > len(p) or tot < ihl:
            return "IPv4 total length %d of %d bytes" % (tot, len(p))
        if csum(p[:ihl]):
            return "bad IPv4 header checksum"
        if struct.unpack_from("!H", p, 6)[0] & 0x3FFF:
            return "a fragment"
        proto, src, dst, l4 = p[9], p[12:16], p[16:20], p[ihl:tot]
    else:
        if len(p) < 40 or p[0] >> 4 != 6:
            return "bad IPv6 header"
        plen = struct.unpack_from("!H", p, 4)[0]
        if 40 + plen > len(p):
            return "IPv6 payload length %d of %d bytes" % (plen, len(p) - 40)
        proto, src, dst, l4 = p[6], p[8:24], p[24:40], p[40:40 + plen]
    if proto == 6:
        if len(l4) < 20 or l4[12] >> 4 < 5 or (l4[12] >> 4) * 4 > len(l4):
            return "bad TCP header"
        if csum(pseudo(fam, src, dst, 6, len(l4)) + l4):
            return "bad TCP checksum"
        f = l4[13]
        if f & 0x04 and f & 0x03 or f & 0x02 and f & 0x01 or not f & 0x14:
            return "TCP flags 0x%02x" % f
        return None
    icmp = 1 if fam == 4 else 58
    if proto != icmp:
        return "protocol %d" % proto
    if len(l4) < 8 + (20 if fam == 4 else 40):
        return "ICMP error of %d bytes" % len(l4)
    if csum(l4 if fam == 4 else pseudo(6, src, dst, 58, len(l4)) + l4):
        return "bad ICMP checksum"
    if l4[0] != (3 if fam == 4 else 1):
        return "ICMP type %d" % l4[0]
    if l4[8] >> 4 != fam:
        return "ICMP error quoting no IPv%d packet" % fam
    return None


def answer_key(fam, p):
    """The flow key of the probe that p answers."""
    if fam == 4:
        ihl = (p[0] & 15) * 4
        proto, src, dst, l4 = p[9], ntoa(4, p[12:16]), ntoa(4, p[16:20]), p[ihl:]
    else:
        proto, src, dst, l4 = p[6], ntoa(6, p[8:24]), ntoa(6, p[24:40]), p[40:]
    if proto == 6:
        sp, dp = struct.unpack_from("!HH", l4)
        return "6|%s|%s|%d|%d" % (dst, src, dp, sp)
    return flow_key(fam, l4[8:])


def kernel_own(fam, et, p):
    """Traffic of the stacks themselves: ARP, ND, ICMP time exceeded and
    parameter problem (routers do send those about our probes)."""
    if et != (0x0800 if fam == 4 else 0x86DD):
        return True
    if fam == 4:
        ihl = (p[0] & 15) * 4
        return len(p) > ihl and p[9] == 1 and p[ihl] in (11, 12)
    return len(p) > 40 and p[6] == 58 and p[40] in (3, 4, 133, 134, 135, 136, 137, 143)


def check(fam, pcap, manifest):
    with open(manifest) as f:
        m = json.load(f)
    probes = m["probes"]
    owner = {src_addr(fam, c): c for c in CLASSES}
    answers = {c: {} for c in CLASSES}
    bad = []
    kernel = total = 0
    for et, p in read_pcap(pcap):
        if kernel_own(fam, et, p):
            kernel += 1
            continue
        if fam == 4 and (len(p) < 20 or p[0] >> 4 != 4):
            continue
        if fam == 6 and (len(p) < 40 or p[0] >> 4 != 6):
            continue
        dst = ntoa(fam, p[16:20] if fam == 4 else p[24:40])
        cls = owner.get(dst)
        if cls is None:
            continue
        total += 1
        why = well_formed(fam, p)
        if why:
            bad.append("%s answer not well-formed: %s (%s)" % (cls, why, p[:64].hex()))
            continue
        key = answer_key(fam, p)
        answers[cls][key] = answers[cls].get(key, 0) + 1
    for cls in CLASSES:
        got = answers[cls]
        n = sum(got.values())
        sent = sum(probes[cls].values())
        if cls in SILENT:
            if n:
                bad.append("%s: %d answers to %d probes that must get none, e.g. %s"
                           % (cls, n, sent, sorted(got)[:3]))
            else:
                print("ok %s: no answer to %d probes" % (cls, sent))
            continue
        over = ["%s (%d answers, %d probes)" % (k, v, probes[cls].get(k, 0))
                for k, v in got.items() if v > probes[cls].get(k, 0)]
        later = [k for k in got if k.endswith("|later") or "|%d" % 0xEEEE in k]
        if later:
            bad.append("%s: answers to later fragments: %s" % (cls, later[:3]))
        if over:
            bad.append("%s: more answers than probes for %d flows, e.g. %s"
                       % (cls, len(over), over[:3]))
        if not over and not later:
            print("ok %s: %d answers to %d probes, at most one each"
                  % (cls, n, sent))
    for b in bad:
        print("bad " + b)
    if not bad:
        print("ok every answer is a well-formed TCP segment or ICMP error")
    print("answers=%d kernel=%d" % (total, kernel))


def main(argv):
    if argv[1] == "send":
        send(int(argv[2]), int(argv[3]), int(argv[4]), argv[5], argv[6], argv[7])
    elif argv[1] == "check":
        check(int(argv[2]), argv[3], argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
