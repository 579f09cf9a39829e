#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --mirai (issue 22): a SYN whose sequence number is the IPv4 destination
# address is Mirai's scan probe, under both names of the match (-m
# portscan, -m lscan, saved as written).
# 1. Normal traffic (clients v4 and v6, nmap -sS -sT -sF -sA, a banner
#    grab) moves no --mirai counter, out of every SYN the rules saw.
# 2. Crafted SYNs (scapy), each shape from its own source ports, with a
#    counting rule after its --mirai rules: Mirai SYNs to the host match
#    in host INPUT and router FORWARD; Mirai SYNs to a router address
#    DNATed to the host match in FORWARD (the address they were sent to);
#    SYNs with the sequence one off, SYN/ACKs and ACKs with it, and v6
#    SYNs with the low 32 bits of the v6 destination match nowhere.
#
#  scanner 10.0.1.2 --- router: FORWARD -m lscan --mirai (iptables-nft),
#  client 10.0.2.2 ---/  DNAT 10.0.1.1:2323 -> host:23
#                        --- host 10.0.3.2: INPUT -m portscan --mirai,
#                            -m lscan --mirai (legacy, v4 and v6),
#                            echo servers 2000-2002, banner 2100
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/portscan_lib.inc"
trap cleanup EXIT

require nmap socat
require_py scapy

N=10	# crafted SYNs per shape

setup_topology
ps_servers host
ns router iptables-nft -t nat -A PREROUTING -d "$ROUTER_SCANNER4" -p tcp \
	--dport 2323 -j DNAT --to-destination "$HOST4:23"

# Phase 1: every --mirai rule, on all traffic, and every SYN counted.
ns host iptables-legacy -A INPUT -p tcp -m portscan --mirai \
	-m comment --comment ps_all
ns host iptables-legacy -A INPUT -p tcp -m lscan --mirai \
	-m comment --comment ls_all
ns host iptables-legacy -A INPUT -p tcp --syn -m comment --comment syn_all
ns host ip6tables-legacy -A INPUT -p tcp -m lscan --mirai \
	-m comment --comment ls_all6
ns host ip6tables-legacy -A INPUT -p tcp --syn -m comment --comment syn_all6
ns router iptables-nft -A FORWARD -p tcp -m lscan --mirai \
	-m comment --comment fwd_all
ns router iptables-nft -A FORWARD -p tcp --syn -m comment --comment fwd_syn

expect "-m lscan and -m portscan are saved as written" \
	"*-m portscan --mirai*-m lscan --mirai*" \
	"$(ns host iptables-legacy -S INPUT | tr '\n' ' ')"
# A chain of its own, out of the traffic's way: a class besides --mirai.
ns router iptables-nft -N save
ns router iptables-nft -A save -p tcp -m lscan --stealth --mirai
expect "-m lscan saved as written by iptables-nft" \
	"*-m lscan --mirai*-A save -p tcp -m lscan --stealth --mirai*" \
	"$(ns router iptables-nft -S | tr '\n' ' ')"

for c in http talk bulk; do
	args=("$HOST4" 2000)
	[ $c = talk ] && args=("$HOST4" "$PS_BANNER")
	[ $c = bulk ] && args+=(100000)
	ns client timeout 60 $PS_CLIENT $c "${args[@]}" >/dev/null 2>&1 || true
	args[0]=$HOST6
	ns client timeout 60 $PS_CLIENT $c "${args[@]}" >/dev/null 2>&1 || true
done
ns scanner timeout 60 $PS_CLIENT grab "$HOST4" "$PS_BANNER" >/dev/null 2>&1 || true
for t in -sS -sT -sF -sA; do
	scan 120 -T4 --max-retries 1 -p "$PS_RANGE" $t "$HOST4"
done
scan 120 -6 -T4 --max-retries 1 -p "$PS_RANGE" -sS "$HOST6"
ps_settle host 2000 "$PS_BANNER"

read -r ps ls syn <<< "$(ipt_pkts host iptables-legacy ps_all ls_all syn_all)"
read -r ls6 syn6 <<< "$(ipt_pkts host ip6tables-legacy ls_all6 syn_all6)"
read -r fwd fsyn <<< "$(ipt_pkts router iptables-nft fwd_all fwd_syn)"
if [ "$syn" -ge 40 ] && [ "$syn6" -ge 20 ] &&
   [ "$ps" = 0 ] && [ "$ls" = 0 ] && [ "$ls6" = 0 ]; then
	pass "normal traffic: no --mirai match in host INPUT ($ps+$ls of $syn v4 SYNs, $ls6 of $syn6 v6)"
else
	fail "normal traffic in host INPUT (expected 0 --mirai matches of >=40 v4 and >=20 v6 SYNs, got $ps+$ls of $syn, $ls6 of $syn6)"
fi
if [ "$fsyn" -ge 40 ] && [ "$fwd" = 0 ]; then
	pass "normal traffic: no --mirai match in router FORWARD ($fwd of $fsyn SYNs)"
else
	fail "normal traffic in router FORWARD (expected 0 --mirai matches of >=40 SYNs, got $fwd of $fsyn)"
fi

# Phase 2: per shape, --mirai rules and a counting rule after them.
# Shapes: name, family, first source port, SYNs, whether host INPUT
# sees them (all pass router FORWARD). Expected --mirai matches: all for
# mirai and mirai_dnat, none for the others.
SHAPES="
mirai		4 40000 $N host
mirai_dnat	4 41000 $N -
seq_off		4 42000 $N host
synack_seq	4 43000 $N host
ack_seq		4 44000 $N host
syn6_low32	6 45000 $N host
"
ns router iptables-nft -F FORWARD
while read -r name fam port cnt h; do
	[ -n "$name" ] || continue
	ipt=iptables
	[ "$fam" = 4 ] || ipt=ip6tables
	sp="--sport $port:$((port + 99))"
	if [ "$h" = host ]; then
		ns host $ipt-legacy -I INPUT -p tcp $sp -m comment --comment "a_$name"
		ns host $ipt-legacy -I INPUT -p tcp $sp -m lscan --mirai \
			-m comment --comment "ls_$name"
		ns host $ipt-legacy -I INPUT -p tcp $sp -m portscan --mirai \
			-m comment --comment "ps_$name"
	fi
	ns router $ipt-nft -A FORWARD -p tcp $sp -m lscan --mirai \
		-m comment --comment "ls_$name"
	ns router $ipt-nft -A FORWARD -p tcp $sp -m comment --comment "a_$name"
done <<< "$SHAPES"

ns scanner timeout 120 /usr/bin/python3 - "$N" "$HOST4" "$HOST6" \
	"$ROUTER_SCANNER4" <<-'EOF'
	import ipaddress, random, sys
	from scapy.all import IP, IPv6, TCP, send, conf
	conf.verb = 0
	n, h4, h6, r4 = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
	M32 = 0xffffffff
	def syns(l3, base, dport, seq, flags="S"):
	    # Mirai's probe: random IP ID and window, no options.
	    for i in range(n):
	        send(l3 / TCP(sport=base + i, dport=dport, flags=flags, seq=seq,
	                      ack=random.getrandbits(32) if "A" in flags else 0,
	                      window=random.randint(1024, 65535)))
	a4 = int(ipaddress.ip_address(h4))
	ip = lambda d: IP(dst=d, id=random.getrandbits(16))
	syns(ip(h4), 40000, 23, a4)
	syns(ip(r4), 41000, 2323, int(ipaddress.ip_address(r4)))
	syns(ip(h4), 42000, 23, (a4 + 1) & M32)
	syns(ip(h4), 43000, 23, a4, "SA")
	syns(ip(h4), 44000, 23, a4, "A")
	syns(IPv6(dst=h6), 45000, 23, int(ipaddress.ip_address(h6)) & M32)
EOF

# arrived NS IPT TAG WANT: the counting rule TAG has seen WANT packets.
arrived() { [ "$(ipt_pkts "$1" "$2" "$3" 2>/dev/null)" -ge "$4" ] 2>/dev/null; }

while read -r name fam port cnt h; do
	[ -n "$name" ] || continue
	ipt=iptables
	[ "$fam" = 4 ] || ipt=ip6tables
	want=0
	[ "${name%_dnat}" = mirai ] && want=$cnt
	busywait 20 arrived router $ipt-nft "a_$name" "$cnt" || true
	read -r fa fl <<< "$(ipt_pkts router $ipt-nft "a_$name" "ls_$name")"
	if [ "$fa" -ge "$cnt" ] && [ "$fl" = "$want" ]; then
		pass "$name v$fam FORWARD -m lscan --mirai: $fl of $fa"
	else
		fail "$name v$fam FORWARD -m lscan --mirai (expected $want of $cnt, got $fl of $fa)"
	fi
	[ "$h" = host ] || continue
	busywait 20 arrived host $ipt-legacy "a_$name" "$cnt" || true
	read -r ha hp hl <<< "$(ipt_pkts host $ipt-legacy "a_$name" "ps_$name" "ls_$name")"
	if [ "$ha" -ge "$cnt" ] && [ "$hp" = "$want" ] && [ "$hl" = "$want" ]; then
		pass "$name v$fam INPUT -m portscan/-m lscan --mirai: $hp/$hl of $ha"
	else
		fail "$name v$fam INPUT --mirai (expected $want of $cnt for both names, got $hp/$hl of $ha)"
	fi
done <<< "$SHAPES"

finish
