#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Driver of reply_loops.sh: crafted packets between namespaces loopa and
loopb (one veth, eth0 in both). Both have the same rules: target i of
TARGETS on tcp port 1001 + i, so a packet from loopa's port of target i to
loopb's port of target j pairs them. Frames are injected through AF_PACKET
sockets; replies are counted by OUTPUT rules per port pair (exact even
when a loop floods the VM), bad-checksum ones on the wire. Prints
PASS:/FAIL: lines.

  loop          one crafted ACK between two tarpits (TARPIT, --stall,
                CHAOS --tarpit): <= 1 reply in total
  matrix        every pair of targets; a SYN, an ACK, data and a FIN each
                way, IPv4 and IPv6: the exchange stops, <= 2 replies each
  matrix_cookie every target of loopa against the answers of loopb's that
                need its cookie (greeting, probe answer, honeypot ACK):
                the exchange stops, <= 2 replies each
  spoof         1000 ACKs from spoofed (routed) sources: no reply
  badsum        bad TCP checksums: no reply, INPUT and FORWARD
  ratelimit     a flood of 5000 valid window probes (IPv4): answers
                within the core's bucket of 1000/s, burst 1000, per
                source; held peers at other addresses are still answered
"""
import array
import ctypes
import fcntl
import os
import random
import socket
import struct
import subprocess
import sys
import time

from pktlib import csum, rule_counts, target_modes


A, B = "loopa", "loopb"
ADDR = {4: {A: "10.0.9.1", B: "10.0.9.2"},
        6: {A: "fd00:9::1", B: "fd00:9::2"}}
SPOOF = {4: "10.0.10.%d", 6: "fd00:10::%x"}
FWD = {4: "10.0.10.250", 6: "fd00:10::fa"}  # loopb forwards it to loopa
OTHERS = ["10.0.9.21", "10.0.9.22", "10.0.9.23"]  # more of loopa's
UNLIMITED = "--reject-prob 1 --rate 1000/sec --burst 1000"


def rule_target(mode):
    """A mode's -j arguments here: CHAOS always answers (fast bucket),
    and hands every opening SYN on (--delude-prob 1)."""
    if not mode.startswith("CHAOS"):
        return mode
    if "--delude" in mode.split() or "--tarpit" in mode.split():
        mode += " --delude-prob 1"
    return mode + " " + UNLIMITED


# Every target mode of tests/lib/targets.list: (name, -j arguments).
TARGETS = [(m, rule_target(m)) for m in target_modes()]
FLOOD = 5000
M32 = 0xffffffff
PORT = {name: 1001 + i for i, (name, _) in enumerate(TARGETS)}
CLONE_NEWNET = 0x40000000
SIOCETHTOOL = 0x8946
ETHTOOL_SRXCSUM = 0x15
ETH_P_ALL = 3
PACKET_OUTGOING = 4
libc = ctypes.CDLL(None, use_errno=True)


def setns(name):
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    if libc.setns(fd, CLONE_NEWNET):
        raise OSError(ctypes.get_errno(), "setns " + name)
    os.close(fd)


def ipt(v):
    return "iptables-legacy" if v == 4 else "ip6tables-legacy"


def install(rules=True):
    text = "*filter\n:INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n" \
        ":OUTPUT ACCEPT [0:0]\n"
    for name, target in TARGETS if rules else ():
        text += "-A INPUT -p tcp --dport %d -m comment --comment in%d " \
            "-j %s\n" % (PORT[name], PORT[name], target)
        text += "-A FORWARD -p tcp --dport %d -j %s\n" % (PORT[name], target)
    # Replies by source port, and by port pair.
    for pa in PORT.values():
        text += "-A OUTPUT -p tcp --sport %d -m comment --comment s%d\n" \
            % (pa, pa)
        for pb in PORT.values():
            text += "-A OUTPUT -p tcp --sport %d --dport %d -m comment " \
                "--comment o%d_%d\n" % (pa, pb, pa, pb)
        # Answers other than SYN/ACKs (a SYN may be retried).
        text += "-A OUTPUT -p tcp --sport %d --tcp-flags SYN NONE " \
            "-m comment --comment n%d\n" % (pa, pa)
    text += "-A OUTPUT -p tcp -m comment --comment out\nCOMMIT\n"
    for n in (A, B):
        for v in (4, 6):
            subprocess.run(["ip", "netns", "exec", n, ipt(v) + "-restore"],
                           input=text, text=True, check=True)



def quiesce(stopped):
    """End a loop that still runs: flush the rules (the kernel resets the
    looping flow), then put them back."""
    if not stopped:
        install(False)
        time.sleep(1)
        install()


def report(ok, what, detail):
    print("%s: %s (%s)" % ("PASS" if ok else "FAIL", what, detail),
          flush=True)


class Wire:
    """An AF_PACKET socket on eth0 of each namespace; loopa's also counts
    the TCP frames on the veth, which it sees all but its own."""

    def __init__(self):
        self.sock, self.mac = {}, {}
        for n in (A, B):
            setns(n)
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                              socket.htons(ETH_P_ALL) if n == A else 0)
            s.bind(("eth0", 0))
            self.sock[n] = s
            self.mac[n] = s.getsockname()[4]
            # No rx checksum offload: veth would mark our frames verified.
            buf = array.array("B", struct.pack("II", ETHTOOL_SRXCSUM, 0))
            fcntl.ioctl(s, SIOCETHTOOL, struct.pack(
                "16sP", b"eth0", buf.buffer_info()[0]))
        self.sock[A].setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.other = {A: B, B: A}
        self.drain(0.01)

    def frame(self, v, src, flags, sport, dport, seq, ack, data=b"",
              saddr=None, daddr=None, badsum=False):
        dst = self.other[src]
        fam = socket.AF_INET if v == 4 else socket.AF_INET6
        sa = socket.inet_pton(fam, saddr or ADDR[v][src])
        da = socket.inet_pton(fam, daddr or ADDR[v][dst])
        bits = sum(FLAGS[f] for f in flags)
        tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4,
                          bits, 1024, 0, 0) + data
        if v == 4:
            pseudo = struct.pack("!BBH", 0, 6, len(tcp))
        else:
            pseudo = struct.pack("!IxxxB", len(tcp), 6)
        check = csum(sa + da + pseudo + tcp) ^ (0x5555 if badsum else 0)
        tcp = tcp[:16] + struct.pack("!H", check) + tcp[18:]
        if v == 4:
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0,
                             0x4000, 64, 6, 0, sa, da)
            ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        else:
            ip = struct.pack("!IHBB16s16s", 6 << 28, len(tcp), 6, 64, sa, da)
        return self.mac[dst] + self.mac[src] + \
            struct.pack("!H", 0x0800 if v == 4 else 0x86dd) + ip + tcp

    def send(self, src, frames):
        for f in frames:
            self.sock[src].send(f)

    def drain(self, quiet=1.0, limit=6.0):
        """Count TCP frames until the wire is quiet for @quiet seconds:
        ({(v, loopa port, loopb port): frames}, stopped)."""
        seen = {}
        s = self.sock[A]
        end = time.monotonic() + limit
        s.settimeout(quiet)
        while time.monotonic() < end:
            try:
                f, addr = s.recvfrom(2048)
            except socket.timeout:
                return seen, True
            etype = f[12:14]
            if etype == b"\x08\x00" and f[23] == 6:
                v, th = 4, 14 + (f[14] & 15) * 4
            elif etype == b"\x86\xdd" and f[20] == 6:
                v, th = 6, 54
            else:
                continue
            sport, dport = struct.unpack_from("!HH", f, th)
            key = (v, sport, dport) if addr[2] == PACKET_OUTGOING \
                else (v, dport, sport)
            seen[key] = seen.get(key, 0) + 1
        return seen, False


FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, "A": 0x10}


def rnd():
    return random.getrandbits(32)


def crafted(w, v, src, na, nb):
    """A SYN, an ACK, data and a FIN from @src, from the port of target
    @na on loopa to that of @nb on loopb (or back)."""
    pa, pb = PORT[na], PORT[nb]
    sp, dp = (pa, pb) if src == A else (pb, pa)
    return [w.frame(v, src, "S", sp, dp, rnd(), 0),
            w.frame(v, src, "A", sp, dp, rnd(), rnd()),
            w.frame(v, src, "PA", sp, dp, rnd(), rnd(), b"chaos data\n"),
            w.frame(v, src, "FA", sp, dp, rnd(), rnd())]


def matrix(w):
    pairs = [(na, nb) for i, (na, _) in enumerate(TARGETS)
             for nb, _ in TARGETS[i:]]
    for v in (4, 6):
        for na, nb in pairs:
            w.send(A, crafted(w, v, A, na, nb))
            w.send(B, crafted(w, v, B, na, nb))
    _, stopped = w.drain()
    c = {(n, v): rule_counts(n, ipt(v)) for n in (A, B) for v in (4, 6)}
    quiesce(stopped)
    for v in (4, 6):
        for na, nb in pairs:
            pa, pb = PORT[na], PORT[nb]
            n = c[A, v]["o%d_%d" % (pa, pb)] + c[B, v]["o%d_%d" % (pb, pa)]
            report(n <= 2 * 8,
                   "v%d %s <-> %s: exchange stops" % (v, na, nb),
                   "expected <= 16 replies to 8 crafted packets, got %d%s"
                   % (n, "" if stopped else ", still running after 6 s"))


def synack(w, v, sport, dport, wait=3.0):
    """The sequence number of loopb's SYN/ACK from @sport to loopa's
    @dport, as loopa's wire sees it; None if none comes."""
    s = w.sock[A]
    end = time.monotonic() + wait
    while time.monotonic() < end:
        s.settimeout(max(end - time.monotonic(), 0.01))
        try:
            f, addr = s.recvfrom(2048)
        except socket.timeout:
            break
        if addr[2] == PACKET_OUTGOING:
            continue
        if v == 4 and f[12:14] == b"\x08\x00" and f[23] == 6:
            th = 14 + (f[14] & 15) * 4
        elif v == 6 and f[12:14] == b"\x86\xdd" and f[20] == 6:
            th = 54
        else:
            continue
        sp, dp, seq = struct.unpack_from("!HHI", f, th)
        if (sp, dp) == (sport, dport) and f[th + 13] & 0x12 == 0x12:
            return seq
    return None


def chaos_retry(w, v, sport, dport, isn):
    """A SYN from @sport that CHAOS answers: a first probe from a distant
    port (a new scan, in which no port was answered yet), then the SYN
    and its retry a try later."""
    w.send(A, [w.frame(v, A, "S", (sport + 30000) & 0xffff, dport, isn, 0)])
    w.send(A, [w.frame(v, A, "S", sport, dport, isn, 0)])
    time.sleep(0.3)
    w.send(A, [w.frame(v, A, "S", sport, dport, isn, 0)])


def matrix_cookie(w):
    """The answers that need our cookie (a greeting, a tarpit's probe
    answer, a honeypot's ACK) bounced off every target: loopa completes
    a handshake with each SYN/ACK-giving target of loopb from the port of
    each of its own targets, then sends the handshake's ACK, a window
    probe, data and a FIN with the right numbers. loopb's answers reach
    loopa's target, whose answers carry no cookie of loopb's."""
    opening = [nb for nb, _ in TARGETS if nb != "TARPIT --reset" and
               nb != "CHAOS"]
    c0 = {(n, v): rule_counts(n, ipt(v)) for n in (A, B) for v in (4, 6)}
    got = {}
    for v in (4, 6):
        for na, _ in TARGETS:
            for nb in opening:
                pa, pb = PORT[na], PORT[nb]
                isn = rnd()
                if nb.startswith("CHAOS"):
                    chaos_retry(w, v, pa, pb, isn)
                else:
                    w.send(A, [w.frame(v, A, "S", pa, pb, isn, 0)])
                seq = synack(w, v, pb, pa)
                got[v, na, nb] = seq is not None
                if seq is None:
                    continue
                nxt, ack = (isn + 1) & M32, (seq + 1) & M32
                w.send(A, [w.frame(v, A, "A", pa, pb, nxt, ack),
                           w.frame(v, A, "A", pa, pb, isn, ack),
                           w.frame(v, A, "PA", pa, pb, nxt, ack, b"x"),
                           w.frame(v, A, "FA", pa, pb, (nxt + 1) & M32,
                                   ack)])
    _, stopped = w.drain()
    c = {(n, v): rule_counts(n, ipt(v)) for n in (A, B) for v in (4, 6)}
    quiesce(stopped)
    for v in (4, 6):
        for na, _ in TARGETS:
            bad = []
            for nb in opening:
                pa, pb = PORT[na], PORT[nb]
                oa, ob = "o%d_%d" % (pa, pb), "o%d_%d" % (pb, pa)
                n = c[A, v][oa] - c0[A, v][oa] + c[B, v][ob] - c0[B, v][ob]
                # 5 packets, each answered at most once, and each
                # answer at most once: <= 10.
                if not got[v, na, nb] or n > 10:
                    bad.append("%s: %s" % (nb, n if got[v, na, nb]
                                          else "no SYN/ACK"))
            report(not bad and stopped,
                   "v%d %s answers the cookie answers of every target" %
                   (v, na), "expected a SYN/ACK and <= 10 replies per "
                   "handshake%s, got %s" % (
                       "" if stopped else ", wire still busy after 6 s",
                       "; ".join(bad) or "that"))


def loop(w):
    # Two rounds, so that each pair has its own source ports.
    for pairs in ((("TARPIT", "TARPIT"), ("CHAOS --tarpit", "CHAOS --tarpit"),
                   ("TARPIT --stall", "TARPIT --stall")),
                  (("TARPIT", "CHAOS --tarpit"), ("TARPIT --stall", "TARPIT"))):
        c0 = {(n, v): rule_counts(n, ipt(v))
              for n in (A, B) for v in (4, 6)}
        for v in (4, 6):
            for na, nb in pairs:
                w.send(A, [w.frame(v, A, "A", PORT[na], PORT[nb], rnd(),
                                   rnd())])
        _, stopped = w.drain()
        c = {(n, v): rule_counts(n, ipt(v))
             for n in (A, B) for v in (4, 6)}
        print("OUTPUT rule counts after %s: %s" % (
            "6 s" if not stopped else "the wire went quiet",
            ", ".join("v%d %s %d" % (v, n, c[n, v]["out"] - c0[n, v]["out"])
                      for v in (4, 6) for n in (A, B))), flush=True)
        quiesce(stopped)
        for v in (4, 6):
            for na, nb in pairs:
                sa, sb = "s%d" % PORT[na], "s%d" % PORT[nb]
                n = c[A, v][sa] - c0[A, v][sa] + c[B, v][sb] - c0[B, v][sb]
                report(n <= 1,
                       "v%d one ACK from %s:%d to %s:%d" %
                       (v, na, PORT[na], nb, PORT[nb]),
                       "expected <= 1 reply in total, got %d%s" %
                       (n, "" if stopped else ", still running after 6 s"))


def spoof(w):
    c0 = {v: rule_counts(B, ipt(v)) for v in (4, 6)}
    for v in (4, 6):
        for name in ("TARPIT", "TARPIT --stall", "CHAOS --tarpit"):
            frames = [w.frame(v, A, "A", random.randint(1024, 65535),
                              PORT[name], rnd(), rnd(),
                              saddr=SPOOF[v] % random.randint(1, 254))
                      for _ in range(1000)]
            w.send(A, frames)
    _, stopped = w.drain()
    c = {v: rule_counts(B, ipt(v)) for v in (4, 6)}
    quiesce(stopped)
    for v in (4, 6):
        for name in ("TARPIT", "TARPIT --stall", "CHAOS --tarpit"):
            n = c[v]["s%d" % PORT[name]] - c0[v]["s%d" % PORT[name]]
            report(n == 0,
                   "v%d %s: 1000 ACKs from spoofed sources" % (v, name),
                   "expected no reply, got %d" % n)


def badsum(w):
    """nmap --badsum: SYNs, an ACK and data with a bad TCP checksum to
    every target, in INPUT (from port 3000) and FORWARD (3001), with
    conntrack on in loopb (the CHAOS rules need it); a good SYN to DELUDE
    in FORWARD (3002) as the control."""
    for v in (4, 6):
        for name, _ in TARGETS:
            for sport, daddr in ((3000, None), (3001, FWD[v])):
                w.send(A, [w.frame(v, A, f, sport, PORT[name], rnd(), rnd(),
                                   data, daddr=daddr, badsum=True)
                           for f, data in (("S", b""), ("S", b""),
                                           ("A", b""), ("PA", b"x"))])
        w.send(A, [w.frame(v, A, "S", 3002, PORT["DELUDE"], rnd(), 0,
                           daddr=FWD[v])])
    seen, stopped = w.drain()
    quiesce(stopped)
    for v in (4, 6):
        for sport, hook in ((3000, "INPUT"), (3001, "FORWARD")):
            for name, _ in TARGETS:
                n = seen.get((v, sport, PORT[name]), 0)
                report(n == 0, "v%d %s %s: bad checksums unanswered" %
                       (v, hook, name), "expected no reply, got %d" % n)
        n = seen.get((v, 3002, PORT["DELUDE"]), 0)
        report(n >= 1, "v%d FORWARD DELUDE: control SYN answered" % v,
               "expected >= 1 reply, got %d" % n)


def held_peer(w, saddr, sport, port):
    """A real handshake from @saddr:@sport with TARPIT on @port: the
    window probe of that held peer."""
    isn = rnd()
    w.send(A, [w.frame(4, A, "S", sport, port, isn, 0, saddr=saddr)])
    seq = synack(w, 4, port, sport, wait=10)
    if seq is None:
        raise RuntimeError("no SYN/ACK to %s:%d" % (saddr, sport))
    return w.frame(4, A, "A", sport, port, isn, (seq + 1) & M32, saddr=saddr)


def ratelimit(w):
    port = PORT["TARPIT"]
    # loopa has no socket there: its RSTs would count as probes.
    subprocess.run(["ip", "netns", "exec", A, "iptables-legacy", "-I",
                    "OUTPUT", "-p", "tcp", "--tcp-flags", "RST", "RST",
                    "-j", "DROP"], check=True)
    # The probes and answers of the held peers at OTHERS, by peer.
    for i, saddr in enumerate(OTHERS):
        for chain, match in (("INPUT", ["-s", saddr, "--dport"]),
                             ("OUTPUT", ["-d", saddr, "--tcp-flags", "SYN",
                                         "NONE", "--sport"])):
            subprocess.run(["ip", "netns", "exec", B, "iptables-legacy",
                            "-I", chain, "-p", "tcp"] + match +
                           [str(port), "-m", "comment", "--comment",
                            "%s%d" % (chain[0], i)], check=True)
    probe = held_peer(w, ADDR[4][A], 40000, port)
    others = [held_peer(w, saddr, 40001 + i, port)
              for i, saddr in enumerate(OTHERS)]
    c0 = rule_counts(B, ipt(4))
    start = time.monotonic()
    for k in range(FLOOD):
        w.sock[A].send(probe)
        # Once the flood has used up the burst, the other peers probe too.
        if k >= FLOOD // 2 and k % 100 == 0:
            w.send(A, others)
    secs = time.monotonic() - start
    w.drain()
    c = rule_counts(B, ipt(4))
    # Of the other peers, probes and answers.
    got = [(c["I%d" % i] - c0["I%d" % i], c["O%d" % i] - c0["O%d" % i])
           for i in range(len(OTHERS))]
    probes = c["in%d" % port] - c0["in%d" % port] - sum(n for n, _ in got)
    answers = c["n%d" % port] - c0["n%d" % port] - sum(a for _, a in got)
    # Probes still queued when the sending ends refill it up to 1 s more.
    bound = 1000 + 1000 * (secs + 1)
    if probes <= bound:
        print("SKIP: v4 TARPIT rate limit (sending %d probes took %.1f s: "
              "too slow to exceed the bucket)" % (probes, secs), flush=True)
    else:
        report(1000 <= answers <= bound,
               "v4 TARPIT: flood of valid probes rate limited",
               "expected %d probes in %.1f s to get 1000..%d answers, "
               "got %d" % (probes, secs, bound, answers))
        # Each other peer shares the flooder's bucket with odds of 1/64.
        report(any(n >= 10 and a == n for n, a in got),
               "v4 TARPIT: other held peers answered during the flood",
               "expected one of %d peers to have every probe answered, "
               "got answers/probes %s" % (len(OTHERS), " ".join(
                   "%d/%d" % (a, n) for n, a in got)))
    subprocess.run(["ip", "netns", "exec", A, "iptables-legacy", "-D",
                    "OUTPUT", "1"], check=True)


install()
w = Wire()
for part in sys.argv[1:]:
    globals()[part](w)
