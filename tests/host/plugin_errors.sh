#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad options are refused by the plugin, before any kernel call, with exit
# status 2 (parameter problem) and a message that names the problem: the
# cases below, and every option of each plugin's help given twice (with
# the value an OK rule of its .t file gives it), so that a new option is
# tested without a change here.
set -e
source "$(dirname "$0")/plugins.inc"

# rule arguments | expected message part
CASES='
-p tcp -m portscan|give at least one of --stealth, --synscan, --cnscan, --grscan
-p tcp -m portscan --mark-mask 0x1f|give at least one of
-p tcp -m portscan ! --synscan|option "--synscan" cannot be inverted
-p tcp -m portscan --synscan --mark-mask 0|--mark-mask 0x0 must contain 5 contiguous bits
-p tcp -m portscan --synscan --mark-mask 0x1e0|--mark-mask 0x1e0 must contain 5 contiguous bits
-p tcp -m portscan --synscan --mark-mask 0xf0000000|--mark-mask 0xf0000000 must contain 5
-p tcp -m portscan --synscan --mark-mask 0x100000000|"--mark-mask"
-p tcp -j DELUDE --reset|unknown option "--reset"
-p tcp -j TARPIT --tarpit --honeypot|option "--tarpit" cannot be used together with "--honeypot"
-p tcp -j TARPIT --reset --honeypot|option "--honeypot" cannot be used together with "--reset"
-p tcp -j TARPIT --tarpit --reset|cannot be used together with
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
-j CHAOS --banner|--banner needs --delude
'

# twice EXT: "RULE|MESSAGE" cases, each option of EXT's help given twice,
# with the value that follows it in an OK rule of EXT's .t file, if any,
# after what precedes EXT in the first OK rule (-p tcp).
twice() {
	local ext=$1 opt val proto
	proto=$(t_rules "$ext" OK | head -n 1 | sed "s/$ext.*//")
	for opt in $(help_opts "$ext"); do
		val=$(t_rules "$ext" OK | awk -v o="$opt" '{
			for (i = 1; i < NF; i++)
				if ($i == o && $(i + 1) !~ /^-/) { print $(i + 1); exit }
		}')
		echo "$proto$ext $opt${val:+ $val} $opt${val:+ $val}|option \"$opt\" can only be used once"
	done
}
for ext in "${PLUGIN_EXTS[@]}"; do
	CASES+=$(twice "$ext")$'\n'
done

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
