#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The manuals' tables agree with the code: chaostables(8)'s SYSCTLS table
# lists exactly the net.netfilter settings the modules register
# (kernel/*.c's ctl_table procnames), with the defaults and bounds of
# kernel/nf_chaos_internal.h; chaostables-load(8)'s EXIT STATUS lists
# exactly the statuses the tools exit with. (A guest's
# /proc/sys/net/netfilter/nf_chaos_* is what these names become.)
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
cd "$TOP" || exit 1

# same WHAT WANT GOT: PASS if the two word lists hold the same words.
same() {
	local want got
	want=$(tr ' ' '\n' <<< "$2" | grep . | sort -u | xargs)
	got=$(tr ' ' '\n' <<< "$3" | grep . | sort -u | xargs)
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "$1: $got"
	else
		fail "$1 (expected \"$want\", got \"$got\")"
	fi
}

# The table's rows: "name;default;range;per netns", between .TS and .TE
# of SYSCTLS.
rows=$(sed -n '/^\.SH SYSCTLS/,/^\.SH /p' doc/chaostables.8 |
	sed -n '/^\.TS/,/^\.TE/p' | grep '^nf_chaos_')
same "SYSCTLS lists the settings kernel/*.c registers" \
	"$(sed -n 's/^[[:space:]]*\.procname[[:space:]]*=[[:space:]]*"\(nf_chaos_[a-z_]*\)".*/\1/p' kernel/*.c | xargs)" \
	"$(cut -d';' -f1 <<< "$rows" | xargs)"

# define NAME: the value of NAME in kernel/nf_chaos_internal.h, evaluated.
define() {
	local v
	v=$(sed -n "s/^#define[[:space:]]\+$1[[:space:]]\+\([^/]*\).*/\1/p" kernel/nf_chaos_internal.h)
	echo $((v))
}
# row NAME FIELD: field FIELD (2 default, 3 range) of NAME's row.
row() { awk -F';' -v n="$1" -v f="$2" '$1 == n { print $f }' <<< "$rows"; }
expect "nf_chaos_epoch's default" "$(define NF_CHAOS_EPOCH)" "$(row nf_chaos_epoch 2)"
expect "nf_chaos_epoch's range" "1 to $(define NF_CHAOS_EPOCH_MAX) *" "$(row nf_chaos_epoch 3)"
expect "nf_chaos_held_rate's default" "$(define NF_CHAOS_HELD_RATE)" "$(row nf_chaos_held_rate 2)"
expect "nf_chaos_held_rate's range" "1 to $(define NF_CHAOS_HELD_RATE_MAX) *" "$(row nf_chaos_held_rate 3)"
max=$(define NF_CHAOS_VERSION_MAX)
if sed -n '/^\\fBnf_chaos_services\\fP/,/^\.[TP]P/p' doc/chaostables.8 | tr '\n' ' ' |
   grep -q "at most $max printable"; then
	pass "nf_chaos_services' longest value: $max characters"
else
	fail "nf_chaos_services' longest value (expected \"at most $max printable\" in its entry)"
fi
# The minimum of both is SYSCTL_ONE.
expect "epoch and held_rate's minimum" "2" \
	"$(grep -c 'extra1[[:space:]]*= SYSCTL_ONE' kernel/nf_chaos_core.c)"

# The tools' statuses: each "exit N" of service/chaostables-{load,
# services,status}, 0 for a normal end, and 1 for chaostables-prom (set -e:
# any failed command); the page's EXIT STATUS entries.
codes=$({ echo 0 1; grep -ho '\bexit [0-9]' service/chaostables-load service/chaostables-services \
	service/chaostables-status |
	cut -d' ' -f2; } | xargs)
same "chaostables-load(8)'s EXIT STATUS lists the tools' statuses" "$codes" \
	"$(sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' doc/chaostables-load.8 |
		awk 'p { print; p = 0 } /^\.TP/ { p = 1 }' | xargs)"
finish
