#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# TARPIT modes against a real Linux client, IPv4 and IPv6:
#  --tarpit    connect succeeds, the send stalls on a zero window, no
#              payload leaves the client, and the connection outlives
#              tcp_retries2=3 zero-window probes because each is answered,
#              for 6 s and, beside the other checks, for 60 s;
#  --honeypot  the payload arrives (string-match counter), all of it is
#              acked even in GSO/GRO-sized skbs, and the client's FIN too;
#  --reset     connect is refused;
#  --stall     connect succeeds with the host's own window, the payload
#              leaves the client, none of it is acked, the window closes
#              to zero, and the client's retransmissions are answered, so
#              it holds on for 6 s and, beside the other checks, for 60 s.
# INPUT on host (iptables-legacy), --tarpit also in FORWARD on router
# (iptables-nft).
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy iptables-nft
HOLD=6
LONG_HOLD=60
HONEY_BYTES=200000

setup_topology
# Unanswered probes would kill a connection after 3 of them (~3s).
ns client sysctl -qw net.ipv4.tcp_retries2=3

for v in 4 6; do
	ipt=iptables-legacy
	[ $v = 6 ] && ipt=ip6tables-legacy
	ns host $ipt -A INPUT -p tcp --dport 9000 -m string --algo bm \
		--string CHAOSPAYLOAD -m comment --comment "payload-tarpit$v"
	ns host $ipt -A INPUT -p tcp --dport 9001 -m string --algo bm \
		--string CHAOSPAYLOAD -m comment --comment "payload-honey$v"
	ns host $ipt -A INPUT -p tcp --dport 9001 -m length \
		--length 1600:65535 -m comment --comment "big-honey$v"
	ns host $ipt -A INPUT -p tcp --dport 9000 -j TARPIT
	ns host $ipt -A INPUT -p tcp --dport 9001 -j TARPIT --honeypot
	ns host $ipt -A INPUT -p tcp --dport 9002 -j TARPIT --reset
	ns host $ipt -A INPUT -p tcp --dport 9003 -m string --algo bm \
		--string CHAOSPAYLOAD -m comment --comment "payload-stall$v"
	ns host $ipt -A INPUT -p tcp --dport 9003:9004 -j TARPIT --stall
	ns host $ipt -A OUTPUT -p tcp --sport 9003 --tcp-flags SYN NONE \
		-m comment --comment "answer-stall$v"
done
ns router iptables-nft -A FORWARD -p tcp -d "$HOST4" --dport 9100 \
	-j TARPIT --tarpit
ns router ip6tables-nft -A FORWARD -p tcp -d "$HOST6" --dport 9100 \
	-j TARPIT --tarpit

# hold_verdict WHAT SECS MIN_PROBES GOT: tcp_client.py hold's report
hold_verdict() {
	local what=$1 secs=$2 min=$3 got=$4 wnd backoff
	wnd=$(sed -n 's/^held .*snd_wnd=\([0-9]*\).*/\1/p' <<< "$got")
	backoff=$(sed -n 's/^held .*backoff=\([0-9]*\).*/\1/p' <<< "$got")
	if [ "$wnd" = 0 ] && [ "${backoff:-0}" -ge "$min" ]; then
		pass "$what: connection held ${secs}s on a zero window, $backoff probes answered ($got)"
	else
		fail "$what: tarpit hold (expected 'held snd_wnd=0 backoff>=$min', got '$got')"
	fi
}

# check_hold WHAT TARGET PORT
check_hold() {
	local got
	got=$(CLIENT_SECS=60 tcp_client client hold "$2" "$3" $HOLD)
	hold_verdict "$1" $HOLD 3 "$got"
}

# stall_verdict WHAT SECS GOT ANSWERS: tcp_client.py hold's report against
# --stall, and how many answers (not the SYN/ACK) host sent meanwhile. The
# retransmissions back off from the RTO, 200 ms or more in a loaded guest:
# at least 2 within 6 s (once it has seen the zero window, the client
# would wait 4 minutes even unanswered, so its hold alone proves little).
# Of the bytes acked only the SYN's one counts.
stall_verdict() {
	local what=$1 secs=$2 got=$3 answers=$4
	if [[ "$got" == "held snd_wnd=0 "*" acked=1 "* ]] && [ "$answers" -ge 2 ]; then
		pass "$what: held ${secs}s, nothing acked, zero window, $answers retransmissions answered ($got)"
	else
		fail "$what: stall (expected 'held snd_wnd=0 ... acked=1' and >= 2 answers, got '$got', $answers answers)"
	fi
}

# check_stall V TARGET
check_stall() {
	local ipt=iptables-legacy got c0
	[ "$1" = 6 ] && ipt=ip6tables-legacy
	c0=$(ipt_pkts host $ipt "answer-stall$1")
	got=$(CLIENT_SECS=60 tcp_client client hold "$2" 9003 $HOLD)
	stall_verdict "INPUT v$1 --stall" $HOLD "$got" \
		$(($(ipt_pkts host $ipt "answer-stall$1") - c0))
	c0=$(ipt_pkts host $ipt "payload-stall$1")
	if [ "$c0" -gt 0 ]; then
		pass "INPUT v$1 --stall: the payload left the client ($c0 packets)"
	else
		fail "INPUT v$1 --stall: payload packets (expected > 0, got 0)"
	fi
}

# A real client held for a minute, beside the other checks: its probes
# back off to 8 RTOs apart (tcp_retries2=3 caps the backoff), and three
# unanswered in a row would end it.
long4=$(mktemp) long6=$(mktemp) longs=
for v in 4 6; do
	target=$HOST4 out=$long4
	[ $v = 6 ] && target=$HOST6 out=$long6
	CLIENT_SECS=$((LONG_HOLD + 60)) tcp_client client hold "$target" 9000 \
		$LONG_HOLD > "$out" &
	longs="$longs $!"
done
# And one held by --stall, on a port of its own.
longstall=$(mktemp)
CLIENT_SECS=$((LONG_HOLD + 60)) tcp_client client hold "$HOST4" 9004 \
	$LONG_HOLD > "$longstall" &
longs="$longs $!"

for v in 4 6; do
	ipt=iptables-legacy target=$HOST4
	[ $v = 6 ] && ipt=ip6tables-legacy target=$HOST6

	check_hold "INPUT v$v --tarpit" "$target" 9000
	c=$(ipt_pkts host $ipt "payload-tarpit$v")
	if [ "$c" = 0 ]; then
		pass "INPUT v$v --tarpit: no payload left the client"
	else
		fail "INPUT v$v --tarpit: payload packets (expected 0, got $c)"
	fi

	got=$(CLIENT_SECS=60 tcp_client client honey "$target" 9001 $HONEY_BYTES)
	acked=$(sed -n 's/^acked=\([0-9]*\) .*/\1/p' <<< "$got")
	if [ "${acked:-0}" -ge $HONEY_BYTES ] && grep -q 'state=5$' <<< "$got"; then
		pass "INPUT v$v --honeypot: all $HONEY_BYTES bytes and the FIN acked ($got)"
	else
		fail "INPUT v$v --honeypot: (expected acked>=$HONEY_BYTES and state=5, got '$got')"
	fi
	c=$(ipt_pkts host $ipt "payload-honey$v")
	if [ "$c" -gt 0 ]; then
		pass "INPUT v$v --honeypot: payload received ($c packets matched)"
	else
		fail "INPUT v$v --honeypot: payload packets (expected > 0, got 0)"
	fi
	c=$(ipt_pkts host $ipt "big-honey$v")
	if [ "$c" -gt 0 ]; then
		pass "INPUT v$v --honeypot: answered $c skbs larger than the MTU"
	else
		fail "INPUT v$v --honeypot: skbs larger than the MTU (expected > 0, got 0)"
	fi

	got=$(CLIENT_SECS=60 tcp_client client outcome "$target" 9002)
	if [ "$got" = refused ]; then
		pass "INPUT v$v --reset: connect refused"
	else
		fail "INPUT v$v --reset: connect (expected refused, got $got)"
	fi

	check_hold "FORWARD v$v --tarpit" "$target" 9100

	check_stall $v "$target"
done

# shellcheck disable=SC2086
wait $longs || true
hold_verdict "INPUT v4 --tarpit, long" $LONG_HOLD 3 "$(cat "$long4")"
hold_verdict "INPUT v6 --tarpit, long" $LONG_HOLD 3 "$(cat "$long6")"
got=$(cat "$longstall")
if [[ "$got" == "held snd_wnd=0 "*" acked=1 "* ]]; then
	pass "INPUT v4 --stall, long: held ${LONG_HOLD}s, nothing acked ($got)"
else
	fail "INPUT v4 --stall, long: (expected 'held snd_wnd=0 ... acked=1', got '$got')"
fi
rm -f "$long4" "$long6" "$longstall"

finish
