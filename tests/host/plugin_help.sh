#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every plugin prints its help text, listing all of its options, within 80
# columns, for IPv4 and IPv6, legacy and nft.
set -e
source "$(dirname "$0")/plugins.inc"

# check_help IPT EXT-ARGS HEADER [OPTION...]
check_help()
{
	local ipt=$1 ext=$2 header=$3 out opt missing="" wide
	shift 3

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
	for opt in "$@"; do
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
	check_help "$ipt" "-m portscan" "portscan match options" \
		--stealth --synscan --cnscan --grscan --mark-mask
	check_help "$ipt" "-j DELUDE" "DELUDE target options" --banner
	check_help "$ipt" "-j TARPIT" "TARPIT target options" \
		--tarpit --honeypot --reset
	check_help "$ipt" "-j CHAOS" "CHAOS target options" \
		--delude --tarpit --reject-prob --delude-prob --rate --burst --banner
done
finish
