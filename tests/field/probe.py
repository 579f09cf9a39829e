#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# probe.py ADDR PORT [ADDR PORT...]: a TCP connect to each, 3 s at most,
# and what the server sends first, 3 s at most; one line each:
# "ADDR PORT open BANNER", "ADDR PORT open" (nothing sent), "ADDR PORT
# refused" (RST: no firewall dropped the SYN) or "ADDR PORT timeout" (the
# SYN dropped).
import socket
import sys

args = sys.argv[1:]
for addr, port in zip(args[::2], args[1::2]):
    fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((addr, int(port)))
    except ConnectionRefusedError:
        print(addr, port, "refused", flush=True)
        continue
    except (socket.timeout, OSError) as e:
        print(addr, port, "timeout" if isinstance(e, socket.timeout) else
              "error " + str(e), flush=True)
        continue
    try:
        banner = s.recv(100).decode(errors="replace").strip()
    except (socket.timeout, OSError):
        banner = ""
    s.close()
    print(addr, port, "open", banner, flush=True)
