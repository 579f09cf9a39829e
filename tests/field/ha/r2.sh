#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The HA pair of two guests (tests/field/ha/pair), r2's guest, booted a
# minute or more after r1's, with its wall clock a second or two ahead:
# two kernels, two clocks, two uptimes. r2 comes up as the backup; the
# scanner, the client and the protected host live here, on the links to
# r1's guest. Through r1 (the primary), IPv4 and IPv6:
# - the client has SSH-like sessions to the host;
# - the scanner has a connection to port 25 held by TARPIT (untracked:
#   the cookie, from the key both share, is all its state) and a
#   greeting pending on port 110: DELUDE --banner's SYN/ACK came, the
#   scanner's ACK of it is dropped on its way out;
# then r1 crashes (on r2's order, over sync) and r2 takes over. What the
# scanner sees on the wire, and its Linux kernel makes of it:
# - the held connections stay held past HOLD_COUNT unanswered keepalives,
#   and TARPIT's TSval to them keeps going forward (r2's first is above
#   r1's last: a Linux peer discards a segment whose TSval went back,
#   RFC 7323 PAWS);
# - the pending greeting comes from r2, and the scanner's kernel takes
#   it (its first data segment carries the cookie of r1's SYN/ACK);
# - the sessions live on.
# vm-timeout: 900
set -e
source "$(dirname "$0")/ha.inc"
NAMESPACES="scanner client host r2 sw"
ha_cleanup() {
	local rc=$?
	flush_rules r2 scanner
	(exit $rc)
	cleanup
}
trap ha_cleanup EXIT

SCAN4=198.51.100.2 SCAN6=2001:db8:1::2
CLIENT4=198.51.100.3 CLIENT6=2001:db8:1::3
HOLD_COUNT=8		# keepalives a held connection sends unanswered, 1 s apart
HOLD_SECS=30		# how long past the takeover a hold must last
PY=/usr/bin/python3
NET=$TOP/tests/net/helpers
HERE=$(dirname "$0")

# node NS BRIDGE ADDR4 ADDR6: NS's eth0 on BRIDGE, routes via its VIPs
node() {
	local v4=$VIP_OUT v6=$VIP6_OUT
	[ "$2" = out ] || v4=$VIP_IN v6=$VIP6_IN
	port "$1" eth0 "$2" "$3/24"
	ip -n "$1" addr add "$4/64" dev eth0 nodad
	ip -n "$1" route add default via $v4
	ip -n "$1" route add default via $v6
}

topology() {
	cleanup_namespaces
	setup_ns $NAMESPACES
	ip -n sw -b - <<-EOF
		link add out type bridge mcast_snooping 0
		link add in type bridge mcast_snooping 0
		link set out up
		link set in up
	EOF
	vm_link wan sw wan
	vm_link lan sw lan
	vm_link sync r2 sync
	ip -n sw link set wan master out
	ip -n sw link set lan master in
	port r2 wan out 198.51.100.12/24
	port r2 lan in 192.0.2.12/24
	node scanner out $SCAN4 $SCAN6
	node client out $CLIENT4 $CLIENT6
	node host in $HOST4 $HOST6
}

# reach NS ADDR: NS pings ADDR (the other guest's r1 routes it)
reach() { ns "$1" busybox ping -q -c1 -W2 "$2" > /dev/null 2>&1; }

# established NS PORT: an established connection to PORT in NS, per family
established() {
	ns "$1" ss -Htn state established "( dport = :$2 )" |
		awk '{ print (gsub(/:/, ":", $4) > 1 ? 6 : 4) }' | sort | xargs
}

# tsvals V: the TSvals of the TARPIT answers to the scanner's held
# connection of IPv(V) on the wire, "MAC TSVAL" each, in order.
tsvals() {
	local h=$HOST4
	[ "$1" = 4 ] || h=$HOST6
	awk -v h="$h.25 > " 'index($0, h) && /TS val / {
		for (i = 1; i < NF; i++)
			if ($i == "val")
				print $2, $(i + 1)
	}' "$D/wire"
}

# ts_check V: r2's TSvals (MAC R2MAC) to IPv(V)'s held connection go up,
# and from above r1's last one (any other MAC): "r1 LAST, r2 FIRST..LAST
# (N answers, +JUMP ms)"
ts_check() {
	tsvals "$1" | awk -v m="$R2MAC" '
		# after(a, b): TSval b minus a, modulo 2^32 (RFC 7323)
		function after(a, b) {
			b -= a
			return b >= 2^31 ? b - 2^32 : b < -2^31 ? b + 2^32 : b
		}
		$1 != m { if (n2) back = 1; last1 = $2; next }
		{ if (n2++ == 0) first2 = $2; else if (after(prev, $2) < 0) back = 1; prev = $2 }
		END {
			jump = after(last1, first2)
			printf "r1 %s, r2 %s..%s (%d answers, %+d ms)", last1, first2, prev, n2, jump
			if (!n2 || last1 == "" || jump <= 0 || back)
				exit 1
		}'
}

topology
expect "the scanner's Linux uses TCP timestamps" 1 \
	"$(ns scanner sysctl -n net.ipv4.tcp_timestamps)"
tcp_server host 22 cat
wait_for_tcp_listen host 22 v6
router r2
R2MAC=$(ip -n r2 -o link show wan | grep -o 'link/ether [^ ]*' | cut -d' ' -f2)
started=$(now)
if busywait 60 is_state r2 backup; then
	pass "r2 backup beside r1 (booted $(cut -d' ' -f1 /proc/uptime) s ago)"
else
	fail "r2 backup (expected state backup, got '$(state r2)'; $(tail -n 5 "$D/r2/keepalived.log" | tr '\n' ';'))"
fi
if busywait 60 reach client $HOST4 && busywait 60 reach client $HOST6; then
	pass "the client reaches the host through r1, IPv4 and IPv6"
else
	fail "the client reaches the host through r1 (expected pings of $HOST4 and $HOST6 answered)"
fi

tcpdump_start scanner "$D/wire" 800 -i eth0 -nn -l -e -tt \
	"tcp src port 25 or tcp src port $BANNER_PORT"

ready=$D/sessions
ns client timeout 800 $PY "$NET/live_sessions.py" 800 "$ready" \
	$HOST4:22 "[$HOST6]:22" > "$D/sessions.out" 2>&1 &
sessions=$!
ps_ready() { [ -e "$ready" ] || ! kill -0 $sessions 2>/dev/null; }
busywait 120 ps_ready || true
[ -e "$ready" ] || fail "sessions not open within 120 s ($(cat "$D/sessions.out"))"
touch "$ready.go"

for h in $HOST4 $HOST6; do
	ns scanner timeout 800 $PY "$NET/tcp_client.py" idle $h 25 800 \
		$HOLD_COUNT > "$D/hold.$h" 2>&1 &
done
_held() { [ "$(established scanner 25)" = "4 6" ]; }
if busywait 60 _held; then
	pass "r1's TARPIT holds the scanner's connections to port 25, IPv4 and IPv6"
else
	fail "held connections through r1 (expected IPv4 and IPv6 established, got '$(established scanner 25)': $(cat "$D"/hold.*))"
fi

# A greeting through r1, then one left pending: its handshake's ACK never
# leaves the scanner.
touch "$D/now"
expect "r1 greets the scanner on port $BANNER_PORT, IPv4 and IPv6" "greeted * greeted *" \
	"$(for h in $HOST4 $HOST6; do
		ns scanner timeout 60 $PY "$HERE/greet.py" $h $BANNER_PORT "$D/now" 10 | tail -n 1
	done | xargs)"
for ipt in $IPT $IP6T; do
	ns scanner $ipt -A OUTPUT -p tcp --dport $BANNER_PORT --tcp-flags ALL ACK -j DROP
done
for h in $HOST4 $HOST6; do
	ns scanner timeout 800 $PY "$HERE/greet.py" $h $BANNER_PORT "$D/go" 20 \
		> "$D/greet.$h" 2>&1 &
done
_pending() { grep -qs connected "$D/greet.$HOST4" && grep -qs connected "$D/greet.$HOST6"; }
busywait 60 _pending ||
	fail "greetings pending (expected connected, got $(cat "$D"/greet.*))"

# conntrackd -t at keepalived's start flushes r2's table a minute later
# (doc/ha-pair.md): the crash comes after it.
busywait 120 _after "$started" 65 || true
echo "# +${SECONDS}s: r1 crashes"
crash=$(now)
echo crash | ns r2 timeout 30 socat -u - TCP:192.168.100.1:$CRASH_PORT ||
	fail "r2 orders r1's crash over sync"
if busywait 60 took_over r2 "$crash"; then
	read -r vip2 end < <(run_after r2 primary "$crash")
	pass "r2 primary: VIPs moved $(since "$crash" "$vip2") s after r1's crash, primary-backup.sh primary ran for $(since "$vip2" "$end") s more"
else
	vip2=$(now)
	fail "r2 primary after r1's crash (expected the VIPs and state primary, got state '$(state r2)'; $(tail -n 5 "$D/r2/keepalived.log" | tr '\n' ';'))"
fi

touch "$D/go"
_greeted() { [ "$(cat "$D/greet.$HOST4" "$D/greet.$HOST6" | wc -l)" -ge 4 ]; }
busywait 60 _greeted || true
g4=$(sed -n 2p "$D/greet.$HOST4") g6=$(sed -n 2p "$D/greet.$HOST6")
expect "the pending greeting comes from r2 and the scanner's Linux takes it, IPv4 and IPv6" \
	"greeted * greeted *" "$g4 $g6"

busywait 60 _after "$vip2" $HOLD_SECS || true
held=$(since "$vip2")
alive=$(established scanner 25)
died=()
for h in $HOST4 $HOST6; do
	died[${#died[@]}]=$(died_after "$D/hold.$h" "$vip2")
done
if [ "$alive" = "4 6" ] && [ ! -s "$D/hold.$HOST4" ] && [ ! -s "$D/hold.$HOST6" ]; then
	pass "TARPIT holds survive the failover, IPv4 and IPv6: held by r2 ${held} s after it"
else
	fail "TARPIT holds after the failover (expected IPv4 and IPv6 still held ${held} s after it, got '$alive'; died ${died[0]:-no} / ${died[1]:-no} s after the VIPs moved)"
fi
tcpdump_stop
for v in 4 6; do
	if ts=$(ts_check $v); then
		pass "TARPIT's TSval to the held connection goes on forward, IPv$v: $ts"
	else
		fail "TARPIT's TSval to the held connection, IPv$v (expected r2's first above r1's last and rising, got $ts; the last three, MAC TSval: $(tsvals $v | tail -n 3 | xargs))"
	fi
done

touch "$ready.stop"
rc=0
wait $sessions || rc=$?
sed 's/^/# /' "$D/sessions.out"
if [ $rc = 0 ] && [ "$(grep -c ' ok ' "$D/sessions.out")" = 2 ]; then
	pass "SSH-like sessions survive the failover, IPv4 and IPv6"
else
	fail "sessions across the failover (expected 2 ok, got rc $rc: $(grep -v ' ok ' "$D/sessions.out" | tr '\n' ';'))"
fi
echo "# failover (wall clock of r2's guest): held ${held} s after it (IPv4 ${died[0]:+died at }${died[0]:-alive}, IPv6 ${died[1]:+died at }${died[1]:-alive}); TSval IPv4 $(ts_check 4), IPv6 $(ts_check 6); greeting IPv4 '$g4', IPv6 '$g6'"
[ "$_nfail" = 0 ] || ha_log r2
finish
