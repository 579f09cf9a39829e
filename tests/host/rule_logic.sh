#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every rule set in doc/rule-logic.md loads: iptables-restore and
# ip6tables-restore blocks with the legacy and nft variants, nft blocks with
# "nft -c -f" and "nft -f". Each load runs in its own network namespace.
set -e
source "$(dirname "$0")/plugins.inc"

DOC=$TOP/doc/rule-logic.md
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Split the doc's fenced blocks into $TMP/N.TAG files.
awk -v dir="$TMP" '
	/^```[a-z0-9-]+$/ { n++; f = dir "/" n "." substr($0, 4); next }
	/^```$/ { f = ""; next }
	f != "" { print > f }
' "$DOC"

# load NAME CMD...: run CMD in a fresh namespace, report.
load()
{
	local name=$1 err
	shift
	if err=$(unshare -n "$@" 2>&1); then
		pass "$name loads"
	else
		fail "$name loads (expected exit 0, got \"$(printf '%s' "$err" | head -n 1)\")"
	fi
}

blocks=0
for f in "$TMP"/*; do
	[ -e "$f" ] || break
	tag=${f##*.}
	what="rule-logic.md block $(basename "${f%.*}") ($tag)"
	case "$tag" in
	iptables-restore | ip6tables-restore)
		fam=${tag%-restore}
		nrules=$(grep -c '^-A ' "$f")
		for variant in legacy nft; do
			cmd="$fam-$variant-restore"
			command -v "$cmd" >/dev/null || { fail "$cmd not installed (tests/install-deps installs it)"; continue; }
			load "$what with $cmd" bash -c \
				"$cmd < '$f' && n=\$($fam-$variant-save | grep -c '^-A ') &&
				 [ \"\$n\" = $nrules ] || { echo \"\$n of $nrules rules\"; exit 1; }"
		done
		;;
	nft)
		command -v nft >/dev/null || { fail "nft not installed (tests/install-deps installs it)"; continue; }
		load "$what with nft -c" nft -c -f "$f"
		load "$what with nft" bash -c "nft -f '$f' && nft list ruleset | grep -q '^table'"
		;;
	*)
		continue
		;;
	esac
	blocks=$((blocks + 1))
done
if [ "$blocks" -ge 4 ]; then
	pass "rule-logic.md has its $blocks rule sets"
else
	fail "rule-logic.md rule sets (expected at least 4, got $blocks)"
fi
finish
