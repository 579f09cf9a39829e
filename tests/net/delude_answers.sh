#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DELUDE --banner's answers to requests carry what the request asked, and
# whole. host's DELUDE --banner (INPUT, ports 135 and 443); a client
# (tests/net/helpers/tcp_client.py ask) sends a request and reads the
# answer to the end, IPv4 and IPv6:
# - 135: a DCE/RPC bind, little-endian and big-endian (its data
#   representation), call id 0x04030201: the bind_nak, which is
#   little-endian, carries that call id, bytes 01 02 03 04;
# - 443: plain HTTP, with an http version of the catalogue's longest
#   (NF_CHAOS_VERSION_MAX, 48 characters): nginx's 400 page, the version
#   whole and the page's last line with its CRLF.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy
setup_topology

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A INPUT -p tcp -m multiport --dports 135,443 \
		-j DELUDE --banner
done
# 48 characters.
VERSION=nginx/1.26.3-$(printf '%035d' 0)
ns host sh -c "echo http=$VERSION > /proc/sys/net/netfilter/nf_chaos_services" ||
	fail "the catalogue with a 48-character version (expected it taken)"

hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
# A bind's 16-byte header (version 5.0, bind, first and last fragment,
# the data representation, fragment length 72, call id), 8 more bytes.
BIND_LE=05000b031000000048000000010203040000000000000000
BIND_BE=05000b030000000000480000040302010000000000000000
NAK=05000d031000000018000000010203040400010500000000
for v in 4 6; do
	dst=$HOST4
	[ $v = 4 ] || dst=$HOST6
	expect "v$v 135: a little-endian bind's call id, little-endian" \
		"$NAK|eof" "$(tcp_client client ask "$dst" 135 "$BIND_LE")"
	expect "v$v 135: a big-endian bind's call id, little-endian" \
		"$NAK|eof" "$(tcp_client client ask "$dst" 135 "$BIND_BE")"
	expect "v$v 443: plain HTTP gets the page whole, its version 48 characters" \
		"$(hex "HTTP/1.1 400 Bad Request")*$(hex "Server: $VERSION")0d0a*$(hex "</head>")0d0a|eof" \
		"$(tcp_client client ask "$dst" 443 "$(hex $'GET / HTTP/1.0\r\n\r\n')")"
done
finish
