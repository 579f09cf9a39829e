# SPDX-License-Identifier: GPL-2.0
# Result counting shared by tests/run and tests/vm/run: every PASS:,
# FAIL: and SKIP: line of a script counts; an exit status that its lines
# do not explain (a crash, a set -e abort) counts as one more failure.
# A runner's whole output counts by its last result line (tally_log).
# Every skip is listed in the summary with its reason.
# shellcheck shell=bash

npass=0 nfail=0 nskip=0
verdicts=()
skips=()

# tally NAME OUTPUT STATUS
tally() {
	local name=$1 body=$2 rc=$3 p f s line
	p=$(grep -c '^PASS:' <<< "$body")
	f=$(grep -c '^FAIL:' <<< "$body")
	s=$(grep -c '^SKIP:' <<< "$body")
	case $rc in
	0|4) ;;
	*) [ "$f" -gt 0 ] || { echo "FAIL: $name exited with status $rc"; f=1; } ;;
	esac
	[ "$rc" != 4 ] || [ "$s" -gt 0 ] || { s=1; skips+=("$name: no reason given"); }
	while read -r line; do
		skips+=("$name: ${line#SKIP: }")
	done < <(grep '^SKIP:' <<< "$body")
	npass=$((npass + p)) nfail=$((nfail + f)) nskip=$((nskip + s))
	if [ "$f" -gt 0 ]; then
		verdicts+=("FAIL $name")
	elif [ "$rc" = 4 ]; then
		verdicts+=("SKIP $name")
	else
		verdicts+=("ok   $name")
	fi
}

# tally_log NAME FILE: the last "N passed, N failed, N skipped" line of
# FILE, a runner's output, added in; none counts as one failure.
tally_log() {
	local sum p f s line
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" | tail -n 1)
	while read -r line; do
		skips+=("$1: ${line#skip: }")
	done < <(grep '^  skip: ' "$2")
	if [ -z "$sum" ]; then
		echo "FAIL: $1 printed no result line"
		sum="0 passed, 1 failed, 0 skipped"
	fi
	read -r p _ f _ s _ <<< "${sum//,/}"
	npass=$((npass + p)) nfail=$((nfail + f)) nskip=$((nskip + s))
	verdicts+=("$(printf '%-44s %s' "$1" "$sum")")
}

# tally_summary TITLE: per-script verdicts, every skip with its reason
# ("  skip: " lines, which tally_log takes up from a runner's output) and
# the totals line; status 1 on any failure.
tally_summary() {
	echo "$1:"
	printf '  %s\n' "${verdicts[@]}"
	[ ${#skips[@]} = 0 ] || printf '  skip: %s\n' "${skips[@]}"
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" = 0 ]
}
