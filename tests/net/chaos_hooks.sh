#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# CHAOS only in INPUT and FORWARD: a RST or ICMP error for the host's own
# outgoing packets would be nonsense. OUTPUT is refused by the kernel,
# directly and through a user chain, with a message in the kernel log;
# INPUT and FORWARD are accepted. iptables-legacy and -nft, v4 and v6.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

setup_topology

for ipt in iptables-legacy iptables-nft ip6tables-legacy ip6tables-nft; do
	command -v $ipt >/dev/null || { fail "$ipt not installed (tests/install-deps installs it)"; continue; }
	for chain in INPUT FORWARD; do
		if ns host $ipt -A $chain -j CHAOS --delude 2>/dev/null; then
			pass "$ipt accepts CHAOS in $chain"
		else
			fail "$ipt -A $chain -j CHAOS (expected success, got an error)"
		fi
	done
	dmesg -C
	if ns host $ipt -A OUTPUT -j CHAOS 2>/dev/null; then
		fail "$ipt -A OUTPUT -j CHAOS (expected refusal, got success)"
	else
		pass "$ipt refuses CHAOS in OUTPUT"
	fi
	if dmesg | grep -q 'CHAOS target: used from hooks OUTPUT'; then
		pass "$ipt: the kernel log says why"
	else
		fail "$ipt: kernel message (expected \"CHAOS target: used from hooks OUTPUT\", got \"$(dmesg | tail -n 1)\")"
	fi
	ns host $ipt -N chaos_out
	ns host $ipt -A chaos_out -j CHAOS
	if ns host $ipt -A OUTPUT -j chaos_out 2>/dev/null; then
		fail "$ipt OUTPUT -> user chain -> CHAOS (expected refusal, got success)"
	else
		pass "$ipt refuses CHAOS reached from OUTPUT through a user chain"
	fi
	ns host $ipt -F
	ns host $ipt -X
done
finish
