#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A missing chaostables module must not take the base firewall down.
# The chaostables package installed (not chaostables-dkms: no modules in
# /lib/modules), then a boot's order in namespace "host" (lib.sh's
# topology), with iptables-legacy and iptables-nft in turn:
#
#   base firewall     iptables-restore < /etc/iptables/rules.v4 (and v6),
#                     as netfilter-persistent does: INPUT policy DROP,
#                     tcp port 2222 accepted
#   chaostables       /usr/libexec/chaostables-load, what chaostables.service
#                     runs after it: /etc/chaostables/rules.v4 and v6 (the
#                     package's examples, uncommented) with --noflush
#
# - modules absent (vm/run's unloaded, none installed): the loader fails,
#   naming the kernel and the module; the base ruleset is in force (policy
#   DROP, 2222 reachable from client, closed port 1000 not answered), and
#   none of the chaostables rules is there;
# - modules present (vm/run's loaded again): the loader succeeds; the base
#   ruleset and the chaostables rules are in force (DELUDE answers port
#   1000's SYN).
# Then apt-get purge takes the rules files and the unit's state away.
source "$(dirname "$0")/package_lib.inc"
trap 'rc=$?; reload_preloaded; (exit $rc); cleanup' EXIT
require nc modinfo

BASE4="*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A INPUT -p tcp --dport 2222 -j ACCEPT
COMMIT"
BASE6=${BASE4//-p icmp/-p ipv6-icmp}
LOADER=/usr/libexec/chaostables-load
preloaded=()
unloaded=

# EXIT: whatever loaded, vm/run's modules are back for its unload check.
reload_preloaded() {
	[ -n "$unloaded" ] || return 0
	cleanup_namespaces
	load_preloaded
}
load_preloaded() {
	local m
	for m in "${preloaded[@]}"; do
		[ -d "/sys/module/$m" ] || insmod "$TOP/build/$KVER/kernel/$m.ko" || true
	done
}

overlay_root
for m in $OUR_MODULES; do
	[ ! -d "/sys/module/$m" ] || preloaded+=("$m")
done
[ ${#preloaded[@]} = 5 ] || { skip "vm/run loaded ${preloaded[*]:-none} of $OUR_MODULES (make modules KVER=$KVER)"; finish; }
timed "apt-get install of chaostables (without chaostables-dkms)" 600 \
	apt-get install -y -q --no-install-recommends "$PKG_DEBDIR"/chaostables_*.deb || finish
for f in rules.v4 rules.v6; do
	# The shipped examples, every rule line uncommented.
	sed -i 's/^#\([-*]\|COMMIT\)/\1/' "/etc/chaostables/$f"
	grep -q '^-A INPUT .*-j DELUDE' "/etc/chaostables/$f" ||
		fail "/etc/chaostables/$f has the example's DELUDE rule (got $(grep -v '^#' "/etc/chaostables/$f"))"
done
mkdir -p /etc/iptables
echo "$BASE4" > /etc/iptables/rules.v4
echo "$BASE6" > /etc/iptables/rules.v6

# reach ADDR PORT: a TCP connect from client succeeds.
reach() { ns client nc -z -w 5 "$1" "$2" 2>/dev/null; }

# boot VARIANT MODULES: one boot's firewall, VARIANT's iptables first in
# PATH as the admin's alternative would have it.
boot() {
	local v=$1 mods=$2 bin=/tmp/ipt-$1 out rc=0 s save4 save6 a
	local what="$v, modules $mods"
	ipt_variant_dir "$v" "$bin"
	setup_topology
	start_tcp_server host 2222 || return 0
	ns host env PATH="$bin:$PATH" iptables-restore < /etc/iptables/rules.v4
	ns host env PATH="$bin:$PATH" ip6tables-restore < /etc/iptables/rules.v6
	out=$(ns host env PATH="$bin:$PATH" "$LOADER" 2>&1) || rc=$?
	echo "# $what: $LOADER: status $rc"
	echo "#   ${out//$'\n'/$'\n'#   }"
	save4=$(ns host "$bin/iptables-save")
	save6=$(ns host "$bin/ip6tables-save")
	for s in "$save4" "$save6"; do
		[ "$s" = "$save4" ] && a=IPv4 || a=IPv6
		expect "$what: $a INPUT policy" ":INPUT DROP*" \
			"$(grep '^:INPUT' <<< "$s")"
		expect "$what: $a base rule" "-A INPUT -p tcp -m tcp --dport 2222 -j ACCEPT" \
			"$(grep -e '--dport 2222' <<< "$s")"
	done
	for a in "$HOST4" "$HOST6"; do
		if reach "$a" 2222; then
			pass "$what: $a port 2222 reachable from client"
		else
			fail "$what: $a port 2222 reachable from client (expected a connection, got none)"
		fi
	done
	if [ "$mods" = absent ]; then
		expect "$what: loader fails" 1 "$rc"
		expect "$what: loader names the kernel and module" \
			"chaostables: no module xt_CHAOS for the running kernel $KVER" \
			"$(grep 'no module xt_CHAOS' <<< "$out")"
		expect "$what: loader says the base firewall stays" \
			"*lacks module(s)*xt_CHAOS*not loading*the base firewall stays*" \
			"$(grep 'lacks module' <<< "$out")"
		expect "$what: no chaostables rule loaded" "" \
			"$(grep -E 'portscan|DELUDE|TARPIT|CHAOS' <<< "$save4$save6")"
		for a in "$HOST4" "$HOST6"; do
			if reach "$a" 1000; then
				fail "$what: $a port 1000 dropped (expected no connection, got one)"
			else
				pass "$what: $a port 1000 dropped (policy DROP)"
			fi
		done
	else
		expect "$what: loader succeeds" 0 "$rc"
		for s in "$save4" "$save6"; do
			expect "$what: chaostables rules loaded" \
				"*-A INPUT -p tcp -m portscan*-j CHAOS --delude*-A INPUT -p tcp -m tcp --dport 2222 -j ACCEPT*-j DELUDE*-A INPUT -j CHAOS --delude" \
				"$(grep '^-A INPUT' <<< "$s" | xargs)"
		done
		for a in "$HOST4" "$HOST6"; do
			if reach "$a" 1000; then
				pass "$what: $a port 1000 answered by DELUDE"
			else
				fail "$what: $a port 1000 answered by DELUDE (expected a connection, got none)"
			fi
		done
	fi
	# The clients' connections to DELUDE's ports, never closed, would
	# keep the namespace, and so the rules and our modules.
	flush_rules host
	cleanup_namespaces
}

unloaded=1
unload_ours || { fail "vm/run's modules unload (still loaded: $(loaded_ours))"; finish; }
expect "no xt_CHAOS for modprobe" "" "$(modinfo -k "$KVER" -F filename xt_CHAOS 2>/dev/null)"
for v in legacy nft; do
	boot "$v" absent
done
load_preloaded
expect "vm/run's modules loaded again" "$OUR_MODULES" "$(loaded_ours)"
for v in legacy nft; do
	boot "$v" present
done
timed "apt-get purge of chaostables" 600 apt-get purge -y -q chaostables || true
expect "purge leaves no /etc/chaostables or unit state" "" \
	"$(find /etc/chaostables /var/lib/systemd/deb-systemd-helper-enabled \
		/etc/systemd/system -name '*chaostables*' -printf '%p ' 2>/dev/null)"
finish
