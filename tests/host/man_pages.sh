#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The man pages: the fragments document every option the plugins offer
# and render without groff warnings; doc/chaostables.8 is built from the
# current ones (make man), holds every option too, and stays a reference:
# at most 600 source lines and 700 rendered, each extension's entry at
# most 80, and no sentence of it or of chaostables-load(8) cites a test
# run, a guest or a test script (the guides in doc/*.md carry those).
set -e
source "$(dirname "$0")/plugins.inc"

require groff

PAGE=$TOP/doc/chaostables.8
TOOLS=$TOP/doc/chaostables-load.8
# render FILE...: groff's warnings, if any (tbl for the SYSCTLS table).
render() { cat "$@" | groff -t -man -ww -z -Tutf8 2>&1; }
# lines FILE: its length as man shows it on an 80-column terminal.
lines() { groff -t -man -Tutf8 -rLL=78n "$1" 2>/dev/null | wc -l; }
# at_most WHAT MAX GOT
at_most() {
	if [ "$3" -le "$2" ]; then
		pass "$1: $3 (at most $2)"
	else
		fail "$1 (expected at most $2, got $3)"
	fi
}

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
	# The entry as the page shows it, less a page's header and footer.
	n=$(lines <(printf '.TH T 8\n.SS %s\n' "$name"; cat "$man"))
	at_most "$name's entry, rendered lines" 80 $((n - $(lines <(echo '.TH T 8'))))
	missing="" missing_page=""
	opts=$(help_opts "$ext")
	[ -n "$opts" ] || missing=" (no option in $ext -h)"
	for opt in $opts; do
		grep -qF -- "\\fB${opt//-/\\-}\\fP" "$man" || missing="$missing $opt"
		grep -qF -- "\\fB${opt//-/\\-}\\fP" "$PAGE" || missing_page="$missing_page $opt"
	done
	if [ -n "$missing" ]; then
		fail "libxt_$name.man documents every option (missing$missing)"
	else
		pass "libxt_$name.man documents every option"
	fi
	if [ -n "$missing_page" ]; then
		fail "doc/chaostables.8 documents every option of $ext -h (missing$missing_page)"
	else
		pass "doc/chaostables.8 documents every option of $ext -h"
	fi
done

if sh "$TOP/doc/mkman" | cmp -s - "$PAGE"; then
	pass "doc/chaostables.8 is up to date"
else
	fail "doc/chaostables.8 is up to date (expected doc/mkman's output: make man)"
fi
for p in "$PAGE" "$TOOLS"; do
	warn=$(render "$p")
	if [ -n "$warn" ]; then
		fail "${p#"$TOP"/} renders (expected no warnings, got \"$warn\")"
	else
		pass "${p#"$TOP"/} renders"
	fi
done
at_most "doc/chaostables.8, source lines" 600 "$(wc -l < "$PAGE")"
at_most "doc/chaostables.8, rendered lines" 700 "$(lines "$PAGE")"

# A reference states what the admin can rely on; how it was measured is
# the guides' (doc/*.md).
for p in "$PAGE" "$TOOLS"; do
	cites=$(grep -nEi 'tests/|\bguests?\b|\bTCG\b|\bQEMU\b|\bVM\b|measured|make (bench|check|demo)' "$p" || true)
	if [ -n "$cites" ]; then
		fail "${p#"$TOP"/} cites no test run, guest or test script (got: ${cites//$'\n'/; })"
	else
		pass "${p#"$TOP"/} cites no test run, guest or test script"
	fi
done
finish
