#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_CHAOS is loaded; "-j CHAOS" is accepted by iptables and ip6tables,
# legacy and nft, shown by save and taken back by restore.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

setup_topology
module_loaded xt_CHAOS
rule_roundtrip host INPUT -j CHAOS
finish
