#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# The recommended ruleset in the root's iptables, the same for each kernel:
# vm-per-root
# The recommended ruleset (service/rules.v4, uncommented, loaded by
# service/chaostables-load as chaostables.service does) never touches
# what a host serves by other means than a listening socket, one host
# doing every job at once, IPv4 (and IPv6 for the backend's services;
# both families' rules loaded) in lib.sh's topology, and more:
#
#  scanner --\                  /-- lvs0 10.0.4.1 --- backend 10.0.4.2:80
#  client  --- router --- eth0 host
#               (DHCP server)   \-- docker0 172.17.0.1 --- ctr 172.17.0.2:80
#                               kube-ipvs0 (dummy) 10.96.0.10
#                               wg0 10.9.0.1 === client's wg0 10.9.0.2
#
# Rows (the job) and columns:
#   reached   its clients get the service
#   refused   what it no longer serves, or an interface the rules do
#             not guard, answers as the kernel would (RST)
#   answered  the scanner's SYN to a closed port of the host (DELUDE's
#             range) still gets our SYN/ACK
#   nofp      its clients are not in portscan's list
#
#   lvs       LVS director, NAT to backend: 10.0.3.2:8080; refused: the
#             virtual service deleted, chaostables-load refresh
#   kube      kube-proxy's IPVS mode (net.ipv4.vs.conntrack=1): a
#             ClusterIP on kube-ipvs0 (added after start, then
#             chaostables-load refresh) and a NodePort 10.0.3.2:30080;
#             refused: the NodePort deleted
#   synproxy  nftables SYNPROXY on 81 (SYNs notrack, tcp_loose=0)
#   backend   services on 443 (DELUDE's range) and 8443 (CHAOS's) used
#             by a client; refused: both stopped, connects and TCP
#             health checks refused, also after a stop and start of
#             ours (a reboot: the ports served are kept)
#   docker    a published port (Docker's DNAT chains, 8081 to ctr's 80);
#             refused: ctr's connect to a closed port of the host
#   wireguard a client over the tunnel reaches the host's 7000; refused:
#             its connect over wg0 to a closed port
#   dhcp      the host's DHCP client (udhcpc on eth0, broadcast replies)
#             gets its lease, our answering rules count none of it
#
# (A CrowdSec row and an "ours back after flush ruleset" column are the
# life cycle's: tests/field.)
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/matrix.inc"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SVC=$TOP/service
CONF=$(mktemp -d)
NAMESPACES+=" backend ctr"
ROWS="lvs kube synproxy backend docker wireguard dhcp"
COLUMNS="reached refused answered nofp"
declare -A cell
trap 'rc=$?; flush_rules host; rm -rf "$CONF" /var/lib/chaostables; (exit $rc); cleanup' EXIT

require ipvsadm wg nft ipset socat nc busybox iptables python3
# The client's IPv6 address as xt_recent lists it (written out).
CLIENT6_FULL=$(python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$CLIENT6")

# h CMD...: in host.
h() { ns host "$@"; }

# mark ROW COLUMN WHAT CMD...: PASS or FAIL by CMD's status, and the
# cell (FAIL once one check of it failed).
mark() {
	local row=$1 col=$2 what=$3
	shift 3
	if "$@"; then
		pass "$row: $col: $what"
		cell[$row,$col]=${cell[$row,$col]:-ok}
	else
		fail "$row: $col: $what"
		cell[$row,$col]=FAIL
	fi
}
# not CMD...: CMD's status, inverted.
not() { ! "$@"; }

# sock ADDR PORT: socat's address of a TCP connection to ADDR:PORT.
sock() {
	if [[ $1 = *:* ]]; then
		echo "TCP6:[$1]:$2,connect-timeout=10"
	else
		echo "TCP4:$1:$2,connect-timeout=10"
	fi
}
# reaches NS ADDR PORT NAME: NS's request to ADDR:PORT gets NAME's
# banner (a client that sends data, not a scanner's probe). After its
# request socat waits for the answer up to -t (by default 0.5 s: under
# TCG the second flow through SYNPROXY got no banner within it at times).
reaches() {
	printf 'GET /\r\n' | ns "$1" timeout 15 socat -T 10 -t 10 - "$(sock "$2" "$3")" 2>/dev/null |
		grep -q "^banner $4"
}
# refused NS ADDR PORT: NS's connect to ADDR:PORT is refused (RST).
refused() {
	ns "$1" timeout 15 socat -T 5 - "$(sock "$2" "$3")" < /dev/null 2>&1 |
		grep -q 'Connection refused'
}
# answered PORT: the scanner's SYN to the host's PORT gets a SYN/ACK.
answered() { ns scanner nc -z -w 5 "$HOST4" "$1" 2>/dev/null; }
# remembered ADDR: ADDR in portscan's list.
remembered() { h grep -q "src=$1 " /proc/net/xt_recent/portscan 2>/dev/null; }
# nofp ROW ADDR...: none of the ADDRs remembered since the row began
# (each begins with the list emptied: a client wrongly held would fail
# the rows after it too).
nofp() {
	local row=$1 a
	shift
	for a in "$@"; do
		mark "$row" nofp "$a not in portscan's list" not remembered "$a"
	done
}
# udp_counted: packets of the answering rule for UDP.
udp_counted() {
	h iptables-save -c -t mangle |
		sed -n 's/^\[\([0-9]*\):.*-A chaostables-INPUT -p udp -j CHAOS.*/\1/p'
}

# server NS PORT NAME: a banner server.
server() { tcp_server "$1" "$2" "echo banner $3; exec cat"; }
# stop_server PORT: host's server on PORT ends (its listener, by pid).
stop_server() {
	local p
	p=$(h ss -Htlnp "sport = :$1" | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u)
	[ -n "$p" ] && echo "$p" | xargs kill
}

topology() {
	local k
	setup_topology
	h sysctl -qw net.ipv4.ip_forward=1
	ip link add lvs0 netns host type veth peer name eth0 netns backend
	ip link add docker0 netns host type veth peer name eth0 netns ctr
	h ip addr add 10.0.4.1/24 dev lvs0
	h ip addr add 172.17.0.1/16 dev docker0
	h ip link add kube-ipvs0 type dummy
	h ip addr add 10.96.0.10/32 dev kube-ipvs0
	for k in lvs0 docker0 kube-ipvs0; do h ip link set "$k" up; done
	ns backend ip addr add 10.0.4.2/24 dev eth0
	ns ctr ip addr add 172.17.0.2/16 dev eth0
	for k in backend ctr; do ns "$k" ip link set eth0 up; done
	ns backend ip route add default via 10.0.4.1
	ns ctr ip route add default via 172.17.0.1
	ns router ip route add 10.96.0.0/16 via "$HOST4"

	# WireGuard: host listens on 51820, the client is its peer.
	k=$CONF/wg
	mkdir "$k"
	wg genkey | tee "$k/host" | wg pubkey > "$k/host.pub"
	wg genkey | tee "$k/client" | wg pubkey > "$k/client.pub"
	h ip link add wg0 type wireguard
	h wg set wg0 listen-port 51820 private-key "$k/host" \
		peer "$(cat "$k/client.pub")" allowed-ips 10.9.0.2/32
	h ip addr add 10.9.0.1/24 dev wg0
	ns client ip link add wg0 type wireguard
	ns client wg set wg0 private-key "$k/client" \
		peer "$(cat "$k/host.pub")" allowed-ips 10.9.0.0/24 endpoint "$HOST4:51820"
	ns client ip addr add 10.9.0.2/24 dev wg0
	h ip link set wg0 up
	ns client ip link set wg0 up

	server backend 80 backend
	server ctr 80 ctr
	for k in 81 443 7000 8443; do server host "$k" "$k"; done
	for k in backend:80 ctr:80 host:81 host:443 host:7000 host:8443; do
		wait_for_tcp_listen "${k%:*}" "${k#*:}" v6
	done

	# LVS, and kube-proxy's NodePort: NAT to the backend.
	h ipvsadm -A -t "$HOST4:8080" -s rr
	h ipvsadm -a -t "$HOST4:8080" -r 10.0.4.2:80 -m
	h ipvsadm -A -t "$HOST4:30080" -s rr
	h ipvsadm -a -t "$HOST4:30080" -r 10.0.4.2:80 -m

	# What dockerd adds for "-p 8081:80".
	h iptables-restore --noflush <<-EOF
		*nat
		:DOCKER - [0:0]
		-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
		-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE
		-A DOCKER -i docker0 -j RETURN
		-A DOCKER ! -i docker0 -p tcp -m tcp --dport 8081 -j DNAT --to-destination 172.17.0.2:80
		COMMIT
	EOF

	# SYNPROXY on 81, as nftables' wiki has it.
	h nft -f - <<-EOF
		table ip sp {
			chain pre {
				type filter hook prerouting priority raw;
				tcp dport 81 tcp flags syn notrack
			}
			chain in {
				type filter hook input priority filter;
				tcp dport 81 ct state invalid,untracked synproxy mss 1460 wscale 7 timestamp sack-perm
				tcp dport 81 ct state invalid drop
			}
		}
	EOF
}

row_lvs() {
	h sysctl -qw net.ipv4.vs.conntrack=0
	mark lvs reached "client reaches the virtual service $HOST4:8080" \
		busywait 30 reaches client "$HOST4" 8080 backend
	mark lvs reached "again (a second flow)" reaches client "$HOST4" 8080 backend
	mark lvs answered "scanner's SYN to 801 answered" answered 801
	h ipvsadm -D -t "$HOST4:8080"
	h "$SVC/chaostables-load" refresh "$CONF" 2>/dev/null || true
	mark lvs refused "the virtual service deleted (and refreshed): the client's connect refused" \
		refused client "$HOST4" 8080
	nofp lvs "$CLIENT4"
}

row_kube() {
	h sysctl -qw net.ipv4.vs.conntrack=1
	h ipvsadm -A -t 10.96.0.10:80 -s rr
	h ipvsadm -a -t 10.96.0.10:80 -r 10.0.4.2:80 -m
	h "$SVC/chaostables-load" refresh "$CONF" 2>/dev/null || true
	mark kube reached "client reaches the NodePort $HOST4:30080" \
		busywait 30 reaches client "$HOST4" 30080 backend
	mark kube reached "client reaches the ClusterIP 10.96.0.10:80 (added after start, refresh)" \
		busywait 30 reaches client 10.96.0.10 80 backend
	mark kube answered "scanner's SYN to 802 answered" answered 802
	h ipvsadm -D -t "$HOST4:30080"
	mark kube refused "the NodePort deleted: the client's connect refused" \
		refused client "$HOST4" 30080
	nofp kube "$CLIENT4"
	h sysctl -qw net.ipv4.vs.conntrack=0
}

row_synproxy() {
	h sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
	mark synproxy reached "client reaches 81 through SYNPROXY" \
		busywait 30 reaches client "$HOST4" 81 81
	mark synproxy reached "again (a second flow)" reaches client "$HOST4" 81 81
	mark synproxy answered "scanner's SYN to 82 answered" answered 82
	nofp synproxy "$CLIENT4"
	h sysctl -qw net.netfilter.nf_conntrack_tcp_loose=1
}

row_backend() {
	local p a
	for p in 443 8443; do
		for a in "$HOST4" "$HOST6"; do
			mark backend reached "client reaches $a port $p" \
				busywait 30 reaches client "$a" "$p" "$p"
		done
	done
	mark backend answered "scanner's SYN to 803 (never served) answered" answered 803
	for p in 443 8443; do
		stop_server "$p" || fail "backend: the service on $p stops"
		busywait 30 not _listening host ":$p\$" ||
			fail "backend: the service on $p stops"
		for a in "$HOST4" "$HOST6"; do
			mark backend refused "$p stopped: the client's connect to $a refused" \
				refused client "$a" "$p"
		done
		mark backend refused "$p stopped: a TCP health check (connect only) fails" \
			not ns client nc -z -w 5 "$HOST4" "$p"
	done
	# A reboot, as far as ours go: stop saves the ports served, start
	# brings them back before any daemon listens.
	h "$SVC/chaostables-load" stop "$CONF" 2>/dev/null || fail "backend: loader stops"
	h "$SVC/chaostables-load" start "$CONF" 2>/dev/null || fail "backend: loader starts again"
	for p in 443 8443; do
		mark backend refused "$p stopped, ours started again: connect refused" \
			refused client "$HOST4" "$p"
	done
	mark backend answered "ours started again: scanner's SYN to 803 answered" answered 803
	nofp backend "$CLIENT4" "$CLIENT6_FULL"
}

row_docker() {
	mark docker reached "client reaches the published port $HOST4:8081" \
		busywait 30 reaches client "$HOST4" 8081 ctr
	mark docker answered "scanner's SYN to 804 answered" answered 804
	mark docker refused "ctr's connect to the host's closed 1000 (docker0) refused" \
		refused ctr 172.17.0.1 1000
	nofp docker "$CLIENT4" 172.17.0.2
}

row_wireguard() {
	mark wireguard reached "client reaches 7000 over the tunnel" \
		busywait 30 reaches client 10.9.0.1 7000 7000
	mark wireguard answered "scanner's SYN to 805 answered" answered 805
	mark wireguard refused "client's connect over wg0 to the closed 1000 refused" \
		refused client 10.9.0.1 1000
	nofp wireguard "$CLIENT4" 10.9.0.2
}

row_dhcp() {
	local n0 n out
	cat > "$CONF/udhcpd.conf" <<-EOF
		start 10.0.3.100
		end 10.0.3.150
		interface r-host
		lease_file $CONF/leases
		pidfile $CONF/udhcpd.pid
	EOF
	: > "$CONF/leases"
	ns router busybox udhcpd -f "$CONF/udhcpd.conf" > /dev/null 2>&1 &
	n0=$(udp_counted)
	out=$(h timeout 60 busybox udhcpc -i eth0 -B -q -n -t 10 -T 2 -s /bin/true 2>&1) || true
	n=$(udp_counted)
	mark dhcp reached "udhcpc gets a lease (got: $(tail -n 1 <<< "$out"))" \
		grep -q 'lease of .* obtained' <<< "$out"
	mark dhcp reached "our UDP answers took none of the server's packets ($n0 before, $n after)" \
		test "${n:-0}" = "${n0:-0}"
	mark dhcp answered "scanner's SYN to 806 answered" answered 806
	nofp dhcp "$ROUTER_HOST4"
}

topology
for f in rules.v4 rules.v6; do
	sed -n 's/^#\([-*:]\|COMMIT\)/\1/p' "$SVC/$f" > "$CONF/$f"
done
: > "$CONF/allowlist"
rm -rf /var/lib/chaostables
out=$(h "$SVC/chaostables-load" start "$CONF" 2>&1) ||
	{ fail "the recommended ruleset loads (got: $out)"; finish; }
pass "the recommended ruleset loads"
for r in $ROWS; do
	h sh -c 'echo / > /proc/net/xt_recent/portscan'
	"row_$r"
done

echo "# the matrix, $SVC's rules on $(uname -r) (ok: each check of the cell passed; -: none)"
matrix_print role
h iptables-save -c -t mangle | grep chaostables | sed 's/^/# /'
finish
