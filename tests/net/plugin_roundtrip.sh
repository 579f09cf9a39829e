#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The plugins against the real modules, with iptables-legacy, iptables-nft,
# ip6tables-legacy and ip6tables-nft. For every extensions/libxt_*.t file:
# each OK rule is added in each of its chains, "-S" lists it exactly as the
# .t expects, the save output restores to the same save output, "-L" lists
# it, and it deletes by its own spec; each FAIL rule is refused. Then the
# kernel's own refusals: OUTPUT (directly or through a user chain) and
# non-TCP rules for DELUDE and TARPIT.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

TOP=${CHAOS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
export XTABLES_LIBDIR=${XTABLES_LIBDIR:-$TOP/extensions:/usr/lib/x86_64-linux-gnu/xtables}
NS=host
setup_topology

# save IPT: the save output without comments and counters
save() { ns $NS "$1-save" | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]$/[0:0]/'; }

# first line of an error output, for FAIL messages
first() { printf '%s' "$1" | grep -v '^Warning' | head -n 1; }

# check_tfile IPT FILE
check_tfile()
{
	local ipt=$1 t=$2 name line rule want res chain chains="" err
	local -a added=() expect=()
	local bad=0 refused=0 nfail_lines=0 got s1 s2 i

	name=$(basename "$t")
	while IFS= read -r line; do
		case "$line" in
		'' | '#'*) continue ;;
		:*) chains=${line#:}; continue ;;
		esac
		IFS=';' read -r rule want res <<< "$line"
		[ "$want" = "=" ] && want=$rule
		for chain in ${chains//,/ }; do
			# shellcheck disable=SC2086
			if err=$(ns $NS "$ipt" -A "$chain" $rule 2>&1); then
				if [ "$res" = OK ]; then
					added+=("$chain $rule")
					expect+=("-A $chain $want")
				else
					fail "$ipt $name: -A $chain $rule (expected refusal, got success)"
					ns $NS "$ipt" -D "$chain" $rule || true
				fi
			elif [ "$res" = OK ]; then
				fail "$ipt $name: -A $chain $rule (expected success, got \"$(first "$err")\")"
				bad=1
			else
				refused=$((refused + 1))
			fi
			[ "$res" = OK ] || nfail_lines=$((nfail_lines + 1))
		done
	done < "$t"
	[ "$bad" = 1 ] || pass "$ipt $name: all ${#added[@]} OK rules added"
	[ "$refused" != "$nfail_lines" ] || pass "$ipt $name: all $refused FAIL rules refused"

	# -S lists chain by chain, each in the order the rules were added.
	got=$(ns $NS "$ipt" -S | grep '^-A ' || true)
	want=$(for chain in ${chains//,/ }; do
		printf '%s\n' "${expect[@]}" | grep "^-A $chain " || true
	done)
	if [ "$got" = "$want" ]; then
		pass "$ipt $name: -S lists every rule as expected"
	else
		fail "$ipt $name: -S (expected and got differ: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -n 4 | tr '\n' ' '))"
	fi

	s1=$(save "$ipt")
	ns $NS "$ipt" -F
	if ! err=$(printf '%s\n' "$s1" | ns $NS "$ipt-restore" 2>&1); then
		fail "$ipt $name: restore of the save output (expected success, got \"$(first "$err")\")"
	else
		s2=$(save "$ipt")
		if [ "$s1" = "$s2" ]; then
			pass "$ipt $name: save -> restore -> save is identical"
		else
			fail "$ipt $name: save -> restore -> save (expected identical, got $(diff <(echo "$s1") <(echo "$s2") | grep '^[<>]' | head -n 4 | tr '\n' ' '))"
		fi
	fi

	if err=$(ns $NS "$ipt" -L -n -v 2>&1 >/dev/null); then
		pass "$ipt $name: -L lists the rules"
	else
		fail "$ipt $name: -L (expected success, got \"$(first "$err")\")"
	fi

	bad=0
	for i in "${added[@]}"; do
		# shellcheck disable=SC2086
		if ! err=$(ns $NS "$ipt" -D $i 2>&1); then
			fail "$ipt $name: -D $i (expected success, got \"$(first "$err")\")"
			bad=1
		fi
	done
	got=$(ns $NS "$ipt" -S | grep -c '^-A ' || true)
	if [ "$bad" = 0 ] && [ "$got" = 0 ]; then
		pass "$ipt $name: every rule deletes by its own spec"
	elif [ "$got" != 0 ]; then
		fail "$ipt $name: delete by spec (expected 0 rules left, got $got)"
		ns $NS "$ipt" -F
	fi
}

# Refused by the modules' checkentry or hook masks, not by the plugins.
KERNEL_REFUSES='
OUTPUT -p tcp -j DELUDE
OUTPUT -p tcp -j TARPIT
OUTPUT -p tcp -j TARPIT --honeypot
OUTPUT -j CHAOS
OUTPUT -p tcp -j CHAOS --delude
INPUT -p udp -j DELUDE
INPUT -j DELUDE
INPUT -p udp -j TARPIT
FORWARD -j TARPIT --reset
'

for ipt in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
	if ! command -v "$ipt" >/dev/null; then
		skip "$ipt not installed"
		continue
	fi
	for t in "$TOP"/extensions/libxt_*.t; do
		check_tfile "$ipt" "$t"
	done

	while read -r chain rule; do
		[ -n "$chain" ] || continue
		# shellcheck disable=SC2086
		if ns $NS "$ipt" -A "$chain" $rule 2>/dev/null; then
			fail "$ipt -A $chain $rule (expected refusal, got success)"
			ns $NS "$ipt" -D "$chain" $rule || true
		else
			pass "$ipt -A $chain $rule: refused by the kernel"
		fi
	done <<< "$KERNEL_REFUSES"

	# A target allowed only in INPUT/FORWARD, reached from OUTPUT.
	ns $NS "$ipt" -N rt_chaos
	ns $NS "$ipt" -A rt_chaos -j CHAOS
	if ns $NS "$ipt" -A OUTPUT -j rt_chaos 2>/dev/null; then
		fail "$ipt -A OUTPUT -j rt_chaos (CHAOS inside) (expected refusal, got success)"
	else
		pass "$ipt -A OUTPUT -j rt_chaos (CHAOS inside): refused"
	fi
	ns $NS "$ipt" -F
	ns $NS "$ipt" -X rt_chaos
done
finish
