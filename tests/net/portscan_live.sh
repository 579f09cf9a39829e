#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Connections older than the portscan rules survive them: SSH-like echo
# sessions (v4 and v6) opened before any rule exists keep echoing once
# the manual's recipes are added (portscan + DROP, + CHAOS, + TARPIT in
# host INPUT, + DROP in router FORWARD; the first rule turns conntrack on
# and conntrack picks the sessions up mid-stream), and again after
# "conntrack -F"; no session packet moves a rule counter. Idle sessions
# through FORWARD and to INPUT, whose only segments are keepalives (bare
# ACKs) from before the rules until after the flush, survive too. nmap's
# stealth scans are still caught by the same rules afterwards.
# LIVE_SECS (default 20) sets how long the sessions run.
#
#  client --- router: FORWARD 2204 DROP --- host: INPUT 2201 DROP,
#                                                2202 CHAOS, 2203 TARPIT,
#  scanner ---/                                  echo servers 2201-2204
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
# The sessions' sockets outlive their processes, and so the namespaces.
live_cleanup() {
	local rc=$?
	flush_rules host router
	(exit $rc)
	cleanup
}
trap live_cleanup EXIT

require nmap socat conntrack

SECS=${LIVE_SECS:-20}
PORTS="2201 2202 2203 2204"
ready=$(mktemp -u)
out=$(mktemp)

# rule NS IPT CHAIN PORT TAG TARGET...: the manual's portscan rule, for
# the flows of PORT only (so that each recipe sees its own sessions).
rule() {
	local n=$1 ipt=$2 chain=$3 port=$4 tag=$5
	shift 5
	ns "$n" "$ipt" -A "$chain" -p tcp -m multiport --ports "$port" \
		-m portscan --stealth --synscan --cnscan --grscan \
		-m comment --comment "$tag" -j "$@"
}

# counts: "tag=N" of every recipe rule, v4 then v6, one save per table
# (a save is slow in a loaded TCG guest).
counts() {
	echo "$(ps_counts host iptables-legacy drop chaos tarpit)" \
		"$(ps_counts host ip6tables-legacy drop chaos tarpit)" \
		"$(ps_counts router iptables-nft fwd)" \
		"$(ps_counts router ip6tables-nft fwd)"
}

setup_topology
for p in $PORTS; do
	tcp_server host "$p" cat
done
for p in $PORTS; do
	wait_for_tcp_listen host "$p" v6
done

targets=
for p in $PORTS; do
	targets+=" $HOST4:$p [$HOST6]:$p"
done
for p in 2201 2204; do
	targets+=" $HOST4:$p,idle [$HOST6]:$p,idle"
done
nsessions=$(wc -w <<< "$targets")
ns client timeout $((SECS + 300)) /usr/bin/python3 \
	"$(dirname "$0")/helpers/live_sessions.py" "$SECS" "$ready" $targets \
	> "$out" 2>&1 &
sessions=$!
ps_sessions_ready $sessions "$ready" ||
	{ cat "$out"; fail "sessions not open within 120 s"; }
start=$SECONDS

for ipt in iptables-legacy ip6tables-legacy; do
	rule host $ipt INPUT 2201 drop DROP
	rule host $ipt INPUT 2202 chaos CHAOS --delude
	rule host $ipt INPUT 2203 tarpit TARPIT
done
for ipt in iptables-nft ip6tables-nft; do
	rule router $ipt FORWARD 2204 fwd DROP
done

touch "$ready.go"
sleep $((SECS / 2))
for n in host router; do
	ns $n conntrack -F -f ipv4 >/dev/null 2>&1
	ns $n conntrack -F -f ipv6 >/dev/null 2>&1
done
echo "# conntrack flushed at $((SECONDS - start)) s"

rc=0
wait $sessions || rc=$?
sed 's/^/# /' "$out"
c=$(counts)
if [ "$(tr ' ' '\n' <<< "$c" | grep -c '=0$')" = 8 ]; then
	pass "no session packet matched a rule, before or after the flush ($c)"
else
	fail "session packets matched (expected all 0, got $c)"
fi
if [ $rc = 0 ] && [ "$(grep -c ' ok ' "$out")" = "$nsessions" ]; then
	pass "$nsessions sessions (4 idle) lived ${SECS} s through the rules and the flush"
else
	fail "live sessions (expected $nsessions ok, got rc $rc: $(grep -v ' ok ' "$out" | tr '\n' ';'))"
fi

# Each stealth scan type probes every port at least once.
for t in -sF -sN -sX -sA -sW -sM; do
	scan 60 -T4 --max-retries 0 -p 2201-2204 $t "$HOST4" &
	scan4=$!
	scan 60 -6 -T4 --max-retries 0 -p 2201-2204 $t "$HOST6"
	wait $scan4 || true
done
c=$(counts)
if [ "$(tr ' ' '\n' <<< "$c" | grep -c .)" = 8 ] &&
   [ -z "$(tr ' ' '\n' <<< "$c" | awk -F= '$2 !~ /^[0-9]+$/ || $2 < 6')" ]; then
	pass "nmap -sF -sN -sX -sA -sW -sM v4+v6 caught by every rule ($c)"
else
	fail "stealth scans (expected every count >= 6, got $c)"
fi

finish
