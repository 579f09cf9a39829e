#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
# Debian's fail2ban, ipset and the shipped files with our rules, the same
# for each kernel (the classes and the hold: portscan_*.sh, tarpit.sh):
# vm-field-root
# A fleet of two hosts banning a scanner together, with Debian's fail2ban
# and the files the package ships (examples/fail2ban: filter, jail,
# action), unchanged: the jail enabled by a .local file, as the manual
# says, that only points it at the test's log, shortens the ban and names
# the fleet (the two namespaces, through ip netns exec instead of ssh;
# the polling backend on dmesg's output instead of the journal: the
# shipped ssh and journal paths are not run here), a host that is down
# ("down": each command to it hangs until the action's fleet_timeout
# cuts it) and a peer to pull the current bans from (the router).
#
#  scanner 10.0.1.2 ---+               +--- host  10.0.3.2  (host 1)
#          fd00:1::2   |               |          fd00:3::2
#                      +--- router ----+
#  client  10.0.2.2 ---+               +--- host2 10.0.4.2  (host 2)
#          fd00:2::2                              fd00:4::2
#
#  host, host2: the manual's base firewall (doc/ruleset.md's /etc/nftables.conf)
#    and the fleet ruleset of doc/fleet.md (tests/net/helpers/
#    doc_examples.py extracts it) by service/chaostables-load, its sets;
#    services on 22 (banner, echo), 80 (echo), 443 (banner, close)
#  root namespace: dmesg --follow-new > kern.log (the kernel's LOG lines
#    of both hosts, net.netfilter.nf_log_all_netns=1); fail2ban-server in
#    the foreground reads it, its action runs
#    "ip netns exec host|host2 ipset add chaostables-ban[6] SRC timeout T"
#
# Then, IPv4 and IPv6 at once:
# - the jail's start copies the peer's current bans (an address in each
#   of the router's sets) to both hosts, with their remaining time;
# - the client runs normal traffic to both hosts (the portscan false-
#   positive clients: request/echo, banner/answer, bulk, server closes)
#   before, during and after the scans;
# - the scanner SYN-scans host 1 only; it is in host 2's set within
#   BAN_SECS of the scan's start (the figure is printed), and in host 1's,
#   the down host notwithstanding: every command to it was cut after
#   FLEET_TIMEOUT;
# - on host 2, which it never scanned, the set's rule holds its TCP in
#   TARPIT (zero window; the rule counts), before the ban it counted none;
# - the client is never banned, never logged, and its traffic never
#   failed;
# - the ban expires after BANTIME: host 2 stands for a host that runs no
#   fail2ban (fail2ban's unban never reaches it, as the manual allows):
#   its entry leaves by ipset's timeout alone; host 1's leaves too; then
#   the scanner's connection to host 2's port 25 is held by the port's
#   own TARPIT rule, no longer by the set's.
set -e
source "$(dirname "$0")/../lib/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BANTIME=40
BAN_SECS=90
FLEET_TIMEOUT=8
PEER4=203.0.113.9 PEER6=2001:db8:ffff::9
F2B=$(mktemp -d)
EX=$F2B/examples
LOG=$F2B/kern.log
STOP=$F2B/stop
NAMESPACES="$NAMESPACES host2"
HOST2_4=10.0.4.2 HOST2_6=fd00:4::2
old_all_netns=
# set -e holds in a trap too: nothing of the cleanup may end it early or
# change the test's status.
trap 'rc=$?; set +e; touch "$STOP"; stop_jobs; [ -z "$old_all_netns" ] ||
	sysctl -qw net.netfilter.nf_log_all_netns="$old_all_netns";
	flush_rules host host2; rm -rf "$F2B"; (exit $rc); cleanup' EXIT

require python3 nmap socat ipset nft fail2ban-server fail2ban-client dmesg \
	iptables-legacy iptables-nft stdbuf

# The manual's fleet ruleset: the rules files that use the sets, their
# base firewall and the sets they need.
mkdir -p "$EX"
list=$(python3 "$TOP/tests/net/helpers/doc_examples.py" "$EX" "$TOP/doc/fleet.md")
declare -A RULES
for f in 4 6; do
	for id in $(awk -F'\t' -v k="restore$f" '$2 == k && $3 == "noflush" { print $1 }' <<< "$list"); do
		! grep -q -- '--match-set chaostables-ban' "$EX/$id" || RULES[$f]=$id
	done
	[ -n "${RULES[$f]:-}" ] && [ -s "$EX/${RULES[$f]}.sets" ] ||
		{ fail "the manual has a v$f fleet ruleset with its sets"; finish; }
	mkdir -p "$EX/conf"
	cp "$EX/${RULES[$f]}" "$EX/conf/rules.v$f"
done
manual_example "# /etc/nftables.conf" > "$EX/nftables.conf" ||
	{ fail "the manual has an /etc/nftables.conf example"; finish; }

setup_topology
_link host2 10.0.4 fd00:4
old_all_netns=$(sysctl -n net.netfilter.nf_log_all_netns)
sysctl -qw net.netfilter.nf_log_all_netns=1

# Host 1 with iptables-legacy, host 2 with iptables-nft.
declare -A VARIANT=([host]=legacy [host2]=nft)
for h in host host2; do
	ns "$h" bash -e "$EX/${RULES[4]}.sets"
	ns "$h" nft -f "$EX/nftables.conf"
	ipt_variant_dir "${VARIANT[$h]}" "$EX/bin-$h"
	out=$(ns "$h" env PATH="$EX/bin-$h:$PATH" "$TOP/service/chaostables-load" start "$EX/conf" 2>&1) ||
		{ fail "$h: the fleet ruleset loads (got: $out)"; finish; }
	tcp_server "$h" 22 "echo SSH-2.0-OpenSSH_9.2p1; exec cat"
	tcp_server "$h" 80 "exec cat"
	tcp_server "$h" 443 "echo 220 closing"
done
for h in host host2; do
	for p in 22 80 443; do
		wait_for_tcp_listen "$h" $p v6
	done
done

# rulepkts NS FAMILY REGEX: packets of the rule whose save line matches
# REGEX (sed's).
rulepkts() {
	local ipt=iptables
	[ "$2" = 4 ] || ipt=ip6tables
	ns "$1" "$ipt-${VARIANT[$1]}-save" -c | sed -n "s/^\[\([0-9]*\):.*$3.*/\1/p"
}
# setpkts NS FAMILY: packets of the set's TARPIT rule.
setpkts() { rulepkts "$1" "$2" '--match-set chaostables-ban6\{0,1\} src -j TARPIT'; }
# smtppkts NS FAMILY: packets of port 25's own TARPIT rule.
smtppkts() { rulepkts "$1" "$2" '--dport 25 -j TARPIT'; }
# banned NS FAMILY ADDR: ADDR is in NS's set.
banned() {
	local set=chaostables-ban
	[ "$2" = 4 ] || set=chaostables-ban6
	ns "$1" ipset test "$set" "$3" 2>/dev/null
}
now() { echo "$EPOCHREALTIME"; }
secs() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", e - s }'; }

# The kernel log, as a syslog daemon would keep it.
stdbuf -oL dmesg --follow-new --time-format iso > "$LOG" 2>"$LOG.err" &

# fail2ban: its own config directory, the shipped files linked in.
mkdir -p "$F2B"/{filter.d,action.d,jail.d}
for f in filter.d/chaostables.conf action.d/chaostables-ipset.conf \
	 jail.d/chaostables.conf; do
	ln -s "$TOP/examples/fail2ban/$f" "$F2B/$f"
done
# allowipv6: fail2ban 1.0 (Debian 12) would start the action's IPv6
# half, and copy the peer's IPv6 bans, only at the first IPv6 ban, as
# this guest's names resolve to no IPv6 address (the manual says so).
cat > "$F2B/fail2ban.conf" <<EOF
[Definition]
loglevel = INFO
logtarget = $F2B/fail2ban.log
socket = $F2B/fail2ban.sock
pidfile = $F2B/fail2ban.pid
dbfile = :memory:
allowipv6 = yes
EOF
echo '[DEFAULT]' > "$F2B/jail.conf"
cat > "$F2B/jail.d/chaostables.local" <<EOF
[chaostables]
enabled = true
backend = polling
logpath = $LOG
bantime = $BANTIME
action = chaostables-ipset[fleet="host host2 down", fleet_exec="$F2B/fleet-exec \$h", fleet_timeout=$FLEET_TIMEOUT, fleet_peer=router]
EOF
# The way to the fleet's hosts (ssh in the manual): ip netns exec. Host 2
# takes bans but no unban (each one it is sent is dropped and written to
# unban-dropped): its entries can only leave by their ipset timeout.
# "down" answers nothing: each command to it is written to down.log, and
# so is its end by the action's timeout ("cut").
cat > "$F2B/fleet-exec" <<EOF
#!/bin/bash
h=\$1
shift
if [ "\$h" = down ]; then
	echo "start \$*" >> "$F2B/down.log"
	trap 'kill \$!; echo "cut \$*" >> "$F2B/down.log"; exit 1' TERM
	sleep 600 &
	wait \$!
	exit 1
fi
if [ "\$h" = host2 ] && [[ " \$* " == *" del "* ]]; then
	echo "\$*" >> "$F2B/unban-dropped"
	exit 0
fi
exec ip netns exec "\$h" "\$@"
EOF
chmod 755 "$F2B/fleet-exec"
# The peer's current bans, made while the hosts' jail was away.
ns router ipset create chaostables-ban hash:ip timeout 0
ns router ipset create chaostables-ban6 hash:ip family inet6 timeout 0
ns router ipset add chaostables-ban $PEER4 timeout 3000
ns router ipset add chaostables-ban6 $PEER6 timeout 3000
f2b() { fail2ban-client -c "$F2B" -s "$F2B/fail2ban.sock" "$@"; }
fail2ban-server -f -x -c "$F2B" -s "$F2B/fail2ban.sock" \
	-p "$F2B/fail2ban.pid" > "$F2B/server.out" 2>&1 &
if busywait 90 f2b status chaostables >/dev/null 2>&1; then
	pass "fail2ban $(fail2ban-server -V 2>/dev/null | head -n 1) runs the shipped jail"
else
	fail "fail2ban runs the shipped jail (got: $(tail -n 5 "$F2B/server.out" "$F2B/fail2ban.log" 2>&1 | tr '\n' ' '))"
	finish
fi
# left NS FAMILY ADDR: the seconds left of ADDR's entry in NS's set.
left() {
	local set=chaostables-ban
	[ "$2" = 4 ] || set=chaostables-ban6
	ns "$1" ipset list "$set" | sed -n "s/^$3 timeout \([0-9]*\)\$/\1/p"
}
pulled() {
	local h
	for h in host host2; do
		banned "$h" 4 $PEER4 && banned "$h" 6 $PEER6 || return 1
	done
}
# Each family's start, one after the other, asks every host to create
# the set, then to restore the peer's bans: each step waits for the down
# host's cut, FLEET_TIMEOUT.
tp=$(now)
if busywait $((2 * 2 * FLEET_TIMEOUT + 30)) pulled; then
	pass "the jail's start pulled the peer's bans to both hosts in $(secs "$tp" "$(now)")s (seconds left: $(left host 4 $PEER4), $(left host2 6 $PEER6) of 3000)"
else
	fail "the jail's start pulled the peer's bans (expected $PEER4 and $PEER6 on both hosts, got: $(for h in host host2; do echo "$h:"; ns $h ipset list -o plain 2>&1 | grep timeout; done | tr '\n' ' '))"
fi
for f in 4 6; do
	eval "p=\$PEER$f"
	t=$(left host $f "$p")
	if [ "${t:-0}" -le 0 ] || [ "$t" -gt 3000 ]; then
		fail "v$f: the pulled entry kept its remaining time (expected 1..3000 s, got '$t')"
	fi
done

# The legitimate client's traffic, in a loop until $STOP.
CL="$TOP/tests/net/helpers/portscan_client.py"
legit() {
	local h out
	while [ ! -e "$STOP" ]; do
		for h in "$HOST4" "$HOST2_4" "$HOST6" "$HOST2_6"; do
			for c in "http $h 80" "talk $h 22" "bulk $h 80 200000" \
				 "eof $h 443"; do
				# shellcheck disable=SC2086
				out=$(ns client timeout 30 python3 "$CL" $c 2>&1) || true
				case $out in
				"echoed "[1-9]* | "banner "[1-9]*" echoed "[1-9]* | \
				"sent "*" received "[1-9]* | "received "[1-9]*)
					echo "ok $c" ;;
				*) echo "FAILED $c: $out" ;;
				esac
			done
		done
	done
}
legit > "$F2B/legit.out" 2>&1 &
LEGIT=$!
busywait 60 grep -q "^ok " "$F2B/legit.out" ||
	fail "the client's traffic runs (got: $(tail -n 3 "$F2B/legit.out"))"

for f in 4 6; do
	expect "v$f: before the scan host 2's set rule counted nothing" 0 \
		"$(setpkts host2 $f)"
done

# hold_scanner F: as soon as the scanner (family F) is banned, host 2,
# which it never scanned, holds it on a port host 2 does not serve; then
# the scanner drops that connection's orphan, which would go on probing
# once the ban is over, be classified and remembered as a scan, and hold
# the check of port 25 below by the portscan list's rule.
hold_scanner() {
	local h2 ipt=iptables-legacy
	eval "h2=\$HOST2_$1"
	[ "$1" = 4 ] || ipt=ip6tables-legacy
	CLIENT_SECS=30 tcp_client scanner hold "$h2" 5000 3 > "$F2B/hold$1"
	ns scanner "$ipt" -A OUTPUT -p tcp --dport 5000 -j DROP
}
ns scanner sysctl -qw net.ipv4.tcp_retries2=3

# The scans of host 1, v4 and v6 at once.
NMAP=()
HOLD=()
t0=$(now)
for f in 4 6; do
	eval "h1=\$HOST$f"
	six=()
	[ $f = 4 ] || six=(-6)
	{ scan 120 -sS -T4 --max-retries 1 --host-timeout 100s -p 1-100 \
		"${six[@]}" "$h1"; echo "$SCAN_OUT" > "$F2B/nmap$f.out"; } &
	NMAP[$f]=$!
done
declare -A BANNED_AT LOGGED_AT
LOGSRC=([4]="SRC=$SCANNER4 " [6]="SRC=fd00:0001:0000:0000:0000:0000:0000:0002 ")
waitban() {
	local f
	for f in 4 6; do
		[ -n "${LOGGED_AT[$f]:-}" ] || ! grep -q "${LOGSRC[$f]}" "$LOG" ||
			LOGGED_AT[$f]=$(now)
		[ -z "${BANNED_AT[$f]:-}" ] || continue
		eval "banned host2 $f \$SCANNER$f" || continue
		BANNED_AT[$f]=$(now)
		hold_scanner $f &
		HOLD[$f]=$!
	done
	[ -n "${BANNED_AT[4]:-}" ] && [ -n "${BANNED_AT[6]:-}" ]
}
busywait "$BAN_SECS" waitban || true
for f in 4 6; do
	eval "s=\$SCANNER$f"
	if [ -n "${BANNED_AT[$f]:-}" ]; then
		d=$(secs "$t0" "${BANNED_AT[$f]}")
		echo "# fleet timing v$f: scan start -> ban on host 2: ${d}s (first log line after $(secs "$t0" "${LOGGED_AT[$f]:-$t0}")s)"
		pass "v$f: scanner $s banned on host 2 within ${BAN_SECS}s of the scan's start (${d}s)"
	else
		fail "v$f: scanner $s banned on host 2 (expected within ${BAN_SECS}s, got no entry; fail2ban: $(grep -E 'Ban|ERROR' "$F2B/fail2ban.log" | tail -n 3 | tr '\n' ' '))"
	fi
	if banned host $f "$s"; then
		pass "v$f: scanner banned on host 1 too"
	else
		fail "v$f: scanner banned on host 1 too (expected an entry, got none)"
	fi
done
# Host 2 held the banned scanner (hold_scanner), before the scans end:
# under KASAN they outlast the ban.
[ ${#HOLD[@]} = 0 ] || wait "${HOLD[@]}" 2>/dev/null || true
for f in 4 6; do
	got=$(cat "$F2B/hold$f" 2>/dev/null)
	n=$(setpkts host2 $f)
	if [[ "$got" == "held snd_wnd=0 "* ]] && [ "${n:-0}" -gt 0 ]; then
		pass "v$f: host 2 holds the banned scanner in TARPIT ($got; set rule $n packets)"
	else
		fail "v$f: host 2 holds the banned scanner in TARPIT (expected 'held snd_wnd=0' and set rule packets > 0, got '$got', ${n:-none})"
		ns host2 ipset list -o plain | sed 's/^/# host 2: /'
		ns host2 "ip${f/4/}tables-${VARIANT[host2]}-save" -c -t mangle | sed 's/^/# host 2: /'
	fi
done
wait "${NMAP[4]}" "${NMAP[6]}" 2>/dev/null || true

# Every command to the down host was cut by fleet_timeout: the bans to
# the others did not wait for it.
_cut() { [ "$(grep -c '^start .* add ' "$F2B/down.log")" -ge 2 ] &&
	[ "$(grep -c '^start ' "$F2B/down.log")" = "$(grep -c '^cut ' "$F2B/down.log")" ]; }
if busywait $((4 * FLEET_TIMEOUT)) _cut; then
	pass "the down host's commands were all cut after ${FLEET_TIMEOUT}s ($(grep -c '^cut ' "$F2B/down.log") of them, the bans' included)"
else
	fail "the down host's commands cut (expected a cut for each start, 2 bans at least, got: $(tr '\n' ';' < "$F2B/down.log"))"
fi

# The ban expires: on host 2 by the set's timeout alone (fail2ban's
# unban is dropped on its way there), on host 1 too.
gone() {
	local f
	for f in 4 6; do
		! eval "banned $1 $f \$SCANNER$f" || return 1
	done
}
t1=$(now)
if busywait $((BANTIME + 30)) gone host2; then
	pass "the ban expired on host 2 by ipset's timeout: set empty of the scanner $(secs "$t1" "$(now)")s after the checks (bantime ${BANTIME}s)"
else
	fail "the ban expired on host 2 (expected no entry within $((BANTIME + 30))s, got: $(ns host2 ipset list -o plain 2>&1 | grep -E '^[0-9a-f.:]+ timeout' | tr '\n' ' '))"
fi
if busywait 60 gone host; then
	pass "the ban expired on host 1"
else
	fail "the ban expired on host 1 (expected no entry, got: $(ns host ipset list -o plain 2>&1 | grep -E '^[0-9a-f.:]+ timeout' | tr '\n' ' '))"
fi
# fail2ban did unban, and host 2 never got it: its entry left by itself.
_dropped() { [ "$(cat "$F2B/unban-dropped" 2>/dev/null | grep -c " del ")" -ge 2 ]; }
if busywait 60 _dropped; then
	pass "fail2ban's unbans for host 2 were dropped: $(tr '\n' ';' < "$F2B/unban-dropped")"
else
	fail "fail2ban's unbans for host 2 (expected 2 dropped, v4 and v6, got: $(cat "$F2B/unban-dropped" 2>&1 | tr '\n' ';'))"
fi
# A connection to host 2's port 25 is held either way: by the set's rule
# during the ban, by the port's own TARPIT rule after it. Its answer shows
# that it reached host 2; the counters, which rule held it.
for f in 4 6; do
	eval "h2=\$HOST2_$f"
	n0=$(setpkts host2 $f) m0=$(smtppkts host2 $f)
	got=$(CLIENT_SECS=30 tcp_client scanner hold "$h2" 25 3)
	n=$(setpkts host2 $f) m=$(smtppkts host2 $f)
	if [[ "$got" == "held snd_wnd=0 "* ]] && [ "$n" = "$n0" ] && [ "${m:-0}" -gt "${m0:-0}" ]; then
		pass "v$f: after the ban host 2 answers the scanner, held by port 25's rule ($got; set rule $n0 -> $n, port 25's $m0 -> $m packets)"
	else
		fail "v$f: after the ban (expected 'held snd_wnd=0', the set rule still at $n0 and port 25's rule above $m0, got '$got', $n, $m; host 2's portscan list: $(ns host2 cat /proc/net/xt_recent/portscan 2>&1 | cut -d' ' -f1-3 | tr '\n' ';'))"
	fi
done

touch "$STOP"
wait "$LEGIT" 2>/dev/null || true
ok=$(grep -c '^ok ' "$F2B/legit.out" || true)
bad=$(grep -c '^FAILED ' "$F2B/legit.out" || true)
if [ "$ok" -ge 16 ] && [ "$bad" = 0 ]; then
	pass "the client's traffic never failed ($ok exchanges with both hosts, v4 and v6)"
else
	fail "the client's traffic never failed (expected >= 16 ok and none failed, got $ok ok, $bad failed: $(grep -m 2 '^FAILED' "$F2B/legit.out" | tr '\n' ' '))"
fi
for f in 4 6; do
	eval "c=\$CLIENT$f"
	if grep -qE "Ban $c\$|Ban $c " "$F2B/fail2ban.log"; then
		fail "v$f: the client $c is never banned (fail2ban banned it)"
	else
		pass "v$f: the client $c is never banned"
	fi
done
n=$(grep -c 'chaostables [a-z]*: ' "$LOG" || true)
c=$(grep -cE "chaostables [a-z]*: .* SRC=(10\.0\.2\.2|fd00:0002:0000:0000:0000:0000:0000:0002) " "$LOG" || true)
if [ "$n" -gt 0 ] && [ "$c" = 0 ]; then
	pass "the kernel logged the scanner's flows ($n lines), none of the client's"
else
	fail "the kernel logged the scanner's flows, none of the client's (expected > 0 lines, none from the client, got $n lines, $c from the client)"
fi
# Every action ran on both hosts without an error (the sets the manual
# creates are those the action creates; the down host's failures do not
# fail an action that the others took).
e=$(grep -E ' (ERROR|CRITICAL) ' "$F2B/fail2ban.log" | head -n 3 | tr '\n' ' ')
expect "fail2ban logged no error" "" "$e"
grep -E ' (Ban|Unban) ' "$F2B/fail2ban.log" | sed 's/^/# /'
finish
