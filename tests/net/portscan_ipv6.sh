#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# xt_portscan in host INPUT, IPv6 (ip6tables-legacy): nmap -6 -sS, -sT,
# -sF and a banner grab are counted by the right class only.
#
#  scanner fd00:1::2 --- router --- host fd00:3::2: INPUT -m portscan x4,
#                                   echo servers 2000-2002, banner 2100
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT

require nmap socat

IPT=ip6tables-legacy

setup_topology
ps_servers host
ps_rules host $IPT INPUT

ps_scan host $IPT "$HOST6" "nmap -6 -sS v6 INPUT $IPT" \
	"stealth=0 synscan>=3 cnscan=0 grscan=0" -6 -sS
ps_scan host $IPT "$HOST6" "nmap -6 -sT v6 INPUT $IPT" \
	"stealth=0 synscan=0 cnscan>=3 grscan=0" -6 -sT
ps_scan host $IPT "$HOST6" "nmap -6 -sF v6 INPUT $IPT" \
	"stealth>=20 synscan=0 cnscan=0 grscan=0" -6 -sF
ps_scan host $IPT "$HOST6" "nmap -6 -sA v6 INPUT $IPT" \
	"stealth>=20 synscan=0 cnscan=0 grscan=0" -6 -sA
ps_run host $IPT "banner grab v6 INPUT $IPT" \
	"stealth=0 synscan=0 cnscan=0 grscan=1" scanner grab "$HOST6" "$PS_BANNER"

finish
