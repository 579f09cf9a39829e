#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# service/chaostables-load's own rules, in a network namespace of this
# machine, with iptables-legacy and iptables-nft in turn (rules of the
# kernel's own targets only: no module of ours is needed):
# - a file that declares another chain, gives ours a policy, adds to a
#   built-in chain or holds anything else is refused, each line named,
#   and nothing changes;
# - start twice: ours once, the same rules, the base's untouched; a
#   mangle chain is reached by the first rule of its built-in chain, a
#   filter chain by the last;
# - a filter chain of ours beside another table's base chain on that hook
#   (nftables') is refused, and nothing changes;
# - stop: nothing of ours left, the base's rules as they were;
# - strip: a saved file without our chains and jumps, the base's kept;
# - the sets: the guarded interfaces those of the default routes, or of
#   DIR/interfaces once it names some (refresh); the ports served kept
#   by stop (in /var/lib/chaostables, a tmpfs here) and back at start;
#   the host's CrowdSec bouncer's bans: chaostables-denied empty without
#   its configuration, else a copy of its set as the configuration
#   names it (mode nftables from the .local, table and set names of
#   its own; mode ipset), made again by refresh.
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
require unshare iptables-legacy iptables-nft nft ipset

# In namespaces of our own: nothing reaches the machine's tables, its
# /var/lib or its /run/chaostables.
if [ -z "${LOADER_NS:-}" ]; then
	# shellcheck disable=SC2016
	exec env LOADER_NS=1 unshare -n -m --propagation private \
		bash -c 'mount -t tmpfs run /run && exec bash "$0"' "$0"
fi
mount -t tmpfs tmpfs /var/lib
LOAD=$TOP/service/chaostables-load
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

BASE='*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT
-A FORWARD -p tcp -m tcp --dport 80 -j ACCEPT
COMMIT'
OURS='*mangle
:chaostables-INPUT - [0:0]
:chaostables-x - [0:0]
-A chaostables-INPUT -i lo -j RETURN
-A chaostables-INPUT -p tcp -j chaostables-x
-A chaostables-x -p tcp --dport 1000 -j DROP
COMMIT
*filter
:chaostables-FORWARD - [0:0]
-A chaostables-FORWARD -p udp -j DROP
COMMIT'

# state: both families' rules, without counters (expect's patterns
# would read their brackets) and comments.
state() {
	{ iptables-save; ip6tables-save; } | grep -v '^#' | sed 's/ *\[[0-9]*:[0-9]*\]//'
}
base_state() { state | grep -v chaostables; }

mkdir "$tmp/bad" "$tmp/ok"
printf '%s\n' '*filter' ':scanned - [0:0]' ':chaostables-y ACCEPT [0:0]' \
	'-A INPUT -j DROP' '-P INPUT ACCEPT' 'COMMIT' > "$tmp/bad/rules.v4"
echo "$OURS" > "$tmp/ok/rules.v4"
echo "$OURS" > "$tmp/ok/rules.v6"

for v in legacy nft; do
	for c in iptables ip6tables; do
		for s in "" -save -restore; do
			ln -sf "/usr/sbin/xtables-$v-multi" "$tmp/$c$s"
		done
	done
	export PATH=$tmp:$PATH
	iptables-restore <<< "$BASE"
	ip6tables-restore <<< "$BASE"
	before=$(base_state)

	rc=0
	out=$("$LOAD" start "$tmp/bad" 2>&1) || rc=$?
	expect "$v: a foreign file refused" 1 "$rc"
	for why in "rules.v4:2: declares scanned" "rules.v4:3: gives chaostables-y a policy" \
		"rules.v4:4: adds to INPUT" "rules.v4:5: not a table"; do
		expect "$v: refusal names \"$why\"" "*$why*" "$(grep -F "$why" <<< "$out")"
	done
	expect "$v: a refused file changes nothing" "$before" "$(state)"

	"$LOAD" start "$tmp/ok" 2> /dev/null || fail "$v: start"
	one=$(state)
	"$LOAD" start "$tmp/ok" 2> /dev/null || fail "$v: second start"
	expect "$v: a second start changes nothing" "$one" "$(state)"
	expect "$v: the base's rules untouched" "$before" "$(base_state)"
	expect "$v: mangle's INPUT reaches ours first" "-A INPUT -j chaostables-INPUT" \
		"$(iptables-save -t mangle | grep -m1 '^-A INPUT')"
	expect "$v: filter's FORWARD reaches ours last, after the base's rules" \
		"-A FORWARD -j chaostables-FORWARD" "$(iptables-save -t filter | grep '^-A FORWARD' | tail -n 1)"
	expect "$v: one jump per chain and family" 4 \
		"$(state | grep -cE '^-A [A-Z]+ -j chaostables-')"

	nft add table inet basefw
	nft add chain inet basefw forward '{ type filter hook forward priority 0; policy drop; }'
	rc=0
	out=$("$LOAD" start "$tmp/ok" 2>&1) || rc=$?
	expect "$v: a filter chain beside nftables' forward chain refused" 1 "$rc"
	expect "$v: the refusal names that chain" "*chaostables-FORWARD in filter*chain forward of table inet basefw*" \
		"$(grep -m1 'basefw' <<< "$out")"
	expect "$v: the refusal changes nothing" "$one" "$(state)"
	nft delete table inet basefw

	iptables-save > "$tmp/saved"
	"$LOAD" strip "$tmp/saved" 2> /dev/null
	expect "$v: strip leaves nothing of ours" "" "$(grep chaostables "$tmp/saved")"
	expect "$v: strip keeps the base's rules" "$(grep -- '--dport' <<< "$before" | head -n 2)" \
		"$(grep -- '--dport' "$tmp/saved")"

	"$LOAD" stop "$tmp/ok" 2> /dev/null || fail "$v: stop"
	expect "$v: stop leaves nothing of ours" "" "$(state | grep chaostables)"
	expect "$v: stop leaves the base's rules as they were" "$before" "$(base_state)"
	expect "$v: stop takes the allowlist sets away" "" "$(ipset list -n | grep chaostables)"

	for c in iptables ip6tables; do
		for t in mangle filter; do
			"$c" -t $t -F
			"$c" -t $t -X
		done
	done
	nft flush ruleset
	PATH=${PATH#"$tmp":}
done

# members SET: its entries, sorted, on one line.
members() { ipset list "$1" | sed '1,/^Members:/d' | awk '{ print $1 }' | sort | xargs; }
# This machine's ip makes no links: the default route goes by lo.
ip link set lo up
ip route add default dev lo
"$LOAD" start "$tmp/ok" 2> /dev/null || fail "sets: start"
expect "sets: the default route's interface guarded" "0.0.0.0/0,lo" "$(members chaostables-scope)"
echo eth9 > "$tmp/ok/interfaces"
"$LOAD" refresh "$tmp/ok" 2> /dev/null || fail "sets: refresh"
expect "sets: DIR/interfaces' after refresh" "0.0.0.0/0,eth9" "$(members chaostables-scope)"
expect "sets: IPv6 alike" "::/0,eth9" "$(members chaostables-scope6)"

# The host's CrowdSec bouncer: Debian's file, the mode in .local.
export CHAOS_BOUNCER=$tmp/bouncer.yaml
expect "sets: no bouncer: chaostables-denied made, empty" "chaostables-denied" \
	"$(ipset list -n chaostables-denied)$(members chaostables-denied)"
# shellcheck disable=SC2016
printf '%s\n' 'mode: ${BACKEND}' 'blacklists_ipv4: cs-ban' 'nftables:' '  ipv4:' \
	'    table: cs # its own' '  ipv6:' '    table: cs6' > "$CHAOS_BOUNCER"
echo 'mode: nftables' > "$CHAOS_BOUNCER.local"
nft -f - <<-EOF
	table ip cs { set cs-ban { type ipv4_addr; flags timeout;
		elements = { 192.0.2.7 timeout 1h, 198.51.100.9 timeout 1h }; }; }
	table ip6 cs6 { set crowdsec6-blacklists { type ipv6_addr; elements = { 2001:db8::7 }; }; }
EOF
"$LOAD" refresh "$tmp/ok" 2> /dev/null || fail "sets: refresh with a bouncer"
expect "sets: mode nftables: the bouncer's set copied" "192.0.2.7 198.51.100.9" \
	"$(members chaostables-denied)"
expect "sets: IPv6 alike" "2001:db8::7" "$(members chaostables-denied6)"
echo 'mode: ipset' > "$CHAOS_BOUNCER.local"
ipset create cs-ban hash:net
ipset add cs-ban 203.0.113.0/24
"$LOAD" refresh "$tmp/ok" 2> /dev/null || fail "sets: refresh, mode ipset"
expect "sets: mode ipset: its ipset copied" "203.0.113.0/24" "$(members chaostables-denied)"
ipset add chaostables-served 192.0.2.1,tcp:443
"$LOAD" stop "$tmp/ok" 2> /dev/null || fail "sets: stop"
expect "sets: stop takes them away" "" "$(ipset list -n | grep chaostables)"
"$LOAD" start "$tmp/ok" 2> /dev/null || fail "sets: start again"
expect "sets: the ports served back after stop and start" "192.0.2.1,tcp:443" \
	"$(members chaostables-served)"
"$LOAD" stop "$tmp/ok" 2> /dev/null || fail "sets: stop again"
expect "sets: stop leaves the bouncer's own set" "cs-ban" "$(ipset list -n)"
finish
