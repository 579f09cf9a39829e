#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""seg_fields.py PCAP: the header fields of what each connection's server
sent in PCAP, for a field-by-field comparison of answers (a real
listener's and a forged one), one "N NAME VALUE" a line, N counting the
connections from 1 in the order of their SYN/ACKs:

  synack.*   the SYN/ACK: IPv4 TTL, DF, ID and TOS, or IPv6 hop limit,
             traffic class and whether a flow label is set; TCP flags,
             window, urgent pointer and options in order (the
             timestamp's values aside)
  later.*    the server's first later segment (its greeting, or its ACK
             before it): TTL or hop limit, DF and TOS or traffic class,
             whether its IP ID counts (non-zero, as from inet_id's random
             start), whether its flow label is the SYN/ACK's
"""
import sys

from scapy.all import IP, IPv6, TCP, rdpcap


def opts(tcp):
    out = []
    for name, val in tcp.options:
        if name == "Timestamp":
            out.append("TS")
        elif val in (None, b""):
            out.append(name)
        else:
            out.append("%s=%s" % (name, val))
    return ",".join(out)


def net_fields(pkt, prefix):
    if IP in pkt:
        ip = pkt[IP]
        return {prefix + "ttl": ip.ttl, prefix + "df": int(ip.flags.DF),
                prefix + "tos": ip.tos}
    ip = pkt[IPv6]
    return {prefix + "hlim": ip.hlim, prefix + "tc": ip.tc,
            prefix + "flowlabel": "set" if ip.fl else "0"}


def fields(synack, later):
    tcp = synack[TCP]
    f = net_fields(synack, "synack.")
    if IP in synack:
        f["synack.id"] = synack[IP].id
    f.update({"synack.flags": str(tcp.flags), "synack.window": tcp.window,
              "synack.urgptr": tcp.urgptr, "synack.options": opts(tcp)})
    if later is None:
        return f
    f.update(net_fields(later, "later."))
    if IP in later:
        f["later.id"] = "counts" if later[IP].id else "0"
    else:
        f["later.flowlabel"] = ("synack's" if later[IPv6].fl ==
                                synack[IPv6].fl else "other")
    return f


def main(pcap):
    conns = {}  # (server port, client port) -> [SYN/ACK, later]
    for pkt in rdpcap(pcap):
        if TCP not in pkt:
            continue
        key = (pkt[TCP].sport, pkt[TCP].dport)
        if pkt[TCP].flags.S and pkt[TCP].flags.A:
            conns.setdefault(key, [pkt, None])
        elif key in conns and conns[key][1] is None:
            conns[key][1] = pkt
    for n, (synack, later) in enumerate(conns.values(), 1):
        f = fields(synack, later)
        for k in sorted(f):
            print(n, k, f[k])


if __name__ == "__main__":
    main(sys.argv[1])
