#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A tree under /tmp (a clone there is a common first step) works in the
# Debian 13 root: tests/debian-root mounts a tmpfs on the root's /tmp,
# and the tree's mount point must be made on it, not below it.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"

root=$("$TOP/tests/debian-root" debian13 path) ||
	{ skip "no Debian 13 root here (inside it, or before tests/install-deps)"; finish; }
[ "$(id -u)" = 0 ] || { skip "needs root for unshare -m and chroot"; finish; }

tmp=$(mktemp -d /tmp/chaos-tree.XXXXXX)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
# The tests of this tree, copied: what tests/debian-root runs from.
cp -a "$TOP/tests" "$tmp/"

out=$("$tmp/tests/debian-root" debian13 run /bin/sh -c \
	'pwd; test -x tests/debian-root && echo tree; stat -f -c %T /tmp' 2>&1)
rc=$?
expect "tests/debian-root run from $tmp" "0 $tmp tree tmpfs" "$rc $(echo $out)"
if [ -e "$root$tmp" ]; then
	fail "nothing left in the root's own /tmp (found $root$tmp)"
else
	pass "nothing left in the root's own /tmp"
fi
finish
