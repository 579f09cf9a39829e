#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The field test, nftables.service as the base firewall (Debian's
# /etc/nftables.conf with an input policy drop), our modules installed:
# systemd boots with chaostables.service enabled; the services answer the
# client and chaostables the scanner on a closed port; systemctl reload
# nftables (its flush ruleset takes ours too) brings ours back, once;
# systemctl stop chaostables takes out ours and nothing else.
# field-base: nftables
# field-modules: present
# vm-timeout: 900
source "$(dirname "$0")/field.inc"
boot_present
finish
