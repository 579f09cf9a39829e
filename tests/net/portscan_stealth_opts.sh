#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --stealth is not escaped by TCP options (issue 21, item 2). Probes from
# the scanner to closed ports of the host, each shape from its own source
# ports, pass a --stealth rule in router FORWARD and one in host INPUT
# (iptables-legacy, ip6tables-legacy); a plain counting rule after each
# tells when every probe has gone through. Neither side knows the probes'
# flows. Expected: every probe with options is stealth in INPUT (no local
# socket owns it) and in FORWARD, except a well-formed timestamp option
# with a non-zero echo on an ACK or FIN|ACK, which is what a live flow's
# keepalive looks like there (the manual says so); portscan_live.sh checks
# that such keepalives of real sessions still pass.
#
#  scanner 10.0.1.2 --- router: FORWARD --stealth per shape --- host 10.0.3.2:
#  fd00:1::2                                          INPUT --stealth per shape,
#                                                     nothing listens
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap hping3
require_py scapy

N=10	# probes per crafted shape

# Shapes: name, family, first source port, probes, stealth in FORWARD
# (all or none; in INPUT: all).
SHAPES="
synack_nmap	4 40000 20 all
ack_ts_hping	4 41000 $N all
finack_ts_hping	4 42000 $N all
ack_nop		4 43000 $N all
window_nop	4 44000 $N all
maimon_nop	4 45000 $N all
ack_ts_ecr0	4 46000 $N all
ack_ts_cut	4 47000 $N all
synack_ts	4 48000 $N all
ack_ts_live	4 49000 $N none
ack_bare	4 50000 $N all
ack_nop6	6 43000 $N all
maimon_nop6	6 45000 $N all
ack_ts_live6	6 49000 $N none
"

# rules NS CHAIN: per shape a --stealth rule tagged s_NAME and a counting
# rule tagged a_NAME, for the shape's source ports.
rules() {
	local n=$1 chain=$2 name fam port cnt fwd ipt
	while read -r name fam port cnt fwd; do
		[ -n "$name" ] || continue
		ipt=iptables-legacy
		[ "$fam" = 4 ] || ipt=ip6tables-legacy
		ns "$n" $ipt -A "$chain" -p tcp --sport "$port:$((port + 99))" \
			-m portscan --stealth -m comment --comment "s_$name"
		ns "$n" $ipt -A "$chain" -p tcp --sport "$port:$((port + 99))" \
			-m comment --comment "a_$name"
	done <<< "$SHAPES"
}

# arrived NS FAM TAG WANT: the counting rule TAG has seen WANT packets.
arrived() {
	local ipt=iptables-legacy
	[ "$2" = 4 ] || ipt=ip6tables-legacy
	[ "$(ipt_pkts "$1" $ipt "$3" 2>/dev/null)" -ge "$4" ] 2>/dev/null
}

setup_topology
rules router FORWARD
rules host INPUT

# nmap adds MSS to every probe with SYN set; hping3's timestamps echo 0.
scan 120 -T4 --max-retries 0 -g 40000 --scanflags SYNACK -p 2000-2019 "$HOST4"
ns scanner timeout 60 hping3 -q -A --tcp-timestamp -s 41000 -p 2000 \
	-c $N -i u20000 "$HOST4" >/dev/null 2>&1 || true
ns scanner timeout 60 hping3 -q -A -F --tcp-timestamp -s 42000 -p 2000 \
	-c $N -i u20000 "$HOST4" >/dev/null 2>&1 || true

# The crafted shapes, both families in one python (scapy loads slowly).
ns scanner timeout 120 /usr/bin/python3 - "$N" "$HOST4" "$HOST6" <<-'EOF'
	import random, struct, sys
	from scapy.all import IP, IPv6, TCP, Raw, send, conf
	conf.verb = 0
	n, h4, h6 = int(sys.argv[1]), sys.argv[2], sys.argv[3]
	ts = lambda ecr: [("NOP", None), ("NOP", None),
	                  ("Timestamp", (random.getrandbits(32) | 1, ecr))]
	def probes(l3, base, flags, opts=None, **kw):
	    for i in range(n):
	        t = TCP(sport=base + i, dport=2000 + i, flags=flags,
	                seq=random.getrandbits(32), ack=random.getrandbits(32),
	                window=1024, options=opts or [], **kw)
	        send(l3 / t)
	def cut(l3, base):
	    # Timestamp option announced by doff (40 bytes) but the segment
	    # ends after 32: no option is inside the segment.
	    for i in range(n):
	        t = TCP(sport=base + i, dport=2000 + i, flags="A",
	                seq=random.getrandbits(32), ack=random.getrandbits(32),
	                window=1024, options=ts(12345), dataofs=10)
	        pkt = IP(bytes(l3 / t))
	        send(pkt)
	nop = [("NOP", None)]
	for l3, six in ((IP(dst=h4), ""), (IPv6(dst=h6), "6")):
	    probes(l3, 43000, "A", nop)
	    if not six:
	        probes(l3, 44000, "A", nop)
	    probes(l3, 45000, "FA", nop)
	    if not six:
	        probes(l3, 46000, "A", ts(0))
	        cut(l3, 47000)
	        probes(l3, 48000, "SA", ts(12345))
	        probes(l3, 50000, "A")
	    probes(l3, 49000, "A", ts(12345))
EOF

while read -r name fam port cnt fwd; do
	[ -n "$name" ] || continue
	ipt=iptables-legacy
	[ "$fam" = 4 ] || ipt=ip6tables-legacy
	for n in router host; do
		busywait 20 arrived $n "$fam" "a_$name" "$cnt" || true
	done
	read -r fa fs <<< "$(ipt_pkts router $ipt "a_$name" "s_$name")"
	read -r ia is <<< "$(ipt_pkts host $ipt "a_$name" "s_$name")"
	want=$fa
	[ "$fwd" = all ] || want=0
	if [ "$fa" -ge "$cnt" ] && [ "$fs" = "$want" ]; then
		pass "$name v$fam FORWARD: $fs of $fa stealth"
	else
		fail "$name v$fam FORWARD (expected $fwd of $cnt stealth, got $fs of $fa)"
	fi
	if [ "$ia" -ge "$cnt" ] && [ "$is" = "$ia" ]; then
		pass "$name v$fam INPUT: $is of $ia stealth"
	else
		fail "$name v$fam INPUT (expected $cnt of $cnt stealth, got $is of $ia)"
	fi
done <<< "$SHAPES"

finish
