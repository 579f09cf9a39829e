#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A greeted client is answered as the real server would answer it, not
# reset. host's DELUDE --banner (INPUT, every TCP port); real clients in
# client (tests/net/helpers/tcp_client.py converse), IPv4 and IPv6:
# - requests longer than the answer: a 600-byte HTTP request to 8080, a
#   1,400-byte one to 80, python's ssl's ClientHello to 443 (a TLS alert
#   ends it), a MySQL login to 3306 after its greeting;
# - data sent before the greeting is read: 400 bytes of SMTP pipelining
#   to 25, an SSH client's version and 1,200 bytes to 22;
# each client reads to the end, then closes: its data and FIN are acked
# (no retransmission, nothing unacked, closed without error), and host
# sends no RST (tcpdump).
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 tcpdump iptables-legacy ip6tables-legacy
setup_topology

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A INPUT -p tcp -j DELUDE --banner
done

cap=$(mktemp)
tcpdump_start host "$cap" 60 -n -l -i eth0 tcp
for v in 4 6; do
	dst=$HOST4
	[ $v = 4 ] || dst=$HOST6
	for talk in http600:8080 http1400:80 tls:443 mysql:3306 smtp:25 \
		ssh:22; do
		expect "v$v ${talk%:*} to ${talk#*:} acked, closed" \
			"read=[1-9]* unacked=0 retrans=0 state=7 err=0*" \
			"$(tcp_client client converse "$dst" "${talk#*:}" "${talk%:*}")"
	done
done
tcpdump_stop
rsts=$(grep -cE "IP6? ($HOST4|$HOST6)\.[0-9]+ > .*Flags \[R" "$cap" || true)
expect "host sent no RST" 0 "$rsts"
[ "$rsts" = 0 ] || grep -E "Flags \[R" "$cap" | head -n 12
finish
