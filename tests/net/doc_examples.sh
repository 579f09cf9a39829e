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

# fresh RECENT: $NS anew, lo up. The old one's rules, chains and sets go
# with it (the namespace's exit frees them; modules unload once it ran).
# del_netns looks into the old one for xt_recent tables to flush (most of
# a second in a TCG guest) only if its example named "recent" (RECENT:
# the new one's does), or if an earlier run may have left it (at first).
OLD_RECENT=1
fresh() {
	if [ -n "$OLD_RECENT" ]; then
		del_netns $NS
	else
		ip netns del $NS 2>/dev/null || true
	fi
	OLD_RECENT=$1
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

# The rules files' kinds, flags and names by id. A v6 file of ours
# loads with its document's v4 one before it when the same sets come
# before both: one start with both, as chaostables.service loads
# /etc/chaostables/rules.v4 and rules.v6 (a start costs a TCG guest some
# ten seconds). WITH: the v6 file of a v4 one; PAIRED: the v6 files so
# loaded.
declare -A KIND FLAG NAME WITH PAIRED
v4=
while IFS=$'\t' read -r id kind flag name; do
	KIND[$id]=$kind FLAG[$id]=$flag NAME[$id]=$name
	[ "$flag" = noflush ] || continue
	if [ "$kind" = restore4 ]; then
		v4=$id
	elif [ -n "$v4" ] && [ "${NAME[$v4]%%:*}" = "${name%%:*}" ] &&
	     [ "$(cat "$EX/$v4.sets" 2>/dev/null)" = "$(cat "$EX/$id.sets" 2>/dev/null)" ]; then
		WITH[$v4]=$id PAIRED[$id]=1 v4=
	fi
done <<< "$list"

# ipt ID: iptables or ip6tables, the rules file ID's.
ipt() { if [ "${KIND[$1]}" = restore4 ]; then echo iptables; else echo ip6tables; fi; }

# load VARIANT ID...: the rules files ID... in $NS (one, or a v4 file of
# ours and its v6 one): the sets before the first, each one's base
# firewall, then the files, ours together by chaostables-load start; a
# PASS or FAIL for each file, whose rules and jumps must all be there.
load() {
	local v=$1 i ipt how jumps want got base
	shift
	if [ -s "$EX/$1.sets" ] && ! run $v bash -e "$EX/$1.sets"; then
		fail "${NAME[$1]} ($v): its sets are created (got: ${OUT//$'\n'/ })"
		return
	fi
	for i; do
		if [ "${FLAG[$i]}" = noflush ] && [ -s "$EX/$i.base" ] &&
		   ! run $v "$(ipt "$i")-restore" < "$EX/$i.base"; then
			fail "${NAME[$i]} ($v): its base firewall loads (got: ${OUT//$'\n'/ })"
			return
		fi
	done
	# A chaostables file as chaostables.service loads it: its chains,
	# and a jump to each one named after a built-in chain.
	how="$(ipt "$1")-restore"
	if [ "${FLAG[$1]}" = noflush ]; then
		how="chaostables-load start"
		rm -f "$CONF"/rules.v*
		for i; do
			cp "$EX/$i" "$CONF/rules.v${KIND[$i]#restore}"
		done
		run $v "$TOP/service/chaostables-load" start "$CONF"
	else
		run $v "$how" < "$EX/$1"
	fi || {
		for i; do
			fail "${NAME[$i]} ($v) loads with $how (got: ${OUT//$'\n'/ })"
		done
		return
	}
	# Every rule of the files is in the tables.
	for i; do
		ipt=$(ipt "$i") jumps=0 base=()
		if [ "${FLAG[$i]}" = noflush ]; then
			jumps=$(grep -cE '^:chaostables-(PREROUTING|INPUT|FORWARD|OUTPUT|POSTROUTING) ' "$EX/$i" || true)
			base=("$EX/$i.base")
		fi
		run $v "$ipt-save" || true
		want=$(cat "$EX/$i" "${base[@]}" | grep -cE '^-[AI] ' || true)
		want=$((want + jumps))
		got=$(grep -c '^-A ' <<< "$OUT" || true)
		if [ "$got" = "$want" ]; then
			pass "${NAME[$i]} ($v) loads with $how"
		else
			fail "${NAME[$i]} ($v) loads with $how (expected $want rules in $ipt-save, got $got)"
		fi
	done
}

while IFS=$'\t' read -r id kind flag name; do
	[ -z "${PAIRED[$id]:-}" ] || continue
	recent=
	! cat "$EX/$id"* ${WITH[$id]:+"$EX/${WITH[$id]}"*} | grep -q recent ||
		recent=1
	for v in legacy nft; do
		what="$name ($v)"
		fresh "$recent"
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
			# shellcheck disable=SC2086 # an id or none
			load $v "$id" ${WITH[$id]:-}
			;;
		esac
	done
done <<< "$list"
finish
