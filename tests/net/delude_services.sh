#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DELUDE --banner poses as the port's usual service, in the versions of
# the host's own release (issue 33's second look). On host (INPUT,
# iptables-legacy), a real HTTP server on 80, DELUDE --banner on every
# other port, the catalogue written by service/chaostables-services:
# - nmap -sV at default intensity on nmap's top 20 TCP ports names at
#   least 17 of the 19 forged ones as their usual service, none with a
#   "?" but a TLS port (ssl|...?: its handshake cannot be forged, see
#   DELUDE in the manual);
# - the versions nmap shows (OpenSSH, vsftpd, nginx, MariaDB, BIND) are
#   those of the guest root's release: installed, else its candidate;
# - the catalogue reads back from the sysctl, an empty write restores the
#   built-in one, an unknown name is refused.
# vm-timeout: 900
set -e
source "$(dirname "$0")/../lib/lib.sh"
trap cleanup EXIT

require nmap python3 iptables-legacy apt-cache dpkg-query
TOOL=$(cd "$(dirname "$0")/../.." && pwd)/service/chaostables-services
SYSCTL=/proc/sys/net/netfilter/nf_chaos_services

# with_root_pkgs CMD...: CMD where the root's dpkg and apt state shows,
# in a mount namespace without the guest's tmpfs on /var/lib.
with_root_pkgs() {
	unshare -m --propagation private sh -c \
		'! mountpoint -q /var/lib || umount /var/lib; exec "$@"' sh "$@"
}

setup_topology
ns host python3 -m http.server -b "$HOST4" 80 >/dev/null 2>&1 &
wait_for_tcp_listen host 80
ns host iptables-legacy -A INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
ns host iptables-legacy -A INPUT -p tcp --dport 80 -j ACCEPT
ns host iptables-legacy -A INPUT -p tcp -j DELUDE --banner

if [ -x "$TOOL" ] &&
	written=$(with_root_pkgs ip netns exec host "$TOOL"); then
	pass "chaostables-services wrote the catalogue"
else
	fail "chaostables-services (expected the catalogue written, got a failure)"
fi

scan 600 -sV --top-ports 20 --max-retries 1 --host-timeout 480s "$HOST4"
echo "# nmap -sV took ${SCAN_TIME}s"
open_services | sed 's/^/# /'
scan_done || fail "nmap -sV finished (got: $SCAN_OUT)"

# usual PORT: the services nmap names PORT's usual one (an extended regex).
usual() {
	case $1 in
	21) echo ftp ;; 22) echo ssh ;; 23) echo telnet ;; 25) echo smtp ;;
	53) echo domain ;; 110) echo pop3 ;; 111) echo rpcbind ;;
	135) echo msrpc ;; 139) echo netbios-ssn ;; 143) echo imap ;;
	# A Samba host's 445 is netbios-ssn to nmap.
	445) echo 'microsoft-ds|netbios-ssn' ;;
	1723) echo pptp ;; 3306) echo mysql ;; 3389) echo ms-wbt-server ;;
	5900) echo vnc ;; 8080) echo 'http|http-proxy' ;;
	# TLS: the service behind "ssl|", or nmap's guess of it.
	443) echo 'ssl\|https?|https|ssl\|http' ;;
	993) echo 'ssl\|imaps?|imaps|ssl\|imap' ;;
	995) echo 'ssl\|pop3s?|pop3s|ssl\|pop3' ;;
	*) echo '^$' ;;
	esac
}
named=0 forged=0
while IFS=$'\t' read -r port service _; do
	[ "$port" != 80 ] || continue
	forged=$((forged + 1))
	if [[ "$service" =~ ^($(usual "$port"))$ ]]; then
		named=$((named + 1))
	else
		echo "# port $port: $service is not its usual service"
	fi
done < <(open_services)
if [ "$forged" = 19 ] && [ "$named" -ge 17 ]; then
	pass "-sV names $named of $forged forged ports as their service"
else
	fail "-sV (expected >= 17 of 19 forged ports named, got $named of $forged)"
fi

# The guest root's versions of the packages whose version nmap shows:
# "PKG UPSTREAM REVISION" lines, installed or else the candidate; apt's
# cache in memory, as the root is read-only. apt-cache once: it is slow.
PKGS="openssh-server vsftpd nginx mariadb-server bind9"
# shellcheck disable=SC2086 # a list of names
RELEASE=$(with_root_pkgs apt-cache -o Dir::Cache::pkgcache= \
	-o Dir::Cache::srcpkgcache= policy $PKGS 2>/dev/null | awk '
	/^[^ ].*:$/ { p = substr($1, 1, length($1) - 1) }
	$1 == "Installed:" && $2 != "(none)" { v[p] = $2 }
	$1 == "Candidate:" && $2 != "(none)" && !(p in v) { v[p] = $2 }
	END { for (p in v) print p, v[p] }' |
	sed -E 's/ [0-9]+:/ /; s/-([^-]*)$/ \1/')
# release_version PKG: its upstream version and Debian revision.
release_version() {
	awk -v p="$1" '$1 == p { print $2, $3; f = 1 } END { exit !f }' \
		<<< "$RELEASE" || fail "$1: no version installed nor in apt's lists"
}
# version PORT: the version nmap shows for PORT.
version() { open_services | awk -F '\t' -v p="$1" '$1 == p { print $3 }'; }

read -r up rev < <(release_version openssh-server)
expect "22: the release's OpenSSH" "OpenSSH ${up:-?} Debian ${rev:-?} *" \
	"$(version 22)"
read -r up rev < <(release_version vsftpd)
expect "21: the release's vsftpd" "vsftpd ${up:-?}" "$(version 21)"
read -r up rev < <(release_version nginx)
expect "8080: the release's nginx" "nginx ${up:-?}" "$(version 8080)"
# nmap 7.93 shows MySQL 5.5.5-VERSION-MariaDB-REVISION, 7.95 MariaDB
# VERSION; Debian's VERSION may carry a repack suffix (+ds).
read -r up rev < <(release_version mariadb-server)
up=${up%%+*}
expect "3306: the release's MariaDB" "*${up:-?}*" "$(version 3306)"
read -r up rev < <(release_version bind9)
expect "53: the release's BIND" "ISC BIND ${up:-?}-${rev:-?} *" "$(version 53)"

# The catalogue reads back; an empty write restores the built-in one,
# which a namespace that never wrote it shows.
expect "the sysctl holds the catalogue written" \
	"${written:-}" "$(ns host cat "$SYSCTL" 2>&1)"
ns host sh -c "echo > $SYSCTL" 2>/dev/null || true
expect "an empty write restores the built-in catalogue" \
	"$(ns router cat "$SYSCTL" 2>&1)" "$(ns host cat "$SYSCTL" 2>&1)"
expect "the built-in catalogue" "ssh=OpenSSH_*" "$(ns host cat "$SYSCTL" 2>&1)"
if ns host sh -c "echo bogus=1 > $SYSCTL" 2>/dev/null; then
	fail "an unknown name (expected the write refused, got it taken)"
else
	pass "an unknown name is refused"
fi
finish
