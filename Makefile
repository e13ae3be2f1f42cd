# SPDX-License-Identifier: GPL-2.0
#
# sroce — software RoCE v2 driver.
#
#   make            build drivers/infiniband/sw/sroce/sroce.ko
#   make check      install what is needed, run every test (unit + guest)
#   make check-debug    guest cases on a KASAN/lockdep/kmemleak/UBSAN build
#                   of Debian's 6.1, built once (not for CI: ~16 min + ~2 h)
#   make demo       boot a guest and show the module at work
#   make bench      perftest figures of sroce against rdma_rxe, then
#                   make bench-mpi and make bench-incast (not a test)
#   make bench-mpi  Open MPI across two guests over sroce and over TCP
#   make bench-incast   congestion control in an incast: CC off, CC on
#                   and rdma_rxe senders
#   make bench-wire the same across a wire between two guests, clean and
#                   under netem, with TCP (iperf3) as the ceiling
#   make wire-latency   the virtual wires' own latency (UDP, no RDMA)
#   make bench-crc32    crc32_le() against the crypto API's crc32 in the guest
#   make bench-odp  an RC WRITE stream into pinned and on-demand regions
#                   (first touch and warm), against rdma_rxe
#   make bench-ab OLD_KO=...  another build of sroce.ko against the tree's,
#                   alternating in one guest boot
#   make install    install sroce.ko for KVER (/lib/modules/KVER/updates)
#   make uninstall  remove it again (see dkms.conf for DKMS)
#
# KVER selects the kernel: the running kernel's when it has a build tree,
# else (a host without module support) Debian 12's own installed kernel
# (scripts/kver.sh). KVER may be a full version or a prefix: KVER=6.12
# builds for the newest installed 6.12 (bookworm-backports). KDIR, the
# kernel build tree, follows KVER unless set.
#
# The default kernel's module is built in the tree, as
# drivers/infiniband/sw/sroce/sroce.ko. Any other kernel's is built in
# build/kbuild/<KVER>/, a mirror of the sources made of symlinks, so two
# kernels' objects never mix: a 6.12 build leaves nothing where a 6.1
# build or guest run would pick it up, and switching back and forth
# rebuilds nothing. `make -s ko-path KVER=...` prints where the module is.

SROCE_DIR := $(CURDIR)/drivers/infiniband/sw/sroce

DEFAULT_KVER := $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else env -u KVER $(CURDIR)/scripts/kver.sh --headers 2>/dev/null; fi)
ifeq ($(origin KVER),undefined)
override KVER := $(DEFAULT_KVER)
else
# A KVER given (make check KVER=6.12) goes on to the scripts, resolved:
# "override" would otherwise keep it from their environment.
export KVER
ifneq ($(KVER),$(DEFAULT_KVER))
override KVER := $(or $(shell KVER='$(KVER)' $(CURDIR)/scripts/kver.sh --headers 2>/dev/null),$(KVER))
endif
endif
KDIR ?= /lib/modules/$(KVER)/build

# INTREE=1 builds in the tree for any kernel: DKMS (dkms.conf) builds one
# kernel at a time in a copy of its own.
ifneq ($(INTREE)$(filter $(DEFAULT_KVER),$(KVER)),)
MOD_TOP := $(CURDIR)
else
MOD_TOP := $(CURDIR)/build/kbuild/$(KVER)
endif
MOD_DIR := $(MOD_TOP)/drivers/infiniband/sw/sroce

KBUILD := $(MAKE) -C $(KDIR) M=$(MOD_DIR) CONFIG_RDMA_SROCE=m

.PHONY: all module sparse unit check check-debug demo bench bench-mpi bench-incast bench-wire wire-latency \
	bench-crc32 bench-ab bench-odp clean \
	kdir-check mirror ko-path install uninstall

all: module

kdir-check:
	@test -f $(KDIR)/Makefile || { \
		echo "No kernel build tree at '$(KDIR)'." \
		     "Run 'make check' or scripts/install-deps.sh first," \
		     "or set KDIR=."; exit 1; }

# The symlink mirror for a non-default kernel (a no-op for the default).
mirror:
	@test "$(MOD_TOP)" = "$(CURDIR)" || \
		bash scripts/kbuild-mirror.sh $(CURDIR) $(MOD_TOP)

module: kdir-check mirror
	+$(KBUILD) modules

# C=2 makes sparse look at every file, not only the ones rebuilt.
sparse: kdir-check mirror
	+$(KBUILD) C=2 modules

ko-path:
	@echo $(MOD_DIR)/sroce.ko

unit:
	$(MAKE) -C tests/unit run

check:
	bash scripts/check.sh

check-debug:
	bash scripts/check-debug.sh

demo:
	bash scripts/demo.sh

# All three parts run even if one fails; the status is the worst one.
bench:
	rc=0; bash scripts/bench.sh || rc=$$?; bash scripts/bench-mpi.sh || rc=$$?; \
		bash scripts/bench-incast.sh || rc=$$?; exit $$rc

bench-mpi:
	bash scripts/bench-mpi.sh

bench-incast:
	bash scripts/bench-incast.sh

bench-wire:
	bash scripts/bench-wire.sh

wire-latency:
	bash scripts/wire-latency.sh

bench-crc32:
	bash scripts/bench-crc32.sh

bench-odp:
	bash scripts/bench-odp.sh

bench-ab: module
	bash scripts/bench-ab.sh $(OLD_KO)

# modules_install puts it in /lib/modules/KVER/updates/ (compressed and
# signed as the kernel's configuration says) and runs depmod, so that
# "modprobe sroce" and "rdma link add ... type sroce" (through the module's
# rdma-link-sroce alias) find it.
install: module
	$(KBUILD) INSTALL_MOD_DIR=updates modules_install

uninstall:
	rm -f /lib/modules/$(KVER)/updates/sroce.ko*
	depmod -a $(KVER)

clean:
	-test -f $(KDIR)/Makefile && \
		$(MAKE) -C $(KDIR) M=$(SROCE_DIR) CONFIG_RDMA_SROCE=m clean
	-$(MAKE) -C tests/unit clean
	rm -rf build
