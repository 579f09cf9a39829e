#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_portscan is loaded; "-p tcp -m portscan --synscan" is accepted by iptables and ip6tables,
# legacy and nft, shown by save and taken back by restore.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

setup_topology
module_loaded xt_portscan
rule_roundtrip host INPUT -p tcp -m portscan --synscan
finish
