#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# Answer budgets that a spread of attacker sources cannot take over.
# - TARPIT on host (INPUT, port 9100), net.netfilter.nf_chaos_held_rate=2
#   (answers a second per source): a held peer on client keeps getting
#   its keepalives answered (one a second, at least 9 of 10) while 300
#   IPv4 sources, then the 256 /64s of one /56, each with a cookie of its
#   own, flood host with keepalives at several times the rate each
#   (tests/net/helpers/rawtcp.py from scanner, spoofed, routed back to it; a
#   guest too slow to send 3 a second per source skips the case);
# - CHAOS's state per IPv6 source: a source whose interface ID an
#   attacker chose so that its 32-bit fold (ipv6_addr_hash()) matches the
#   victim's does not share the victim's state: the victim's first probe
#   of a port the attacker probed first gets no answer (a first probe
#   never does), its second one does.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy
setup_topology

ip -n router route add 10.9.0.0/16 via "$SCANNER4"
ip -n router -6 route add fd00:9::/32 via "$SCANNER6"
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A INPUT -p tcp --dport 9100 -j TARPIT
	ns client $ipt -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
done
ns host sysctl -qw net.netfilter.nf_chaos_held_rate=2 ||
	fail "sysctl net.netfilter.nf_chaos_held_rate=2 (expected it set)"

tmp=$(mktemp -d)
for v in 4 6; do
	srcs=() dst=$HOST4 peer=$CLIENT4
	if [ $v = 4 ]; then
		for i in $(seq 0 299); do
			srcs+=("10.9.$((i / 250)).$((i % 250 + 1))")
		done
	else
		dst=$HOST6 peer=$CLIENT6
		for i in $(seq 0 255); do
			srcs+=("$(printf 'fd00:9:0:1%02x::1' "$i")")
		done
	fi
	rawtcp scanner flood "$dst" 9100 40 1500 "${srcs[@]}" > "$tmp/f$v" &
	busywait 60 grep -q flooding "$tmp/f$v" ||
		fail "v$v flood did not start (got: $(cat "$tmp/f$v"))"
	got=$(rawtcp client hold "$peer" "$dst" 9100 43000 10 1)
	wait
	echo "# v$v flood from ${#srcs[@]} sources: $(tail -n 1 "$tmp/f$v")"
	n=$(sed -n 's/^answered \([0-9]*\) of 10$/\1/p' <<< "$got")
	# A guest too slow to flood past the budget proves nothing.
	read -r c sent < <(sed -n 's/^cookies \([0-9]*\) of [0-9]*, sent \([0-9]*\),.*/\1 \2/p' \
		"$tmp/f$v")
	if [ "${c:-0}" = 0 ] || [ $((${sent:-0} / (c * 40))) -lt 3 ]; then
		skip "v$v flood from ${#srcs[@]} sources: under 3 keepalives a second per source, the budget's 2 (got: $(tail -n 1 "$tmp/f$v"))"
	elif [ -n "$n" ] && [ "$n" -ge 9 ]; then
		pass "v$v held peer under a flood from ${#srcs[@]} sources: $got"
	else
		fail "v$v held peer under a flood from ${#srcs[@]} sources (expected >= 9 of 10 keepalives answered, got: $got)"
	fi
done

# The victim is scanner's own address; the attacker's differs in two
# words by the same bit, which cancels in the fold.
VICTIM=$SCANNER6 ATTACKER=fd00:1::1:0:3
ns host ip6tables-legacy -A INPUT -p udp --dport 9200 -m comment \
	--comment iid -j CHAOS --rate 100/second --burst 100
ns host ip6tables-legacy -A OUTPUT -d $VICTIM -p ipv6-icmp \
	--icmpv6-type port-unreachable -m comment --comment unr
rawtcp scanner send udp $ATTACKER "$HOST6" 9200 44000 1 0
rawtcp scanner send udp $VICTIM "$HOST6" 9200 44000 1 0
busywait 30 eval '[ "$(ipt_pkts host ip6tables-legacy iid)" -ge 2 ]' ||
	fail "CHAOS saw $(ipt_pkts host ip6tables-legacy iid) probes (expected 2)"
expect "chosen interface ID: the victim's first probe unanswered" 0 \
	"$(ipt_pkts host ip6tables-legacy unr)"
rawtcp scanner send udp $VICTIM "$HOST6" 9200 44000 1 0
busywait 30 eval '[ "$(ipt_pkts host ip6tables-legacy unr)" -ge 1 ]' || true
expect "chosen interface ID: the victim's retry answered" 1 \
	"$(ipt_pkts host ip6tables-legacy unr)"
finish
