#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Debian packages installed for real (see package_lib.inc):
# - apt-get installs chaostables and chaostables-dkms offline and DKMS
#   builds and installs the modules for the running kernel (the other
#   kernel's headers are hidden: tests/host/package_upgrade.sh builds
#   for it);
# - modprobe (not insmod) loads xt_CHAOS with nf_chaos_reply from
#   updates/dkms; iptables takes a portscan + CHAOS rule with the plugins
#   from xtables' default directory (no XTABLES_LIBDIR); iptables-save
#   shows it; the modules unload once the rule is gone;
# - apt-get purge leaves nothing of ours behind.
# vm/run's preloaded modules (build/KVER) are unloaded first, so that only
# the installed ones can load, and loaded again at the end.
# A DKMS build and two depmod runs under TCG take minutes:
# vm-timeout: 4200
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

overlay_root
for m in $OUR_MODULES; do
	[ ! -d "/sys/module/$m" ] || preloaded+=("$m")
done
unloaded=1
unload_ours || { fail "vm/run's modules unload (still loaded: $(loaded_ours))"; finish; }
if out=$(modinfo -n xt_CHAOS 2>&1); then
	fail "no xt_CHAOS for modprobe before the install (expected none, got $out)"
fi
if iptables -m portscan --help >/dev/null 2>&1; then
	fail "no portscan plugin before the install (expected iptables -m portscan to fail)"
fi

# Every other kernel of this root: DKMS builds for the running one only.
for k in /lib/modules/*; do
	k=${k##*/}
	[ "$k" = "$KVER" ] || [ ! -L "/lib/modules/$k/build" ] || hide_headers "$k"
done
install_debs ", DKMS build for $KVER"
expect_kos "$KVER"

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

purge_debs
finish
