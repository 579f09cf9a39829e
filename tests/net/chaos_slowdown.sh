#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# CHAOS slows scans down: nmap wall time against the host with and without
# "-j CHAOS --delude" (default probabilities and rate), measured in the
# same VM run, TCP -sS and UDP -sU at the default timing (-T3), each three
# times in a row from the same source: the second and third scans come
# within the minute CHAOS remembers a source for, and must be as slow as
# the first. The UDP scans follow the TCP ones on the same rule. The bare
# kernel already slows UDP scans with its ICMP rate limit, and its last
# answers leave the peer's ICMP tokens spent: CHAOS must be slower still.
# Then one UDP scan more whose first answer from CHAOS the router drops, as
# a busy link or the kernel's own ICMP rate limit may: the climb must not
# end there. Not a benchmark (tests/bench/scan is): it asserts a clear ratio for
# the medians (1.5), and that no scan is faster than the fastest bare one
# (on a loaded host bare UDP scans alone vary threefold). A
# CHAOS scan is cut off once it has taken twice the bare median, and counts
# with that bound as its time.
#
#   scanner 10.0.1.2 --- router --- host 10.0.3.2
#                                   INPUT: tcp/22 ACCEPT, then CHAOS --delude
set -e
source "$(dirname "$0")/../lib/lib.sh"
source "$(dirname "$0")/helpers/chaos_lib.inc"
trap cleanup EXIT

MIN_RATIO=1.5		# the median
ANY_RATIO=1		# every scan
REPEATS=3

# base: the source port nmap based the last scan's probes on (it adds the
# try number to it): the lowest of scanner's conntrack entries to host,
# flushed before each scan. nmap's own packet trace is lost when a scan
# is cut off.
base() {
	ns scanner conntrack -L -d "$HOST4" 2>/dev/null | awk '{
		for (i = 1; i <= NF; i++)
			if ($i ~ /^sport=/) { print substr($i, 7); break }
	}' | sort -n | head -n 1
}

# scans N SECS ARGS...: N scans in a row, their times in $TIMES. Once the
# CHAOS rule is in ($chaos), a scan whose base port lies within CHAOS's
# retry window (256 ports, and the try numbers added) of the last one's on
# that protocol is the case its manual names: taken for the last scan's
# retries, answered, and fast. Such a scan (nmap picks the base among some
# 31,000 ports: one run in 60) is run again, twice at most.
chaos=0
declare -A last_base=()
scans()
{
	local n=$1 i b l again=2

	shift
	TIMES=()
	for ((i = 0; i < n; i++)); do
		ns scanner conntrack -F 2>/dev/null || true
		scan "$@" "$HOST4"
		b=$(base) l=${last_base[$2]:-}
		last_base[$2]=$b
		if [ $chaos = 1 ] && [ -n "$l" ] && [ -n "$b" ] &&
		   [ $((b > l ? b - l : l - b)) -lt 300 ] && [ $again -gt 0 ]; then
			echo "# nmap ${*:2}: ${SCAN_TIME}s, base port $b near the last scan's $l: run again"
			again=$((again - 1)) i=$((i - 1))
			continue
		fi
		TIMES+=("$SCAN_TIME")
		echo "# nmap ${*:2}: ${SCAN_TIME}s (base port $b)"
	done
}

# median TIME...: the middle one
median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }

# fastest TIME...: the smallest one
fastest() { printf '%s\n' "$@" | sort -g | head -n 1; }

# bound BARE: seconds a CHAOS scan may take before it is cut off
bound() { awk -v b="$1" 'BEGIN { printf "%d", 2 * b + 1 }'; }

# compare NAME BARE-TIMES... -- CHAOS-TIMES...: the ratio of the medians,
# and of each CHAOS scan to the fastest bare one
compare()
{
	local name=$1 bare=() chaos=() b c f i=1

	shift
	while [ "$1" != -- ]; do bare+=("$1"); shift; done
	shift
	chaos=("$@")
	b=$(median "${bare[@]}")
	c=$(median "${chaos[@]}")
	printf '%-10s bare %-22s CHAOS %-22s medians %s / %s = %s\n' "$name" \
		"${bare[*]}" "${chaos[*]}" "$c" "$b" "$(ratio "$c" "$b")"
	check_slower "$name median of $REPEATS" "$c" "$b" $MIN_RATIO
	f=$(fastest "${bare[@]}")
	for c in "${chaos[@]}"; do
		check_slower "$name scan $i of $REPEATS" "$c" "$f" $ANY_RATIO
		i=$((i + 1))
	done
}

require nmap socat conntrack
setup_topology
# Conntrack on in scanner, for base.
ns scanner $IPT -A OUTPUT -d "$HOST4" -m conntrack --ctstate NEW
start_tcp_server host 22
ns host $IPT -A INPUT -p tcp --dport 22 -j ACCEPT

scans $REPEATS 120 -sS -T3 -p 1-50
tcp_bare=("${TIMES[@]}")
scans $REPEATS 120 -sU -T3 -p 1-20
udp_bare=("${TIMES[@]}")

ns host $IPT -A INPUT -j CHAOS --delude
chaos=1 last_base=()
scans $REPEATS "$(bound "$(median "${tcp_bare[@]}")")" -sS -T3 -p 1-50
tcp_chaos=("${TIMES[@]}")
scans $REPEATS "$(bound "$(median "${udp_bare[@]}")")" -sU -T3 -p 1-20
udp_chaos=("${TIMES[@]}")

ns router $IPT -A FORWARD -p icmp --icmp-type port-unreachable \
	-m statistic --mode nth --every 1000000 --packet 0 \
	-m comment --comment first-answer -j DROP
scans 1 "$(bound "$(median "${udp_bare[@]}")")" -sU -T3 -p 1-20
udp_lost=$SCAN_TIME
lost=$(ipt_pkts router $IPT first-answer)

compare "-sS -T3" "${tcp_bare[@]}" -- "${tcp_chaos[@]}"
compare "-sU -T3" "${udp_bare[@]}" -- "${udp_chaos[@]}"
if [ "$lost" = 1 ]; then
	pass "the router dropped the first answer of the last UDP scan"
else
	fail "answers dropped by the router (expected 1, got $lost)"
fi
check_slower "-sU -T3 with its first answer lost" "$udp_lost" \
	"$(fastest "${udp_bare[@]}")" $ANY_RATIO
finish
