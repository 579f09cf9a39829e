#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS rate-limits its answers: 100 sources (scanner's addresses), each
# sending a probe and its retry to a closed port, would each get an
# answer; together they get at most burst + rate * time, counted where
# they arrive (scanner INPUT counters). TCP RSTs and UDP ICMP
# unreachables, IPv4 and IPv6, with a non-default --rate and --burst.
#
#   scanner 10.0.1.2 fd00:1::2 --- router --- host 10.0.3.2 fd00:3::2
#                                             INPUT: CHAOS --rate 10/sec --burst 5
#
# The kernel's own ICMP rate limit is lifted in host, so only ours counts.
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap cleanup EXIT

require python3
require_py scapy
setup_topology

RATE=10
BURST=5
SOURCES=100

ns host sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
# IPv6 needs neighbour discovery through.
ns host $IP6T -A INPUT -p ipv6-icmp -j ACCEPT
ns host $IPT -A INPUT -j CHAOS --rate $RATE/sec --burst $BURST
ns host $IP6T -A INPUT -j CHAOS --rate $RATE/sec --burst $BURST

ns scanner $IPT -A INPUT -p tcp --tcp-flags RST RST -m comment --comment rst4
ns scanner $IPT -A INPUT -p icmp --icmp-type port-unreachable -m comment --comment unr4
ns scanner $IP6T -A INPUT -p tcp --tcp-flags RST RST -m comment --comment rst6
ns scanner $IP6T -A INPUT -p ipv6-icmp --icmpv6-type port-unreachable -m comment --comment unr6

for i in $(seq $SOURCES); do
	echo "addr add 10.0.1.$((100 + i))/24 dev eth0"
	echo "addr add fd00:1::$((100 + i))/64 dev eth0 nodad"
done | ns scanner ip -batch -

# burst FAMILY PROTO DST: each source's first probe and retry (nmap's
# source ports: base, base + 2) to one of 20 closed ports, as fast as
# scapy can; prints the seconds the sending took.
burst()
{
	ns scanner python3 - "$@" "$SOURCES" <<'PY'
import sys, time
from scapy.all import IP, IPv6, TCP, UDP, send, conf
fam, proto, dst, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
pkts = []
for i in range(n):
    src = ("10.0.1.%d" if fam == "4" else "fd00:1::%d") % (101 + i)
    l3 = IP(src=src, dst=dst) if fam == "4" else IPv6(src=src, dst=dst)
    for sport in (40000, 40002):
        pkts.append(l3 / (TCP(sport=sport, dport=1000 + i % 20, flags="S")
                          if proto == "tcp" else
                          UDP(sport=sport, dport=1000 + i % 20)))
conf.verb = 0
start = time.monotonic()
send(pkts, inter=0)
print("%.2f" % (time.monotonic() - start))
PY
}

# settled NS IPT TAG: the counter once it stops moving (answers in flight)
settled()
{
	local prev=-1 cur i
	for i in $(seq 20); do
		cur=$(ipt_pkts "$1" "$2" "$3")
		[ "$cur" != "$prev" ] || break
		prev=$cur
		sleep 0.5
	done
	echo "$cur"
}

check()
{
	local fam=$1 proto=$2 dst=$3 ipt=$4 tag=$5 secs got max
	secs=$(burst "$fam" "$proto" "$dst")
	got=$(settled scanner "$ipt" "$tag")
	# One interval of slack for the jiffy the refill is counted from.
	max=$(awk -v s="$secs" -v r=$RATE -v b=$BURST 'BEGIN { printf "%d", b + r * s + 1 }')
	echo "IPv$fam $proto: $SOURCES sources' retries in ${secs}s, $got answers, at most $max allowed"
	if [ "$got" -le "$max" ]; then
		pass "IPv$fam $proto answers within the rate limit ($got <= $max)"
	else
		fail "IPv$fam $proto answers limited (expected <= $max, got $got)"
	fi
	if [ "$got" -ge "$BURST" ]; then
		pass "IPv$fam $proto answers at least the burst ($got >= $BURST)"
	else
		fail "IPv$fam $proto answers the burst (expected >= $BURST, got $got)"
	fi
}

check 4 tcp "$HOST4" "$IPT" rst4
check 4 udp "$HOST4" "$IPT" unr4
check 6 tcp "$HOST6" "$IP6T" rst6
check 6 udp "$HOST6" "$IP6T" unr6
finish
