# SPDX-License-Identifier: GPL-2.0
"""What the Python tools of tests/net share: the Internet checksum and
the rule counters of iptables-save -c. A script in tests/net imports it
as is (Python puts the script's directory first on sys.path); code run
from elsewhere (python3 - or -c) needs PYTHONPATH=tests/net."""

import re
import struct
import subprocess


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
