#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Replies that must not be routed like others:
# - IPv6 link-local: router connects to host's fe80:: address on eth0;
#   DELUDE, TARPIT in its three modes and CHAOS --delude (--delude-prob 1)
#   in host's INPUT answer, out of eth0;
# - bridged with br_netfilter: namespace "bridge" bridges "bscan" and
#   "bhost" (br0 has no address, so the host has no route), DELUDE and
#   TARPIT in its FORWARD answer bscan, IPv4 and IPv6, from bhost's MAC
#   address, and no reply goes out of the other port to bhost; with an
#   address on br0, a segment for the host itself that came in by a bridge
#   port is answered through OUTPUT and POSTROUTING (REDIRECT undone).
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 tcpdump iptables-legacy ip6tables-legacy

NAMESPACES="$NAMESPACES bridge bscan bhost"
setup_topology

# Link-local.
ll=$(ip -n host -6 -o addr show dev eth0 scope link |
	awk '{ sub("/.*", "", $4); print $4 }')
[ -n "$ll" ] || { fail "host has no link-local address on eth0"; finish; }
ns host ip6tables-legacy -A INPUT -i eth0 -p tcp --dport 40 -j DELUDE
ns host ip6tables-legacy -A INPUT -i eth0 -p tcp --dport 41 -j TARPIT
ns host ip6tables-legacy -A INPUT -i eth0 -p tcp --dport 42 -j TARPIT --honeypot
ns host ip6tables-legacy -A INPUT -i eth0 -p tcp --dport 43 -j TARPIT --reset
ns host ip6tables-legacy -A INPUT -i eth0 -p tcp --dport 44 -j CHAOS \
	--delude --delude-prob 1
peer="$ll%r-host"
expect "$peer DELUDE" reset "$(tcp_client router outcome "$peer" 40)"
expect "$peer TARPIT" "held snd_wnd=0 *" "$(tcp_client router hold "$peer" 41 2)"
expect "$peer TARPIT --honeypot" "acked=100 *" "$(tcp_client router honey "$peer" 42 100)"
expect "$peer TARPIT --reset" refused "$(tcp_client router outcome "$peer" 43)"
expect "$peer CHAOS --delude" "connected*" "$(tcp_client router connect "$peer" 44)"

# Bridge.
if ! modprobe br_netfilter 2>/dev/null && [ ! -d /sys/module/br_netfilter ]; then
	skip "bridge: no br_netfilter module"
	finish
fi
bridge_pair bscan bhost
for ipt in iptables-legacy ip6tables-legacy; do
	ns bridge $ipt -A FORWARD -p tcp --dport 50 -j DELUDE
	ns bridge $ipt -A FORWARD -p tcp --dport 51 -j TARPIT
done
for a in 10.0.9.2 fd00:9::2; do
	ns bscan busybox ping -q -c1 -W5 $a >/dev/null ||
		fail "bridge: bscan cannot ping $a"
done
mac=$(ip -n bhost -o link show eth0 | grep -o 'link/ether [0-9a-f:]*' |
	cut -d' ' -f2)

caps=$(mktemp) capb=$(mktemp)
tcpdump_start bscan "$caps" 300 -l -e -nn -i eth0 tcp
tcpdump_start bhost "$capb" 300 -l -e -nn -i eth0 tcp
for a in 10.0.9.2 fd00:9::2; do
	expect "bridged $a DELUDE" reset "$(tcp_client bscan outcome $a 50)"
	expect "bridged $a TARPIT" "held snd_wnd=0 *" "$(tcp_client bscan hold $a 51 2)"
done
# The last answers still on their way.
sleep 1
tcpdump_stop
n=$(grep -c "^[0-9:.]* $mac > .*Flags \[S\.\]" "$caps" || true)
if [ "$n" -ge 4 ]; then
	pass "bridge: $n SYN/ACKs reach bscan from bhost's MAC $mac"
else
	fail "bridge: SYN/ACKs from $mac at bscan (expected >= 4, got $n: $(grep 'Flags \[S\.\]' "$caps" | head -2 | tr '\n' ' '))"
fi
n=$(grep -c "Flags \[S\.\]" "$capb" || true)
if [ "$n" = 0 ]; then
	pass "bridge: no reply goes out to bhost"
else
	fail "bridge: replies seen at bhost (expected 0, got $n)"
fi
rm -f "$caps" "$caps.err" "$capb" "$capb.err"

# A segment that came in by a bridge port but is for the host is answered
# as any local segment: routed, so REDIRECT is undone (port 8050, not 50).
ip -n bridge addr add 10.0.9.3/24 dev br0
ip -n bridge addr add fd00:9::3/64 dev br0 nodad
for ipt in iptables-legacy ip6tables-legacy; do
	ns bridge $ipt -t nat -A PREROUTING -p tcp --dport 8050 \
		-j REDIRECT --to-ports 50
	ns bridge $ipt -A INPUT -p tcp --dport 50 -j DELUDE
done
for a in 10.0.9.3 fd00:9::3; do
	expect "bridge port to host $a: REDIRECT 8050 to INPUT DELUDE" reset \
		"$(tcp_client bscan outcome $a 8050)"
done

finish
