#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The release tarball is a Debian source package: make dist's
# chaostables-VERSION.tar.gz, unpacked where no git can reach (a git that
# fails first in PATH), builds source and binary packages with
# dpkg-buildpackage and the .debs with make deb; the plugins get the
# distribution's hardening flags and no -Werror; lintian -EvIL +pedantic
# finds no error or warning in the .dsc, the .changes and both .debs
# (debian/*lintian-overrides say why for the rest); the unit files pass
# systemd-analyze verify.
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
require dpkg-buildpackage dpkg-source lintian tar pkg-config

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/dkms.conf")
expect "debian/changelog's version is dkms.conf's, native" "$ver" \
	"$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)"

# run WHAT LOG CMD...: PASS, or FAIL with the log's tail (and finish).
run() {
	local what=$1 log=$2
	shift 2
	if "$@" > "$log" 2>&1; then
		pass "$what"
	else
		tail -n 20 "$log"
		fail "$what (see log above)"
		finish
	fi
}

run "make dist" "$tmp/dist.log" make -C "$TOP" -s dist
tarball=$TOP/build/chaostables-$ver.tar.gz
mkdir "$tmp/src" "$tmp/bin"
tar -C "$tmp/src" -xzf "$tarball"
src=$tmp/src/chaostables-$ver
if [ -d "$TOP/.git" ] || [ -f "$TOP/.git" ]; then
	expect "the tarball holds the tracked files and MANIFEST" "" \
		"$( (git -C "$TOP" ls-files; echo MANIFEST) | sort |
		    diff - <(cd "$src" && find . ! -type d | sed 's|^\./||' | sort) |
		    grep '^[<>]' | xargs)"
fi

# No git from here on: a call to it fails the build.
printf '#!/bin/sh\necho "git called: $*" >&2\nexit 1\n' > "$tmp/bin/git"
chmod +x "$tmp/bin/git"
export PATH=$tmp/bin:$PATH
run "dpkg-buildpackage (source and binary) in the unpacked tarball" \
	"$tmp/build.log" sh -c "cd '$src' && dpkg-buildpackage -us -uc"
run "make deb in the unpacked tarball" "$tmp/deb.log" \
	make -C "$src" -s deb DEBDIR="$tmp/deb"
expect "make deb's packages" \
	"chaostables-dkms_${ver}_all.deb chaostables_${ver}_*.deb" \
	"$(cd "$tmp/deb" && ls chaostables*.deb | grep -v dbgsym | xargs)"

cc=$(grep -e '-o extensions/libxt_CHAOS.so' "$tmp/build.log")
expect "plugins built with the distribution's CPPFLAGS and LDFLAGS" \
	"*-D_FORTIFY_SOURCE=*-Wl,-z,now*" "$cc"
if grep -qE -- '-Werror( |$)' <<< "$cc"; then
	fail "no -Werror in the distribution's build (got: $cc)"
else
	pass "no -Werror in the distribution's build"
fi

cd "$tmp/src"
files=(chaostables_"$ver".dsc chaostables_"$ver"_*.changes
       chaostables_"$ver"_*.deb chaostables-dkms_"$ver"_all.deb)
rc=0
lintian -EvIL +pedantic --fail-on error,warning "${files[@]}" \
	> "$tmp/lintian.log" 2>&1 || rc=$?
grep -E '^[EWIPX]: ' "$tmp/lintian.log" | sed 's/^/# lintian: /' || true
expect "lintian -EvIL +pedantic ${files[*]}: no error or warning" "0 " \
	"$rc $(grep -E '^[EW]: ' "$tmp/lintian.log" | xargs)"

# systemd-analyze verify: the units' syntax, and their commands (ours
# in the unpacked package, not on this machine) are executable;
# chaostables-bouncer.service's is crowdsec-firewall-bouncer, not ours:
# /bin/true stands in for it.
if command -v systemd-analyze >/dev/null; then
	dpkg-deb -x chaostables_"$ver"_*.deb root
	mkdir units
	for u in chaostables.service chaostables-bouncer.service; do
		unit=$(find root -name "$u")
		[ -n "$unit" ] || { fail "the package holds $u"; continue; }
		sed -E -e "s|^(Exec[A-Za-z]+=)/usr/libexec/|\1$PWD/root/usr/libexec/|" \
			-e "s|^(Exec[A-Za-z]+=)/usr/bin/crowdsec-firewall-bouncer|\1/bin/true|" \
			"$unit" > "units/$u"
		out=$(systemd-analyze verify --man=no "units/$u" 2>&1) && rc=0 || rc=$?
		expect "systemd-analyze verify $u" "0 " "$rc $out"
	done
else
	skip "systemd-analyze not installed"
fi
finish
