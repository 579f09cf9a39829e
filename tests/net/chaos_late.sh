#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS answers late, retries only, one answer at a time and a port once:
# probes in nmap's manner from scanner (scapy, source port base + 2 * try),
# each answer timed where it arrives, IPv4 and IPv6, TCP (RST) and UDP
# (ICMP port unreachable):
#   port A, try 0: no answer; try 1: answered 0.1 to 0.2 s late (the
#     first rung), never at once;
#   port A, try 2: no answer (an answered port's probes are timing pings);
#   ports B, C, try 0: no answer;
#   port B, try 1: answered 0.1 to 0.2 s late (as far as the rung: an
#     answer may have been lost);
#   port C, try 1, with it: no answer (before B's answer was heard);
#   port C, try 2: answered 1.3 to 1.5 s late (beyond the rung).
# Then, IPv4 TCP, the source two rungs up: port D's retry answered 1.3 to
# 1.5 s late (an other answer); 2 s after it port E's retry, and the last
# rule deleted and the modules unloaded at once while E's answer waits:
# nothing comes (the queue goes with the netns's last rule of ours).
#
#   scanner 10.0.1.2 fd00:1::2 --- router --- host 10.0.3.2 fd00:3::2
#                                             INPUT: CHAOS
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap 'rc=$?; load_ours; (exit $rc); cleanup' EXIT

require python3
require_py scapy
[ -r "$OUR_MODDIR/xt_CHAOS.ko" ] || { skip "no modules in $OUR_MODDIR"; finish; }
setup_topology

# Each answer counts, not the kernel's ICMP rate limit.
ns host sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
ns host $IP6T -A INPUT -p ipv6-icmp -j ACCEPT
RULE=(INPUT -j CHAOS --reject-prob 1 --rate 1000/sec --burst 1000)
ns host $IPT -A "${RULE[@]}"
ns host $IP6T -A "${RULE[@]}"

# probes FAMILY PROTO DST BASE: the sequence above, at set times, from
# source ports BASE + 2 * try; one line per probe: "PORT TRY DELAY",
# DELAY "-" for no answer within 4 s of the last probe.
probes() {
	ns scanner python3 - "$@" <<'PY'
import sys, time
from scapy.all import (IP, IPv6, TCP, UDP, ICMP, IPerror, IPerror6,
                       UDPerror, ICMPv6DestUnreach, AsyncSniffer, send, conf)
fam, proto, dst, base = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
conf.verb = 0
l3 = IP if fam == "4" else IPv6
# (port, try, when): A's answer leaves by 0.5 s (1.5 s on a busy host);
# A's try 2 and B's try 1
# come after the scanner heard it, C's try 1 with B's.
# Probes at the same time go out back to back.
plan = ((2001, 0, 0.0), (2001, 1, 0.3), (2001, 2, 1.4), (2002, 0, 1.9),
        (2003, 0, 2.0), (2002, 1, 2.4), (2003, 1, 2.4), (2003, 2, 4.0))
def answered_sport(p):
    if p.haslayer(TCP) and p[TCP].flags.R:
        return p[TCP].dport
    if p.haslayer(UDPerror):
        return p[UDPerror].sport
    return None
sn = AsyncSniffer(lfilter=lambda p: answered_sport(p) is not None)
sn.start()
time.sleep(0.5)
sent = {}
start = time.time()
for when in sorted(set(w for _, _, w in plan)):
    time.sleep(max(0, start + when - time.time()))
    pkts = []
    for port, tryno, _ in (p for p in plan if p[2] == when):
        sport = base + 2 * tryno
        pkts.append(l3(dst=dst) / (
            TCP(sport=sport, dport=port, flags="S", seq=1000)
            if proto == "tcp" else UDP(sport=sport, dport=port) / b"x"))
        sent[sport, port] = time.time()
    send(pkts)
time.sleep(4)
sn.stop()
late = {}
for p in sn.results:
    sport = answered_sport(p)
    port = p[TCP].sport if p.haslayer(TCP) else p[UDPerror].dport
    if (sport, port) in sent and (sport, port) not in late:
        late[sport, port] = p.time - sent[sport, port]
for port, tryno, when in plan:
    d = late.get((base + 2 * tryno, port))
    print(port, tryno, "-" if d is None else "%.2f" % d)
PY
}

# check_late WHAT GOT LOW HIGH: GOT ("-" for none) within LOW..HIGH s
check_late() {
	if [ "$2" != - ] && awk -v g="$2" -v l="$3" -v h="$4" \
		'BEGIN { exit !(g >= l && g <= h) }'; then
		pass "$1 answered ${2}s late"
	else
		fail "$1 (expected an answer $3 to $4 s late, got $2)"
	fi
}

# check_none WHAT GOT: no answer
check_none() {
	if [ "$2" = - ]; then
		pass "$1 unanswered"
	else
		fail "$1 (expected no answer, got one ${2}s late)"
	fi
}

base=40000
for fam in 6 4; do
	dst=$HOST4
	[ $fam = 4 ] || dst=$HOST6
	for proto in udp tcp; do
		out=$(probes $fam $proto "$dst" $base)
		base=$((base + 1000))
		echo "$out" | sed "s/^/v$fam $proto: /"
		got() { awk -v p="$1" -v t="$2" '$1 == p && $2 == t { print $3 }' <<< "$out"; }
		check_none "v$fam $proto first probe" "$(got 2001 0)"
		# The upper bounds allow for TCG's timer slack on a busy host.
		check_late "v$fam $proto first retry" "$(got 2001 1)" 0.09 1.2
		check_none "v$fam $proto answered port probed again" "$(got 2001 2)"
		check_none "v$fam $proto other first probes" "$(got 2002 0)$(got 2003 0 | tr -d -)"
		check_late "v$fam $proto retry as far as the rung" "$(got 2002 1)" 0.09 1.2
		check_none "v$fam $proto retry before that answer was heard" "$(got 2003 1)"
		check_late "v$fam $proto retry beyond the rung" "$(got 2003 2)" 1.29 3
	done
done

# gone BASE DELETE UNLOAD: from scanner, at the v4 TCP source's state the last
# sequence left (two rungs up, its latest answer over 2 s ago), port D's
# try 0 and 1 back to back, then port E's as soon as D's answer is 2 s
# old, with the shell command DELETE right after them, then UNLOAD.
# Prints D's delay, how long after E's probes DELETE had ended, E's delay
# ("-" for none within 3 s of them).
gone() {
	ns scanner python3 - "$HOST4" "$@" <<'PY'
import subprocess, sys, time
from scapy.all import IP, TCP, AsyncSniffer, send, conf
dst, base, delete, unload = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
conf.verb = 0
rst = {}
def heard(p):
    rst.setdefault(p[TCP].sport, p.time)
sn = AsyncSniffer(lfilter=lambda p: p.haslayer(TCP) and p[TCP].flags.R,
                  prn=heard)
sn.start()
time.sleep(0.5)
def probe(port):
    sent = time.time()
    send([IP(dst=dst) / TCP(sport=base + 2 * t, dport=port, flags="S",
                            seq=1000) for t in (0, 1)])
    return sent
def answered(port, sent):
    while port not in rst and time.time() < sent + 3:
        time.sleep(0.05)
    return rst[port] - sent if port in rst else None
sent = probe(2005)
d = answered(2005, sent)
print("-" if d is None else "%.2f" % d)
if d is not None:
    time.sleep(max(0, sent + d + 2.1 - time.time()))
sent = probe(2006)
subprocess.run(delete, shell=True, check=True)
print("%.2f" % (time.time() - sent))
subprocess.run(unload, shell=True, check=True)
e = answered(2006, sent)
sn.stop()
print("-" if e is None else "%.2f" % e)
PY
}

ns host $IP6T -D "${RULE[@]}"
out=$(gone "$base" "ip netns exec host $IPT -D ${RULE[*]}" \
	"rmmod xt_CHAOS xt_TARPIT xt_DELUDE nf_chaos_reply")
echo "$out" | sed "s/^/v4 tcp, deleted: /"
check_late "v4 tcp other retry two rungs up" "$(sed -n 1p <<< "$out")" 1.29 3
took=$(sed -n 2p <<< "$out")
if awk -v t="$took" 'BEGIN { exit !(t < 1.29) }'; then
	pass "rule deleted ${took}s after the retry"
else
	fail "rule deleted before the answer was due (expected within 1.29 s of the retry, took ${took}s)"
fi
check_none "v4 tcp retry whose answer waited when the rule went" "$(sed -n 3p <<< "$out")"
load_ours
finish
