#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_TARPIT is loaded; "-p tcp -j TARPIT" is accepted by iptables and ip6tables,
# legacy and nft, shown by save and taken back by restore.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

setup_topology
module_loaded xt_TARPIT
rule_roundtrip host INPUT -p tcp -j TARPIT
finish
