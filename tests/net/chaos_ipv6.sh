#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# CHAOS over IPv6: an nmap -6 -sS scan through "ip6tables -j CHAOS --delude"
# completes, finds the real service open and some closed ports faked open,
# and a client still reaches the service. (The rate limit over IPv6 is in
# chaos_ratelimit.sh.) ICMPv6 is accepted before CHAOS, as on any host:
# without neighbour discovery nothing would reach it.
#
#   scanner fd00:1::2 --- router --- host fd00:3::2
#   client  fd00:2::2 ---/           INPUT: icmpv6, tcp/22 ACCEPT, then CHAOS
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap cleanup EXIT

require nmap socat nc
setup_topology
start_tcp_server host 22 chaos-banner
wait_for_tcp_listen host 22 v6

ns host $IP6T -A INPUT -p ipv6-icmp -j ACCEPT
ns host $IP6T -A INPUT -p tcp --dport 22 -j ACCEPT
ns host $IP6T -A INPUT -j CHAOS --delude --delude-prob 0.2 --reject-prob 1 \
	--rate 1000/sec --burst 1000

scan 180 -6 -sS -T4 --max-retries 2 -p 1-50 "$HOST6"
if scan_done; then
	pass "nmap -6 -sS finished in ${SCAN_TIME}s"
else
	fail "nmap -6 -sS finishes (expected done within 180s, got a timeout)"
fi
open=$(open_ports)
echo "open: $open"
check_open_set "IPv6 scan" "$open"
closed=$(sed -n 's/.*Ports: //p' <<< "$SCAN_OUT" | tr ',' '\n' | grep -c '/closed/' || true)
closed=$((closed + $(grep -o 'Ignored State: closed ([0-9]*)' <<< "$SCAN_OUT" | grep -o '[0-9]*' || echo 0)))
if [ "$closed" -gt 0 ]; then
	pass "IPv6 scan saw $closed ports closed (RSTs arrive)"
else
	fail "IPv6 RSTs reach nmap (expected closed ports, got none)"
fi

banner=$(ns client timeout 10 nc -6 -w 5 "$HOST6" 22 < /dev/null || true)
if [ "$banner" = chaos-banner ]; then
	pass "a client still reaches the real service over IPv6"
else
	fail "client reaches [$HOST6]:22 (expected banner chaos-banner, got \"$banner\")"
fi
finish
