#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Beside xtables-addons: on an overlay of the root (package_lib.inc),
# stand-ins for xtables-addons-common (libxt_CHAOS.so, libxt_DELUDE.so,
# libxt_TARPIT.so in xtables' plugin directory) and xtables-addons-dkms
# are installed; apt-get install of our two packages then removes them
# (Conflicts, Replaces) instead of stopping at dpkg's "trying to
# overwrite". No kernel has headers, so DKMS builds nothing, and
# chaostables-dkms' postinst warns about each kernel it skips.
source "$(dirname "$0")/package.inc"
require dpkg-deb pkg-config

xtlib=$(pkg-config --variable=xtlibdir xtables)
arch=$(dpkg --print-architecture)
# fake NAME ARCH DEPENDS FILE...: a stand-in package NAME holding FILEs.
fake() {
	local name=$1 a=$2 dep=$3 d=$PKG_DEBDIR/$1 f
	shift 3
	mkdir -p "$d/DEBIAN"
	cat > "$d/DEBIAN/control" <<-EOF
		Package: $name
		Version: 3.23-1
		Architecture: $a
		Maintainer: test <test@example.org>
		${dep:+Depends: $dep}
		Description: stand-in for the test
	EOF
	sed -i '/^$/d' "$d/DEBIAN/control"
	for f in "$@"; do
		mkdir -p "$d/$(dirname "$f")"
		echo "$name" > "$d/$f"
	done
	dpkg-deb -b "$d" "$PKG_DEBDIR/$name.fake" > /dev/null
}

overlay_root
for k in /lib/modules/*; do
	[ ! -L "$k/build" ] || hide_headers "${k##*/}"
done
fake xtables-addons-common "$arch" "" "$xtlib/libxt_CHAOS.so" \
	"$xtlib/libxt_DELUDE.so" "$xtlib/libxt_TARPIT.so"
fake xtables-addons-dkms all xtables-addons-common \
	usr/src/xtables-addons-3.23/dkms.conf
timed "stand-ins for xtables-addons installed" 300 \
	dpkg -i "$PKG_DEBDIR"/xtables-addons-common.fake "$PKG_DEBDIR"/xtables-addons-dkms.fake || finish

install_debs " over xtables-addons"
log=$(cat "$LOG")
for p in xtables-addons-common xtables-addons-dkms; do
	expect "apt-get removed $p" "*Removing $p *" "$(grep "Removing $p " <<< "$log")"
	expect "$p not installed" "" \
		"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep ' installed$')"
done
expect "libxt_CHAOS.so is chaostables'" "chaostables: $xtlib/libxt_CHAOS.so" \
	"$(dpkg -S "$xtlib/libxt_CHAOS.so" 2>&1)"
expect "no dpkg error" "" "$(grep -i 'trying to overwrite\|dpkg: error' <<< "$log")"
for k in /lib/modules/*; do
	[ -d "$k/kernel" ] || continue
	expect "postinst warns that ${k##*/} has no headers" \
		"chaostables-dkms: warning: no headers for kernel ${k##*/}:*" \
		"$(grep "warning: no headers for kernel ${k##*/}:" <<< "$log")"
done
finish
