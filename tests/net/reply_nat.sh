#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# Replies to NAT'ed flows, IPv4 and IPv6: the reply is attached to the
# segment's conntrack entry, so the NAT is undone on the way out.
# - port forward on router (DNAT public 8025/8026 to host's 25/26) with
#   TARPIT and DELUDE in FORWARD;
# - REDIRECT 8080 to 27 on host with DELUDE in INPUT.
# Checked: the scanner's connection to the public address and port is
# held (TARPIT: handshake done, zero window) or reset after the handshake
# (DELUDE); on scanner's wire every reply comes from the public address
# and port, none from host's inside address or port; no conntrack entry
# is left in router or host.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 tcpdump conntrack iptables-legacy ip6tables-legacy

setup_topology

for v in 4 6; do
	if [ $v = 4 ]; then
		ipt=iptables-legacy host=$HOST4 to=$HOST4
	else
		ipt=ip6tables-legacy host=$HOST6 to="[$HOST6]"
	fi
	ns router $ipt -t nat -A PREROUTING -i r-scanner -p tcp --dport 8025 \
		-j DNAT --to-destination "$to:25"
	ns router $ipt -t nat -A PREROUTING -i r-scanner -p tcp --dport 8026 \
		-j DNAT --to-destination "$to:26"
	ns router $ipt -A FORWARD -p tcp -d "$host" --dport 25 -j TARPIT
	ns router $ipt -A FORWARD -p tcp -d "$host" --dport 26 -j DELUDE
	ns host $ipt -t nat -A PREROUTING -p tcp --dport 8080 \
		-j REDIRECT --to-ports 27
	ns host $ipt -A INPUT -p tcp --dport 27 -j DELUDE
done

cap=$(mktemp)
tcpdump_start scanner "$cap" 300 -l -nn -i eth0 tcp

for v in 4 6; do
	if [ $v = 4 ]; then
		public=$ROUTER_SCANNER4 host=$HOST4
	else
		public=$ROUTER_SCANNER6 host=$HOST6
	fi
	got=$(tcp_client scanner hold "$public" 8025 2)
	if [[ "$got" == "held snd_wnd=0 "* ]]; then
		pass "v$v DNAT + FORWARD TARPIT: connection to $public.8025 held"
	else
		fail "v$v DNAT + FORWARD TARPIT: connection to $public.8025 (expected held snd_wnd=0, got $got)"
	fi
	got=$(tcp_client scanner outcome "$public" 8026)
	if [ "$got" = reset ]; then
		pass "v$v DNAT + FORWARD DELUDE: connection to $public.8026 made, then reset"
	else
		fail "v$v DNAT + FORWARD DELUDE: connection to $public.8026 (expected reset, got $got)"
	fi
	got=$(tcp_client scanner outcome "$host" 8080)
	if [ "$got" = reset ]; then
		pass "v$v REDIRECT + INPUT DELUDE: connection to $host.8080 made, then reset"
	else
		fail "v$v REDIRECT + INPUT DELUDE: connection to $host.8080 (expected reset, got $got)"
	fi
done

# Let tcpdump write out the last segments before reading its output.
sleep 1
tcpdump_stop
for v in 4 6; do
	if [ $v = 4 ]; then
		public=$ROUTER_SCANNER4 host=$HOST4 scanner=$SCANNER4
	else
		public=$ROUTER_SCANNER6 host=$HOST6 scanner=$SCANNER6
	fi
	for src in "$public.8025" "$public.8026" "$host.8080"; do
		if grep -q "IP6\? $src > $scanner\.[0-9]*: Flags \[S\.\]" "$cap"; then
			pass "v$v: SYN/ACK comes from $src"
		else
			fail "v$v: SYN/ACK from $src (expected one, got: $(grep -F "> $scanner." "$cap" | head -4 | tr '\n' ' '))"
		fi
	done
	leaks=$(grep -cE "($host\.(25|26|27)|$public\.(25|26)) > " "$cap" || true)
	if [ "$leaks" = 0 ]; then
		pass "v$v: no reply shows the inside address or port"
	else
		fail "v$v: replies from the inside address or port (expected 0, got $leaks: $(grep -E "$host\.(25|26|27) > " "$cap" | head -2 | tr '\n' ' '))"
	fi
done
rm -f "$cap" "$cap.err"

# The router merely forwards the REDIRECT case's connection to host:8080,
# which DELUDE completes and resets: its entry there is the router's own.
for n in router host; do
	c=$(ct_tcp $n | { [ $n = host ] && cat || grep -v "dport=8080 " || true; })
	if [ -z "$c" ]; then
		pass "$n: no TCP conntrack entry confirmed"
	else
		fail "$n: TCP conntrack entries (expected none, got: $(head -3 <<< "$c" | tr '\n' ' '))"
	fi
done

finish
