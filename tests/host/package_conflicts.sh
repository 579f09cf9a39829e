#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Beside xtables-addons: on an overlay of the root (package_lib.inc),
# stand-ins for xtables-addons-common (libxt_CHAOS.so, libxt_DELUDE.so,
# libxt_TARPIT.so, libxt_geoip.so and libxt_pknock.so in xtables' plugin
# directory) and xtables-addons-dkms are installed. While a saved
# ruleset uses geoip (netfilter-persistent's rules.v4) or pknock (an
# nftables.conf's xt match), apt-get install of our two packages fails
# in chaostables' preinst, naming the extension and the line, and how
# to get xtables-addons back (apt removes it before our preinst runs).
# Without them it removes both
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
	"$xtlib/libxt_DELUDE.so" "$xtlib/libxt_TARPIT.so" "$xtlib/libxt_geoip.so" \
	"$xtlib/libxt_pknock.so"
fake xtables-addons-dkms all xtables-addons-common \
	usr/src/xtables-addons-3.23/dkms.conf
timed "stand-ins for xtables-addons installed" 300 \
	dpkg -i "$PKG_DEBDIR"/xtables-addons-common.fake "$PKG_DEBDIR"/xtables-addons-dkms.fake || finish

for f in /etc/iptables/rules.v4 /etc/nftables.conf; do
	[ ! -e "$f" ] || mv "$f" "$f.test"
done
mkdir -p /etc/iptables
printf '%s\n' '*filter' ':INPUT DROP [0:0]' \
	'-A INPUT -m geoip --src-cc XX -j DROP' 'COMMIT' > /etc/iptables/rules.v4
printf '%s\n' 'table ip t {' ' chain c {' '  xt match "pknock" counter' ' }' '}' > /etc/nftables.conf
rc=0
apt-get install -y -q --no-install-recommends "${debs[@]}" > "$LOG" 2>&1 || rc=$?
# apt's lines end in CR LF.
log=$(tr -d '\r' < "$LOG")
expect "apt-get install fails while saved rules use geoip and pknock" 100 "$rc"
expect "chaostables' preinst says why" \
	"chaostables: not installed: it replaces xtables-addons (apt removes xtables-addons-common first), and these rules use its extensions:" \
	"$(grep -m1 'chaostables: not installed' <<< "$log")"
expect "the preinsts name the rules" \
	"chaostables:   /etc/iptables/rules.v4:3:-m geoip|chaostables:   /etc/nftables.conf:3:xt match \"pknock" \
	"$(grep 'chaostables:   ' <<< "$log" | awk '!seen[$0]++' | paste -sd '|')"
expect "it says how to get them back" "*Get them back now: apt-get install xtables-addons-common xtables-addons-dkms;*" \
	"$(grep -m1 'Get them back' <<< "$log")"
for p in chaostables chaostables-dkms; do
	expect "$p not installed" "" \
		"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep ' installed$')"
done
timed "stand-ins for xtables-addons installed again" 300 \
	dpkg -i "$PKG_DEBDIR"/xtables-addons-common.fake "$PKG_DEBDIR"/xtables-addons-dkms.fake || finish
for f in /etc/iptables/rules.v4 /etc/nftables.conf; do
	rm "$f"
	[ ! -e "$f.test" ] || mv "$f.test" "$f"
done

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
