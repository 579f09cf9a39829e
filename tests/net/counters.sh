#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# The counters of the modules (chaostables-load(8), COUNTERS): each event
# moves its own counters, by as much as it should, and no other, in the
# netns it happened in; chaostables-prom exports them.
#
#  scanner 10.0.1.2 ---- router ---- host 10.0.3.2, INPUT (iptables-legacy):
#  client  10.0.2.2 ----/              22    DELUDE --banner
#                                      9001  DELUDE
#                                      9002  TARPIT
#                                      9003  CHAOS --rate 1/minute --burst 1
#                                      9500:9599 -m portscan, every class
#
# Events: a SYN to DELUDE (SynAck), an ACK to it (Rst), a greeting;
# a SYN to TARPIT (Hold), its keepalives (Ack), the handshake's ACK (no
# cookie failure: it goes unanswered), a bare ACK (CookieFail),
# keepalives over nf_chaos_held_rate (BudgetDrop); CHAOS's ICMP and its
# rate limit; one segment of each portscan class. Then no rules: zeros.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy socat
require_py scapy
TOP=$(cd "$(dirname "$0")/../.." && pwd)

setup_topology
ns host iptables-legacy -A INPUT -p tcp --dport 22 -j DELUDE --banner
ns host iptables-legacy -A INPUT -p tcp --dport 9001 -j DELUDE
ns host ip6tables-legacy -A INPUT -p tcp --dport 9001 -j DELUDE
ns host iptables-legacy -A INPUT -p tcp --dport 9002 -j TARPIT
ns host iptables-legacy -A INPUT -p udp --dport 9003 \
	-j CHAOS --rate 1/minute --burst 1
ns host iptables-legacy -A INPUT -p tcp --dport 9500:9599 -m portscan \
	--stealth --synscan --cnscan --grscan --mirai
tcp_server host 9501 "exec cat"
tcp_server host 9502 "exec cat"
start_tcp_server host 9503 "220 counters"
wait_for_tcp_listen host 9501 v6
wait_for_tcp_listen host 9502 v6

# stats [NS]: the counters of NS (host), "Name value" a line.
stats() { ns "${1:-host}" cat /proc/net/nf_chaos_stat /proc/net/xt_portscan_stat; }

declare -A before
snap() {
	local k v
	before=()
	while read -r k v; do before[$k]=$v; done < <(stats)
}
# moved: the counters that moved since snap, "Name=delta ..." in file order.
moved() {
	local k v
	stats | while read -r k v; do
		[ "$v" = "${before[$k]:-0}" ] || printf '%s=%s\n' "$k" $((v - ${before[$k]:-0}))
	done | xargs
}
_moved_is() { [[ "$(moved)" == $1 ]]; }

# event WHAT PATTERN CMD...: run CMD; then the counters that moved must
# match PATTERN (a glob of moved's output) within 20 s.
event() {
	local what=$1 pattern=$2
	shift 2
	snap
	"$@" > /dev/null
	busywait 20 _moved_is "$pattern" || true
	expect "$what" "$pattern" "$(moved)"
}

expect "the counters of a netns without rules: 22, all zero" "22 0" \
	"$(stats router | awk '{ s += $2 } END { print NR, s }')"

event "DELUDE's SYN/ACK" "DeludeSynAck=1" \
	rawtcp scanner syn "$SCANNER4" "$HOST4" 9001 40001
event "DELUDE's SYN/ACK over IPv6" "DeludeSynAck=1" \
	rawtcp scanner syn "$SCANNER6" "$HOST6" 9001 40001
event "DELUDE's RST to an ACK" "DeludeRst=1" \
	rawtcp scanner send tcp "$SCANNER4" "$HOST4" 9001 40002 1 0 A
event "DELUDE --banner's greeting" "DeludeSynAck=1 DeludeGreeting=1" \
	tcp_client client greeted "$HOST4" 22
event "TARPIT's hold" "TarpitHold=1" \
	rawtcp scanner syn "$SCANNER4" "$HOST4" 9002 40003
event "TARPIT's answers to keepalives" "TarpitHold=1 TarpitAck=3" \
	rawtcp scanner hold "$SCANNER4" "$HOST4" 9002 40004 3 0.2
# handshake SPORT: a SYN to TARPIT, then the ACK that completes the
# handshake (sequence NXT, where probe sends NXT - 1): a hold's first ACK
# goes unanswered, and is no cookie failure.
handshake() {
	local flags nxt ack
	read -r flags nxt ack <<< "$(rawtcp scanner syn "$SCANNER4" "$HOST4" 9002 "$1")"
	[ "$flags" = S. ] || return 0
	rawtcp scanner probe "$SCANNER4" "$HOST4" 9002 "$1" \
		$(((nxt + 1) % 4294967296)) "$ack"
}
event "TARPIT's hold, the handshake's ACK" "TarpitHold=1" handshake 40008
event "TARPIT's cookie failure" "CookieFail=1" \
	rawtcp scanner send tcp "$SCANNER4" "$HOST4" 9002 40005 1 0 A
ns host sysctl -qw net.netfilter.nf_chaos_held_rate=1
event "TARPIT over its budget" "TarpitHold=1 TarpitAck=1 BudgetDrop=3" \
	rawtcp scanner hold "$SCANNER4" "$HOST4" 9002 40006 4 0
ns host sysctl -qw net.netfilter.nf_chaos_held_rate=1000
# CHAOS answers a port's retry, late, the first probe it only counts (a
# datagram from the same port within a quarter second is the same try).
event "CHAOS's ICMP" "ChaosIcmp=1" \
	rawtcp scanner send udp "$SCANNER4" "$HOST4" 9003 40007 2 0.3
# From a distant source port: a new scan, whose retry is over the rate.
event "CHAOS over its rate" "RateLimitDrop=1" \
	rawtcp scanner send udp "$SCANNER4" "$HOST4" 9003 50007 2 0.3

event "portscan --stealth" "Stealth=1" \
	rawtcp scanner send tcp "$SCANNER4" "$HOST4" 9500 40010 1 0 F
event "portscan --synscan" "Synscan=1" \
	rawtcp scanner syn "$SCANNER4" "$HOST4" 9501 40011
event "portscan --cnscan" "Cnscan=1" \
	tcp_client scanner connect "$HOST4" 9502
event "portscan --grscan" "Grscan=1" \
	tcp_client scanner greeted "$HOST4" 9503
event "portscan --mirai" "Mirai=1" \
	ns scanner /usr/bin/python3 -c "
from scapy.all import IP, TCP, send
send(IP(dst='$HOST4') / TCP(sport=40012, dport=9504, flags='S',
     seq=0x0a000302), verbose=0)"

# What chaostables-prom exports is what the files say.
prom=$(ns host "$TOP/service/chaostables-prom" -)
for m in 'DeludeSynAck chaostables_sent_total{target="DELUDE",kind="synack"}' \
	'TarpitHold chaostables_holds_total{target="TARPIT"}' \
	'ChaosIcmp chaostables_sent_total{target="CHAOS",kind="icmp"}' \
	'CookieFail chaostables_cookie_failures_total' \
	'BudgetDrop chaostables_budget_drops_total' \
	'RateLimitDrop chaostables_ratelimit_drops_total' \
	'LateDrop chaostables_late_drops_total' \
	'Grscan chaostables_portscan_matched_total{class="grscan"}'; do
	read -r k name <<< "$m"
	v=$(stats | awk -v k="$k" '$1 == k { print $2 }')
	expect "chaostables-prom: $k" "$name $v" \
		"$(grep -v '^#' <<< "$prom" | grep -F "$name " || echo none)"
done
expect "chaostables-prom: every kernel metric typed" "" \
	"$(awk '/^# TYPE/ { t[$3] = 1 } /^chaostables_/ { sub(/[{ ].*/, "", $1); if (!($1 in t)) print $1 }' <<< "$prom" | sort -u | xargs)"

# Rules gone: the counters go with the last rule.
ns host iptables-legacy -F INPUT
ns host ip6tables-legacy -F INPUT
expect "the counters once the last rule is gone: 22, all zero" "22 0" \
	"$(stats | awk '{ s += $2 } END { print NR, s }')"

finish
