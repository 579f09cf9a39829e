#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DELUDE --banner and CHAOS --delude --banner pass nmap -sV's second look.
# On host (INPUT, iptables-legacy, conntrack on), IPv4 and IPv6:
# - a real client that connects and reads gets a greeting (SSH on 22), an
#   HTTP response to its request (80), a TLS alert to a ClientHello (443),
#   the same bytes on a second connect; plain DELUDE still resets it;
# - crafted ACKs (scapy): a wrong sequence number or a guessed ACK gets a
#   RST and no data, the ACK with our cookie gets the greeting;
# - the conntrack table does not grow;
# - nmap -sV --version-intensity 0 on 10 deluded ports, v4 and v6: with
#   --banner no port is tcpwrapped and at least 8 are named services;
#   without, every port is tcpwrapped (the old behaviour);
# - CHAOS --delude --delude-prob 1 --banner greets a client as DELUDE does.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap python3 iptables-legacy ip6tables-legacy conntrack
require_py scapy

# Well-known ports of each kind of greeting, and two unknown ones.
BANNER_PORTS=21,22,25,80,110,143,443,8080,12345,40000
PLAIN_PORTS=7000:7009
chaos_port=30000
CLIENT_HELLO='\x16\x03\x01\x00\x2f\x01\x00\x00\x2b\x03\x03'

setup_topology
for ipt in iptables-legacy ip6tables-legacy; do
	ns host $ipt -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
	ns host $ipt -A INPUT -p tcp -m multiport --dports "$BANNER_PORTS" \
		-j DELUDE --banner ||
		fail "$ipt -j DELUDE --banner (expected the rule, got a refusal)"
	ns host $ipt -A INPUT -p tcp --dport "$PLAIN_PORTS" -j DELUDE
	ns host $ipt -A INPUT -p tcp --dport "$chaos_port" -j CHAOS --delude \
		--delude-prob 1 --banner ||
		fail "$ipt -j CHAOS --delude --banner (expected the rule, got a refusal)"
done
ct_before=$(ns host conntrack -C)

# grab "HOST PORT [SEND]"...: from client, one connection each: connect,
# send SEND (escapes allowed), read until the end; one line each: the
# bytes (escaped) and how it ended. One python for all: it starts slowly.
grab() {
	ns client timeout 120 python3 -c '
import socket, sys
for spec in sys.argv[1:]:
    host, port, send = (spec.split(" ", 2) + [""])[:3]
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(10)
    data, end = b"", "eof"
    try:
        s.connect((host, int(port)))
        if send:
            s.sendall(send.encode("latin1").decode("unicode_escape")
                      .encode("latin1"))
        while True:
            b = s.recv(4096)
            if not b:
                break
            data += b
    except (ConnectionResetError, BrokenPipeError):
        end = "reset"
    except socket.timeout:
        end = "timeout"
    s.close()
    print(data.decode("latin1").encode("unicode_escape").decode() + "|" + end,
          flush=True)
' "$@" 2>&1 || true
}

specs=()
for host in "$HOST4" "$HOST6"; do
	specs+=("$host 22" "$host 22" "$host 80 GET / HTTP/1.0\r\n\r\n"
		"$host 443 $CLIENT_HELLO" "$host 7003 hello\n"
		"$host $chaos_port")
done
mapfile -t got < <(grab "${specs[@]}")
for v in 4 6; do
	off=0
	[ $v = 4 ] || off=6
	set -- "${got[@]:$off:6}"
	# The patterns are globs: \\ is one backslash of the escaped bytes.
	expect "v$v port 22 greets a client" 'SSH-2.0-*\\r\\n|eof' "$1"
	if [ "$2" = "$1" ]; then
		pass "v$v port 22 greets the same on a second connect"
	else
		fail "v$v port 22 on a second connect (expected $1, got $2)"
	fi
	expect "v$v port 80 answers GET" \
		'HTTP/1.1 404 Not Found\\r\\nServer: *\\r\\n\\r\\n|eof' "$3"
	expect "v$v port 443 alerts a ClientHello" \
		'\\x15\\x03\\x03\\x00\\x02\\x02(|eof' "$4"
	expect "v$v plain DELUDE resets a client" '|reset' "$5"
	expect "v$v CHAOS --delude --banner greets a client" '?*\\r\\n|eof' "$6"
done

# Crafted from scanner, per family: the replies to an ACK with the right
# cookie but a sequence number 1 MiB off (port 22 from sport A), a guessed
# ACK (from A + 1), then the right ACK (from A): "A|B" "R" ":" data bytes
# "F" each. Both families in one python: scapy loads slowly.
crafted() {
	ns scanner timeout 120 python3 - "$@" <<-'EOF' 2>&1 || true
	import random, sys, threading, time
	from scapy.all import IP, IPv6, TCP, AsyncSniffer, send, sr1, conf
	conf.verb = 0
	M32 = 0xffffffff
	for dst in sys.argv[1:]:
	    l3 = IPv6(dst=dst) if ":" in dst else IP(dst=dst)
	    a, isn = random.randint(20000, 60000), random.getrandbits(32)
	    nxt = (isn + 1) & M32
	    sa = sr1(l3 / TCP(sport=a, dport=22, flags="S", seq=isn), timeout=10)
	    if sa is None or not sa.haslayer(TCP):
	        print("no SYN/ACK", flush=True)
	        continue
	    # Sequence arithmetic is mod 2^32: scapy refuses a wider field.
	    ack = (sa[TCP].seq + 1) & M32
	    # Capturing before the first probe leaves, each answer awaited:
	    # polled, not slept (a loaded TCG guest is slow).
	    ready, seen = threading.Event(), threading.Semaphore(0)
	    sn = AsyncSniffer(iface="eth0", filter="tcp src port 22",
	                      started_callback=ready.set,
	                      prn=lambda p: seen.release())
	    sn.start()
	    ready.wait(30)
	    send(l3 / TCP(sport=a, dport=22, flags="A",
	                  seq=(nxt + (1 << 20)) & M32, ack=ack))
	    send(l3 / TCP(sport=a + 1, dport=22, flags="A",
	                  seq=random.getrandbits(32), ack=random.getrandbits(32)))
	    for _ in range(2):
	        seen.acquire(timeout=10)
	    send(l3 / TCP(sport=a, dport=22, flags="A", seq=nxt, ack=ack))
	    seen.acquire(timeout=10)
	    # Time for an answer too many to show.
	    time.sleep(0.5)
	    print(" ".join("%s%s:%d%s" % ("A" if p[TCP].dport == a else "B",
	                                  "R" if p[TCP].flags.R else "",
	                                  len(p[TCP].payload),
	                                  "F" if p[TCP].flags.F else "")
	                   for p in sn.stop()), flush=True)
	EOF
}
mapfile -t got < <(crafted "$HOST4" "$HOST6")
# Off -> RST; guessed -> RST; right -> data and FIN.
expect "v4 crafted ACKs: only the cookie gets data" 'AR:0 BR:0 A:[1-9]*F' \
	"${got[0]:-}"
expect "v6 crafted ACKs: only the cookie gets data" 'AR:0 BR:0 A:[1-9]*F' \
	"${got[1]:-}"

expect "conntrack entries after all the connections" "$ct_before" \
	"$(ns host conntrack -C)"

# sv V HOST PORTS: nmap -sV's verdicts as "N tcpwrapped, N named of N"
sv() {
	local flag=
	[ "$1" = 6 ] && flag=-6
	scan 150 $flag -sV --version-intensity 0 -p "$3" "$2"
	open_services | awk -F '\t' '
		{
			n++
			if ($2 == "tcpwrapped") w++
			else if ($2 != "" && $2 !~ /\?$/ && $2 != "unknown") named++
			print "#", $1, $2, $3 > "/dev/stderr"
		}
		END { printf "%d tcpwrapped, %d named of %d\n", w, named, n }'
	echo "# nmap -sV took ${SCAN_TIME}s" >&2
}
# check_sv WHAT VERDICT: no port tcpwrapped, at least 8 of 10 named.
check_sv() {
	local w named n
	read -r w _ named _ _ n <<< "$2"
	if [ "$w" = 0 ] && [ "$n" = 10 ] && [ "$named" -ge 8 ]; then
		pass "$1: $2"
	else
		fail "$1 (expected 0 tcpwrapped, >= 8 named of 10, got $2)"
	fi
}
check_sv "v4 -sV, --banner" "$(sv 4 "$HOST4" "$BANNER_PORTS")"
check_sv "v6 -sV, --banner" "$(sv 6 "$HOST6" "$BANNER_PORTS")"
expect "v4 -sV, plain DELUDE" '10 tcpwrapped, 0 named of 10' \
	"$(sv 4 "$HOST4" 7000-7009)"

expect "conntrack entries after the scans" "$ct_before" "$(ns host conntrack -C)"
finish
