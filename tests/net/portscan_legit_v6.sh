#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_portscan never matches legitimate IPv6 traffic (ip6tables-nft, host INPUT):
# see portscan_legit.inc for the clients and the topology.
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT
source "$(dirname "$0")/helpers/portscan_legit.inc"

legit v6 ip6tables-nft "$HOST6" "$CLIENT6" "http://[$HOST6]:2104/big" 72
finish
