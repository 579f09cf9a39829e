#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every plugin prints its help text within 80 columns, for IPv4 and IPv6,
# legacy and nft, listing every option its .t file uses; and every option
# of its help has a rule in its .t file (tests/host/plugin_tfiles.sh, and
# in the VM tests/net/plugin_roundtrip.sh, run them). The options come
# from the plugins' own help and .t files: a new one needs no change here.
set -e
source "$(dirname "$0")/plugins.inc"

# check_help IPT EXT: EXT's help, after its header ("portscan match
# options"), lists every option of its .t file, in lines < 80 columns.
check_help()
{
	local ipt=$1 ext=$2 out opt missing="" wide header
	header="${ext#-? } $([ "${ext%% *}" = -m ] && echo match || echo target) options"

	# shellcheck disable=SC2086
	if ! out=$($ipt $ext -h 2>/dev/null); then
		fail "$ipt $ext -h (expected exit 0, got $?)"
		return
	fi
	out=$(printf '%s\n' "$out" | sed -n "/^$header/,\$p")
	if [ -z "$out" ]; then
		fail "$ipt $ext -h (expected \"$header\", got none)"
		return
	fi
	for opt in $(t_rules "$ext" OK | ext_opts "$ext"); do
		printf '%s\n' "$out" | grep -q -- "^  $opt\b" || missing="$missing $opt"
	done
	wide=$(printf '%s\n' "$out" | awk 'length > 79' | head -n 1)
	if [ -n "$missing" ]; then
		fail "$ipt $ext -h (expected options$missing listed)"
	elif [ -n "$wide" ]; then
		fail "$ipt $ext -h (expected lines <= 79 columns, got \"$wide\")"
	else
		pass "$ipt $ext -h"
	fi
}

for ipt in $IPTS; do
	for ext in "${PLUGIN_EXTS[@]}"; do
		check_help "$ipt" "$ext"
	done
done

for ext in "${PLUGIN_EXTS[@]}"; do
	t=libxt_${ext#-? }.t
	opts=$(help_opts "$ext" | xargs)
	untested=$(t_rules "$ext" OK | unused_opts "$ext")
	if [ -z "$opts" ]; then
		fail "$ext -h lists options (expected some, got none)"
	elif [ -n "$untested" ]; then
		fail "every option of $ext -h has an OK rule in $t (missing: $untested)"
	else
		pass "every option of $ext -h has an OK rule in $t ($opts)"
	fi
done

# The modes the VM tests run (tests/lib/targets.list) are rules the .t files
# take.
while read -r rule; do
	t=libxt_${rule##*-j }
	t=$TOP/extensions/${t%% *}.t
	if grep -qxF -- "$rule;=;OK" "$t"; then
		pass "tests/lib/targets.list: $rule is an OK rule of ${t##*/}"
	else
		fail "tests/lib/targets.list: $rule (expected \"$rule;=;OK\" in ${t##*/})"
	fi
done < <(target_rules)
finish
