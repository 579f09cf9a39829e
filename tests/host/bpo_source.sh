#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/bpo-source derives the bookworm-backports source that
# tests/install-deps adds from the machine's own Debian source, deb822 or
# one-line, and apt accepts what it prints. Uses fake /etc/apt trees only.
set -e
TOP=$(cd "$(dirname "$0")/../.." && pwd)
source "$TOP/tests/lib/ksft.inc"

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
KEY=/usr/share/keyrings/debian-archive-keyring.gpg

# check NAME ETC WANT-URI WANT-SIGNED-BY: the stanza, and apt would fetch
# bookworm-backports from WANT-URI with it.
check() {
	local name=$1 etc=$2 uri=$3 sb=$4 got want
	if ! got=$("$TOP/tests/bpo-source" "$etc" 2>&1); then
		fail "$name (expected a source, got: $got)"
		return
	fi
	want="Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main${sb:+
Signed-By: $sb}"
	if [ "$got" != "$want" ]; then
		fail "$name (expected \"$want\", got \"$got\")"
		return
	fi
	mkdir -p "$tmp/apt/parts" "$tmp/apt/lists/partial"
	echo "$got" > "$tmp/apt/parts/bpo.sources"
	got=$(apt-get -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$tmp/apt/parts" \
		-o Dir::State::Lists="$tmp/apt/lists" -o Dir::Cache="$tmp/apt" \
		-o Debug::NoLocking=1 --print-uris update 2>&1 | head -n 1)
	rm -rf "$tmp/apt"
	if [[ $got == "'$uri/dists/bookworm-backports/InRelease'"* ]]; then
		pass "$name"
	else
		fail "$name (expected apt to fetch $uri/dists/bookworm-backports, got \"$got\")"
	fi
}

# deb822, as Debian 12 installs it, behind a local mirror.
e=$tmp/deb822
mkdir -p "$e/sources.list.d"
cat > "$e/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: http://mirror.invalid/debian-security
Suites: bookworm-security
Components: main
Signed-By: $KEY

Types: deb
URIs: http://old.invalid/debian
Suites: bookworm
Components: main
Enabled: no

# the archive
Types: deb deb-src
URIs: http://mirror.invalid/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: $KEY
EOF
check "deb822 .sources: same URI and Signed-By" "$e" \
	http://mirror.invalid/debian "$KEY"

# One-line format in sources.list.d, with options.
e=$tmp/oneline
mkdir -p "$e/sources.list.d"
cat > "$e/sources.list.d/local.list" <<EOF
# deb http://old.invalid/debian bookworm main
deb-src http://src.invalid/debian bookworm main
deb [ arch=amd64 signed-by=$KEY ] http://local.invalid/debian bookworm contrib main
EOF
check "one-line .list: same URI and signed-by" "$e" http://local.invalid/debian "$KEY"

# Plain sources.list without a key option.
e=$tmp/plain
mkdir -p "$e"
echo "deb http://plain.invalid/debian bookworm main" > "$e/sources.list"
check "sources.list without signed-by" "$e" http://plain.invalid/debian ""

if "$TOP/tests/bpo-source" --configured "$tmp/deb822"; then
	fail "--configured without backports (expected exit 1, got 0)"
else
	pass "--configured without backports: exit 1"
fi
echo "deb http://plain.invalid/debian bookworm-backports main" >> "$tmp/plain/sources.list"
if "$TOP/tests/bpo-source" --configured "$tmp/plain"; then
	pass "--configured with backports: exit 0"
else
	fail "--configured with backports (expected exit 0, got 1)"
fi

mkdir -p "$tmp/none/sources.list.d"
cp "$tmp/deb822/sources.list.d/debian.sources" "$tmp/none/sources.list.d/"
sed -i 's/^Suites: bookworm bookworm-updates$/Suites: trixie/' \
	"$tmp/none/sources.list.d/debian.sources"
if out=$("$TOP/tests/bpo-source" "$tmp/none" 2>&1); then
	fail "no bookworm source (expected exit 1, got 0: $out)"
elif grep -q 'no enabled "deb" source with suite bookworm' <<< "$out"; then
	pass "no bookworm source: exit 1 with a message"
else
	fail "no bookworm source (expected a message, got \"$out\")"
fi
finish
