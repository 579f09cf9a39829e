#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The reply core's cookie belongs to its network namespace, and expires.
# router's TARPIT (FORWARD, SYNs to port 9000 only) and host's (INPUT,
# ports 9000 and 9001) answer handshakes crafted from scanner
# (tests/net/helpers/rawtcp.py); host answering a keepalive is its cookie
# validating. IPv4 and IPv6:
# - host's own cookie (port 9001) validates;
# - a cookie read off router's SYN/ACK (port 9000) does not validate at
#   host: each netns has keys of its own, or any user could read the
#   host's cookies in a namespace of their own (unshare -Urn);
# - net.netfilter.nf_chaos_key is write-only; once both are given the same
#   key there, as an HA pair would be, host accepts router's cookie;
# - with net.netfilter.nf_chaos_epoch=2, a cookie validates for 2 to 4
#   seconds, then no more (a keepalive every 0.25 s; the time is that of
#   the first one unanswered);
# - net.netfilter.nf_chaos_key_id, read-only, is the same for the same
#   key, another for another, and not the key;
# - a key rotation cuts no hold: with an epoch of 4 s a cookie of the old
#   key lives as long as it would have (4 to 8 s), the new key's
#   validates at once, and a held flow's answers keep their IPv4 ID and
#   IPv6 flow label across the change;
# - our TSval follows the wall clock, as HA peers of different uptimes
#   must (PAWS): a step of the guest's clock by 100 s moves it by as much.
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require python3 iptables-legacy ip6tables-legacy
setup_topology

KEY=00112233445566778899aabbccddeeff
for ipt in iptables-legacy ip6tables-legacy; do
	ns router $ipt -A FORWARD -p tcp --syn --dport 9000 -j TARPIT
	ns host $ipt -A INPUT -p tcp --dport 9000:9001 -j TARPIT
	# scanner has no socket for the SYN/ACKs: no RSTs to host.
	ns scanner $ipt -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
done

# cookie V PORT SPORT: the SYN/ACK's "NXT ACK" for a flow from scanner
cookie() {
	local src=$SCANNER4 dst=$HOST4 r
	[ "$1" = 4 ] || src=$SCANNER6 dst=$HOST6
	r=$(rawtcp scanner syn "$src" "$dst" "$2" "$3")
	[ "${r%% *}" = S. ] || { echo "no SYN/ACK ($r)"; return; }
	echo "${r#* }"
}

# keepalive V PORT SPORT NXT ACK: "answered" or "silent"
keepalive() {
	local src=$SCANNER4 dst=$HOST4
	[ "$1" = 4 ] || src=$SCANNER6 dst=$HOST6
	rawtcp scanner probe "$src" "$dst" "$2" "$3" "$4" "$5"
}

for v in 4 6; do
	c=$(cookie $v 9001 41001)
	# shellcheck disable=SC2086
	expect "v$v host's own cookie validates" answered \
		"$(keepalive $v 9001 41001 $c)"
	c=$(cookie $v 9000 41002)
	# shellcheck disable=SC2086
	expect "v$v router's cookie does not validate at host" silent \
		"$(keepalive $v 9000 41002 $c)"
done

if ns host cat /proc/sys/net/netfilter/nf_chaos_key >/dev/null 2>&1; then
	fail "nf_chaos_key readable (expected a write-only sysctl)"
fi
for n in router host; do
	ns $n sysctl -qw net.netfilter.nf_chaos_key=$KEY ||
		fail "$n: sysctl net.netfilter.nf_chaos_key=$KEY (expected it set)"
done
if ns host cat /proc/sys/net/netfilter/nf_chaos_key >/dev/null 2>&1; then
	fail "nf_chaos_key readable once set (expected a write-only sysctl)"
else
	pass "nf_chaos_key is write-only"
fi
for v in 4 6; do
	c=$(cookie $v 9000 41003)
	# shellcheck disable=SC2086
	expect "v$v same key: router's cookie validates at host" answered \
		"$(keepalive $v 9000 41003 $c)"
done


# key_id NS: the fingerprint of NS's key
key_id() { ns "$1" sysctl -n net.netfilter.nf_chaos_key_id; }
a=$(key_id router)
expect "same key, same key_id" "$a" "$(key_id host)"
expect "key_id is 8 hex digits" "[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]" "$a"
[[ $KEY != *"$a"* ]] || fail "key_id $a is part of the key (expected a hash of it)"
if ns host sh -c 'echo 0 > /proc/sys/net/netfilter/nf_chaos_key_id' 2>/dev/null; then
	fail "nf_chaos_key_id written (expected it read-only)"
fi

# A key change leaves a flow's IPv4 ID and IPv6 flow label as they were:
# they are the flow's socket's, drawn by the key of its cookie.
go=$(mktemp -u)
for v in 4 6; do
	src=$SCANNER4 dst=$HOST4 key=00112233445566778899aabbccddee0$v
	[ $v = 4 ] || src=$SCANNER6 dst=$HOST6
	out=$(mktemp)
	rawtcp scanner idents "$src" "$dst" 9001 $((41020 + v)) "$go" > "$out" &
	busywait 20 grep -q . "$out" || fail "v$v no answer before the key change"
	ns host sysctl -qw net.netfilter.nf_chaos_key=$key
	touch "$go"
	wait $!
	read -r id1 id2 < "$out"
	if [ "$id1" = "$id2" ] && [ "$id1" != none ]; then
		pass "v$v a key change keeps a flow's IDs: $id1, then $id2"
	else
		fail "v$v IDs across a key change (expected two equal, got: $(cat "$out"))"
	fi
	rm -f "$out" "$go"
done

# held IPT: whether host's TARPIT rules counted a SYN and two keepalives
held() {
	[ "$(ns host "$1" -L INPUT -vnx |
	     awk '/TARPIT/ { n += $1 } END { print n + 0 }')" -ge 3 ]
}

# A rotation cuts no hold: a cookie of the old key validates as long as
# it would have (epoch 4 s: 4 to 8 s), the new key's at once, and key_id
# changes. The key is written once the hold has been answered twice:
# the hold begins when the tool has started, which a guest starved of
# CPU takes well over 10 s to do.
ns host sysctl -qw net.netfilter.nf_chaos_epoch=4
out=$(mktemp)
for v in 4 6; do
	src=$SCANNER4 dst=$HOST4 ipt=iptables-legacy key=ffeeddccbbaa99887766554433221100
	[ $v = 4 ] || src=$SCANNER6 dst=$HOST6 ipt=ip6tables-legacy key=0123456789abcdef0123456789abcdef
	ns host $ipt -Z INPUT
	rawtcp scanner expire "$src" "$dst" 9001 $((41030 + v)) 12 > "$out" &
	busywait 60 held $ipt || fail "v$v no hold to rotate the key under"
	ns host sysctl -qw net.netfilter.nf_chaos_key=$key
	wait $!
	r=$(cat "$out")
	t=$(sed -n 's/^expired after \([0-9.]*\)s$/\1/p' <<< "$r")
	if [ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t >= 3 && t <= 9) }'; then
		pass "v$v a key rotation cuts no hold: the old cookie expired after ${t}s"
	else
		fail "v$v hold across a key rotation (expected the old cookie to live 4 to 8 s, got: $r)"
	fi
	# One process from SYN to keepalive: a slow guest's tools would
	# outlast the short epoch.
	expect "v$v the new key's cookie validates" "valid for 2 s" \
		"$(rawtcp scanner expire "$src" "$dst" 9001 $((41040 + v)) 2)"
	b=$(key_id host)
	if [ "$b" != "$a" ]; then
		pass "v$v another key, another key_id: $a, then $b"
	else
		fail "v$v key_id after a rotation (expected other than $a, got $b)"
	fi
	a=$b
done
rm -f "$out"

ns host sysctl -qw net.netfilter.nf_chaos_epoch=2 ||
	fail "sysctl net.netfilter.nf_chaos_epoch=2 (expected it set)"

for v in 4 6; do
	src=$SCANNER4 dst=$HOST4
	[ $v = 4 ] || src=$SCANNER6 dst=$HOST6
	r=$(rawtcp scanner expire "$src" "$dst" 9001 41004 12)
	echo "# v$v epoch 2 s: cookie $r"
	t=$(sed -n 's/^expired after \([0-9.]*\)s$/\1/p' <<< "$r")
	if [ -n "$t" ] && awk -v t="$t" 'BEGIN { exit !(t >= 1.5 && t <= 5) }'; then
		pass "v$v epoch 2 s: the cookie expired after ${t}s"
	else
		fail "v$v epoch 2 s: cookie lifetime (expected the first unanswered keepalive 2 to 4 s after the SYN/ACK, got: $r)"
	fi
done

# tsval V: our TSval to a SYN from scanner, port 9001
tsval() {
	local src=$SCANNER4 dst=$HOST4
	[ "$1" = 4 ] || src=$SCANNER6 dst=$HOST6
	rawtcp scanner tsval "$src" "$dst" 9001 $((41010 + RANDOM % 1000))
}
for v in 4 6; do
	t1=$(tsval $v)
	date -s "+100 seconds" > /dev/null
	t2=$(tsval $v)
	date -s "-100 seconds" > /dev/null
	d=$(( (t2 - t1) & 0xffffffff ))
	if [ "$t1" != None ] && [ "$t2" != None ] &&
	   [ $d -ge 100000 ] && [ $d -le 110000 ]; then
		pass "v$v TSval follows a step of the wall clock: +$d ms"
	else
		fail "v$v TSval across a 100 s step of the wall clock (expected +100000 to +110000 ms, got $t1 then $t2)"
	fi
done
finish
