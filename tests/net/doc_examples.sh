#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 1200
# The documents and the root's iptables, the same for each kernel:
# vm-field-root
# Every iptables example of the README, the guides (doc/*.md) and the
# manual's fragments (extensions/*.man) loads, with iptables-legacy and with iptables-nft:
# tests/net/helpers/doc_examples.py extracts them (its header says where it
# looks); each one runs in a fresh network namespace "docex" of its own,
# with the variant's iptables, ip6tables and their -restore first in
# PATH, as the admin's alternatives would have them:
#
#   commands      each line in order; one that fails is a FAIL naming
#                 the example and the line
#   rules files   iptables-restore (ip6tables-restore for IPv6); a file
#                 under /etc/chaostables/ by service/chaostables-load on
#                 top of the base firewall before it, as
#                 chaostables.service loads it; then the rules, and a
#                 jump to each chain of ours named after a built-in one,
#                 are there (iptables-save). The document's "ipset
#                 create" commands before it run first.
#
# Each source must give at least one example, so that a change of
# layout cannot make the extraction find nothing and the test pass.
set -e
source "$(dirname "$0")/../lib/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
NS=docex
BIN=$(mktemp -d)
EX=$(mktemp -d)
CONF=$(mktemp -d)
trap 'rc=$?; del_netns $NS; rm -rf "$BIN" "$EX" "$CONF"; (exit $rc); cleanup' EXIT

require python3 iptables-legacy iptables-nft ipset

cd "$TOP"
docs=(README doc/ruleset.md doc/fleet.md doc/ha-pair.md doc/extensions.md
      extensions/libxt_*.man)
list=$(python3 tests/net/helpers/doc_examples.py "$EX" "${docs[@]}") ||
	{ fail "doc_examples.py extracts the examples (it failed)"; finish; }
for d in "${docs[@]}"; do
	n=$(cut -f 4 <<< "$list" | grep -c "^$d:" || true)
	if [ "$n" -gt 0 ]; then
		pass "$d: $n examples found"
	else
		fail "$d: examples found (expected at least 1, got none)"
	fi
done

# fresh: $NS anew, lo up. The old one's rules, chains and sets go with
# it (the namespace's exit frees them; modules unload once it ran).
fresh() {
	del_netns $NS
	ip netns add $NS
	ip -n $NS link set lo up
}

# run VARIANT CMD...: CMD in $NS with VARIANT's iptables first in PATH;
# its output in $OUT.
run() {
	local v=$1
	shift
	OUT=$(ns $NS env PATH="$BIN/$v:$PATH" "$@" 2>&1)
}

for v in legacy nft; do
	ipt_variant_dir "$v" "$BIN/$v"
done

while IFS=$'\t' read -r id kind flag name; do
	for v in legacy nft; do
		what="$name ($v)"
		fresh
		case $kind in
		cmds)
			# The lines in one namespace entry; the first that
			# fails stops them, its output after it.
			# shellcheck disable=SC2016
			if run $v bash -c 'while read -r c <&3; do
					o=$(eval "$c" 2>&1) ||
						{ printf "%s\n%s" "$c" "$o"; exit 1; }
				done 3< "$1"' _ "$EX/$id"; then
				pass "$what loads"
			else
				cmd=${OUT%%$'\n'*} out=${OUT#"${OUT%%$'\n'*}"}
				fail "$what: \"$cmd\" loads (expected status 0, got:${out//$'\n'/ })"
			fi
			;;
		restore4 | restore6)
			ipt=iptables
			[ "$kind" = restore4 ] || ipt=ip6tables
			if [ -s "$EX/$id.sets" ] &&
			   ! run $v bash -e "$EX/$id.sets"; then
				fail "$what: its sets are created (got: ${OUT//$'\n'/ })"
				continue
			fi
			if [ "$flag" = noflush ] && [ -s "$EX/$id.base" ] &&
			   ! run $v "$ipt-restore" < "$EX/$id.base"; then
				fail "$what: its base firewall loads (got: ${OUT//$'\n'/ })"
				continue
			fi
			# A chaostables file as chaostables.service loads it:
			# its chains, and a jump to each one named after a
			# built-in chain.
			how="$ipt-restore" jumps=0
			if [ "$flag" = noflush ]; then
				how="chaostables-load start"
				rm -f "$CONF"/rules.v*
				cp "$EX/$id" "$CONF/rules.v${kind#restore}"
				jumps=$(grep -cE '^:chaostables-(PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) ' "$EX/$id" || true)
				run $v "$TOP/service/chaostables-load" start "$CONF"
			else
				run $v "$ipt-restore" < "$EX/$id"
			fi || { fail "$what loads with $how (got: ${OUT//$'\n'/ })"; continue; }
			# Every rule of the files is in the tables.
			run $v "$ipt-save" || true
			base=()
			[ "$flag" != noflush ] || base=("$EX/$id.base")
			want=$(cat "$EX/$id" "${base[@]}" | grep -cE '^-[AI] ' || true)
			want=$((want + jumps))
			got=$(grep -c '^-A ' <<< "$OUT" || true)
			if [ "$got" = "$want" ]; then
				pass "$what loads with $how"
			else
				fail "$what loads with $how (expected $want rules in $ipt-save, got $got)"
			fi
			;;
		esac
	done
done <<< "$list"
finish
