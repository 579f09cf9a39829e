#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The listing format (print) of each plugin, as "iptables -A ... -v" shows it
# before the kernel step: one space before each word, nothing doubled, and
# CHAOS values in their shortest exact form (the save format uses the same
# formatting helpers; save itself is checked in the VM). Every option of a
# plugin's help must have a case here: a new option fails this test until
# it has one. A case the host's kernel cannot take (an option of a later
# revision of the target, and our modules are not loaded here) is skipped.
set -e
source "$(dirname "$0")/plugins.inc"

# rule arguments | expected end of the listed rule (DELUDE lists nothing)
CASES='
-p tcp -m portscan --grscan --stealth -j DROP| portscan STEALTH GRSCAN
-p tcp -m portscan --cnscan --synscan --mark-mask 0x3e0 -j DROP| portscan SYNSCAN CNSCAN mark-mask 0x3e0
-p tcp -m portscan --synscan --mark-mask 0xf8000000 -j DROP| portscan SYNSCAN
-p tcp -m portscan --stealth --mirai -j DROP| portscan STEALTH MIRAI
-p tcp -j DELUDE|/0
-p tcp -j DELUDE --banner| banner
-p tcp -j TARPIT| mode tarpit
-p tcp -j TARPIT --tarpit| mode tarpit
-p tcp -j TARPIT --honeypot| mode honeypot
-p tcp -j TARPIT --reset| mode reset
-p tcp -j TARPIT --stall| mode stall
-j CHAOS| reject-prob 0.1 rate 2/sec burst 5
-j CHAOS --delude| delude reject-prob 0.1 delude-prob 0.05 rate 2/sec burst 5
-j CHAOS --delude --banner| delude reject-prob 0.1 delude-prob 0.05 rate 2/sec burst 5 banner
-j CHAOS --tarpit --delude-prob 0.000001 --reject-prob .5 --rate 90/min --burst 7| tarpit reject-prob 0.5 delude-prob 0.000001 rate 90/min burst 7
-j CHAOS --reject-prob 1.000 --rate 300/minute| reject-prob 1 rate 5/sec burst 5
-j CHAOS --reject-prob 0.1200 --rate 1/s| reject-prob 0.12 rate 1/sec burst 5
'

for ipt in $IPTS; do
	while IFS='|' read -r rule want; do
		[ -n "$rule" ] || continue
		# shellcheck disable=SC2086
		all=$($ipt -A INPUT $rule -v 2>&1) || true
		out=$(grep -v -e '^Warning' -e '^Try ' <<< "$all" |
		      sed 's/[[:space:]]*$//' | tail -n 1)
		if grep -q 'needs revision .* load a newer' <<< "$out"; then
			skip "$ipt $rule: ${out#*: }"
		elif [ "${out%"$want"}" != "$out" ]; then
			pass "$ipt $rule: lists as \"$want\""
		else
			fail "$ipt $rule (expected \"$want\", got \"$out\")"
		fi
	done <<< "$CASES"
done

for ext in "${PLUGIN_EXTS[@]}"; do
	missing=$(cut -d'|' -f1 <<< "$CASES" | unused_opts "$ext")
	if [ -n "$missing" ]; then
		fail "every option of $ext -h has a case here (missing: $missing)"
	else
		pass "every option of $ext -h has a case here"
	fi
done
finish
