#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The packages' DKMS path, natively, for every kernel of one root (a
# TCG guest took 716 s for it alone, over 55 minutes beside other
# guests): on the machine, in a chroot of the root (/ or the Debian 13
# root) whose /usr, /etc and /var are overlays with their upper layers in
# build/pkgroot/CODENAME, apt-get installs chaostables and
# chaostables-dkms; chaostables-dkms' postinst has DKMS build, with the
# root's gcc and headers, and install our modules for each kernel of the
# root with headers (in a chroot, dkms builds for all of them). Checked:
# - the modules of each tested kernel of the root (tests/kernels) in
#   /lib/modules/KVER/updates/dkms, found by modinfo -k (depmod ran),
#   for that kernel (vermagic), by the compiler its headers name, signed
#   with DKMS' key;
# - the postinst's warnings, for kernels that only have a directory in
#   /lib/modules (a lower layer of the test's own): one above the newest
#   tested series ("not supported") and one of the newest series
#   without headers ("no headers"), and none for the tested kernels.
# tests/install/package_install.sh boots that root with the upper layers
# under its own overlay: the packages installed, the modules in place.
# usage: tests/install/package_dkms.sh ROOT   / or the Debian 13 root
set -u
ROOT=${1:?usage: $0 ROOT}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${PKG_NS:-}" ] || PKG_NS=1 exec unshare -m --propagation private bash "$0" "$@"
source "$TOP/tests/lib/ksft.inc"
source "$TOP/tests/lib/modules.inc"

[ "$ROOT" = / ] || ROOT=${ROOT%/}
code=$(. "$ROOT/etc/os-release" && echo "$VERSION_CODENAME")
OUT=$TOP/build/pkgroot/$code
if [ "$ROOT" = / ]; then
	debdir=$TOP/build/deb
else
	debdir=$("$TOP/tests/debian-root" debian13 out)/deb
fi
debs=("$debdir"/chaostables_*.deb "$debdir"/chaostables-dkms_*.deb)
for d in "${debs[@]}"; do
	[ -f "$d" ] || { fail "no $d (tests/run builds it: make deb)"; finish; }
done
kvers=$(for k in $("$TOP/tests/kernels"); do
	[ "$("$TOP/tests/kernels" --root "$k")" != "$ROOT" ] || echo "$k"
done)
[ -n "$kvers" ] || { fail "a kernel of tests/kernels in $ROOT"; finish; }

# The chroot, in a tmpfs of this mount namespace: gone with it.
C=$(mktemp -d /tmp/pkgdkms.XXXXXX)
FAKE=$C.fake
# Unmounted first: nothing removed through a mount (/dev, the overlays).
cleanup() {
	umount -R "$C" 2>/dev/null
	rmdir "$C"
	rm -rf "$FAKE"
}
trap cleanup EXIT
# Above the newest series tested (of any root), and the root's newest
# series without headers.
newest=$("$TOP/tests/kernels" | tail -n 1)
above=$(sed -E 's/^([0-9]+)\.([0-9]+).*/\1 \2/' <<< "$newest" |
	{ read -r a b; echo "$a.$((b + 1)).0-1-amd64"; })
noheaders=$(tail -n 1 <<< "$kvers" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/').0-0-amd64
mkdir -p "$FAKE/usr/lib/modules/$above/kernel" "$FAKE/usr/lib/modules/$noheaders/kernel" \
	"$FAKE/usr/sbin"
# No daemon starts in the chroot.
printf '#!/bin/sh\nexit 101\n' > "$FAKE/usr/sbin/policy-rc.d"
chmod 755 "$FAKE/usr/sbin/policy-rc.d"

rm -rf "$OUT"
mount -t tmpfs -o mode=0755 tmpfs "$C"
for d in usr etc var; do
	mkdir -p "$OUT/$d/up" "$OUT/$d/work" "$C/$d"
	low=$ROOT/$d
	[ ! -d "$FAKE/$d" ] || low=$FAKE/$d:$low
	# metacopy off: every file of the upper layer whole, for the guest.
	mount -t overlay overlay -o "lowerdir=$low,upperdir=$OUT/$d/up,workdir=$OUT/$d/work,metacopy=off" \
		"$C/$d" || { fail "overlay on $C/$d"; finish; }
done
for l in "$ROOT"/*; do
	[ ! -L "$l" ] || cp -P "$l" "$C/"
done
mkdir -p "$C"/{proc,sys,dev,tmp,run,root,boot}
mount -t proc proc "$C/proc"
mount -t sysfs sysfs "$C/sys"
mount --rbind /dev "$C/dev"
mount -o bind,ro "$ROOT/boot" "$C/boot"
mkdir -p "$C/tmp/debs"
cp "${debs[@]}" "$C/tmp/debs/"

# in_root CMD...: CMD in the chroot, a clean environment.
in_root() {
	chroot "$C" /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

t0=$SECONDS
if in_root sh -c 'apt-get install -y -q --no-install-recommends /tmp/debs/*.deb' \
	> "$OUT/install.log" 2>&1; then
	pass "apt-get install of both packages, DKMS build for $(xargs <<< "$kvers") ($((SECONDS - t0))s)"
else
	tail -n 25 "$OUT/install.log"
	fail "apt-get install of both packages (expected success, see $OUT/install.log)"
	finish
fi
log=$(cat "$OUT/install.log")
for p in chaostables chaostables-dkms; do
	expect "$p installed" "install ok installed" \
		"$(in_root dpkg-query -W -f='${Status}' "$p" 2>&1)"
done

for k in $kvers; do
	expect "DKMS modules for $k" "$(tr ' ' '\n' <<< "$OUR_MODULES" | sort | xargs)" \
		"$(find "$C/lib/modules/$k/updates/dkms" -name '*.ko*' 2>/dev/null |
			sed 's|.*/||; s|\.ko.*||' | sort | xargs)"
	expect "modules.dep of $k points at updates/dkms" \
		"/lib/modules/$k/updates/dkms/xt_CHAOS.ko*" \
		"$(in_root modinfo -k "$k" -n xt_CHAOS 2>&1)"
	expect "dkms status for $k" "chaostables/*, $k, *: installed*" \
		"$(in_root dkms status -m chaostables -k "$k" 2>/dev/null)"
	ko=$(in_root modinfo -k "$k" -n xt_CHAOS 2>/dev/null)
	expect "xt_CHAOS built for $k" "$k *" "$(in_root modinfo -k "$k" -F vermagic xt_CHAOS 2>&1)"
	# The gcc the kernel was built with, as its headers name it
	# ("gcc-14 (Debian 14.2.0-19) 14.2.0"): its version.
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT=".* \([0-9.]*\)"$/\1/p' \
		"$C/lib/modules/$k/build/.config")
	expect "xt_CHAOS for $k built by gcc ${cc:=(none in its .config)}" "*GCC: (*) $cc*" \
		"$(in_root sh -c "xz -dcf '$ko' > /tmp/ko && readelf -p .comment /tmp/ko" 2>&1 | xargs)"
	# DKMS signs with its MOK key (Secure Boot); nothing of ours stops it.
	expect "DKMS signed the modules for $k" "" \
		"$(for m in $OUR_MODULES; do
			[ -n "$(in_root modinfo -k "$k" -F signer "$m")" ] || echo "$m"
		   done | xargs)"
	expect "no warning for $k" "" "$(grep "chaostables-dkms: warning: .*kernel $k[ :]" <<< "$log")"
done
expect "postinst warns that $above is not supported" \
	"chaostables-dkms: warning: kernel $above is not supported (BUILD_EXCLUSIVE_KERNEL=*): DKMS skips it,*" \
	"$(grep "warning: kernel $above " <<< "$log")"
expect "postinst warns that $noheaders has no headers" \
	"chaostables-dkms: warning: no headers for kernel $noheaders: *linux-headers-$noheaders*" \
	"$(grep "warning: no headers for kernel $noheaders:" <<< "$log")"
expect "nothing built for $above or $noheaders" "" \
	"$(find "$C/lib/modules/$above" "$C/lib/modules/$noheaders" -name '*.ko*')"

umount -R "$C"
rm -rf "$OUT"/*/work
finish
