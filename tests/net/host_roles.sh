#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# The recommended ruleset in the root's iptables, the same for each kernel:
# vm-field-root
# The recommended ruleset (service/rules.v4, uncommented, kept by
# service/chaostables-watch, chaostables.service's main process) never
# touches what a host serves by other means than a listening socket,
# one host doing every job at once, IPv4 (and IPv6 for the backend's
# services; both families' rules loaded) in lib.sh's topology, and more:
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
#   flush     ours back after an admin's "nft -f /etc/nftables.conf"
#             (flush ruleset, then the base's own table), and the
#             row's reached and answered checks hold again. One ruleset
#             serves every row, so the host is flushed once, between
#             two passes: first each row's reached, answered and nofp,
#             then the flush (the watcher must load ours again within
#             BACK and say so; dockerd's and the bouncer's chains, which
#             the flush takes too, are added again as their restarts
#             would), then each row's reached and answered again (the
#             flush column), refused and nofp.
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
#   crowdsec  both bouncers of examples/crowdsec, IPv4: the host's own
#             (Debian's crowdsec-firewall-bouncer as its postinst sets
#             it up: mode nftables, decisions of type ban) and the
#             second, chaostables-bouncer.yaml (mode ipset, the sets of
#             the drop-in chaostables.service.d/ipset.conf, the types
#             and scenarios it takes read from it), with fleet.md's
#             rules for its set added to the recommended ruleset.
#             Emulated: a decision goes to the sets of the bouncers
#             whose configuration takes it (make check has no crowdsec;
#             tests/field/crowdsec_fleet.sh runs crowdsec and our
#             bouncer). A ban (crowdsecurity/ssh-bf) of the client: in
#             the host's set only, and the client's connect to the open
#             7000 dropped; a tarpit decision (chaostables/portscan) of
#             the scanner: in our set only, the scanner still reaches
#             7000, and its SYN to the closed 807 gets the set's
#             TARPIT's SYN/ACK (window 0). Refused: the banned
#             client's SYN to the closed 808 gets no answer of ours
#             (chaostables-load finds the host's bouncer's set from its
#             configuration, CHAOS_BOUNCER here; the watcher's refresh
#             copies it into chaostables-denied), only the bouncer's
#             drop.
#
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/../lib/matrix.inc"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SVC=$TOP/service
EXS=$TOP/examples/crowdsec
CONF=$(mktemp -d)
NAMESPACES+=" backend ctr"
ROWS="lvs kube synproxy backend docker wireguard dhcp crowdsec"
COLUMNS="reached refused answered nofp flush"
# The longest the watcher may take to load ours again (31 s under TCG,
# 7.3 beside other guests; a second or two natively, tests/host/watch.sh).
BACK=120
declare -A cell
# The clients of each row, for nofp.
declare -A clients=(
	[lvs]=$CLIENT4 [kube]=$CLIENT4 [synproxy]=$CLIENT4 [docker]="$CLIENT4 172.17.0.2"
	[wireguard]="$CLIENT4 10.9.0.2" [dhcp]=$ROUTER_HOST4 [crowdsec]=$CLIENT4
)
WPID=
AGAIN=
trap 'rc=$?; set +e; watch_stop; flush_rules host; rm -rf "$CONF" /var/lib/chaostables;
	(exit $rc); cleanup' EXIT

require ipvsadm wg nft ipset socat nc busybox iptables python3
# The client's IPv6 address as xt_recent lists it (written out).
CLIENT6_FULL=$(python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$CLIENT6")
clients[backend]="$CLIENT4 $CLIENT6_FULL"

# h CMD...: in host.
h() { ns host "$@"; }

# mark ROW COLUMN WHAT CMD...: PASS or FAIL by CMD's status, and the
# cell (FAIL once one check of it failed). After the flush (AGAIN set),
# the reached and answered checks are the flush column's.
mark() {
	local row=$1 col=$2 what=$3
	shift 3
	if [ -n "$AGAIN" ] && [[ $col = reached || $col = answered ]]; then
		what="after flush ruleset: $col: $what"
		col=flush
	fi
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
# dropped NS ADDR PORT: NS's connect to the IPv4 ADDR:PORT gets no
# answer within 3 s, neither a connection nor a refusal.
dropped() {
	local out
	out=$(ns "$1" timeout 10 socat -T 2 - "TCP4:$2:$3,connect-timeout=3" < /dev/null 2>&1) &&
		return 1
	! grep -q 'refused' <<< "$out"
}
# answered PORT: the scanner's SYN to the host's PORT gets a SYN/ACK.
answered() { ns scanner nc -z -w 5 "$HOST4" "$1" 2>/dev/null; }
# remembered ADDR: ADDR in portscan's list.
remembered() { h grep -q "src=$1 " /proc/net/xt_recent/portscan 2>/dev/null; }
# nofp ROW: none of the row's clients remembered since the row began
# (each begins with the list emptied: a client wrongly held would fail
# the rows after it too).
nofp() {
	local row=$1 a
	for a in ${clients[$row]}; do
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

# loaded: the kernel holds what the files say (chaostables-load check).
loaded() { h "$SVC/chaostables-load" check "$CONF" > /dev/null; }
# watch_start: chaostables.service's start: the watcher in host, its
# messages in CONF/watch.log, until chaostables-load check says the
# kernel holds the files' rules. It looks at IPVS and the routes only
# when told (the rows refresh): CHAOS_REFRESH long.
watch_start() {
	# Its own pid: ip netns exec and env exec it.
	ip netns exec host env CHAOS_REFRESH=3600 "$SVC/chaostables-watch" "$CONF" \
		2>> "$CONF/watch.log" &
	WPID=$!
	busywait $BACK loaded
}
# watch_stop: chaostables.service's stop: chaostables-load stop, which
# the watcher sees and ends on.
watch_stop() {
	[ -n "$WPID" ] || return 0
	h "$SVC/chaostables-load" stop "$CONF" 2>/dev/null
	busywait 30 not kill -0 "$WPID" 2>/dev/null || kill "$WPID" 2>/dev/null
	wait "$WPID" 2>/dev/null
	WPID=
}

# The chains and tables of the host's jobs that are not ours, which
# "nft flush ruleset" takes with ours.
# What dockerd adds for "-p 8081:80".
docker_chains() {
	h iptables-restore --noflush <<-EOF
		*nat
		:DOCKER - [0:0]
		-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
		-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE
		-A DOCKER -i docker0 -j RETURN
		-A DOCKER ! -i docker0 -p tcp -m tcp --dport 8081 -j DNAT --to-destination 172.17.0.2:80
		COMMIT
	EOF
}
# The admin's /etc/nftables.conf: SYNPROXY on 81, as nftables' wiki has it.
NFTCONF='flush ruleset
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
}'
# The host's own CrowdSec bouncer, as Debian configures it
# (crowdsec-firewall-bouncer 0.0.25, /etc/crowdsec/bouncers/
# crowdsec-firewall-bouncer.yaml and the postinst's .local: mode
# nftables, its table, chain and set names, a filter chain on input
# that drops the set's sources).
CS_TABLE=crowdsec CS_CHAIN=crowdsec-chain CS_SET=crowdsec-blacklists
# Its configuration, where chaostables-load reads the names: Debian's
# file, with the mode in the postinst's .local.
export CHAOS_BOUNCER=$CONF/crowdsec-firewall-bouncer.yaml
# shellcheck disable=SC2016
printf '%s\n' 'mode: ${BACKEND}' "blacklists_ipv4: $CS_SET" 'nftables:' '  ipv4:' \
	'    enabled: true' '    set-only: false' "    table: $CS_TABLE" "    chain: $CS_CHAIN" \
	> "$CHAOS_BOUNCER"
echo 'mode: nftables' > "$CHAOS_BOUNCER.local"
cs_chains() {
	h nft -f - <<-EOF
		table ip $CS_TABLE {
			set $CS_SET { type ipv4_addr; flags timeout; }
			chain $CS_CHAIN {
				type filter hook input priority filter; policy accept;
				ip saddr @$CS_SET counter drop
			}
		}
	EOF
}

# Our second bouncer's configuration: VALUE of KEY, or the items of the
# list under KEY.
CS_OURS=$EXS/bouncers/chaostables-bouncer.yaml
yaml_value() { sed -n "s/^$1: *//p" "$CS_OURS"; }
yaml_list() { sed -n "/^$1:/,/^[^ ]/s/^ *- *//p" "$CS_OURS"; }
BAN=$(yaml_value blacklists_ipv4)
# decide TYPE SCENARIO ADDR: CrowdSec's decision, in the sets of the
# bouncers that take it: the host's takes type ban, from any scenario;
# ours what its supported_decisions_types (by default ban) and
# scenarios_containing say.
decide() {
	local s types
	[ "$1" != ban ] || h nft add element ip $CS_TABLE $CS_SET "{ $3 timeout 1h }"
	types=$(yaml_list supported_decisions_types)
	grep -qxF "$1" <<< "${types:-ban}" || return 0
	for s in $(yaml_list scenarios_containing); do
		[[ $2 != *"$s"* ]] || { h ipset -exist add "$BAN" "$3" timeout 3600; return 0; }
	done
}
# undecide ADDR: the decisions on ADDR expired.
undecide() {
	h nft delete element ip $CS_TABLE $CS_SET "{ $1 }" 2>/dev/null || true
	h ipset -q del "$BAN" "$1" || true
}
in_cs_set() { h nft get element ip $CS_TABLE $CS_SET "{ $1 }" > /dev/null 2>&1; }
in_ban() { h ipset -q test "$BAN" "$1"; }
cs_drops() {
	h nft list chain ip $CS_TABLE $CS_CHAIN | sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}
ban_tarpits() {
	h iptables-save -c -t mangle |
		sed -n "s/^\[\([0-9]*\):.*--match-set $BAN src -j TARPIT.*/\1/p"
}
# crowdsec_rules FILE SET: FILE, the recommended ruleset, with the rules
# of doc/fleet.md for SET, which a CrowdSec host adds: its members skip
# the portscan match, and fleet.md's TARPIT rule for them comes before
# the one for portscan's list.
crowdsec_rules() {
	local rule
	rule=$(grep -m 1 -e "^-A chaostables-INPUT .*--match-set $2 src -j TARPIT\$" "$TOP/doc/fleet.md") ||
		{ fail "doc/fleet.md has the TARPIT rule of $2"; return 1; }
	sed -i -e "/-j chaostables-scanned\$/s/ -m portscan / -m set ! --match-set $2 src&/" \
		-e "/-m recent --name portscan --rcheck .* -j TARPIT\$/i $rule" "$1"
	grep -q -- "! --match-set $2 src -m portscan" "$1" ||
		{ fail "$1: the portscan rule skips $2"; return 1; }
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

	h nft -f - <<< "$NFTCONF"
	docker_chains
	cs_chains
	# Our bouncer's sets, as the drop-in makes them before our start.
	sed -n 's/^ExecStartPre=//p' "$EXS/chaostables.service.d/ipset.conf" > "$CONF/sets"
	h bash -e "$CONF/sets"
}

# Each row: up_ROW, its reached and answered checks (twice: before and
# after the flush), then down_ROW, its refused checks; set_ROW, what it
# needs once, before its first up.
up_lvs() {
	h sysctl -qw net.ipv4.vs.conntrack=0
	mark lvs reached "client reaches the virtual service $HOST4:8080" \
		busywait 30 reaches client "$HOST4" 8080 backend
	mark lvs reached "again (a second flow)" reaches client "$HOST4" 8080 backend
	mark lvs answered "scanner's SYN to 801 answered" answered 801
}
down_lvs() {
	h ipvsadm -D -t "$HOST4:8080"
	h "$SVC/chaostables-load" refresh "$CONF" 2>/dev/null || true
	mark lvs refused "the virtual service deleted (and refreshed): the client's connect refused" \
		refused client "$HOST4" 8080
}

set_kube() {
	h ipvsadm -A -t 10.96.0.10:80 -s rr
	h ipvsadm -a -t 10.96.0.10:80 -r 10.0.4.2:80 -m
	h "$SVC/chaostables-load" refresh "$CONF" 2>/dev/null || true
}
up_kube() {
	h sysctl -qw net.ipv4.vs.conntrack=1
	mark kube reached "client reaches the NodePort $HOST4:30080" \
		busywait 30 reaches client "$HOST4" 30080 backend
	mark kube reached "client reaches the ClusterIP 10.96.0.10:80 (added after start, refresh)" \
		busywait 30 reaches client 10.96.0.10 80 backend
	mark kube answered "scanner's SYN to 802 answered" answered 802
	h sysctl -qw net.ipv4.vs.conntrack=0
}
down_kube() {
	h sysctl -qw net.ipv4.vs.conntrack=1
	h ipvsadm -D -t "$HOST4:30080"
	mark kube refused "the NodePort deleted: the client's connect refused" \
		refused client "$HOST4" 30080
	h sysctl -qw net.ipv4.vs.conntrack=0
}

up_synproxy() {
	h sysctl -qw net.netfilter.nf_conntrack_tcp_loose=0
	mark synproxy reached "client reaches 81 through SYNPROXY" \
		busywait 30 reaches client "$HOST4" 81 81
	mark synproxy reached "again (a second flow)" reaches client "$HOST4" 81 81
	mark synproxy answered "scanner's SYN to 82 answered" answered 82
	h sysctl -qw net.netfilter.nf_conntrack_tcp_loose=1
}

up_backend() {
	local p a
	for p in 443 8443; do
		for a in "$HOST4" "$HOST6"; do
			mark backend reached "client reaches $a port $p" \
				busywait 30 reaches client "$a" "$p" "$p"
		done
	done
	mark backend answered "scanner's SYN to 803 (never served) answered" answered 803
}
down_backend() {
	local p a
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
	# A reboot, as far as ours go: the unit's stop saves the ports
	# served, its start brings them back before any daemon listens.
	watch_stop
	watch_start || fail "backend: ours started again (got: $(tail -n 3 "$CONF/watch.log"))"
	for p in 443 8443; do
		mark backend refused "$p stopped, ours started again: connect refused" \
			refused client "$HOST4" "$p"
	done
	mark backend answered "ours started again: scanner's SYN to 803 answered" answered 803
}

up_docker() {
	mark docker reached "client reaches the published port $HOST4:8081" \
		busywait 30 reaches client "$HOST4" 8081 ctr
	mark docker answered "scanner's SYN to 804 answered" answered 804
}
down_docker() {
	mark docker refused "ctr's connect to the host's closed 1000 (docker0) refused" \
		refused ctr 172.17.0.1 1000
}

up_wireguard() {
	mark wireguard reached "client reaches 7000 over the tunnel" \
		busywait 30 reaches client 10.9.0.1 7000 7000
	mark wireguard answered "scanner's SYN to 805 answered" answered 805
}
down_wireguard() {
	mark wireguard refused "client's connect over wg0 to the closed 1000 refused" \
		refused client 10.9.0.1 1000
}

set_dhcp() {
	cat > "$CONF/udhcpd.conf" <<-EOF
		start 10.0.3.100
		end 10.0.3.150
		interface r-host
		lease_file $CONF/leases
		pidfile $CONF/udhcpd.pid
	EOF
	: > "$CONF/leases"
	ns router busybox udhcpd -f "$CONF/udhcpd.conf" > /dev/null 2>&1 &
}
up_dhcp() {
	local n0 n out
	n0=$(udp_counted)
	out=$(h timeout 60 busybox udhcpc -i eth0 -B -q -n -t 10 -T 2 -s /bin/true 2>&1) || true
	n=$(udp_counted)
	mark dhcp reached "udhcpc gets a lease (got: $(tail -n 1 <<< "$out"))" \
		grep -q 'lease of .* obtained' <<< "$out"
	mark dhcp reached "our UDP answers took none of the server's packets ($n0 before, $n after)" \
		test "${n:-0}" = "${n0:-0}"
	mark dhcp answered "scanner's SYN to 806 answered" answered 806
}

# banned_dropped COLUMN PORT WHAT: the banned client's connect to PORT
# gets no answer, and the host's bouncer's rule counts its drop.
banned_dropped() {
	local d0 d1
	d0=$(cs_drops)
	mark crowdsec "$1" "the banned client's connect to $3" dropped client "$HOST4" "$2"
	d1=$(cs_drops)
	mark crowdsec "$1" "$2: by the host's bouncer's rule ($d0 -> $d1 packets)" \
		test "${d1:-0}" -gt "${d0:-0}"
}
up_crowdsec() {
	local t0 t1 got
	mark crowdsec reached "client reaches 7000 before its ban" \
		busywait 30 reaches client "$HOST4" 7000 7000
	decide ban crowdsecurity/ssh-bf "$CLIENT4"
	decide tarpit chaostables/portscan "$SCANNER4"
	mark crowdsec reached "the ban (crowdsecurity/ssh-bf) in the host's bouncer's $CS_SET" \
		in_cs_set "$CLIENT4"
	mark crowdsec reached "the ban not in our bouncer's $BAN" not in_ban "$CLIENT4"
	mark crowdsec reached "the tarpit decision (chaostables/portscan) in our bouncer's $BAN" \
		in_ban "$SCANNER4"
	mark crowdsec reached "the tarpit decision not in the host's bouncer's $CS_SET" \
		not in_cs_set "$SCANNER4"
	banned_dropped reached 7000 "the open 7000: dropped"
	mark crowdsec reached "the scanner, in $BAN, still reaches 7000" \
		reaches scanner "$HOST4" 7000 7000
	# What the watcher does within 10 s of a ban (CHAOS_REFRESH).
	h "$SVC/chaostables-load" refresh "$CONF" 2>/dev/null || true
	banned_dropped refused 808 "the closed 808: no answer of ours"
	t0=$(ban_tarpits)
	got=$(tcp_client scanner window "$HOST4" 807)
	t1=$(ban_tarpits)
	mark crowdsec answered "scanner's SYN to 807: $BAN's TARPIT, window 0 (got: $got; the rule's packets $t0 -> $t1)" \
		test "$got" = "window 0" -a "${t1:-0}" -gt "${t0:-0}"
	undecide "$CLIENT4"
	undecide "$SCANNER4"
}

# flushed: the admin's nft -f of a file that begins with flush ruleset;
# the watcher loads ours again and says why; dockerd and the bouncer
# would add theirs again when restarted.
flushed() {
	local t0=$SECONDS n0
	n0=$(grep -c 'loading them again' "$CONF/watch.log" || true)
	h nft -f - <<< "$NFTCONF"
	docker_chains
	cs_chains
	mark host flush "ours back within $BACK s" busywait $BACK loaded
	echo "# ours back $((SECONDS - t0)) s after the flush: $(h "$SVC/chaostables-load" check "$CONF")"
	mark host flush "the watcher loaded them again and said why" \
		test "$(grep -c 'loading them again' "$CONF/watch.log")" -gt "$n0"
	mark host flush "the watcher still runs" kill -0 "$WPID"
}

# fn PREFIX ROW: PREFIX_ROW, if there is one.
fn() { [ "$(type -t "$1_$2")" != function ] || "$1_$2"; }
# fresh: portscan's list emptied.
# (none while ours are gone).
fresh() { h sh -c 'echo / > /proc/net/xt_recent/portscan' 2>/dev/null || true; }

topology
for f in rules.v4 rules.v6; do
	sed -n 's/^#\([-*:]\|COMMIT\)/\1/p' "$SVC/$f" > "$CONF/$f"
done
crowdsec_rules "$CONF/rules.v4" "$BAN" || finish
crowdsec_rules "$CONF/rules.v6" "$(yaml_value blacklists_ipv6)" || finish
: > "$CONF/allowlist"
: > "$CONF/watch.log"
rm -rf /var/lib/chaostables
watch_start || { fail "the recommended ruleset loads (got: $(tail -n 3 "$CONF/watch.log"))"; finish; }
pass "the recommended ruleset loads, by the watcher"
t0=$SECONDS
for r in $ROWS; do
	fresh
	fn set "$r"
	fn up "$r"
	nofp "$r"
done
t1=$SECONDS
flushed
t2=$SECONDS
for r in $ROWS; do
	fresh
	AGAIN=1
	fn up "$r"
	AGAIN=
	fn down "$r"
	nofp "$r"
done
echo "# the rows' first pass $((t1 - t0)) s, the flush $((t2 - t1)) s, the second pass $((SECONDS - t2)) s"

echo "# the matrix, $SVC's rules on $(uname -r) (ok: each check of the cell passed; -: none)"
ROWS+=" host"
matrix_print role
h iptables-save -c -t mangle | grep chaostables | sed 's/^/# /'
finish
