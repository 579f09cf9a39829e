#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-every-kernel
# Seeded mutation fuzzer (fuzz.py) against every match and target in every
# mode (tests/lib/targets.list): host INPUT (DELUDE and TARPIT in each mode, a
# catch-all CHAOS), router FORWARD and router INPUT (the same plus portscan
# with all classes and CHAOS in each mode); IPv4 with iptables-legacy on host and -nft on
# router, IPv6 the other way round. Probes: random TCP flags, data offsets
# (below 5, beyond the packet), options with wrong lengths, payloads up to
# the MTU, IPv4 options, IPv6 extension header chains, fragments (shuffled,
# overlapping, missing), truncated headers and lying length fields, bad
# checksums, RSTs, ICMP, UDP and other protocols, broadcast and multicast.
# Checked from a capture on the scanner: no answer to a RST, an ICMP
# message, a bad checksum, a later fragment or a broadcast/multicast
# destination; at most one answer per probe; every answer a well-formed
# TCP segment or ICMP error; no kernel warning.
# Probes per family: 2000 (CHAOS_SIZE quick: 500, full: 100000).
# env: CHAOS_SIZE, CHAOS_FUZZ_SEED (replays a run: its seed is printed)
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap 'rc=$?; restore; (exit $rc); cleanup' EXIT

require python3 tcpdump ethtool iptables-legacy iptables-nft
FUZZ=$(dirname "$0")/helpers/fuzz.py
COUNT=$(size_pick 500 2000 100000)

SEED=${CHAOS_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
DIR=$(mktemp -d)
backlog=$(sysctl -n net.core.netdev_max_backlog)
restore() {
	sysctl -qw net.core.netdev_max_backlog="$backlog"
	rm -rf "$DIR"
}

setup_topology
echo "# fuzz seed $SEED (replay: CHAOS_FUZZ_SEED=$SEED), $COUNT probes per family"
# The router's input queue must hold a burst of the fuzzer's frames.
sysctl -qw net.core.netdev_max_backlog=20000
# veth marks checksums of frames from a packet socket as verified: make
# router and host verify them, as with a real NIC.
ns router ethtool -K r-scanner rx off >/dev/null
ns host ethtool -K eth0 rx off >/dev/null
# One source address per probe class (fuzz.py: SRC_BASE + class).
for i in $(seq 0 9); do
	ip -n scanner addr add 10.0.1.$((16 + i))/24 dev eth0
	ip -n scanner addr add fd00:1::$(printf %x $((16 + i)))/64 dev eth0 nodad
done
# The scanner's stack stays silent: no RST for our SYN/ACKs, no ICMP.
ns scanner iptables-legacy -A OUTPUT -p tcp -j DROP
ns scanner iptables-legacy -A OUTPUT -p icmp -j DROP
ns scanner ip6tables-legacy -A OUTPUT -p tcp -j DROP
ns scanner ip6tables-legacy -A OUTPUT -p ipv6-icmp \
	--icmpv6-type destination-unreachable -j DROP

chaos_opts="--reject-prob 1 --rate 1000/sec --burst 1000"
# rules IPT chaos_variants [-d ADDR]: the rule set for one chain, on stdout
# as iptables-restore input for the filter table: each target mode of
# tests/lib/targets.list on 1000 TCP ports of its own from 10000 (fuzz.py's
# DPORTS), in its order; CHAOS's other modes only with chaos_variants
# (CHAOS --delude for UDP too), plain CHAOS last, for all.
rules() {
	local chain=$1 variants=$2 d=${3:+-d $3} p=10000 mode opts
	[ "$variants" = no ] || echo "-A $chain $d -p tcp -m portscan --stealth --synscan --cnscan --grscan -m comment --comment fuzz-portscan"
	while read -r mode; do
		opts=
		case $mode in
		CHAOS) continue ;;
		CHAOS\ *)
			[ "$variants" != no ] || { p=$((p + 1000)); continue; }
			opts="--delude-prob 0.5 $chaos_opts"
			[ "$mode" != "CHAOS --delude" ] ||
				echo "-A $chain $d -p udp --dport $p:$((p + 999)) -j $mode $opts" ;;
		esac
		echo "-A $chain $d -p tcp --dport $p:$((p + 999)) -j $mode $opts"
		p=$((p + 1000))
	done < <(target_modes)
	echo "-A $chain $d -m comment --comment fuzz-chaos-$chain -j CHAOS $chaos_opts"
}
nd="-p ipv6-icmp -m icmp6 --icmpv6-type"
load() {
	local n=$1 ipt=$2 text
	text=$(cat)
	ns "$n" "$ipt-restore" -n <<< "*filter"$'\n'"$text"$'\n'COMMIT ||
		{ fail "$ipt-restore in $n took the fuzz rules"; finish; }
}
# Host: only the stateless targets, so it does no defragmentation and its
# rules see the later fragments the router sends on.
rules INPUT no | load host iptables-legacy
{ echo "-A INPUT $nd neighbour-solicitation -j ACCEPT"
  echo "-A INPUT $nd neighbour-advertisement -j ACCEPT"
  rules INPUT no; } | load host ip6tables-nft
{ rules FORWARD yes 10.0.3.3; rules INPUT yes; } | load router iptables-nft
{ rules FORWARD yes fd00:3::3
  echo "-A INPUT $nd neighbour-solicitation -j ACCEPT"
  echo "-A INPUT $nd neighbour-advertisement -j ACCEPT"
  rules INPUT yes; } | load router ip6tables-legacy

dmac=$(ns router cat /sys/class/net/r-scanner/address)
klog_mark

fuzz_family() {
	local fam=$1 ipt=$2 cap=$DIR/cap$1.pcap man=$DIR/man$1.json
	local out rx0 rx1 size last stable line n
	tcpdump_start scanner "$DIR/tcpdump$fam" 7200 -i eth0 -Q in -U \
		-B 16384 -w "$cap"
	rx0=$(ns router cat /sys/class/net/r-scanner/statistics/rx_packets)
	if ! out=$(ns scanner timeout 600 /usr/bin/python3 "$FUZZ" send "$fam" \
		"$SEED" "$COUNT" eth0 "$dmac" "$man" 2>&1); then
		fail "v$fam: fuzzer ran (got: $out)"
		tcpdump_stop
		return
	fi
	rx1=$(ns router cat /sys/class/net/r-scanner/statistics/rx_packets)
	# Answers trail the probes: wait until the capture is quiet for 1s.
	last=-1 stable=0
	for _ in $(seq 100); do
		size=$(stat -c %s "$cap")
		if [ "$size" = "$last" ]; then
			stable=$((stable + 1))
			[ $stable -ge 10 ] && break
		else
			stable=0 last=$size
		fi
		sleep 0.1
	done
	tcpdump_stop
	echo "# v$fam (${SECONDS}s in): $out, router received $((rx1 - rx0)) frames; $(grep -h 'dropped by kernel' "$DIR/tcpdump$fam.err")"
	n=0
	while read -r line; do
		case $line in
		ok\ *) pass "v$fam fuzz: ${line#ok }"; n=$((n + 1)) ;;
		bad\ *) fail "v$fam fuzz (seed $SEED): ${line#bad }"; n=$((n + 1)) ;;
		*) echo "# v$fam: $line" ;;
		esac
	done < <(/usr/bin/python3 "$FUZZ" check "$fam" "$cap" "$man" 2>&1)
	[ $n -gt 0 ] || fail "v$fam: checker printed no verdict"
	if grep -q 'dropped by kernel' "$DIR/tcpdump$fam.err" &&
	   ! grep -q '^0 packets dropped by kernel' "$DIR/tcpdump$fam.err"; then
		fail "v$fam: capture complete (expected 0 packets dropped by kernel, got $(grep 'dropped by kernel' "$DIR/tcpdump$fam.err"))"
	fi
}

fuzz_family 4
fuzz_family 6

# The rules saw the probes: the catch-all CHAOS rules and portscan counted.
for spec in "host iptables-legacy fuzz-chaos-INPUT" \
	    "host ip6tables-nft fuzz-chaos-INPUT" \
	    "router iptables-nft fuzz-portscan" \
	    "router ip6tables-legacy fuzz-portscan" \
	    "router iptables-nft fuzz-chaos-FORWARD" \
	    "router ip6tables-legacy fuzz-chaos-INPUT"; do
	set -- $spec
	c=$(ipt_pkts "$1" "$2" "$3")
	if [ "$c" -gt 0 ]; then
		pass "$2 in $1: rule $3 saw probes ($c)"
	else
		fail "$2 in $1: rule $3 saw probes (expected > 0, got $c)"
	fi
done

klog_clean "after fuzzing"
finish
