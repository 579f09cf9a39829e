#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_portscan in host INPUT, IPv4, iptables-nft: the core nmap scan types
# and a banner grab are counted by the right class only; absurd flag sets
# (hping3) are stealth, a pure RST or RST/ACK is not.
#
#  scanner 10.0.1.2 --- router --- host 10.0.3.2: INPUT -m portscan x4,
#                                  echo servers 2000-2002, banner 2100
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT

require nmap hping3 socat

setup_topology
ps_servers host

# hping FLAGS...: three probes with FLAGS to an open port.
hping() {
	ns scanner timeout 20 hping3 -q -c 3 -i u100000 -p 2000 "$@" "$HOST4" \
		>/dev/null 2>&1 || true
}

ps_rules host iptables-nft INPUT
ps_scans_v4 iptables-nft -sS -sT -sF -sA
ps_grab_v4 iptables-nft

for flags in "-S -F" "-S -R" "-F -R" "-U" "-F -P -U" "-S -A"; do
	ps_zero host iptables-nft
	hping $flags
	ps_check "hping3 $flags x3 v4 INPUT iptables-nft" \
		"$(ps_counts host iptables-nft)" \
		"stealth=3 synscan=0 cnscan=0 grscan=0"
done
for flags in "-R" "-R -A"; do
	ps_zero host iptables-nft
	hping $flags
	ps_check "hping3 $flags x3 (pure RST) v4 INPUT iptables-nft" \
		"$(ps_counts host iptables-nft)" \
		"stealth=0 synscan=0 cnscan=0 grscan=0"
done

finish
