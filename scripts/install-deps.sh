#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh [PACKAGE...]
#
# Install everything the build and the tests need on a Debian 12 machine,
# plus the PACKAGEs given (what one tool needs and the tests do not, e.g.
# iperf3 for `make bench-wire`). Idempotent and quick when all is present:
# apt is only touched when dpkg-query says something is missing.
#
# The guest boots the Debian kernel whose headers we build against, so the
# linux-image package must be exactly the headers' version. That version is
# printed at the end (and exported as KVER when this file is sourced).
set -euo pipefail

PACKAGES=(
	# module build
	build-essential gcc bc flex bison libelf-dev sparse linux-headers-amd64
	# guest harness
	qemu-system-x86 busybox-static kmod cpio
	# tools used inside the guest
	iproute2 iputils-ping procps tcpdump ethtool
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	perftest rdmacm-utils
	# UCX: ucx_perftest, and the headers and library of tests/guest/progs/ucp_verify
	ucx-utils libucx0 libucx-dev
)

installed() {
	[[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

missing() {
	local p
	for p in "$@"; do
		installed "$p" || echo "$p"
	done
}

updated=
apt_install() {
	local run=()
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null || {
			echo "install-deps: need root to install: $*" >&2
			exit 1
		}
		run=(sudo)
	fi
	echo "install-deps: installing: $*"
	if [[ -z $updated ]]; then
		"${run[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
		updated=1
	fi
	"${run[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends "$@"
}

mapfile -t need < <(missing "${PACKAGES[@]}" "$@")
if ((${#need[@]})); then
	apt_install "${need[@]}"
fi

# Kernel version: from $KVER, else the headers the meta package points at.
if [[ -z ${KVER:-} ]]; then
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64)
	dep=${dep%%[ ,]*}                       # "linux-headers-6.1.0-57-amd64"
	KVER=${dep#linux-headers-}
fi
[[ $KVER =~ ^[0-9]+\.[0-9]+\.[0-9]+-[0-9]+-amd64$ ]] || {
	echo "install-deps: cannot make sense of kernel version '$KVER'" >&2
	exit 1
}

# The exact image and headers (either the signed or unsigned image will do).
mapfile -t need < <(missing "linux-headers-$KVER")
if [[ ! -r /boot/vmlinuz-$KVER || ! -d /lib/modules/$KVER/kernel ]]; then
	need+=("linux-image-$KVER")
fi
if ((${#need[@]})); then
	apt_install "${need[@]}"
fi

export KVER
echo "install-deps: all present; kernel KVER=$KVER"
