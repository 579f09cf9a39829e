#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/kernels finds the newest kernel of each supported series that has
# image and headers, follows the ABIs the archive moves on to, fails loudly
# naming a missing series; and no tracked file names an installed kernel
# ABI (they change with every kernel update).
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/ksft.inc"

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
fl=$(dpkg --print-architecture 2>/dev/null || echo amd64)

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
want="6.1.9-10-$fl 6.12.1000+t1-$fl"
got=$(CHAOS_KROOT=$r "$TOP/tests/kernels" 2>&1 | xargs) || true
if [ "$got" = "$want" ]; then
	pass "newest kernel with headers of each series"
else
	fail "newest kernel with headers of each series (expected \"$want\", got \"$got\")"
fi

rmdir "$r/usr/src/linux-headers-6.12."*
set +e
out=$(CHAOS_KROOT=$r "$TOP/tests/kernels" 2> "$tmp/err")
rc=$?
set -e
err=$(cat "$tmp/err")
if [ $rc = 1 ] && [ "$out" = "6.1.9-10-$fl" ] && grep -q 'no 6\.12 kernel' <<< "$err"; then
	pass "missing 6.12 headers: exit 1, names the series ($err)"
else
	fail "missing 6.12 headers (expected exit 1, 6.1 listed, \"no 6.12 kernel\"; got $rc, \"$out\", \"$err\")"
fi

out=$(CHAOS_KROOT=$tmp/empty "$TOP/tests/kernels" 2>&1) && rc=0 || rc=$?
if [ $rc = 1 ] && grep -q 'no 6\.1 kernel' <<< "$out" &&
   grep -q 'no 6\.12 kernel' <<< "$out"; then
	pass "no kernels: exit 1, names both series"
else
	fail "no kernels (expected exit 1 naming 6.1 and 6.12, got $rc: $out)"
fi

got=$(CHAOS_KROOT=$tmp/empty CHAOS_KVERS="a b" "$TOP/tests/kernels" | xargs)
if [ "$got" = "a b" ]; then
	pass "CHAOS_KVERS overrides the detection"
else
	fail "CHAOS_KVERS overrides the detection (expected \"a b\", got \"$got\")"
fi

# This machine's kernels are what tests/check and make deb use.
if kvers=$("$TOP/tests/kernels"); then
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
