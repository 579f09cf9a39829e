#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The field test, netfilter-persistent as the base firewall
# (iptables-persistent's /etc/iptables/rules.v4 and .v6, INPUT policy
# DROP), our modules installed: systemd boots with chaostables.service
# enabled; the services answer the client and chaostables the scanner on
# a closed port; netfilter-persistent save leaves ours out of its files;
# netfilter-persistent reload and systemctl restart netfilter-persistent
# keep ours, once; systemctl stop chaostables takes out ours and nothing
# else.
# field-base: netfilter-persistent
# field-modules: present
# vm-timeout: 900
source "$(dirname "$0")/field.inc"
boot_present
finish
