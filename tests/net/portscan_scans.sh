#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# xt_portscan in host INPUT, IPv4, iptables-legacy: every nmap TCP scan
# type is counted by the right class and not by the wrong ones; a banner
# grab is --grscan.
#
#  scanner 10.0.1.2 --- router --- host 10.0.3.2: INPUT -m portscan x4,
#                                  echo servers 2000-2002, banner 2100
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT

require nmap socat

setup_topology
ps_servers host

ps_rules host iptables-legacy INPUT
ps_scans_v4 iptables-legacy -sS -sT -sF -sN -sX -sA -sW -sM
ps_grab_v4 iptables-legacy

finish
