#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The guest's process accounting (BSD acct), for
tests/vm/guest-init: no compiler runs in a guest (make check builds
natively, tests/install/package_dkms.sh).

usage: acct.py on FILE         account every process that ends, in FILE
       acct.py compilers FILE  a PASS or FAIL line: no compiler, linker,
                               assembler or make among FILE's processes
"""
import ctypes
import os
import re
import struct
import sys

# include/uapi/linux/acct.h: 64 bytes a record, either version: struct
# acct_v3 (Debian's kernels) with ac_pid and ac_ppid at 16 and ac_comm
# (16 bytes) at 48, or struct acct, version 2 (the debug kernel's
# defconfig), with ac_comm (17 bytes) at 36 and no PIDs.
SIZE = 64
V3 = struct.Struct("<16xII24x16s")
V2 = struct.Struct("<36x17s")
# A command name is cut to 15 characters: x86_64-linux-gnu-gcc-12 is
# "x86_64-linux-gn".
COMPILER = re.compile(r"(cc|cc1|cc1plus|collect2|c\+\+|g\+\+|gcc(-[0-9]+)?|"
                      r"as|ld(\.bfd|\.gold)?|make|x86_64-linux-gn.*)")


def on(path):
    open(path, "ab").close()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.acct(path.encode()) != 0:
        sys.exit("acct.py: acct(%s): %s" % (path, os.strerror(ctypes.get_errno())))


def compilers(path):
    with open(path, "rb") as f:
        data = f.read()
    seen = []
    n = len(data) // SIZE
    for i in range(n):
        version = data[i * SIZE + 1] & 0x0f
        if version == 3:
            pid, ppid, comm = V3.unpack_from(data, i * SIZE)
            who = " (pid %d, parent %d)" % (pid, ppid)
        elif version == 2:
            comm, who = V2.unpack_from(data, i * SIZE)[0], ""
        else:
            print("FAIL: process accounting (expected version 2 or 3 records, got %d)" % version)
            return 1
        name = comm.split(b"\0")[0].decode(errors="replace")
        if COMPILER.fullmatch(name):
            seen.append(name + who)
    what = "no compiler, linker or make among the guest's %d processes" % n
    if n == 0:
        print("FAIL: %s (expected accounted processes, got none)" % what)
        return 1
    if seen:
        print("FAIL: %s (got %s)" % (what, ", ".join(seen)))
        return 1
    print("PASS: " + what)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("on", "compilers"):
        sys.exit(__doc__)
    if sys.argv[1] == "on":
        on(sys.argv[2])
    else:
        sys.exit(compilers(sys.argv[2]))
