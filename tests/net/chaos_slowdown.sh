#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS slows scans down: nmap wall time against the host with and without
# "-j CHAOS --delude" (default probabilities and rate), measured in the
# same VM run, TCP -sS at the default timing (-T3); UDP is measured by tests/bench only,
# its ratio depends on the load of the machine. Not a
# benchmark (tests/bench is): it only asserts a clear ratio. Scans are
# bounded; a scan cut off by its bound counts with the bound as its time.
#
#   scanner 10.0.1.2 --- router --- host 10.0.3.2
#                                   INPUT: tcp/22 ACCEPT, then CHAOS --delude
set -e
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/chaos_lib.inc"
trap cleanup EXIT

require nmap socat
setup_topology
start_tcp_server host 22
wait_for_tcp_listen host 22
ns host $IPT -A INPUT -p tcp --dport 22 -j ACCEPT

scan 120 -sS -T3 -p 1-50 "$HOST4"
tcp_bare=$SCAN_TIME

ns host $IPT -A INPUT -j CHAOS --delude
scan 240 -sS -T3 -p 1-50 "$HOST4"
tcp_chaos=$SCAN_TIME

echo "scan           bare    CHAOS   ratio"
printf '%-14s %-7s %-7s %s\n' "-sS -T3 50" "$tcp_bare" "$tcp_chaos" \
	"$(ratio "$tcp_chaos" "$tcp_bare")"

r=$(ratio "$tcp_chaos" "$tcp_bare")
if greater "$r" 1.5; then
	pass "-sS -T3 is $r times slower with CHAOS"
else
	fail "-sS -T3 slowdown (expected ratio > 1.5, got $r: ${tcp_bare}s bare, ${tcp_chaos}s CHAOS)"
fi
finish
