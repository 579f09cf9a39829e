#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS --delude lies about closed ports, differently on every scan, while
# the real service behind an ACCEPT rule stays reachable.
#
#   scanner 10.0.1.2 --- router --- host 10.0.3.2
#   client  10.0.2.2 ---/            INPUT: tcp/22 ACCEPT, then CHAOS --delude
#
# Three nmap -sS scans of the same 300 ports at a forced speed
# (--min-rate 5000 --max-retries 0: CHAOS deludes first SYNs) must report
# different open sets, each with the real port 22 among them and some
# closed ports posing as open; a client must still get the banner of port
# 22. Scans that wait for retries are slowed, not deluded at once: the
# slowdown has its own tests (chaos_slowdown.sh, chaos_late.sh).
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap cleanup EXIT

require nmap socat nc
setup_topology
start_tcp_server host 22 chaos-banner
wait_for_tcp_listen host 22

ns host $IPT -A INPUT -p tcp --dport 22 -j ACCEPT
ns host $IPT -A INPUT -j CHAOS --delude --delude-prob 0.2 --reject-prob 1 \
	--rate 1000/sec --burst 1000 -m comment --comment chaos

sets=()
for i in 1 2 3; do
	scan 180 -sS --min-rate 5000 --max-retries 0 -p 1-300 "$HOST4"
	if ! scan_done; then
		fail "scan $i finished (expected nmap done within 180s, got a timeout)"
		continue
	fi
	open=$(open_ports)
	sets+=("$open")
	echo "scan $i (${SCAN_TIME}s) open: $open"
	check_open_set "scan $i" "$open"
done

if [ ${#sets[@]} = 3 ] &&
   { [ "${sets[0]}" != "${sets[1]}" ] || [ "${sets[1]}" != "${sets[2]}" ]; }; then
	pass "the three scans disagree about the open ports"
else
	fail "scans disagree (expected different open sets, got: ${sets[*]/#/|})"
fi

# got_banner: the client reads port 22's banner. Its server forks a cat
# per connection: seconds on the debug kernel, beyond one nc's -w 5.
got_banner() {
	banner=$(ns client timeout 20 nc -w 15 "$HOST4" 22 < /dev/null || true)
	[ "$banner" = chaos-banner ]
}
if busywait 60 got_banner; then
	pass "a client still reaches the real service on port 22"
else
	fail "client reaches port 22 (expected banner chaos-banner, got \"$banner\")"
fi

pkts=$(ipt_pkts host $IPT chaos)
if [ "${pkts:-0}" -gt 0 ]; then
	pass "the CHAOS rule saw $pkts packets"
else
	fail "CHAOS rule counter (expected > 0, got ${pkts:-none})"
fi
finish
