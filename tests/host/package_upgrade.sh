#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The upgrade path of the Debian packages, on the host (DKMS builds, it
# loads nothing; under TCG each build takes minutes): installed for real
# on an overlay of the root (tests/install/package_lib.inc) while no kernel
# has headers; then the headers of each supported kernel arrive, their
# package's header_postinst.d hooks run, and DKMS builds and installs our
# modules for that kernel; apt-get purge leaves nothing of ours behind.
# The supported kernels are those of this root: 6.1 and 6.12 on the
# machine, the newest series in the Debian 13 root (make check runs the
# host tests there too).
# tests/install/package_install.sh installs, loads and uses them in the VM.
source "$(dirname "$0")/package.inc"

kvers=$("$TOP/tests/kernels")
overlay_root
for k in /lib/modules/*; do
	[ ! -L "$k/build" ] || hide_headers "${k##*/}"
done
install_debs " without kernel headers"
expect "no DKMS build without headers" "" \
	"$(find /lib/modules/*/updates/dkms -name '*.ko*' -printf '%p ' 2>/dev/null)"

for k in $kvers; do
	[ -n "${_hdr[$k]:-}" ] || continue
	show_headers "$k"
	timed "DKMS build for $k when its headers arrive" "$DKMS_TIMEOUT" \
		run-parts --arg="$k" /etc/kernel/header_postinst.d || continue
	expect_kos "$k"
	expect "dkms status for $k" "chaostables/*, $k, *: installed*" \
		"$(dkms status -m chaostables -k "$k" 2>/dev/null)"
done

purge_debs
finish
