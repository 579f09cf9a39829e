#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every rule of extensions/*.t parses: OK lines get past the plugin (they
# fail later, at the kernel, since our modules are not on this host; the
# options of a later revision, at revision 0's check), FAIL
# lines are refused by the plugin with exit status 2. Save output and the
# round trip are checked in the VM by tests/net/plugin_roundtrip.sh.
set -e
source "$(dirname "$0")/plugins.inc"

for t in "$TOP"/extensions/libxt_*.t; do
	name=$(basename "$t")
	chains=
	lineno=0
	while IFS= read -r line; do
		lineno=$((lineno + 1))
		case "$line" in
		'' | '#'*) continue ;;
		:*) chains=${line#:}; continue ;;
		esac
		rule=${line%%;*}
		res=${line##*;}
		for ipt in $IPTS; do
			for chain in ${chains//,/ }; do
				rc=0
				# shellcheck disable=SC2086
				err=$($ipt -A "$chain" $rule 2>&1 >/dev/null) || rc=$?
				what="$name:$lineno $ipt -A $chain $rule"
				case "$res:$rc" in
				# Without our modules iptables takes revision 0,
				# which refuses the options of later ones.
				OK:2) if grep -q 'needs revision [0-9]* of the target' <<< "$err"; then
					pass "$what: parses up to the revision the kernel lacks"
				else
					fail "$what (expected to parse, got \"$(printf '%s' "$err" | grep -v '^Warning' | head -n 1)\")"
				fi ;;
				OK:*) pass "$what: parses" ;;
				FAIL:2) pass "$what: refused" ;;
				FAIL:*) fail "$what (expected exit 2, got $rc)" ;;
				*) fail "$what (expected OK or FAIL, got \"$res\")" ;;
				esac
			done
		done
	done < "$t"
done
finish
