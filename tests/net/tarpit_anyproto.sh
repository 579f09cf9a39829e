#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "-j TARPIT" without "-p tcp", as ban tools write it (crowdsec's firewall
# bouncer with deny_action: TARPIT): the rule loads, holds the scanner's
# TCP on a zero window and drops its UDP and ICMP without an answer, each
# counted by the rule; IPv4 and IPv6, host INPUT (iptables-legacy and
# ip6tables-nft) and router FORWARD (iptables-nft and ip6tables-legacy).
# A TARPIT rule for another protocol only ("-p udp", "! -p tcp") is
# refused.
#
#  scanner 10.0.1.2 --- router: FORWARD -s scanner -d host -j TARPIT
#  fd00:1::2              |
#                         +--- host 10.0.3.2: INPUT -s scanner -d host
#                                   fd00:3::2    -j TARPIT
# (one rule at a time: first host's, then router's)
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 socat iptables-legacy iptables-nft
HOLD=4
N=5

setup_topology
# A held connection dies after 3 unanswered probes (a few seconds).
ns scanner sysctl -qw net.ipv4.tcp_retries2=3

# counters NS IPT: "udp icmp tarpit out" packets of the rules tagged so.
counters() { ipt_pkts "$1" "$2" udp icmp tarpit out; }

# nontcp NS V SCANNER-IPT: UDP and ICMP from scanner to host, dropped by
# the TARPIT rule without -p in NS (host: INPUT, router: FORWARD).
nontcp() {
	local n=$1 v=$2 ipt=$3 dst udp icmp tarpit out what="$1 v$2 ($3)"
	eval "dst=\$HOST$v"
	[ "$v" = 4 ] || dst="[$dst]"
	for _ in $(seq $N); do
		echo ping | ns scanner socat -u - "UDP$v:$dst:5000" 2>/dev/null || true
	done
	eval "dst=\$HOST$v"
	if ns scanner busybox ping -q -c $N -W 1 "$dst" >/dev/null 2>&1; then
		fail "$what: ICMP echo to host dropped (expected no reply, got replies)"
	else
		pass "$what: ICMP echo to host dropped (no reply)"
	fi
	read -r udp icmp tarpit out <<< "$(counters "$n" "$ipt")"
	if [ "$udp" -ge $N ] && [ "$icmp" -ge $N ] &&
	   [ "$tarpit" -ge $((udp + icmp)) ]; then
		pass "$what: UDP and ICMP counted by TARPIT (udp=$udp icmp=$icmp tarpit=$tarpit)"
	else
		fail "$what: UDP and ICMP counted by TARPIT (expected udp, icmp >= $N and tarpit >= their sum, got udp=$udp icmp=$icmp tarpit=$tarpit)"
	fi
	expect "$what: nothing but TCP and neighbour discovery sent to the scanner" 0 "$out"
}

# held V PORT WHAT: the scanner's connection to host:PORT held on a zero
# window with its probes answered.
held() {
	local v=$1 port=$2 what=$3 dst got
	eval "dst=\$HOST$v"
	got=$(CLIENT_SECS=30 tcp_client scanner hold "$dst" "$port" $HOLD)
	if [[ "$got" == "held snd_wnd=0 "* ]]; then
		pass "$what: TCP held on a zero window ($got)"
	else
		fail "$what: TCP held (expected 'held snd_wnd=0 ...', got '$got')"
	fi
}

# rules NS IPT CHAIN SCANNER HOST [MATCH...]: counting rules, the TARPIT
# rule without -p, and a count of what NS sends the scanner other than TCP
# (none of it is ICMP errors or echo replies of ours) and, on IPv6,
# neighbour discovery: the router answers the scanner's unicast probes of
# a stale neighbour entry, which a slow guest lets go stale mid-test.
rules() {
	local n=$1 ipt=$2 c=$3 s=$4 d=$5 icmp=icmp t
	shift 5
	ns "$n" "$ipt" -A "$c" -s "$s" -d "$d" -p udp -m comment --comment udp
	if [[ $ipt == ip6* ]]; then
		icmp=ipv6-icmp
		for t in neighbour-solicitation neighbour-advertisement; do
			ns "$n" "$ipt" -A OUTPUT -d "$s" -p ipv6-icmp \
				--icmpv6-type $t -j ACCEPT
		done
	fi
	ns "$n" "$ipt" -A "$c" -s "$s" -d "$d" -p "$icmp" -m comment --comment icmp
	ns "$n" "$ipt" -A "$c" -s "$s" -d "$d" "$@" -m comment --comment tarpit -j TARPIT
	ns "$n" "$ipt" -A OUTPUT -d "$s" ! -p tcp -m comment --comment out
}

for v in 4 6; do
	eval "s=\$SCANNER$v d=\$HOST$v"
	if [ $v = 4 ]; then hipt=iptables-legacy ript=iptables-nft
	else hipt=ip6tables-nft ript=ip6tables-legacy; fi

	# Refused: a protocol TARPIT cannot answer.
	for r in "-p udp" "! -p tcp"; do
		# shellcheck disable=SC2086
		if ns host "$hipt" -A INPUT $r -j TARPIT 2>/dev/null; then
			fail "$hipt -A INPUT $r -j TARPIT: refused (got success)"
			ns host "$hipt" -F INPUT
		else
			pass "$hipt -A INPUT $r -j TARPIT: refused"
		fi
	done

	# host INPUT
	rules host "$hipt" INPUT "$s" "$d"
	expect "host v$v: the rule has no -p" "-A INPUT -s * -d * -m comment --comment tarpit -j TARPIT" \
		"$(ns host "$hipt-save" | grep -- '--comment tarpit')"
	nontcp host $v "$hipt"
	held $v 9000 "host v$v ($hipt)"
	n=$(ipt_pkts host "$hipt" tarpit)
	read -r udp icmp _ <<< "$(counters host "$hipt")"
	if [ "$n" -gt $((udp + icmp)) ]; then
		pass "host v$v: TCP counted by TARPIT too ($((n - udp - icmp)))"
	else
		fail "host v$v: TCP counted by TARPIT too (expected > $((udp + icmp)) packets, got $n)"
	fi
	ns host "$hipt" -F

	# router FORWARD
	rules router "$ript" FORWARD "$s" "$d"
	nontcp router $v "$ript"
	held $v 9100 "router v$v ($ript)"
	ns router "$ript" -F
done
finish
