#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the tests require (require CMD..., require_py MODULE...: a FAIL
# when missing, not a skip) is what the project's installer provides:
# each command is installed here (the machine, or the Debian 13 root when
# run there), from a package of tests/install-deps' or tests/debian-root's
# lists, or one every Debian root has (Essential or Priority: required).
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"
cd "$TOP" || exit 1

# The PATH of the guests and the Debian 13 root (tests/vm/init,
# tests/debian-root), not this shell's.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# The installer's packages: every *PKGS="..." list of both scripts.
lists=" $(sed -n '/PKGS="/,/"/p' tests/install-deps tests/debian-root |
	sed 's/^.*PKGS="//; s/".*//' | xargs) "
[[ "$lists" = *" nmap "* ]] ||
	{ fail "the installer's package lists (expected nmap in them, got:$lists)"; finish; }
# and what they depend on, all the way down (pkg-config, pkgconf,
# pkgconf-bin; python3, ..., libpython3.N-minimal).
deps() {
	# shellcheck disable=SC2086
	dpkg-query -W -f='${Depends},${Pre-Depends}\n' $1 2>/dev/null |
		tr ',|' '\n\n' | sed 's/(.*//; s/:.*//; s/[[:space:]]//g' | sort -u | xargs
}
provided=$(xargs -n 1 <<< "$lists" | sort -u | xargs)
for _ in 1 2 3 4 5 6 7 8; do
	more=$(xargs -n 1 <<< "$provided $(deps "$provided")" | sort -u | xargs)
	[ "$more" != "$provided" ] || break
	provided=$more
done
provided=" $provided "

# The words after require / require_py, continuation lines joined.
requires() {
	find tests -type f \( -name '*.sh' -o -name '*.inc' \) -print0 |
		xargs -0 sed -e :a -e '/\\$/N; s/\\\n//; ta' |
		sed -n "s/^[[:space:]]*$1[[:space:]]\+//p" | tr ' \t' '\n\n' |
		grep -E '^[a-z0-9][a-z0-9._+-]*$' | sort -u
}

# package FILE: the package that installed FILE (merged /usr: dpkg may
# know it by its /bin or /sbin name).
package() {
	dpkg -S "$1" 2>/dev/null || dpkg -S "${1#/usr}" 2>/dev/null
}

# provided WHAT FILE: PASS if FILE's package is the installer's.
provided() {
	local pkg
	pkg=$(package "$(readlink -f "$2")" || package "$2")
	pkg=${pkg%%:*}
	if [ -z "$pkg" ]; then
		fail "$1 ($2): no package owns it"
	elif [[ "$provided" = *" $pkg "* ]] ||
	     [[ "$(dpkg-query -W -f='${Essential} ${Priority}' "$pkg")" =~ ^yes|required ]]; then
		pass "$1: $pkg"
	else
		fail "$1: its package $pkg is in no installer list (tests/install-deps, tests/debian-root) nor a dependency, and not required"
	fi
}

cmds=$(requires require)
[ -n "$cmds" ] || { fail "require lines found (expected some, got none)"; finish; }
for c in $cmds; do
	if p=$(command -v "$c"); then
		provided "$c" "$p"
	else
		fail "$c, which tests require, not installed here (tests/install-deps installs it)"
	fi
done
# A Python module: the file it is imported from (built into the
# interpreter: python3's own).
for m in $(requires require_py); do
	if ! f=$(/usr/bin/python3 -c "import $m; print(getattr($m, '__file__', '') or '')" 2>/dev/null); then
		fail "python3 module $m, which tests require, not installed here (tests/install-deps installs it)"
	else
		provided "python3 module $m" "${f:-/usr/bin/python3}"
	fi
done
finish
