#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# service/chaostables-watch keeps our rules, in a network namespace of
# this machine with iptables-nft (rules of the kernel's own targets only:
# no module of ours is needed) and a /run of its own:
# - started, it loads them, and chaostables-load check says the kernel
#   holds exactly the files' rules;
# - "nft flush ruleset", and "nft -f" of Debian's /etc/nftables.conf
#   (flush ruleset, then the base's table): ours back within 10 s, the
#   base's table kept, check content again;
# - a file changed since the load: check says so, nothing reloaded;
# - ours taken again and again: after 5 loads in a minute the watcher
#   gives up, exit 1, and says why;
# - a default route that comes after the start (the unit starts before
#   the network): its interface guarded within the refresh period
#   (CHAOS_REFRESH, 1 s here; 10 s by default); so is a ban of the
#   host's CrowdSec bouncer (its nftables set, made after the start)
#   in chaostables-denied;
# - chaostables-load stop ends it quietly (exit 0), nothing of ours left.
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
require unshare nft ipset iptables-nft

# In namespaces of our own: nothing reaches the machine's tables or its
# /run/chaostables.
if [ -z "${WATCH_NS:-}" ]; then
	# shellcheck disable=SC2016
	exec env WATCH_NS=1 unshare -n -m --propagation private \
		bash -c 'mount -t tmpfs run /run && exec bash "$0"' "$0"
fi
LOAD=$TOP/service/chaostables-load
WATCH=$TOP/service/chaostables-watch
tmp=$(mktemp -d)
WPID=
cleanup() {
	set +e
	[ -z "$WPID" ] || { kill "$WPID"; wait "$WPID"; } 2> /dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
for c in iptables ip6tables; do
	for s in "" -save -restore; do
		ln -s /usr/sbin/xtables-nft-multi "$tmp/$c$s"
	done
done
export PATH=$tmp:$PATH

mkdir "$tmp/dir"
for v in 4 6; do
	printf '%s\n' '*mangle' ':chaostables-INPUT - [0:0]' \
		'-A chaostables-INPUT -p tcp --dport 1000 -j DROP' 'COMMIT' > "$tmp/dir/rules.v$v"
done
: > "$tmp/dir/allowlist"
NFTCONF='flush ruleset
table inet filter {
	chain input {
		type filter hook input priority filter; policy drop;
		tcp dport { 22, 80 } accept
	}
}'

ended() { ! kill -0 "$WPID" 2> /dev/null; }
loads() { grep -c 'loaded .*/rules.v4$' "$tmp/log" || true; }
checked() { "$LOAD" check "$tmp/dir" > /dev/null 2>&1; }
guarded() { ipset list chaostables-scope 2> /dev/null | grep -x '0\.0\.0\.0/0,.*' | xargs; }
test_guarded() { [ "$(guarded)" = 0.0.0.0/0,wan0 ]; }
denied() { ipset list chaostables-denied 2> /dev/null | sed '1,/^Members:/d' | xargs; }
test_denied() { [ "$(denied)" = 192.0.2.7 ]; }
# The host's CrowdSec bouncer's configuration: none until it is
# installed, below.
export CHAOS_BOUNCER=$tmp/bouncer.yaml
# loaded N: more than N loads, and check content.
loaded() { [ "$(loads)" -gt "$1" ] && checked; }
loaded_or_ended() { loaded "$1" || ended; }
# back WHAT N: loaded N within 10 s.
back() {
	local t0=$SECONDS
	if busywait 10 loaded "$2"; then
		pass "$1: ours back, loaded again, in $((SECONDS - t0)) s or less"
	else
		fail "$1: ours back within 10 s (got: $(loads) loads, check: $("$LOAD" check "$tmp/dir" 2>&1))"
	fi
}

"$WATCH" "$tmp/dir" 2> "$tmp/log" &
WPID=$!
busywait 20 checked || fail "the watcher loaded the rules (got: $(cat "$tmp/log"))"
expect "check: the kernel holds exactly the files' rules" \
	"holds exactly the rules of $tmp/dir, loaded at *" "$("$LOAD" check "$tmp/dir" 2>&1)"
expect "our jump first in mangle INPUT" "-A INPUT -j chaostables-INPUT" \
	"$(iptables-save -t mangle | grep -m1 '^-A INPUT')"

n=$(loads)
nft flush ruleset
rc=0
out=$("$LOAD" check "$tmp/dir" 2>&1) || rc=$?
expect "nft flush ruleset: check says ours are gone (exit 1)" \
	"1 IPv4: the kernel's chaostables rules are not those loaded at * (3 of 3 lines gone, 0 others)" "$rc $out"
back "nft flush ruleset" "$n"

n=$(loads)
nft -f - <<< "$NFTCONF"
back "nft -f of a flush ruleset and a base table" "$n"
expect "nft -f: the base's table kept" "*policy drop*tcp dport { 22, 80 } accept*" \
	"$(nft list table inet filter | xargs)"
expect "the watcher says why it loaded them again" \
	"<4>chaostables: IPv4: the kernel's chaostables rules are not those loaded at *: loading them again" \
	"$(grep -m1 'loading them again' "$tmp/log")"

n=$(loads)
echo '# a comment' >> "$tmp/dir/rules.v6"
rc=0
out=$("$LOAD" check "$tmp/dir" 2>&1) || rc=$?
expect "a file changed: check says so" \
	"0 holds the rules loaded at *, but $tmp/dir changed since: systemctl reload chaostables" "$rc $out"
expect "a file changed: nothing loaded again" "$n" "$(loads)"

# Taken again and again: at most 6 more takes until it gives up (2 of
# this minute's loads were the flush's and nft -f's).
takes=0
until ended || [ $takes -ge 6 ]; do
	n=$(loads)
	nft flush ruleset
	takes=$((takes + 1))
	busywait 10 loaded_or_ended "$n" || true
done
if busywait 10 ended; then
	rc=0
	wait "$WPID" || rc=$?
	WPID=
	expect "taken again and again: the watcher gives up, exit 1" 1 "$rc"
	expect "it says why" "<3>chaostables: *loaded again 5 times within a minute: something keeps removing them, giving up" \
		"$(grep -m1 'giving up' "$tmp/log")"
else
	fail "taken again and again: the watcher gives up within 10 s (it runs; log: $(tail -n 3 "$tmp/log"))"
fi

CHAOS_REFRESH=1 "$WATCH" "$tmp/dir" 2> "$tmp/log" &
WPID=$!
busywait 20 checked || fail "the watcher started again (got: $(cat "$tmp/log"))"
expect "no default route: no interface guarded" "" "$(guarded)"
ip link add wan0 type veth peer name wan1
ip link set wan0 up
ip addr add 192.0.2.1/24 dev wan0
ip route add default via 192.0.2.254 dev wan0
if busywait 10 test_guarded; then
	pass "a default route after the start: its interface guarded ($(guarded))"
else
	fail "a default route after the start: its interface guarded within 10 s (got: '$(guarded)'; log: $(tail -n 2 "$tmp/log"))"
fi
# The host's CrowdSec bouncer starts after us: its bans copied within
# the refresh period.
echo 'mode: nftables' > "$CHAOS_BOUNCER"
nft add table ip crowdsec
nft add set ip crowdsec crowdsec-blacklists '{ type ipv4_addr; flags timeout; }'
nft add element ip crowdsec crowdsec-blacklists '{ 192.0.2.7 timeout 1h }'
if busywait 10 test_denied; then
	pass "a ban of the host's CrowdSec bouncer after the start: in chaostables-denied"
else
	fail "a ban of the host's CrowdSec bouncer after the start: in chaostables-denied within 10 s (got: '$(denied)'; log: $(tail -n 2 "$tmp/log"))"
fi
"$LOAD" stop "$tmp/dir" 2> /dev/null
if busywait 10 ended; then
	rc=0
	wait "$WPID" || rc=$?
	WPID=
	expect "chaostables-load stop: the watcher ends, exit 0" 0 "$rc"
else
	fail "chaostables-load stop: the watcher ends within 10 s (it runs)"
fi
expect "stop: nothing of ours left" "" "$({ iptables-save; ip6tables-save; } | grep chaostables)"
finish
