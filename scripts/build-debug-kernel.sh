#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh [--release]
#
# Build (once) and install the guest kernel of `make check-debug`: Debian
# 12's own 6.1 (the linux-source-6.1 package: the same Debian-patched
# source as the linux-image-6.1.0-N-amd64 the guests normally boot) with
# KASAN, lockdep, kmemleak, UBSAN and the other checkers of
# scripts/debug-kernel.config. Prints the kernel's release at the end
# (6.1.X-sroce-debug), which is what KVER names for run-guest, the
# module's build and tests/guest/kmod/build.sh. --release prints only
# that, building and installing nothing.
#
# Configuration. Debian's full configuration builds thousands of modules
# (hours on 2 cores, more with KASAN), so it is cut down first: Debian's
# /boot/config-<KVER> of the default kernel (scripts/kver.sh), through
# `make localmodconfig` with the modules below, the closure of what the
# guests load (virtio, 9p and overlayfs for the root; the RDMA core,
# rdma_rxe and the UDP tunnels; veth and netem; NVMe over RDMA, host
# and target). Everything Debian builds in stays built in, so the guest
# is the one the tests know, with the checkers added. Then
# scripts/debug-kernel.config is merged in and verified line by line.
# About 16 min on 2 idle cores; `nice`d, 2 jobs (DEBUG_KERNEL_JOBS).
#
# Cache. The build lives in build/debug-kernel/<key>/ (make clean removes
# it), <key> a hash of the source package's version, the base
# configuration, the fragment and the module list; the source is
# unpacked once per package version in build/debug-kernel/src-<version>/.
# A finished build leaves a stamp there and is never rebuilt.
#
# Install. The guest's root is the host's /, so the kernel goes where a
# packaged one would: modules_install into /lib/modules/<release>/ (its
# build link pointing at the build tree, for out-of-tree modules), the
# image into /boot/vmlinuz-<release>. Nothing else of the host changes:
# no initramfs-tools or bootloader hook runs, and scripts/kver.sh never
# picks this kernel unless KVER names it in full.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FRAGMENT=$REPO/scripts/debug-kernel.config
SRC_PKG=linux-source-6.1
TOP=$REPO/build/debug-kernel
JOBS=${DEBUG_KERNEL_JOBS:-$(nproc)}

# The modules localmodconfig keeps (with what Kconfig makes them need):
# the dependency closure, on Debian's 6.1, of every module the guest
# cases load, by `modprobe --show-depends`, plus the crc32 drivers that
# the crypto API loads by name at run time (rdma_rxe's ICRC).
MODULES=(
	# the guest's root: virtio PCI, its NIC, 9p, overlayfs
	virtio virtio_ring virtio_pci virtio_pci_legacy_dev virtio_pci_modern_dev
	virtio_net net_failover failover virtio_blk virtio_console virtio_balloon
	9p 9pnet 9pnet_virtio netfs fscache overlay
	# the RDMA core, its user-space interfaces, the CM; in-tree rdma_rxe
	ib_core ib_uverbs ib_umad ib_cm iw_cm rdma_cm rdma_ucm rdma_rxe
	udp_tunnel ip6_udp_tunnel
	# topologies: veth pairs, netem
	veth sch_netem
	# NVMe over RDMA, host and target (configfs)
	nvme_core nvme_fabrics nvme_rdma nvmet nvmet_rdma configfs
	t10_pi crc_t10dif crct10dif_common crct10dif_generic crct10dif_pclmul
	crc64 crc64_rocksoft
	# crc32 for the crypto API
	crc32_generic crc32_pclmul crc32c_generic crc32c_intel
)

release_only=
[[ ${1:-} == --release ]] && release_only=1

# Packages the build needs (the source, the toolchain, what kbuild runs).
need_packages() {
	local p missing=()
	for p in "$SRC_PKG" build-essential bc bison flex libssl-dev libelf-dev \
		 xz-utils kmod cpio; do
		[[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) == installed ]] ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	echo "build-debug-kernel: installing: ${missing[*]}"
	local run=()
	[[ $(id -u) == 0 ]] || run=(sudo)
	"${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${run[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "${missing[@]}"
}

[[ -n $release_only ]] || need_packages

srcver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null) || {
	echo "build-debug-kernel: $SRC_PKG is not installed" >&2; exit 1; }
BASE_KVER=$(env -u KVER "$REPO/scripts/kver.sh" --headers)
base_config=/boot/config-$BASE_KVER
[[ -r $base_config ]] || base_config=/usr/src/linux-headers-$BASE_KVER/.config
[[ -r $base_config ]] || {
	echo "build-debug-kernel: no configuration of $BASE_KVER to start from" >&2; exit 1; }

key=$({
	echo "$srcver"
	cat "$base_config"
	cat "$FRAGMENT"
	printf '%s\n' "${MODULES[@]}"
} | sha256sum | cut -c1-12)
SRC=$TOP/src-$srcver
OBJ=$TOP/$key

# The release: the upstream version of the package (6.1.192-3 is 6.1.192)
# and the fragment's LOCALVERSION; configure checks it is the kernel's.
localversion=$(sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$/\1/p' "$FRAGMENT")
RELEASE=${srcver%%-*}$localversion
if [[ -n $release_only ]]; then
	echo "$RELEASE"
	exit 0
fi

kmake() {
	make -C "$SRC" O="$OBJ" LOCALVERSION= "$@"
}

# unpack: the source tree, once per package version.
if [[ ! -e $SRC/.unpacked ]]; then
	echo "build-debug-kernel: unpacking $SRC_PKG $srcver"
	rm -rf "$SRC" "$SRC.tmp"
	mkdir -p "$SRC.tmp"
	tar -xJf "/usr/src/$SRC_PKG.tar.xz" -C "$SRC.tmp" --strip-components=1
	mv "$SRC.tmp" "$SRC"
	touch "$SRC/.unpacked"
fi

# configure: Debian's configuration, localmodconfig, the fragment.
configure() {
	local list=$OBJ/localmod.list line bad=0
	mkdir -p "$OBJ"
	cp "$base_config" "$OBJ/.config"
	kmake -s olddefconfig
	printf '%s\n' "Module" "${MODULES[@]}" > "$list"
	# localmodconfig grumbles about modules whose options it cannot
	# find (the builtin ones): only the errors count.
	kmake -s LSMOD="$list" localmodconfig < /dev/null > "$OBJ/localmodconfig.log" 2>&1 || {
		cat "$OBJ/localmodconfig.log" >&2; return 1; }
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$FRAGMENT" > /dev/null
	kmake -s olddefconfig
	# Every line of the fragment, as it ended up.
	while read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]]; then
			grep -qxF -- "$line" "$OBJ/.config" || {
				echo "build-debug-kernel: wanted $line, got: $(grep -E "^(# )?${BASH_REMATCH[1]}[= ]" "$OBJ/.config" || echo unset)" >&2
				bad=1; }
		elif [[ $line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]]; then
			! grep -qE "^${BASH_REMATCH[1]}=" "$OBJ/.config" || {
				echo "build-debug-kernel: wanted ${BASH_REMATCH[1]} off, got: $(grep -E "^${BASH_REMATCH[1]}=" "$OBJ/.config")" >&2
				bad=1; }
		fi
	done < "$FRAGMENT"
	((bad == 0))
}

if [[ ! -e $OBJ/.built ]]; then
	echo "build-debug-kernel: building $RELEASE in $OBJ ($JOBS jobs, log: $OBJ/build.log)"
	start=$SECONDS
	configure
	if ! nice -n 10 make -C "$SRC" O="$OBJ" LOCALVERSION= -j"$JOBS" bzImage modules \
		> "$OBJ/build.log" 2>&1; then
		tail -n 40 "$OBJ/build.log" >&2
		echo "build-debug-kernel: build failed (log: $OBJ/build.log)" >&2
		exit 1
	fi
	got=$(cat "$OBJ/include/config/kernel.release")
	[[ $got == "$RELEASE" ]] || {
		echo "build-debug-kernel: built $got, expected $RELEASE" >&2; exit 1; }
	echo "$((SECONDS - start))" > "$OBJ/.built"
	echo "build-debug-kernel: built in $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
fi

# install: modules and image where a packaged kernel's would be, unless
# this very build is there already.
MODLIB=/lib/modules/$RELEASE
run_root() { if [[ $(id -u) == 0 ]]; then "$@"; else sudo "$@"; fi; }
if [[ $(cat "$MODLIB/sroce-debug-key" 2>/dev/null) != "$key" ||
      ! -r /boot/vmlinuz-$RELEASE || "$(readlink "$MODLIB/build")" != "$OBJ" ]]; then
	echo "build-debug-kernel: installing $RELEASE ($MODLIB, /boot/vmlinuz-$RELEASE)"
	run_root make -s -C "$SRC" O="$OBJ" LOCALVERSION= INSTALL_MOD_STRIP=1 modules_install
	run_root ln -sfn "$OBJ" "$MODLIB/build"
	run_root install -m 0644 "$OBJ/arch/x86/boot/bzImage" "/boot/vmlinuz-$RELEASE"
	run_root install -m 0644 "$OBJ/System.map" "/boot/System.map-$RELEASE"
	run_root install -m 0644 "$OBJ/.config" "/boot/config-$RELEASE"
	echo "$key" | run_root tee "$MODLIB/sroce-debug-key" > /dev/null
fi
echo "$RELEASE"
