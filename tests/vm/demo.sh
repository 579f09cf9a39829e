#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of "make demo": nmap's view of host ports 100-120 from the
# scanner, before and after a DELUDE rule. Port 110 really is open.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

RULE="-p tcp --dport 100:120 -j DELUDE"
# show_scan: what nmap finds open, as it would list it.
show_scan() {
	echo "scanner# nmap -sS -p 100-120 $HOST4"
	scan 300 -sS -p 100-120 "$HOST4"
	echo "PORT     STATE SERVICE"
	open_services | awk -F '\t' '{ printf "%-8s open  %s\n", $1 "/tcp", $2 }'
	echo "($(open_ports | wc -w) of 21 open, ${SCAN_TIME}s)"
	echo
}

setup_topology
start_tcp_server host 110 "+OK pop3 ready"
show_scan
echo "host# iptables -A INPUT $RULE"
# shellcheck disable=SC2086
ns host iptables -A INPUT $RULE
show_scan
open=$(open_ports | wc -w)
if [ "$open" -eq 21 ]; then
	pass "with DELUDE all 21 ports look open to nmap"
else
	fail "with DELUDE all 21 ports look open to nmap (expected 21, got $open)"
fi
finish
