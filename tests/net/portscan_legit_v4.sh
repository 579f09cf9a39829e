#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# xt_portscan never matches legitimate IPv4 traffic (iptables-legacy, host INPUT):
# see portscan_legit.inc for the clients and the topology.
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT
source "$(dirname "$0")/helpers/portscan_legit.inc"

legit v4 iptables-legacy "$HOST4" "$CLIENT4" "http://$HOST4:2104/big" 52
finish
