#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# CHAOS over IPv6: an nmap -6 -sS scan at a forced speed through
# "ip6tables -j CHAOS --delude" completes, finds the real service open and
# some closed ports faked open; a retry is answered; and a client still
# reaches the service. (How late answers come is chaos_late.sh's.) ICMPv6 is accepted before CHAOS, as on any host:
# without neighbour discovery nothing would reach it.
#
#   scanner fd00:1::2 --- router --- host fd00:3::2
#   client  fd00:2::2 ---/           INPUT: icmpv6, tcp/22 ACCEPT, then CHAOS
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap cleanup EXIT

require nmap socat nc python3
require_py scapy
setup_topology
start_tcp_server host 22 chaos-banner
wait_for_tcp_listen host 22 v6

ns host $IP6T -A INPUT -p ipv6-icmp -j ACCEPT
ns host $IP6T -A INPUT -p tcp --dport 22 -j ACCEPT
ns host $IP6T -A INPUT -j CHAOS --delude --delude-prob 0.2 --reject-prob 1 \
	--rate 1000/sec --burst 1000

scan 180 -6 -sS --min-rate 5000 --max-retries 0 -p 1-300 "$HOST6"
if scan_done; then
	pass "nmap -6 -sS finished in ${SCAN_TIME}s"
else
	fail "nmap -6 -sS finishes (expected done within 180s, got a timeout)"
fi
open=$(open_ports)
echo "open: $open"
check_open_set "IPv6 scan" "$open"

# A first SYN and its retry, in nmap's manner: the retry is answered, late
# (--delude-prob 0.2: with a SYN/ACK).
flags=$(ns scanner python3 - "$HOST6" <<'PY'
import sys
from scapy.all import IPv6, TCP, send, sr1, conf
conf.verb = 0
l3 = IPv6(dst=sys.argv[1])
send(l3 / TCP(sport=45000, dport=1000, flags="S"))
ans = sr1(l3 / TCP(sport=45002, dport=1000, flags="S"), timeout=3)
print(ans[TCP].flags if ans is not None and ans.haslayer(TCP) else "none")
PY
)
expect "IPv6 retry's answer" "@(R|SA)" "$flags"

banner=$(ns client timeout 10 nc -6 -w 5 "$HOST6" 22 < /dev/null || true)
if [ "$banner" = chaos-banner ]; then
	pass "a client still reaches the real service over IPv6"
else
	fail "client reaches [$HOST6]:22 (expected banner chaos-banner, got \"$banner\")"
fi
finish
