#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# A CHAOS rule's state (its bucket and probe slots, some KiB) is charged
# to the memory cgroup of whoever adds the rule, as x_tables charges the
# rules themselves, so that an unprivileged user namespace cannot pin
# kernel memory outside its limits. The rules are added by one
# iptables-restore run in a fresh memory cgroup, iptables-legacy and -nft,
# IPv4 and IPv6; N CHAOS rules must raise the cgroup's memory.current by
# N * 4 KiB more than N DELUDE rules (no per-rule state) do.
set -e
source "$(dirname "$0")/../lib/lib.sh"
CG=/sys/fs/cgroup
GROUP=$CG/chaostables-test
rules=
memcg_cleanup() {
	local rc=$?
	rm -f "$rules"
	rmdir "$GROUP" 2>/dev/null || true
	(exit $rc)
	cleanup
}
trap memcg_cleanup EXIT

require iptables-legacy-restore iptables-nft-restore
N=256

grep -q cgroup2 /proc/mounts || mount -t cgroup2 none $CG 2>/dev/null ||
	{ skip "no cgroup2 (CONFIG_CGROUPS)"; finish; }
grep -qw memory $CG/cgroup.controllers ||
	{ skip "no memory controller (CONFIG_MEMCG)"; finish; }
echo +memory > $CG/cgroup.subtree_control
mkdir -p "$GROUP"

NAMESPACES=memcg
cleanup_namespaces
setup_ns memcg
rules=$(mktemp)

# ruleset TARGET: N rules with TARGET in INPUT, one per port.
ruleset() {
	local i
	echo "*filter"
	for i in $(seq $N); do
		echo "-A INPUT -p tcp --dport $((1000 + i)) -j $1"
	done
	echo "COMMIT"
}

# charged RESTORE TARGET: bytes the cgroup's memory.current grows by while
# RESTORE, run in it, adds the N rules to an empty table (its own pages are
# gone when it exits).
charged() {
	local before after
	ruleset "$2" > "$rules"
	# Flushed, and the binaries' page cache charged to the root cgroup.
	ns memcg "$1" <<< $'*filter\nCOMMIT'
	before=$(cat "$GROUP/memory.current")
	sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$GROUP" \
		ip netns exec memcg "$1" < "$rules"
	after=$(cat "$GROUP/memory.current")
	echo $((after - before))
}

for restore in iptables-legacy-restore ip6tables-legacy-restore \
	       iptables-nft-restore ip6tables-nft-restore; do
	delude=$(charged "$restore" DELUDE)
	chaos=$(charged "$restore" CHAOS)
	ns memcg "$restore" <<< $'*filter\nCOMMIT'
	if [ $((chaos - delude)) -ge $((N * 4096)) ]; then
		pass "$restore: $N CHAOS rules charged $((chaos / 1024)) KiB to the cgroup, DELUDE $((delude / 1024)) KiB"
	else
		fail "$restore: CHAOS state charged to the cgroup (expected $N CHAOS rules to take >= $((N * 4)) KiB more than DELUDE's $((delude / 1024)) KiB, got $((chaos / 1024)) KiB)"
	fi
done
rm -f "$rules"
finish
