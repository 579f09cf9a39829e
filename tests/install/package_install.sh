#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages installed for real, as a booted kernel sees them
# (see package_lib.inc); nothing is compiled here:
# - tests/install/package_dkms.sh installed chaostables and
#   chaostables-dkms on the machine, in a chroot of this root, and DKMS
#   built our modules there; its upper layers (build/pkgroot/CODENAME)
#   lie under this guest's overlay: both packages installed, the modules
#   in /lib/modules/KVER/updates/dkms;
# - modprobe (not insmod) loads xt_CHAOS with nf_chaos_reply from
#   updates/dkms; iptables takes a portscan + CHAOS rule with the plugins
#   from xtables' default directory (no XTABLES_LIBDIR); iptables-save
#   shows it; the modules unload once the rule is gone;
# - the unit's ExecStart loads the recommended ruleset with the modules
#   from updates/dkms, its ExecStop takes it away;
# - apt-get purge leaves nothing of ours behind.
# vm/run's preloaded modules (build/KVER) are unloaded first, so that only
# the installed ones can load, and loaded again at the end.
# Measured under TCG beside other work on the 2 cores: on 7.3, 236 s at
# load 6 to 8, 190 s of it the purge (DKMS' removal, depmod); before the
# unit's start and stop, 146 s at load 4; on 6.12 (make check-install),
# 357 s at load 7, 301 s the purge (a depmod for each of Debian 12's two
# kernels). A bound of 2.5 to 4 times it (tests/costs):
# vm-timeout: 900
# The packages are the root's, the same for each of its kernels:
# vm-per-root
source "$(dirname "$0")/package_lib.inc"
trap 'rc=$?; reload_preloaded; (exit $rc); cleanup' EXIT

RULE=(-p tcp -m portscan --synscan -j CHAOS --delude)
preloaded=()
unloaded=

# EXIT: whatever loaded, vm/run's modules are back for its unload check.
reload_preloaded() {
	local m
	[ -n "$unloaded" ] || return 0
	unload_ours || true
	for m in "${preloaded[@]}"; do
		insmod "$TOP/build/$KVER/kernel/$m.ko" || true
	done
}

PKGROOT=$TOP/build/pkgroot/$(. /etc/os-release && echo "$VERSION_CODENAME")
[ -d "$PKGROOT/usr/up" ] ||
	{ fail "no $PKGROOT (tests/run runs tests/install/package_dkms.sh first)"; finish; }
overlay_root "$PKGROOT"
for p in chaostables chaostables-dkms; do
	expect "$p installed" "install ok installed" \
		"$(dpkg-query -W -f='${Status}' "$p" 2>&1)"
done
expect_kos "$KVER"
for m in $OUR_MODULES; do
	[ ! -d "/sys/module/$m" ] || preloaded+=("$m")
done
unloaded=1
unload_ours || { fail "vm/run's modules unload (still loaded: $(loaded_ours))"; finish; }

modprobe xt_CHAOS || fail "modprobe xt_CHAOS (expected success)"
for m in xt_CHAOS nf_chaos_reply; do
	expect "modprobe xt_CHAOS loads $m from updates/dkms" \
		"loaded /lib/modules/$KVER/updates/dkms/$m.ko*" \
		"$([ -d "/sys/module/$m" ] && echo loaded || echo "not loaded") $(modinfo -n "$m" 2>&1)"
done
# The kernel's own module autoload runs in the initramfs' mount
# namespace, which does not see the overlay: load the match as it would.
modprobe xt_portscan || fail "modprobe xt_portscan (expected success)"

setup_ns host
echo "# iptables is $(readlink -f "$(command -v iptables)")"
if out=$(ns host iptables -A INPUT "${RULE[@]}" 2>&1); then
	pass "iptables -A INPUT ${RULE[*]}"
else
	fail "iptables -A INPUT ${RULE[*]} (expected success, got: ${out//$'\n'/ })"
fi
expect "iptables-save shows the rule" "-A INPUT ${RULE[*]}" \
	"$(ns host iptables-save | grep -e '-A INPUT' || true)"
ns host iptables -D INPUT "${RULE[@]}" || true
if unload_ours; then
	pass "installed modules unload once the rule is gone"
else
	fail "installed modules unload once the rule is gone (still loaded: $(loaded_ours))"
fi

# The unit's start and stop, as chaostables.service runs them (no systemd
# in this guest; tests/field boots it): its main process (ExecStart, the
# watcher) loads the recommended ruleset, every rule line uncommented,
# with our modules from updates/dkms, which the loader modprobes, and
# stays; ExecStop takes the rules away, and the watcher ends with them.
unit=$(dpkg -L chaostables | grep '/chaostables\.service$')
sed -i 's/^#\([-*:]\|COMMIT\)/\1/' /etc/chaostables/rules.v4 /etc/chaostables/rules.v6
our_jumps() { ns host iptables-save | grep -c -e '-j chaostables-' || true; }
jumps_loaded() { [ "$(our_jumps)" -gt 0 ]; }
watcher_gone() { ! kill -0 "$watcher" 2>/dev/null; }
read -ra start <<< "$(sed -n 's/^ExecStart=//p' "$unit")"
read -ra stop <<< "$(sed -n 's/^ExecStop=//p' "$unit")"
ns host "${start[@]}" > /tmp/watch.out 2>&1 &
watcher=$!
if busywait 120 jumps_loaded; then
	pass "the unit's ExecStart ${start[*]} loads our jumps ($(our_jumps))"
else
	fail "the unit's ExecStart ${start[*]} loads our jumps (expected some, got none: $(tr '\n' ' ' < /tmp/watch.out))"
fi
if ! watcher_gone; then
	pass "ExecStart's watcher stays, as Type=notify's main process"
else
	fail "ExecStart's watcher stays (it exited: $(tr '\n' ' ' < /tmp/watch.out))"
fi
expect "ExecStart's modules come from updates/dkms" "" \
	"$(for m in $(loaded_ours); do
		modinfo -n "$m" | grep -v "^/lib/modules/$KVER/updates/dkms/"
	   done)"
expect "ExecStart loaded xt_portscan" "*xt_portscan*" "$(loaded_ours)"
if out=$(ns host "${stop[@]}" 2>&1); then
	pass "the unit's ExecStop ${stop[*]}"
else
	fail "the unit's ExecStop ${stop[*]} (expected success, got: ${out//$'\n'/ })"
fi
expect "ExecStop leaves no jump of ours" 0 "$(our_jumps)"
if busywait 30 watcher_gone; then
	pass "the watcher ends with ExecStop"
else
	fail "the watcher ends with ExecStop (still running after 30 s)"
	kill "$watcher" 2>/dev/null
fi
wait "$watcher" 2>/dev/null
if unload_ours; then
	pass "the unit's modules unload after its stop"
else
	fail "the unit's modules unload after its stop (still loaded: $(loaded_ours))"
fi

purge_debs
finish
