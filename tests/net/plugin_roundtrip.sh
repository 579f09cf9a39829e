#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugins against the real modules, with iptables-legacy, iptables-nft,
# ip6tables-legacy and ip6tables-nft. The OK rules of every
# extensions/libxt_*.t file are added in each of their chains (one restore
# per file), "-S" lists them exactly as the .t expects, the save output
# restores to the same save output, "-L" lists them and they delete by their
# own spec. Then the kernel's own refusals: OUTPUT (directly or through a
# user chain) and non-TCP rules for DELUDE and TARPIT. The .t FAIL lines are
# refused by the plugins before any kernel call: tests/host/plugin_tfiles.sh.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

TOP=${CHAOS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export XTABLES_LIBDIR=${XTABLES_LIBDIR:-$TOP/extensions:/usr/lib/x86_64-linux-gnu/xtables}
NS=host
TMP=$(mktemp -d)	# in the VM's tmpfs: gone with the VM if we abort
setup_topology

# save IPT: the save output without comments and counters
save() { ns $NS "$1-save" 2>/dev/null | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]$/[0:0]/'; }

# first line of an error output, for FAIL messages
first() { printf '%s' "$1" | grep -v '^Warning' | head -n 1; }

# differ A B: the first differing lines of texts A and B, on one line (no
# process substitution: the VM has no /dev/fd)
differ() {
	printf '%s\n' "$1" > "$TMP/a"
	printf '%s\n' "$2" > "$TMP/b"
	diff "$TMP/a" "$TMP/b" | grep '^[<>]' | head -n 6 | tr '\n' ' '
}

# Per .t file: $TMP/NAME.add ("-A CHAIN rule"), .del ("-D CHAIN rule") and
# .want ("-A CHAIN expected"), in file order; chains in -S order below.
for t in "$TOP"/extensions/libxt_*.t; do
	name=$(basename "$t" .t)
	awk -F';' -v dir="$TMP" -v name="$name" '
		/^#/ || /^$/ { next }
		/^:/ { n = split(substr($0, 2), chains, ","); next }
		$3 == "OK" {
			want = ($2 == "=") ? $1 : $2
			for (i = 1; i <= n; i++) {
				c = chains[i]
				print "-A " c " " $1 > (dir "/" name "." c ".add")
				print "-D " c " " $1 > (dir "/" name "." c ".del")
				print "-A " c " " want > (dir "/" name "." c ".want")
			}
		}' "$t"
done

# restore_lines IPT FILE...: apply the rule lines of FILEs to the filter table
restore_lines() {
	local ipt=$1
	shift
	{ echo '*filter'; cat "$@"; echo COMMIT; } |
		ns $NS "$ipt-restore" --noflush 2>&1
}

CHAINS="INPUT FORWARD OUTPUT"

for ipt in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
	if ! command -v "$ipt" >/dev/null; then
		skip "$ipt not installed"
		continue
	fi

	want=
	accepted=()
	for t in "$TOP"/extensions/libxt_*.t; do
		name=$(basename "$t" .t)
		files=()
		for c in $CHAINS; do
			[ -e "$TMP/$name.$c.add" ] && files+=("$TMP/$name.$c.add")
		done
		[ ${#files[@]} -gt 0 ] || continue
		if err=$(restore_lines "$ipt" "${files[@]}"); then
			pass "$ipt: every OK rule of $name.t is accepted ($(cat "${files[@]}" | wc -l) rules)"
			want+=$(cat "${files[@]/%.add/.want}")$'\n'
			accepted+=("${files[@]/%.add/.del}")
		else
			# Which rule? One at a time up to the first refused one.
			cat "${files[@]}" > "$TMP/retry"
			while read -r _ c rule; do
				# shellcheck disable=SC2086
				if ! err=$(ns $NS "$ipt" -A "$c" $rule 2>&1); then
					fail "$ipt -A $c $rule, from $name.t (expected success, got \"$(first "$err")\")"
					break
				fi
				# shellcheck disable=SC2086
				ns $NS "$ipt" -D "$c" $rule
			done < "$TMP/retry"
		fi
	done

	# -S lists chain by chain; within a chain, in the order added.
	got=$(ns $NS "$ipt" -S 2>/dev/null | grep '^-A ' || true)
	want=$(for c in $CHAINS; do grep "^-A $c " <<< "$want" || true; done)
	if [ -z "$want" ]; then
		fail "$ipt: no rule to list (expected the .t OK rules)"
	elif [ "$got" = "$want" ]; then
		pass "$ipt -S lists every rule as the .t files expect ($(wc -l <<< "$got") rules)"
	else
		fail "$ipt -S (expected the .t text, got: $(differ "$want" "$got"))"
	fi

	s1=$(save "$ipt")
	ns $NS "$ipt" -F
	if ! err=$(printf '%s\n' "$s1" | ns $NS "$ipt-restore" 2>&1); then
		fail "$ipt-restore of the save output (expected success, got \"$(first "$err")\")"
	else
		s2=$(save "$ipt")
		if [ "$s1" = "$s2" ]; then
			pass "$ipt: save -> restore -> save is identical"
		else
			fail "$ipt: save -> restore -> save (expected identical, got: $(differ "$s1" "$s2"))"
		fi
	fi

	if err=$(ns $NS "$ipt" -L -n -v 2>&1 >/dev/null); then
		pass "$ipt -L lists the rules"
	else
		fail "$ipt -L (expected success, got \"$(first "$err")\")"
	fi

	# Delete by spec compares the userspace part of each rule (CHAOS:
	# everything before its kernel-private pointer).
	if [ ${#accepted[@]} -gt 0 ]; then
		if ! err=$(restore_lines "$ipt" "${accepted[@]}"); then
			fail "$ipt: delete every rule by its spec (expected success, got \"$(first "$err")\")"
		fi
		left=$(ns $NS "$ipt" -S 2>/dev/null | grep -c '^-A ' || true)
		if [ "$left" = 0 ]; then
			pass "$ipt: every rule deletes by its own spec"
		else
			fail "$ipt: delete by spec (expected 0 rules left, got $left)"
		fi
	fi
	ns $NS "$ipt" -F

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
