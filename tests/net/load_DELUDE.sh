#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# xt_DELUDE is loaded; "-p tcp -j DELUDE" is accepted by iptables and ip6tables,
# legacy and nft, shown by save and taken back by restore.
set -e
source "$(dirname "$0")/../lib.sh"
trap cleanup EXIT

setup_topology
module_loaded xt_DELUDE
rule_roundtrip host INPUT -p tcp -j DELUDE
finish
