#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The rules xtables-addons' manual gives as examples (xtables-addons(8),
# TARPIT; copied here as written, facts of its documentation), and the
# lscan rules its users have, load unchanged with iptables-legacy and
# iptables-nft, and do what that manual says:
#  - "-A INPUT -p tcp -m tcp --dport 80 -j TARPIT": port 80 of the host
#    looks open to nmap -sS and the rule counts the probe;
#  - "-A FORWARD -p tcp -j TARPIT", "-A FORWARD -j DROP" on the router:
#    every probed port of the host behind it looks open;
#  - the IRC example, "-t raw -A PREROUTING -p tcp --dport 6667 -j CT
#    --notrack", "-A INPUT -p tcp --dport 6667 -j NFLOG", "-A INPUT -p tcp
#    --dport 6667 -j TARPIT": open, and its probes untracked;
#  - "-m lscan --stealth --synscan --cnscan --grscan --mirai" in front of
#    "-j CHAOS --delude": an nmap -sF probe matches --stealth.
# IPv4, as the manual's examples are.
# The rules in the root's iptables, the same for each kernel:
# vm-per-root
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap conntrack iptables-legacy iptables-nft
setup_topology

# counted NS IPT TAG WHAT: PASS if the rule tagged TAG counted a packet.
counted() {
	local n
	n=$(ipt_pkts "$1" "$2" "$3") || true
	if [ "${n:-0}" != missing ] && [ "${n:-0}" -gt 0 ]; then
		pass "$4: rule counted $n"
	else
		fail "$4 (expected the rule to count the probes, got ${n:-nothing})"
	fi
}

# rules NS IPT LINE...: each LINE appended as written, "-t TABLE" included,
# the rule with a target tagged by its position (for ipt_pkts).
rules() {
	local n=$1 ipt=$2 i=0 line
	shift 2
	for line in "$@"; do
		i=$((i + 1))
		# shellcheck disable=SC2086
		ns "$n" "$ipt" $line -m comment --comment "ex$i" ||
			fail "$ipt $line: refused"
	done
}

for ipt in iptables-legacy iptables-nft; do
	flush_rules host router

	rules host "$ipt" "-A INPUT -p tcp -m tcp --dport 80 -j TARPIT"
	scan 60 -sS -p 80 --max-retries 0 "$HOST4"
	expect "$ipt TARPIT on port 80: nmap -sS reports" 80 "$(open_ports)"
	counted host "$ipt" ex1 "$ipt TARPIT on port 80"

	flush_rules host router
	rules router "$ipt" "-A FORWARD -p tcp -j TARPIT" "-A FORWARD -j DROP"
	scan 60 -sS -p 1000-1004 --max-retries 0 "$HOST4"
	expect "$ipt FORWARD TARPIT: nmap -sS reports" "1000 1001 1002 1003 1004" \
		"$(open_ports)"
	counted router "$ipt" ex1 "$ipt FORWARD TARPIT"

	flush_rules host router
	# Before the example: a rule that counts its port's untracked probes.
	ns host "$ipt" -A INPUT -p tcp --dport 6667 -m conntrack \
		--ctstate UNTRACKED -m comment --comment untracked
	rules host "$ipt" "-t raw -A PREROUTING -p tcp --dport 6667 -j CT --notrack" \
		"-A INPUT -p tcp --dport 6667 -j NFLOG" \
		"-A INPUT -p tcp --dport 6667 -j TARPIT"
	scan 60 -sS -p 6667 --max-retries 0 "$HOST4"
	expect "$ipt IRC TARPIT, untracked: nmap -sS reports" 6667 "$(open_ports)"
	counted host "$ipt" ex3 "$ipt IRC TARPIT, untracked"
	counted host "$ipt" untracked "$ipt IRC TARPIT: its probes untracked"

	flush_rules host router
	rules host "$ipt" \
		"-A INPUT -p tcp -m lscan --stealth --synscan --cnscan --grscan --mirai -j CHAOS --delude"
	expect "$ipt lscan rule saved as written" \
		"*-m lscan --stealth --synscan --cnscan --grscan --mirai*" \
		"$(ipt_save host "$ipt" | grep -e '-m lscan')"
	scan 60 -sF -p 2000-2004 --max-retries 0 "$HOST4"
	counted host "$ipt" ex1 "$ipt lscan --stealth, nmap -sF"
done
finish
