# SPDX-License-Identifier: GPL-2.0
#
# make                 modules for KVER (default: newest installed headers)
#                      and the iptables plugins
# make install         modules to /lib/modules/$(KVER)/extra (KVER default:
#                      the running kernel), plugins to xtables' plugin dir
# make man             doc/chaostables.8 from its parts (doc/mkman): the
#                      plugins' extensions/libxt_*.man and doc/man/*.man
# make deb             the Debian packages chaostables and chaostables-dkms,
#                      from the tracked files, into build/deb (DEBDIR)
# make dist            the release tarball build/chaostables-VERSION.tar.gz
#                      (a source package: dpkg-buildpackage works in it)
# make check           host tests, then VM tests on every supported kernel
#                      (all on the newest, those that differ by kernel on
#                      the others: doc/testing.md)
#                      and, beside them, check-install's tests (the
#                      package install on the newest Debian only)
# make check-install   the .debs installed, used and purged, in a VM
# make check-field     systemd boots the unit beside each base firewall, in VMs
# make check-next      build only, W=1 and sparse, for the newest kernel
#                      headers in sid or experimental, with sid's gcc
# make check-debug     VM tests on a debug kernel (KASAN, kmemleak, lockdep...)
# make demo            the four extensions as nmap, masscan and ss see
#                      them, in a VM
# make bench           tests/bench/*: scan effect, timing, forced speed,
#                      cost, peer, osscan, secondlook, in a VM each, two
#                      side by side; build/bench/report.md, scan-time.svg;
#                      about 40 minutes (CHAOS_SIZE=quick: under 10,
#                      CHAOS_SIZE=full: the whole matrix, hours);
#                      doc/benchmarks.md
# make bench-cost      what the rules cost legitimate traffic, CPU and
#                      memory, as ratios, in a VM (tests/run bench cost)
# make bench-peer      scan-time ratios next to xtables-addons' CHAOS
#                      (fetched from the apt archive, built privately)

# Installing is for the kernel that runs; building, for the newest headers.
ifneq ($(filter install modules_install,$(MAKECMDGOALS)),)
KVER ?= $(shell uname -r)
endif
KVER ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | \
	  sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build/$(KVER)

PKG_CONFIG ?= pkg-config
XTLIBDIR ?= $(shell $(PKG_CONFIG) --variable=xtlibdir xtables)
CFLAGS ?= -O2 -g
# Warnings are errors for us (make check), not for a distribution's build
# with another compiler (debian/rules: WERROR=).
WERROR ?= -Werror
# As iptables builds its own: XTABLES_INTERNAL and _INIT turn each plugin's
# _init() into a uniquely named constructor.
PLUGIN_CFLAGS = $(CPPFLAGS) $(CFLAGS) -Wall -Wextra $(WERROR) -fPIC -Iinclude \
		 -DXTABLES_INTERNAL $(shell $(PKG_CONFIG) --cflags xtables)
PLUGIN_LDFLAGS := $(LDFLAGS) -shared
# Plugins for another userspace (the Debian 13 root's) go elsewhere.
PLUGINDIR ?= extensions
PLUGINS := $(patsubst extensions/%.c,$(PLUGINDIR)/%.so,$(wildcard extensions/libxt_*.c))
# iptables loads a plugin by the name in the rule: xtables-addons' name of
# the portscan match finds the one plugin through a symlink.
PLUGIN_ALIASES := $(PLUGINDIR)/libxt_lscan.so
KSRC := Kbuild $(wildcard kernel/*.[ch] include/linux/netfilter/*.h)

all: modules plugins

# Kbuild writes objects next to the sources (M=), so each kernel builds in
# a copy of its own, build/$(KVER). The copy is exact: a source deleted
# from the tree empties it (no stale object or module may linger there);
# a source whose content differs is copied with a new mtime, so that its
# objects are rebuilt even when the source is older than they are (cp -u
# would skip it, cp -a would keep the old mtime and Kbuild the objects).
modules: $(KSRC)
	@test -n "$(KVER)" -a -d "$(KDIR)" || \
		{ echo "no kernel headers (KVER=$(KVER)); run tests/install-deps"; exit 1; }
	@for f in $(BUILD)/kernel/*.[ch] $(BUILD)/include/linux/netfilter/*.h; do \
		[ -e "$${f#$(BUILD)/}" ] || { rm -rf $(BUILD); break; }; done
	@for f in $(KSRC); do \
		cmp -s $$f $(BUILD)/$$f || install -D -m 0644 $$f $(BUILD)/$$f; done
	$(MAKE) -C $(KDIR) M=$(BUILD) W=1 modules

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(BUILD) INSTALL_MOD_DIR=extra modules_install
	depmod -a $(KVER)

plugins: $(PLUGINS) $(PLUGIN_ALIASES)

$(PLUGINDIR)/libxt_%.so: extensions/libxt_%.c $(wildcard include/linux/netfilter/*.h)
	@mkdir -p $(PLUGINDIR)
	$(CC) $(PLUGIN_CFLAGS) -D_INIT=libxt_$*_init $(PLUGIN_LDFLAGS) -o $@ $<

$(PLUGINDIR)/libxt_lscan.so: $(PLUGINDIR)/libxt_portscan.so
	ln -sf $(notdir $<) $@

man: doc/chaostables.8

doc/chaostables.8: doc/mkman $(wildcard doc/man/*.man extensions/libxt_*.man)
	sh doc/mkman > $@

install: modules_install plugins
	install -d $(DESTDIR)$(XTLIBDIR)
	install -m 0644 $(PLUGINS) $(DESTDIR)$(XTLIBDIR)/
	cp -P $(PLUGIN_ALIASES) $(DESTDIR)$(XTLIBDIR)/

# The source files: git's in a checkout, MANIFEST's (written by make dist)
# in an unpacked release tarball. Never what a build left in the tree.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
SOURCES := $(if $(wildcard .git),git ls-files,grep -v '^MANIFEST$$' MANIFEST)

DEBDIR ?= $(CURDIR)/build/deb
deb:
	rm -rf $(DEBDIR)/src $(DEBDIR)/chaostables*
	mkdir -p $(DEBDIR)/src
	$(SOURCES) | cpio -pdm --quiet $(DEBDIR)/src
	cd $(DEBDIR)/src && dpkg-buildpackage -us -uc -b
	rm -rf $(DEBDIR)/src

# Reproducible: sorted, owned by root, every mtime the changelog's date.
DISTDIR := build/dist/chaostables-$(VERSION)
dist:
	rm -rf build/dist build/chaostables-$(VERSION).tar.gz
	mkdir -p $(DISTDIR)
	$(SOURCES) | cpio -pdm --quiet $(DISTDIR)
	{ $(SOURCES); echo MANIFEST; } | LC_ALL=C sort > $(DISTDIR)/MANIFEST
	tar -C build/dist --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(dpkg-parsechangelog -l debian/changelog -S Timestamp) \
		-cf - chaostables-$(VERSION) | gzip -n9 > build/chaostables-$(VERSION).tar.gz
	rm -rf build/dist
	@echo build/chaostables-$(VERSION).tar.gz

# Static checks: checkpatch (from linux-source) and sparse.
lint: modules plugins
	$(MAKE) -C $(KDIR) M=$(BUILD) C=2 modules
	tests/checkpatch

deps:
	tests/install-deps

check: deps
	tests/run check

# The packages installed, used and purged in the VM, once per Debian
# root, and the base firewall kept when our modules are missing (make
# check runs them beside the VM tests, the install on Debian 13 only).
check-install: deps
	tests/run install

# Not in check: eight systemd boots under TCG, Debian 13 and 12, a host
# booted twice, an HA pair of two guests and the CrowdSec fleet
# (tests/field).
check-field: deps
	tests/run field

# Build only, W=1 and sparse, against the newest kernel headers sid or
# experimental has, with sid's compiler: the next kernel's API changes
# show before users meet them.
check-next: deps
	tests/run next

check-debug: deps
	tests/run debug

demo: deps
	tests/run demo

# Every part runs even if another fails, and adds its section to
# build/bench/report.md.
bench: deps
	tests/run bench

bench-cost: deps
	tests/run bench cost

bench-peer: deps
	tests/run bench peer

clean:
	rm -rf build extensions/*.so

.PHONY: all modules modules_install plugins man install deb dist lint deps check check-install check-field check-next \
	check-debug demo bench bench-cost bench-peer clean
