#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unit's and the package's life beside nftables.service (issue 40),
# our modules installed, an epoch in /etc/sysctl.d:
# - at boot the epoch of /etc/sysctl.d is the kernel's (the module came
#   after systemd-sysctl), and systemctl status says the kernel holds
#   exactly the files' rules;
# - nft -f /etc/nftables.conf by hand (flush ruleset first) and nft
#   flush ruleset: ours back, the journal says why, the unit active
#   (within BACK: a start takes 30 to 120 s under TCG; natively the
#   watcher is back in 1 to 2 s, tests/host/watch.sh);
# - systemctl stop nftables stops ours (nothing of ours left), systemctl
#   start nftables starts them again;
# - modules unloaded and nf_chaos_reply loaded by hand: udev applies the
#   epoch of /etc/sysctl.d again;
# - an upgrade (the package again, a higher version) while our modules
#   run and the file of one differs: the unit restarted, its journal
#   names the module and how to switch;
# - apt-get remove: the unit stopped, nothing of ours left, the base
#   firewall in force, the services reachable.
# field-base: nftables
# field-modules: present
# field-sysctl: net.netfilter.nf_chaos_epoch = 7
# vm-timeout: 2400
source "$(dirname "$0")/field.inc"
EPOCH=/proc/sys/net/netfilter/nf_chaos_epoch
BACK=300

# back WHEN N4 N6: within BACK, more loads than N4 and N6, ours once,
# the unit active.
back() {
	local t0=$SECONDS
	if busywait $BACK _reloaded "$2" "$3"; then
		pass "$1: ours back in $((SECONDS - t0)) s or less (loads IPv4 $2 -> $(loads 4))"
	else
		fail "$1: ours back within $BACK s (expected more than $2 and $3 loads and the unit active, got $(loads 4), $(loads 6), $(systemctl is-active chaostables))"
	fi
	once "$1"
}
statusline() { systemctl show -P StatusText chaostables.service; }

booted running
topology
expect "boot: the epoch of /etc/sysctl.d" 7 "$(cat "$EPOCH")"
expect "boot: systemctl status says the kernel holds the files' rules" \
	"holds exactly the rules of /etc/chaostables, loaded at *" "$(statusline)"
rec "systemctl status chaostables" systemctl status chaostables --no-pager -l -n 5

n4=$(loads 4) n6=$(loads 6)
nft -f /etc/nftables.conf
back "nft -f /etc/nftables.conf" "$n4" "$n6"
base_in_force "nft -f /etc/nftables.conf"
expect "nft -f: the journal says why ours were loaded again" \
	"chaostables: IPv4: the kernel's chaostables rules are not those loaded at *: loading them again" \
	"$(journalctl -b -u chaostables.service -o cat | grep -m1 'loading them again')"
reachable "nft -f /etc/nftables.conf"
answered "nft -f /etc/nftables.conf"

n4=$(loads 4) n6=$(loads 6)
nft flush ruleset
back "nft flush ruleset" "$n4" "$n6"
n4=$(loads 4) n6=$(loads 6)
systemctl reload nftables.service
back "systemctl reload nftables" "$n4" "$n6"

systemctl stop nftables.service
expect "systemctl stop nftables: chaostables.service stopped" inactive \
	"$(systemctl is-active chaostables.service)"
none "systemctl stop nftables"
n4=$(loads 4) n6=$(loads 6)
systemctl start nftables.service
back "systemctl start nftables" "$n4" "$n6"
base_in_force "systemctl start nftables"
expect "systemctl status after all that" \
	"holds exactly the rules of /etc/chaostables, loaded at *" "$(statusline)"

systemctl stop chaostables.service
unload_ours
echo 'net.netfilter.nf_chaos_epoch = 9' > /etc/sysctl.d/60-field.conf
modprobe nf_chaos_reply
if busywait 10 grep -qx 9 "$EPOCH"; then
	pass "nf_chaos_reply loaded by hand: udev applies the epoch of /etc/sysctl.d (9)"
else
	fail "nf_chaos_reply loaded by hand: udev applies the epoch of /etc/sysctl.d (expected 9 within 10 s, got $(cat "$EPOCH"))"
fi
n4=$(loads 4) n6=$(loads 6)
systemctl start chaostables.service
back "systemctl start chaostables" "$n4" "$n6"

# The upgrade: xt_CHAOS's file no longer the loaded one (its build ID
# changed), the package again as version 0.5+field1.
ko=$(modinfo -k "$KVER" -n xt_CHAOS)
python3 - "$ko" /sys/module/xt_CHAOS/notes/.note.gnu.build-id <<'EOF'
import sys
ko, note = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
assert note in ko
new = note[:-1] + bytes([note[-1] ^ 0xff])
open(sys.argv[1], "wb").write(ko.replace(note, new))
EOF
expect "chaostables-load stale names xt_CHAOS" \
	"the loaded modules xt_CHAOS are not those now installed for $KVER (an upgrade)*systemctl stop chaostables; modprobe -r xt_CHAOS xt_TARPIT xt_DELUDE xt_portscan nf_chaos_reply; systemctl start chaostables*" \
	"$(/usr/libexec/chaostables-load stale)"
d=$(mktemp -d)
dpkg-deb -R "$CHAOS_TOP"/build/field/deb/"$(. /etc/os-release && echo "$VERSION_CODENAME")"/chaostables_*.deb "$d/pkg"
sed -i 's/^Version: .*/&+field1/' "$d/pkg/DEBIAN/control"
dpkg-deb -b "$d/pkg" "$d/up.deb" > /dev/null
n4=$(loads 4) n6=$(loads 6)
if out=$(apt-get install -y -q "$d/up.deb" 2>&1); then
	pass "upgrade to $(dpkg-query -W -f='${Version}' chaostables)"
else
	fail "upgrade (got: $(tail -n 5 <<< "$out"))"
fi
back "upgrade: the unit restarted" "$n4" "$n6"
expect "upgrade: the journal names the stale module and how to switch" \
	"chaostables: the loaded modules xt_CHAOS are not those now installed*" \
	"$(journalctl -b -u chaostables.service -o cat | grep 'are not those now installed' | tail -n 1)"

if out=$(apt-get remove -y -q chaostables 2>&1); then
	pass "apt-get remove chaostables"
else
	fail "apt-get remove chaostables (got: $(tail -n 5 <<< "$out"))"
fi
expect "remove: chaostables.service not active" inactive "$(systemctl is-active chaostables.service)"
none "apt-get remove"
base_in_force "apt-get remove"
reachable "apt-get remove"
dropped "apt-get remove"
rm -rf "$d"
rec "journalctl -u chaostables" journalctl -b -u chaostables.service -o short-monotonic --no-pager
finish
