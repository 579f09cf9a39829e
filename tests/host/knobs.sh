#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's table of settings is true: every CHAOS_* variable the tests,
# the bench and their tools read is in it, every one in it is read, and
# they stay few (under 20). CHAOS_TOP and CHAOS_RUN are the harness's own
# (tests/vm/run sets them for the guest), not settings.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
cd "$TOP" || exit 1

# code: the non-comment lines of tests/ (this test aside) and the Makefile
# (comments name settings, they do not read them); not through git: the
# Debian 13 root runs this test too, without it.
code=$({ find tests -type f ! -path tests/host/knobs.sh; echo Makefile; } |
	xargs grep -hv '^[[:space:]]*#')
read_by_code=$(echo "$code" |
	grep -oE '\bCHAOS_[A-Z0-9_]*[A-Z0-9]\b' | sort -u |
	grep -vxE 'CHAOS_TOP|CHAOS_RUN')
in_readme=$(sed -n 's/^  \(CHAOS_[A-Z0-9_]*\)=.*/\1/p' README | sort -u)

n=$(grep -c . <<< "$in_readme")
if [ "$n" -ge 3 ]; then
	pass "the README's table lists $n settings"
else
	fail "the README's table of settings (expected its lines '  CHAOS_X=...', got $n)"
fi
# none WHAT LIST: PASS if LIST is empty.
none() {
	if [ -z "$2" ]; then
		pass "$1"
	else
		fail "$1 (expected none, got: $2)"
	fi
}
none "settings the code reads but the README's table lacks" \
	"$(comm -23 <(echo "$read_by_code") <(echo "$in_readme") | xargs)"
none "settings in the README's table that no code reads" \
	"$(comm -13 <(echo "$read_by_code") <(echo "$in_readme") | xargs)"
# One prefix: the old CT_ settings are gone for good.
none "settings with another prefix than CHAOS_ (CT_...)" \
	"$(echo "$code" | grep -oE '\$\{?CT_[A-Z0-9_]+' | sort -u | xargs)"
n=$(grep -c . <<< "$read_by_code")
if [ "$n" -lt 3 ]; then
	fail "settings read by the code (expected some, found $n: is tests/ there?)"
elif [ "$n" -lt 20 ]; then
	pass "$n settings (fewer than 20)"
else
	fail "settings (expected fewer than 20, got $n: $(xargs <<< "$read_by_code"))"
fi
finish
