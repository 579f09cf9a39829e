#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# Module and namespace lifecycle under traffic:
# - rmmod of each module is refused while a rule (iptables-legacy, v4, and
#   ip6tables-nft, v6) uses it, and succeeds once the rules are gone while a
#   flood still hits the host;
# - a namespace with rules of every extension, both backends and families,
#   is deleted while a flood hits it; one holding tarpitted connections is
#   deleted, then the namespace of the peers that hold them;
# - the rule set is replaced atomically under a flood, REPLACES times with
#   iptables-legacy-restore and with iptables-nft-restore;
# - CYCLES unload/load cycles of all modules, a rule of each added and
#   removed every time.
# After each step the modules' use counts are back to their holders alone.
# The modules are loaded again at the end, as vm/run expects.
# CYCLES and REPLACES: 3 and 10 (CHAOS_SIZE quick: 1 and 5, full: 50
# and 100).
# env: CHAOS_SIZE
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap 'rc=$?; load_ours; (exit $rc); cleanup' EXIT

require hping3 iptables-legacy iptables-nft
CYCLES=$(size_pick 1 3 50)
REPLACES=$(size_pick 5 10 100)
[ -r "$OUR_MODDIR/xt_CHAOS.ko" ] || { skip "no modules in $OUR_MODDIR"; finish; }

# refs_settled WHAT: no rule holds any module any more; polled.
refs_settled() {
	local what=$1 left
	busywait 20 none_held || true
	left=$(held_modules)
	if [ -z "$left" ]; then
		pass "$what: no module held by a rule any more"
	else
		fail "$what: module use counts back to their holders (got use/holders:$left)"
	fi
}

rule_of() {
	case $1 in
	xt_portscan) echo "-p tcp -m portscan --stealth --synscan --cnscan --grscan" ;;
	xt_DELUDE) echo "-p tcp --dport 7001 -j DELUDE" ;;
	xt_TARPIT) echo "-p tcp --dport 7002 -j TARPIT" ;;
	xt_CHAOS) echo "-p tcp --dport 7003 -j CHAOS --tarpit" ;;
	esac
}

# PORT[MODE]: each target mode of tests/lib/targets.list on a port of its own
# from 7001, in its order.
declare -A PORT
p=7001
while read -r mode; do
	PORT[$mode]=$p
	p=$((p + 1))
done < <(target_modes)

# ruleset: rules of every extension in every mode, iptables-restore input
# (plain CHAOS last, for all ports); all tagged "ruleset", for ipt_pkts.
ruleset() {
	local mode
	echo '*filter'
	{
		echo "-p tcp -m portscan --stealth --synscan --cnscan --grscan"
		while read -r mode; do
			[ "$mode" = CHAOS ] ||
				echo "-p tcp --dport ${PORT[$mode]} -j $mode"
		done < <(target_modes)
		echo "-j CHAOS"
	} | sed 's/^/-A INPUT -m comment --comment ruleset /'
	echo COMMIT
}
RULES=$(ruleset | grep -c '^-A')

# start_flood [HPING_OPTS]: SYN flood from scanner at host, ports 7001 on
# (full speed unless HPING_OPTS give an interval).
start_flood() {
	local speed=--flood
	[ "${1:-}" != -i ] || speed=
	ip netns exec scanner hping3 -q -S -p ++7001 $speed "$@" "$HOST4" >/dev/null 2>&1 &
	flood_pid=$!
}
stop_flood() {
	kill "$flood_pid" 2>/dev/null || true
	wait "$flood_pid" 2>/dev/null || true
}

setup_topology
klog_mark

# 1. rmmod refused while a rule uses the module.
for m in $OUR_EXTENSIONS; do
	for ipt in iptables-legacy ip6tables-nft; do
		# shellcheck disable=SC2046
		ns host $ipt -A INPUT $(rule_of $m)
		refs=$(cat "/sys/module/$m/refcnt")
		holders=$(ls "/sys/module/$m/holders" | wc -l)
		if [ "$refs" -le "$holders" ]; then
			fail "an $ipt rule holds $m (expected use count > $holders holders, got $refs)"
		fi
		if out=$(rmmod "$m" 2>&1); then
			fail "rmmod $m refused while an $ipt rule uses it (expected an error, got success)"
			load_ours
		elif [ -d "/sys/module/$m" ] && grep -q 'in use' <<< "$out"; then
			pass "rmmod $m refused while an $ipt rule uses it"
		else
			fail "rmmod $m refused cleanly (expected 'in use' and the module loaded, got: $out)"
		fi
		ns host $ipt -F INPUT
	done
done
if out=$(rmmod nf_chaos_reply 2>&1); then
	fail "rmmod nf_chaos_reply refused while the targets use it (expected an error, got success)"
	load_ours
else
	pass "rmmod nf_chaos_reply refused while the targets use it"
fi

# ... and succeeds once the rules are gone, the flood still going.
ruleset | ns host iptables-legacy-restore
ruleset | ns host ip6tables-nft-restore
start_flood
sleep 1
ns host iptables-legacy -F INPUT
ns host ip6tables-nft -F INPUT
if unload_ours; then
	pass "all modules unload once the rules are gone, under a flood"
else
	fail "all modules unload once the rules are gone, under a flood (still loaded: $(loaded_ours))"
fi
load_ours
stop_flood
for m in $OUR_MODULES; do
	[ -d "/sys/module/$m" ] || fail "$m loaded again (expected insmod to succeed)"
done

# 2. A namespace with every extension's rules deleted under a flood.
for ipt in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
	ruleset | ns host "$ipt-restore"
done
start_flood --rand-source
sleep 2
ip netns del host
sleep 1
stop_flood
refs_settled "namespace with rules deleted under a flood"

# 3. Tarpitted connections held, then their namespaces deleted.
setup_topology
for ipt in iptables-legacy iptables-nft; do
	ruleset | ns host "$ipt-restore"
done
held=$(mktemp)
ip netns exec client /usr/bin/python3 - "$HOST4" "${PORT[TARPIT]}" 40 > "$held" <<-'EOF' &
	import select, socket, sys, time
	host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
	socks = []
	for _ in range(n):
	    s = socket.socket()
	    s.setblocking(False)
	    s.connect_ex((host, port))
	    socks.append(s)
	deadline = time.monotonic() + 60
	while time.monotonic() < deadline:
	    _, w, _ = select.select([], socks, [], 1)
	    if len(w) == len(socks):
	        break
	ok = sum(s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0 for s in socks)
	for s in socks:
	    try:
	        s.send(b"x" * 100000)
	    except OSError:
	        pass
	print("held=%d" % ok, flush=True)
	time.sleep(300)
EOF
hpid=$!
busywait 60 grep -qs held= "$held" || true
got=$(cat "$held")
rm -f "$held"
if [ "$got" = held=40 ]; then
	pass "client holds 40 tarpitted connections"
else
	fail "client holds 40 tarpitted connections (expected held=40, got '$got')"
fi
ip netns del host
sleep 2
kill "$hpid" 2>/dev/null || true
wait "$hpid" 2>/dev/null || true
ip netns del client
refs_settled "tarpit and peers' namespaces deleted with connections held"

# 4. Atomic replacement of the rule set under a flood, a paced one: a
# full-speed flood takes both CPUs of a TCG guest and each restore then
# takes seconds.
setup_topology
start_flood -i u200
for ipt in iptables-legacy iptables-nft; do
	t0=$SECONDS
	for i in $(seq "$REPLACES"); do
		ruleset | ns host "$ipt-restore" || break
	done
	n=$(ns host "$ipt-save" | grep -c '^-A INPUT' || true)
	c=$(ipt_pkts host "$ipt" ruleset || true)
	if [ "$i" = "$REPLACES" ] && [ "$n" = "$RULES" ] && [ "$c" -gt 0 ]; then
		pass "$ipt-restore replaced the rules $REPLACES times under a flood ($((SECONDS - t0))s, $c packets since the last)"
	else
		fail "$ipt-restore under a flood (expected $REPLACES replacements, $RULES rules, packets > 0, got $i, $n, $c)"
	fi
	ns host "$ipt" -F INPUT
done
stop_flood
refs_settled "rules replaced under a flood, then flushed"

# 5. Unload/load cycles, a rule of each extension added and removed.
t0=$SECONDS
for i in $(seq "$CYCLES"); do
	unload_ours || break
	load_ours
	{
		echo '*filter'
		for m in $OUR_EXTENSIONS; do echo "-A INPUT $(rule_of $m)"; done
		echo COMMIT
	} | ns host iptables-legacy-restore || break
	ns host iptables-legacy -F INPUT
done
if [ "$i" = "$CYCLES" ] && unload_ours; then
	pass "$CYCLES unload/load cycles with rules ($((SECONDS - t0))s)"
else
	fail "$CYCLES unload/load cycles with rules (stopped in cycle $i)"
fi
load_ours
for m in $OUR_MODULES; do
	module_loaded "$m"
done

klog_clean "after the lifecycle tests"
finish
