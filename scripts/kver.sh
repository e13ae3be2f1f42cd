#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kver.sh [--headers]
#
# Print the kernel version the module is built for and the guest boots.
#
# Without $KVER: Debian 12's own kernel, i.e. the newest installed
# /usr/src/linux-headers-X.Y.Z-N-amd64. That is the naming of bookworm's
# kernels (6.1.0-57-amd64); backported kernels are named X.Y.Z+debNN-amd64
# (6.12.95+deb12-amd64) and are never picked by default, so installing
# one does not switch the tests to it behind anybody's back.
#
# With $KVER: that kernel. Either the full version (6.12.95+deb12-amd64)
# or a prefix of it ending at a version component (6.12, 6.12.95 or 6.1;
# 6.1 does not match 6.12.x): the newest installed match.
#
# The headers, /boot/vmlinuz-<ver> and /lib/modules/<ver> must all be
# there (the guest boots the image the module is built for); --headers
# asks for the headers only (a module build needs nothing else).
#
# A kernel built here rather than packaged (make check-debug's
# 6.1.X-sroce-debug, scripts/build-debug-kernel.sh) has no /usr/src
# headers, only its build tree behind /lib/modules/<ver>/build: it is
# taken when KVER names it in full, and never picked otherwise.
set -euo pipefail

need_image=1
[[ ${1:-} == --headers ]] && need_image=

usable() {
	[[ -d /usr/src/linux-headers-$1 || -f /lib/modules/$1/build/Makefile ]] || return 1
	[[ -z $need_image ]] && return 0
	[[ -r /boot/vmlinuz-$1 && -d /lib/modules/$1 ]]
}

# Installed header versions, oldest first (sort -V orders 6.1.0-9 before
# 6.1.0-57, and 6.1.x before 6.12.x).
installed() {
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null |
		sed 's|^/usr/src/linux-headers-||' | sort -V
}

best=
if [[ -n ${KVER:-} ]]; then
	want=${KVER}
	if usable "$want"; then
		echo "$want"
		exit 0
	fi
	while read -r v; do
		[[ $v == "$want" || $v == "$want".* || $v == "$want"-* ||
		   $v == "$want"+* ]] || continue
		usable "$v" && best=$v
	done < <(installed)
	if [[ -z $best ]]; then
		echo "kver.sh: KVER=$KVER: no such kernel with headers${need_image:+, /boot/vmlinuz and /lib/modules}" >&2
		echo "kver.sh: run KVER=$KVER scripts/install-deps.sh" >&2
		exit 1
	fi
	echo "$best"
	exit 0
fi

while read -r v; do
	[[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+-[0-9]+-amd64$ ]] || continue
	usable "$v" && best=$v
done < <(installed)

if [[ -z $best ]]; then
	echo "kver.sh: no Debian 12 linux-headers-X.Y.Z-N-amd64${need_image:+ with a matching /boot/vmlinuz-*}" >&2
	echo "kver.sh: run scripts/install-deps.sh" >&2
	exit 1
fi
echo "$best"
