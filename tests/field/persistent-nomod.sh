#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The field test, netfilter-persistent as the base firewall, our modules
# missing for the kernel: chaostables.service fails, naming the kernel and
# the module, loads nothing, and the base firewall and the services stay.
# field-base: netfilter-persistent
# field-modules: missing
# vm-timeout: 600
source "$(dirname "$0")/field.inc"
boot_missing
finish
