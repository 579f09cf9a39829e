#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A host whose OUTPUT policy is DROP, IPv4 and IPv6. INPUT on host: DELUDE,
# TARPIT in its three modes and CHAOS --delude (--delude-prob 1).
# - OUTPUT accepts --ctstate ESTABLISHED,RELATED only: a tracked probe's
#   reply is RELATED to it and leaves, so every target answers a client;
#   no TCP conntrack entry is left;
# - with the probes exempted (raw -j CT --notrack) the replies are
#   UNTRACKED, and the manual's rule (--ctstate ESTABLISHED,RELATED,
#   UNTRACKED) lets them out: every target answers again, a FIN probe
#   (INVALID, so untracked even when tracked) is reset; still no entry.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 nmap conntrack iptables-legacy ip6tables-legacy

setup_topology

check_no_entry() {
	local c
	c=$(ct_tcp host)
	if [ -z "$c" ]; then
		pass "$1: no TCP conntrack entry"
	else
		fail "$1: TCP conntrack entries (expected none, got: $(head -3 <<< "$c" | tr '\n' ' '))"
	fi
}

all_targets() {
	local what=$1 h
	for h in "$HOST4" "$HOST6"; do
		expect "$what, $h DELUDE" reset "$(tcp_client client outcome "$h" 30)"
		expect "$what, $h TARPIT" "held snd_wnd=0 *" "$(tcp_client client hold "$h" 31 2)"
		expect "$what, $h TARPIT --honeypot" "acked=100 *" "$(tcp_client client honey "$h" 32 100)"
		expect "$what, $h TARPIT --reset" refused "$(tcp_client client outcome "$h" 33)"
		expect "$what, $h CHAOS --delude" "connected*" "$(tcp_client client connect "$h" 34)"
	done
}

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED \
		-j ACCEPT
	ns host $ipt -P OUTPUT DROP
	ns host $ipt -A INPUT -p tcp --dport 30 -j DELUDE
	ns host $ipt -A INPUT -p tcp --dport 31 -j TARPIT
	ns host $ipt -A INPUT -p tcp --dport 32 -j TARPIT --honeypot
	ns host $ipt -A INPUT -p tcp --dport 33 -j TARPIT --reset
	ns host $ipt -A INPUT -p tcp --dport 34 -j CHAOS --delude \
		--delude-prob 1
done
# Neighbour discovery, which conntrack does not track.
ns host ip6tables-legacy -A OUTPUT -p ipv6-icmp -j ACCEPT

all_targets "ESTABLISHED,RELATED"
check_no_entry "tracked probes"

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -R OUTPUT 1 -m conntrack \
		--ctstate ESTABLISHED,RELATED,UNTRACKED -j ACCEPT
	ns host $ipt -t raw -A PREROUTING -p tcp --dport 30:34 -j CT --notrack
done
all_targets "notrack, ESTABLISHED,RELATED,UNTRACKED"
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -t raw -F
done
for h in "$HOST4" "$HOST6"; do
	flag=
	[ "$h" = "$HOST6" ] && flag=-6
	SCAN_FROM=client scan 60 -sF $flag -p 30 --max-retries 1 "$h"
	if [ "$(port_state 30)" = closed ]; then
		pass "$h: FIN probe (INVALID) to DELUDE is reset"
	else
		fail "$h: FIN probe to DELUDE (expected closed, got: $(port_state 30))"
	fi
done
check_no_entry "untracked probes"

finish
