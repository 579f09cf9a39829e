#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# Self-test of tests/lib/lib.sh with stock iptables rules only: routing v4/v6,
# servers, rule counters on legacy and nft, nmap through the router.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT
require socat nmap nc

setup_topology
pass "topology: scanner reaches host over v4 and v6"

start_tcp_server host 80 "hello chaos"
for a in "$HOST4" "[$HOST6]"; do
	got=$(ns client timeout 20 socat -t10 -T10 - "TCP:$a:80" </dev/null)
	if [ "$got" = "hello chaos" ]; then
		pass "banner from $a"
	else
		fail "banner from $a (expected 'hello chaos', got '$got')"
	fi
done

for ipt in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
	case $ipt in ip6*) dst=$HOST6 ;; *) dst=$HOST4 ;; esac
	ns host "$ipt" -A INPUT -p tcp --dport 80 -m comment --comment web \
		-j ACCEPT
	ns client timeout 10 nc -z -w5 "$dst" 80
	n=$(ipt_pkts host "$ipt" web)
	if [ "$n" -gt 0 ]; then
		pass "$ipt counts packets to port 80"
	else
		fail "$ipt counts packets to port 80 (expected >0, got $n)"
	fi
	ns host "$ipt" -D INPUT -p tcp --dport 80 -m comment --comment web \
		-j ACCEPT
done

ns host iptables-nft -A INPUT -p tcp --dport 81 -j REJECT --reject-with tcp-reset
scan 60 -sS -p 79-82 "$HOST4"
if [ "$(port_state 80)" = open ] && [ "$(port_state 81)" = closed ]; then
	pass "nmap from scanner sees 80 open, 81 closed"
else
	fail "nmap from scanner (expected 80 open, 81 closed, got: $SCAN_OUT)"
fi
finish
