#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A greeting goes once to a flow. host's DELUDE --banner (INPUT, port 22)
# answers handshakes crafted from scanner (tests/net/helpers/rawtcp.py),
# IPv4 and IPv6:
# - the handshake's ACK, sent three times, is greeted once: a replayed ACK
#   (40 bytes) gets no second greeting (up to 200 bytes);
# - another flow's ACK is greeted: a greeting is once a flow, not once a
#   source.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy
setup_topology

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A INPUT -p tcp --dport 22 -j DELUDE --banner
	# scanner has no socket for the SYN/ACKs: no RSTs to host.
	ns scanner $ipt -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
done

for v in 4 6; do
	src=$SCANNER4 dst=$HOST4
	[ $v = 4 ] || src=$SCANNER6 dst=$HOST6
	expect "v$v a replayed handshake ACK is greeted once" "answered 1 of 3" \
		"$(rawtcp scanner greet "$src" "$dst" 22 $((42000 + v)) 3)"
	expect "v$v another flow of the source is greeted" "answered 1 of 1" \
		"$(rawtcp scanner greet "$src" "$dst" 22 $((42010 + v)) 1)"
done
finish
