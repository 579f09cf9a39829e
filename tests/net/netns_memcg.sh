#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# A network namespace with our modules loaded and no rules of ours costs
# under 1 KiB: its sysctls (net.netfilter.nf_chaos_*) and, once written,
# its key; the answer core's state comes with the first rule and goes
# with the last, as the key stays. One process makes N namespaces in a
# fresh memory cgroup (tests/net/helpers/netns_hold.py), with our modules
# unloaded, then loaded; the difference in the cgroup's kernel memory
# (memory.stat "kernel"), over N, is what a namespace costs us.
# In one namespace then:
# - net.netfilter.nf_chaos_key_id is empty until there is a key;
# - a key written before any rule (as chaostables-load does) is the key
#   of the first rule, and outlives the last;
# - the key a first rule made outlives the rule, so that rules loaded
#   again keep the cookies.
set -e
source "$(dirname "$0")/../lib/lib.sh"
CG=/sys/fs/cgroup
GROUP=$CG/chaostables-netns
N=200
memcg_cleanup() {
	local rc=$?
	load_ours
	rmdir "$GROUP" 2>/dev/null || true
	(exit $rc)
	cleanup
}
trap memcg_cleanup EXIT

require python3 iptables-legacy
[ -r "$OUR_MODDIR/xt_DELUDE.ko" ] || { skip "no modules in $OUR_MODDIR"; finish; }
grep -q cgroup2 /proc/mounts || mount -t cgroup2 none $CG 2>/dev/null ||
	{ skip "no cgroup2 (CONFIG_CGROUPS)"; finish; }
grep -qw memory $CG/cgroup.controllers ||
	{ skip "no memory controller (CONFIG_MEMCG)"; finish; }
echo +memory > $CG/cgroup.subtree_control

# kmem: GROUP's kernel memory in bytes, once the per-CPU counters are all
# in: memory.stat folds them in every 2 s (later in a loaded guest), so
# the value that stayed the same for 6 s.
kmem() {
	_kmem=''
	_since=$SECONDS
	busywait 60 kmem_steady
	echo "$_kmem"
}
kmem_steady() {
	local now
	now=$(awk '$1 == "kernel" { print $2 }' "$GROUP/memory.stat")
	if [ "$now" != "$_kmem" ]; then
		_kmem=$now
		_since=$SECONDS
	fi
	[ $((SECONDS - _since)) -gt 6 ]
}

# netns_kmem: GROUP's kernel memory while one process in it holds N new
# namespaces.
netns_kmem() {
	local line k fd
	mkdir "$GROUP"
	coproc HOLD { sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh \
		"$GROUP" python3 "$(dirname "$0")/helpers/netns_hold.py" $N; }
	read -r -t 120 line <&"${HOLD[0]}" || true
	[ "$line" = ready ] || { echo "netns_hold.py: ${line:-no answer}" >&2; return 1; }
	k=$(kmem)
	fd=${HOLD[1]}
	exec {fd}>&-
	wait "$HOLD_PID"
	rmdir "$GROUP"
	echo "$k"
}

unload_ours || { fail "our modules unloaded (expected rmmod to succeed, got: $(loaded_ours))"; finish; }
without=$(netns_kmem)
load_ours
[ "$(loaded_ours)" = "$OUR_MODULES" ] ||
	{ fail "our modules loaded (expected $OUR_MODULES, got $(loaded_ours))"; finish; }
with=$(netns_kmem)
per=$(((with - without) / N))
if [ "$per" -lt 1024 ]; then
	pass "a namespace costs $per B with our modules and no rules (of $((without / N / 1024)) KiB)"
else
	fail "a namespace's cost with our modules and no rules (expected < 1024 B, got $per B over $((without / N / 1024)) KiB)"
fi

NAMESPACES="keyed unkeyed"
cleanup_namespaces
setup_ns keyed unkeyed
key_id() { ns "$1" cat /proc/sys/net/netfilter/nf_chaos_key_id; }
rule() { ns "$2" iptables-legacy "$1" INPUT -p tcp --dport 9000 -j DELUDE; }

expect "no key_id before a key" "" "$(key_id unkeyed)"
ns keyed sh -c 'echo 000102030405060708090a0b0c0d0e0f > /proc/sys/net/netfilter/nf_chaos_key'
written=$(key_id keyed)
rule -A keyed
expect "the key written before the rules is the first rule's" "$written" "$(key_id keyed)"
rule -D keyed
expect "the written key outlives the last rule" "$written" "$(key_id keyed)"

rule -A unkeyed
made=$(key_id unkeyed)
if [ -n "$made" ]; then
	pass "the first rule makes a key: $made"
else
	fail "the first rule makes a key (expected a key_id, got none)"
fi
rule -D unkeyed
rule -A unkeyed
expect "the key made by a rule outlives it, for the next" "$made" "$(key_id unkeyed)"
rule -D unkeyed
finish
