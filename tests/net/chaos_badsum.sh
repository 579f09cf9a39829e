#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS in FORWARD (router, conntrack on), IPv4 and IPv6, treats a packet
# with a bad checksum as a real stack does: as if it never came. Any
# answer would tell nmap --badsum that a middlebox answers; and a bad
# probe counted as a probe makes the next good one a retry, which CHAOS
# answers (and climbs a rung ahead of the scanner). router's rx checksum
# offload is off on r-scanner, so the kernel sees the checksums as sent.
# From scanner (rawtcp.py), spoofed sources routed back to it: 3 UDP
# datagrams and 3 TCP SYNs with a bad checksum from one source (retries,
# which CHAOS answers: ICMP port unreachable, RST), then a good one to the
# same port, its first: no answer; 2 good ones from another source: the
# retry is answered (the rule answers).
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy
setup_topology

[ "$(offload router r-scanner rx off)" = 0 ] ||
	fail "router r-scanner rx checksum offload (expected off)"
ip -n router route add 10.9.0.0/16 via "$SCANNER4"
ip -n router -6 route add fd00:9::/32 via "$SCANNER6"

for v in 4 6; do
	ipt=iptables-legacy unr="-p icmp --icmp-type port-unreachable"
	[ $v = 4 ] || ipt=ip6tables-legacy \
		unr="-p ipv6-icmp --icmpv6-type port-unreachable"
	ns router $ipt -A FORWARD -m conntrack --ctstate ESTABLISHED,RELATED \
		-j ACCEPT
	ns router $ipt -A FORWARD -m comment --comment chaos$v -j CHAOS \
		--rate 100/second --burst 100
	for who in bad good; do
		src=10.9.0.1
		[ $v = 4 ] || src=fd00:9::1
		[ $who = bad ] || src=${src%1}2
		# shellcheck disable=SC2086
		ns router $ipt -A OUTPUT -d $src $unr -m comment \
			--comment ${who}unr$v
		ns router $ipt -A OUTPUT -d $src -p tcp --tcp-flags RST RST \
			-m comment --comment ${who}rst$v
	done
done

for v in 4 6; do
	ipt=iptables-legacy dst=$HOST4 bad=10.9.0.1 good=10.9.0.2
	[ $v = 4 ] || ipt=ip6tables-legacy dst=$HOST6 bad=fd00:9::1 good=fd00:9::2
	rawtcp scanner send udp $bad "$dst" 5001 33000 3 0.3 bad
	rawtcp scanner send tcp $bad "$dst" 5002 33000 3 0.3 bad
	rawtcp scanner send udp $bad "$dst" 5001 33000 1 0
	rawtcp scanner send tcp $bad "$dst" 5002 33000 1 0
	rawtcp scanner send udp $good "$dst" 5003 33100 2 0.3
	rawtcp scanner send tcp $good "$dst" 5004 33100 2 0.3
	busywait 30 eval '[ "$(ipt_pkts router $ipt chaos$v)" -ge 12 ]' ||
		fail "v$v: router's CHAOS rule saw $(ipt_pkts router $ipt chaos$v) packets (expected 12)"
	read -r bu br gu gr <<< \
		"$(ipt_pkts router $ipt badunr$v badrst$v goodunr$v goodrst$v)"
	expect "v$v 3 bad UDP checksums, then a good one: port unreachables" \
		0 "$bu"
	expect "v$v 3 bad TCP checksums, then a good one: RSTs" 0 "$br"
	expect "v$v good UDP retry: port unreachables" 1 "$gu"
	expect "v$v good TCP retry: RSTs" 1 "$gr"
done
finish
