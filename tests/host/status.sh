#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# chaostables-status in a private network namespace, without our modules
# (the guest's tests/net/status.sh has them): the rules in the kernel
# against the files, before a start (they differ, exit 1), after it (the
# same, exit 0), after a rule of ours went (exit 1) and after the stop;
# the base firewall it finds; counters absent without modules.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
if [ -z "${STATUS_NETNS:-}" ]; then
	[ "$(id -u)" = 0 ] || { skip "status.sh: needs root for unshare -n"; finish; }
	STATUS_NETNS=1 exec unshare -n bash "$0" "$@"
fi
require iptables iptables-save ip6tables-save ipset
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

# Stock targets only: it loads without our modules.
cat > "$tmp/rules.v4" <<-'RULES'
	*mangle
	:chaostables-INPUT - [0:0]
	:chaostables-x - [0:0]
	-A chaostables-INPUT -i lo -j RETURN
	-A chaostables-INPUT -p udp -j chaostables-x
	-A chaostables-x -j RETURN
	COMMIT
RULES
: > "$tmp/allowlist"
ip link set lo up

# status WANT_RC PATTERN WHAT: chaostables-status's exit and a line of it.
status() {
	local out rc
	out=$("$TOP/service/chaostables-status" "$tmp" 2>&1)
	rc=$?
	if [ "$rc" = "$1" ] && grep -qE -- "$2" <<< "$out"; then
		pass "$3 (exit $rc: $(grep -E -- "$2" <<< "$out" | head -n 1 | tr -s " "))"
	else
		fail "$3 (expected exit $1 and a line /$2/, got $rc: ${out//$'\n'/; })"
	fi
}
status 1 "^IPv4: +not as $tmp/rules.v4 \(rules: 0, jumps: 0; the file's: 3, 1\)" "before the start"
status 1 "^IPv6: +no rules, none in" "no IPv6 rules, none in the file"
status 1 "^counters: none, no module of ours loaded" "no counters without our modules"
status 1 "^base: +none found" "no base firewall"
"$TOP/service/chaostables-load" start "$tmp" 2> /dev/null || fail "chaostables-load start"
status 0 "^IPv4: +as $tmp/rules.v4 \(rules: 3, jumps: 1\)" "after the start"
iptables -t mangle -D chaostables-x -j RETURN
status 1 "^IPv4: +not as $tmp/rules.v4 \(rules: 2, jumps: 1; the file's: 3, 1\)" "a rule of ours gone"
iptables -A INPUT -p tcp --dport 22 -j ACCEPT
iptables -P INPUT DROP
status 1 "^base: +iptables filter \(INPUT policy DROP, rules: 1\)" "the base firewall found"
"$TOP/service/chaostables-load" stop "$tmp" 2> /dev/null || fail "chaostables-load stop"
status 1 "^IPv4: +not as .*\(rules: 0, jumps: 0;" "after the stop"
finish
