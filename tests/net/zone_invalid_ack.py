#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send an ACK that conntrack finds invalid ("ACK is over upper bound")
on a live connection, and the same ACK from a port without a connection.

usage: zone_invalid_ack.py IFACE DST PORT LIVEPORT CTLPORT

Connects from LIVEPORT to DST:PORT (an echo server), exchanges a line
while sniffing IFACE to learn both sides' sequence numbers, then sends
from LIVEPORT a bare ACK that acknowledges far more than the server has
sent, and the same from CTLPORT. Prints "sent".
"""
import socket
import sys
import threading

from scapy.all import IP, IPv6, TCP, AsyncSniffer, conf, send

conf.verb = 0


def main():
    iface, dst, port, live, ctl = sys.argv[1:6]
    port, live, ctl = int(port), int(live), int(ctl)
    v6 = ":" in dst
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::" if v6 else "0.0.0.0", live))
    s.settimeout(60)
    s.connect((dst, port))
    started = threading.Event()
    sniff = AsyncSniffer(iface=iface, started_callback=started.set,
                         lfilter=lambda p: TCP in p and p[TCP].sport == port
                         and p[TCP].dport == live)
    sniff.start()
    started.wait(60)
    s.sendall(b"hello\n")
    got = b""
    while not got.endswith(b"\n"):
        data = s.recv(100)
        if not data:
            sys.exit("connection closed before the echo")
        got += data
    sniff.stop()
    l3 = IPv6 if v6 else IP
    theirs = [p[TCP] for p in sniff.results if len(p[TCP].payload)]
    if not theirs:
        sys.exit("no echo segment captured")
    echo = theirs[-1]
    seq = echo.ack                            # our next sequence number
    ack = (echo.seq + len(echo.payload) + 0x10000000) & 0xffffffff
    for sport in (live, ctl):
        send(l3(dst=dst) / TCP(sport=sport, dport=port, flags="A",
                               seq=seq, ack=ack))
    print("sent")
    s.close()


if __name__ == "__main__":
    main()
