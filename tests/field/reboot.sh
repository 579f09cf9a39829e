#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The same host after a reboot (issue 33): booted twice on one disk by
# tests/field/twice, the package installed once, its key made once at
# installation. Each boot, DELUDE --banner answers the scanner on every
# closed port and nmap -sV names the fake services on nmap's top 20 TCP
# ports and on 8 ports outside DELUDE's table, whose service the key
# chooses (one of 5: the same for another key at odds of 5^-8); the
# first boot keeps nmap's table on the disk, the second,
# a new boot (another boot_id), must show the same table, the same key
# fingerprint, and a key file still root-only. An HA pair's epoch: the
# first boot writes one into /etc/sysctl.d (70-field-epoch.conf, 8, not
# the default) and applies it as an admin would; the second boot's
# kernel must hold it, though our module loads after systemd-sysctl ran
# (issue 40: it reverted at every boot). Each boot ends with
# systemctl stop chaostables, so that our modules unload.
# field-base: nftables
# field-modules: present
# vm-timeout: 1200
source "$(dirname "$0")/field.inc"
require nmap
KEEP=/var/lib/chaostables-field-reboot
EPOCH=/proc/sys/net/netfilter/nf_chaos_epoch
EPOCHD=/etc/sysctl.d/70-field-epoch.conf
SCANNER4=10.0.1.2
TOP20=21,22,23,25,53,80,110,111,135,139,143,443,445,993,995,1723,3306,3389,5900,8080
OUTSIDE=3000,4444,5555,6666,7777,9999,10001,12345

booted running
topology
# The scanner's TCP to a closed port is DELUDE --banner's; to the
# services (22, 80: sockets of the host) it is theirs.
iptables -t mangle -I chaostables-INPUT 1 -s "$SCANNER4" -p tcp -j DELUDE --banner
iptables -t mangle -I chaostables-INPUT 1 -s "$SCANNER4" -p tcp -m socket --nowildcard -j RETURN
scan 900 -sV -p "$TOP20,$OUTSIDE" --max-retries 1 --host-timeout 840s "$S4"
echo "# nmap -sV took ${SCAN_TIME}s"
scan_done || fail "nmap -sV finished (got: $SCAN_OUT)"
# The fake services: what nmap names on the ports with no service.
table=$(open_services | awk -F '\t' '$1 != 22 && $1 != 80')
sed 's/^/# /' <<< "$table"
named=$(awk -F '\t' '$2 != "" && $2 !~ /\?$/' <<< "$table" | grep -c .)
boot=$(cat /proc/sys/kernel/random/boot_id)
id=$(cat /proc/sys/net/netfilter/nf_chaos_key_id)
expect "the key file root-only, as the package made it" "600 root" \
	"$(stat -c '%a %U' /etc/chaostables/key 2>&1)"

if [ ! -f "$KEEP/table" ]; then
	if [ "$named" -ge 23 ]; then
		pass "first boot: nmap -sV names $named of 26 fake services"
	else
		fail "first boot: nmap -sV names the fake services (expected >= 23 of 26, got $named)"
	fi
	expect "first boot: the default epoch, not the one to come" 3600 "$(cat "$EPOCH")"
	echo 'net.netfilter.nf_chaos_epoch = 8' > "$EPOCHD"
	sysctl -q -p "$EPOCHD"
	expect "first boot: the epoch of $EPOCHD applied" 8 "$(cat "$EPOCH")"
	mkdir -p "$KEEP"
	printf '%s\n' "$table" > "$KEEP/table"
	echo "$boot" > "$KEEP/boot_id"
	echo "$id" > "$KEEP/key_id"
	sync
else
	if [ "$boot" != "$(cat "$KEEP/boot_id")" ]; then
		pass "second boot: a new boot ($boot)"
	else
		fail "second boot: a new boot (expected a boot_id other than the first's, got $boot again)"
	fi
	expect "second boot: the key fingerprint of the first" \
		"$(cat "$KEEP/key_id")" "$id"
	expect "second boot: nmap -sV's table of the first" \
		"$(cat "$KEEP/table")" "$table"
	expect "second boot: the epoch of $EPOCHD, written at the first" 8 "$(cat "$EPOCH")"
fi
systemctl stop chaostables.service
none "systemctl stop chaostables"
finish
