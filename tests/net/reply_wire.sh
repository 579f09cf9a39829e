#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# The reply core on the wire, IPv4 and IPv6:
# - TARPIT's SYN/ACK and its answer to a keepalive (the window scaled as
#   the SYN/ACK offered): --stall's as a real listener's, --tarpit's too
#   but for its zero window;
# - DELUDE's SYN/ACK and RST, captured with tcpdump -vv where host sends
#   them and where client receives them, with host's tx checksum offload
#   on and off: checksums correct, TTL/hop limit 64, the SYN/ACK's window
#   and options (timestamp values aside) those of a real listener on the
#   host for the same client, no reply larger than the client's SYN;
# - DELUDE --banner's SYN/ACK and greeting field by field against a real
#   listener's (helpers/seg_fields.py), in INPUT and FORWARD, to plain and
#   ECN SYNs;
# - no reply (host's OUTPUT counter unchanged while the DELUDE rule counts
#   the packet) to RST, RST/ACK, broadcast, multicast, our own source
#   address, data offset < 5, data offset past the packet, a truncated TCP
#   header, a bad checksum (rx offload off, so the kernel verifies it) and
#   a non-first fragment (v4: in FORWARD, as INPUT only sees reassembled
#   packets). Crafted with scapy from router; each is followed by a valid
#   SYN whose answer shows the packets were processed.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 tcpdump iptables-legacy
require_py scapy

setup_topology

# capture NS FILE FILTER: tcpdump -vv for 2 packets, once it captures
capture() {
	tcpdump_start "$1" "$2" 60 -l -nn -vv -i eth0 -c 2 "$3"
}

# seg_shape FLAGS FILE: window and options of the first segment with
# tcpdump FLAGS (S. or .), timestamps' values aside, as tcpdump -vv
# prints them
seg_shape() {
	sed -n "s/.*Flags \\[$1\\].* \\(win [0-9]*\\(, options \\[[^]]*\\]\\)*\\).*/\\1/p" "$2" |
		sed 's/TS val [0-9]* ecr [0-9]*/TS/' | head -n 1
}
synack_shape() { seg_shape 'S\.' "$1"; }
ack_shape() { seg_shape '\.' "$1"; }

# check_capture WHAT FILE TTLPAT SHAPE MAXLEN
check_capture() {
	local what=$1 file=$2 ttl=$3 shape=$4 maxlen=$5 n len
	n=$(grep -o '(correct)' "$file" | wc -l)
	if [ "$n" = 2 ] && ! grep -qE 'incorrect|bad cksum' "$file"; then
		pass "$what: SYN/ACK and RST checksums correct"
	else
		fail "$what: checksums (expected 2 correct, got: $(tr '\n' ' ' < "$file"))"
	fi
	if [ "$(grep -cE "$ttl" "$file")" = 2 ]; then
		pass "$what: ${ttl%% *} ${ttl##* }"
	else
		fail "$what: ${ttl%% *} (expected '$ttl' twice, got: $(tr '\n' ' ' < "$file"))"
	fi
	if [ -n "$shape" ] && [ "$(synack_shape "$file")" = "$shape" ] &&
	   grep -q 'Flags \[R\]' "$file"; then
		pass "$what: SYN/ACK as a real listener's ($shape), then a RST"
	else
		fail "$what: segments (expected SYN/ACK '$shape' and RST, got: $(tr '\n' ' ' < "$file"))"
	fi
	len=$(grep -oE '(length|payload length:) [0-9]+' "$file" |
		awk '$NF > max { max = $NF } END { print max + 0 }')
	if [ "$len" -le "$maxlen" ]; then
		pass "$what: replies at most $len bytes"
	else
		fail "$what: reply size (expected <= $maxlen, got $len)"
	fi
}

# TTL/hop limit 33: control SYNs of the crafted cases (no tcp match: it
# would drop truncated headers and 8-byte-offset fragments itself);
# everything else from eth0 counts as a case.
for v in 4 6; do
	ipt=iptables-legacy ttl="-m ttl --ttl-eq 33"
	[ $v = 6 ] && ipt=ip6tables-legacy ttl="-m hl --hl-eq 33"
	# shellcheck disable=SC2086
	ns host $ipt -A INPUT -i eth0 -p tcp $ttl \
		-m comment --comment ctl$v -j DELUDE
	# The RSTs router and scanner send for the answered controls.
	ns router $ipt -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
	ns scanner $ipt -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
	ns host $ipt -A INPUT -i eth0 -p tcp -m comment --comment case$v \
		-j DELUDE
	ns host $ipt -A OUTPUT -p tcp -m comment --comment out$v
done

tmp=$(mktemp -d)
# The reference: the SYN/ACK of a real listener on host to the same client,
# and its answer to the client's first keepalive.
declare -A shape ack
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -I INPUT -p tcp --dport 8001 -j ACCEPT
done
start_tcp_server host 8001
for v in 4 6; do
	target=$HOST4
	[ $v = 6 ] && target=$HOST6
	capture client "$tmp/l$v" "ip$([ $v = 6 ] && echo 6) and tcp src port 8001"
	CLIENT_SECS=60 tcp_client client idle "$target" 8001 3 >/dev/null
	tcpdump_wait
	shape[$v]=$(synack_shape "$tmp/l$v")
	ack[$v]=$(ack_shape "$tmp/l$v")
	echo "# v$v real listener's SYN/ACK: ${shape[$v]}; keepalive ACK: ${ack[$v]}"
done
# The tcp match would drop the truncated headers crafted below.
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -D INPUT -p tcp --dport 8001 -j ACCEPT
done

# Field by field (tests/net/helpers/seg_fields.py): what client receives
# of a real listener on host (a greeting first) against DELUDE --banner's,
# in host's INPUT and in router's FORWARD: the SYN/ACK and the first later
# segment, IPv4 and IPv6, to a plain SYN and to an ECN SYN (client's
# tcp_ecn 1), and to an ECN SYN when host's tcp_ecn refuses ECN (0; v4,
# INPUT). Every difference fails; the manual names what the test cannot
# see (the ISN's time, the IP ID's count).
start_tcp_server host 8010 "SSH-2.0-OpenSSH_9.2p1"
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -I INPUT -p tcp --dport 8010 -j ACCEPT
	ns host $ipt -I INPUT -p tcp --dport 21 -j DELUDE --banner
	ns router $ipt -I FORWARD -p tcp --dport 25 -j DELUDE --banner
done
tcpdump_start client "$tmp/f" 600 --immediate-mode -U -w "$tmp/f.pcap" \
	-i eth0 "tcp port 8010 or tcp port 21 or tcp port 25"
cases=()
for case in "4 1 2" "6 1 2" "4 0 2" "6 0 2" "4 1 0"; do
	read -r v cecn hecn <<< "$case"
	target=$HOST4
	[ "$v" = 6 ] && target=$HOST6
	ns client sysctl -qw net.ipv4.tcp_ecn="$cecn"
	ns host sysctl -qw net.ipv4.tcp_ecn="$hecn"
	what="v$v client tcp_ecn $cecn, host's $hecn"
	for port in 8010 21 25; do
		[ "$hecn" = 0 ] && [ $port = 25 ] && continue
		tcp_client client outcome "$target" $port >/dev/null
		cases+=("$what, $port")
	done
done
ns client sysctl -qw net.ipv4.tcp_ecn=2
ns host sysctl -qw net.ipv4.tcp_ecn=2
# Every SYN/ACK and later segment captured: two from each server.
seg_seen() {
	[ "$(tcpdump -r "$tmp/f.pcap" -nn "tcp src port 8010 or tcp src port 21 \
		or tcp src port 25" 2>/dev/null | wc -l)" -ge $((${#cases[@]} * 2)) ]
}
busywait 20 seg_seen || true
tcpdump_stop
ns client /usr/bin/python3 "$(dirname "$0")/helpers/seg_fields.py" \
	"$tmp/f.pcap" > "$tmp/fields"
# conn N: the fields of connection N
conn() { awk -v n="$1" '$1 == n { print $2, $3 }' "$tmp/fields"; }
for i in "${!cases[@]}"; do
	what=${cases[$i]}
	case $what in
	*8010) real=$(conn $((i + 1))); continue ;;
	*21) what="${what%, 21}, DELUDE in INPUT" ;;
	*25) what="${what%, 25}, DELUDE in FORWARD" ;;
	esac
	got=$(conn $((i + 1)))
	diffs=$(LC_ALL=C join -a 1 -a 2 -e - -o 0,1.2,2.2 <(echo "$real") \
		<(echo "$got") | awk '$2 != $3')
	if [ "$(wc -l <<< "$real")" -ge 10 ] && [ -z "$diffs" ]; then
		pass "$what: SYN/ACK and later segment as a real listener's"
	else
		fail "$what: fields (real, DELUDE): $(tr '\n' ';' <<< "$diffs")"
	fi
done
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -D INPUT -p tcp --dport 8010 -j ACCEPT
	ns host $ipt -D INPUT -p tcp --dport 21 -j DELUDE --banner
	ns router $ipt -D FORWARD -p tcp --dport 25 -j DELUDE --banner
done

# TARPIT's SYN/ACK: the real listener's in --stall mode, but for a zero
# window in --tarpit mode.
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -I INPUT -p tcp --dport 8002 -j TARPIT --stall
	ns host $ipt -I INPUT -p tcp --dport 8003 -j TARPIT
done
for v in 4 6; do
	target=$HOST4
	[ $v = 6 ] && target=$HOST6
	for mode in stall tarpit; do
		port=8002 want=${shape[$v]} wack=${ack[$v]}
		if [ $mode = tarpit ]; then
			port=8003
			want=$(sed 's/^win [0-9]*/win 0/' <<< "$want")
			wack=$(sed 's/^win [0-9]*/win 0/' <<< "$wack")
		fi
		capture client "$tmp/t$v" "ip$([ $v = 6 ] && echo 6) and tcp src port $port"
		CLIENT_SECS=60 tcp_client client idle "$target" $port 3 >/dev/null
		tcpdump_wait
		got=$(synack_shape "$tmp/t$v")
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			pass "v$v TARPIT --$mode: SYN/ACK $got"
		else
			fail "v$v TARPIT --$mode: SYN/ACK (expected '$want', got '$got')"
		fi
		got=$(ack_shape "$tmp/t$v")
		if [ -n "$wack" ] && [ "$got" = "$wack" ]; then
			pass "v$v TARPIT --$mode: keepalive answered, $got"
		else
			fail "v$v TARPIT --$mode: keepalive answer (expected '$wack', got '$got')"
		fi
	done
done
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -D INPUT -p tcp --dport 8002 -j TARPIT --stall
	ns host $ipt -D INPUT -p tcp --dport 8003 -j TARPIT
done
for tx in on off; do
	got=$(offload host eth0 tx $tx)
	want=0
	[ $tx = on ] && want=1
	[ "$got" = $want ] || fail "host eth0 tx checksumming $tx (got state $got)"
	for v in 4 6; do
		# max: the client's SYN (40 option bytes)
		target=$HOST4 ttl="ttl 64" cttl="ttl 63" max=60
		[ $v = 6 ] && target=$HOST6 ttl="hlim 64" cttl="hlim 63" max=40
		capture host "$tmp/h$v" "ip$([ $v = 6 ] && echo 6) and tcp src port 8000"
		capture client "$tmp/c$v" "ip$([ $v = 6 ] && echo 6) and tcp src port 8000"
		got=$(CLIENT_SECS=60 tcp_client client outcome "$target" 8000)
		[ "$got" = reset ] ||
			fail "v$v tx $tx: client outcome (expected reset, got $got)"
		tcpdump_wait
		check_capture "v$v tx-offload $tx, sent by host" "$tmp/h$v" \
			"$ttl" "${shape[$v]}" $max
		check_capture "v$v tx-offload $tx, received by client" \
			"$tmp/c$v" "$cttl" "${shape[$v]}" $max
	done
done

# Crafted packets: host verifies checksums itself, accepts its own
# address as a source (else routing drops it before INPUT).
[ "$(offload host eth0 rx off)" = 0 ] ||
	fail "host eth0 rx checksumming off"
ns host sysctl -qw net.ipv4.conf.all.accept_local=1 \
	net.ipv4.conf.eth0.accept_local=1 net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.eth0.rp_filter=0
ns router iptables-legacy -A FORWARD -p tcp -d "$HOST4" -m ttl --ttl-eq 32 \
	-m comment --comment ctl4 -j DELUDE
ns router iptables-legacy -A FORWARD -p tcp -d "$HOST4" \
	-m comment --comment case4 -j DELUDE
ns router iptables-legacy -A OUTPUT -p tcp -m comment --comment out4

hostmac=$(ns host cat /sys/class/net/eth0/address)
cat > "$tmp/crafted.py" <<'EOF'
import subprocess, sys, time
from scapy.all import Ether, IP, IPv6, IPv6ExtHdrFragment, TCP, Raw, sendp, conf
from pktlib import rule_counts
conf.verb = 0
hostmac = sys.argv[1]
H4, H6, R4, R6, S4 = "10.0.3.2", "fd00:3::2", "10.0.3.1", "fd00:3::1", "10.0.1.2"

# Run in scanner: send a SYN to H4 at fragment offset argv[1] (8-byte
# units), then a complete SYN with TTL 33 (32 in router's FORWARD) as the
# control; raw socket, no scapy.
SCANNER_SEND = """
import socket, struct, sys
from pktlib import csum
src, dst = socket.inet_aton(sys.argv[2]), socket.inet_aton(sys.argv[3])
raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
for frag, ttl in ((int(sys.argv[1]), 64), (0x4000, 33)):
    tcp = struct.pack("!HHIIBBHHH", 40000, 8000, 1000, 0, 5 << 4, 2, 64240, 0, 0)
    tcp = tcp[:16] + struct.pack("!H", csum(src + dst + struct.pack("!BBH", 0, 6, 20) + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 0x1234, frag, ttl, 6, 0, src, dst)
    raw.sendto(ip + tcp, (sys.argv[3], 0))
"""


def expect_silence(names, send, ns, ipt, v):
    """send() the cases @names (rule "caseV") and then a valid SYN (rule
    "ctlV"): only the SYN may be answered (OUTPUT rule "outV")."""
    case, ctl, out = "case%d" % v, "ctl%d" % v, "out%d" % v
    c0 = rule_counts(ns, ipt)
    start = time.monotonic()
    send()
    while True:
        c = rule_counts(ns, ipt)
        if (c[case] - c0[case] >= len(names) and c[ctl] > c0[ctl] and
                c[out] > c0[out]) or time.monotonic() - start > 30:
            break
        time.sleep(0.2)
    if c[case] - c0[case] < len(names) or c[ctl] == c0[ctl]:
        err = "not all processed (DELUDE rule counted %d of %d, control %d)" \
            % (c[case] - c0[case], len(names), c[ctl] - c0[ctl])
    elif c[out] != c0[out] + 1:
        err = "replies (expected 1, to the control SYN; got %d)" \
            % (c[out] - c0[out])
    else:
        err = None
    for name in names:
        print("FAIL v%d %s: %s" % (v, name, err) if err else
              "OK v%d %s" % (v, name))


for v, src, dst in ((4, R4, H4), (6, R6, H6)):
    def ip(s=src, d=dst, **kw):
        return IP(src=s, dst=d, **kw) if v == 4 else IPv6(src=s, dst=d, **kw)

    def tcp(**kw):
        return TCP(sport=40000, dport=8000, **kw)

    # (name, packet, MAC destination), all sent in one burst.
    cases = [
        ("RST", ip() / tcp(flags="R", seq=1), hostmac),
        ("RST/ACK", ip() / tcp(flags="RA", seq=1, ack=5), hostmac),
        ("own source address", ip(s=dst) / tcp(flags="S"), hostmac),
        ("data offset 4", ip() / tcp(flags="S", dataofs=4), hostmac),
        ("data offset 15 past the packet",
         ip() / tcp(flags="S", dataofs=15), hostmac),
        ("truncated TCP header",
         ip(**({"proto": 6} if v == 4 else {"nh": 6})) /
         Raw(bytes(tcp(flags="S"))[:12]), hostmac),
        ("bad checksum", ip() / tcp(flags="S", chksum=0x1234), hostmac),
    ]
    if v == 4:
        cases += [
            ("subnet broadcast", ip(d="10.0.3.255") / tcp(flags="S"),
             "ff:ff:ff:ff:ff:ff"),
            ("limited broadcast", ip(d="255.255.255.255") / tcp(flags="S"),
             "ff:ff:ff:ff:ff:ff"),
            ("multicast", ip(d="224.0.0.1") / tcp(flags="S"),
             "01:00:5e:00:00:01"),
        ]
    else:
        cases += [
            ("multicast", ip(d="ff02::1") / tcp(flags="S"),
             "33:33:00:00:00:01"),
            ("non-first fragment", ip() / IPv6ExtHdrFragment(nh=6, offset=1) /
             Raw(bytes(tcp(flags="S"))), hostmac),
        ]
    control = Ether(dst=hostmac) / ip(**({"ttl": 33} if v == 4 else
                                        {"hlim": 33})) / tcp(flags="S")
    expect_silence([n for n, _, _ in cases],
                   lambda: sendp([Ether(dst=m) / p for _, p, m in cases] +
                                 [control], iface="r-host"),
                   "host", "iptables-legacy" if v == 4 else
                   "ip6tables-legacy", v)

# INPUT sees only reassembled IPv4: test a later fragment in FORWARD.
expect_silence(["non-first fragment (FORWARD)"],
               lambda: subprocess.run(
                   ["ip", "netns", "exec", "scanner", "/usr/bin/python3",
                    "-c", SCANNER_SEND, "2", S4, H4], check=True),
               "router", "iptables-legacy", 4)
print("DONE")
EOF
# pktlib (PYTHONPATH, lib.sh) for crafted.py and the code it runs in
# scanner.
results=$(ns router timeout 400 /usr/bin/python3 -u "$tmp/crafted.py" "$hostmac" \
	2> "$tmp/crafted.err") || true
grep -q '^DONE$' <<< "$results" ||
	fail "crafted packets: script did not finish ($(tail -3 "$tmp/crafted.err" | tr '\n' ' '))"
while read -r verdict name; do
	case $verdict in
	OK) pass "no reply to $name" ;;
	FAIL) fail "no reply to $name" ;;
	esac
done <<< "$results"

rm -rf "$tmp"
finish
