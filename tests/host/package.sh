#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages build from a clean copy of the tree and hold what an
# admin needs; DKMS skips kernels outside the supported range
# (tests/install/package_dkms.sh builds for every supported kernel).
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
require dpkg-buildpackage dh_dkms dkms git
KVERS=$("$TOP/tests/kernels")

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

if make -C "$TOP" deb DEBDIR="$tmp" > "$tmp/build.log" 2>&1; then
	pass "make deb"
else
	tail -n 20 "$tmp/build.log"
	fail "make deb (see log above)"
	finish
fi

# deb_has DEB PATH...: each PATH is in package DEB.
deb_has() {
	local deb=$1 list p missing=""
	shift
	list=$(dpkg-deb -c "$tmp"/"$deb"_*.deb | awk '{print $6}')
	for p in "$@"; do
		grep -qxF -e "./$p" -e "./$p.gz" <<< "$list" || missing="$missing $p"
	done
	if [ -z "$missing" ]; then
		pass "$deb package contents"
	else
		fail "$deb package contents (missing$missing)"
	fi
}
xtlib=$(pkg-config --variable=xtlibdir xtables | sed 's|^/||')
deb_has chaostables "$xtlib/libxt_portscan.so" "$xtlib/libxt_DELUDE.so" \
	"$xtlib/libxt_TARPIT.so" "$xtlib/libxt_CHAOS.so" "$xtlib/libxt_lscan.so" \
	usr/share/man/man8/chaostables.8 usr/libexec/chaostables-load \
	usr/libexec/chaostables-watch \
	usr/libexec/chaostables-prom usr/libexec/chaostables-services \
	usr/libexec/chaostables-status usr/sbin/chaostables-status \
	etc/chaostables/rules.v4 etc/chaostables/rules.v6 etc/chaostables/allowlist \
	etc/chaostables/interfaces \
	usr/share/netfilter-persistent/plugins.d/35-chaostables \
	usr/share/man/man8/chaostables-load.8 usr/share/man/man8/chaostables-services.8 \
	usr/share/man/man8/chaostables-prom.8 usr/share/man/man8/chaostables-status.8 \
	usr/share/doc/chaostables/NEWS.Debian \
	usr/share/doc/chaostables/rule-logic.md usr/share/doc/chaostables/ruleset.md \
	usr/share/doc/chaostables/extensions.md usr/share/doc/chaostables/second-look.md \
	usr/share/doc/chaostables/fleet.md usr/share/doc/chaostables/ha-pair.md \
	usr/share/doc/chaostables/benchmarks.md usr/share/doc/chaostables/migration.md \
	usr/share/doc/chaostables/host-roles.md \
	usr/share/doc/chaostables/examples/fail2ban/filter.d/chaostables.conf \
	usr/share/doc/chaostables/examples/fail2ban/jail.d/chaostables.conf \
	usr/share/doc/chaostables/examples/fail2ban/action.d/chaostables-ipset.conf \
	usr/share/doc/chaostables/examples/fail2ban/chaostables.service.d/ipset.conf \
	usr/share/doc/chaostables/examples/crowdsec/acquis.d/chaostables.yaml \
	usr/share/doc/chaostables/examples/crowdsec/parsers/s01-parse/chaostables-logs.yaml \
	usr/share/doc/chaostables/examples/crowdsec/scenarios/chaostables-portscan.yaml \
	usr/share/doc/chaostables/examples/crowdsec/profiles.yaml \
	usr/share/doc/chaostables/examples/crowdsec/bouncers/chaostables-bouncer.yaml \
	usr/share/doc/chaostables/examples/crowdsec/chaostables.service.d/ipset.conf
ver=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version | cut -d- -f1)
deb_has chaostables-dkms "usr/src/chaostables-$ver/dkms.conf" \
	"usr/src/chaostables-$ver/Kbuild" "usr/src/chaostables-$ver/kernel/xt_CHAOS.c"
# Its maintainer scripts hand the source to DKMS and take it back.
for s in postinst prerm; do
	if dpkg-deb -I "$tmp"/chaostables-dkms_*.deb "$s" 2>/dev/null |
	   grep -qx "DKMS_VERSION=$ver"; then
		pass "chaostables-dkms $s calls DKMS"
	else
		fail "chaostables-dkms $s calls DKMS (expected a dkms snippet for chaostables $ver, got none)"
	fi
done

# DKMS, in a private tree, on what the package ships (its builds for
# every kernel, signed: tests/install/package_dkms.sh).
dpkg-deb -x "$tmp"/chaostables-dkms_*.deb "$tmp/root"
src=$tmp/root/usr/src
mkdir "$tmp/dkms"

# BUILD_EXCLUSIVE_KERNEL: DKMS skips (exit 77) instead of failing the
# kernel's installation, below 6.1 and above the newest tested series
# (tests/host/kernels.sh checks the range). Versions only; no headers
# needed to decide.
newest=$(echo "$KVERS" | tail -n 1 | sed -E 's/^([0-9]+)\.([0-9]+).*/\1 \2/')
above=$(read -r a b <<< "$newest"; echo "$a.$((b + 1))")
for k in 5.10.0-1-amd64 6.0.0-1-amd64 "$above.0-1-amd64" 99.0.0-1-amd64; do
	set +e
	dkms build --dkmstree "$tmp/dkms" --sourcetree "$src" \
		-m chaostables -v "$ver" -k "$k" > "$tmp/dkms.log" 2>&1
	rc=$?
	set -e
	if [ $rc = 77 ]; then
		pass "dkms skips $k (exit 77)"
	else
		fail "dkms skips $k (expected exit 77, got $rc)"
	fi
done
finish
