#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of "make demo": nmap's view of host ports 100-120 from the
# scanner, before and after a DELUDE rule. Port 110 really is open.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

RULE="-p tcp --dport 100:120 -j DELUDE"
scan() {
	echo "scanner# nmap -sS -p 100-120 $HOST4"
	ns scanner timeout 300 nmap -n -Pn -sS -p 100-120 "$HOST4" |
		grep -Ev '^(Starting|Nmap done)|^$' | tee /tmp/scan
	echo
}

setup_topology
start_tcp_server host 110 "+OK pop3 ready"
scan
echo "host# iptables -A INPUT $RULE"
# shellcheck disable=SC2086
ns host iptables -A INPUT $RULE
scan
open=$(grep -c '^1[0-2][0-9]/tcp  *open ' /tmp/scan || true)
if [ "$open" -eq 21 ]; then
	pass "with DELUDE all 21 ports look open to nmap"
else
	fail "with DELUDE all 21 ports look open to nmap (expected 21, got $open)"
fi
finish
