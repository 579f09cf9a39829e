#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Flows in a conntrack zone: the router puts everything it forwards into
# zone 5 (raw PREROUTING, -j CT --zone 5; in a second pass -j MARK 5 and
# -j CT --zone mark, the zone from the packet's mark) and drops what
# the portscan match calls --stealth. Raw runs before conntrack, so the
# match sees only the zone template and must look each segment's flow up
# in zone 5: echo sessions (v4 and v6) through the router keep echoing
# and none of their bare ACKs matches, while nmap's stealth probes do.
#
#  client --- router: raw CT --zone 5, portscan --stealth DROP --- host
#  scanner ---/
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
zone_cleanup() {
	local rc=$?
	flush_rules router
	(exit $rc)
	cleanup
}
trap zone_cleanup EXIT

require nmap socat conntrack

SECS=8
PORT=2205
ready=$(mktemp -u)
out=$(mktemp)

setup_topology
tcp_server host "$PORT" cat
wait_for_tcp_listen host "$PORT" v6

# zone_rules IPT HOW: the router's zone 5, by number (id) or from the
# packet's mark (mark: CT --zone mark, the zone conntrack takes from it).
zone_rules() {
	if [ "$2" = id ]; then
		ns router "$1" -t raw -A PREROUTING -j CT --zone 5
	else
		ns router "$1" -t raw -A PREROUTING -j MARK --set-mark 5
		ns router "$1" -t raw -A PREROUTING -j CT --zone mark
	fi
}

# zone_pass HOW: sessions and nmap probes through a router in zone 5.
zone_pass() {
	local how=$1 acks hits n rc sessions
	rm -f "$ready" "$ready.go"
	for ipt in iptables-legacy ip6tables-legacy; do
		zone_rules $ipt "$how"
		# Counts the sessions' bare ACKs, so that a zero below means something.
		ns router $ipt -t raw -A PREROUTING -p tcp --dport "$PORT" \
			--tcp-flags SYN,FIN,RST,PSH,ACK ACK -m comment --comment acks
		ns router $ipt -t raw -A PREROUTING -p tcp -m portscan --stealth \
			-m comment --comment stealth -j DROP
	done

	ns client timeout $((SECS + 120)) /usr/bin/python3 \
		"$(dirname "$0")/helpers/live_sessions.py" "$SECS" "$ready" \
		"$HOST4:$PORT" "[$HOST6]:$PORT" > "$out" 2>&1 &
	sessions=$!
	ps_sessions_ready $sessions "$ready" || true
	touch "$ready.go"
	rc=0
	wait $sessions || rc=$?
	sed 's/^/# /' "$out"
	if [ $rc = 0 ] && [ "$(grep -c ' ok ' "$out")" = 2 ]; then
		pass "v4 and v6 sessions in zone 5 ($how) echoed for $SECS s"
	else
		fail "sessions in zone 5 ($how) (expected 2 ok, got rc $rc: $(grep -v ' ok ' "$out" | tr '\n' ';'))"
	fi
	n=$(ns router conntrack -L -w 5 -p tcp --dport "$PORT" 2>/dev/null | grep -c . || true)
	if [ "$n" -ge 2 ]; then
		pass "the sessions are tracked in zone 5 ($how) ($n entries)"
	else
		fail "sessions tracked in zone 5 ($how) (expected >= 2 entries, got $n)"
	fi

	for ipt in iptables-legacy ip6tables-legacy; do
		acks=$(ipt_pkts router $ipt acks)
		hits=$(ipt_pkts router $ipt stealth)
		if [ "$acks" -gt 0 ] && [ "$hits" = 0 ]; then
			pass "$ipt: no bare ACK of a zone-5 ($how) session called stealth ($acks ACKs)"
		else
			fail "$ipt: zone-5 ($how) sessions (expected bare ACKs > 0 and stealth 0, got $acks and $hits)"
		fi
	done

	for t in -sA -sF; do
		scan 60 -T4 --max-retries 0 -p 2206-2209 $t "$HOST4" &
		scan 60 -6 -T4 --max-retries 0 -p 2206-2209 $t "$HOST6"
		wait $! || true
	done
	for ipt in iptables-legacy ip6tables-legacy; do
		hits=$(ipt_pkts router $ipt stealth)
		if [ "$hits" -ge 8 ]; then
			pass "$ipt: nmap -sA -sF probes in zone 5 ($how) called stealth ($hits)"
		else
			fail "$ipt: stealth probes in zone 5 ($how) (expected >= 8, got $hits)"
		fi
	done
	flush_rules router
	ns router conntrack -F >/dev/null 2>&1 || true
}

for how in id mark; do
	zone_pass $how
done

finish
