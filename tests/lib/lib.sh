# SPDX-License-Identifier: GPL-2.0
# Helpers for tests/net/*.sh, which run as root inside the test VM.
#
#  scanner                        router                          host
#  eth0 10.0.1.2/24 ----- r-scanner 10.0.1.1   r-host 10.0.3.1 ----- eth0 10.0.3.2/24
#       fd00:1::2/64                fd00:1::1         fd00:3::1           fd00:3::2/64
#                                 r-client 10.0.2.1
#                                          fd00:2::1
#                                     |
#  client                       eth0 10.0.2.2/24
#                                    fd00:2::2/64
#
# The router forwards IPv4 and IPv6; the others route via it. Rules for
# INPUT tests go into "host", FORWARD tests into "router".
#
# A test:
#	#!/bin/bash
#	set -e
#	source "$(dirname "$0")/../lib/lib.sh"
#	trap cleanup EXIT
#	setup_topology
#	... pass "what" / fail "what (expected X, got Y)" / skip "why" ...
#	finish
#
# Results (pass, fail, skip, expect, require, busywait, finish) come from
# tests/lib/ksft.inc; our modules (OUR_MODULES, rmmod_wait, unload_ours,
# loaded_ours) and targets' modes (target_modes, target_rules) from
# tests/lib/modules.inc.

source "$(dirname "${BASH_SOURCE[0]}")/ksft.inc"
source "$(dirname "${BASH_SOURCE[0]}")/modules.inc"
# The Python tools (tests/net/helpers) import the packet library, pktlib.
PYTHONPATH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PYTHONPATH

SCANNER4=10.0.1.2 SCANNER6=fd00:1::2
CLIENT4=10.0.2.2 CLIENT6=fd00:2::2
HOST4=10.0.3.2 HOST6=fd00:3::2
ROUTER_SCANNER4=10.0.1.1 ROUTER_SCANNER6=fd00:1::1
ROUTER_CLIENT4=10.0.2.1 ROUTER_CLIENT6=fd00:2::1
ROUTER_HOST4=10.0.3.1 ROUTER_HOST6=fd00:3::1
NAMESPACES="scanner client host router"

ns() {
	local name=$1
	shift
	ip netns exec "$name" "$@"
}

# bridge_pair LEFT RIGHT: LEFT and RIGHT (namespaces made, as "bridge"
# is) joined by br0 in "bridge", which has no address, through
# br_netfilter's iptables hooks: eth0 of LEFT 10.0.9.1 fd00:9::1, of
# RIGHT 10.0.9.2 fd00:9::2.
bridge_pair() {
	local n
	ip -n bridge link add br0 type bridge
	for n in "$1" "$2"; do
		ip link add eth0 netns "$n" type veth peer name "p-$n" netns bridge
		ip -n bridge link set "p-$n" master br0 up
		ip -n "$n" link set eth0 up
	done
	ip -n bridge link set br0 up
	ip -n "$1" addr add 10.0.9.1/24 dev eth0
	ip -n "$1" addr add fd00:9::1/64 dev eth0 nodad
	ip -n "$2" addr add 10.0.9.2/24 dev eth0
	ip -n "$2" addr add fd00:9::2/64 dev eth0 nodad
	ns bridge sysctl -qw net.bridge.bridge-nf-call-iptables=1 \
		net.bridge.bridge-nf-call-ip6tables=1
}

# _link NS NET4 NET6: veth eth0 in NS to r-NS in router, .2 and .1 ends.
_link() {
	local n=$1 net4=$2 net6=$3
	ip link add eth0 netns "$n" type veth peer name "r-$n" netns router
	ip -n "$n" -b - <<-EOF
		addr add $net4.2/24 dev eth0
		addr add $net6::2/64 dev eth0 nodad
		link set eth0 up
		route add default via $net4.1
		route add default via $net6::1
	EOF
	ip -n router -b - <<-EOF
		addr add $net4.1/24 dev r-$n
		addr add $net6::1/64 dev r-$n nodad
		link set r-$n up
	EOF
}

# setup_ns NAME...: fresh namespaces with lo up and no duplicate address
# detection, so that v6 addresses are usable at once.
setup_ns() {
	local n
	for n in "$@"; do
		ip netns add "$n"
		ns "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
		ip -n "$n" link set lo up
	done
}

setup_topology() {
	cleanup_namespaces
	setup_ns $NAMESPACES
	ns router sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1
	_link scanner 10.0.1 fd00:1
	_link client 10.0.2 fd00:2
	_link host 10.0.3 fd00:3
	for n in "$HOST4" "$HOST6"; do
		ns scanner busybox ping -q -c1 -W5 "$n" >/dev/null ||
			{ fail "topology: scanner cannot ping $n"; return 1; }
	done
}

# stop_jobs: end this shell's background jobs that still run, and wait
# for them. By the job table, not by PIDs kept since they started: a long
# test's PIDs wrap, and a number whose process ended may be another's.
stop_jobs() {
	local p
	p=$(jobs -p)
	# shellcheck disable=SC2086 # a PID a word
	[ -z "$p" ] || { kill $p 2>/dev/null; wait $p 2>/dev/null; } || true
}

# Kill what runs in our namespaces (it would keep them and their rules
# alive), then delete them.
cleanup_namespaces() {
	local n
	for n in $NAMESPACES; do
		[ -e "/run/netns/$n" ] || continue
		# A process may exit between the listing and the kill.
		ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
		del_netns "$n"
	done
	return 0
}

# del_netns NS: delete NS. Rules with xt_recent tables are flushed first:
# that module's namespace exit removes its /proc files under a BH
# spinlock, which lockdep reports on 6.1 once a recent rule matches in
# softirq, and then it checks nothing more until the guest reboots.
# The look and the flush in one entry into NS: each entry costs a TCG
# guest a good part of a second.
del_netns() {
	ns "$1" sh -c "[ -z \"\$(ls /proc/net/xt_recent)\" ] || { $_FLUSH_RULES; }" \
		2>/dev/null || true
	ip netns del "$1" 2>/dev/null || true
}

# flush_rules NS...: remove every iptables (legacy, nft) and nft rule in
# NS. For tests whose TCP sockets outlive their processes (FINs that a
# tarpit or a dead peer never answers) and so keep the namespace, and its
# rules with their modules, alive after cleanup.
flush_rules() {
	local n
	for n in "$@"; do
		ns "$n" sh -c "$_FLUSH_RULES" 2>/dev/null || true
	done
}
# What flush_rules and del_netns run in the namespace, in one shell.
_FLUSH_RULES='for ipt in iptables-legacy ip6tables-legacy; do
	for t in raw mangle nat filter; do "$ipt" -t $t -F; done
done; nft flush ruleset; true'

# EXIT trap: delete the namespaces. A script that dies under set -e
# before finish gets a FAIL line and status 1.
cleanup() {
	local rc=$?
	tcpdump_stop
	cleanup_namespaces
	if [ -z "$_finished" ] && [ "$rc" != 0 ] && [ "$rc" != $ksft_skip ]; then
		[ "$_nfail" != 0 ] || echo "FAIL: $(basename "$0") aborted with status $rc (a command failed under set -e)"
		exit 1
	fi
	exit "$rc"
}

# wait_for_tcp_listen NS PORT [v6]: poll up to 60s (a loaded TCG guest
# starts python and socat slowly) for a listening socket, v4 or v6
# (dual-stack included).
wait_for_tcp_listen() {
	local n=$1 port=$2 pat
	if [ "${3:-}" = v6 ]; then
		pat="^(\[.*\]|\*):$port\$"
	else
		pat="^([0-9.]+|\*):$port\$"
	fi
	busywait 60 _listening "$n" "$pat" && return 0
	fail "nothing listens on tcp port $port in $n (expected a listener within 60s)"
	return 1
}
_listening() { ns "$1" ss -Htln | awk '{ print $4 }' | grep -Eq "$2"; }

# tcpdump_start NS OUT SECS ARGS...: tcpdump ARGS in NS for at most SECS,
# in the background, its output in OUT and its messages in OUT.err;
# returns once it captures. Its pid is the last of TCPDUMP_PIDS.
# tcpdump_wait: wait for every capture started (each ends by its -c or
# SECS); tcpdump_stop: end them now (cleanup does too).
TCPDUMP_PIDS=()
tcpdump_start() {
	local n=$1 out=$2 secs=$3
	shift 3
	ns "$n" timeout "$secs" tcpdump "$@" > "$out" 2> "$out.err" &
	TCPDUMP_PIDS+=($!)
	busywait 20 grep -qs 'listening on' "$out.err" && return 0
	fail "tcpdump in $n did not start (got: $(cat "$out.err"))"
}
tcpdump_wait() {
	[ ${#TCPDUMP_PIDS[@]} = 0 ] || wait "${TCPDUMP_PIDS[@]}" || true
	TCPDUMP_PIDS=()
}
tcpdump_stop() {
	[ ${#TCPDUMP_PIDS[@]} = 0 ] || kill "${TCPDUMP_PIDS[@]}" 2>/dev/null || true
	tcpdump_wait
}

# offload NS DEV tx|rx on|off: set a checksum offload (no ethtool needed),
# then print its new state (1 or 0).
offload() {
	ns "$1" /usr/bin/python3 - "$2" "$3" "$4" <<'EOF'
import array, fcntl, socket, struct, sys
dev, what, val = sys.argv[1], sys.argv[2], sys.argv[3]
# ETHTOOL_{S,G}{TX,RX}CSUM, SIOCETHTOOL
scmd, gcmd = {"tx": (0x17, 0x16), "rx": (0x15, 0x14)}[what]
s = socket.socket()
for cmd, data in ((scmd, val == "on"), (gcmd, 0)):
    buf = array.array("B", struct.pack("II", cmd, data))
    fcntl.ioctl(s, 0x8946, struct.pack("16sP", dev.encode(),
                                       buf.buffer_info()[0]))
print(struct.unpack("II", buf.tobytes())[1])
EOF
}

# rawtcp NS CMD ARGS...: tests/net/helpers/rawtcp.py CMD in NS (spoofed segments
# and datagrams, and their answers), killed after 120 s.
rawtcp() {
	local n=$1
	shift
	ns "$n" timeout 120 /usr/bin/python3 \
		"$(dirname "${BASH_SOURCE[0]}")/../net/helpers/rawtcp.py" "$@" 2>&1 || true
}

# tcp_server NS PORT SHELLCMD: forking socat server on v4 and v6, in the
# background, running SHELLCMD with the connection on stdin and stdout;
# wait_for_tcp_listen before use (start several, then wait for them).
tcp_server() {
	# -t: a client that closes its side at once still gets what SHELLCMD
	# sends, even when it starts slowly.
	ns "$1" socat -t 10 "TCP6-LISTEN:$2,ipv6only=0,reuseaddr,fork" \
		"SYSTEM:$3" </dev/null >/dev/null 2>&1 &
}

# start_tcp_server NS PORT [BANNER]: a tcp_server that sends BANNER (if
# given) on accept and then echoes what it reads; listening on return.
start_tcp_server() {
	local n=$1 port=$2 cmd="exec cat" f
	if [ $# -ge 3 ]; then
		f=$(mktemp)
		printf '%s\n' "$3" > "$f"
		cmd="exec cat $f -"
	fi
	tcp_server "$n" "$port" "$cmd"
	wait_for_tcp_listen "$n" "$port" v6
}

# tcp_client NS CMD ARGS...: tests/net/helpers/tcp_client.py CMD from NS, killed
# after CLIENT_SECS (40) s: its output and errors, never a failure.
tcp_client() {
	local n=$1
	shift
	ns "$n" timeout "${CLIENT_SECS:-40}" /usr/bin/python3 \
		"$(dirname "${BASH_SOURCE[0]}")/../net/helpers/tcp_client.py" "$@" 2>&1 || true
}

# ct_tcp NS: the TCP conntrack entries in NS, IPv4 and IPv6.
ct_tcp() {
	ns "$1" conntrack -L -f ipv4 -p tcp 2>/dev/null
	ns "$1" conntrack -L -f ipv6 -p tcp 2>/dev/null
}

# ipt_variant_dir V DIR: DIR holds iptables and ip6tables, with their
# -save and -restore, for variant V (legacy or nft), as the admin's
# alternative would have them: put DIR first in PATH.
ipt_variant_dir() {
	local c s
	mkdir -p "$2"
	for c in iptables ip6tables; do
		for s in "" -save -restore; do
			ln -sf "/usr/sbin/xtables-$1-multi" "$2/$c$s"
		done
	done
}

# ipt_pkts NS IPT TAG...: for each TAG, the packet count of the rule(s)
# commented TAG, any table, from one save; IPT one of iptables-legacy,
# iptables-nft, ip6tables-legacy, ip6tables-nft. "missing" and status 1
# for a TAG that no rule has.
ipt_pkts() {
	local n=$1 ipt=$2
	shift 2
	ns "$n" "$ipt-save" -c 2>/dev/null | awk -v tags="$*" '
		/^\[/ {
			for (i = 1; i < NF; i++)
				if ($i == "--comment") {
					tag = $(i + 1)
					gsub(/"/, "", tag)
					split(substr($1, 2), c, ":")
					sum[tag] += c[1]
				}
		}
		END {
			n = split(tags, t, " ")
			for (i = 1; i <= n; i++) {
				if (!(t[i] in sum)) {
					print "ipt_pkts: no rule tagged " t[i] > "/dev/stderr"
					sum[t[i]] = "missing"
					bad = 1
				}
				printf "%s%s", (i > 1 ? " " : ""), sum[t[i]]
			}
			print ""
			exit bad
		}'
}

# ipt_save NS IPT: IPT-save's output without comments, counters zeroed.
ipt_save() {
	ns "$1" "$2-save" 2>/dev/null | grep -v '^#' |
		sed 's/\[[0-9]*:[0-9]*\]$/[0:0]/'
}

# scan SECS NMAP-ARGS...: nmap -n -Pn from the scanner namespace (or
# SCAN_FROM's: SCAN_FROM=client scan ...), killed after SECS; its grepable
# output in $SCAN_OUT, wall time in $SCAN_TIME. Every test's nmap runs
# through it (in the background too: scan ... &, its output then unused).
scan() {
	local secs=$1 start=$EPOCHREALTIME
	shift
	SCAN_OUT=$(ns "${SCAN_FROM:-scanner}" timeout "$secs" nmap -n -Pn -oG - "$@" 2>&1) || true
	SCAN_TIME=$(awk -v s="$start" -v e="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", e - s }')
}

# scan_done: the scan in $SCAN_OUT finished.
scan_done() { grep -q '^# Nmap done' <<< "$SCAN_OUT"; }

# open_services: the ports $SCAN_OUT reports open, one a line: PORT,
# SERVICE and VERSION (what -sV names; either may be empty), tab separated.
open_services() {
	sed -n 's/.*Ports: //p' <<< "$SCAN_OUT" | tr ',' '\n' |
		awk -F/ '$2 == "open" { gsub(/ /, "", $1); print $1 "\t" $5 "\t" $7 }'
}

# port_state PORT: the state $SCAN_OUT gives PORT (open, closed,
# filtered...; empty if it lists none).
port_state() {
	sed -n 's/.*Ports: //p' <<< "$SCAN_OUT" | tr ',' '\n' |
		awk -F/ -v p="$1" '{ gsub(/ /, "", $1) } $1 == p { print $2 }'
}

# open_ports: the ports $SCAN_OUT reports open, sorted, space separated.
open_ports() { open_services | cut -f 1 | sort -n | xargs; }

# mass SECS MASSCAN-ARGS...: masscan from the scanner namespace's eth0
# through the router, stopped as ^C stops it after SECS; its output in
# $MASS_OUT, wall time in $MASS_TIME, mass_done if it ended by itself.
# It has a stack of its own: drop
# the scanner kernel's RSTs to the answers first (they would reach the
# host's rules), and keep the link busy while it runs (busybox ping):
# its receive thread sees that --wait is over only when a packet comes.
mass() {
	local secs=$1 start=$EPOCHREALTIME
	shift
	MASS_RC=0
	MASS_OUT=$(ns scanner timeout -s INT -k 10 "$secs" masscan "$@" \
		--adapter eth0 --adapter-ip "$SCANNER4" --router-mac \
		"$(ns router cat /sys/class/net/r-scanner/address)" 2>/dev/null) ||
		MASS_RC=$?
	MASS_TIME=$(awk -v s="$start" -v e="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", e - s }')
}

# mass_done: the masscan of $MASS_OUT was not stopped (timeout: 124 or,
# killed after ^C, 137).
mass_done() { [ "$MASS_RC" != 124 ] && [ "$MASS_RC" != 137 ]; }

# mass_open: the ports $MASS_OUT reports open, sorted, space separated.
mass_open() {
	sed -n 's/^Discovered open port \([0-9]*\)\/tcp.*/\1/p' <<< "$MASS_OUT" |
		sort -n | xargs
}

# module_loaded NAME: PASS/FAIL line on whether kernel module NAME is loaded.
module_loaded() {
	if [ -d "/sys/module/$1" ]; then
		pass "module $1 loaded"
	else
		fail "module $1 loaded (expected /sys/module/$1, got none: not built or insmod failed, see vm/run's MOD lines)"
	fi
}

# vm_link NAME NS DEV: the NIC of tests/vm/run's --link .../NAME (found by
# its MAC in $CHAOS_RUN/links) moved into NS as DEV, up.
vm_link() {
	local mac d dev=
	mac=$(awk -v n="$1" '$1 == n { print $2 }' "$CHAOS_RUN/links")
	[ -n "$mac" ] || { fail "vm_link: no link $1 in $CHAOS_RUN/links"; return 1; }
	modprobe virtio_net
	busywait 10 grep -qx "$mac" /sys/class/net/*/address || true
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" != "$mac" ] || dev=${d##*/}
	done
	[ -n "$dev" ] || { fail "vm_link: no NIC with MAC $mac (link $1)"; return 1; }
	ip link set "$dev" netns "$2" name "$3"
	ip -n "$2" link set "$3" up
}

# manual_example TITLE: the example of the guides (doc/*.md) whose first
# line is TITLE, as tests/net/helpers/doc_examples.py reads it.
manual_example() {
	PYTHONPATH=$(dirname "${BASH_SOURCE[0]}")/../net/helpers:$PYTHONPATH \
		python3 - "$1" "$(dirname "${BASH_SOURCE[0]}")"/../../doc/*.md <<-'EOF'
		import sys
		import doc_examples
		for path in sys.argv[2:]:
		    for _, lines in doc_examples.md_blocks(open(path).read()):
		        if lines and lines[0] == sys.argv[1]:
		            print("\n".join(lines))
		            sys.exit(0)
		sys.exit("no example " + sys.argv[1])
	EOF
}
