#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Answers as a real listener's, IPv4 and IPv6, on host (INPUT):
# - SYN|FIN (hping3 -SF) gets no SYN/ACK from DELUDE, DELUDE --banner,
#   TARPIT or TARPIT --stall: Linux's listener drops it; TARPIT --reset
#   answers it with a RST, as a closed port does; a plain SYN to DELUDE
#   still gets its SYN/ACK (crafted from scanner, tests/net/helpers/rawtcp.py);
# - after CHAOS --delude --banner greets a client, what the client sends
#   next (its ACK of the greeting, data, its FIN) gets no RST, as after
#   DELUDE --banner: CHAOS's negative answers are for probes, and a RST
#   could reach the client before it read the greeting.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy
setup_topology

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A INPUT -p tcp --dport 7001 -j DELUDE
	ns host $ipt -A INPUT -p tcp --dport 7002 -j DELUDE --banner
	ns host $ipt -A INPUT -p tcp --dport 7003 -j TARPIT
	ns host $ipt -A INPUT -p tcp --dport 7004 -j TARPIT --stall
	ns host $ipt -A INPUT -p tcp --dport 7005 -j TARPIT --reset
	ns host $ipt -A INPUT -p tcp --dport 22 --tcp-flags FIN FIN \
		-m comment --comment fin
	ns host $ipt -A INPUT -p tcp --dport 22 -m comment --comment chaos \
		-j CHAOS --delude --delude-prob 1 --banner --reject-prob 1 \
		--rate 100/second --burst 100
	ns host $ipt -A OUTPUT -p tcp --sport 22 --tcp-flags RST RST \
		-m comment --comment rst
	ns scanner $ipt -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
done

for v in 4 6; do
	src=$SCANNER4 dst=$HOST4
	[ $v = 4 ] || src=$SCANNER6 dst=$HOST6
	for port in 7001 7002 7003 7004; do
		r=$(rawtcp scanner syn "$src" "$dst" $port 42000 SF)
		expect "v$v SYN|FIN to port $port: no answer" none "${r%% *}"
	done
	r=$(rawtcp scanner syn "$src" "$dst" 7005 42000 SF)
	expect "v$v SYN|FIN to TARPIT --reset: RST" R. "${r%% *}"
	r=$(rawtcp scanner syn "$src" "$dst" 7001 42001)
	expect "v$v SYN to DELUDE: SYN/ACK" S. "${r%% *}"
done

# From client: connect, read the greeting to its end, send a line, close.
# "greeting|eof" and how the close went.
for dst in "$HOST4" "$HOST6"; do
	got=$(ns client timeout 60 python3 - "$dst" <<-'PY' 2>&1 || true
	import socket, sys, time
	dst = sys.argv[1]
	s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET)
	s.settimeout(10)
	s.connect((dst, 22))
	data = b""
	while True:
	    b = s.recv(4096)
	    if not b:
	        break
	    data += b
	s.sendall(b"QUIT\r\n")
	time.sleep(0.5)
	s.close()
	print(data[:8].decode("latin1") + "|eof")
	PY
	)
	v=4
	[[ $dst != *:* ]] || v=6
	expect "v$v CHAOS --banner greets the client" 'SSH-2.0-|eof' "$got"
done
# SYN, ACK, data (with the ACK of the greeting, or after it), FIN, each
# family: the client's FIN reached CHAOS. Its data and FIN are acked, so
# nothing need come again.
for v in 4 6; do
	ipt=iptables-legacy
	[ $v = 4 ] || ipt=ip6tables-legacy
	busywait 30 eval '[ "$(ipt_pkts host $ipt fin)" -ge 1 ] &&
		[ "$(ipt_pkts host $ipt chaos)" -ge 4 ]' ||
		fail "v$v: CHAOS saw the client's FIN (expected >= 1 FIN of >= 4 segments, got $(ipt_pkts host $ipt fin) of $(ipt_pkts host $ipt chaos))"
	expect "v$v CHAOS --banner: no RST after the greeting" 0 \
		"$(ipt_pkts host $ipt rst)"
done
finish
