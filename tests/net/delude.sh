#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# DELUDE: nmap -sS sees deluded ports open and the others closed; a client
# that connects and sends is reset. INPUT on host (iptables-legacy) and
# FORWARD on router (iptables-nft), IPv4 and IPv6. checkentry refuses
# OUTPUT and rules without "-p tcp".
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap python3 iptables-legacy iptables-nft

setup_topology

# check_open WHAT EXPECTED NMAP-ARGS...: nmap -sS from scanner reports
# exactly the ports EXPECTED open.
check_open() {
	local what=$1 expected=$2 got
	shift 2
	scan 120 -sS --max-retries 1 "$@"
	if scan_done; then
		got=$(open_ports)
	else
		got="nmap failed: $SCAN_OUT"
	fi
	if [ "$got" = "$expected" ]; then
		pass "$what: nmap -sS sees $expected open"
	else
		fail "$what: nmap -sS open ports (expected '$expected', got '$got')"
	fi
}

check_reset() {
	local what=$1 target=$2 port=$3 got
	got=$(CLIENT_SECS=60 tcp_client client outcome "$target" "$port")
	if [ "$got" = reset ]; then
		pass "$what: a client that connects and sends is reset"
	else
		fail "$what: client outcome (expected reset, got $got)"
	fi
}

check_count() {
	local what=$1 n=$2 ipt=$3 tag=$4 c
	c=$(ipt_pkts "$n" "$ipt" "$tag")
	if [ "$c" -gt 0 ]; then
		pass "$what: DELUDE rule hit ($c packets)"
	else
		fail "$what: DELUDE rule hit (expected > 0 packets, got $c)"
	fi
}

# checkentry: only INPUT/FORWARD, only -p tcp (not inverted).
for ipt in iptables-legacy ip6tables-legacy iptables-nft ip6tables-nft; do
	for rule in "OUTPUT -p tcp" "INPUT" "INPUT ! -p tcp" "INPUT -p udp"; do
		# shellcheck disable=SC2086
		if ns host $ipt -A $rule -j DELUDE 2>/dev/null; then
			fail "$ipt refuses -A $rule -j DELUDE (expected an error, got success)"
			ns host $ipt -D $rule -j DELUDE
		else
			pass "$ipt refuses -A $rule -j DELUDE"
		fi
	done
done
if dmesg | grep -q 'DELUDE target: used from hooks OUTPUT' &&
   dmesg | grep -q 'DELUDE target: only valid for protocol 6'; then
	pass "checkentry explains its refusals in the kernel log"
else
	fail "checkentry messages (expected hook and protocol messages in dmesg, got none)"
fi

# INPUT on host: 8000-8004 deluded, 8005-8009 closed.
ns host iptables-legacy -A INPUT -p tcp --dport 8000:8004 \
	-m comment --comment delude4 -j DELUDE
ns host ip6tables-legacy -A INPUT -p tcp --dport 8000:8004 \
	-m comment --comment delude6 -j DELUDE
check_open "INPUT v4" "8000 8001 8002 8003 8004" \
	-p 8000-8009 "$HOST4"
check_open "INPUT v6" "8000 8001 8002 8003 8004" \
	-6 -p 8000-8009 "$HOST6"
check_reset "INPUT v4" "$HOST4" 8002
check_reset "INPUT v6" "$HOST6" 8002
check_count "INPUT v4" host iptables-legacy delude4
check_count "INPUT v6" host ip6tables-legacy delude6

# FORWARD on router: the router answers for host's 8100-8104.
ns router iptables-nft -A FORWARD -p tcp -d "$HOST4" --dport 8100:8104 \
	-m comment --comment fwd4 -j DELUDE
ns router ip6tables-nft -A FORWARD -p tcp -d "$HOST6" --dport 8100:8104 \
	-m comment --comment fwd6 -j DELUDE
check_open "FORWARD v4" "8100 8101 8102 8103 8104" \
	-p 8100-8109 "$HOST4"
check_open "FORWARD v6" "8100 8101 8102 8103 8104" \
	-6 -p 8100-8109 "$HOST6"
check_reset "FORWARD v4" "$HOST4" 8103
check_reset "FORWARD v6" "$HOST6" 8103
check_count "FORWARD v4" router iptables-nft fwd4
check_count "FORWARD v6" router ip6tables-nft fwd6

finish
