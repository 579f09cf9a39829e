#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The HA pair of two guests (tests/field/ha/pair), r1's guest, booted
# first: r1 comes up as the primary, then crashes when r2's guest orders
# it (a connection to CRASH_PORT on sync): its daemons killed, its links
# down, with no word to r2.
# vm-timeout: 1200
set -e
source "$(dirname "$0")/ha.inc"
NAMESPACES="r1"
trap cleanup EXIT

cleanup_namespaces
setup_ns r1
for dev in wan lan sync; do
	vm_link $dev r1 $dev
done
router r1
ns r1 $IPT -I INPUT -i sync -p tcp --dport $CRASH_PORT -j ACCEPT
if busywait 120 primary r1; then
	pass "r1 primary: keepalived gave it $VIP_OUT and $VIP_IN, primary-backup.sh ran"
else
	fail "r1 primary (expected the VIPs and state primary, got state '$(state r1)'; $(tail -n 5 "$D/r1/keepalived.log" | tr '\n' ';'))"
	finish
fi
expect "r1 has the IPv6 VIPs too" "$VIP6_OUT $VIP6_IN" \
	"$(ns r1 ip -6 -o addr show | grep -o -e "$VIP6_OUT/" -e "$VIP6_IN/" | tr -d / | xargs)"
order=$(ns r1 timeout 1000 socat -u TCP-LISTEN:$CRASH_PORT,bind=192.168.100.1 - || true)
expect "r2's guest orders the crash" crash "$order"
ip netns pids r1 | xargs -r kill -KILL
for dev in wan lan sync; do
	ip -n r1 link set $dev down
done
echo "# r1 crashed at $(date -u +%T.%N) (its wall clock), uptime $(cut -d' ' -f1 /proc/uptime) s"
finish
