#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugins against the real modules, with iptables-legacy, iptables-nft,
# ip6tables-legacy and ip6tables-nft. Each extension's module is loaded.
# The OK rules of all extensions/libxt_*.t files are added in each of their
# chains with one restore per group (portscan rules of one namespace must
# share a --mark-mask, so each mask is a group); per extension, "-S" lists
# them exactly as its .t file expects, the save output restores to the
# same save output and they delete by their own spec; "-L" lists them.
# Then the kernel's own
# refusals: OUTPUT (directly or through a user chain), rules without
# "-p tcp" for DELUDE, and for TARPIT rules of another protocol than TCP
# (TARPIT takes a rule of any protocol, "-j TARPIT" alone). The .t FAIL lines are refused by the plugins before
# any kernel call: tests/host/plugin_tfiles.sh checks them.
# The plugins of the root's iptables, the same for each kernel:
# vm-per-root
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

TOP=${CHAOS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
XTABLES_LIBDIR=${XTABLES_LIBDIR:-$(xtables_libdir "$TOP/extensions")}
export XTABLES_LIBDIR
NS=host
TMP=$(mktemp -d)	# in the VM's tmpfs: gone with the VM if we abort
setup_topology

# first line of an error output, for FAIL messages
first() { printf '%s' "$1" | grep -v '^Warning' | head -n 1; }

# differ A B: the first differing lines of texts A and B, on one line
differ() { diff <(echo "$1") <(echo "$2") | grep '^[<>]' | head -n 6 | tr '\n' ' '; }

# The extensions, by their .t files; "of EXT" keeps the rules of EXT,
# under any of its names (lscan is portscan's other name).
EXTS=$(cd "$TOP/extensions" && for t in libxt_*.t; do t=${t#libxt_}; echo "${t%.t}"; done)
of() {
	local names=$1
	[ "$1" != portscan ] || names="portscan|lscan"
	grep -E -- "(-m|-j) ($names)( |\$)" || true
}

for e in $EXTS; do
	module_loaded "xt_$e"
done

# Group files $TMP/G.{add,del,want}: "-A CHAIN rule", "-D CHAIN rule" and
# "-A CHAIN expected", sorted by chain (the order of -S), G "0" for rules
# without --mark-mask, else the mask as saved.
awk -F';' -v dir="$TMP" '
	/^#/ || /^$/ { next }
	/^:/ { n = split(substr($0, 2), chains, ","); next }
	$3 == "OK" {
		want = ($2 == "=") ? $1 : $2
		g = "0"
		if (match(want, /--mark-mask [^ ]+/))
			g = substr(want, RSTART + 12, RLENGTH - 12)
		for (i = 1; i <= n; i++) {
			c = chains[i]
			o = (c == "INPUT") ? 1 : (c == "FORWARD") ? 2 : 3
			print o ";-A " c " " $1 > (dir "/" g ".add.u")
			print o ";-D " c " " $1 > (dir "/" g ".del.u")
			print o ";-A " c " " want > (dir "/" g ".want.u")
		}
	}' "$TOP"/extensions/libxt_*.t
for f in "$TMP"/*.u; do
	sort -s -t';' -k1,1n "$f" | cut -d';' -f2- > "${f%.u}"
	rm "$f"
done
GROUPS_=$(cd "$TMP" && for f in *.add; do echo "${f%.add}"; done)

# restore_lines IPT FILE: apply FILE's rule lines to the filter table
restore_lines() {
	{ echo '*filter'; cat "$2"; echo COMMIT; } |
		ns $NS "$1-restore" --noflush 2>&1
}

# check_group IPT G: the whole round trip for group G
check_group() {
	local ipt=$1 g=$2 what="$1: group --mark-mask $2" err c rule
	local got want s1 s2 e n

	[ "$g" != 0 ] || what="$ipt: group without --mark-mask"

	if ! restore_lines "$ipt" "$TMP/$g.add" >/dev/null; then
		# Which rule? One at a time up to the first refused one.
		while read -r _ c rule; do
			# shellcheck disable=SC2086
			if ! err=$(ns $NS "$ipt" -A "$c" $rule 2>&1); then
				fail "$ipt -A $c $rule (expected success, got \"$(first "$err")\")"
				break
			fi
		done < "$TMP/$g.add"
		ns $NS "$ipt" -F
		return
	fi
	got=$(ns $NS "$ipt" -S 2>/dev/null | grep '^-A ' || true)
	want=$(cat "$TMP/$g.want")
	n=$(wc -l < "$TMP/$g.add")
	c=$(grep -c . <<< "$got" || true)
	if [ "$c" = "$n" ]; then
		pass "$what: $n rules accepted"
	else
		fail "$what: rules accepted (expected $n in -S, got $c)"
	fi

	for e in $EXTS; do
		[ -n "$(of "$e" <<< "$want")" ] || continue
		if [ "$(of "$e" <<< "$got")" = "$(of "$e" <<< "$want")" ]; then
			pass "$what: -S lists the $e rules as libxt_$e.t expects"
		else
			fail "$what: -S, $e rules (expected the .t text, got: $(differ "$(of "$e" <<< "$want")" "$(of "$e" <<< "$got")"))"
		fi
	done

	s1=$(ipt_save $NS "$ipt")
	ns $NS "$ipt" -F
	if ! err=$(printf '%s\n' "$s1" | ns $NS "$ipt-restore" 2>&1); then
		fail "$what: restore of the save output (expected success, got \"$(first "$err")\")"
	else
		s2=$(ipt_save $NS "$ipt")
		for e in $EXTS; do
			[ -n "$(of "$e" <<< "$want")" ] || continue
			if [ "$(of "$e" <<< "$s1")" = "$(of "$e" <<< "$s2")" ]; then
				pass "$what: $e rules: save -> restore -> save is identical"
			else
				fail "$what: $e rules: save -> restore -> save (expected identical, got: $(differ "$(of "$e" <<< "$s1")" "$(of "$e" <<< "$s2")"))"
			fi
		done
		[ "$s1" = "$s2" ] ||
			fail "$what: save -> restore -> save (expected identical, got: $(differ "$s1" "$s2"))"
	fi

	if err=$(ns $NS "$ipt" -L -n -v 2>&1 >/dev/null); then
		pass "$what: -L lists the rules"
	else
		fail "$what: -L (expected success, got \"$(first "$err")\")"
	fi

	# Delete by spec compares the userspace part of each rule (CHAOS:
	# everything before its kernel-private pointer).
	err=$(restore_lines "$ipt" "$TMP/$g.del") || true
	got=$(ns $NS "$ipt" -S 2>/dev/null | grep '^-A ' || true)
	for e in $EXTS; do
		[ -n "$(of "$e" <<< "$want")" ] || continue
		n=$(of "$e" <<< "$got" | grep -c . || true)
		if [ "$n" = 0 ]; then
			pass "$what: every $e rule deletes by its own spec"
		else
			fail "$what: delete $e rules by spec (expected 0 left, got $n: \"$(first "$err")\")"
		fi
	done
	ns $NS "$ipt" -F
}

for ipt in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
	if ! command -v "$ipt" >/dev/null; then
		fail "$ipt not installed (tests/install-deps installs it)"
		continue
	fi
	for g in $GROUPS_; do
		check_group "$ipt" "$g"
	done

	# Refused by the modules' hook masks and protocols, not by the plugins.
	while read -r c rule; do
		[ -n "$c" ] || continue
		# shellcheck disable=SC2086
		if ns $NS "$ipt" -A "$c" $rule 2>/dev/null; then
			fail "$ipt -A $c $rule (expected refusal, got success)"
			ns $NS "$ipt" -F "$c"
		else
			pass "$ipt -A $c $rule: refused by the kernel"
		fi
	done <<'EOF2'
OUTPUT -p tcp -j DELUDE
OUTPUT -p tcp -j TARPIT --honeypot
OUTPUT -j CHAOS
INPUT -p udp -j TARPIT
INPUT ! -p tcp -j TARPIT
FORWARD -p icmp -j TARPIT --reset
FORWARD -j DELUDE
EOF2

	# CHAOS reached from OUTPUT through a user chain.
	if ns $NS "$ipt" -N rt_chaos && ns $NS "$ipt" -A rt_chaos -j CHAOS; then
		if ns $NS "$ipt" -A OUTPUT -j rt_chaos 2>/dev/null; then
			fail "$ipt -A OUTPUT -j rt_chaos, CHAOS inside (expected refusal, got success)"
		else
			pass "$ipt -A OUTPUT -j rt_chaos, CHAOS inside: refused by the kernel"
		fi
	else
		fail "$ipt -A rt_chaos -j CHAOS (expected success, got failure)"
	fi
	ns $NS "$ipt" -F
	ns $NS "$ipt" -X
done
rm -rf "$TMP"
finish
