#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 2400
# chaostables beside the base firewall an admin really has. The
# chaostables package installed (not chaostables-dkms: vm/run's modules),
# its recommended ruleset (/etc/chaostables/rules.v4 and v6, uncommented)
# loaded by its own loader in namespace "host" (lib.sh's topology), beside
# each base firewall in turn, loaded and reloaded by the base's own
# command and files:
#
#   nftables     /etc/nftables.conf in Debian's layout (flush ruleset;
#                table inet filter, input policy drop), nft -f
#   np-legacy    netfilter-persistent, /etc/iptables/rules.v4 and v6
#   np-nft       (INPUT policy DROP), iptables-legacy or iptables-nft
#   docker       nftables' base and Docker's chains: a published port
#                (DNAT from host:25 to a container's 25), iptables-nft
#   ufw          ufw enable (default deny incoming), iptables-nft
# (docker and ufw in Debian 13's guest only).
#
# Each base accepts lo, established flows, ICMP and TCP 22 and 80, where
# servers listen. The columns, IPv4 and IPv6:
#   reach    a client gets the services' answers (22, 80; docker: the
#            container's 25 through the host), the host's own connection
#            out works; (nftables) a monitor's health check from the
#            allowlist does not make it a remembered scanner, the same
#            check from the scanner does
#   closed   a closed port (1000) is answered by chaostables: the
#            scanner's connect succeeds, our answering rules count
#   twice    a second start changes nothing (ours once, the same rules)
#   reload   the base reloaded, as its service does (nftables.service's
#            reload propagates to chaostables.service: run here in that
#            order; netfilter-persistent's and ufw's reload run as they
#            are): reach and closed still hold, ours once
#   save     netfilter-persistent save writes nothing of ours
#   stop     chaostables-load stop: nothing of ours left, the base's
#            rules as before the start, reach holds, 1000 unanswered
#   missing  then our modules gone: the loader fails naming kernel and
#            module, loads nothing; reach holds, 1000 unanswered (the
#            base's drop)
source "$(dirname "$0")/package_lib.inc"
source "$(dirname "$0")/../lib/matrix.inc"
trap 'rc=$?; reload_preloaded; (exit $rc); cleanup' EXIT
require nc nft netfilter-persistent ipset socat update-alternatives modinfo

LOADER=/usr/libexec/chaostables-load
UNITS=/var/cache/chaostables-units
CTR4=172.17.0.2 CTR6=fd00:17::2
COLUMNS="reach closed twice reload save stop missing"
preloaded=()
unloaded=
declare -A cell

# EXIT: whatever loaded, vm/run's modules are back for its unload check.
reload_preloaded() {
	[ -n "$unloaded" ] || return 0
	cleanup_namespaces
	load_preloaded
}
# The kernel's modules ours need may have gone meanwhile (an unload of
# the last user): modprobe them first, as vm/run's guest-init does.
load_preloaded() {
	local m ko d
	for m in "${preloaded[@]}"; do
		ko=$TOP/build/$KVER/kernel/$m.ko
		[ ! -d "/sys/module/$m" ] || continue
		for d in $(modinfo -F depends "$ko" | tr , ' '); do
			[ -d "/sys/module/$d" ] || modprobe "$d" || true
		done
		insmod "$ko" || true
	done
}

NFT_CONF='#!/usr/sbin/nft -f
flush ruleset

table inet filter {
	chain input {
		type filter hook input priority filter; policy drop;
		iif lo accept
		ct state established,related accept
		meta l4proto { icmp, ipv6-icmp } accept
		tcp dport { 22, 80 } accept
	}
	chain forward {
		type filter hook forward priority filter;
	}
	chain output {
		type filter hook output priority filter;
	}
}'
NP4='*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
-A INPUT -i lo -j ACCEPT
-A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
-A INPUT -p icmp -j ACCEPT
-A INPUT -p tcp -m multiport --dports 22,80 -j ACCEPT
COMMIT'
NP6=${NP4//-p icmp/-p ipv6-icmp}
# What dockerd adds for "-p 25:25" to a container at CTR4/CTR6.
DOCKER4="*nat
:DOCKER - [0:0]
-A PREROUTING -m addrtype --dst-type LOCAL -j DOCKER
-A OUTPUT ! -d 127.0.0.0/8 -m addrtype --dst-type LOCAL -j DOCKER
-A POSTROUTING -s 172.17.0.0/16 ! -o docker0 -j MASQUERADE
-A DOCKER -i docker0 -j RETURN
-A DOCKER ! -i docker0 -p tcp -m tcp --dport 25 -j DNAT --to-destination $CTR4:25
COMMIT
*filter
:DOCKER - [0:0]
:DOCKER-USER - [0:0]
-A FORWARD -j DOCKER-USER
-A FORWARD -o docker0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A FORWARD -o docker0 -j DOCKER
-A FORWARD -i docker0 ! -o docker0 -j ACCEPT
-A DOCKER -d $CTR4/32 ! -i docker0 -o docker0 -p tcp -m tcp --dport 25 -j ACCEPT
-A DOCKER-USER -j RETURN
COMMIT"
DOCKER6=${DOCKER4//127.0.0.0\/8/::1\/128}
DOCKER6=${DOCKER6//172.17.0.0\/16/fd00:17::\/64}
DOCKER6=${DOCKER6//$CTR4:25/[$CTR6]:25}
DOCKER6=${DOCKER6//$CTR4\/32/$CTR6\/128}

# h CMD...: in host.
h() { ns host "$@"; }

# alternative legacy|nft: the admin's iptables, as update-alternatives
# sets it (netfilter-persistent and ufw run plain iptables).
alternative() {
	local c
	for c in iptables ip6tables; do
		update-alternatives --quiet --set "$c" "/usr/sbin/$c-$1"
	done
}

# base_load ROW / base_reload ROW: the base firewall, by its own means.
base_load() {
	case $1 in
	nftables) h nft -f /etc/nftables.conf ;;
	np-*) h netfilter-persistent start > /dev/null 2>&1 ;;
	docker)
		h nft -f /etc/nftables.conf
		docker_rules
		;;
	ufw) h ufw --force enable > /dev/null ;;
	esac
}
base_reload() {
	case $1 in
	nftables)
		# systemctl reload nftables: its ExecReload, then ours
		# (ReloadPropagatedFrom=nftables.service).
		h nft -f /etc/nftables.conf && h "$LOADER" start 2> /dev/null
		;;
	np-*) h netfilter-persistent reload > /dev/null 2>&1 ;;
	docker)
		# systemctl restart docker: dockerd makes its tables again.
		h iptables-restore <<< "$DOCKER4" && h ip6tables-restore <<< "$DOCKER6"
		;;
	ufw) h ufw reload > /dev/null ;;
	esac
}
docker_rules() {
	h iptables-restore --noflush <<< "$DOCKER4" &&
		h ip6tables-restore --noflush <<< "$DOCKER6"
}

# base_dump ROW: the base firewall's rules, counters zeroed.
base_dump() {
	case $1 in
	nftables) h nft list table inet filter ;;
	docker)
		h nft list table inet filter
		h iptables-save -t nat; h iptables-save -t filter
		h ip6tables-save -t nat; h ip6tables-save -t filter
		;;
	*) h iptables-save -t filter; h ip6tables-save -t filter ;;
	esac | grep -v '^#' | sed 's/\[[0-9]*:[0-9]*\]/[0:0]/'
}

# tables: host's tables now, both variants, and nft's own listing, for
# ours and jumps (each save is a slow process start under TCG: one
# snapshot serves both).
tables() {
	nft_saves=$({ h iptables-nft-save; h ip6tables-nft-save; } 2> /dev/null)
	legacy_saves=$({ h iptables-legacy-save; h ip6tables-legacy-save; } 2> /dev/null)
	nft_list=$(h nft list ruleset 2> /dev/null)
}
# ours: every line of ours in every table of the last snapshot, counters
# zeroed, sorted (nft lists a chain made again last).
ours() {
	printf '%s\n' "$nft_saves" "$legacy_saves" "$nft_list" |
		grep -E 'chaostables' | sed 's/\[[0-9]*:[0-9]*\]/[0:0]/;
		s/counter packets [0-9]* bytes [0-9]*/counter/' | sort
}

# jumps: how many jumps into our chains the last snapshot holds, all
# variants.
jumps() {
	{
		grep -E 'jump chaostables-(INPUT|PREROUTING)$' <<< "$nft_list"
		grep -E '^-A [A-Z]+ -j chaostables-' <<< "$legacy_saves"
	} | wc -l
}

# answered: packets our answering rules took, IPv4 and IPv6.
answered() {
	{ h iptables-save -c -t mangle; h ip6tables-save -c -t mangle; } 2> /dev/null |
		awk '/^\[.*-A chaostables-.*-j (DELUDE|TARPIT|CHAOS)/ {
			split(substr($1, 2), c, ":"); n += c[1] } END { print n + 0 }'
}

# sock ADDR PORT: socat's address of a TCP connection to ADDR, PORT.
sock() { if [[ $1 = *:* ]]; then echo "TCP6:[$1]:$2"; else echo "TCP4:$1:$2"; fi; }
# reaches ADDR PORT: the client's request gets the server's answer. A
# guest on a busy machine may take seconds to fork the server's shell:
# the positive checks try again for 30 s (busywait), the negative ones
# need no more than one try.
reaches() {
	printf 'HELLO\r\n' | ns client timeout 20 socat -T 10 - "$(sock "$1" "$2")" 2>/dev/null |
		grep -q "^banner $2"
}
# out_ok ADDR: the host's own connection to the client's echo server.
out_ok() {
	echo ping | h timeout 20 socat -T 10 - "$(sock "$1" 7)" 2>/dev/null | grep -q '^banner 7'
}
# connects ADDR PORT: the scanner's connect gets a SYN/ACK.
connects() { ns scanner nc -z -w 3 "$1" "$2" 2>/dev/null; }

# mark ROW COLUMN WHAT OK: a PASS or FAIL line, and the matrix's cell.
mark() {
	local row=$1 col=$2 what=$3
	if [ "$4" = ok ]; then
		pass "$row: $col: $what"
		cell[$row,$col]=${cell[$row,$col]:-ok}
	else
		fail "$row: $col: $what"
		cell[$row,$col]=FAIL
	fi
}
# check ROW COLUMN WHAT CMD...: mark by CMD's status.
check() {
	local row=$1 col=$2 what=$3
	shift 3
	if "$@"; then mark "$row" "$col" "$what" ok; else mark "$row" "$col" "$what" bad; fi
}
# check_not ROW COLUMN WHAT CMD...: mark by CMD's failure.
check_not() {
	local row=$1 col=$2 what=$3
	shift 3
	if "$@"; then mark "$row" "$col" "$what" bad; else mark "$row" "$col" "$what" ok; fi
}
# check_eq ROW COLUMN WHAT EXPECTED GOT
check_eq() {
	if [ "$4" = "$5" ]; then
		mark "$1" "$2" "$3" ok
	else
		mark "$1" "$2" "$3 (expected $4, got $5)" bad
	fi
}

# Under TCG, with make check's other guests on the same CPUs, each probe
# costs seconds: the first column of a row probes both families and both
# services, the later ones one service per family (22 over IPv4, 80 over
# IPv6) and one way out.

# reach ROW COLUMN: the services answer the client, the host gets out.
reach() {
	local a p probes="$HOST4:22 $HOST6:80 " out=$CLIENT4
	[ "$2" != reach ] || probes+="$HOST4:80 $HOST6:22" out+=" $CLIENT6"
	for a in $probes; do
		p=${a##*:} a=${a%:*}
		check "$1" "$2" "client reaches $a port $p" busywait 30 reaches "$a" "$p"
	done
	[ "$1" != docker ] ||
		check "$1" "$2" "client reaches the container through $HOST4 port 25" \
			busywait 30 reaches "$HOST4" 25
	for a in $out; do
		check "$1" "$2" "host connects out to $a" busywait 30 out_ok "$a"
	done
}
# closed ROW COLUMN FAMILY...: port 1000 answered by chaostables.
closed() {
	local a n0 n row=$1 col=$2
	shift 2
	n=$(answered)
	for a in "$@"; do
		n0=$n
		check "$row" "$col" "scanner's connect to $a port 1000 answered" busywait 30 connects "$a" 1000
		n=$(answered)
		check "$row" "$col" "our answering rules counted it ($n0 before)" test "$n" -gt "$n0"
	done
}
# unanswered ROW COLUMN ADDR...: port 1000 dropped by the base.
unanswered() {
	local a row=$1 col=$2
	shift 2
	for a in "$@"; do
		check_not "$row" "$col" "scanner's connect to $a port 1000 unanswered (base's drop)" \
			connects "$a" 1000
	done
}

# topology ROW: lib.sh's, servers on host (22, 80) and client (7), and
# for docker a container behind host's docker0.
topology() {
	local p
	setup_topology
	for p in 22 80; do
		tcp_server host $p "echo banner $p; exec cat"
	done
	tcp_server client 7 "echo banner 7; exec cat"
	if [ "$1" = docker ]; then
		setup_ns ctr
		ip link add docker0 netns host type veth peer name eth0 netns ctr
		h ip addr add 172.17.0.1/16 dev docker0
		h ip addr add fd00:17::1/64 dev docker0 nodad
		h ip link set docker0 up
		h sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
		ns ctr ip addr add $CTR4/16 dev eth0
		ns ctr ip addr add $CTR6/64 dev eth0 nodad
		ns ctr ip link set eth0 up
		ns ctr ip route add default via 172.17.0.1
		ns ctr ip route add default via fd00:17::1
		tcp_server ctr 25 "echo banner 25; exec cat"
		wait_for_tcp_listen ctr 25 v6
	fi
	for p in 22 80; do
		wait_for_tcp_listen host $p v6
	done
	wait_for_tcp_listen client 7 v6
}
teardown() {
	flush_rules host
	[ ! -e /run/netns/ctr ] || { ip netns pids ctr | xargs -r kill -KILL; del_netns ctr; }
	cleanup_namespaces
}

# remembered ADDR: ADDR is in xt_recent's list of scanners (IPv6
# exploded, python's once per address).
declare -A exploded
remembered() {
	local a=$1
	[[ $a != *:* ]] ||
		a=${exploded[$a]:=$(python3 -c 'import ipaddress, sys; print(ipaddress.ip_address(sys.argv[1]).exploded)' "$a")}
	h grep -q "src=$a " /proc/net/xt_recent/portscan
}
# allowlist ROW COLUMN: a monitor's health check (connect, close, no
# data: a connect scan to portscan) from the allowlist leaves its source
# unremembered; the same from the scanner does not.
allowlist() {
	local a r
	for a in "$HOST4" "$HOST6"; do
		ns router nc -z -w 3 "$a" 80 || fail "$1: the monitor's check of $a port 80 connects"
		ns scanner nc -z -w 3 "$a" 80 || fail "$1: the scanner's check of $a port 80 connects"
	done
	for r in "$ROUTER_HOST4" "$ROUTER_HOST6"; do
		check_not "$1" "$2" "the monitor $r, in the allowlist, is not remembered" remembered "$r"
	done
	for r in "$SCANNER4" "$SCANNER6"; do
		busywait 5 remembered "$r" || true
		check "$1" "$2" "the scanner $r, doing the same, is remembered" remembered "$r"
	done
}

# missing ROW: with the base alone in force (after stop), our modules
# gone: the loader fails and changes nothing; then vm/run's are back.
missing() {
	local row=$1 out rc=0
	unloaded=1
	unload_ours || { fail "$row: vm/run's modules unload (still loaded: $(loaded_ours))"; return; }
	out=$(h "$LOADER" start 2>&1) || rc=$?
	echo "# $row, modules missing: $LOADER start: status $rc"
	echo "#   ${out//$'\n'/$'\n'#   }"
	check_eq "$row" missing "loader fails" 1 "$rc"
	check "$row" missing "loader names the kernel and the module" \
		grep -q "no module xt_CHAOS for the running kernel $KVER" <<< "$out"
	check "$row" missing "loader says the base firewall stays" \
		grep -q "not loading.*the base firewall stays as it is" <<< "$out"
	tables
	check_eq "$row" missing "nothing of ours in the tables" "" "$(ours)"
	reach "$row" missing
	unanswered "$row" missing "$HOST4" "$HOST6"
	load_preloaded
	unloaded=
	check_eq "$row" missing "vm/run's modules loaded again" "$OUR_MODULES" "$(loaded_ours)"
}

# row ROW: the base up, then ours, through every column.
row() {
	local row=$1 before one two rc=0 out
	topology "$row"
	base_load "$row" || fail "$row: the base firewall loads"
	before=$(base_dump "$row")
	out=$(h "$LOADER" start 2>&1) || rc=$?
	check_eq "$row" reach "loader succeeds${out:+ ($out)}" 0 "$rc"
	reach "$row" reach
	[ "$row" != nftables ] || allowlist "$row" reach
	closed "$row" closed "$HOST4" "$HOST6"

	tables
	one=$(ours)
	h "$LOADER" start 2> /dev/null || fail "$row: second start succeeds"
	tables
	two=$(ours)
	check_eq "$row" twice "one jump into ours after two starts" 2 "$(jumps)"
	[ "$one" = "$two" ] || diff <(echo "$one") <(echo "$two") | sed 's/^/# /'
	check "$row" twice "the same rules of ours after two starts ($(wc -l <<< "$one") lines)" \
		test -n "$one" -a "$one" = "$two"
	check_eq "$row" twice "the base's rules unchanged" "$before" "$(base_dump "$row")"

	base_reload "$row" || fail "$row: the base firewall reloads"
	tables
	check_eq "$row" reload "our rules back after the base's reload" "$one" "$(ours)"
	check_eq "$row" reload "one jump into ours after the base's reload" 2 "$(jumps)"
	reach "$row" reload
	closed "$row" reload "$HOST4"

	if [[ $row = np-* ]]; then
		h netfilter-persistent save > /dev/null 2>&1 ||
			fail "$row: netfilter-persistent save"
		check_eq "$row" save "rules.v4 and rules.v6 saved without ours" "" \
			"$(grep chaostables /etc/iptables/rules.v4 /etc/iptables/rules.v6)"
		check "$row" save "rules.v4 saved with the base's rules" \
			grep -q -- '--dports 22,80 -j ACCEPT' /etc/iptables/rules.v4
		# The base as the admin had it, for the next row.
		echo "$NP4" > /etc/iptables/rules.v4
		echo "$NP6" > /etc/iptables/rules.v6
	fi

	rc=0
	h "$LOADER" stop 2> /dev/null || rc=$?
	check_eq "$row" stop "loader stops" 0 "$rc"
	tables
	check_eq "$row" stop "nothing of ours left" "" "$(ours)"
	check_eq "$row" stop "the base's rules as before the start" "$before" "$(base_dump "$row")"
	reach "$row" stop
	unanswered "$row" stop "$HOST4"
	missing "$row"
	teardown
}

overlay_root
for m in $OUR_MODULES; do
	[ ! -d "/sys/module/$m" ] || preloaded+=("$m")
done
[ ${#preloaded[@]} = 5 ] || { fail "vm/run loaded ${preloaded[*]:-none} of $OUR_MODULES (make modules KVER=$KVER)"; finish; }
[ ! -d /run/systemd/system ] || { fail "no systemd in the guest (the plugin would ask it)"; finish; }
timed "apt-get install of chaostables (without chaostables-dkms)" 600 \
	apt-get install -y -q --no-install-recommends "$PKG_DEBDIR"/chaostables_*.deb || finish
for f in rules.v4 rules.v6; do
	# The recommended ruleset, every rule line uncommented.
	sed -i 's/^#\([-*:]\|COMMIT\)/\1/' "/etc/chaostables/$f"
done
# The router stands for a monitor.
printf '%s\n' "$ROUTER_HOST4/32" "$ROUTER_HOST6/128" >> /etc/chaostables/allowlist
echo "$NFT_CONF" > /etc/nftables.conf
mkdir -p /etc/iptables
echo "$NP4" > /etc/iptables/rules.v4
echo "$NP6" > /etc/iptables/rules.v6

# Debian 12's guest (6.1) has the base firewalls of Debian 12's admins;
# Docker's chains and ufw, iptables-nft users that no kernel series
# changes, only Debian 13's: make check's time is shared.
BASES="nftables np-legacy np-nft"
[ "$(. /etc/os-release && echo "$VERSION_ID")" = 12 ] || BASES+=" docker"
ROWS=$BASES
for r in $BASES; do
	case $r in np-legacy) alternative legacy ;; *) alternative nft ;; esac
	row "$r"
done

# ufw breaks netfilter-persistent: it goes, ufw comes (the overlay only).
alternative nft
if [[ $BASES = *docker* ]] && ROWS+=" ufw" && timed "netfilter-persistent removed, ufw installed" 600 sh -c \
	"dpkg --purge iptables-persistent netfilter-persistent &&
	 dpkg -i $UNITS/ufw_*.deb"; then
	# Inactive, ufw only writes its files; ufw enable loads them.
	ufw default deny incoming > /dev/null
	ufw allow 22/tcp > /dev/null
	ufw allow 80/tcp > /dev/null
	row ufw
fi

echo "# the matrix (ok: each check of the cell passed; -: none for that row)"
matrix_print base
finish
