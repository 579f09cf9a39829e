#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# Debian's keepalived and conntrackd with our rules, the same for each
# kernel (the cookies and holds themselves: reply_keys.sh, tarpit.sh):
# vm-field-root
# An active/backup firewall pair, as Debian runs one: keepalived moves the
# virtual addresses, conntrackd (FTFW, over a link of its own) replicates
# conntrack, marks included, and Debian's primary-backup.sh commits the
# replica on the new primary. Both routers carry the manual's ruleset made
# a router's (its rules in FORWARD for what comes in on wan: portscan,
# recent, TARPIT, DELUDE, CHAOS --delude) and the same
# net.netfilter.nf_chaos_key.
#
#  scanner 198.51.100.2 (nmap), .4 (split flows), .5 (remembered scanner)
#     |       client 198.51.100.3
#     |                 |
#  ===+==== bridge out (sw) 198.51.100.0/24 ===+====
#     |  wan .11  VIP .1        wan .12  |
#     r1 (primary) ------ sync ------ r2 (backup)    keepalived (VRRP 61,
#     |  lan .11  VIP .1        lan .12  | 192.168.100.1, .2  62), conntrackd
#  ===+==== bridge in (sw) 192.0.2.0/24 =======+====   FTFW multicast
#     |
#  host 192.0.2.10: echo 22, 80, banner 21 (accepted); 25 held by TARPIT
#
# The rules, conntrackd.conf and keepalived.conf are those of the guide
# doc/ha-pair.md, with each router's own addresses and file paths.
#
# Phase 1, r1 crashes (everything in it killed, links down) mid-scan:
# - three slow nmap scans (-sS -sT -sF, -r, 3 s apart) are classified on
#   r1 up to port 22 and on r2 from port 80 on;
# - flows begun on r1 (a half-open scan's SYN and SYN/ACK, a connect
#   scan's and a banner grab's handshake) and ended on r2 are classified
#   there by the replicated connmark (the same mark on both boxes);
# - xt_recent is not replicated: a source r1 remembers, and whose
#   connection r1's recent rule holds, is unknown to r2, which cuts it;
# - a TARPIT-held connection (port 25, untracked: the cookie is all the
#   state) is still held by r2, whose key is r1's;
# - SSH-like sessions live on, an idle one (keepalives only) too.
# Phase 2, r1 comes back (fresh conntrack and recent, but a key of its own)
# as backup (nopreempt), gets r2's flows (conntrackd -n), and takes over
# when keepalived stops on r2: flows begun on r2 are classified on r1, the
# sessions live on, and the connection held since phase 1 is cut: r1 does
# not recognise r2's cookie.
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
source "$(dirname "$0")/../lib/ha.inc"
NAMESPACES="scanner client host r1 r2 sw"
ha_cleanup() {
	local rc=$?
	flush_rules r1 r2
	(exit $rc)
	cleanup
}
trap ha_cleanup EXIT

require conntrackd keepalived nmap socat conntrack python3 iptables-nft

# The manual's addresses (doc/ha-pair.md): outside 198.51.100.0/24, inside
# 192.0.2.0/24, sync 192.168.100.0/24.
SCAN4=198.51.100.2 CLIENT4=198.51.100.3 SPLIT4=198.51.100.4
LATE4=198.51.100.5 HOST4=192.0.2.10
VIP_OUT=198.51.100.1 VIP_IN=192.0.2.1
KEY=00112233445566778899aabbccddeeff
KEY2=ffeeddccbbaa99887766554433221100
KEY3=0123456789abcdef0123456789abcdef
IPT=iptables-nft
ALL="$PS_CLASSES split_stealth split_synscan split_cnscan split_grscan"
HOLD_COUNT=8		# keepalives a held client sends unanswered, 1 s apart
# A hold cut by the box that took over ends within this many seconds of
# the VIPs moving: the unanswered keepalives, and time for a loaded TCG
# guest.
CUT_BOUND=$((HOLD_COUNT + 12))
SCAN_PORTS=20,22-24,26-29,80	# -r: 22 second, 80 last, 3 s apart
D=$(mktemp -d)
PY=/usr/bin/python3
NET=$(dirname "$0")/helpers
TOP=$(cd "$(dirname "$0")/../.." && pwd)

topology() {
	cleanup_namespaces
	setup_ns $NAMESPACES
	ip -n sw -b - <<-EOF
		link add out type bridge mcast_snooping 0
		link add in type bridge mcast_snooping 0
		link set out up
		link set in up
	EOF
	port scanner eth0 out $SCAN4/24
	ip -n scanner addr add $SPLIT4/24 dev eth0
	ip -n scanner addr add $LATE4/24 dev eth0
	port client eth0 out $CLIENT4/24
	port host eth0 in $HOST4/24
	for r in r1 r2; do
		local i=${r#r}
		port $r wan out 198.51.100.1$i/24
		port $r lan in 192.0.2.1$i/24
		# A half-open flow's entry lives 60 s after a SYN/ACK by
		# default: the host resends them ever further apart, and the
		# scans around the crash outlast that under KASAN.
		ns $r sysctl -qw net.ipv4.ip_forward=1 \
			net.netfilter.nf_conntrack_events=1 \
			net.netfilter.nf_conntrack_tcp_timeout_syn_recv=600 \
			net.netfilter.nf_chaos_key=$KEY
	done
	ip link add sync netns r1 type veth peer name sync netns r2
	ip -n r1 addr add 192.168.100.1/24 dev sync
	ip -n r2 addr add 192.168.100.2/24 dev sync
	ip -n r1 link set sync up
	ip -n r2 link set sync up
	ip -n scanner route add default via $VIP_OUT
	ip -n client route add default via $VIP_OUT
	ip -n host route add default via $VIP_IN
	# The half-open flows' SYN/ACKs, resent for minutes, refresh their
	# entries on the routers (SYN_RECV, 600 s there).
	ns host sysctl -qw net.ipv4.tcp_synack_retries=10
}

# rules R: the manual's files (doc/ha-pair.md) as chaostables.service loads
# them, then counting rules before them (scanner, split flows, client).
rules() {
	local c
	ns "$1" $IPT-restore < "$D/rules.base"
	ns "$1" env PATH="$D/bin:$PATH" "$TOP/service/chaostables-load" start "$D/conf" ||
		fail "$1: the manual's chaostables rules load"
	{
		echo '*filter'
		for c in $PS_CLASSES; do
			echo "-I FORWARD 1 -i wan -s $SCAN4 -p tcp -m portscan --$c -m comment --comment $c"
			echo "-I FORWARD 1 -i wan -s $SPLIT4 -p tcp -m portscan --$c -m comment --comment split_$c"
		done
		for c in -s -d; do
			echo "-I FORWARD 1 $c $CLIENT4 -p tcp -m portscan --stealth --synscan --cnscan --grscan -m comment --comment client"
		done
		echo 'COMMIT'
	} | ns "$1" $IPT-restore --noflush
}

# counter R PATTERN: packets of R's first rule whose save line matches
counter() {
	ns "$1" $IPT-save -c | grep -E -- "$2" | head -n 1 |
		sed -n 's/^\[\([0-9]*\):.*/\1/p'
}

# marks R: "dport=mark" of each conntrack entry from the split flows' source
marks() {
	ns "$1" conntrack -L -p tcp -s $SPLIT4 2>/dev/null | awk '{
		d = m = ""
		for (i = 1; i <= NF; i++) {
			if (d == "" && $i ~ /^dport=/)
				d = substr($i, 7)
			if ($i ~ /^mark=/)
				m = substr($i, 6)
		}
		if (d != "")
			print d "=" m
	}' | sort -n | xargs
}

# recent R: the sources R's xt_recent list "portscan" remembers
recent() {
	ns "$1" cat /proc/net/xt_recent/portscan 2>/dev/null |
		sed -n 's/^src=\([^ ]*\) .*/\1/p' | sort | xargs
}

# split_flows N GO: begin a half-open scan's flow (port 22), a connect
# scan's (80) and a banner grab's (21) from SPLIT4; each ends once GO
# exists. Output in $D/split.N.*; returns once all three are open.
split_flows() {
	local n=$1 go=$2
	ns scanner timeout 300 $PY "$NET/rawtcp.py" halfopen $SPLIT4 $HOST4 22 \
		$((41000 + n)) "$go" > "$D/split.$n.syn" 2>&1 &
	ns scanner timeout 300 $PY "$NET/portscan_client.py" split $HOST4 80 \
		$SPLIT4 "$go" > "$D/split.$n.connect" 2>&1 &
	ns scanner timeout 300 $PY "$NET/portscan_client.py" split $HOST4 21 \
		$SPLIT4 "$go" grab > "$D/split.$n.grab" 2>&1 &
	if busywait 60 _split_open "$n"; then
		pass "phase $n: split flows open ($(_split_lines "$n" 1))"
	else
		fail "phase $n: split flows open (expected 'S. ...', connected, grabbed, got $(_split_lines "$n" 1))"
	fi
}
_split_lines() {
	local k
	for k in syn connect grab; do
		printf '%s: %s; ' $k "$(sed -n "${2}p" "$D/split.$1.$k" 2>/dev/null)"
	done
}
_split_open() {
	grep -qs '^S\. ' "$D/split.$1.syn" &&
		grep -qs '^connected' "$D/split.$1.connect" &&
		grep -qs '^grabbed [1-9]' "$D/split.$1.grab"
}
_split_closed() {
	grep -qs '^reset' "$D/split.$1.syn" &&
		grep -qs '^closed' "$D/split.$1.connect" &&
		grep -qs '^closed' "$D/split.$1.grab"
}

# established NS PORT: an established connection to PORT in NS
established() {
	[ -n "$(ns "$1" ss -Htn state established "( dport = :$2 )")" ]
}

# gate: r1 has classified the scans up to port 22
gate() {
	local c
	c=$(ps_counts r1 $IPT stealth synscan cnscan)
	[[ $c =~ stealth=([0-9]+)\ synscan=([0-9]+)\ cnscan=([0-9]+) ]] &&
		[ "${BASH_REMATCH[1]}" -ge 2 ] && [ "${BASH_REMATCH[2]}" -ge 1 ] &&
		[ "${BASH_REMATCH[3]}" -ge 1 ]
}

_remembered() { [[ " $(recent "$1") " == *" $2 "* ]]; }
# _replica R PATTERN: R's conntrackd external cache has a flow matching
_replica() { ctd "$1" -e ct 2>/dev/null | grep -q -- "$2"; }
_no_pids() { [ -z "$(ip netns pids "$1")" ]; }

# cut_in_window T START VIP: T, a died_after VIP, lies after START (the
# crash or switchover that began the failover) and at most CUT_BOUND
# after VIP: the hold was cut by the box that took over, not before the
# failover began, nor by chance later. VIP is when the notify script
# ran, which under load lags the VIPs' move by a second or more (a cut
# seen 0.5 s before it).
cut_in_window() {
	[ -n "$1" ] && awk -v t="$1" -v lead="$(since "$2" "$3")" -v b="$CUT_BOUND" \
		'BEGIN { exit !(t > -lead && t <= b) }'
}

topology
manual_example "# /etc/iptables/rules.v4 on each router" |
	sed "s/192\.0\.2\.10/$HOST4/" > "$D/rules.base"
mkdir -p "$D/conf"
manual_example "# /etc/chaostables/rules.v4 on each router" > "$D/conf/rules.v4"
ipt_variant_dir "${IPT#iptables-}" "$D/bin"
for r in r1 r2; do
	rules $r
done
for p in 22 80; do
	tcp_server host $p cat
done
tcp_server host 21 "echo 220 ftp ready; cat"
for p in 21 22 80; do
	wait_for_tcp_listen host $p v6
done
# The scanner's kernel must not reset the half-open flows' SYN/ACKs.
ns scanner $IPT -A OUTPUT -s $SPLIT4 -p tcp --sport 41001:41002 \
	--tcp-flags RST RST -m mark ! --mark 1 -j DROP

ha_files r1
ha_files r2
start_conntrackd r1
start_conntrackd r2
start_keepalived r1
if busywait 120 primary r1; then
	pass "r1 primary: keepalived gave it $VIP_OUT and $VIP_IN, primary-backup.sh ran"
else
	fail "r1 primary (expected the VIPs and state primary, got state '$(state r1)'; $(tail -n 5 "$D/r1/keepalived.log" | tr '\n' ';'))"
fi
start_keepalived r2
busywait 60 is_state r2 backup ||
	fail "r2 backup (expected state backup, got '$(state r2)'; $(tail -n 5 "$D/r2/keepalived.log" | tr '\n' ';'))"
busywait 30 ns client busybox ping -q -c1 -W1 $HOST4 >/dev/null ||
	fail "client cannot ping $HOST4 through r1"

# --- phase 1: r1 primary, r2 backup, one key ---------------------------
echo "# +${SECONDS}s: pair up"
ready=$D/sessions
ns client timeout 600 $PY "$NET/live_sessions.py" 600 "$ready" \
	$HOST4:22 $HOST4:22,idle=10 > "$D/sessions.out" 2>&1 &
sessions=$!
ps_sessions_ready $sessions "$ready" ||
	fail "sessions not open within 120 s ($(cat "$D/sessions.out"))"
touch "$ready.go"

# A held connection: port 25, TARPIT answers its keepalives.
ns client timeout 600 $PY "$NET/tcp_client.py" idle $HOST4 25 600 \
	$HOLD_COUNT > "$D/hold25" 2>&1 &
# One held by the recent rule: LATE4's stealth probe makes r1 remember it.
ns scanner timeout 60 $PY "$NET/rawtcp.py" send tcp $LATE4 $HOST4 3000 \
	40000 1 0 F
busywait 30 _remembered r1 $LATE4 || true
ns scanner timeout 600 $PY "$NET/tcp_client.py" idle $HOST4 3000 600 \
	$HOLD_COUNT $LATE4 > "$D/hold3000" 2>&1 &
if busywait 60 established client 25 && busywait 60 established scanner 3000; then
	pass "phase 1: r1 holds client:25 (TARPIT) and $LATE4:3000 (recent, TARPIT)"
else
	fail "phase 1: held connections (expected both established, got $(cat "$D/hold25" "$D/hold3000"))"
fi

split_flows 1 "$D/go1"
marks1=$(marks r1)
busywait 30 _replica r2 "sport=41001" ||
	fail "r2's external cache has the half-open flow (got $(ctd r2 -e ct 2>&1 | grep -c src=) entries)"
echo "# +${SECONDS}s: split flows open, scans start"

nmaps=()
for t in -sS -sT -sF; do
	{ scan 180 -r $t -p $SCAN_PORTS --max-retries 0 --scan-delay 3s \
		--max-rtt-timeout 2s $HOST4; echo "$SCAN_OUT" > "$D/nmap$t"; } &
	nmaps+=($!)
done
busywait 120 gate ||
	fail "r1 classified the scans up to port 22 (expected stealth>=2 synscan>=1 cnscan>=1, got $(ps_counts r1 $IPT stealth synscan cnscan))"

# r1 crashes at once, mid-scan: its processes die, its links go down (its
# counters and recent table, read after, stay as they were).
echo "# +${SECONDS}s: r1 crashes"
crash=$(now)
ip netns pids r1 | xargs -r kill -KILL
busywait 10 _no_pids r1 || true
for dev in wan lan sync; do
	ip -n r1 link set $dev down
done
before1=$(ps_counts r1 $IPT $ALL)
recent1=$(recent r1)
flips=$(awk '$3 == "primary"' "$D/r2/states" | grep -c . || true)
[ "$flips" = 0 ] ||
	echo "# r2 became primary $flips time(s) before the crash (VRRP adverts missed in a stalled guest)"
if busywait 60 took_over r2 "$crash"; then
	read -r vip2 end < <(run_after r2 primary "$crash")
	takeover=$(since "$crash" "$vip2")
	window1=$(since "$vip2" "$end")
	pass "r2 primary: VIPs moved ${takeover} s after r1's crash, primary-backup.sh primary ran for ${window1} s more"
else
	takeover=none vip2=$(now) window1=none
	fail "r2 primary after r1's crash (expected the VIPs and state primary, got state '$(state r2)'; $(tail -n 5 "$D/r2/keepalived.log" | tr '\n' ';'))"
fi
marks2=$(marks r2)
if [ -n "$marks1" ] && [ "$marks1" = "$marks2" ]; then
	pass "split flows: r2's committed entries carry the connmarks r1 gave them ($marks2)"
else
	fail "split flows' connmarks (expected r1's '$marks1' on r2, got '$marks2')"
fi

touch "$D/go1"
busywait 30 _split_closed 1 ||
	fail "phase 1: split flows closed (got $(_split_lines 1 2))"
wait "${nmaps[@]}" || true
after1=$(ps_counts r2 $IPT $ALL)
ps_check "r1 before the crash, scans up to port 22" "$before1" \
	"stealth>=2 synscan>=1 cnscan>=1 grscan=0 split_stealth=0 split_synscan=0 split_cnscan=0 split_grscan=0"
ps_check "r2 after the takeover: the scans' rest, and the flows begun on r1" "$after1" \
	"stealth>=1 synscan>=1 cnscan>=1 grscan=0 split_stealth=0 split_synscan=1 split_cnscan>=1 split_grscan>=1"
for t in -sS -sT; do
	SCAN_OUT=$(cat "$D/nmap$t")
	got=$(open_ports)
	if scan_done && [[ " $got " == *" 22 "* ]] && [[ " $got " == *" 80 "* ]]; then
		pass "nmap $t across the failover: finished, 22 and 80 open ($got)"
	else
		fail "nmap $t across the failover (expected done with 22 and 80 open, got '$got'; $(tail -n 2 "$D/nmap$t" | tr '\n' ';'))"
	fi
done
recent2=$(recent r2)
expect "r2 remembers the scanners it classified itself" "*$SCAN4*$SPLIT4*" "$recent2"
if [[ " $recent1 " == *" $LATE4 "* ]] && [[ " $recent2 " != *" $LATE4 "* ]]; then
	pass "xt_recent is not replicated: r1 remembered $LATE4, r2 does not"
else
	fail "recent lists (expected $LATE4 on r1 only, got r1: $recent1; r2: $recent2)"
fi

# Held: each keepalive unanswered for HOLD_COUNT s would have ended them.
busywait 60 _after "$vip2" $((HOLD_COUNT + 6)) || true
held1=$(since "$vip2")
if established client 25 && [ ! -s "$D/hold25" ]; then
	pass "TARPIT hold of client:25 survives the failover: held by r2 (same key) ${held1} s after it"
else
	fail "TARPIT hold after the failover (expected still held, got '$(cat "$D/hold25")')"
fi
expect "r2's TARPIT rule sees the held client's keepalives" "[1-9]*" "$(counter r2 'dport 25 -j TARPIT')"
busywait 60 test -s "$D/hold3000" || true
late=$(died_after "$D/hold3000" "$vip2")
if cut_in_window "$late" "$crash" "$vip2"; then
	pass "recent-held $LATE4:3000 cut by r2 (it does not remember $LATE4): died ${late} s after the VIPs moved"
else
	fail "recent-held connection after the failover (expected cut after r1's crash, at most $CUT_BOUND s after the VIPs moved, got '${late:-alive}': '$(cat "$D/hold3000")')"
fi

# --- phase 2: r1 comes back with a key of its own and takes over ---------
echo "# +${SECONDS}s: phase 2"
split_flows 2 "$D/go2"
# A reboot: empty conntrack and recent tables, no VIPs, no lock file,
# counters at 0, and a key that is not the pair's. Two writes: a written
# key leaves the one before it accepted for an epoch (a rotation cuts no
# hold), and a rebooted box has neither.
ns r1 conntrack -F >/dev/null 2>&1 || true
ns r1 sh -c 'echo / > /proc/net/xt_recent/portscan'
ns r1 sysctl -qw net.netfilter.nf_chaos_key=$KEY3
ns r1 sysctl -qw net.netfilter.nf_chaos_key=$KEY2
ns r1 $IPT -Z
ip -n r1 addr del $VIP_OUT/24 dev wan 2>/dev/null || true
ip -n r1 addr del $VIP_IN/24 dev lan 2>/dev/null || true
rm -f "$D/r1/conntrack.lock"
for dev in wan lan sync; do
	ip -n r1 link set $dev up
done
boot=$(now)
start_conntrackd r1
start_keepalived r1
# nopreempt: r1 stays backup, and primary-backup.sh backup asks r2 for its
# flows (-n); once they are in r1's external cache, the admin switches
# over by stopping keepalived on r2.
if busywait 60 is_state r1 backup && busywait 60 _replica r1 "sport=$((41002))"; then
	synced=$(since "$boot")
	pass "r1 back as backup, r2's flows in its external cache ${synced} s after its boot"
else
	synced=none
	fail "r1 back as backup with r2's flows (expected state backup and sport=41002 in conntrackd -e, got '$(state r1)', $(ctd r1 -e ct 2>&1 | grep -c src=) entries)"
fi
switch=$(now)
kill -TERM "$(cat "$D/r2/keepalived.pid")"
if busywait 60 took_over r1 "$switch"; then
	read -r vip1 end < <(run_after r1 primary "$switch")
	failback=$(since "$switch" "$vip1")
	window2=$(since "$vip1" "$end")
	pass "switchover: VIPs on r1 ${failback} s after keepalived on r2 stopped, primary-backup.sh primary ran for ${window2} s more"
else
	failback=none vip1=$(now) window2=none
	fail "switchover (expected r1 primary, got r1 '$(state r1)'; $(tail -n 5 "$D/r1/keepalived.log" | tr '\n' ';'))"
fi
touch "$D/go2"
busywait 30 _split_closed 2 ||
	fail "phase 2: split flows closed (got $(_split_lines 2 2))"
ps_check "r1 after the failback: the flows begun on r2" "$(ps_counts r1 $IPT split_stealth split_synscan split_cnscan split_grscan)" \
	"split_stealth=0 split_synscan=1 split_cnscan>=1 split_grscan>=1"

busywait $((HOLD_COUNT + 30)) test -s "$D/hold25" || true
cut=$(died_after "$D/hold25" "$vip1")
if cut_in_window "$cut" "$switch" "$vip1"; then
	pass "keys differ: r1 does not recognise r2's cookie, the TARPIT hold of client:25 died ${cut} s after the VIPs moved back"
else
	fail "TARPIT hold after a failback to another key (expected cut after the switchover, at most $CUT_BOUND s after the VIPs moved back, got '${cut:-alive}': '$(cat "$D/hold25")')"
fi

touch "$ready.stop"
rc=0
wait $sessions || rc=$?
sed 's/^/# /' "$D/sessions.out"
if [ $rc = 0 ] && [ "$(grep -c ' ok ' "$D/sessions.out")" = 2 ]; then
	pass "SSH-like sessions (one idle) survive the failover and the failback"
else
	fail "sessions across the failovers (expected 2 ok, got rc $rc: $(grep -v ' ok ' "$D/sessions.out" | tr '\n' ';'))"
fi
expect "no session packet classified on r1 or r2" "client=0 client=0" \
	"$(ps_counts r1 $IPT client) $(ps_counts r2 $IPT client)"

echo "# failover table (r1 crash at +0 s, VIPs on r2 at +${takeover} s, committed ${window1} s later; r1 back, in sync after ${synced} s, VIPs on r1 ${failback} s after the switchover, committed ${window2} s later):"
echo "#   r1 before:  $before1; remembers: $recent1"
echo "#   r2 after:   $after1; remembers: $(recent r2)"
echo "#   r1 back:    $(ps_counts r1 $IPT $ALL); remembers: $(recent r1)"
echo "#   marks r1 -> r2: $marks1 -> $marks2"
echo "#   TARPIT :25 held by r2 ${held1} s after the failover (same key), cut ${cut:-?} s after the failback (other key, $HOLD_COUNT unanswered keepalives)"
echo "#   recent-held :3000 cut ${late:-?} s after the VIPs moved to r2"
if [ "$_nfail" != 0 ]; then
	ha_log r1
	ha_log r2
fi
finish
