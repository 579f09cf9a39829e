# SPDX-License-Identifier: GPL-2.0
"""What the Python tools of tests/net/helpers share: the Internet
checksum, the rule counters of iptables-save -c, our targets' modes.
tests/lib/lib.sh puts this directory on PYTHONPATH for them."""

import os
import re
import struct
import subprocess


def target_modes(tag=None):
    """Our targets' modes from tests/lib/targets.list, as they follow -j
    ("TARPIT --honeypot"), in its order: all, or those tagged tag."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "targets.list")
    modes = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or "|" not in line:
                continue
            mode, tags = line.rstrip("\n").split("|", 1)
            if tag is None or tag in tags.split():
                modes.append(mode)
    return modes


def csum(data):
    """The Internet checksum (RFC 1071) of data, padded to even length."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def rule_counts(ns, ipt):
    """Packet counts of the rules that carry a comment, by comment (summed
    over rules with the same one), from one "ipt-save -c" in namespace
    ns; ipt e.g. iptables-legacy."""
    out = subprocess.check_output(["ip", "netns", "exec", ns, ipt + "-save",
                                   "-c"], text=True)
    c = {}
    for m in re.finditer(r'^\[(\d+):\d+\].*--comment "?([\w-]+)', out, re.M):
        c[m.group(2)] = c.get(m.group(2), 0) + int(m.group(1))
    return c
