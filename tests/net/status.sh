#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# chaostables-status with our modules (chaostables-load(8),
# CHAOSTABLES-STATUS): before the rules load, after, and after nft flush
# ruleset; its counters are the modules' (/proc/net/nf_chaos_stat,
# xt_portscan_stat) and xt_recent's, in the namespace it runs in or the
# one -n names.
#
#  scanner 10.0.1.2 ---- router ---- host 10.0.3.2, mangle INPUT by
#  client  10.0.2.2 ----/            chaostables-load (iptables-nft):
#                                      9001  DELUDE
#                                      9002  TARPIT
#                                      9003  CHAOS (UDP)
#                                      9500:9599 -m portscan, recent --set
set -e
source "$(dirname "$0")/../lib/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CONF=$(mktemp -d)
trap 'rc=$?; rm -rf "$CONF"; (exit $rc); cleanup' EXIT

require python3 iptables-nft nft ipset
require_py scapy

setup_topology
BIN=$CONF/bin
ipt_variant_dir nft "$BIN"
cat > "$CONF/rules.v4" <<-'RULES'
	*mangle
	:chaostables-INPUT - [0:0]
	-A chaostables-INPUT -p tcp --dport 9500:9599 -m portscan --stealth --synscan --cnscan --grscan -m recent --name portscan --set
	-A chaostables-INPUT -p tcp --dport 9001 -j DELUDE
	-A chaostables-INPUT -p tcp --dport 9002 -j TARPIT
	-A chaostables-INPUT -p udp --dport 9003 -j CHAOS --rate 1/minute --burst 1
	COMMIT
RULES
: > "$CONF/allowlist"

# st: chaostables-status in host, with iptables-nft first in
# PATH, as the admin's alternatives would have it; its exit in $ST_RC.
st() {
	ST_RC=0
	ST=$(ns host env PATH="$BIN:$PATH" "$TOP/service/chaostables-status" "$CONF" 2>&1) ||
		ST_RC=$?
}
# figure LABEL: the number chaostables-status shows for LABEL.
figure() { sed -n "s/^  $1  *\([0-9]*\)$/\1/p" <<< "$ST"; }
# stat NAME...: the sum of the modules' counters NAME... in host.
stat() {
	ns host cat /proc/net/nf_chaos_stat /proc/net/xt_portscan_stat 2>/dev/null |
		awk -v want=" $* " 'index(want, " " $1 " ") { s += $2 } END { print s + 0 }'
}

st
expect "without rules: exit 1, the rules not as the file" "1 IPv4: *not as $CONF/rules.v4 ?rules: 0, jumps: 0; the file's: 4, 1?: *" \
	"$ST_RC $(grep '^IPv4' <<< "$ST")"

ns host env PATH="$BIN:$PATH" "$TOP/service/chaostables-load" start "$CONF"
st
expect "with the rules: exit 0, the rules as the file" "0 IPv4: *as $CONF/rules.v4 ?rules: 4, jumps: 1?" \
	"$ST_RC $(grep '^IPv4' <<< "$ST")"
expect "with the rules: our modules loaded" "*nf_chaos_reply*xt_portscan*xt_DELUDE*xt_TARPIT*xt_CHAOS*" \
	"$(grep -i '^ *loaded' <<< "$ST" | xargs)"
expect "with the rules: the key id" "key id: [0-9a-f]*" "$(grep '^key id' <<< "$ST" | tr -s ' ')"

# Events: answers of each target, a hold, a stealth probe (remembered).
rawtcp scanner syn "$SCANNER4" "$HOST4" 9001 40001 > /dev/null
rawtcp scanner send tcp "$SCANNER4" "$HOST4" 9001 40002 1 0 A > /dev/null
rawtcp scanner syn "$SCANNER4" "$HOST4" 9002 40003 > /dev/null
rawtcp scanner send udp "$SCANNER4" "$HOST4" 9003 40004 2 0.3 > /dev/null
rawtcp scanner send tcp "$SCANNER4" "$HOST4" 9500 40005 1 0 F > /dev/null
# remembered: the sources in host's xt_recent list portscan.
remembered() { ns host cat /proc/net/xt_recent/portscan 2>/dev/null | wc -l; }
_remembered() { [ "$(remembered)" = 1 ]; }
busywait 20 _remembered || true

st
want="$(remembered) $(stat TarpitHold ChaosHold) \
$(stat DeludeSynAck TarpitSynAck ChaosSynAck) $(stat DeludeRst TarpitRst ChaosRst) \
$(stat ChaosIcmp) $(stat Stealth)"
got="$(figure 'scanners remembered now') $(figure 'held connections started') \
$(figure 'answers: synack') $(figure 'answers: rst') $(figure 'answers: icmp') \
$(figure 'portscan: stealth')"
expect "its figures are the counters (remembered, held, synack, rst, icmp, stealth)" "$want" "$got"
expect "the events moved them" "1 1 1 1 1 1" \
	"$(for n in $got; do [ "$n" -ge 1 ] && echo 1 || echo 0; done | xargs)"

# -n: the same, from the root namespace.
ST_N=$(env PATH="$BIN:$PATH" "$TOP/service/chaostables-status" -n host "$CONF" 2>&1 || true)
if [ "$ST" = "$ST_N" ]; then
	pass "-n host shows host's"
else
	fail "-n host shows host's (expected: ${ST//$'\n'/; }; got: ${ST_N//$'\n'/; })"
fi

ns host nft flush ruleset
_zero() { [ "$(stat DeludeSynAck TarpitHold Stealth)" = 0 ]; }
busywait 20 _zero || true
st
expect "after nft flush ruleset: exit 1, the rules not as the file" "1 IPv4: *not as $CONF/rules.v4 ?rules: 0, jumps: 0; *" \
	"$ST_RC $(grep '^IPv4' <<< "$ST")"
expect "after nft flush ruleset: the counters read zero" "0 0 0" \
	"$(figure 'answers: synack') $(figure 'held connections started') $(figure 'portscan: stealth')"
finish
