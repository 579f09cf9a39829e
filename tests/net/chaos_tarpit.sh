#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS --tarpit holds the peers it tarpits, although it keeps no state: a
# client that connects to a closed port is let in with a zero window, and
# its window probes keep being answered (not reset, though every negative
# answer is allowed here) for as long as the test watches.
#
#   client 10.0.2.2 --- router --- host 10.0.3.2
#                                  INPUT: CHAOS --tarpit --delude-prob 1
#                                         --reject-prob 1 (no rate limit)
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap cleanup EXIT

require python3
setup_topology
ns host $IPT -A INPUT -j CHAOS --tarpit --delude-prob 1 --reject-prob 1 \
	--rate 1000/sec --burst 1000 -m comment --comment chaos

# Connect, fill the socket, then watch the connection for HOLD seconds.
out=$(ns client timeout 60 python3 - "$HOST4" <<'PY'
import socket, sys, time
HOLD = 10
try:
    s = socket.create_connection((sys.argv[1], 5555), timeout=10)
except OSError as e:
    print("connect failed: %s" % e)
    sys.exit(0)
print("connected")
s.setblocking(False)
try:
    while True:
        s.send(b"x" * 65536)
except BlockingIOError:
    pass
end = time.monotonic() + HOLD
while time.monotonic() < end:
    try:
        if s.recv(1) == b"":
            print("closed by peer")
            sys.exit(0)
    except BlockingIOError:
        pass
    except OSError as e:
        print("lost: %s" % e)
        sys.exit(0)
    time.sleep(0.2)
print("held %ds" % HOLD)
PY
)
echo "$out"
if grep -qx connected <<< "$out"; then
	pass "a client connects to a closed port behind CHAOS --tarpit"
else
	fail "connect through CHAOS --tarpit (expected success, got \"$out\")"
fi
if grep -q '^held' <<< "$out"; then
	pass "the tarpitted client is still held ($(tail -n 1 <<< "$out"))"
else
	fail "tarpitted client held (expected held, got \"$(tail -n 1 <<< "$out")\")"
fi
pkts=$(ipt_pkts host $IPT chaos)
if [ "${pkts:-0}" -gt 2 ]; then
	pass "CHAOS saw the handshake and $((pkts - 2)) more segments"
else
	fail "CHAOS counter (expected > 2 packets, got ${pkts:-none})"
fi
finish
