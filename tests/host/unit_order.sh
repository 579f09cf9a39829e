#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# chaostables' units take their place in the boot of a cloud image or
# server of this root's Debian release without an ordering cycle:
# systemd-analyze verify of chaostables.service (with the drop-ins that
# examples/crowdsec and examples/fail2ban ship for it) and
# chaostables-bouncer.service beside the units of cloud-init, ifupdown,
# systemd-networkd, the base firewalls (nftables, netfilter-persistent,
# ufw) and the ban engines (crowdsec, crowdsec-firewall-bouncer,
# fail2ban), unpacked by tests/unit-roots:
# - beside the ban engines and the base firewalls alone, with the units
#   as Debian ships them: no complaint at all;
# - in the whole boot: none either, once Debian's own cycle is fixed
#   where a release has it (Debian 12's crowdsec-firewall-bouncer
#   0.0.25 orders itself after network.target and before
#   netfilter-persistent, which is before network-pre.target: a cycle
#   without any unit of ours; upstream dropped that Before=,
#   cs-firewall-bouncer #340); the transcript shows it.
# firewalld makes a cycle with cloud-init and ifupdown of its own: beside
# it, no cycle may pass through ours.
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
require systemd-analyze
U=/var/cache/chaostables-units
[ -f "$U/done" ] || { fail "no units in $U (run tests/install-deps)"; finish; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ours" "$tmp/ours/chaostables.service.d" "$tmp/fixed"
cp "$TOP/debian/chaostables.service" "$tmp/ours/"
cp "$TOP/debian/chaostables.chaostables-bouncer.service" "$tmp/ours/chaostables-bouncer.service"
cp "$TOP/examples/crowdsec/chaostables.service.d/ipset.conf" "$tmp/ours/chaostables.service.d/crowdsec.conf"
cp "$TOP/examples/fail2ban/chaostables.service.d/ipset.conf" "$tmp/ours/chaostables.service.d/fail2ban.conf"
OURS=(chaostables.service chaostables-bouncer.service)
release=$(. /etc/os-release && echo "Debian $VERSION_ID")

# units [NAME...]: the unit files of the boot, NAMEs left out.
units() {
	local f n
	for f in "$U"/{,usr/}lib/systemd/system/*.service \
		/{,usr/}lib/systemd/system/{nftables,netfilter-persistent,systemd-networkd}.service; do
		[ -f "$f" ] || continue
		n=${f##*/}
		[[ $n != *@.service && " $* " != *" $n "* ]] && echo "$n"
	done | sort -u
}

# verify UNIT...: systemd-analyze verify's complaints about the boot's
# order and about our units, but for what this machine lacks of ours and
# of the unpacked units (commands, manuals: not installed). $tmp/fixed
# comes first: a unit there replaces Debian's.
verify() {
	SYSTEMD_UNIT_PATH="$tmp/fixed:$tmp/ours:$U/lib/systemd/system:$U/usr/lib/systemd/system:" \
		systemd-analyze verify "$@" 2>&1 |
		grep -Ei 'cycle|chaostables' |
		grep -Ev '^chaostables(-bouncer)?.service: Command (/usr/libexec/chaostables-(load|watch)|/usr/bin/crowdsec-firewall-bouncer|/usr/sbin/ipset) is not executable|^chaostables(-bouncer)?.service: Command .man chaostables(-load)?\(8\). failed' || true
}

# show OUTPUT: as comment lines.
show() { [ -z "$1" ] || printf '# %s\n' "${1//$'\n'/$'\n'# }"; }

readarray -t boot < <(units firewalld.service)
for u in cloud-init-local.service networking.service nftables.service \
	netfilter-persistent.service systemd-networkd.service ufw.service \
	crowdsec.service crowdsec-firewall-bouncer.service fail2ban.service; do
	[[ " ${boot[*]} " = *" $u "* ]] || fail "$release: $u among the boot's units (expected it, got ${boot[*]}; run tests/install-deps)"
done

bans=(crowdsec.service crowdsec-firewall-bouncer.service fail2ban.service
      netfilter-persistent.service nftables.service)
out=$(verify "${OURS[@]}" "${bans[@]}")
show "$out"
expect "$release: systemd-analyze verify of our units beside ${bans[*]}, as Debian ships them" "" "$out"

# Debian's own cycle, without our units: fixed as upstream did. (Which
# cycle verify reports first varies from run to run: the unit file
# decides, not its output.)
for d in "$U"/{,usr/}lib/systemd/system; do
	f=$d/crowdsec-firewall-bouncer.service
	[ -f "$f" ] && grep -qx 'Before=netfilter-persistent.service' "$f" || continue
	echo "# $release's crowdsec-firewall-bouncer.service: After=network.target and Before=netfilter-persistent.service, a cycle of its own; dropped here, as upstream did (#340)"
	sed '/^Before=netfilter-persistent.service$/d' "$f" > "$tmp/fixed/crowdsec-firewall-bouncer.service"
done
own=$(verify "${boot[@]}")
show "$own"
expect "$release: the boot without our units has no cycle (else not ours to judge)" "" "$own"
out=$(verify "${OURS[@]}" "${boot[@]}")
show "$out"
expect "$release: systemd-analyze verify of our units beside the boot's units" "" "$out"
out=$(verify "${OURS[@]}" firewalld.service "${boot[@]}")
show "$out"
expect "$release: beside firewalld, no cycle through our units" "" \
	"$(grep -E 'chaostables(-bouncer)?.service/' <<< "$out")"
finish
