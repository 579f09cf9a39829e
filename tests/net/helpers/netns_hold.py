#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Make network namespaces and keep them, for tests/net/netns_memcg.sh.

  netns_hold.py N       make N network namespaces, each held by an open
                        file of its own; print "ready", then hold them
                        until stdin ends
"""
import ctypes
import os
import sys

CLONE_NEWNET = 0x40000000


def main():
    libc = ctypes.CDLL(None, use_errno=True)
    held = []
    for _ in range(int(sys.argv[1])):
        if libc.unshare(CLONE_NEWNET):
            err = ctypes.get_errno()
            sys.exit("unshare: " + os.strerror(err))
        held.append(os.open("/proc/self/ns/net", os.O_RDONLY))
    print("ready", flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
