# SPDX-License-Identifier: GPL-2.0
# Result counting shared by tests/host/run and tests/vm/run: every PASS:,
# FAIL: and SKIP: line of a script counts; an exit status that its lines
# do not explain (a crash, a set -e abort) counts as one more failure.
# shellcheck shell=bash

npass=0 nfail=0 nskip=0
verdicts=()

# tally NAME OUTPUT STATUS
tally() {
	local name=$1 body=$2 rc=$3 p f s
	p=$(grep -c '^PASS:' <<< "$body")
	f=$(grep -c '^FAIL:' <<< "$body")
	s=$(grep -c '^SKIP:' <<< "$body")
	case $rc in
	0|4) ;;
	*) [ "$f" -gt 0 ] || { echo "FAIL: $name exited with status $rc"; f=1; } ;;
	esac
	[ "$rc" != 4 ] || [ "$s" -gt 0 ] || s=1
	npass=$((npass + p)) nfail=$((nfail + f)) nskip=$((nskip + s))
	if [ "$f" -gt 0 ]; then
		verdicts+=("FAIL $name")
	elif [ "$rc" = 4 ]; then
		verdicts+=("SKIP $name")
	else
		verdicts+=("ok   $name")
	fi
}

# tally_summary TITLE: per-script verdicts and the totals line; status 1
# on any failure.
tally_summary() {
	echo "$1:"
	printf '  %s\n' "${verdicts[@]}"
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
}
