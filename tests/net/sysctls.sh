#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What our modules register, as a network namespace sees it
# (/proc/sys/net/netfilter/nf_chaos_*), is chaostables(8)'s SYSCTLS
# table: the same names, the table's defaults, the key write-only and
# its id read-only, and each namespace's values its own ("Per netns").
# tests/host/man_reference.sh holds the table to the sources; this, to
# what a kernel makes of them.
# vm-every-kernel
set -e
source "$(dirname "$0")/../lib/lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
trap cleanup EXIT

SYS=/proc/sys/net/netfilter
setup_ns host

# The table's rows: "name;default;range;per netns".
rows=$(sed -n '/^\.SH SYSCTLS/,/^\.SH /p' "$TOP/doc/chaostables.8" |
	sed -n '/^\.TS/,/^\.TE/p' | grep '^nf_chaos_')
# row NAME FIELD: field FIELD (2 default, 4 per netns) of NAME's row.
row() { awk -F';' -v n="$1" -v f="$2" '$1 == n { print $f }' <<< "$rows"; }

expect "a new namespace has the table's settings" \
	"$(cut -d';' -f1 <<< "$rows" | sort | xargs)" \
	"$(ns host ls "$SYS" | grep '^nf_chaos_' | sort | xargs)"
for s in nf_chaos_epoch nf_chaos_held_rate; do
	expect "$s: the table's default" "$(row $s 2)" "$(ns host cat "$SYS/$s")"
done
expect "nf_chaos_key: write-only (mode)" 200 "$(stat -c %a "$SYS/nf_chaos_key")"
expect "nf_chaos_key_id: read-only, root's (mode)" 400 \
	"$(stat -c %a "$SYS/nf_chaos_key_id")"
expect "the table says every setting is per namespace" "yes" \
	"$(cut -d';' -f4 <<< "$rows" | sort -u | xargs)"
before=$(cat "$SYS/nf_chaos_epoch")
ns host sysctl -qw net.netfilter.nf_chaos_epoch=$((before + 7))
expect "a namespace's epoch is its own: host's set" "$((before + 7))" \
	"$(ns host cat "$SYS/nf_chaos_epoch")"
expect "a namespace's epoch is its own: the first's kept" "$before" \
	"$(cat "$SYS/nf_chaos_epoch")"

# taken NAME VALUE: whether host's NAME takes VALUE ("taken", "refused").
taken() {
	# shellcheck disable=SC2016 # the inner shell's arguments
	if ns host bash -c 'printf "%b\n" "$2" > "$1"' - "$SYS/$1" "$2" \
		2>/dev/null; then
		echo taken
	else
		echo refused
	fi
}
for k in 00112233445566778899aabbccddeeff 00112233445566778899AABBCCDDEEFF; do
	expect "nf_chaos_key takes $k" taken "$(taken nf_chaos_key $k)"
done
for k in 0x112233445566778899aabbccddeeff +0112233445566778899aabbccddeeff \
	0011223344556677+8899aabbccddeef 0011223344556677889 \
	00112233445566778899aabbccddeeff0 00112233445566778899aabbccddeefg; do
	expect "nf_chaos_key refuses $k" refused "$(taken nf_chaos_key $k)"
done
expect "nf_chaos_services takes printable ASCII" taken \
	"$(taken nf_chaos_services 'ssh=OpenSSH_9.2p1 Debian-2+deb12u3 ~!')"
expect "nf_chaos_services takes 48 characters" taken \
	"$(taken nf_chaos_services "ftp=$(printf '%048d' 0)")"
# Inside the value: the write's trailing white space (which to the kernel
# 0xa0 is) is stripped.
for v in 'ssh=Open\0351SSH' 'ssh=Open\0240SSH' 'ssh=Open\0177SSH' \
	'ssh=Open\tSSH' "ftp=$(printf '%049d' 0)"; do
	expect "nf_chaos_services refuses $v" refused \
		"$(taken nf_chaos_services "$v")"
done
finish
