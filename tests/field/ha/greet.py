#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""greet.py ADDR PORT GO SECS: a greeting as a Linux client (timestamps
on) gets it: connect to ADDR:PORT (the caller may drop the handshake's
ACK), print "connected", wait until the file GO exists, send a line,
then print what comes back within SECS: "greeted LINE", "closed" (a FIN
and no data), "reset" or "nothing"; or "refused" or "failed ERROR" if
the connect fails."""
import os
import socket
import sys
import time

addr, port, go, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
s = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET)
s.settimeout(30)
try:
    s.connect((addr, port))
except ConnectionRefusedError:
    sys.exit(print("refused"))
except OSError as e:
    sys.exit(print("failed", e))
print("connected", flush=True)
while not os.path.exists(go):
    time.sleep(0.1)
s.sendall(b"\r\n")
s.settimeout(secs)
try:
    data = s.recv(200)
except socket.timeout:
    print("nothing")
except ConnectionResetError:
    print("reset")
else:
    print("greeted " + data.decode(errors="replace").splitlines()[0] if data else "closed")
