#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# The manual's ruleset in the root's iptables, the same for each kernel:
# vm-field-root
# The recommended ruleset (doc/ruleset.md, the guide), as written
# there, does what the manual says, IPv4 and IPv6: the base firewall
# (its /etc/nftables.conf, nft -f) and then /etc/chaostables/rules.vN
# by service/chaostables-load, as chaostables.service loads them, in
# host; nmap from scanner, a legitimate client from client.
#
#  scanner 10.0.1.2 --- router --- host 10.0.3.2: the ruleset, services
#  client  10.0.2.2 ---/           on 22 and 80 (the base firewall's SSH
#                                  and HTTP)
#
# For each family:
# - mangle INPUT's first rule jumps to chaostables-INPUT, whose portscan
#   rule comes before the ESTABLISHED return;
# - a client reaches the service on 80, and is not remembered;
# - nmap -sS of ports 20-26, 80, 1020-1030: 22 and 80 open, no port closed
#   (DELUDE and TARPIT answer SYN/ACK, CHAOS stays mostly silent), the
#   portscan rule counted the scan and the scanner is in xt_recent's
#   list "portscan";
# - a second -sS of 1024-1030 (CHAOS's ports): the remembered scanner
#   sees them all open (TARPIT's rule counts),
#   and its connection to 1027 is held (TARPIT: open, zero window, no RST);
# - the client's connection to port 25 is held as well (a spam bot's);
# - nmap -sU of 5000-5004: the last rule, CHAOS for UDP, counts;
# - the client still reaches the service;
# - chaostables-load stop leaves the base firewall alone in force.
# Each with iptables-nft and iptables-legacy in turn.
set -e
source "$(dirname "$0")/../lib/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
VARIANTS="nft legacy"
BIN=$(mktemp -d)
EX=$(mktemp -d)
trap 'rc=$?; flush_rules host; rm -rf "$BIN" "$EX"; (exit $rc); cleanup' EXIT

require python3 nmap socat iptables-legacy iptables-nft nft ipset

for V in $VARIANTS; do
	ipt_variant_dir "$V" "$BIN/$V"
done
# h CMD...: in host, with the variant $V's iptables first in PATH.
h() { ns host env PATH="$BIN/$V:$PATH" "$@"; }

# The scanner's and the client's IPv6 addresses as xt_recent lists them
# (written out in full).
read -r SCANNER6_FULL CLIENT6_FULL < <(python3 -c 'import ipaddress, sys; print(*(ipaddress.ip_address(a).exploded for a in sys.argv[1:]))' "$SCANNER6" "$CLIENT6")

list=$(python3 "$TOP/tests/net/helpers/doc_examples.py" "$EX" "$TOP/doc/ruleset.md")
manual_example "# /etc/nftables.conf" > "$EX/nftables.conf" ||
	{ fail "the manual has an /etc/nftables.conf example"; finish; }
mkdir "$EX/conf"

# counter FAMILY PATTERN: packets of the first rule whose save line
# matches PATTERN.
counter() {
	local ipt=iptables
	[ "$1" = 4 ] || ipt=ip6tables
	h "$ipt-save" -c | grep -E -- "$2" | head -n 1 |
		sed -n 's/^\[\([0-9]*\):.*/\1/p'
}

# reaches ADDR: the client sends a request and gets the service's
# banner (a client that sends nothing is a banner grabber, --grscan).
reaches() {
	printf 'GET / HTTP/1.0\r\n\r\n' |
		ns client timeout 15 socat -t 10 -T 10 - "TCP:$1:80" 2>/dev/null |
		grep -q '^HTTP/1.0 200 OK'
}

# ports_in STATE: the ports $SCAN_OUT reports in STATE, space separated.
ports_in() {
	sed -n 's/.*Ports: //p' <<< "$SCAN_OUT" | tr ',' '\n' |
		awk -F/ -v s="$1" '$2 == s { gsub(/ /, "", $1); print $1 }' |
		sort -n | xargs
}

setup_topology
start_tcp_server host 22 "SSH-2.0-OpenSSH_9.2p1"
start_tcp_server host 80 "HTTP/1.0 200 OK"

for V in $VARIANTS; do
for f in 4 6; do
	id=$(awk -F'\t' -v k="restore$f" '$2 == k && $3 == "noflush" && $4 ~ /EXAMPLES|rules\.v/ { print $1; exit }' <<< "$list")
	if [ -z "$id" ]; then
		fail "IPv$f: the manual has a /etc/chaostables/rules.v$f example (got none)"
		continue
	fi
	eval "host=\$HOST$f scanner=\$SCANNER$f client=\$CLIENT$f"
	[ $f = 4 ] || scanner=$SCANNER6_FULL client=$CLIENT6_FULL
	addr=$host
	[ $f = 4 ] || addr="[$host]"
	ipt=iptables
	[ $f = 4 ] || ipt=ip6tables
	what="IPv$f ($V)"
	six=()
	[ $f = 4 ] || six=(-6)

	rm -f "$EX"/conf/rules.v*
	cp "$EX/$id" "$EX/conf/rules.v$f"
	if ! out=$(h nft -f "$EX/nftables.conf" 2>&1) ||
	   ! out=$(h "$TOP/service/chaostables-load" start "$EX/conf" 2>&1); then
		fail "$what: the ruleset loads (got: $out)"
		continue
	fi
	out=$(h "$ipt-save" -t mangle)
	expect "$what: mangle INPUT's first rule jumps to ours" "-A INPUT -j chaostables-INPUT" \
		"$(grep -m1 '^-A INPUT' <<< "$out")"
	expect "$what: the portscan rule before the ESTABLISHED return" "*-m portscan*" \
		"$(grep -m1 -e '-m portscan' -e '--ctstate' <<< "$out")"

	if busywait 45 reaches "$addr"; then
		pass "$what: client reaches the service"
	else
		fail "$what: client reaches the service (expected its banner, got none)"
	fi

	scan 180 -sS -T4 --max-retries 2 --host-timeout 150s \
		-p 20-26,80,1020-1030 "${six[@]}" "$host"
	scan_done && pass "$what: nmap -sS finished (${SCAN_TIME}s)" ||
		fail "$what: nmap -sS finished (expected it within 180 s, got: $(tail -n 2 <<< "$SCAN_OUT"))"
	expect "$what: nmap -sS: 22 and 80 open" "* 22 *80 *" " $(ports_in open) "
	expect "$what: nmap -sS: no port closed" "" "$(ports_in closed)"
	n=$(counter $f '-m portscan')
	if [ "${n:-0}" -gt 0 ]; then
		pass "$what: the portscan rule counted the scan ($n)"
	else
		fail "$what: the portscan rule counted the scan (expected >0 packets, got ${n:-none})"
	fi
	recent=$(ns host cat /proc/net/xt_recent/portscan 2>/dev/null || true)
	if grep -q "src=$scanner " <<< "$recent"; then
		pass "$what: the scanner is remembered"
	else
		fail "$what: the scanner is remembered (expected src=$scanner in xt_recent portscan, got: ${recent:-nothing})"
	fi
	if grep -q "src=$client " <<< "$recent"; then
		fail "$what: the client is not remembered (got: $recent)"
	else
		pass "$what: the client is not remembered"
	fi

	scan 180 -sS -T4 --max-retries 2 --host-timeout 150s \
		-p 1024-1030 "${six[@]}" "$host"
	expect "$what: a remembered scanner sees 1024-1030 open" \
		"1024 1025 1026 1027 1028 1029 1030" "$(ports_in open)"
	# The two holds and the UDP scan side by side, as they take 8 s or
	# more each: TCP from two sources to two ports, and UDP, which no
	# rule before the last looks at.
	# The manual: "its connections hang". The segments after TARPIT's
	# SYN/ACK belong to no tracked flow: the portscan rule must not
	# class them and end the hold.
	tcp_client scanner hold "$host" 1027 8 > "$EX/hold.scanner" &
	holds=$!
	# A spam bot on port 25, never a scanner: held too, its segments
	# after TARPIT's SYN/ACK not classed as stealth probes.
	tcp_client client hold "$host" 25 8 > "$EX/hold.client" &
	holds+=" $!"
	scan 120 -sU -T4 --max-retries 1 --host-timeout 100s \
		-p 5000-5004 "${six[@]}" "$host"
	# shellcheck disable=SC2086
	wait $holds
	expect "$what: a remembered scanner's connection is held" "held *" \
		"$(cat "$EX/hold.scanner")"
	n=$(counter $f '-m recent --rcheck .*-j TARPIT')
	if [ "${n:-0}" -gt 0 ]; then
		pass "$what: the remembered-scanner rule counted ($n)"
	else
		fail "$what: the remembered-scanner rule counted (expected >0 packets, got ${n:-none})"
	fi
	expect "$what: a new source's connection to port 25 is held" "held *" \
		"$(cat "$EX/hold.client")"

	n=$(counter $f '^\[[0-9:]*\] -A chaostables-INPUT -p udp -j CHAOS')
	if [ "${n:-0}" -gt 0 ]; then
		pass "$what: CHAOS's rule for UDP counted ($n)"
	else
		fail "$what: CHAOS's rule for UDP counted (expected >0 packets, got ${n:-none})"
	fi

	# A TCG guest on a busy host may miss one client's 10 s: retry.
	if busywait 45 reaches "$addr"; then
		pass "$what: client still reaches the service"
	else
		fail "$what: client still reaches the service (expected its banner, got none)"
		h "$ipt-save" -c | sed 's/^/# /'
		ns host cat /proc/net/xt_recent/portscan | sed 's/^/# recent: /'
	fi
	if out=$(h "$TOP/service/chaostables-load" stop "$EX/conf" 2>&1); then
		expect "$what: stop leaves nothing of ours" "" \
			"$(h "$ipt-save" | grep chaostables)"
	else
		fail "$what: chaostables-load stop (got: $out)"
	fi
	if busywait 45 reaches "$addr"; then
		pass "$what: after stop, client reaches the service"
	else
		fail "$what: after stop, client reaches the service (expected its banner, got none)"
	fi
	flush_rules host
	for t in mangle filter; do
		ns host "$ipt-$V" -t $t -F
		ns host "$ipt-$V" -t $t -X
	done
done
done
finish
