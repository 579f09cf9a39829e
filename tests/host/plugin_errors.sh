#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad options are refused by the plugin, before any kernel call, with exit
# status 2 (parameter problem) and a message that names the problem.
set -e
source "$(dirname "$0")/plugins.inc"

# rule arguments | expected message part
CASES='
-p tcp -m portscan|give at least one of --stealth, --synscan, --cnscan, --grscan
-p tcp -m portscan --mark-mask 0x1f|give at least one of
-p tcp -m portscan ! --synscan|option "--synscan" cannot be inverted
-p tcp -m portscan --stealth --stealth|option "--stealth" can only be used once
-p tcp -m portscan --synscan --mark-mask 0|--mark-mask 0x0 must contain 5 contiguous bits
-p tcp -m portscan --synscan --mark-mask 0x1e0|--mark-mask 0x1e0 must contain 5 contiguous bits
-p tcp -m portscan --synscan --mark-mask 0xf0000000|--mark-mask 0xf0000000 must contain 5
-p tcp -m portscan --synscan --mark-mask 0x100000000|"--mark-mask"
-p tcp -j DELUDE --reset|unknown option "--reset"
-p tcp -j TARPIT --tarpit --honeypot|option "--tarpit" cannot be used together with "--honeypot"
-p tcp -j TARPIT --reset --honeypot|option "--honeypot" cannot be used together with "--reset"
-p tcp -j TARPIT --tarpit --reset|cannot be used together with
-p tcp -j TARPIT --reset --reset|option "--reset" can only be used once
-j CHAOS --delude --tarpit|option "--delude" cannot be used together with "--tarpit"
-j CHAOS --delude-prob 0.5|--delude-prob needs --delude or --tarpit
-j CHAOS --reject-prob 2|--reject-prob "2": want a probability from 0 to 1 in steps of 0.000001
-j CHAOS --reject-prob 1.0000001|--reject-prob "1.0000001": want a probability
-j CHAOS --reject-prob 0.0000001|--reject-prob "0.0000001": want a probability
-j CHAOS --reject-prob 5%|--reject-prob "5%": want a probability
-j CHAOS --delude --delude-prob -0.5|--delude-prob "-0.5": want a probability
-j CHAOS --rate 0|--rate "0": want N, N/second or N/minute
-j CHAOS --rate 3/hour|--rate "3/hour": want N, N/second or N/minute
-j CHAOS --rate fast|--rate "fast": want N
-j CHAOS --rate 99999999/sec|--rate "99999999/sec": want N
-j CHAOS --burst 0|"--burst", or out of range (1-10000)
-j CHAOS --burst 10001|"--burst", or out of range (1-10000)
-j CHAOS --tarpit --tarpit|option "--tarpit" can only be used once
'

for ipt in $IPTS; do
	while IFS='|' read -r rule want; do
		[ -n "$rule" ] || continue
		rc=0
		# shellcheck disable=SC2086
		err=$($ipt -A INPUT $rule 2>&1 >/dev/null) || rc=$?
		if [ "$rc" -ne 2 ]; then
			fail "$ipt $rule (expected exit 2, got $rc)"
		elif ! printf '%s\n' "$err" | grep -qF -- "$want"; then
			fail "$ipt $rule (expected \"$want\", got \"$(printf '%s' "$err" | grep -v '^Warning' | head -n 1)\")"
		else
			pass "$ipt $rule: refused"
		fi
	done <<< "$CASES"
done
finish
