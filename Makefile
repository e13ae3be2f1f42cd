# SPDX-License-Identifier: GPL-2.0
#
# sroce — software RoCE v2 driver.
#
#   make            build drivers/infiniband/sw/sroce/sroce.ko
#   make check      install what is needed, run every test (unit + guest)
#   make demo       boot a guest and show the module at work
#   make bench      perftest figures of sroce against rdma_rxe (not a test)
#   make bench-wire the same across a wire between two guests, clean and
#                   under netem, with TCP (iperf3) as the ceiling
#   make wire-latency   the virtual wires' own latency (UDP, no RDMA)
#   make install    install sroce.ko for KVER (/lib/modules/KVER/updates)
#   make uninstall  remove it again (see dkms.conf for DKMS)
#
# KDIR selects the kernel build tree. By default: the running kernel's, or,
# where there is none (a host without module support), the newest installed
# Debian linux-headers-*-amd64.

SROCE_DIR := $(CURDIR)/drivers/infiniband/sw/sroce

KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | sort -V | tail -n 1; fi)
KDIR ?= /lib/modules/$(KVER)/build

KBUILD := $(MAKE) -C $(KDIR) M=$(SROCE_DIR) CONFIG_RDMA_SROCE=m

.PHONY: all module sparse unit check demo bench bench-wire wire-latency clean \
	kdir-check install uninstall

all: module

kdir-check:
	@test -f $(KDIR)/Makefile || { \
		echo "No kernel build tree at '$(KDIR)'." \
		     "Run 'make check' or scripts/install-deps.sh first," \
		     "or set KDIR=."; exit 1; }

module: kdir-check
	$(KBUILD) modules

# C=2 makes sparse look at every file, not only the ones rebuilt.
sparse: kdir-check
	$(KBUILD) C=2 modules

unit:
	$(MAKE) -C tests/unit run

check:
	bash scripts/check.sh

demo:
	bash scripts/demo.sh

bench:
	bash scripts/bench.sh

bench-wire:
	bash scripts/bench-wire.sh

wire-latency:
	bash scripts/wire-latency.sh

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
	-test -f $(KDIR)/Makefile && $(KBUILD) clean
	find include -name '*.o' -o -name '.*.cmd' | xargs rm -f
	-$(MAKE) -C tests/unit clean
	rm -rf build
