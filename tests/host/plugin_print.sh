#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The listing format (print) of each plugin, as "iptables -A ... -v" shows it
# before the kernel step: one space before each word, nothing doubled, and
# CHAOS values in their shortest exact form (the save format uses the same
# formatting helpers; save itself is checked in the VM).
set -e
source "$(dirname "$0")/plugins.inc"

# rule arguments | expected end of the listed rule (DELUDE lists nothing)
CASES='
-p tcp -m portscan --grscan --stealth -j DROP| portscan STEALTH GRSCAN
-p tcp -m portscan --cnscan --synscan --mark-mask 0x3e0 -j DROP| portscan SYNSCAN CNSCAN mark-mask 0x3e0
-p tcp -m portscan --synscan --mark-mask 0xf8000000 -j DROP| portscan SYNSCAN
-p tcp -j DELUDE|/0
-p tcp -j TARPIT| mode tarpit
-p tcp -j TARPIT --honeypot| mode honeypot
-p tcp -j TARPIT --reset| mode reset
-j CHAOS| reject-prob 0.1 rate 2/sec burst 5
-j CHAOS --delude| delude reject-prob 0.1 delude-prob 0.05 rate 2/sec burst 5
-j CHAOS --tarpit --delude-prob 0.000001 --reject-prob .5 --rate 90/min --burst 7| tarpit reject-prob 0.5 delude-prob 0.000001 rate 90/min burst 7
-j CHAOS --reject-prob 1.000 --rate 300/minute| reject-prob 1 rate 5/sec burst 5
-j CHAOS --reject-prob 0.1200 --rate 1/s| reject-prob 0.12 rate 1/sec burst 5
'

for ipt in $IPTS; do
	while IFS='|' read -r rule want; do
		[ -n "$rule" ] || continue
		# shellcheck disable=SC2086
		out=$($ipt -A INPUT $rule -v 2>/dev/null | sed 's/[[:space:]]*$//' |
		      tail -n 1) || true
		if [ "${out%"$want"}" != "$out" ]; then
			pass "$ipt $rule: lists as \"$want\""
		else
			fail "$ipt $rule (expected \"$want\", got \"$out\")"
		fi
	done <<< "$CASES"
done
finish
