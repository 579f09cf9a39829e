#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# Conntrack cost of DELUDE and TARPIT on host, IPv4 and IPv6.
# Recipe under test (raw table, before conntrack sees the packet):
#   iptables -t raw -A PREROUTING -p tcp --dport PORTS -j CT --notrack
#   iptables -A INPUT -p tcp --dport PORTS -j DELUDE (or TARPIT)
# Replies need no OUTPUT rule: the core sends them untracked. Checked:
# conntrack works in host (a normal connection is tracked); after an nmap
# -sS scan and after 1000 tarpitted connections the conntrack count is 0;
# our replies leave as UNTRACKED; without the notrack rules the count stays
# 0 too (dropped packets never confirm an entry).
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap conntrack socat python3 iptables-legacy
CONNS=1000

setup_topology

ct_count() { ns host conntrack -C; }

# The client's held sockets, closed, keep probing our zero window, and
# each probe has an entry until TARPIT drops it: under load never 0 for
# seconds (seen in CI: count 1, list empty). The probes are silenced at
# the client while the count is read. A confirmed TCP entry lives for a
# minute or more: 5 s of polling lets one already torn down go, and
# misses none that stays.
client_quiet() {
	local ipt
	for ipt in iptables-legacy ip6tables-legacy; do
		ns client $ipt "$1" OUTPUT -p tcp --dport 9000 -j DROP
	done
}
ct_zero() { [ "$(ct_count)" = 0 ]; }
check_zero() {
	local what=$1 c
	client_quiet -A
	busywait 5 ct_zero || true
	c=$(ct_count)
	if [ "$c" = 0 ]; then
		pass "$what: conntrack count 0"
	else
		fail "$what: conntrack count (expected 0, got $c: $(ns host conntrack -L 2>/dev/null | head -3 | tr '\n' ' '))"
	fi
	client_quiet -D
}

# check_scan V TARGET: nmap -sS from scanner sees the 10 deluded ports open.
check_scan() {
	local v=$1 target=$2 n
	scan 120 -sS "-$v" -p 8000-8009 --max-retries 1 "$target"
	n=$(open_ports | wc -w)
	if [ "$n" = 10 ]; then
		pass "scan v$v: nmap -sS sees 10 deluded ports open"
	else
		fail "scan v$v: open ports (expected 10, got $n: $SCAN_OUT)"
	fi
}

tarpit() {
	local target=$1 n=$2 got
	got=$(CLIENT_SECS=180 tcp_client client many "$target" 9000 "$n")
	if [ "$got" = "established=$n" ]; then
		pass "$n tarpitted connections to $target established"
	else
		fail "tarpitted connections to $target (expected established=$n, got $got)"
	fi
}

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A OUTPUT -p tcp -m conntrack --ctstate UNTRACKED \
		-m comment --comment "untracked-$ipt"
	ns host $ipt -A INPUT -p tcp --dport 8000:8009 -j DELUDE
	ns host $ipt -A INPUT -p tcp --dport 9000 -j TARPIT
done

# Control: conntrack is active in host and tracks a real connection.
start_tcp_server host 7000
got=$(CLIENT_SECS=30 tcp_client client outcome "$HOST4" 7000)
c=$(ct_count)
if [ "$got" = data ] && [ "$c" -gt 0 ]; then
	pass "control: a normal connection is tracked ($c entries)"
else
	fail "control: normal connection (expected data and entries > 0, got $got, $c entries)"
fi
ns host conntrack -F 2>/dev/null
check_zero "control flushed"

for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -t raw -A PREROUTING -p tcp --dport 8000:8009 \
		-j CT --notrack
	ns host $ipt -t raw -A PREROUTING -p tcp --dport 9000 -j CT --notrack
done

check_scan 4 "$HOST4"
check_scan 6 "$HOST6"
check_zero "notrack, after nmap -sS v4 and v6"
tarpit "$HOST4" $CONNS
check_zero "notrack, after $CONNS tarpitted v4 connections"
tarpit "$HOST6" 200
check_zero "notrack, after 200 tarpitted v6 connections"

for ipt in iptables-legacy ip6tables-legacy; do
	c=$(ipt_pkts host $ipt "untracked-$ipt")
	if [ "$c" -ge 10 ]; then
		pass "$ipt: replies leave untracked ($c)"
	else
		fail "$ipt: untracked replies (expected >= 10, got $c)"
	fi
	ns host $ipt -t raw -F
done

check_scan 4 "$HOST4"
tarpit "$HOST4" 200
tarpit "$HOST6" 200
check_zero "without notrack, after a scan and 400 tarpitted connections"

finish
