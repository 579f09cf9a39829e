#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# --stealth is not escaped by TCP options (issue 21, item 2) nor by
# payload (issue 34). Probes from the scanner to closed ports of the host,
# each shape from its own source ports, pass a --stealth rule in router
# FORWARD, one in host INPUT and one in host mangle PREROUTING
# (iptables-legacy, ip6tables-legacy); a plain counting rule after each
# tells when every probe has gone through. Neither side knows the probes'
# flows. Expected: at the host (INPUT, and PREROUTING, the destination
# being local) no local socket owns a probe, so every probe is stealth,
# with options or data. In FORWARD, where no socket can be asked, a
# probe with data, or with a well-formed timestamp option with a non-zero
# echo on an ACK or FIN|ACK, is what a live flow's segment looks like and
# is not (the manual says so); portscan_live.sh checks that such segments
# of real sessions still pass.
#
#  scanner 10.0.1.2 --- router: FORWARD --stealth per shape --- host 10.0.3.2:
#  fd00:1::2                                 PREROUTING, INPUT --stealth per
#                                            shape, nothing listens
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap hping3
require_py scapy

N=10	# probes per crafted shape

# Shapes: name, family, first source port, probes, stealth in FORWARD
# (all or none; at the host: all).
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
ack_data_nmap	4 51000 $N none
window_data_nmap 4 52000 $N none
maimon_data_nmap 4 53000 $N none
ack_data_hping	4 54000 $N none
ack_data_nmap6	6 51000 $N none
maimon_data_nmap6 6 53000 $N none
"

# rules NS TABLE CHAIN: per shape a --stealth rule tagged TABLE_s_NAME
# and a counting rule tagged TABLE_a_NAME, for the shape's source ports;
# one restore per family (a process per rule is slow under TCG).
rules() {
	local n=$1 table=$2 chain=$3 v name fam port cnt fwd
	for v in 4 6; do
		while read -r name fam port cnt fwd; do
			[ "$fam" = $v ] || continue
			echo "-A $chain -p tcp --sport $port:$((port + 99)) -m portscan --stealth -m comment --comment ${table}_s_$name"
			echo "-A $chain -p tcp --sport $port:$((port + 99)) -m comment --comment ${table}_a_$name"
		done <<< "$SHAPES" | {
			echo "*$table"
			cat
			echo COMMIT
		} | if [ $v = 4 ]; then
			ns "$n" iptables-legacy-restore --noflush
		else
			ns "$n" ip6tables-legacy-restore --noflush
		fi
	done
}

# counts: every shape's counters in router's filter and host's filter and
# mangle tables, into count[NS,FAM,TAG] (TAG: TABLE_a_NAME or
# TABLE_s_NAME), from one ipt_pkts (one save) per namespace and family.
declare -A count
counts() {
	local n fam ipt tables t name f port cnt fwd i
	local -a tags vals
	for n in router host; do
		tables=filter
		[ $n = router ] || tables="filter mangle"
		for fam in 4 6; do
			ipt=iptables-legacy
			[ $fam = 4 ] || ipt=ip6tables-legacy
			tags=()
			while read -r name f port cnt fwd; do
				[ "$f" = $fam ] || continue
				for t in $tables; do
					tags+=("${t}_a_$name" "${t}_s_$name")
				done
			done <<< "$SHAPES"
			read -r -a vals <<< "$(ipt_pkts "$n" $ipt "${tags[@]}")"
			for i in "${!tags[@]}"; do
				count[$n,$fam,${tags[i]}]=${vals[i]}
			done
		done
	done
}

# arrived: every shape's counting rules, in FORWARD, INPUT and
# PREROUTING, have seen the shape's probes.
arrived() {
	local name fam port cnt fwd t
	counts
	while read -r name fam port cnt fwd; do
		[ -n "$name" ] || continue
		for t in router,filter host,filter host,mangle; do
			[ "${count[${t%,*},$fam,${t#*,}_a_$name]:-0}" -ge "$cnt" ] 2>/dev/null ||
				return 1
		done
	done <<< "$SHAPES"
}

setup_topology
rules router filter FORWARD
rules host filter INPUT
rules host mangle PREROUTING

# nmap adds MSS to every probe with SYN set; hping3's timestamps echo 0.
scan 120 -T4 --max-retries 0 -g 40000 --scanflags SYNACK -p 2000-2019 "$HOST4"
ns scanner timeout 60 hping3 -q -A --tcp-timestamp -s 41000 -p 2000 \
	-c $N -i u20000 "$HOST4" >/dev/null 2>&1 || true
ns scanner timeout 60 hping3 -q -A -F --tcp-timestamp -s 42000 -p 2000 \
	-c $N -i u20000 "$HOST4" >/dev/null 2>&1 || true
# nmap's ACK, Window and Maimon probes with a byte of data, hping3's ACK
# with ten.
for v in 4 6; do
	target=$HOST4
	[ $v = 4 ] || target=$HOST6
	for t in A:51000 W:52000 M:53000; do
		[ $v = 4 ] || [ "${t%:*}" != W ] || continue
		scan 120 "-$v" "-s${t%:*}" -T4 --max-retries 0 --data-length 1 \
			-g "${t#*:}" -p 2000-2009 "$target"
	done
done
ns scanner timeout 60 hping3 -q -A -d 10 -s 54000 -p 2000 \
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

# host_check FAM NAME TABLE CHAIN: at the host every probe is stealth.
host_check() {
	local a=${count[host,$1,$3_a_$2]:-missing} st=${count[host,$1,$3_s_$2]:-missing}
	if [ "$a" -ge "$cnt" ] 2>/dev/null && [ "$st" = "$a" ]; then
		pass "$2 v$1 $4: $st of $a stealth"
	else
		fail "$2 v$1 $4 (expected $cnt of $cnt stealth, got $st of $a)"
	fi
}

busywait 20 arrived || true
while read -r name fam port cnt fwd; do
	[ -n "$name" ] || continue
	fa=${count[router,$fam,filter_a_$name]:-missing}
	fs=${count[router,$fam,filter_s_$name]:-missing}
	want=$fa
	[ "$fwd" = all ] || want=0
	if [ "$fa" -ge "$cnt" ] 2>/dev/null && [ "$fs" = "$want" ]; then
		pass "$name v$fam FORWARD: $fs of $fa stealth"
	else
		fail "$name v$fam FORWARD (expected $fwd of $cnt stealth, got $fs of $fa)"
	fi
	host_check "$fam" "$name" mangle PREROUTING
	host_check "$fam" "$name" filter INPUT
done <<< "$SHAPES"

finish
