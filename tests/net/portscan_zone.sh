#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_portscan and conntrack zones: the router puts all its flows in zone
# 5 (raw: -j CT --zone 5), so the FORWARD rule sees no template. An ACK
# that conntrack finds invalid (it acknowledges data never sent) on a
# live connection is not --stealth: the lookup searches the zones of the
# tracked flows, not only the default one. The same ACK from a port
# without a connection, and nmap -sA, still are. IPv4 and IPv6.
#
#  client --- router: raw CT --zone 5, FORWARD -m portscan --stealth
#             --- host: echo server 2205
set -e
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/portscan_lib.inc"
trap cleanup EXIT

require nmap socat conntrack
/usr/bin/python3 -c 'import scapy' 2>/dev/null || { skip "python3-scapy missing"; finish; }

setup_topology
ps_server host 2205 cat
ps_listen host 2205

# check NS IPT TAG WANT WHAT: PASS if the rule tagged TAG counted WANT
# packets (or at least N, for WANT ">=N").
check() {
	local got
	got=$(ipt_pkts "$1" "$2" "$3")
	if [ "$got" = "$4" ] || { [[ $4 == ">="* ]] && [ "$got" -ge "${4#>=}" ]; }; then
		pass "$5 ($3 counted $got)"
	else
		fail "$5 (expected $3 to count $4, got $got)"
	fi
}

# zone_case IPT DST LIVEPORT CTLPORT SCANFLAG
zone_case() {
	local ipt=$1 dst=$2 live=$3 ctl=$4 v=${5:+v6} out n
	v=${v:-v4}
	ns router $ipt -t raw -A PREROUTING -j CT --zone 5
	ns router $ipt -A FORWARD -p tcp --sport "$live" -m portscan --stealth \
		-m comment --comment live
	ns router $ipt -A FORWARD -p tcp --sport "$ctl" -m portscan --stealth \
		-m comment --comment ctl
	ns router $ipt -A FORWARD -p tcp --dport 2205:2208 -m portscan \
		--stealth -m comment --comment scan

	out=$(ns client timeout 300 /usr/bin/python3 \
		"$(dirname "$0")/zone_invalid_ack.py" eth0 "$dst" 2205 "$live" \
		"$ctl" 2>&1) || true
	if [ "$out" != sent ]; then
		fail "$v: invalid ACK not sent (expected \"sent\", got: $out)"
		return
	fi
	n=$(ns router conntrack -L -w 5 -p tcp --sport "$live" 2>/dev/null | wc -l)
	if [ "$n" = 1 ]; then
		pass "$v: the connection is tracked in zone 5"
	else
		fail "$v: entries of the connection in zone 5 (expected 1, got $n)"
	fi
	check router $ipt live 0 "$v: invalid ACK of a live zone 5 flow is not --stealth"
	check router $ipt ctl 1 "$v: the same ACK without a connection is --stealth"
	ns scanner timeout 60 nmap $5 -n -Pn -T4 --max-retries 0 -sA \
		-p 2205-2208 "$dst" >/dev/null 2>&1 || true
	check router $ipt scan ">=4" "$v: nmap -sA through zone 5 is --stealth"
}

zone_case iptables-legacy "$HOST4" 40000 40001
zone_case ip6tables-legacy "$HOST6" 40002 40003 -6

finish
