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
#
# The kernel is Debian 12's own (the one bookworm's linux-headers-amd64
# points at, 6.1) unless $KVER names another: a full version, or a prefix
# such as KVER=6.12 for the 6.12 LTS of bookworm-backports. A kernel that
# bookworm lacks is taken from bookworm-backports, whose apt source is
# added then; only that kernel's packages come from there (no -t: nothing
# else on the machine is upgraded, linux-headers-amd64 included).
set -euo pipefail

PACKAGES=(
	# module build
	build-essential gcc bc flex bison libelf-dev sparse linux-headers-amd64
	# guest harness
	qemu-system-x86 busybox-static kmod cpio xz-utils zstd
	# tools used inside the guest
	iproute2 iputils-ping procps tcpdump ethtool tshark
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	perftest rdmacm-utils
	# UCX: ucx_perftest, and the headers and library of tests/guest/progs/ucp_verify
	ucx-utils libucx0 libucx-dev
	# Open MPI across two guests (guest2/mpi-wire): mpirun, mpicc, and
	# the ssh daemon and client it launches the remote rank through
	openmpi-bin libopenmpi-dev openssh-server openssh-client
	# iSER (guest2/iser-wire): LIO through targetcli (it needs a system bus),
	# the open-iscsi initiator
	targetcli-fb dbus open-iscsi
	# NFS over RDMA (guest2/nfs-rdma): rpc.mountd, exportfs, rpcbind, mount.nfs4
	nfs-kernel-server nfs-common rpcbind
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

# run_root CMD...: CMD as root (through sudo when we are not).
run_root() {
	if [[ $(id -u) == 0 ]]; then
		"$@"
	else
		sudo "$@"
	fi
}

BACKPORTS=/etc/apt/sources.list.d/sroce-bookworm-backports.sources

# Add bookworm-backports to apt's sources, unless some source has it.
add_backports() {
	if grep -rqs --include='*.list' --include='*.sources' bookworm-backports \
		/etc/apt/sources.list /etc/apt/sources.list.d/; then
		return 0
	fi
	echo "install-deps: adding bookworm-backports ($BACKPORTS)"
	printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
		'Suites: bookworm-backports' 'Components: main' \
		'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
		run_root tee "$BACKPORTS" > /dev/null
	updated=
}

# Full version of the kernel $KVER names (a prefix like 6.12 is allowed):
# what is installed first, else the newest amd64 headers apt knows of
# (bookworm-security carries 6.12 builds too; any +deb12 one will do).
resolve_kver() {
	local v
	if v=$(KVER=$KVER "$(dirname "${BASH_SOURCE[0]}")/kver.sh" --headers 2>/dev/null); then
		echo "$v"
		return
	fi
	[[ $KVER =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$ ]] && {
		echo "$KVER"
		return
	}
	# Only the plain amd64 flavour (not -rt-amd64, -cloud-amd64).
	apt-cache pkgnames "linux-headers-$KVER" |
		sed -n 's/^linux-headers-\(.*-amd64\)$/\1/p' |
		grep -E "^${KVER//./\\.}([.+-].*)?$" |
		grep -E '^[0-9]+\.[0-9]+\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$' |
		sort -V | tail -n 1
}

# Kernel version: from $KVER, else the headers the meta package points at.
if [[ -z ${KVER:-} ]]; then
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64)
	dep=${dep%%[ ,]*}                       # "linux-headers-6.1.0-57-amd64"
	KVER=${dep#linux-headers-}
else
	want=$KVER
	KVER=$(resolve_kver) || KVER=
	if [[ -z $KVER ]] || ! apt-cache show "linux-headers-$KVER" > /dev/null 2>&1; then
		# Not installed and not in bookworm: a backported kernel.
		add_backports
		[[ -n $updated ]] || {
			run_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
			updated=1
		}
		KVER=$want
		KVER=$(resolve_kver) || KVER=
	fi
fi
[[ $KVER =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9]+|\+deb[0-9]+)-amd64$ ]] || {
	echo "install-deps: cannot make sense of kernel version '${KVER:-${want:-}}'" >&2
	exit 1
}

# The exact image and headers. Either the signed or the unsigned image
# will do; backports may have only the unsigned one of the newest build.
# (apt-cache show succeeds for a name that is only virtual, as the signed
# image's is while its build is missing: ask for an install candidate.)
has_candidate() {
	apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}
mapfile -t need < <(missing "linux-headers-$KVER")
if [[ ! -r /boot/vmlinuz-$KVER || ! -d /lib/modules/$KVER/kernel ]]; then
	if has_candidate "linux-image-$KVER"; then
		need+=("linux-image-$KVER")
	else
		need+=("linux-image-$KVER-unsigned")
	fi
fi
if ((${#need[@]})); then
	apt_install "${need[@]}"
fi

export KVER
echo "install-deps: all present; kernel KVER=$KVER"
