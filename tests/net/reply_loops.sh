#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No forged reply feeds another: two namespaces (loopa, loopb) on one
# veth with our targets on tcp ports 1001 on (one per mode of
# tests/lib/targets.list), crafted packets sent
# between them (AF_PACKET), replies counted on the wire (details in
# reply_loops.py):
# - every pair of DELUDE, TARPIT (all modes) and CHAOS (all variants): a
#   SYN, an ACK, data and a FIN each way, IPv4 and IPv6: the exchange
#   stops with at most 2 replies per packet; the same after a real
#   handshake, so that the answers that need a cookie (greeting, tarpit
#   probe answer, honeypot ACK) reach every target;
# - one crafted ACK from A:port to B:port between two tarpits (TARPIT,
#   TARPIT --stall, CHAOS --tarpit): at most one reply in total;
# - 1000 ACKs from spoofed sources with random numbers: no reply;
# - nmap --badsum probes (bad TCP checksum) get no answer from any target,
#   in INPUT and FORWARD, with conntrack on (which leaves them
#   CHECKSUM_COMPLETE, as a NIC may);
# - curl is held until its own timeout;
# - a flood of valid probes is answered within the rate limit of its
#   source, and held peers at other addresses are still answered.
set -e
source "$(dirname "$0")/../lib/lib.sh"
# The held curl's socket outlives curl, and so the namespaces.
loops_cleanup() {
	local rc=$?
	flush_rules loopa loopb
	(exit $rc)
	cleanup
}
trap loops_cleanup EXIT

require python3 iptables-legacy ip6tables-legacy curl

NAMESPACES="loopa loopb"
cleanup_namespaces
setup_ns $NAMESPACES
ip link add eth0 netns loopa type veth peer name eth0 netns loopb
ip -n loopa addr add 10.0.9.1/24 dev eth0
ip -n loopa addr add fd00:9::1/64 dev eth0 nodad
for a in 21 22 23; do	# held peers beside a flood (reply_loops.py OTHERS)
	ip -n loopa addr add 10.0.9.$a/24 dev eth0
done
ip -n loopb addr add 10.0.9.2/24 dev eth0
ip -n loopb addr add fd00:9::2/64 dev eth0 nodad
ip -n loopa link set eth0 up
ip -n loopb link set eth0 up
for a in 10.0.9.2 fd00:9::2; do
	ns loopa busybox ping -q -c1 -W5 "$a" >/dev/null ||
		{ fail "setup: loopa cannot ping $a"; finish; }
done
# Spoofed sources are routed back to loopa, so replies show on the wire;
# loopb forwards what is sent there (FORWARD tests).
ip -n loopb route add 10.0.10.0/24 via 10.0.9.1
ip -n loopb route add fd00:10::/64 via fd00:9::1
ns loopb sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1

while IFS= read -r line; do
	case $line in
	PASS:*) pass "${line#PASS: }" ;;
	FAIL:*) fail "${line#FAIL: }" ;;
	SKIP:*) skip "${line#SKIP: }" ;;
	*) echo "# $line" ;;
	esac
done < <(timeout 500 /usr/bin/python3 "$(dirname "$0")/helpers/reply_loops.py" \
	loop spoof matrix matrix_cookie badsum ratelimit \
	2>&1)
[ $((_npass + _nfail)) -gt 0 ] || fail "reply_loops.py reported nothing"

# curl connects and is held until its own timeout, neither reset nor
# answered with data.
# (reply_loops.py left TARPIT on port 1002.)
for url in http://10.0.9.2:1002/ 'http://[fd00:9::2]:1002/'; do
	rc=0
	got=$(ns loopa curl -s -o /dev/null -m 2 -w '%{time_connect}' "$url") ||
		rc=$?
	if [ $rc = 28 ] && [ "${got%%.*}${got#*.}" -gt 0 ]; then
		pass "curl $url: connected in ${got}s, held until its 2s timeout"
	else
		fail "curl $url: (expected exit 28 after a connect, got exit $rc, time_connect $got)"
	fi
done
finish
