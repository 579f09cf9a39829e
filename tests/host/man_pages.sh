#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man fragments document every option the plugins offer and render
# without groff warnings; doc/chaostables.8 is built from the current ones.
set -e
source "$(dirname "$0")/plugins.inc"

require groff

# render FILE...: groff's warnings, if any
render() { cat "$@" | groff -man -ww -z -Tutf8 2>&1; }

for ext in "${PLUGIN_EXTS[@]}"; do
	name=${ext#-? }
	man=$TOP/extensions/libxt_$name.man
	if [ ! -f "$man" ]; then
		fail "$name man page (expected $man, got none)"
		continue
	fi
	warn=$(render <(echo '.TH T 8') "$man")
	if [ -n "$warn" ]; then
		fail "libxt_$name.man renders (expected no warnings, got \"$warn\")"
	else
		pass "libxt_$name.man renders"
	fi
	# A shell's printf or echo -e turns \f into a form feed.
	if LC_ALL=C grep -q '[^[:print:][:space:]]\|'$'\f' "$man"; then
		fail "libxt_$name.man is plain text (expected no control characters, got: $(LC_ALL=C grep -n $'\f' "$man" | head -1 | cat -v))"
	else
		pass "libxt_$name.man is plain text"
	fi
	missing=
	opts=$(help_opts "$ext")
	[ -n "$opts" ] || missing=" (no option in $ext -h)"
	for opt in $opts; do
		grep -qF -- "\\fB${opt//-/\\-}\\fP" "$man" || missing="$missing $opt"
	done
	if [ -n "$missing" ]; then
		fail "libxt_$name.man documents every option (missing$missing)"
	else
		pass "libxt_$name.man documents every option"
	fi
done

if bash "$TOP/doc/mkman" | cmp -s - "$TOP/doc/chaostables.8"; then
	pass "doc/chaostables.8 is up to date"
else
	fail "doc/chaostables.8 is up to date (expected doc/mkman output, got a stale file)"
fi
warn=$(render "$TOP/doc/chaostables.8")
if [ -n "$warn" ]; then
	fail "doc/chaostables.8 renders (expected no warnings, got \"$warn\")"
else
	pass "doc/chaostables.8 renders"
fi
finish
