#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of "make demo": the four extensions as a scanner sees them,
# host ports 100-120 (110 really is open), each part with its assertion:
#  1. portscan: one counting rule per class, and the class each of nmap's
#     -sS, -sT and -sF scans is counted by;
#  2. DELUDE: nmap -sS before and after the rule;
#  3. CHAOS --delude: the same -sS -T4 scan timed bare and behind it (the
#     ratio), then masscan twice on 100 ports: the runs disagree;
#  4. TARPIT: nc's connection to port 25 held open on a zero window (ss).
#
#   scanner 10.0.1.2 --- router --- host 10.0.3.2: an echo server on 110
#   client  10.0.2.2 ---/
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../net/helpers/portscan_lib.inc"
source "$(dirname "$0")/../net/helpers/chaos_lib.inc"
trap cleanup EXIT

require nmap masscan nc ss busybox
IPT=iptables
PORTS=100-120
MASS_PORTS=1000-1099
SCAN_LIMIT=120		# a scan behind CHAOS is cut off here
HOLD=10			# seconds TARPIT must hold the connection

# host CMD...: CMD in host, shown as the admin types it.
host() {
	echo "host# $*"
	ns host "$@"
}
# show_scan ARGS...: nmap ARGS against host, what it finds open, as nmap
# lists it.
show_scan() {
	echo "scanner# nmap $* $HOST4"
	scan "$SCAN_LIMIT" "$@" "$HOST4"
	echo "PORT     STATE SERVICE"
	open_services | awk -F '\t' '{ printf "%-8s open  %s\n", $1 "/tcp", $2 }'
	echo "($(open_ports | wc -w) of 21 open, ${SCAN_TIME}s)"
}
part() { printf '\n--- %s\n' "$*"; }

setup_topology
start_tcp_server host 110

part "1. portscan: which kind of scan is this?"
echo "host# iptables -A INPUT -p tcp -m portscan --CLASS  (one counting rule per class)"
ps_rules host $IPT INPUT
for t in -sS -sT -sF; do
	case $t in
	-sS) want=synscan; spec="stealth=0 synscan>=1 cnscan=0 grscan=0" ;;
	-sT) want=cnscan; spec="stealth=0 synscan=0 cnscan>=1 grscan=0" ;;
	-sF) want=stealth; spec="stealth>=21 synscan=0 cnscan=0 grscan=0" ;;
	esac
	ps_zero host $IPT
	show_scan $t -p $PORTS
	# The last flows end a moment after nmap does.
	ps_settle host 110 || true
	got=$(ps_counts host $IPT)
	echo "host# iptables -L INPUT -v -n -x"
	ns host $IPT -L INPUT -v -n -x | tail -n +2
	ps_check "nmap $t counted as --$want" "$got" "$spec"
done
host $IPT -F INPUT

part "2. DELUDE: closed ports look open to a SYN scan"
show_scan -sS -p $PORTS
host $IPT -A INPUT -p tcp --dport 100:120 -j DELUDE
show_scan -sS -p $PORTS
expect "with DELUDE, open ports of 21" 21 "$(open_ports | wc -w)"
host $IPT -F INPUT

part "3. CHAOS: slower scans that disagree"
show_scan -sS -T4 -p $PORTS
bare=$SCAN_TIME
host $IPT -A INPUT -p tcp --dport 110 -j ACCEPT
host $IPT -A INPUT -j CHAOS --delude
show_scan -sS -T4 -p $PORTS
scan_done || echo "(cut off after ${SCAN_LIMIT}s)"
echo "behind CHAOS: ${SCAN_TIME}s / ${bare}s = $(ratio "$SCAN_TIME" "$bare") times as long"
check_slower "nmap -sS -T4 -p $PORTS" "$SCAN_TIME" "$bare" 1.5

# masscan's own stack (mass in tests/lib/lib.sh).
ns scanner $IPT -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
ns scanner busybox ping -q -i 0.5 "$ROUTER_SCANNER4" >/dev/null 2>&1 &
pinger=$!
sets=()
for run in 1 2; do
	echo "scanner# masscan -p$MASS_PORTS $HOST4 --rate 100 --wait 5  (run $run)"
	mass 60 -p"$MASS_PORTS" "$HOST4" --rate 100 --wait 5
	grep '^Discovered' <<< "$MASS_OUT" | sed 's/[[:space:]]*$//' || true
	sets+=("$(mass_open)")
	echo "(run $run: $(wc -w <<< "${sets[-1]}") of 100 open)"
done
kill "$pinger"
wait "$pinger" 2>/dev/null || true
ns scanner $IPT -F OUTPUT
common=$(comm -12 <(tr ' ' '\n' <<< "${sets[0]}" | sort) \
	<(tr ' ' '\n' <<< "${sets[1]}" | sort) | grep -c . || true)
echo "in common: $common"
if [ -n "${sets[0]}${sets[1]}" ] && [ "${sets[0]}" != "${sets[1]}" ]; then
	pass "two masscan runs behind CHAOS --delude disagree: $(wc -w <<< "${sets[0]}") and $(wc -w <<< "${sets[1]}") open, $common in common"
else
	fail "two masscan runs disagree (expected different, not both empty, open sets, got '${sets[0]}' and '${sets[1]}')"
fi
host $IPT -F INPUT

part "4. TARPIT: a connection held open on a zero window"
host $IPT -A INPUT -p tcp --dport 25 -j TARPIT
echo "client\$ head -c 100000 /dev/zero | nc $HOST4 25"
ns client timeout $((HOLD + 30)) sh -c "head -c 100000 /dev/zero | nc $HOST4 25" \
	> /dev/null 2>&1 &
nc=$!
# held: client's connection to port 25 is established, with data waiting
# in its send queue and the zero-window probe (persist) timer running.
held() {
	line=$(ns client ss -Htno state established dst "$HOST4" dport = :25)
	[[ "$line" == *persist* ]] && [ "$(awk '{ print $2 }' <<< "$line")" -gt 0 ]
}
busywait 30 held || true
t0=$SECONDS
echo "client\$ ss -tno dst $HOST4 dport = :25"
ns client ss -tno dst "$HOST4" dport = :25
# The hold is the point: let it last.
sleep "$HOLD"
echo "client\$ ss -tno dst $HOST4 dport = :25     ($((SECONDS - t0))s later)"
ns client ss -tno dst "$HOST4" dport = :25
if held; then
	pass "TARPIT holds nc's connection ${HOLD}s: established, $(awk '{ print $2 }' <<< "$line") bytes unsent, zero-window probes"
else
	fail "TARPIT holds the connection (expected established with a persist timer after ${HOLD}s, got '$line')"
fi
kill "$nc" 2>/dev/null || true
wait "$nc" 2>/dev/null || true
finish
