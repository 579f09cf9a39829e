#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_portscan mark mask handling: a custom mask works and leaves the other
# connmark bits alone; one mask per network namespace (both families), a
# different one is refused there but accepted in another namespace; with
# no rule left the tracking hook is gone and new flows keep mark 0.
#
#  scanner 10.0.1.2 --- router --- host 10.0.3.2: INPUT -m portscan,
#                                  echo servers 2000-2002, banner 2100
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT

require nmap socat conntrack

IPT=iptables-legacy
MASK=0x3e0

setup_topology
ps_servers host

# flow_mark: connmark of the last TCP flow to the banner port, decimal.
flow_mark() {
	ns host conntrack -L -p tcp --dport "$PS_BANNER" 2>/dev/null |
		sed -n 's/.*mark=\([0-9]*\).*/\1/p' | tail -n 1
}

# refused WHAT CMD...: PASS if CMD fails.
refused() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		fail "$what (expected the rule to be refused, got accepted)"
	else
		pass "$what"
	fi
}

ns host $IPT -t mangle -A PREROUTING -p tcp -j CONNMARK --set-xmark 0x1/0x1
ps_rules host $IPT INPUT --mark-mask $MASK
ps_scan host $IPT "$HOST4" "nmap -sS with --mark-mask $MASK" \
	"stealth=0 synscan>=3 cnscan=0 grscan=0" -sS
ps_run host $IPT "banner grab with --mark-mask $MASK" \
	"stealth=0 synscan=0 cnscan=0 grscan=1" scanner grab "$HOST4" "$PS_BANNER"
m=$(flow_mark)
# TRACKED ACKED REPLY_DATA REPLY_FIN = 0b11011 at bit 5, plus CONNMARK's 0x1.
if [ "$m" = $(((0x1b << 5) | 1)) ]; then
	pass "state bits in $MASK, other connmark bit kept (mark=$m)"
else
	fail "state bits in $MASK, other connmark bit kept (expected mark=$(((0x1b << 5) | 1)), got '$m')"
fi

refused "other mask refused in the same netns (iptables)" \
	ns host $IPT -A INPUT -p tcp -m portscan --synscan --mark-mask 0x1f
refused "other mask refused in the same netns (ip6tables)" \
	ns host ip6tables-nft -A INPUT -p tcp -m portscan --synscan --mark-mask 0x1f
if ns host ip6tables-nft -A INPUT -p tcp -m portscan --synscan \
	--mark-mask $MASK; then
	pass "same mask accepted for the other family"
else
	fail "same mask accepted for the other family (expected success, got refusal)"
fi
if ns router $IPT -A FORWARD -p tcp -m portscan --synscan --mark-mask 0x1f; then
	pass "other mask accepted in another netns"
else
	fail "other mask accepted in another netns (expected success, got refusal)"
fi
if dmesg | grep -q "portscan.*differs"; then
	pass "refusal explained in the kernel log"
else
	fail "refusal explained in the kernel log (expected a 'differs' line, got none)"
fi

ns host $IPT -F INPUT
ns host ip6tables-nft -F INPUT
ns host conntrack -D -p tcp --dport "$PS_BANNER" >/dev/null 2>&1 || true
out=$(ns scanner timeout 30 $PS_CLIENT grab "$HOST4" "$PS_BANNER" 2>&1) || true
m=$(flow_mark)
if [ "$m" = 1 ]; then
	pass "no rule left: new flow carries no state bits (mark=$m)"
else
	fail "no rule left: new flow carries no state bits (expected mark=1, got '$m', client: $out)"
fi

ps_rules host $IPT INPUT --mark-mask 0x1f
ps_scan host $IPT "$HOST4" "nmap -sS after switching to --mark-mask 0x1f" \
	"stealth=0 synscan>=3 cnscan=0 grscan=0" -sS

finish
