#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The guest's process accounting (BSD acct, v3 records), for
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

# struct acct_v3 (include/uapi/linux/acct.h): 64 bytes, ac_version 3,
# ac_pid and ac_ppid at 16, ac_comm (16 bytes) at 48.
RECORD = struct.Struct("<xB14xII24x16s")
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
    n = len(data) // RECORD.size
    for i in range(n):
        version, pid, ppid, comm = RECORD.unpack_from(data, i * RECORD.size)
        name = comm.split(b"\0")[0].decode(errors="replace")
        if version != 3:
            print("FAIL: process accounting (expected v3 records, got version %d)" % version)
            return 1
        if COMPILER.fullmatch(name):
            seen.append("%s (pid %d, parent %d)" % (name, pid, ppid))
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
