#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS slows scans down: nmap wall time against the host with and without
# "-j CHAOS --delude" (default probabilities and rate), measured in the
# same VM run, TCP -sS and UDP -sU at the default timing (-T3). The bare
# kernel already slows UDP scans with its ICMP rate limit; CHAOS must be
# slower still. Not a benchmark (tests/bench is): it only asserts a clear
# ratio. Scans are bounded; a scan cut off by its bound counts with the
# bound as its time.
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
scan 120 -sU -T3 -p 1-20 "$HOST4"
udp_bare=$SCAN_TIME

ns host $IPT -A INPUT -j CHAOS --delude
scan 60 -sS -T3 -p 1-50 "$HOST4"
tcp_chaos=$SCAN_TIME
# A fresh rule: no retries remembered from the TCP scan's source.
ns host $IPT -R INPUT 2 -j CHAOS --delude
scan 90 -sU -T3 -p 1-20 "$HOST4"
udp_chaos=$SCAN_TIME

echo "scan           bare    CHAOS   ratio"
printf '%-14s %-7s %-7s %s\n' "-sS -T3 50" "$tcp_bare" "$tcp_chaos" \
	"$(ratio "$tcp_chaos" "$tcp_bare")"
printf '%-14s %-7s %-7s %s\n' "-sU -T3 20" "$udp_bare" "$udp_chaos" \
	"$(ratio "$udp_chaos" "$udp_bare")"

check_slower "-sS -T3" "$tcp_chaos" "$tcp_bare" 1.5
check_slower "-sU -T3" "$udp_chaos" "$udp_bare" 1.5
finish
