#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernels finds the newest kernel of each supported series that has
# image and headers, follows the ABIs the archive moves on to, fails loudly
# naming a missing series, takes the newest series of the Debian 13 root
# whatever its number; dkms.conf, compat.h and tests/kernels agree on the
# supported range; and no tracked file names an installed kernel ABI
# (they change with every kernel update).
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
fl=$(dpkg --print-architecture 2>/dev/null || echo amd64)
# The detection is under test, not this run's choice of kernels.
kvers_run=${CHAOS_KVERS:-}
unset CHAOS_KVERS

# kernel ROOT KVER [headers]: a fake installed kernel below ROOT
kernel() {
	mkdir -p "$1/boot" "$1/usr/src"
	touch "$1/boot/vmlinuz-$2"
	[ -z "${3:-}" ] || mkdir "$1/usr/src/linux-headers-$2"
}

# ABIs that no archive ever had: the detection must follow them.
r=$tmp/moved
kernel "$r" "6.1.9-2-$fl" headers
kernel "$r" "6.1.9-10-$fl" headers
kernel "$r" "6.1.9-11-$fl"		# image, but no headers
kernel "$r" "6.1.9-12-cloud-$fl" headers
kernel "$r" "6.12.300+t1-$fl" headers
kernel "$r" "6.12.1000+t1-$fl" headers
kernel "$r" "6.12.1001+t1-rt-$fl" headers
mkdir "$r/usr/src/linux-headers-6.12.2000+t1-$fl"	# headers, no image
# The Debian 13 root: its newest series, whichever it is, is "new".
n=$tmp/cache/debian13
kernel "$n" "7.3.4+t1-$fl" headers
kernel "$n" "7.3.9+t1-cloud-$fl" headers
kernel "$n" "6.12.3000+t1-$fl" headers
want="6.1.9-10-$fl 6.12.1000+t1-$fl 7.3.4+t1-$fl"
got=$(KERNELS_ROOT=$r CHAOS_CACHE=$tmp/cache "$TOP/tests/kernels" 2>&1 | xargs) || true
if [ "$got" = "$want" ]; then
	pass "newest kernel with headers of each series"
else
	fail "newest kernel with headers of each series (expected \"$want\", got \"$got\")"
fi

kernel "$n" "7.4.1+t1-$fl" headers
want="6.1.9-10-$fl 6.12.1000+t1-$fl 7.4.1+t1-$fl"
got=$(KERNELS_ROOT=$r CHAOS_CACHE=$tmp/cache "$TOP/tests/kernels" 2>&1 | xargs) || true
if [ "$got" = "$want" ]; then
	pass "a newer series in the Debian 13 root is picked up: $got"
else
	fail "a newer series in the Debian 13 root (expected \"$want\", got \"$got\")"
fi
got=$(KERNELS_ROOT=$r CHAOS_CACHE=$tmp/cache "$TOP/tests/kernels" --root "7.4.1+t1-$fl")
expect "the root of the new series' kernel" "$n" "$got"
# A release without a patch number.
kernel "$n" "7.5+t1-$fl" headers
got=$(KERNELS_ROOT=$r CHAOS_CACHE=$tmp/cache "$TOP/tests/kernels" new 2>&1)
expect "a new series' release without a patch number" "7.5+t1-$fl" "$got"
got=$(KERNELS_ROOT=$r CHAOS_CACHE=$tmp/cache "$TOP/tests/kernels" --root "6.1.9-10-$fl")
expect "the root of a 6.1 kernel" "$r" "$got"

rm -r "$n"
set +e
out=$(KERNELS_ROOT=$r CHAOS_CACHE=$tmp/cache "$TOP/tests/kernels" 2> "$tmp/err")
rc=$?
set -e
err=$(cat "$tmp/err")
if [ $rc = 1 ] && [ "$(echo $out)" = "6.1.9-10-$fl 6.12.1000+t1-$fl" ] &&
   grep -q 'no new kernel.*debian-root debian13' <<< "$err"; then
	pass "no Debian 13 root: exit 1, names it ($err)"
else
	fail "no Debian 13 root (expected exit 1, 6.1 and 6.12 listed, \"no new kernel\"; got $rc, \"$out\", \"$err\")"
fi

rmdir "$r/usr/src/linux-headers-6.12."*
set +e
out=$(KERNELS_ROOT=$r "$TOP/tests/kernels" 6.1 6.12 2> "$tmp/err")
rc=$?
set -e
err=$(cat "$tmp/err")
if [ $rc = 1 ] && [ "$out" = "6.1.9-10-$fl" ] && grep -q 'no 6\.12 kernel' <<< "$err"; then
	pass "missing 6.12 headers: exit 1, names the series ($err)"
else
	fail "missing 6.12 headers (expected exit 1, 6.1 listed, \"no 6.12 kernel\"; got $rc, \"$out\", \"$err\")"
fi

out=$(KERNELS_ROOT=$tmp/empty CHAOS_CACHE=$tmp/empty "$TOP/tests/kernels" 2>&1) && rc=0 || rc=$?
if [ $rc = 1 ] && grep -q 'no 6\.1 kernel' <<< "$out" &&
   grep -q 'no 6\.12 kernel' <<< "$out" && grep -q 'no new kernel' <<< "$out"; then
	pass "no kernels: exit 1, names every series"
else
	fail "no kernels (expected exit 1 naming 6.1, 6.12 and new, got $rc: $out)"
fi

got=$(KERNELS_ROOT=$tmp/empty CHAOS_KVERS="a b" "$TOP/tests/kernels" | xargs)
if [ "$got" = "a b" ]; then
	pass "CHAOS_KVERS overrides the detection"
else
	fail "CHAOS_KVERS overrides the detection (expected \"a b\", got \"$got\")"
fi

# The supported range: compat.h's floor is the oldest series tested, and
# dkms.conf admits every series from it up to the newest tested one (the
# Debian 13 root's) and nothing beyond.
series() { sed -E 's/^([0-9]+\.[0-9]+).*/\1/'; }
floor=$(sed -n 's/.*< KERNEL_VERSION(\([0-9]*\), \([0-9]*\), 0).*/\1.\2/p' "$TOP/kernel/compat.h")
oldest=$(sed -n 's/^SERIES="\([^ ]*\) .*/\1/p' "$TOP/tests/kernels")
newest=$("$TOP/tests/kernels" new 2>/dev/null | series)
re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$TOP/dkms.conf")
# releases SERIES: a release of SERIES in each shape Debian names them:
# with a patch number and an ABI, with a patch number and a suffix, and
# without a patch number.
releases() { echo "$1.0-57-$fl $1.4+t1-$fl $1+t1-$fl"; }
# admits SERIES: dkms.conf admits each of its releases; refuses SERIES:
# none of them.
admits() {
	local k
	for k in $(releases "$1"); do
		[[ "$k" =~ $re ]] || { echo " dkms.conf refuses $k;"; return; }
	done
}
refuses() {
	local k
	for k in $(releases "$1"); do
		[[ ! "$k" =~ $re ]] || { echo " dkms.conf admits $k;"; return; }
	done
}
bad=
[ "$floor" = "$oldest" ] || bad+=" compat.h's floor $floor is not tests/kernels' oldest series $oldest;"
bad+=$(admits "$oldest")
below="${oldest%.*}.$((${oldest#*.} - 1))"
bad+=$(refuses "$below")
bad+=$(refuses 5.10)
if [ -n "$newest" ]; then
	for s in 6.12 6.19 7.0 "$newest"; do
		[ "$(printf '%s\n' "$s" "$newest" | sort -V | tail -n 1)" = "$newest" ] || continue
		bad+=$(admits "$s")
	done
	above="${newest%.*}.$((${newest#*.} + 1))"
	bad+=$(refuses "$above")
else
	skip "dkms.conf's upper bound: no Debian 13 root here (tests/install-deps)"
fi
if [ -z "$bad" ]; then
	pass "dkms.conf, compat.h and tests/kernels agree: $oldest to ${newest:-?} ($(releases "$oldest"))"
else
	fail "supported range (make dkms.conf's BUILD_EXCLUSIVE_KERNEL and compat.h's floor cover exactly the series tests/kernels tests):$bad"
fi

# This machine's kernels are what make check and make deb use.
if kvers=$(CHAOS_KVERS=$kvers_run "$TOP/tests/kernels"); then
	pass "this machine's kernels: $(echo $kvers)"
	# The tree must not name them, nor any kernel ABI of these series.
	hits=$(cd "$TOP" && git ls-files -z 2>/dev/null |
		xargs -0 grep -lE -e "$(echo $kvers | sed 's/ /|/g; s/[.+]/\\&/g')" \
			-e '6\.1\.0-[0-9]' -e '\+deb1[0-9]-' 2>/dev/null | xargs)
	if [ -z "$hits" ]; then
		pass "no tracked file names a kernel ABI"
	else
		fail "no tracked file names a kernel ABI (found in: $hits)"
	fi
else
	skip "this machine's kernels (run tests/install-deps)"
fi
finish
