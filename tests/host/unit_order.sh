#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# chaostables.service takes its place in the boot of a cloud image or
# server of this root's Debian release without an ordering cycle:
# systemd-analyze verify of it beside the units of cloud-init, ifupdown,
# systemd-networkd and the base firewalls (nftables, netfilter-persistent,
# ufw), unpacked by tests/unit-roots. firewalld makes a cycle with
# cloud-init and ifupdown of its own: beside it, no cycle may pass
# through ours.
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
require systemd-analyze
U=/var/cache/chaostables-units
[ -f "$U/done" ] || { fail "no units in $U (run tests/install-deps)"; finish; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$TOP/debian/chaostables.service" "$tmp/"
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
# order and about chaostables.service, but for what this machine lacks
# of ours and of the unpacked units (commands, manuals: not installed).
verify() {
	SYSTEMD_UNIT_PATH="$tmp:$U/lib/systemd/system:$U/usr/lib/systemd/system:" \
		systemd-analyze verify "$@" 2>&1 |
		grep -Ei 'cycle|chaostables' |
		grep -Ev '^chaostables.service: Command (/usr/libexec/chaostables-load is not executable|.man chaostables(-load)?\(8\). failed)' || true
}

# show OUTPUT: as comment lines.
show() { [ -z "$1" ] || printf '# %s\n' "${1//$'\n'/$'\n'# }"; }

readarray -t boot < <(units firewalld.service)
for u in cloud-init-local.service networking.service nftables.service \
	netfilter-persistent.service systemd-networkd.service ufw.service; do
	[[ " ${boot[*]} " = *" $u "* ]] || fail "$release: $u among the boot's units (expected it, got ${boot[*]})"
done
out=$(verify chaostables.service "${boot[@]}")
show "$out"
expect "$release: systemd-analyze verify of chaostables.service beside the boot's units" "" "$out"
out=$(verify chaostables.service firewalld.service "${boot[@]}")
show "$out"
expect "$release: beside firewalld, no cycle through chaostables.service" "" \
	"$(grep 'chaostables.service/' <<< "$out")"
finish
