#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_portscan in router FORWARD (iptables-nft, ip6tables-nft): scans of
# the host behind the router are counted by the right class; legitimate
# clients, both ways through the router, are not.
#
#  scanner 10.0.1.2 ---\
#                       router: FORWARD -m portscan x4 --- host 10.0.3.2
#  client 10.0.2.2 ----/                                   echo 2000-2002,
#  server 3000                                             banner 2100
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT

require nmap socat

ZERO="stealth=0 synscan=0 cnscan=0 grscan=0"

setup_topology
ps_servers host
tcp_server client 3000 "echo SSH-2.0-client; cat"
wait_for_tcp_listen client 3000 v6

IPT=iptables-nft
ps_rules router $IPT FORWARD
ps_scan router $IPT "$HOST4" "nmap -sS v4 FORWARD $IPT" \
	"stealth=0 synscan>=3 cnscan=0 grscan=0" -sS
ps_scan router $IPT "$HOST4" "nmap -sT v4 FORWARD $IPT" \
	"stealth=0 synscan=0 cnscan>=3 grscan=0" -sT
ps_scan router $IPT "$HOST4" "nmap -sX v4 FORWARD $IPT" \
	"stealth>=20 synscan=0 cnscan=0 grscan=0" -sX
ps_scan router $IPT "$HOST4" "nmap -sW v4 FORWARD $IPT" \
	"stealth>=20 synscan=0 cnscan=0 grscan=0" -sW
ps_run router $IPT "banner grab v4 FORWARD $IPT" \
	"stealth=0 synscan=0 cnscan=0 grscan=1" scanner grab "$HOST4" "$PS_BANNER"
ps_run router $IPT "http-style client v4 FORWARD $IPT" "$ZERO" \
	client http "$HOST4" 2000
ps_run router $IPT "smtp/ssh-style client v4 FORWARD $IPT" "$ZERO" \
	client talk "$HOST4" "$PS_BANNER"
ps_run router $IPT "host as client through the router v4 FORWARD $IPT" \
	"$ZERO" host talk "$CLIENT4" 3000
ps_run router $IPT "refused by closed port v4 FORWARD $IPT" "$ZERO" \
	client refused "$HOST4" "$PS_CLOSED"

IPT=ip6tables-nft
ps_rules router $IPT FORWARD
ps_scan router $IPT "$HOST6" "nmap -6 -sS v6 FORWARD $IPT" \
	"stealth=0 synscan>=3 cnscan=0 grscan=0" -6 -sS
ps_run router $IPT "smtp/ssh-style client v6 FORWARD $IPT" "$ZERO" \
	client talk "$HOST6" "$PS_BANNER"

finish
