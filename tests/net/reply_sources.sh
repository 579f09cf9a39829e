#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No answer to what one host did not send, or we sent. Every target mode
# (tests/lib/targets.list) on a TCP port of its own and, if it takes any
# protocol, a UDP port; from each source three SYNs and three datagrams a
# port, 0.3 s apart (CHAOS answers retries), in unicast Ethernet frames
# (tests/net/helpers/rawtcp.py frames), IPv4 and IPv6:
#
#  rsend eth0 10.0.8.2 ------- eth0 10.0.8.1 rtarget (INPUT, rp_filter 0,
#             fd00:8::2             fd00:8::1  default route to rsend)
#  bsend eth0 10.0.9.1 --- p-bsend [br0] p-bdst --- eth0 10.0.9.2 bdst
#             fd00:9::1      bridge (FORWARD, br_netfilter,   fd00:9::2
#                            no address, lo down)
#
# - routed, from 10.0.8.255, 255.255.255.255, 224.0.0.1, 127.0.0.1,
#   0.0.0.0, 240.0.0.1 and 10.0.8.1 (rtarget's own); ::1, ff02::1, ::,
#   ::ffff:10.0.8.2 and fd00:8::1 (the input route drops most of them
#   before the hooks: class E and the subnet's broadcast get through);
# - bridged, from the same but the broadcast of a subnet the bridge has
#   no address in, and an own address it has none of;
# nothing comes back to the senders (tcpdump), and no counter of
# /proc/net/nf_chaos_stat says an answer was sent. Then the same from
# the senders' own addresses: answered and counted, so the test can fail.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 tcpdump iptables-legacy ip6tables-legacy
NAMESPACES="rsend rtarget bsend bdst bridge"
cleanup_namespaces
# shellcheck disable=SC2086 # a name a word
setup_ns $NAMESPACES
# br: the bridged half runs (a kernel without br_netfilter skips it).
br=1
if ! modprobe br_netfilter 2>/dev/null && [ ! -d /sys/module/br_netfilter ]; then
	skip "bridged: no br_netfilter module"
	br=
fi

ip link add eth0 netns rsend type veth peer name eth0 netns rtarget
ip -n rsend addr add 10.0.8.2/24 dev eth0
ip -n rsend addr add fd00:8::2/64 dev eth0 nodad
ip -n rtarget addr add 10.0.8.1/24 dev eth0
ip -n rtarget addr add fd00:8::1/64 dev eth0 nodad
ip -n bridge link set lo down
bridge_pair bsend bdst
ip -n rsend link set eth0 up
ip -n rtarget link set eth0 up
ip -n rtarget route add default via 10.0.8.2
ip -n rtarget route add default via fd00:8::2
ns rtarget sysctl -qw net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.eth0.rp_filter=0

# A TCP port per mode from 1000 on; a UDP one too if it takes any protocol.
tports='' uports='' i=1000
tcp_only=$(target_modes tcp)
while read -r mode; do
	for ipt in iptables-legacy ip6tables-legacy; do
		# shellcheck disable=SC2086 # the mode's words
		ns rtarget $ipt -A INPUT -p tcp --dport $i -j $mode
		# shellcheck disable=SC2086
		ns bridge $ipt -A FORWARD -p tcp --dport $i -j $mode
		grep -qx -- "$mode" <<< "$tcp_only" && continue
		# shellcheck disable=SC2086
		ns rtarget $ipt -A INPUT -p udp --dport $i -j $mode
		# shellcheck disable=SC2086
		ns bridge $ipt -A FORWARD -p udp --dport $i -j $mode
	done
	tports+=$i,
	grep -qx -- "$mode" <<< "$tcp_only" || uports+=$i,
	i=$((i + 1))
done < <(target_modes)

mac() { ip -n "$1" -o link show eth0 | grep -o 'link/ether [0-9a-f:]*' | cut -d' ' -f2; }
rmac=$(mac rtarget) bmac=$(mac bdst)
# frames NS MAC DST SRC...: the probes, from NS.
frames() {
	expect "$1 to $3 sent" "sent [1-9]*" \
		"$(rawtcp "$1" frames "$2" "$3" "$tports" "$uports" 3 "${@:4}")"
}
# answers: what came back to the senders since start_caps.
caps=()
start_caps() {
	local n f
	caps=()
	for n in rsend bsend bdst; do
		f=$(mktemp)
		tcpdump_start $n "$f" 60 -l -nn -Q in -i eth0 \
			'tcp or icmp or (icmp6 and ip6[40] < 128)'
		caps+=("$f")
	done
}
answers() {
	# The last answers still on their way: nothing waits for an answer
	# that must not come.
	sleep 1
	tcpdump_stop
	cat "${caps[@]}"
}
# sent NS: the answers /proc/net/nf_chaos_stat counts as sent in NS.
sent() {
	# shellcheck disable=SC2016 # awk's
	ns "$1" awk '$1 !~ /Fail$|Drop$/ { n += $2 } END { print n + 0 }' \
		/proc/net/nf_chaos_stat
}

start_caps
frames rsend "$rmac" 10.0.8.1 10.0.8.255 255.255.255.255 224.0.0.1 \
	127.0.0.1 0.0.0.0 240.0.0.1 10.0.8.1
frames rsend "$rmac" fd00:8::1 ::1 ff02::1 :: ::ffff:10.0.8.2 fd00:8::1
if [ -n "$br" ]; then
	frames bsend "$bmac" 10.0.9.2 255.255.255.255 224.0.0.1 127.0.0.1 \
		0.0.0.0 240.0.0.1
	frames bsend "$bmac" fd00:9::2 ::1 ff02::1 :: ::ffff:10.0.9.1
fi
got=$(answers)
n=$(grep -c . <<< "$got" || true)
expect "no answer to a bad source" 0 "$n"
[ "$n" = 0 ] || head -n 10 <<< "$got"
expect "routed: no answer counted" 0 "$(sent rtarget)"
[ -z "$br" ] || expect "bridged: no answer counted" 0 "$(sent bridge)"

start_caps
frames rsend "$rmac" 10.0.8.1 10.0.8.2
frames rsend "$rmac" fd00:8::1 fd00:8::2
if [ -n "$br" ]; then
	frames bsend "$bmac" 10.0.9.2 10.0.9.1
	frames bsend "$bmac" fd00:9::2 fd00:9::1
fi
got=$(answers)
# FROM TO PROTO...: what answers FROM sends TO. A bridge routes no ICMP:
# it has no address to send it from.
controls=("10.0.8.1 10.0.8.2 TCP ICMP" "fd00:8::1 fd00:8::2 TCP ICMP")
[ -z "$br" ] || controls+=("10.0.9.2 10.0.9.1 TCP" "fd00:9::2 fd00:9::1 TCP")
for c in "${controls[@]}"; do
	read -r from to protos <<< "$c"
	for p in $protos; do
		pat="IP6? $from\.[0-9]+ > $to\.[0-9]+: Flags"
		[ "$p" = TCP ] || pat="IP6? $from > $to: ICMP"
		expect "$from answers $to's own address, $p" "[1-9]*" \
			"$(grep -cE "$pat" <<< "$got" || true)"
	done
done
expect "routed: answers counted" "[1-9]*" "$(sent rtarget)"
[ -z "$br" ] || expect "bridged: answers counted" "[1-9]*" "$(sent bridge)"
finish
